package io.sovia.spi.link;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.sovia.spi.config.SessionConfig;
import io.sovia.spi.engine.FrameFlyweight;
import io.sovia.spi.engine.Session;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Coverage-guided fuzzing (Jazzer) of what a peer controls on a ring: the ring's records, head and tail, and the
 * frames in them, decoded by a listening or established session over a {@link RingLink}. Whatever the bytes, the
 * ring's poll returns, the session's calls return or throw an IOException, and nothing else is thrown (any other
 * exception, or a hang past Jazzer's per-input timeout, is a finding). The normal build fuzzes for a bounded time
 * ({@code JAZZER_FUZZ=1}, the {@code fuzz} execution of this module's surefire) and otherwise replays the corpus in
 * {@code src/test/resources/io/sovia/spi/link/RingFramesFuzzTestInputs}.
 */
class RingFramesFuzzTest {
    private static final int CAPACITY = 4096;
    private static final SessionConfig CONFIG = new SessionConfig(8192, 8192, 16, 1_000_000, 200_000, 2048, 32,
            1_000_000, 500_000_000, 20_000_000, 40);

    @FuzzTest(maxDuration = "20s")
    void aPeersRingNeverBreaksTheSession(FuzzedDataProvider data) throws IOException {
        FrameRing in = FrameRing.allocate(CAPACITY);
        FrameRing out = FrameRing.allocate(CAPACITY);
        Session session = new Session(new RingLink(in, out, () -> { }, () -> { }), CONFIG, System::nanoTime);
        session.listen();
        ByteBuffer ring = in.buffer().order(ByteOrder.LITTLE_ENDIAN);
        // scalars first: FuzzedDataProvider takes them from the end, the records take what is left
        boolean established = data.consumeBoolean();
        long token = data.consumeLong() | 1;
        int seq = data.consumeInt();
        boolean exactTail = data.consumeBoolean();
        long anyTail = data.consumeLong();
        long head = data.consumeBoolean() ? 0 : data.consumeLong();
        byte[] write = data.consumeBytes(data.consumeInt(0, 64));
        int start = established ? syn(ring, token, seq) : 0;
        byte[] records = data.consumeRemainingAsBytes();
        int length = Math.min(records.length, CAPACITY - start);
        ring.put(start, records, 0, length);
        ring.putLong(CAPACITY + FrameRingDescriptor.HEAD, head);
        ring.putLong(CAPACITY + FrameRingDescriptor.TAIL, exactTail ? start + ((length + 7) & -8) : anyTail);
        for (int round = 0; round < 4; round++) {
            session.poll();
            try {
                session.read(ByteBuffer.allocate(CAPACITY));
                session.write(ByteBuffer.wrap(write));
            } catch (IOException expected) {
                // a reset is how a broken peer's connection ends
            }
        }
        session.close();
        session.poll();
    }

    /** A well-formed SYN record at the ring's start, so the fuzzer also reaches an established session; its end. */
    private static int syn(ByteBuffer ring, long token, int seq) {
        int frame = FrameFlyweight.HEADER_LENGTH + 8;
        ring.putInt(0, frame);
        new FrameFlyweight().wrap(ring, FrameRingDescriptor.RECORD_HEADER)
                .header(FrameFlyweight.SYN, (byte) 0, 8, 0, seq, 0, 1 << 16)
                .payloadToken(token);
        return FrameRingDescriptor.recordLength(frame);
    }
}
