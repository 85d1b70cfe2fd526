package io.sovia.spi.engine;

import io.sovia.spi.config.SessionConfig;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD;

/**
 * Malformed input and corner cases of {@link Session} over a {@link SimNetwork}: on a lossy link garbage and
 * wrong-token frames are dropped and counted while streams go on; on a reliable link (a ring only the peer writes)
 * each resets its connection; and one test per engine bug found by
 * the random streams, each reduced to a short deterministic script (see the assertion messages).
 */
class SessionRobustnessSimTest {

    @Test
    @Timeout(value = 60, threadMode = SEPARATE_THREAD)
    void garbageAndWrongTokensOnALossyLinkAreDroppedAndCounted() {
        SimSeeds.run("garbage", 100, seed -> {
            SimScenario s = SimScenario.random(seed, "garbage", 0);
            Random r = SimSeeds.random(seed, 8);
            s.a.writeTotal = s.b.expectIn = SimScenario.logUniform(r, 1_000, 50_000);
            s.b.writeTotal = s.a.expectIn = SimScenario.logUniform(r, 1_000, 50_000);
            s.handshake(false); // garbage SYNs before it would open the connection, as they should
            long badTokens = EngineCounters.BAD_TOKENS.sum();
            long protocolErrors = EngineCounters.PROTOCOL_ERRORS.sum();
            long[] injected = new long[2];
            s.driver.onStep = () -> {
                if (r.nextInt(8) == 0) {
                    SimLink to = r.nextBoolean() ? s.net.a : s.net.b;
                    boolean token = r.nextBoolean();
                    to.inject(token ? wrongToken(r, to.maxFrameLength()) : malformed(r, to.maxFrameLength()));
                    injected[token ? 0 : 1]++;
                }
            };
            s.finish();
            long bt = EngineCounters.BAD_TOKENS.sum() - badTokens;
            long pe = EngineCounters.PROTOCOL_ERRORS.sum() - protocolErrors;
            // every injected frame was polled (injection precedes the polls of its step) and counted once
            if (bt != injected[0] || pe != injected[1]) {
                throw s.fail("injected " + injected[0] + " wrong-token and " + injected[1] + " malformed frames, counted "
                        + bt + " bad tokens and " + pe + " protocol errors");
            }
        });
    }

    /**
     * On a reliable link every frame comes from the peer's engine, so one that no engine sends means a broken or
     * hostile peer: the connection is reset at once (both ends learn it), never left to go on or to hang.
     */
    @Test
    @Timeout(value = 30, threadMode = SEPARATE_THREAD)
    void onAReliableLinkAFrameNoEngineSendsResetsTheConnection() {
        SimSeeds.run("violation", 40, seed -> {
            Random r = SimSeeds.random(seed, 9);
            SimNetwork net = new SimNetwork(seed, true, 1500);
            SimScenario s = SimScenario.of(seed, "violation", net, SimScenario.config(4096, 4096), SimScenario.config(4096, 4096));
            s.handshake(false);
            byte[] bad = switch (r.nextInt(3)) {
                case 0 -> malformed(r, 1500);
                case 1 -> wrongToken(r, 1500);
                default -> unknownType(r);
            };
            long errors = EngineCounters.PROTOCOL_ERRORS.sum();
            net.b.inject(bad);
            s.server.poll();
            s.driver.runFor(10_000_000L); // the RST reaches the client
            for (Session end : new Session[] {s.server, s.client}) {
                try {
                    end.read(ByteBuffer.allocate(16));
                    throw s.fail((end == s.server ? "the server" : "the client") + " read on after " + bad.length
                            + " bytes no engine sends");
                } catch (IOException expected) {
                    if (!String.valueOf(expected.getMessage()).startsWith("Connection reset")) {
                        throw s.fail("not a reset: " + expected);
                    }
                }
            }
            if (EngineCounters.PROTOCOL_ERRORS.sum() == errors) {
                throw s.fail("the violation was not counted");
            }
        });
    }

    /**
     * A client that aborts (SO_LINGER 0) before the server's SYN_ACK sends its RST without the server's token, as
     * it sends early data, probes and FIN: on a ring that is its own frame, a reset like any other, not a protocol
     * violation (the conformance suite's aborts logged one each, the outcome being the same reset).
     */
    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void aResetBeforeTheSynAckIsAResetNotAViolation() {
        SimNetwork net = new SimNetwork(3, true, 1500);
        SimScenario s = SimScenario.of(3, "earlyReset", net, SimScenario.config(4096, 4096), SimScenario.config(4096, 4096));
        long errors = EngineCounters.PROTOCOL_ERRORS.sum();
        long badTokens = EngineCounters.BAD_TOKENS.sum();
        s.server.listen();
        s.client.connect();
        s.client.abort();
        s.driver.runFor(10_000_000L);
        try {
            s.server.read(ByteBuffer.allocate(16));
            throw s.fail("the server read on after the client's reset");
        } catch (IOException expected) {
            if (!"Connection reset".equals(expected.getMessage())) {
                throw s.fail("not the peer's reset: " + expected);
            }
        }
        if (EngineCounters.PROTOCOL_ERRORS.sum() != errors || EngineCounters.BAD_TOKENS.sum() != badTokens) {
            throw s.fail("the client's early RST was counted as a bad token or a protocol error");
        }
    }

    /** A well-formed header with a type no engine sends. */
    private static byte[] unknownType(Random r) {
        ByteBuffer b = ByteBuffer.allocate(FrameFlyweight.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        new FrameFlyweight().wrap(b, 0).header((byte) (8 + r.nextInt(100)), (byte) 0, 0, 0, 0, 0, 0);
        return b.array();
    }

    /** A well-formed frame of any type (SYN with a full token payload) carrying random tokens. */
    private static byte[] wrongToken(Random r, int maxFrame) {
        byte type = (byte) (1 + r.nextInt(9));
        int payload = type == FrameFlyweight.SYN || type == FrameFlyweight.SYN_ACK ? 8
                : r.nextInt(Math.min(64, maxFrame - FrameFlyweight.HEADER_LENGTH));
        ByteBuffer b = ByteBuffer.allocate(FrameFlyweight.HEADER_LENGTH + payload).order(ByteOrder.LITTLE_ENDIAN);
        new FrameFlyweight().wrap(b, 0).header(type, (byte) 0, payload, r.nextLong() | 2, r.nextInt(), r.nextInt(), r.nextLong());
        for (int i = FrameFlyweight.HEADER_LENGTH; i < b.capacity(); i++) {
            b.put(i, (byte) r.nextInt());
        }
        return b.array();
    }

    /** Shorter than a header, or a header whose payload length disagrees with the frame's. */
    private static byte[] malformed(Random r, int maxFrame) {
        if (r.nextBoolean()) {
            // at least one byte: an empty frame is its own bug (emptyFrameIsAProtocolError...)
            byte[] b = new byte[1 + r.nextInt(FrameFlyweight.HEADER_LENGTH - 1)];
            r.nextBytes(b);
            return b;
        }
        byte[] b = wrongToken(r, maxFrame);
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putInt(4, b.length - FrameFlyweight.HEADER_LENGTH + 1 + r.nextInt(100));
        return b;
    }

    /** BUG: onFrame reads the type byte before checking the length, so an empty frame is read past its end. */
    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void emptyFrameIsAProtocolErrorNotAnOutOfBoundsRead() throws IOException {
        SimNetwork net = new SimNetwork(1, true, 1500);
        SimScenario s = SimScenario.of(1, "emptyFrame", net, SimScenario.config(4096, 4096), SimScenario.config(4096, 4096));
        s.handshake(false);
        long errors = EngineCounters.PROTOCOL_ERRORS.sum();
        net.b.inject(new byte[0]);
        try {
            s.server.poll();
        } catch (IndexOutOfBoundsException e) {
            throw new AssertionError("an empty frame made poll() read past it", e);
        }
        if (EngineCounters.PROTOCOL_ERRORS.sum() == errors) {
            throw new AssertionError("an empty frame is a protocol error");
        }
    }

    /**
     * BUG: a timer set before the service took the session (the SYN a client keeps for retransmission as it
     * connects, before its backend registers it) was never passed on, and later timers are passed on only when
     * earlier than the one the service was thought to know: the connection ran with no timer at all, and an eth
     * stream's last small write, held by Nagle, waited for good.
     */
    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void aTimerSetBeforeTheServiceTookTheSessionIsPassedOn() {
        SimNetwork net = new SimNetwork(5, false, 1500);
        Session client = new Session(net.a, SimScenario.config(4096, 4096), net.clock());
        client.connect();
        List<Long> told = new ArrayList<>();
        client.onTimer(told::add);
        if (told.size() != 1 || told.get(0) - net.now <= 0) {
            throw new AssertionError("the SYN's retransmission deadline was not passed on: " + told);
        }
    }

    /**
     * BUG: a SYN shorter than its 8-byte token payload is read past its end (onFrame's token check, and
     * onSyn in LISTEN). The SimLink puts frames flush against the end of its buffer, so that throws.
     */
    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void shortSynIsAProtocolErrorNotAnOutOfBoundsRead() throws IOException {
        SimNetwork net = new SimNetwork(1, true, 1500);
        SimScenario s = SimScenario.of(1, "shortSyn", net, SimScenario.config(4096, 4096), SimScenario.config(4096, 4096));
        s.handshake(false);
        for (Session listening : new Session[] {s.server, new Session(net.b, SimScenario.config(4096, 4096), net.clock())}) {
            long errors = EngineCounters.PROTOCOL_ERRORS.sum();
            ByteBuffer syn = ByteBuffer.allocate(FrameFlyweight.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
            new FrameFlyweight().wrap(syn, 0).header(FrameFlyweight.SYN, (byte) 0, 0, 0, 1, 0, 4096);
            net.b.inject(syn.array());
            try {
                listening.poll();
            } catch (IndexOutOfBoundsException e) {
                throw new AssertionError("a 32-byte SYN (no token payload) made poll() read past the frame", e);
            }
            if (EngineCounters.PROTOCOL_ERRORS.sum() == errors) {
                throw new AssertionError("a SYN without its token payload is a protocol error");
            }
        }
    }

    /**
     * BUG: flush() sends FIN without checking the retransmitter is full; with windowFrames frames in
     * flight the FIN is queued into a full RetransmitQueue, overwriting the oldest unacknowledged frame.
     * If that frame was lost it is never resent: the stream stalls and times out.
     */
    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void finWaitsForRoomInTheRetransmitWindow() throws IOException {
        SimNetwork net = new SimNetwork(2, false, 1000);
        SessionConfig c = new SessionConfig(64 * 1024, 64 * 1024, 16, 1_000_000, 200_000, 2048, 2, 1_000_000,
                500_000_000, 20_000_000, 12);
        SimScenario s = SimScenario.of(2, "finWindow", net, c, c);
        s.handshake(false);
        boolean[] dropped = {false};
        net.dropIf = f -> f[0] == FrameFlyweight.DATA && !dropped[0] && (dropped[0] = true); // the first DATA, once
        int payload = 1000 - FrameFlyweight.HEADER_LENGTH;
        s.a.writeNow(2 * payload); // two full frames: the window of 2 is full
        s.a.session.shutdownOutput();
        s.b.reading = true;
        s.b.expectIn = 2 * payload;
        s.driver.runUntil("all data and EOF at the reader", () -> s.b.eof);
    }

    /**
     * BUG: nextDeadline() keeps reporting a Nagle deadline that poll() already passed but could not act
     * on (window closed, data still held), so SessionService computes a wait of 0 and spins until the
     * window opens. The driver counts deadlines still due right after a poll.
     */
    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void nextDeadlineIsNeverAlreadyDueAfterPoll() throws IOException {
        SimNetwork net = new SimNetwork(3, true, 1500);
        SimScenario s = SimScenario.of(3, "staleDeadline", net, SimScenario.config(4096, 4096), SimScenario.config(4096, 4096));
        s.handshake(false);
        s.a.writing = true; // small writes (Nagle on) into a window the reader never opens
        s.a.writeTotal = s.b.expectIn = 1 << 20;
        s.a.maxWrite = 100;
        s.driver.runFor(20_000_000);
        if (s.driver.staleDeadlines != 0) {
            throw s.fail("nextDeadline() was already due right after poll() " + s.driver.staleDeadlines
                    + " times: a service thread would spin");
        }
    }

    /**
     * BUG: after a reset a session still sends: a FIN that was pending (waiting for credit) goes out in
     * the very poll that processes the RST, and on a lossy link it is retransmitted for maxRetransmits
     * rounds, keeping timers alive on a dead session.
     */
    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void noFramesAfterReset() throws IOException {
        for (boolean reliable : new boolean[] {true, false}) {
            SimNetwork net = new SimNetwork(4, reliable, 1500);
            SimScenario s = SimScenario.of(4, "afterReset", net, SimScenario.config(4096, 4096), SimScenario.config(4096, 4096));
            s.handshake(false);
            while (s.a.writeNow(5000) > 0) {
                s.driver.runFor(100_000); // fill window and send buffer: the reader does not read
            }
            s.a.session.shutdownOutput(); // FIN pending behind unsent data
            s.b.session.abort();
            s.driver.runFor(1_000_000_000);
            SimLink out = s.driver.link(s.a);
            if (out.sentAfterReset != 0 || s.a.session.nextDeadline() != 0) {
                throw s.fail("after the RST the session sent " + out.sentAfterReset + " frames ("
                        + out.sent(FrameFlyweight.FIN) + " FIN) and keeps a timer: " + s.a.session.nextDeadline());
            }
        }
    }

    /**
     * BUG: on a reliable link the client never acknowledges the SYN_ACK (onSynAck sets ackNow only on
     * unreliable links), so the server's first small write is held by Nagle for nagleNanos, as if data
     * were unacknowledged: a server that speaks first (FTP, SMTP banners) is delayed.
     */
    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void serversFirstSmallWriteGoesOutAtOnce() throws IOException {
        SimNetwork net = new SimNetwork(5, true, 1500);
        SimScenario s = SimScenario.of(5, "serverFirst", net, SimScenario.config(4096, 4096), SimScenario.config(4096, 4096));
        s.handshake(false);
        s.driver.runFor(5_000_000); // long after the handshake
        s.b.writeNow(10);
        if (s.driver.link(s.b).sent(FrameFlyweight.DATA) != 1) {
            throw s.fail("the server's first small write was held back by Nagle");
        }
    }

    /**
     * BUG (performance): the retransmission timeout doubles per timeout and only recovers on an RTT
     * sample from a frame sent once (Karn). Go-back-N resends every frame in flight, so under steady
     * loss acks keep covering resent frames and the timeout stays at rtoMaxNanos (default 500 ms): 10%
     * loss makes a 200 KB transfer over a 20 us link take up to 8.5 s (half the seeds over 1 s) instead
     * of 20..70 ms with the backoff reset on every ack that advances, as QUIC does.
     */
    @Test
    @Timeout(value = 30, threadMode = SEPARATE_THREAD)
    void lossyStreamRecoversFromBackoff() {
        SimSeeds.run("backoff", 8, seed -> {
            SimNetwork net = new SimNetwork(seed, false, 1500);
            net.loss = 0.1;
            net.baseDelay = 20_000;
            SessionConfig c = new SessionConfig(256 * 1024, 128 * 1024, 16, 1_000_000, 200_000, 2048, 32,
                    1_000_000, 500_000_000, 20_000_000, 40);
            SimScenario s = SimScenario.of(seed, "backoff", net, c, c);
            s.driver.maxVirtualNanos = 1_000_000_000L;
            s.handshake(false);
            s.a.writing = true;
            s.a.writeTotal = s.b.expectIn = 200 * 1024;
            s.a.maxWrite = 16 * 1024;
            s.b.reading = true;
            s.b.maxRead = 16 * 1024;
            s.driver.runUntil("200 KB over a 10% loss link within 1 s", () -> s.b.read == s.a.writeTotal);
        });
    }
}
