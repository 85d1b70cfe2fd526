package io.sovia.spi.engine;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Scripted checks of the sender's pacing over a {@link SimNetwork}: byte-credit flow control (a writer
 * stops at the window plus its send buffer and resumes when the reader reads), Nagle combining and the
 * three ways a held small write is flushed, and delayed ACKs. Frames are counted by type on the
 * {@link SimLink}s.
 */
class SessionFlowSimTest {
    private static final int FRAME = 1500;

    private static SimScenario connected(boolean reliable, SessionConfig cc, SessionConfig sc) {
        SimNetwork net = new SimNetwork(11, reliable, FRAME);
        net.baseDelay = 10_000;
        SimScenario s = SimScenario.of(11, reliable ? "reliable" : "lossy", net, cc, sc);
        s.handshake(false);
        return s;
    }

    @Test
    @Timeout(10)
    void writerStopsAtWindowPlusSendBufferAndResumesWhenTheReaderReads() throws IOException {
        for (boolean reliable : new boolean[] {true, false}) {
            int rcv = 4096;
            int snd = 2048;
            SimScenario s = connected(reliable, SimScenario.config(rcv, rcv), SimScenario.config(rcv, snd));
            if (!reliable) {
                s.net.loss = 0.1;
                s.net.duplicate = 0.05;
                s.net.reorder = 0.1;
                s.net.reorderDelay = 30_000;
            }
            // the server writes, the client does not read
            s.b.writing = true;
            s.b.writeTotal = s.a.expectIn = 1 << 20;
            s.b.maxWrite = 3000;
            s.driver.runUntil("the writer to fill window and send buffer", () -> s.b.written == rcv + snd);
            s.driver.runFor(50_000_000);
            SimLink out = s.driver.link(s.b);
            if (s.b.written != rcv + snd || s.b.writeNow(100) != 0 || out.uniqueDataBytes != rcv) {
                throw s.fail("expected " + rcv + " bytes framed (the window) and " + snd
                        + " buffered, then write() == 0");
            }
            if (reliable && s.driver.link(s.a).dataBytesDelivered != rcv) {
                throw s.fail("the receiver got more than its buffer");
            }
            // the reader reads: the window opens and the writer goes on (the driver checks every step
            // that no byte beyond the window edge is framed)
            s.a.reading = true;
            s.a.maxRead = 1000;
            long target = s.b.written + 20_000;
            s.driver.runUntil("writes to resume", () -> s.b.written >= target && s.a.read >= 20_000);
        }
    }

    /** Sets up a held write: one byte sent, a second one held by Nagle. */
    private static SimScenario oneByteHeld() throws IOException {
        SessionConfig c = new SessionConfig(64 * 1024, 64 * 1024, 64, 5_000_000, 200_000, 2048, 32, 1_000_000,
                500_000_000, 20_000_000, 12);
        SimScenario s = connected(true, c, c);
        s.a.writeNow(1);
        s.a.writeNow(1);
        if (s.driver.link(s.a).sent(FrameFlyweight.DATA) != 1) {
            throw s.fail("the first small write goes out at once, the second is held while the first is unacknowledged");
        }
        return s;
    }

    private static void expectData(SimScenario s, long frames, String why) {
        if (s.driver.link(s.a).sent(FrameFlyweight.DATA) != frames) {
            throw s.fail(why + ": expected " + frames + " DATA frames");
        }
    }

    @Test
    @Timeout(10)
    void heldSmallWriteIsFlushedByReadCloseAndTimer() throws IOException {
        SimScenario s = oneByteHeld();
        s.a.session.read(ByteBuffer.allocate(16));
        expectData(s, 2, "read() flushes");

        s = oneByteHeld();
        s.a.session.close();
        expectData(s, 2, "close() flushes");
        if (s.driver.link(s.a).sent(FrameFlyweight.FIN) != 1) {
            throw s.fail("close() sends FIN after the data");
        }

        s = oneByteHeld();
        long deadline = s.a.session.nextDeadline();
        if (deadline == 0 || deadline - s.net.now > 200_000) {
            throw s.fail("the held write sets a timer of at most nagleNanos, got " + deadline);
        }
        s.net.now = deadline - 1;
        s.a.session.poll();
        expectData(s, 1, "not before the timer");
        s.net.now = deadline;
        s.a.session.poll();
        expectData(s, 2, "the timer flushes");
        SimScenario t = s;
        s.b.reading = true;
        s.b.expectIn = 2;
        s.driver.runUntil("both bytes at the reader", () -> t.b.read == 2);
    }

    @Test
    @Timeout(10)
    void naglesCombinesSmallWritesUnlessNoDelay() throws IOException {
        for (boolean noDelay : new boolean[] {false, true}) {
            SessionConfig c = new SessionConfig(64 * 1024, 64 * 1024, 64, 5_000_000, 200_000, 2048, 32,
                    1_000_000, 500_000_000, 20_000_000, 12);
            SimScenario s = connected(true, c, c);
            s.a.session.setNoDelay(noDelay);
            s.b.reading = true;
            s.b.expectIn = 1000;
            for (int i = 0; i < 1000; i++) {
                if (s.a.writeNow(1) != 1) {
                    throw s.fail("1-byte write refused");
                }
                s.driver.runFor(1_000); // an app writing a byte every microsecond
            }
            s.driver.runUntil("all bytes at the reader", () -> s.b.read == 1000);
            long frames = s.driver.link(s.a).sent(FrameFlyweight.DATA);
            // without noDelay: at most one frame outstanding, so one per link delay (10 us here: the
            // reliable link's "caught up" comes when the peer takes the frame) over 1 ms of writing
            if (noDelay ? frames != 1000 : frames > 1 + 1_000_000 / 10_000 + 1) {
                throw s.fail((noDelay ? "noDelay: each write is its own frame" : "Nagle combines") + ", got "
                        + frames + " DATA frames for 1000 writes");
            }
        }
    }

    @Test
    @Timeout(10)
    void delayedAcksAreFewOnAOneWayStream() {
        int rcv = 256 * 1024;
        SessionConfig c = new SessionConfig(rcv, 128 * 1024, 16, 1_000_000, 200_000, 2048, 32, 1_000_000,
                500_000_000, 20_000_000, 12);
        SimScenario s = connected(true, c, c);
        long total = 2 << 20;
        s.a.writing = true;
        s.a.writeTotal = s.b.expectIn = total;
        s.a.maxWrite = 64 * 1024;
        s.b.reading = true;
        s.b.maxRead = 64 * 1024;
        s.driver.runUntil("the stream to arrive", () -> s.b.read == total);
        long data = s.driver.link(s.a).sent(FrameFlyweight.DATA);
        long acks = s.driver.link(s.b).sent(FrameFlyweight.ACK);
        // one per ackFrames frames, one per half receive buffer read (window update), a last one by timer
        long bound = data / c.ackFrames() + total / (rcv / 2) + 2;
        if (acks > bound) {
            throw s.fail(acks + " ACK frames for " + data + " DATA frames, expected at most " + bound);
        }
    }
}
