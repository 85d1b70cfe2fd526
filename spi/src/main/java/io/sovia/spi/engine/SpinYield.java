package io.sovia.spi.engine;

import org.agrona.concurrent.IdleStrategy;

/**
 * A spin that watches for contention: a few busy spins, then yields, each timed. A yield that gave the core away for
 * longer than {@link #CONTENDED_YIELD_NANOS} ran another thread there; the waiter should then stop spinning (unless
 * what ran was the peer it waits for, which the caller sees as its condition having become true). With one usable
 * core it yields at once: busy spinning there only delays the peer that would produce what it waits for. Whether
 * to spin at all is {@link FreeCores}'s call.
 *
 * <p>One instance per wait; not thread-safe.
 */
public final class SpinYield implements IdleStrategy {
    /** Far above a yield's own cost (about a microsecond), far below a time slice (milliseconds). */
    static final long CONTENDED_YIELD_NANOS = 20_000;
    private static final int SPINS = Runtime.getRuntime().availableProcessors() > 1 ? 32 : 0;

    private int spins;
    private boolean contended;

    @Override
    public void idle(int workCount) {
        if (workCount > 0) {
            reset();
        } else {
            idle();
        }
    }

    @Override
    public void idle() {
        if (spins < SPINS) {
            spins++;
            Thread.onSpinWait();
            return;
        }
        long start = System.nanoTime();
        Thread.yield();
        contended = System.nanoTime() - start > CONTENDED_YIELD_NANOS;
    }

    /**
     * Whether the last yield ran another thread for long. The caller checks its condition first: if that is true
     * now, what ran was most likely its peer; otherwise it calls {@link #giveUp()} and sleeps.
     */
    public boolean contended() {
        return contended;
    }

    /** The spin ends for contention; counted. */
    public void giveUp() {
        EngineCounters.CONTENDED_SPINS.increment();
    }

    @Override
    public void reset() {
        spins = 0;
        contended = false;
    }

    @Override
    public String alias() {
        return "spin-yield";
    }
}
