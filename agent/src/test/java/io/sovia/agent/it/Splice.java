package io.sovia.agent.it;

import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Copies bytes both ways between two connected blocking channels, one thread per direction, so that their peers
 * see each other much as if they were connected directly. The end of one direction shuts down the output of the
 * other channel, so the reverse direction still flows. A read that fails (a reset, or the channel closed) resets
 * the other channel; a write that fails resets the channel the bytes came from. Both channels are closed once
 * both directions have ended.
 *
 * <p>Reads and writes wait without a bound of their own, as long as the peers leave the connection idle or full,
 * as on a direct connection; closing either channel ends both threads.
 */
final class Splice {

    private static final int BUFFER_BYTES = 64 * 1024;

    private final SocketChannel first;
    private final SocketChannel second;
    private final Runnable onClosed;
    private final AtomicInteger flowing = new AtomicInteger(2);

    /**
     * @param first one connected blocking channel
     * @param second the other
     * @param onClosed runs once, after both channels are closed
     */
    Splice(SocketChannel first, SocketChannel second, Runnable onClosed) {
        this.first = first;
        this.second = second;
        this.onClosed = onClosed;
    }

    /** Starts copying on two daemon threads. */
    void start() {
        startPump(first, second);
        startPump(second, first);
    }

    /** Closes {@code channel} abortively, so its peer sees a reset; nothing happens if it is closed already. */
    static void abort(SocketChannel channel) {
        try {
            channel.setOption(StandardSocketOptions.SO_LINGER, 0);
        } catch (IOException closedMeanwhile) {
            // Closed by the other direction, which took care of the peer already.
        }
        close(channel);
    }

    private void startPump(SocketChannel from, SocketChannel to) {
        Thread pump = new Thread(() -> pump(from, to), "relay-pump");
        // A pump stuck in a broken implementation must not keep the relay alive after its stdin ends.
        pump.setDaemon(true);
        pump.start();
    }

    private void pump(SocketChannel from, SocketChannel to) {
        if (copy(from, to)) {
            try {
                to.shutdownOutput();
            } catch (IOException e) {
                // The end cannot be passed on, as over a broken connection: the side it came from gets a reset.
                abort(from);
                close(to);
            }
        }
        if (flowing.decrementAndGet() == 0) {
            close(first);
            close(second);
            onClosed.run();
        }
    }

    /** Copies until EOF, returning true, or until a read or write fails, returning false after handling it. */
    private static boolean copy(SocketChannel from, SocketChannel to) {
        ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER_BYTES);
        while (true) {
            try {
                if (from.read(buffer) < 0) {
                    return true;
                }
            } catch (IOException reset) {
                abort(to);
                close(from);
                return false;
            }
            buffer.flip();
            try {
                while (buffer.hasRemaining()) {
                    to.write(buffer);
                }
            } catch (IOException broken) {
                abort(from);
                close(to);
                return false;
            }
            buffer.clear();
        }
    }

    private static void close(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // Nothing else to do with a channel that fails to close; the relay's exit releases it.
            System.err.println("relay: closing " + channel + ": " + e);
        }
    }
}
