package io.sovia.spi.backend;

import java.io.IOException;
import java.net.SocketOption;
import java.util.Set;

/**
 * The option values of the TCP socket a connection was set up with, which a session taking over the connection
 * keeps: read one at a time, when first asked, from the setup socket, which lives as long as the connection. Reading
 * them all at once cost 15 {@code getsockopt} calls on each side of every connect.
 */
public interface SetupOptions {
    /** The options the setup socket supports: what the session's socket supports too. */
    Set<SocketOption<?>> supported();

    /** The setup socket's value of {@code option}, or null when it cannot report it. */
    Object get(SocketOption<?> option) throws IOException;

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
