package io.sovia.spi.backend;

import io.sovia.spi.transport.PathKind;

import java.io.IOException;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SelectableChannel;
import java.util.Set;

/**
 * What carries one stream socket behind an app-facing {@code SocketChannel} (DESIGN section 2).
 *
 * <p>The app holds Sovia's channel; the channel owns the Java semantics (open/closed state, blocking
 * mode bookkeeping, interrupts, selection keys) and delegates the transfer of bytes here. A backend
 * may be replaced while a connect is in progress, never after the channel is connected.
 *
 * <p>Threading: the channel calls these methods from app threads under the same rules the JDK's
 * {@code SocketChannel} gives apps (one reader and one writer at a time may run concurrently;
 * {@link #close()} may be called from any thread and must wake blocked readers and writers).
 * Blocking methods block only when the backend was put in blocking mode.
 */
public interface SocketBackend {
    /** The path this backend carries bytes on, for stats. */
    PathKind path();

    /**
     * The JDK channel a selector registers to learn about readiness, or null when readiness is known
     * at user level ({@link #readyOps(int)}). Sovia's selector sleeps in one JDK selector holding every
     * such channel.
     */
    SelectableChannel pollChannel();

    /** For a backend without a poll channel: which of {@code interestOps} are ready now. */
    default int readyOps(int interestOps) {
        return 0;
    }

    /**
     * For a backend without a poll channel: registers ({@code true}) or removes a selector (or a selecting thread's
     * word sleeper) to wake when readiness may have changed (see {@code Pollable.armSelector}).
     */
    default void armSelector(Object sleeper, boolean arm) {
    }

    /** See {@code Pollable.wakeWord}: the word a selector may sleep on for this backend, or 0. */
    default long wakeWord() {
        return 0;
    }

    /** See {@code Pollable.wakeWordChanged}. */
    default void wakeWordChanged() {
    }

    /** See {@code Pollable.doorbell}: the channel a selector may sleep on for this backend, or null. */
    default SelectableChannel doorbell() {
        return null;
    }

    /** See {@code Pollable.doorbellRung}. */
    default boolean doorbellRung() {
        return true;
    }

    /** Changes between blocking and non-blocking operation. */
    void configureBlocking(boolean block) throws IOException;

    /** Binds the local side. */
    void bind(SocketAddress local) throws IOException;

    /** Starts (non-blocking) or completes (blocking) a connect, as {@code SocketChannel.connect}. */
    boolean connect(SocketAddress remote) throws IOException;

    /** Connects in blocking mode within {@code timeoutMillis} (0 = no limit), as {@code Socket.connect}. */
    void connect(SocketAddress remote, int timeoutMillis) throws IOException;

    /** As {@code SocketChannel.finishConnect}. */
    boolean finishConnect() throws IOException;

    /** Whether the socket is connected. */
    boolean isConnected();

    /** Whether a non-blocking connect has been started and not finished. */
    boolean isConnectionPending();

    /** As {@code SocketChannel.read(ByteBuffer)}. */
    int read(ByteBuffer dst) throws IOException;

    /** What {@link #readNow} and {@link #writeNow} return when this backend cannot try without blocking. */
    int CANNOT_TRY = Integer.MIN_VALUE;

    /**
     * Reads what a non-blocking read would, whatever the blocking mode: the blocking channel's fast
     * path, which needs no interruptible bracket when nothing has to wait. {@link #CANNOT_TRY} when the
     * backend cannot (the JDK's own channel in blocking mode).
     */
    default int readNow(ByteBuffer dst) throws IOException {
        return CANNOT_TRY;
    }

    /** Writes what a non-blocking write would, whatever the blocking mode; see {@link #readNow}. */
    default int writeNow(ByteBuffer src) throws IOException {
        return CANNOT_TRY;
    }

    /** As {@code SocketChannel.read(ByteBuffer[], int, int)}. */
    long read(ByteBuffer[] dsts, int offset, int length) throws IOException;

    /**
     * A blocking read into an array for stream adaptors: waits at most {@code timeoutMillis}
     * (0 = forever) and then throws {@link java.net.SocketTimeoutException} leaving the socket usable.
     */
    int read(byte[] b, int off, int len, int timeoutMillis) throws IOException;

    /** Bytes that can be read without blocking, as {@code InputStream.available}. */
    int available() throws IOException;

    /** As {@code SocketChannel.write(ByteBuffer)}. */
    int write(ByteBuffer src) throws IOException;

    /** As {@code SocketChannel.write(ByteBuffer[], int, int)}. */
    long write(ByteBuffer[] srcs, int offset, int length) throws IOException;

    /** The largest read of {@link #receiveFile}, as the JDK's own transfer. */
    int FILE_CHUNK = 8192;
    /** Whether {@code transferFrom} may write past the end of the file, extending it: JDK 21 on (JDK-8303260). */
    boolean RECEIVE_PAST_END = Runtime.version().feature() >= 21;

    /**
     * {@code file.transferTo(position, count, channel)} with this connection as the target, without the heap copy of
     * the JDK's transfer to a channel it does not know. Returns the bytes written.
     */
    long sendFile(FileChannel file, long position, long count) throws IOException;

    /**
     * {@code file.transferFrom(channel, position, count)} with this connection as the source, as the JDK's own
     * transfer from a channel it does not know does it (nothing past the end of the file before JDK 21; else read,
     * then write at the position, until {@code count} bytes, the end of the stream or a read that finds nothing),
     * through a temporary direct buffer of the JDK's rather than a heap array.
     */
    default long receiveFile(FileChannel file, long position, long count) throws IOException {
        if (position > file.size() && !RECEIVE_PAST_END) {
            return 0; // FileChannel's rule before JDK 21: nothing is transferred past the end of the file
        }
        ByteBuffer buffer = sun.nio.ch.Util.getTemporaryDirectBuffer((int) Math.min(count, FILE_CHUNK));
        try {
            long done = 0;
            while (done < count) {
                buffer.clear().limit((int) Math.min(buffer.capacity(), count - done));
                int read = read(buffer);
                if (read <= 0) {
                    break;
                }
                buffer.flip();
                int written = file.write(buffer, position + done);
                done += written;
                if (written != read) {
                    break;
                }
            }
            return done;
        } finally {
            sun.nio.ch.Util.releaseTemporaryDirectBuffer(buffer);
        }
    }

    /** Sends one byte of TCP urgent data, as {@code Socket.sendUrgentData}. */
    void sendUrgentData(int data) throws IOException;

    /** As {@code SocketChannel.shutdownInput}. */
    void shutdownInput() throws IOException;

    /** As {@code SocketChannel.shutdownOutput}. */
    void shutdownOutput() throws IOException;

    /** The bound local address, or null. */
    SocketAddress localAddress() throws IOException;

    /** The connected remote address, or null. */
    SocketAddress remoteAddress() throws IOException;

    /** Sets a socket option. */
    <T> void setOption(SocketOption<T> name, T value) throws IOException;

    /** Reads a socket option. */
    <T> T getOption(SocketOption<T> name) throws IOException;

    /** The options this backend supports. */
    Set<SocketOption<?>> supportedOptions();

    /** Sets {@code SO_OOBINLINE}, which is not a standard {@code SocketOption}. */
    void setOobInline(boolean on) throws IOException;

    /** Reads {@code SO_OOBINLINE}. */
    boolean oobInline() throws IOException;

    /** Releases everything and wakes blocked callers. Idempotent. */
    void close() throws IOException;
}
