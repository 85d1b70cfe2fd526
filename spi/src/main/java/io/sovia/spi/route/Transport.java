package io.sovia.spi.route;

import io.sovia.spi.backend.SessionBackend;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketOption;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * An accelerated path (jvm, shm, eth): how a connect reaches a peer's engine, and how a listener takes
 * such connects. Every connection is set up with an ordinary TCP connect (so TCP's accept semantics
 * hold); the client {@linkplain #offer offers} its side before that connect and the accept that takes
 * the TCP connection {@linkplain TransportListener#claim claims} it. Implementations outside spi are
 * found with {@link java.util.ServiceLoader}.
 *
 * <p>Threading: all methods may be called from any thread at once.
 */
public interface Transport {
    /** The path this transport provides. */
    Path path();

    /** Whether a connect to {@code remote} can take this path; cheap, called on every connect. */
    boolean reaches(InetSocketAddress remote);

    /**
     * Prepares a connect from {@code local} (already bound) to {@code remote}, before its TCP setup.
     *
     * @return the pending connect, or null when this path turned out unusable (then TCP is used)
     */
    PendingConnect offer(InetSocketAddress local, InetSocketAddress remote) throws IOException;

    /** A Sovia listener is bound at {@code bound}: take this path's connects for it; null if none. */
    TransportListener listen(InetSocketAddress bound) throws IOException;

    /** One connect between its offer and the end of its TCP setup. */
    interface PendingConnect {
        /**
         * The TCP setup succeeded: the connection now runs on a session.
         *
         * @param setup   the setup socket; it stays open as long as the connection and closes with it
         * @param options the setup socket's option values, which the session keeps
         */
        SessionBackend complete(InetSocketAddress remote, AutoCloseable setup, Map<SocketOption<?>, Object> options,
                                boolean interruptible) throws IOException;

        /** The TCP setup failed: release what the offer took. */
        void cancel();
    }

    /** A listener's side of one transport. */
    interface TransportListener {
        /**
         * An accept took a TCP connection from {@code remote}: if a client offered it on this path, the
         * server end of the connection (the caller then closes the TCP connection), else null.
         * {@code options} reads the TCP socket's option values, which the session keeps; it is called
         * only for a claimed connection, since reading them costs system calls.
         */
        SessionBackend claim(InetSocketAddress remote, InetSocketAddress local,
                             Callable<Map<SocketOption<?>, Object>> options, boolean interruptible) throws Exception;

        /** The listener closed; connects offered to it and never claimed are reset. */
        void close();
    }
}
