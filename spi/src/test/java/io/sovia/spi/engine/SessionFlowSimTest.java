package io.sovia.spi.engine;

import io.sovia.spi.config.SessionConfig;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD;

/**
 * Scripted checks of the sender's pacing over a {@link SimNetwork}: byte-credit flow control (a writer
 * stops at the window plus its send buffer and resumes when the reader reads, even if the reader then
 * makes no further call), Nagle combining and every way a held small write is flushed (read, close,
 * timer, combine limit, a large write, the peer catching up), and delayed ACKs, which only lossy links
 * send. Frames are counted by type on the {@link SimLink}s.
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
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
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

    /**
     * A writer blocked on credit gets it once the reader has read half its buffer, though the reader
     * then makes no call at all (an app that read a request and went on to other work): from then on its
     * session is left to the service thread, which runs the timers the session announced and nothing
     * else. So the window update must leave with that read, or be announced to the service thread, not
     * wait for the writer's probe (rtoMin later). It must arrive within the reader's ack delay and a few
     * link delays.
     */
    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void windowUpdateLeavesAfterAReadWithNoFurtherCall() throws IOException {
        for (boolean reliable : new boolean[] {true, false}) {
            int rcv = 4096;
            int snd = 2048;
            SimScenario s = connected(reliable, SimScenario.config(rcv, rcv), SimScenario.config(rcv, snd));
            s.b.writing = true;
            s.b.writeTotal = s.a.expectIn = 1 << 20;
            s.b.maxWrite = 3000;
            s.driver.runUntil("the writer to fill window and send buffer", () -> s.b.written == rcv + snd);
            s.driver.runFor(50_000_000);
            SimLink out = s.driver.link(s.b);
            if (out.uniqueDataBytes != rcv) {
                throw s.fail("expected the writer blocked after a window of " + rcv + " bytes");
            }
            readThenNoCall(s, rcv / 2);
            s.driver.maxVirtualNanos = s.net.now - s.driver.start + s.clientConfig.ackDelayNanos()
                    + 10 * s.net.baseDelay;
            s.driver.runUntil("the writer to get credit after the read", () -> out.uniqueDataBytes > rcv);
        }
    }

    /**
     * A writer blocked on credit after filling the reader's window and its own send buffer, with
     * {@code extra} bytes still to write: exactly what the reader will free, so the writer finishes
     * only if it learns of all of it. The delayed ACK (200 us) is shorter than rtoMin (1 ms), so a lossy
     * link settles without spurious retransmissions, and is left to settle: with every frame
     * acknowledged, no retransmission (which the reader would answer) can be what fetches the window.
     */
    private static SimScenario blockedWriter(boolean reliable, int rcv, int snd, int extra) {
        SimScenario s = connected(reliable, persistConfig(rcv, rcv), persistConfig(rcv, snd));
        s.b.writing = true;
        s.b.writeTotal = s.a.expectIn = rcv + snd + extra;
        s.b.maxWrite = 3000;
        s.driver.runUntil("the writer to fill window and send buffer", () -> s.b.written == rcv + snd);
        if (!reliable) {
            // not on a reliable link: there the persist timer backs off, and would delay the first probe
            s.driver.runFor(10 * s.serverConfig.rtoMinNanos());
        }
        if (s.driver.link(s.b).uniqueDataBytes != rcv) {
            throw s.fail("expected the writer blocked after a window of " + rcv + " bytes");
        }
        return s;
    }

    private static SessionConfig persistConfig(int receiveBuffer, int sendBuffer) {
        return new SessionConfig(receiveBuffer, sendBuffer, 16, 200_000, 200_000, 2048, 32, 1_000_000,
                500_000_000, 20_000_000, 40);
    }

    /** The reader reads {@code n} bytes, then leaves its session to the service thread for good. */
    private static void readThenNoCall(SimScenario s, int n) throws IOException {
        s.driver.leaveToService(s.a);
        while (s.a.read < n) {
            if (s.a.readNow(n - (int) s.a.read) <= 0) {
                throw s.fail("the reader could not read what it had");
            }
        }
    }

    /** Runs until the writer has written everything, failing if that takes longer than {@code bound}. */
    private static void writerFinishesWithin(SimScenario s, long bound, int framed) {
        s.driver.maxVirtualNanos = s.net.now - s.driver.start + bound;
        s.driver.runUntil("the writer to get the credit and finish", () -> s.b.written == s.b.writeTotal);
        if (s.driver.link(s.b).uniqueDataBytes != framed) {
            throw s.fail("expected " + framed + " bytes framed: the window and what the reader freed");
        }
    }

    /**
     * A read of less than half the buffer tells the writer nothing, and this reader makes no further
     * call. On a reliable link only the writer's persist timer can help: its probe must be answered by
     * the reader's service thread, which only the nudge brings. On a lossy link the reader's delayed ACK
     * carries the update after the ack delay (the next test drops it). The reliable writer, blocked since
     * just now, probes within rtoMin, and the answer takes two link delays: the bound is a few rtoMin.
     */
    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void writerGetsCreditAfterASmallReadWithNoFurtherCall() throws IOException {
        for (boolean reliable : new boolean[] {true, false}) {
            int rcv = 4096;
            int part = rcv / 4;
            SimScenario s = blockedWriter(reliable, rcv, 2048, part);
            readThenNoCall(s, part);
            long nudges = s.driver.link(s.a).nudgesDelivered;
            writerFinishesWithin(s, 3 * s.serverConfig.rtoMinNanos() + 10 * s.net.baseDelay, rcv + part);
            if (reliable && s.driver.link(s.a).nudgesDelivered == nudges) {
                throw s.fail("the reader answered without being nudged, so nothing probed its window");
            }
        }
    }

    /**
     * On a lossy link the window update is lost: the one sent with a read of half the buffer, or the
     * delayed one after a smaller read. The reader makes no further call and has no timer left, so only
     * the writer's window probe can fetch the window again, and only its nudge has the reader's service
     * thread answer it. The probes come every rto, rtoMin here (the round trip, delayed ACK included, is
     * shorter); a probe answered before the update was sent brings no credit, so allow two rounds.
     */
    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void writerGetsCreditThroughProbeAndNudgeWhenTheWindowUpdateIsLost() throws IOException {
        int rcv = 4096;
        for (int part : new int[] {rcv / 2, rcv / 4}) {
            SimScenario s = blockedWriter(false, rcv, 2048, part);
            long edge = rcv + part;
            boolean[] dropped = {false};
            FrameFlyweight g = new FrameFlyweight();
            // the first ACK that is not a probe and carries the new edge: the reader's, as the writer's
            // ACKs advertise its own window, which nothing widens
            s.net.dropIf = f -> {
                g.wrap(ByteBuffer.wrap(f), 0);
                return g.type() == FrameFlyweight.ACK && (g.flags() & FrameFlyweight.FLAG_PROBE) == 0
                        && g.window() == edge && !dropped[0] && (dropped[0] = true);
            };
            readThenNoCall(s, part);
            long nudges = s.driver.link(s.a).nudgesDelivered;
            writerFinishesWithin(s, 3 * s.serverConfig.rtoMinNanos() + 10 * s.net.baseDelay, rcv + part);
            if (!dropped[0] || s.driver.link(s.a).nudgesDelivered == nudges) {
                throw s.fail("expected the window update to " + edge + " dropped and the reader nudged");
            }
        }
    }

    /** Nagle on a reliable link: 64 KiB buffers, a 200 us combining timer, writes below 2 KiB small. */
    private static SessionConfig nagleConfig() {
        return nagleConfig(64 * 1024, 200_000, 2048);
    }

    private static SessionConfig nagleConfig(int sendBuffer, long nagleNanos, int smallWrite) {
        return new SessionConfig(64 * 1024, sendBuffer, 64, 5_000_000, nagleNanos, smallWrite, 32, 1_000_000,
                500_000_000, 20_000_000, 12);
    }

    /** Sets up a held write: one byte sent, a second one held by Nagle. */
    private static SimScenario oneByteHeld() throws IOException {
        return oneByteHeld(nagleConfig());
    }

    /**
     * As {@link #oneByteHeld()} with {@code c}; nobody has polled the server since, so the first byte
     * is still on the link and the peer has not caught up.
     */
    private static SimScenario oneByteHeld(SessionConfig c) throws IOException {
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

    /** The client writes {@code n} bytes, all accepted. */
    private static void write(SimScenario s, int n) throws IOException {
        if (s.a.writeNow(n) != n) {
            throw s.fail("the send buffer refused part of a " + n + "-byte write");
        }
    }

    /** Lets the server read all the client wrote; SimApp checks every byte, so their order too. */
    private static void serverReadsAll(SimScenario s) {
        s.b.reading = true;
        s.b.maxRead = 64 * 1024;
        s.b.expectIn = s.a.written;
        s.driver.runUntil("all bytes at the reader", () -> s.b.read == s.a.written);
    }

    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
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
        serverReadsAll(s);
    }

    /**
     * Small writes past combining's deadline flush what it holds themselves, within {@code
     * SessionMachine.NAGLE_CHECK_CALLS} writes (a write looks at the clock for that deadline only that often; the
     * service thread flushes at the deadline meanwhile), and no write does before the deadline.
     */
    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void smallWritesPastTheDeadlineFlushWithinAFewCalls() throws IOException {
        SimScenario s = oneByteHeld();
        long deadline = s.a.session.nextDeadline();
        for (int i = 0; i < 2 * SessionMachine.NAGLE_CHECK_CALLS; i++) {
            write(s, 1);
        }
        expectData(s, 1, "no write flushes before the deadline");
        s.net.now = deadline;
        int calls = 0;
        while (s.driver.link(s.a).sent(FrameFlyweight.DATA) == 1) {
            if (++calls > SessionMachine.NAGLE_CHECK_CALLS) {
                throw s.fail("writes past the deadline held their bytes for " + calls + " calls");
            }
            write(s, 1);
        }
        expectData(s, 2, "the held bytes go in one frame");
        serverReadsAll(s);
    }

    /**
     * The combine limit: held bytes go out on the very write that makes them fill a frame (or half the
     * send buffer, if that is less), the clock standing still, so not by the timer; before it, none do.
     */
    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void heldSmallWritesGoOutOnceTheyFillAFrame() throws IOException {
        int payload = FRAME - FrameFlyweight.HEADER_LENGTH;
        // with a 64 KiB send buffer the limit is a frame's payload; with 2 KiB, half of that buffer
        for (int sendBuffer : new int[] {64 * 1024, 2048}) {
            int limit = Math.min(payload, sendBuffer / 2);
            SimScenario s = oneByteHeld(nagleConfig(sendBuffer, 200_000, 2048));
            int held = 1;
            while (held + 100 < limit) {
                write(s, 100);
                held += 100;
                expectData(s, 1, held + " bytes held, below the combine limit of " + limit);
            }
            write(s, 100);
            held += 100;
            expectData(s, 2, held + " bytes held, the combine limit of " + limit + " reached");
            long framed = s.driver.link(s.a).dataBytesSent - 1;
            if (framed != Math.min(held, payload)) {
                throw s.fail("the write that reached the combine limit framed " + framed + " of " + held
                        + " held bytes");
            }
            serverReadsAll(s);
        }
    }

    /**
     * A write of sovia.nagle.small bytes or more is not combined, and first sends everything held before
     * it: at once, and in order (the reader checks every byte). The threshold is set below a frame
     * here, so reaching the combine limit cannot be what sends them.
     */
    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void largeWriteSendsWhatWasHeldBeforeIt() throws IOException {
        SessionConfig c = nagleConfig(64 * 1024, 200_000, 512);
        SimScenario s = oneByteHeld(c);
        write(s, c.smallWrite() - 1);
        expectData(s, 1, "a write one byte below sovia.nagle.small is combined");
        write(s, c.smallWrite());
        long left = s.a.written - s.driver.link(s.a).dataBytesSent;
        if (left != 0) {
            throw s.fail("a write of sovia.nagle.small bytes left " + left + " bytes held");
        }
        serverReadsAll(s);
    }

    /**
     * On a reliable link nothing is outstanding once the peer has taken every frame (Link#peerCaughtUp,
     * no ACK needed), so the writer's next call sends what was held, long before the combining timer.
     * The same call while the peer has not taken the frame sends nothing: it is the catching up that
     * releases the bytes, not the call or the time.
     */
    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void peerCatchingUpReleasesHeldBytesOnAReliableLink() throws IOException {
        for (boolean peerTakes : new boolean[] {false, true}) {
            SimScenario s = oneByteHeld(nagleConfig(64 * 1024, 50_000_000, 2048));
            s.net.now += 10 * s.net.baseDelay; // the first byte has arrived
            if (peerTakes) {
                s.b.session.poll();
            }
            s.a.session.poll();
            expectData(s, peerTakes ? 2 : 1, peerTakes ? "the peer took the first frame" : "the peer took nothing");
        }
    }

    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void naglesCombinesSmallWritesUnlessNoDelay() throws IOException {
        for (boolean noDelay : new boolean[] {false, true}) {
            SimScenario s = connected(true, nagleConfig(), nagleConfig());
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
            // without noDelay: one frame outstanding at a time, so about one per link delay (10 us here:
            // the reliable link's "caught up" comes when the peer takes the frame) over 1 ms of writing;
            // at least one per two delays, far more than the 200 us combining timer alone would send
            if (noDelay ? frames != 1000 : frames > 1 + 1_000_000 / 10_000 + 1 || frames < 1_000_000 / 20_000) {
                throw s.fail((noDelay ? "noDelay: each write is its own frame" : "Nagle combines") + ", got "
                        + frames + " DATA frames for 1000 writes");
            }
        }
    }

    /**
     * A one-way stream: the reader has no data for its acknowledgements to ride on, so each costs an ACK
     * frame, and they must stay few. On a lossy link (losing nothing here; the jitter spreads arrivals,
     * so frames mostly come one poll at a time) that is one per ackFrames frames, one per half receive
     * buffer read (window update) and a last one by timer; on a reliable link, where nothing waits for
     * acknowledgements, only the window updates.
     */
    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void delayedAcksAreFewOnAOneWayStream() {
        for (boolean reliable : new boolean[] {true, false}) {
            int rcv = 256 * 1024;
            // rtoMin above the ack delay: a retransmission's duplicate is acknowledged at once
            SessionConfig c = new SessionConfig(rcv, 128 * 1024, 16, 1_000_000, 200_000, 2048, 32, 5_000_000,
                    500_000_000, 20_000_000, 12);
            SimScenario s = connected(reliable, c, c);
            s.net.jitter = 5_000;
            long total = 2 << 20;
            s.a.writing = true;
            s.a.writeTotal = s.b.expectIn = total;
            s.a.maxWrite = 64 * 1024;
            s.b.reading = true;
            s.b.maxRead = 64 * 1024;
            s.driver.runUntil("the stream to arrive", () -> s.b.read == total);
            long data = s.driver.link(s.a).sent(FrameFlyweight.DATA);
            long acks = s.driver.link(s.b).sent(FrameFlyweight.ACK);
            long bound = (reliable ? 0 : data / c.ackFrames()) + total / (rcv / 2) + 2;
            if (acks > bound) {
                throw s.fail(acks + " ACK frames for " + data + " DATA frames, expected at most " + bound);
            }
        }
    }

    /**
     * Delayed ACKs on a lossy link: 4 frames per ACK and a 1 ms ack delay, under a 5 ms minimum
     * retransmission timeout, so that no retransmission (whose duplicate is acknowledged at once)
     * muddles the counts.
     */
    private static SessionConfig lossyAckConfig() {
        return new SessionConfig(64 * 1024, 64 * 1024, 4, 1_000_000, 200_000, 2048, 32, 5_000_000, 500_000_000,
                20_000_000, 12);
    }

    /** A lossy link that loses nothing, both sides on noDelay: acknowledgements are the subject. */
    private static SimScenario lossyAcks() {
        SimScenario s = connected(false, lossyAckConfig(), lossyAckConfig());
        s.client.setNoDelay(true);
        s.server.setNoDelay(true);
        return s;
    }

    /**
     * On a lossy link the receiver sends an ACK on the ackFrames-th unacknowledged DATA frame, well
     * before the ack delay, and not before it: frames are sent one at a time, a tenth of the ack delay
     * apart, and the ACKs counted after each.
     */
    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void lossyLinkAcksEveryAckFramesDataFrames() throws IOException {
        SimScenario s = lossyAcks();
        int ackFrames = s.serverConfig.ackFrames();
        SimLink back = s.driver.link(s.b);
        long before = back.sent(FrameFlyweight.ACK);
        for (int frames = 1; frames <= 3 * ackFrames; frames++) {
            write(s, FRAME - FrameFlyweight.HEADER_LENGTH);
            s.driver.runFor(s.serverConfig.ackDelayNanos() / 10);
            long acks = back.sent(FrameFlyweight.ACK) - before;
            if (acks != frames / ackFrames) {
                throw s.fail(acks + " ACK frames after " + frames + " DATA frames, expected one per " + ackFrames);
            }
        }
    }

    /**
     * On a lossy link fewer than ackFrames DATA frames are acknowledged when the ack delay has passed
     * since the first of them arrived: not a nanosecond earlier, and by one ACK, which reaches the
     * sender before its retransmission timeout (nothing is sent twice).
     */
    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void lossyLinkAcksFewerFramesAfterTheAckDelay() throws IOException {
        SimScenario s = lossyAcks();
        long ackDelay = s.serverConfig.ackDelayNanos();
        SimLink out = s.driver.link(s.a);
        SimLink back = s.driver.link(s.b);
        for (int frames = 1; frames < s.serverConfig.ackFrames(); frames++) {
            long acks = back.sent(FrameFlyweight.ACK);
            long sent = out.sent(FrameFlyweight.DATA);
            long arrived = s.net.b.delivered(FrameFlyweight.DATA) + frames;
            write(s, frames * (FRAME - FrameFlyweight.HEADER_LENGTH)); // noDelay: that many frames at once
            s.driver.runUntil("the frames at the receiver", () -> s.net.b.delivered(FrameFlyweight.DATA) == arrived);
            long first = s.net.now; // they all arrive together
            s.net.now = first + ackDelay - 1;
            s.server.poll();
            if (back.sent(FrameFlyweight.ACK) != acks) {
                throw s.fail("an ACK for " + frames + " frames before the ack delay");
            }
            s.net.now = first + ackDelay;
            s.server.poll();
            if (back.sent(FrameFlyweight.ACK) != acks + 1) {
                throw s.fail("no ACK for " + frames + " frames when the ack delay passed");
            }
            s.driver.runFor(3 * s.clientConfig.rtoMinNanos());
            if (back.sent(FrameFlyweight.ACK) != acks + 1 || out.sent(FrameFlyweight.DATA) != sent + frames) {
                throw s.fail("expected one ACK for " + frames + " frames and no retransmission");
            }
        }
    }

    /**
     * Request and response on a lossy link: each side answers within the ack delay, so every ack rides
     * on its DATA. The server sends no ACK frame at all, nothing is resent although the run goes on far
     * past the retransmission timeout (so the DATA did acknowledge), and the client sends exactly one,
     * by timer, for the last response, after which it has nothing to say.
     */
    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void lossyLinkAcksRideOnReverseData() throws IOException {
        SimScenario s = lossyAcks();
        SimLink out = s.driver.link(s.a);
        SimLink back = s.driver.link(s.b);
        long clientAcks = out.sent(FrameFlyweight.ACK);
        long serverAcks = back.sent(FrameFlyweight.ACK);
        int rounds = 20;
        for (int i = 0; i < rounds; i++) {
            write(s, 100);
            s.b.expectIn += 100;
            s.driver.runUntil("the request", () -> s.server.available() >= 100);
            s.driver.runFor(s.serverConfig.ackDelayNanos() / 2); // the server thinks, less than the ack delay
            if (s.b.readNow(100) != 100 || s.b.writeNow(100) != 100) {
                throw s.fail("the server could not take the request or send the response");
            }
            s.a.expectIn += 100;
            s.driver.runUntil("the response", () -> s.client.available() >= 100);
            if (s.a.readNow(100) != 100) {
                throw s.fail("the client could not take the response");
            }
        }
        s.driver.runFor(10 * s.clientConfig.rtoMinNanos());
        if (back.sent(FrameFlyweight.ACK) != serverAcks || out.sent(FrameFlyweight.DATA) != rounds
                || back.sent(FrameFlyweight.DATA) != rounds || out.sent(FrameFlyweight.ACK) != clientAcks + 1) {
            throw s.fail("expected every ack on DATA but the client's last, " + rounds + " DATA frames each way");
        }
    }
}
