package io.sovia.spi.engine;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Random;

/**
 * The application on one side of a simulated connection: writes a deterministic pseudo-random byte
 * stream in random-sized pieces, reads into random-sized buffers and checks every byte against the
 * stream the peer writes. It does one operation of each kind per {@link #step()}; the
 * {@link SimDriver} decides when steps happen.
 */
final class SimApp {
    /** A shared random table; stream byte i is TABLE[(i + offset) & MASK], so shifted or repeated data differs. */
    private static final int MASK = (1 << 18) - 1;
    private static final byte[] TABLE = new byte[MASK + 1];

    static {
        new Random(0x5EED).nextBytes(TABLE);
    }

    /**
     * Scratch buffers, one set per thread: direct memory is slow to churn, and a test abandoned by its
     * timeout (SEPARATE_THREAD) may still run beside the next one.
     */
    private static final ThreadLocal<ByteBuffer> HEAP = ThreadLocal.withInitial(() -> ByteBuffer.allocate(64 * 1024));
    private static final ThreadLocal<ByteBuffer> DIRECT = ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(64 * 1024));
    private static final ThreadLocal<byte[]> ARRAY = ThreadLocal.withInitial(() -> new byte[64 * 1024]);

    final String name;
    final Session session;
    private final Random random;
    private final ByteBuffer heap = HEAP.get();
    private final ByteBuffer direct = DIRECT.get();
    private final byte[] array = ARRAY.get();

    /** What this side writes: how much in total, at most how much per write, and its stream offset. */
    long writeTotal;
    int maxWrite = 1;
    int outOffset;
    /** What this side reads: the peer's stream offset, how many bytes the peer writes (EOF before that
     *  many is a failure), at most how much per read. */
    int inOffset;
    long expectIn;
    int maxRead = 1;
    /** Whether the app reads and writes at all in its steps. */
    boolean reading = true;
    boolean writing = true;
    /** Send FIN once everything is written; close once EOF was read and FIN sent. */
    boolean shutdownWhenWritten = true;
    boolean closeWhenDone = true;

    long written;
    long read;
    boolean eof;
    boolean shutdown;
    boolean closed;
    /** When set, an IOException from the session is kept in {@link #error} and the app stops (else the run fails). */
    boolean expectError;
    IOException error;
    /** Writes that returned 0 (send buffer full). */
    long blockedWrites;

    SimApp(String name, Session session, Random random) {
        this.name = name;
        this.session = session;
        this.random = random;
    }

    static byte streamByte(int offset, long i) {
        return TABLE[(int) ((i + offset) & MASK)];
    }

    /** One write, one read, and the FIN and close when due; returns whether anything moved. */
    boolean step() throws IOException {
        if (error != null) {
            return false;
        }
        try {
            return doStep();
        } catch (IOException e) {
            if (!expectError) {
                throw e;
            }
            error = e;
            return true;
        }
    }

    private boolean doStep() throws IOException {
        boolean progress = false;
        if (writing && !shutdown && written < writeTotal) {
            progress |= write();
        }
        if (shutdownWhenWritten && !shutdown && written == writeTotal) {
            session.shutdownOutput();
            shutdown = true;
            progress = true;
        }
        if (reading && !eof) {
            progress |= read();
        }
        if (closeWhenDone && !closed && eof && written == writeTotal && (shutdown || !shutdownWhenWritten)) {
            session.close();
            closed = true;
            progress = true;
        }
        return progress;
    }

    /** Writes exactly {@code len} bytes of the stream now (scripted tests); returns what the session took. */
    int writeNow(int len) throws IOException {
        ByteBuffer b = heap.clear().limit(len);
        for (int i = 0; i < len; i++) {
            b.put(i, streamByte(outOffset, written + i));
        }
        int n = session.write(b);
        written += n;
        return n;
    }

    /**
     * Reads at most {@code len} bytes now (scripted tests), checking them against the peer's stream;
     * returns what the session returned.
     */
    int readNow(int len) throws IOException {
        ByteBuffer b = heap.clear().limit(len);
        int n = session.read(b);
        check(n, 0, b);
        return n;
    }

    boolean write() throws IOException {
        int len = (int) Math.min(writeTotal - written, 1 + random.nextInt(random.nextBoolean() ? maxWrite : 16));
        ByteBuffer b = random.nextBoolean() ? heap : direct;
        b.clear().limit(len);
        for (int i = 0; i < len; i++) {
            b.put(i, streamByte(outOffset, written + i));
        }
        int n = session.write(b);
        if (n < 0 || n > len || b.position() != n) {
            throw new AssertionError(name + ": write of " + len + " returned " + n + ", position " + b.position());
        }
        written += n;
        if (n == 0) {
            blockedWrites++;
        }
        return n > 0;
    }

    boolean read() throws IOException {
        int len = 1 + random.nextInt(maxRead);
        int n;
        int choice = random.nextInt(3);
        if (choice == 2) {
            int off = random.nextInt(16);
            n = session.read(array, off, Math.min(len, array.length - off));
            check(n, off, null);
        } else {
            ByteBuffer b = choice == 0 ? heap : direct;
            int pos = random.nextInt(16);
            b.clear().position(pos).limit(Math.min(b.capacity(), pos + len));
            n = session.read(b);
            if (n > 0 && b.position() != pos + n) {
                throw new AssertionError(name + ": read returned " + n + " but advanced " + (b.position() - pos));
            }
            check(n, pos, b);
        }
        return n != 0;
    }

    private void check(int n, int off, ByteBuffer b) {
        if (n == -1) {
            if (read != expectIn) {
                throw new AssertionError(name + ": EOF after " + read + " bytes, expected " + expectIn);
            }
            eof = true;
            return;
        }
        if (read + n > expectIn) {
            throw new AssertionError(name + ": read " + (read + n) + " bytes, the peer wrote only " + expectIn);
        }
        for (int i = 0; i < n; i++) {
            byte got = b == null ? array[off + i] : b.get(off + i);
            byte want = streamByte(inOffset, read + i);
            if (got != want) {
                throw new AssertionError(name + ": byte " + (read + i) + " of the stream is " + got + ", expected "
                        + want + " (read of " + n + ")");
            }
        }
        read += n;
    }

    @Override
    public String toString() {
        return name + "[" + session + ", written=" + written + "/" + writeTotal + ", read=" + read
                + (eof ? " EOF" : "") + (shutdown ? ", shut" : "") + (closed ? ", closed" : "")
                + ", blockedWrites=" + blockedWrites + ", next deadline=" + session.nextDeadline()
                + (error == null ? "" : ", error " + error) + "]";
    }
}
