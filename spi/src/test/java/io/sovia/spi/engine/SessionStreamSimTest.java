package io.sovia.spi.engine;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Random;

import static org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD;

/**
 * Byte streams through two {@link Session}s over a simulated link with random loss, duplication,
 * reordering and delay (and a perfect reliable link for some seeds), 1000 seeds per test: every byte
 * must arrive once, in order, followed by EOF, and both sessions must finish after close. Sizes are
 * random per seed (frames 96..9000 bytes, buffers down to 1 KiB so flow control bites, windows of 2..64
 * frames, noDelay on or off). Replay a seed with {@code -Dsovia.seed=N}.
 */
class SessionStreamSimTest {
    @Test
    @Timeout(value = 120, threadMode = SEPARATE_THREAD)
    void oneWayStreamsArriveWholeInOrderThenEof() {
        SimSeeds.run("oneWay", 1000, SessionStreamSimTest::oneWay);
    }

    @Test
    @Timeout(value = 120, threadMode = SEPARATE_THREAD)
    void bothDirectionsAtOnceArriveWholeInOrderThenEof() {
        SimSeeds.run("bothWays", 1000, SessionStreamSimTest::bothWays);
    }

    static SimScenario oneWay(long seed) {
        SimScenario s = SimScenario.random(seed, "oneWay", 0.2);
        Random r = SimSeeds.random(seed, 2);
        long total = SimScenario.logUniform(r, 20 * 1024, 200 * 1024);
        s.a.writeTotal = total;
        s.b.expectIn = total;
        // the reader sends nothing and only closes; its FIN gives the writer its EOF
        s.b.shutdownWhenWritten = false;
        s.a.closeWhenDone = s.b.closeWhenDone = false;
        s.handshake(r.nextBoolean());
        s.driver.runUntil("EOF at the reader", () -> s.b.eof);
        if (r.nextBoolean()) {
            s.a.session.close();
            s.b.session.close();
        } else {
            s.b.session.close();
            s.a.session.close();
        }
        s.a.closed = s.b.closed = true;
        s.a.reading = s.b.reading = false; // a closed socket is not read
        s.finish();
        if (s.a.written != total || s.b.read != total || !s.b.eof) {
            throw s.fail("finished without delivering the stream");
        }
        return s;
    }

    static SimScenario bothWays(long seed) {
        SimScenario s = SimScenario.random(seed, "bothWays", 0.2);
        Random r = SimSeeds.random(seed, 2);
        s.a.writeTotal = SimScenario.logUniform(r, 10 * 1024, 100 * 1024);
        s.b.writeTotal = SimScenario.logUniform(r, 10 * 1024, 100 * 1024);
        s.a.expectIn = s.b.writeTotal;
        s.b.expectIn = s.a.writeTotal;
        // each app sends FIN when its stream is written and closes once it also read EOF
        s.handshake(r.nextBoolean());
        s.finish();
        check(s);
        return s;
    }

    private static void check(SimScenario s) {
        if (s.a.written != s.a.writeTotal || s.b.read != s.a.writeTotal || !s.b.eof
                || s.b.written != s.b.writeTotal || s.a.read != s.b.writeTotal || !s.a.eof) {
            throw s.fail("finished without delivering both streams");
        }
    }
}
