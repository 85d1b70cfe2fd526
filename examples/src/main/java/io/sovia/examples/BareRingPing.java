package io.sovia.examples;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The floor for the benchmark: 64-byte ping-pong between two processes through a shared file mapping
 * and nothing else (no sockets, no framing, no flow control, no sleeping), the "bare shared-memory ring"
 * that the shm path's round trip is compared against. Runs without the agent.
 *
 * <pre>
 *   BareRingPing pong FILE          creates FILE (under /dev/shm), prints READY, echoes until the last ping
 *   BareRingPing ping FILE PINGS    prints RESULT rtt_us=... (after as many warm-up pings), deletes FILE
 * </pre>
 *
 * <p>Layout: the ping's sequence number at 0 and its payload at 64, the pong's sequence at 128 and its
 * payload at 192, each on its own cache line. A waiter spins, then yields (so two processes pinned to one
 * core still make progress).
 */
public final class BareRingPing {
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final int PING_SEQ = 0;
    private static final int PING_DATA = 64;
    private static final int PONG_SEQ = 128;
    private static final int PONG_DATA = 192;
    private static final int SIZE = 256;
    private static final int PAYLOAD = 64;

    private BareRingPing() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 2 || !(args[0].equals("pong") || (args[0].equals("ping") && args.length == 3))) {
            System.err.println("usage: BareRingPing pong FILE | ping FILE PINGS");
            System.exit(2);
        }
        Path file = Path.of(args[1]);
        if (args[0].equals("pong")) {
            MappedByteBuffer shared = map(file, true);
            System.out.println("READY");
            System.out.flush();
            pong(shared);
        } else {
            MappedByteBuffer shared = map(file, false);
            int pings = Integer.parseInt(args[2]);
            run(shared, 1, pings); // warm-up: the JIT compiles both loops
            long start = System.nanoTime();
            run(shared, pings + 1, pings);
            double rttMicros = (System.nanoTime() - start) / 1000.0 / pings;
            LONGS.setRelease(shared, PING_SEQ, -1L);
            Files.deleteIfExists(file);
            System.out.printf("RESULT api=bare-ring rtt_us=%.2f%n", rttMicros);
        }
    }

    private static MappedByteBuffer map(Path file, boolean create) throws IOException {
        try (FileChannel ch = create
                ? FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE)
                : FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            return ch.map(FileChannel.MapMode.READ_WRITE, 0, SIZE);
        }
    }

    private static void run(MappedByteBuffer shared, long first, int pings) {
        byte[] payload = new byte[PAYLOAD];
        for (long seq = first; seq < first + pings; seq++) {
            shared.put(PING_DATA, payload);
            LONGS.setRelease(shared, PING_SEQ, seq);
            awaitValue(shared, PONG_SEQ, seq);
            shared.get(PONG_DATA, payload);
        }
    }

    private static void pong(MappedByteBuffer shared) {
        byte[] payload = new byte[PAYLOAD];
        for (long seq = 1; ; seq++) {
            if (awaitValue(shared, PING_SEQ, seq) < 0) {
                return;
            }
            shared.get(PING_DATA, payload);
            shared.put(PONG_DATA, payload);
            LONGS.setRelease(shared, PONG_SEQ, seq);
        }
    }

    /** Spins until the long at {@code offset} is {@code value} or negative (the end); returns it. */
    private static long awaitValue(MappedByteBuffer shared, int offset, long value) {
        for (int spins = 0; ; spins++) {
            long v = (long) LONGS.getAcquire(shared, offset);
            if (v == value || v < 0) {
                return v;
            }
            if (spins < 1000) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
    }
}
