package io.sovia.spi.engine;

import java.util.function.BooleanSupplier;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

/**
 * How a waiter spins when the cores it may run on are busy while others are idle ({@link FreeCores}): a process
 * pinned to a core it shares with its peer or its own threads. It yields the core a few times, and only while such
 * yields keep paying off, learned per waiter. Two threads that share one core and answer each other (a ping-pong,
 * both ends pinned to one core) each find the other's answer right after a yield: 6-7 us a round trip, against
 * 20-58 us sleeping. A spinner among threads that have other work (a gRPC stream on one core: event loops,
 * executors) took CPU time the producer needed: 0.3x TCP's rate while it spun for the whole budget. So it yields
 * a few times instead, and a yield counts as paid off when what it waited for came within {@link #PAID_OFF_NANOS};
 * after {@value #FAILURES} in a row that did not (JIT compilations in the first seconds), the waiter sleeps,
 * trying again only every {@value #PROBE_EVERY}th wait. Where every core is busy (CPU-bound processes on each),
 * waiters do not come here and sleep at once: a yield there hands the core to another process for its time slice,
 * and even yields that look free build up scheduler debt.
 *
 * <p>Fields are read and written by whichever thread waits, without synchronization: a lost update only shifts when
 * the next yield is tried.
 */
public final class BusyCoreSpins {
    /** A peer on the same core answers within a few yields; another thread's time slice is milliseconds. */
    static final long PAID_OFF_NANOS = 100_000;
    /** Waits whose yields did not pay off, in a row, before the waiter stops: a JIT pause is not a pattern. */
    private static final int FAILURES = 4;
    private static final int PROBE_EVERY = 1024;
    /** Yields per wait: the peer's turn may take more than one (a selector's select, a JIT-compiled call). */
    private static final int YIELDS = 4;

    private final NanoClock clock;
    private int failures;
    private int sinceProbe;

    /** A waiter's spins, timed by the system clock. */
    public BusyCoreSpins() {
        this(SystemNanoClock.INSTANCE);
    }

    BusyCoreSpins(NanoClock clock) {
        this.clock = clock;
    }

    /** Whether this wait, on a busy core, may yield for what it waits for. */
    public boolean mayTry() {
        if (failures < FAILURES) {
            return true;
        }
        if (++sinceProbe >= PROBE_EVERY) {
            sinceProbe = 0;
            return true;
        }
        return false;
    }

    /**
     * Yields the core a few times, while within {@link #PAID_OFF_NANOS}, and says whether {@code ready} came
     * meanwhile; learns from it.
     */
    public boolean yieldFor(BooleanSupplier ready) {
        long start = clock.nanoTime();
        long took = 0;
        for (int i = 0; i < YIELDS && took < PAID_OFF_NANOS; i++) {
            Thread.yield();
            if (ready.getAsBoolean()) {
                ended(true, clock.nanoTime() - start);
                return true;
            }
            took = clock.nanoTime() - start;
        }
        ended(false, took);
        return false;
    }

    /**
     * A yield on a busy core ended: what it waited for came {@code nanos} after it began, or never ({@code ready}
     * false, the waiter sleeps).
     */
    void ended(boolean ready, long nanos) {
        if (ready && nanos < PAID_OFF_NANOS) {
            failures = 0;
        } else if (failures < FAILURES) {
            failures++;
        }
    }
}
