package io.sovia.spi.engine;

import java.io.IOException;
import java.nio.channels.SelectableChannel;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * How a thread waits for a session (DESIGN section 3): spin for a budget with a {@link SpinYield} that soon
 * yields (so a peer on the same core still runs), while a core is free ({@link FreeCores}); pinned to busy cores
 * beside idle ones, yield a few times instead while that pays off ({@link BusyCoreSpins}); then arm the doorbell,
 * re-check, and sleep until rung: in the kernel on the link's wake word when it has one ({@link WordSleeper}),
 * else on its doorbell channel when it has one ({@link DoorbellSleep}), else on its transport's receive descriptor
 * when no other thread sleeps there ({@link Link#claimReceiveFd()}), else parked. A wake-up across cores costs
 * tens of microseconds on a VM, so the spin covers a typical request/response turn.
 *
 * <p>A virtual thread always parks: a JDK selector blocks its carrier on JDK 21-23, and one selector per
 * virtual thread would cost two descriptors for each of thousands of threads. Whoever wakes the session
 * (the writer on a jvm link, the doorbell thread on an shm link) unparks it. Its spin yields, so it hands
 * its carrier to other virtual threads while it waits.
 */
public final class SpinThenSleep {
    private final long spinNanos;
    private final boolean yieldToBusyCores;
    private final BusyCoreSpins busyCoreSpins = new BusyCoreSpins();

    /**
     * @param spinNanos        how long to spin before sleeping; 0 sleeps at once
     * @param yieldToBusyCores whether to sleep instead once another thread wants the core ({@link FreeCores})
     */
    public SpinThenSleep(long spinNanos, boolean yieldToBusyCores) {
        this.spinNanos = spinNanos;
        this.yieldToBusyCores = yieldToBusyCores;
    }

    /**
     * Waits until {@code ready}, the deadline, or a wake-up that ends the wait ({@code stop}).
     *
     * @param deadline    {@link System#nanoTime()} deadline, or 0 for none
     * @param interruptible whether an interrupt ends the wait (channels: their interruptor then closes
     *                      them); when false (java.net), the interrupt status is kept for later, except on a
     *                      virtual thread, where the JDK's java.net ends a blocked call on an interrupt too
     * @return true if ready, false on timeout or stop
     */
    public boolean await(SessionWaiters waiters, BooleanSupplier ready, BooleanSupplier stop, long deadline,
                         boolean interruptible) {
        if (ready.getAsBoolean()) {
            return true;
        }
        boolean interrupted = false;
        int receiveFd = -1;
        try {
            if (yieldToBusyCores && spinNanos > 0 && !FreeCores.spinAllowed()) {
                if (FreeCores.idleElsewhere() && busyCoreSpins.mayTry() && busyCoreSpins.yieldFor(ready)) {
                    return true;
                }
            } else {
                Boolean spun = spin(ready, stop, deadline, interruptible);
                if (spun != null) {
                    return spun;
                }
            }
            Thread me = Thread.currentThread();
            boolean virtual = VirtualThreads.current();
            boolean endsOnInterrupt = interruptible || virtual;
            long word = virtual ? 0 : waiters.wakeWord();
            WordSleeper wordSleeper = word == 0 ? null : WordSleeper.current();
            SelectableChannel doorbell = waiters.doorbell();
            if (wordSleeper == null && doorbell == null && !virtual) {
                receiveFd = waiters.claimReceiveFd();
            }
            DoorbellSleeper doorbellSleeper = wordSleeper != null || (doorbell == null && receiveFd < 0) || virtual
                    ? null : DoorbellSleep.sleeper();
            if (doorbellSleeper == null && receiveFd >= 0) {
                waiters.releaseReceiveFd();
                receiveFd = -1;
            }
            while (true) {
                Object sleeper = me;
                if (wordSleeper != null) {
                    wordSleeper.prepare(word);
                    sleeper = wordSleeper;
                } else if (doorbellSleeper != null) {
                    doorbellSleeper.forget();
                    sleeper = doorbellSleeper;
                }
                boolean rang = false;
                waiters.add(sleeper);
                try {
                    if (ready.getAsBoolean()) {
                        return true;
                    }
                    if (stop.getAsBoolean() || expired(deadline)) {
                        return false;
                    }
                    if (me.isInterrupted()) {
                        if (endsOnInterrupt) {
                            return false;
                        }
                        Thread.interrupted();
                        interrupted = true;
                    }
                    EngineCounters.SLEEPS.increment();
                    if (wordSleeper != null) {
                        EngineCounters.WORD_SLEEPS.increment();
                        wordSleeper.sleep(deadline);
                    } else if (doorbellSleeper != null) {
                        try {
                            if (receiveFd >= 0) {
                                EngineCounters.RECEIVE_FD_SLEEPS.increment();
                                rang = doorbellSleeper.sleep(receiveFd, deadline);
                            } else {
                                rang = doorbellSleeper.sleep(doorbell, deadline);
                            }
                        } catch (IOException ended) {
                            // the doorbell closed (the connection ended, which also wakes us) or poll
                            // failed: park from now on
                            doorbellSleeper = null;
                            if (receiveFd >= 0) {
                                waiters.releaseReceiveFd();
                                receiveFd = -1;
                            }
                        }
                    } else if (deadline == 0) {
                        LockSupport.park(this);
                    } else {
                        LockSupport.parkNanos(this, deadline - System.nanoTime());
                    }
                } finally {
                    waiters.remove(sleeper);
                    if (wordSleeper != null) {
                        wordSleeper.finish();
                    }
                }
                if (rang) {
                    // the others too: the doorbell thread may not get to the byte first
                    waiters.doorbellRung();
                } else if (wordSleeper != null) {
                    waiters.wakeWordChanged();
                }
            }
        } finally {
            if (receiveFd >= 0) {
                waiters.releaseReceiveFd();
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Spins for the budget: true when ready, false when the wait ends otherwise, null to go to sleep. */
    private Boolean spin(BooleanSupplier ready, BooleanSupplier stop, long deadline, boolean interruptible) {
        long spinStart = System.nanoTime();
        long spinEnd = spinStart + spinNanos;
        SpinYield idle = new SpinYield();
        for (long now = spinStart; now - spinEnd < 0; now = System.nanoTime()) {
            if (ready.getAsBoolean()) {
                FreeCores.spun(now - spinStart);
                return true;
            }
            if (stop.getAsBoolean() || expired(deadline)
                    || (Thread.currentThread().isInterrupted() && (interruptible || VirtualThreads.current()))) {
                return false;
            }
            if (yieldToBusyCores && idle.contended()) {
                idle.giveUp();
                return null;
            }
            idle.idleAt(now);
        }
        FreeCores.spun(spinEnd - spinStart);
        return null;
    }

    private static boolean expired(long deadline) {
        return deadline != 0 && System.nanoTime() - deadline >= 0;
    }
}
