package io.sovia.spi.engine;

import java.nio.channels.SelectableChannel;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Who sleeps on one session: parked threads, threads asleep on the doorbell, selectors, and the service thread's waker when
 * the session holds data waiting for credit. The link's doorbell runs
 * {@link #wakeAll()}; the link is armed exactly while someone is registered here, so a peer pays for a
 * wake-up only when someone sleeps (SCILAN's interrupt flag). While every sleeper watches the link's doorbell
 * in the kernel itself, the link is told so ({@link Link#sleepersWatchDoorbell}): whoever else watches the
 * doorbell for this end (the shm doorbell agent) need not wake for its bytes, and a ring wakes one thread, not two.
 */
public final class SessionWaiters {
    private final Link link;
    /**
     * Guards changes of {@link #sleepers} with the link's arming. A lock, not a monitor: a virtual thread
     * that waits for a monitor holds its carrier on JDK 21-23.
     */
    private final ReentrantLock lock = new ReentrantLock();
    /**
     * Threads and wakers; replaced under {@link #lock}, read by {@link #wakeAll()} without it.
     * Wake-ups are rare, so a copied array is fine.
     */
    private volatile Object[] sleepers = new Object[0];
    /** How many of {@link #sleepers} do not watch the doorbell themselves; guarded by {@link #lock}. */
    private int unwatched;
    /** What the link was last told by {@link Link#sleepersWatchDoorbell}; guarded by {@link #lock}. */
    private boolean allWatch;

    SessionWaiters(Link link) {
        this.link = link;
    }

    /**
     * Registers {@code sleeper} (a Thread to unpark, or a Runnable that wakes its sleeper) and arms the link.
     * Re-check for work afterwards.
     *
     * @param watchesDoorbell whether the sleeper sleeps on the link's {@linkplain Link#doorbell() doorbell} in the
     *                        kernel too, so its bytes wake it without anyone's help (a selector that has it among
     *                        its channels); a thread that is about to sleep on it says so with {@link #watching}
     */
    public void add(Object sleeper, boolean watchesDoorbell) {
        lock.lock();
        try {
            Object[] more = Arrays.copyOf(sleepers, sleepers.length + 1);
            more[more.length - 1] = watchesDoorbell ? new Watching(sleeper) : sleeper;
            sleepers = more;
            if (!watchesDoorbell) {
                unwatched++;
            }
            link.arm(true);
            tellLink();
        } finally {
            lock.unlock();
        }
    }

    /**
     * A registered sleeper is about to sleep on the doorbell in the kernel: said only then, not at {@link #add}, so a
     * wait that ends at its re-check costs the link no change of who watches the doorbell.
     */
    void watching(Object sleeper) {
        lock.lock();
        try {
            Object[] now = sleepers;
            for (int i = 0; i < now.length; i++) {
                if (now[i] == sleeper) {
                    Object[] copy = now.clone();
                    copy[i] = new Watching(sleeper);
                    sleepers = copy;
                    unwatched--;
                    tellLink();
                    return;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Removes one registration of {@code sleeper}; disarms the link when nobody is left. */
    public void remove(Object sleeper) {
        lock.lock();
        try {
            Object[] now = sleepers;
            for (int i = 0; i < now.length; i++) {
                boolean watching = now[i] instanceof Watching w && w.sleeper() == sleeper;
                if (watching || now[i] == sleeper) {
                    Object[] rest = new Object[now.length - 1];
                    System.arraycopy(now, 0, rest, 0, i);
                    System.arraycopy(now, i + 1, rest, i, rest.length - i);
                    sleepers = rest;
                    if (!watching) {
                        unwatched--;
                    }
                    break;
                }
            }
            if (sleepers.length == 0) {
                link.arm(false);
            }
            tellLink();
        } finally {
            lock.unlock();
        }
    }

    private void tellLink() {
        boolean all = sleepers.length > 0 && unwatched == 0;
        if (all != allWatch) {
            allWatch = all;
            link.sleepersWatchDoorbell(all);
        }
    }

    /** A sleeper that watches the doorbell in the kernel itself. */
    private record Watching(Object sleeper) {
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
        for (Object registered : sleepers) {
            Object sleeper = registered instanceof Watching w ? w.sleeper() : registered;
            if (sleeper instanceof Thread) {
                LockSupport.unpark((Thread) sleeper);
            } else {
                ((Runnable) sleeper).run();
            }
        }
    }
}
