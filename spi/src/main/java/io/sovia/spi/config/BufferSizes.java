package io.sovia.spi.config;

import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * SO_RCVBUF and SO_SNDBUF as the app set them on a socket before its connect, or on a listener before its
 * accepts: a session made for the connection sizes its buffers by them, as the kernel sizes TCP's (SO_RCVBUF
 * bounds the window the receiver advertises). Only values the app set count: the kernel's defaults, which the
 * setup socket reports otherwise, are far below the engine's, and would slow every stream.
 *
 * <p>It also counts every option the app set ({@link #changes()}): on a listener, that tells when the options its
 * accepted sockets inherit may have changed.
 *
 * <p>Written by the app's thread that sets the option, read by the one that connects or accepts.
 */
public final class BufferSizes {
    /** Set by the app; 0 while not. */
    private volatile int receive;
    private volatile int send;
    private final AtomicInteger changes = new AtomicInteger();

    /** Records that {@code name} was set (already, on the socket), and {@code value} if it is a buffer option. */
    public void onSet(SocketOption<?> name, Object value) {
        changes.incrementAndGet();
        if (name == StandardSocketOptions.SO_RCVBUF) {
            receive = (Integer) value;
        } else if (name == StandardSocketOptions.SO_SNDBUF) {
            send = (Integer) value;
        }
    }

    /** How many options the app has set on the socket so far. */
    public int changes() {
        return changes.get();
    }

    /** {@code config} with the buffers the app set, each no smaller than the engine allows. */
    public SessionConfig applyTo(SessionConfig config) {
        int r = receive;
        int s = send;
        if (r == 0 && s == 0) {
            return config;
        }
        return new SessionConfig(r == 0 ? config.receiveBuffer() : Math.max(SessionConfig.MIN_RECEIVE_BUFFER, r),
                s == 0 ? config.sendBuffer() : Math.max(SessionConfig.MIN_SEND_BUFFER, s), config.ackFrames(),
                config.ackDelayNanos(), config.nagleNanos(), config.smallWrite(), config.windowFrames(),
                config.rtoMinNanos(), config.rtoMaxNanos(), config.rtoInitialNanos(), config.maxRetransmits());
    }
}
