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
 * accepted sockets inherit may have changed. And it knows whether the app set one of the options whose kernel
 * default no sysctl changes (TCP_NODELAY, SO_LINGER, SO_OOBINLINE): while not, a session reads their defaults here
 * rather than from the setup socket, a {@code getsockopt} less for each per connection.
 *
 * <p>Written by the app's thread that sets the option, read by the one that connects or accepts.
 */
public final class BufferSizes {
    /** Set by the app; 0 while not. */
    private volatile int receive;
    private volatile int send;
    private final AtomicInteger changes = new AtomicInteger();
    /** Whether the app set TCP_NODELAY, SO_LINGER or SO_OOBINLINE. */
    private volatile boolean fixedDefaultSet;

    /** Records that {@code name} was set (already, on the socket), and {@code value} if it is a buffer option. */
    public void onSet(SocketOption<?> name, Object value) {
        changes.incrementAndGet();
        if (name == StandardSocketOptions.TCP_NODELAY || name == StandardSocketOptions.SO_LINGER) {
            fixedDefaultSet = true;
        } else if (name == StandardSocketOptions.SO_RCVBUF) {
            receive = (Integer) value;
        } else if (name == StandardSocketOptions.SO_SNDBUF) {
            send = (Integer) value;
        }
    }

    /** Records that SO_OOBINLINE, which has no {@code SocketOption}, was set. */
    public void onOobInlineSet() {
        changes.incrementAndGet();
        fixedDefaultSet = true;
    }

    /**
     * The setup socket's value of {@code name} without asking it, or null when it must be asked: TCP_NODELAY and
     * SO_LINGER as the kernel sets them on every socket, while the app set none of the options with such defaults
     * (on a listener: its accepted sockets inherit them).
     */
    public Object knownValue(SocketOption<?> name) {
        if (fixedDefaultSet) {
            return null;
        }
        if (name == StandardSocketOptions.TCP_NODELAY) {
            return Boolean.FALSE;
        }
        return name == StandardSocketOptions.SO_LINGER ? Integer.valueOf(-1) : null;
    }

    /** Whether SO_OOBINLINE is known to be off without asking the setup socket (see {@link #knownValue}). */
    public boolean oobInlineKnownOff() {
        return !fixedDefaultSet;
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
        return config.withBuffers(r == 0 ? config.receiveBuffer() : Math.max(SessionConfig.MIN_RECEIVE_BUFFER, r),
                s == 0 ? config.sendBuffer() : Math.max(SessionConfig.MIN_SEND_BUFFER, s));
    }
}
