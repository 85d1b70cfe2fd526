package io.sovia.spi.engine;

import io.sovia.spi.config.SessionConfig;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD;

/**
 * Early data over a {@link SimNetwork}: on a reliable link a client frames up to
 * {@link SessionConfig#MIN_RECEIVE_BUFFER} bytes right after its SYN, with token 0, and the server reads
 * them before the client could have its SYN_ACK, saving the round trip; the rest waits for the SYN_ACK.
 * On an unreliable link, where the token is what tells this connection's frames from stray ones, data
 * waits for the SYN_ACK and a token-0 DATA frame is a bad token like any other.
 *
 * <p>Nagle stays on: a connection's first data is never held for combining, since only the handshake
 * can be outstanding then.
 */
class EarlyDataSimTest {
    private static final int FRAME = 1500;
    /** One byte, a short request, exactly the early credit, and more than it. */
    private static final int[] SIZES = {1, 100, SessionConfig.MIN_RECEIVE_BUFFER, 5000};

    /** Listens, connects and lets the client write {@code n} bytes at once; the server has not polled. */
    private static SimScenario connectAndWrite(boolean reliable, int n, long[] earlyBytes) throws IOException {
        SimNetwork net = new SimNetwork(12, reliable, FRAME);
        net.baseDelay = 10_000;
        SessionConfig c = SimScenario.config(8192, 8192);
        SimScenario s = SimScenario.of(12, (reliable ? "reliable" : "lossy") + " early " + n, net, c, c);
        // only the client writes, so every DATA frame on the wire is its own
        net.dropIf = f -> {
            if (f[0] == FrameFlyweight.DATA && net.a.delivered(FrameFlyweight.SYN_ACK) == 0) {
                earlyBytes[0] += f.length - FrameFlyweight.HEADER_LENGTH;
            }
            return false;
        };
        s.server.listen();
        s.client.connect();
        if (s.a.writeNow(n) != n) {
            throw s.fail("the send buffer refused part of a " + n + "-byte write");
        }
        s.a.writeTotal = s.b.expectIn = n;
        s.b.maxRead = 8192;
        return s;
    }

    /** Lets the server app read, both sessions run, until the whole stream arrived (SimApp checks each byte). */
    private static void readAll(SimScenario s) {
        s.b.reading = true;
        s.driver.runUntil("the stream at the server", () -> s.b.read == s.a.writeTotal);
    }

    private static void expectCounters(SimScenario s, long badTokens, long protocolErrors) {
        if (EngineCounters.BAD_TOKENS.sum() != badTokens || EngineCounters.PROTOCOL_ERRORS.sum() != protocolErrors) {
            throw s.fail("expected " + badTokens + " bad tokens and " + protocolErrors + " protocol errors in all");
        }
    }

    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void reliableLinkCarriesUpToTheMinimumReceiveBufferBeforeTheSynAck() throws IOException {
        for (int n : SIZES) {
            long badTokens = EngineCounters.BAD_TOKENS.sum();
            long protocolErrors = EngineCounters.PROTOCOL_ERRORS.sum();
            long[] earlyBytes = {0};
            SimScenario s = connectAndWrite(true, n, earlyBytes);
            int early = Math.min(n, SessionConfig.MIN_RECEIVE_BUFFER);
            SimLink out = s.driver.link(s.a);
            // the early credit fits one frame
            if (out.sent(FrameFlyweight.DATA) != 1 || out.dataBytesSent != early) {
                throw s.fail("write() right after connect() framed " + out.dataBytesSent + " bytes in "
                        + out.sent(FrameFlyweight.DATA) + " DATA frames, expected " + early + " in one");
            }
            // one link delay later, the client not polled meanwhile: whatever the server reads now came
            // before any SYN_ACK could reach the client
            s.net.now += s.net.baseDelay;
            while (s.b.read()) {
                continue; // until a read finds nothing more
            }
            if (s.b.read != early || s.net.a.delivered(FrameFlyweight.SYN_ACK) != 0) {
                throw s.fail("the server's first reads got " + s.b.read + " bytes, expected the " + early + " early ones");
            }
            readAll(s);
            if (earlyBytes[0] != early) {
                throw s.fail(earlyBytes[0] + " DATA bytes left the client before its SYN_ACK, expected " + early);
            }
            expectCounters(s, badTokens, protocolErrors);
        }
    }

    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void unreliableLinkSendsNoDataBeforeTheSynAck() throws IOException {
        for (int n : SIZES) {
            long badTokens = EngineCounters.BAD_TOKENS.sum();
            long protocolErrors = EngineCounters.PROTOCOL_ERRORS.sum();
            long[] earlyBytes = {0};
            SimScenario s = connectAndWrite(false, n, earlyBytes);
            if (s.driver.link(s.a).sent(FrameFlyweight.DATA) != 0) {
                throw s.fail("write() right after connect() framed DATA on an unreliable link");
            }
            readAll(s);
            if (earlyBytes[0] != 0) {
                throw s.fail(earlyBytes[0] + " DATA bytes left the client before its SYN_ACK on an unreliable link");
            }
            expectCounters(s, badTokens, protocolErrors);
        }
    }

    /**
     * A client writes and aborts (SO_LINGER 0) before the server polled: over TCP those bytes left at the write, the
     * handshake done when connect returned, and the server reads them before the reset. An unreliable link sends
     * data only after the SYN_ACK, so the reset waits for it and follows them.
     */
    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void unreliableLinkAbortBeforeTheSynAckStillSendsWhatWasWritten() throws IOException {
        for (int n : SIZES) {
            SimScenario s = connectAndWrite(false, n, new long[1]);
            s.a.session.abort();
            s.driver.aActive = false; // closed: the session goes on as the service thread's
            s.b.expectError = true;
            s.b.reading = true;
            s.driver.runUntil("the reset at the server", () -> s.b.error != null);
            if (s.b.read != n || !"Connection reset".equals(s.b.error.getMessage())) {
                throw s.fail("the server read " + s.b.read + " of " + n + " bytes, then " + s.b.error);
            }
            if (!s.a.session.isFinished()) {
                throw s.fail("the aborted session is not finished after its reset");
            }
        }
    }

    /**
     * The client's first DATA frame is taken off the wire and delivered with token 0 instead: the very
     * frame the server expects next (sequence, ack, payload), so only its token can make it refuse it.
     * The original is retransmitted and the stream arrives whole.
     */
    @Test
    @Timeout(value = 10, threadMode = SEPARATE_THREAD)
    void tokenZeroDataIsABadTokenOnAnUnreliableLink() throws IOException {
        SimNetwork net = new SimNetwork(13, false, FRAME);
        net.baseDelay = 10_000;
        SessionConfig c = SimScenario.config(8192, 8192);
        SimScenario s = SimScenario.of(13, "lossy token 0", net, c, c);
        s.handshake(false);
        byte[][] taken = new byte[1][];
        net.dropIf = f -> f[0] == FrameFlyweight.DATA && taken[0] == null && (taken[0] = f) != null;
        s.a.writeTotal = s.b.expectIn = 100;
        if (s.a.writeNow(100) != 100 || taken[0] == null) {
            throw s.fail("a 100-byte write after the handshake goes out at once");
        }
        FrameFlyweight f = new FrameFlyweight().wrap(ByteBuffer.wrap(taken[0]), 0);
        f.header(f.type(), f.flags(), f.payloadLength(), 0, f.seq(), f.ack(), f.window());
        long badTokens = EngineCounters.BAD_TOKENS.sum();
        long protocolErrors = EngineCounters.PROTOCOL_ERRORS.sum();
        net.b.inject(taken[0]);
        if (s.server.available() != 0 || net.b.delivered(FrameFlyweight.DATA) != 1) {
            throw s.fail("a token-0 DATA frame was accepted on an unreliable link");
        }
        expectCounters(s, badTokens + 1, protocolErrors);
        readAll(s);
    }
}
