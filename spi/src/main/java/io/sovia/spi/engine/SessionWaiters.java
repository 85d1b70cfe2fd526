package io.sovia.spi.engine;

import java.nio.channels.SelectableChannel;
import java.nio.channels.Selector;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * Who sleeps on one session: parked threads, sleeping selectors, and the service thread's waker when
 * the session holds data waiting for credit. The link's doorbell runs
 * {@link #wakeAll()}; the link is armed exactly while someone is registered here, so a peer pays for a
 * wake-up only when someone sleeps (SCILAN's interrupt flag).
 */
public final class SessionWaiters {
    private final Link link;
    /** Threads and selectors; guarded by {@code this}. Wake-ups are rare, so a copied array is fine. */
    private Object[] sleepers = new Object[0];

    SessionWaiters(Link link) {
        this.link = link;
    }

    /** Registers {@code sleeper} (a Thread, Selector or Runnable) and arms the link. Re-check for work afterwards. */
    public synchronized void add(Object sleeper) {
        sleepers = Arrays.copyOf(sleepers, sleepers.length + 1);
        sleepers[sleepers.length - 1] = sleeper;
        link.arm(true);
    }

    /** Removes one registration of {@code sleeper}; disarms the link when nobody is left. */
    public synchronized void remove(Object sleeper) {
        for (int i = 0; i < sleepers.length; i++) {
            if (sleepers[i] == sleeper) {
                Object[] rest = new Object[sleepers.length - 1];
                System.arraycopy(sleepers, 0, rest, 0, i);
                System.arraycopy(sleepers, i + 1, rest, i, rest.length - i);
                sleepers = rest;
                break;
            }
        }
        if (sleepers.length == 0) {
            link.arm(false);
        }
    }

    /** The channel a sleeper may sleep on in the kernel until rung, or null ({@link Link#doorbell()}). */
    SelectableChannel doorbell() {
        return link.doorbell();
    }

    /** A sleeper found the doorbell rung: takes the ring and wakes the others too. */
    void doorbellRung() {
        link.doorbellReadable();
    }

    /** Wakes every sleeper; they re-check their condition. */
    public void wakeAll() {
        Object[] snapshot;
        synchronized (this) {
            snapshot = sleepers;
        }
        for (Object sleeper : snapshot) {
            if (sleeper instanceof Thread) {
                LockSupport.unpark((Thread) sleeper);
            } else if (sleeper instanceof Selector) {
                ((Selector) sleeper).wakeup();
            } else {
                ((Runnable) sleeper).run();
            }
        }
    }
}
