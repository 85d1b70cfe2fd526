package io.sovia.spi.nio;

import java.io.IOException;
import java.net.SocketException;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NotYetBoundException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;

/**
 * Turns channel exceptions into what {@code java.net} callers expect from a socket adaptor, with the
 * JDK's messages, so code that matches on them keeps working under the agent.
 */
final class NetExceptions {
    private NetExceptions() {
    }

    /** Rethrows {@code x} as a SocketException (or as itself if it is unchecked and has no mapping). */
    static SocketException toSocketException(Exception x) {
        if (x instanceof SocketException) {
            return (SocketException) x;
        }
        String message = messageFor(x);
        if (message == null && !(x instanceof IOException)) {
            if (x instanceof RuntimeException) {
                throw (RuntimeException) x;
            }
            throw new IllegalStateException(x);
        }
        SocketException se = new SocketException(message == null ? x.getMessage() : message);
        se.initCause(x);
        return se;
    }

    /** As {@link #toSocketException} but lets other IOExceptions (timeouts, ConnectException) through. */
    static IOException translate(Exception x) {
        if (x instanceof IOException && messageFor(x) == null) {
            return (IOException) x;
        }
        return toSocketException(x);
    }

    /**
     * As the JDK's server adaptor's accept translates: every IOException unchanged (so a close during a
     * blocked accept shows as AsynchronousCloseException), the unchecked channel exceptions as
     * {@link #toSocketException}.
     */
    static IOException translateForAccept(Exception x) {
        return x instanceof IOException io ? io : toSocketException(x);
    }

    private static String messageFor(Exception x) {
        if (x instanceof ClosedChannelException) {
            return "Socket is closed";
        } else if (x instanceof NotYetConnectedException) {
            return "Socket is not connected";
        } else if (x instanceof AlreadyBoundException) {
            return "Already bound";
        } else if (x instanceof AlreadyConnectedException) {
            return "Already connected";
        } else if (x instanceof NotYetBoundException) {
            return "Socket is not bound yet";
        } else if (x instanceof UnsupportedAddressTypeException) {
            return "Unsupported address type";
        } else if (x instanceof UnresolvedAddressException) {
            return "Unresolved address";
        }
        return null;
    }
}
