package io.sovia.spi.backend;

import java.io.IOException;
import java.net.SocketOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The option values of the TCP socket a connection was set up with, which a session taking over the connection
 * keeps: at the client, read one at a time, when first asked, from the setup socket, which lives as long as the
 * connection (reading them all at once cost 15 {@code getsockopt} calls per connect); at the server, whose accepted
 * TCP socket closes once the session takes over, all at once before that ({@link #snapshot}).
 */
public interface SetupOptions {
    /** The options the setup socket supports: what the session's socket supports too. */
    Set<SocketOption<?>> supported();

    /** The setup socket's value of {@code option}, or null when it cannot report it. */
    Object get(SocketOption<?> option) throws IOException;

    /** The values {@code source} has now, for a setup socket about to close. */
    static SetupOptions snapshot(SetupOptions source) {
        Map<SocketOption<?>, Object> values = new HashMap<>();
        for (SocketOption<?> option : source.supported()) {
            try {
                Object value = source.get(option);
                if (value != null) {
                    values.put(option, value);
                }
            } catch (IOException | UnsupportedOperationException e) {
                // an option the socket cannot report is one the session need not keep
            }
        }
        Set<SocketOption<?>> supported = Set.copyOf(source.supported());
        return new SetupOptions() {
            @Override
            public Set<SocketOption<?>> supported() {
                return supported;
            }

            @Override
            public Object get(SocketOption<?> option) {
                return values.get(option);
            }
        };
    }

    /** The options of a setup socket in its NIO form. */
    static SetupOptions of(SocketBackend tcp) {
        return new SetupOptions() {
            @Override
            public Set<SocketOption<?>> supported() {
                return tcp.supportedOptions();
            }

            @Override
            public Object get(SocketOption<?> option) throws IOException {
                return tcp.getOption(option);
            }
        };
    }
}
