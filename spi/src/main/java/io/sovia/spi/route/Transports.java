package io.sovia.spi.route;

import io.sovia.spi.backend.SessionBackend;
import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.jvm.JvmTransport;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;

/**
 * The accelerated transports of this JVM, fastest first: jvm, then those found by ServiceLoader in
 * {@link Path} order (shm, eth). A transport that fails to load is left out with one log line.
 */
public final class Transports {
    private static final List<Transport> ALL = load();

    private Transports() {
    }

    private static List<Transport> load() {
        List<Transport> list = new ArrayList<>();
        list.add(new JvmTransport());
        ServiceLoader.load(Transport.class, Transports.class.getClassLoader()).stream().forEach(provider -> {
            try {
                list.add(provider.get());
            } catch (ServiceConfigurationError | RuntimeException | LinkageError e) {
                SoviaLog.warn("transport " + provider.type().getName() + " is off; its connects use TCP",
                        e.getCause() != null ? e.getCause() : e);
            }
        });
        list.sort((a, b) -> a.path().compareTo(b.path()));
        return Collections.unmodifiableList(list);
    }

    /** Fastest first. */
    public static List<Transport> all() {
        return ALL;
    }

    /**
     * An accept took a TCP connection from {@code remote}: the session of the first transport a client
     * offered it on, or null when it is plain TCP. The caller then closes the TCP connection itself.
     */
    public static SessionBackend claim(List<Transport.TransportListener> listeners, InetSocketAddress remote,
                                       InetSocketAddress local, Callable<Map<SocketOption<?>, Object>> options,
                                       boolean interruptible) throws IOException {
        for (Transport.TransportListener listener : listeners) {
            SessionBackend session;
            try {
                session = listener.claim(remote, local, options, interruptible);
            } catch (IOException e) {
                throw e;
            } catch (Exception e) {
                // an accept loop expects IOExceptions only; anything else would end it
                throw new IOException("cannot take the connection from " + remote + " on its path", e);
            }
            if (session != null) {
                return session;
            }
        }
        return null;
    }

    /** A listener bound at {@code bound}: its side of every transport that takes connects for it. */
    public static List<Transport.TransportListener> listen(InetSocketAddress bound) {
        List<Transport.TransportListener> listeners = new ArrayList<>();
        for (Transport t : ALL) {
            try {
                Transport.TransportListener l = t.listen(bound);
                if (l != null) {
                    listeners.add(l);
                }
            } catch (IOException | RuntimeException e) {
                SoviaLog.warn("listener at " + bound + " takes no " + t.path().key() + " connects", e);
            }
        }
        return listeners;
    }
}
