package io.sovia.spi.engine;

import org.agrona.concurrent.IdleStrategy;

/**
 * A spin that watches for contention: a few busy spins, then yields, each timed. A yield that gave the core away for
 * longer than {@link #CONTENDED_YIELD_NANOS} ran another thread there; the waiter should then stop spinning (unless
 * what ran was the peer it waits for, which the caller sees as its condition having become true). With one usable
 * core it yields without spinning first, and at every turn while yields run other threads: busy spinning there only
 * delays the peer that would produce what it waits for. Whether to spin at all is {@link FreeCores}'s call.
 *
 * <p>While yields find no other thread to run ({@link #yieldsRunOthers}), a spin yields only every
 * {@link #QUIET_YIELD_INTERVAL_NANOS} and spins busily between: such a yield still costs about a microsecond here (a
 * system call and the scheduler's pass), and what arrives meanwhile waits for it. A JVM pinned to one CPU, its peer
 * pinned to another, yielded at every turn from the start of each wait: 64 B round trips between two such JVMs on shm
 * took 2.3-3.3 us (blocking calls), 1.3-1.6 us with a yield every 3 us (2026-11-27), most answers coming within the
 * first microseconds of a wait.
 *
 * <p>One instance per wait; not thread-safe.
 */
public final class SpinYield implements IdleStrategy {
    /** Far above a yield's own cost (about a microsecond), far below a time slice (milliseconds). */
    static final long CONTENDED_YIELD_NANOS = 20_000;
    private static final int SPINS = Runtime.getRuntime().availableProcessors() > 1 ? 32 : 0;
    /** The busy-spinning time between two yields while yields run no other thread. */
    static final long QUIET_YIELD_INTERVAL_NANOS = 3_000;
    /** Longer than a yield that ran nothing takes (about a microsecond), shorter than another thread's turn. */
    static final long QUIET_YIELD_NANOS = 5_000;
    /**
     * Whether the last yield of any spin in this process ran another thread, so that the thread a wait waits for
     * may be on its core and yields should come at every turn; only written when it changes. At first, whether this
     * process may run on one CPU only (whose other threads then share it).
     */
    private static volatile boolean yieldsRunOthers = SPINS == 0;

    private int spins;
    private boolean contended;
    /** When this spin last yielded, or began to spin between yields; 0 before. */
    private long lastYield;

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
        idleAt(System.nanoTime());
    }

    /**
     * As {@link #idle()}, with the {@link System#nanoTime()} the caller's spin loop read for this turn: a spin that
     * reads the clock once a turn for its budget need not read it again here (the reads were a third of a spinning
     * thread's samples). A yield still reads it right before and after, to time itself.
     */
    public void idleAt(long now) {
        if (spins < SPINS) {
            spins++;
            Thread.onSpinWait();
            return;
        }
        if (lastYield == 0) {
            lastYield = now;
        }
        if (!yieldsRunOthers && now - lastYield < QUIET_YIELD_INTERVAL_NANOS) {
            Thread.onSpinWait();
            return;
        }
        long start = System.nanoTime();
        Thread.yield();
        lastYield = System.nanoTime();
        long took = lastYield - start;
        contended = took > CONTENDED_YIELD_NANOS;
        boolean ranOthers = took > QUIET_YIELD_NANOS;
        if (ranOthers != yieldsRunOthers) {
            yieldsRunOthers = ranOthers;
        }
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
        lastYield = 0;
    }

    @Override
    public String alias() {
        return "spin-yield";
    }
}
