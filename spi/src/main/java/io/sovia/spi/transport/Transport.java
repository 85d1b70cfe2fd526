package io.sovia.spi.transport;

import io.sovia.spi.engine.Link;

import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * An accelerated path (jvm, shm, eth): its whole contract is to hand over a {@link Link} for a
 * connection, with what lives as long as it. The engine, the socket and the options above the link are
 * built by spi, once for every transport (docs/design.md, "Adding a transport").
 *
 * <p>Every connection is set up with an ordinary TCP connect, so TCP's accept semantics hold (backlog,
 * connect before accept, waking a blocked accept, refusal): the client {@linkplain #offer offers} its
 * end before that connect, and the accept that takes the TCP connection {@linkplain
 * TransportListener#claim claims} the other end. Transports outside spi are found with
 * {@link java.util.ServiceLoader}.
 *
 * <p>Threading: all methods may be called from any thread at once.
 */
public interface Transport {
    /** The path this transport provides. */
    PathKind path();

    /** Whether a connect to {@code remote} can take this path; cheap, called on every connect. */
    boolean reaches(InetSocketAddress remote);

    /**
     * Prepares a connect from {@code local} (bound, possibly to a wildcard address) to {@code remote},
     * before its TCP setup.
     *
     * @throws Declined when this path cannot take this connect now; it then uses TCP
     * @throws IOException when the transport failed; the connect uses TCP and the failure is logged
     */
    Offer offer(InetSocketAddress local, InetSocketAddress remote) throws IOException;

    /** A Sovia listener is bound at {@code bound}: take this path's connects for it; null if none. */
    TransportListener listen(InetSocketAddress bound) throws IOException;

    /** The client's end of one connect, between its offer and the end of its TCP setup. */
    interface Offer {
        /** The client's end of the link, usable at once: what it carries waits for the claim. */
        Link link();

        /**
         * The TCP setup succeeded: the connection runs on the link from now on.
         *
         * @return what lives as long as the connection; closed once the link is closed
         */
        AutoCloseable established() throws IOException;

        /** The TCP setup failed: release what the offer took, the link included. */
        void cancel();
    }

    /** A listener's side of one transport. */
    interface TransportListener {
        /**
         * An accept took a TCP connection from {@code remote} (the client's address as the accept sees
         * it): the server's end if a client offered it on this path, else null.
         */
        Claimed claim(InetSocketAddress remote) throws IOException;

        /** The listener closed; connects offered to it and never claimed are reset. */
        void close();
    }

    /**
     * The server's end of a claimed connection.
     *
     * @param link     the server's end of the link
     * @param lifetime what lives as long as the connection; closed once the link is closed
     */
    record Claimed(Link link, AutoCloseable lifetime) {
    }

    /** A transport cannot take a connect now, for a reason it names; the connect uses TCP. */
    final class Declined extends IOException {
        private static final long serialVersionUID = 1L;

        /** The fallback reason the stats count, or null for {@code <path>-unavailable}. */
        private final String statsKey;

        /** @param reason what made the transport decline, for the debug log */
        public Declined(String reason) {
            this(null, reason);
        }

        /**
         * @param statsKey the fallback reason the stats count ({@code eth-no-answer}), null for
         *                 {@code <path>-unavailable}
         * @param reason   what made the transport decline, for the debug log
         */
        public Declined(String statsKey, String reason) {
            super(reason);
            this.statsKey = statsKey;
        }

        /** The fallback reason the stats count, or null for {@code <path>-unavailable}. */
        public String statsKey() {
            return statsKey;
        }

        /** No stack trace: a decline is an answer, not a failure, and may come on every connect. */
        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }
}
