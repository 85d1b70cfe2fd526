package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Blocking I/O and selection helpers shared by the scenarios; every wait is bounded. */
public final class Io {

    /** Upper bound for anything a scenario waits on; far above what a healthy run needs. */
    public static final long WAIT_MILLIS = 10_000;

    /** How long closed shm connections are kept for the next connect, in the test JVM and its relay. */
    public static final long SHM_KEEP_MILLIS = Long.getLong("sovia.shm.keep.millis", 10_000);

    private Io() {
    }

    /**
     * {@code length} bytes of a pattern that does not repeat at power-of-two strides, so lost, doubled or reordered
     * chunks show up in a content check; {@code offset} continues the pattern of an earlier chunk.
     */
    public static byte[] pattern(long offset, int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) ((offset + i) % 251);
        }
        return bytes;
    }

    /** Writes all of {@code src}; the channel must be blocking. */
    public static void writeFully(WritableByteChannel channel, ByteBuffer src) throws IOException {
        while (src.hasRemaining()) {
            channel.write(src);
        }
    }

    /** Reads exactly {@code length} bytes from a blocking channel. */
    /**
     * Writes {@link #pattern} bytes through a non-blocking channel until it takes no more for a while (five tries
     * 20 ms apart): what the connection buffers while its reader reads nothing. Returns how many it took.
     */
    public static int writeUntilFull(SocketChannel channel) throws IOException, InterruptedException {
        ByteBuffer src = ByteBuffer.wrap(pattern(0, 16 * 1024 * 1024));
        int stuck = 0;
        while (stuck < 5 && src.hasRemaining()) {
            int n = channel.write(src.slice(src.position(), Math.min(src.remaining(), 8192)));
            src.position(src.position() + n);
            stuck = n == 0 ? stuck + 1 : 0;
            if (n == 0) {
                Thread.sleep(20);
            }
        }
        return src.position();
    }

    public static byte[] readFully(ReadableByteChannel channel, int length) throws IOException {
        ByteBuffer dst = ByteBuffer.allocate(length);
        while (dst.hasRemaining()) {
            if (channel.read(dst) < 0) {
                throw new EOFException("EOF after " + dst.position() + " of " + length + " bytes");
            }
        }
        return dst.array();
    }

    /** Reads exactly {@code length} bytes from a stream. */
    public static byte[] readFully(InputStream in, int length) throws IOException {
        byte[] bytes = in.readNBytes(length);
        if (bytes.length != length) {
            throw new EOFException("EOF after " + bytes.length + " of " + length + " bytes");
        }
        return bytes;
    }

    /** Checks that bytes flow both ways between two connected blocking channels. */
    public static <C extends ReadableByteChannel & WritableByteChannel> void assertTalks(C a, C b)
            throws IOException {
        assertOneWay(a, b, 1000);
        assertOneWay(b, a, 2000);
    }

    private static <C extends ReadableByteChannel & WritableByteChannel> void assertOneWay(C from, C to, int offset)
            throws IOException {
        byte[] sent = pattern(offset, 100);
        writeFully(from, ByteBuffer.wrap(sent));
        assertArrayEquals(sent, readFully(to, sent.length));
    }

    /** Checks that bytes flow both ways between two connected sockets. */
    public static void assertTalks(Socket a, Socket b) throws IOException {
        assertOneWay(a, b, 3000);
        assertOneWay(b, a, 4000);
    }

    private static void assertOneWay(Socket from, Socket to, int offset) throws IOException {
        byte[] sent = pattern(offset, 100);
        from.getOutputStream().write(sent);
        from.getOutputStream().flush();
        assertArrayEquals(sent, readFully(to.getInputStream(), sent.length));
    }

    /**
     * Selects until {@code key} is selected with one of {@code ops} ready, then removes it from the selected set.
     * Fails after {@link #WAIT_MILLIS}.
     */
    public static void awaitReady(Selector selector, SelectionKey key, int ops) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
        while (true) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                fail("key never became ready for ops " + ops + "; interest " + key.interestOps());
            }
            selector.select(left);
            boolean ready = selector.selectedKeys().remove(key) && (key.readyOps() & ops) != 0;
            if (ready) {
                return;
            }
        }
    }

    /**
     * Waits until {@code condition} holds, checking it every few microseconds so that a test repeating this
     * thousands of times stays fast. Fails with {@code what} after {@link #WAIT_MILLIS}.
     */
    public static void await(BooleanSupplier condition, Supplier<String> what) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("still not so after " + WAIT_MILLIS + " ms: " + what.get());
            }
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(20));
        }
    }

    /** Reads one byte from a non-blocking channel once {@code key} reports it readable. */
    public static byte readOne(Selector selector, SelectionKey key) throws IOException {
        ByteBuffer one = ByteBuffer.allocate(1);
        awaitReady(selector, key, SelectionKey.OP_READ);
        assertEquals(1, ((ReadableByteChannel) key.channel()).read(one));
        return one.get(0);
    }

    /** Closes every non-null resource, even if one fails, and rethrows the first failure. */
    public static void closeAll(AutoCloseable... resources) throws IOException {
        IOException first = null;
        for (AutoCloseable resource : resources) {
            try {
                if (resource != null) {
                    resource.close();
                }
            } catch (Exception e) {
                if (first == null) {
                    first = e instanceof IOException io ? io : new IOException(e);
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** Closes every non-null resource after {@code cause}, keeping close failures as suppressed exceptions. */
    public static void closeAll(Throwable cause, AutoCloseable... resources) {
        try {
            closeAll(resources);
        } catch (IOException e) {
            cause.addSuppressed(e);
        }
    }
}
