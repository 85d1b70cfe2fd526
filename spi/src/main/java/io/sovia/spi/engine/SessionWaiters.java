package io.sovia.spi.engine;

import java.nio.channels.SelectableChannel;
import java.nio.channels.Selector;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Who sleeps on one session: parked threads, sleeping selectors, and the service thread's waker when
 * the session holds data waiting for credit. The link's doorbell runs
 * {@link #wakeAll()}; the link is armed exactly while someone is registered here, so a peer pays for a
 * wake-up only when someone sleeps (SCILAN's interrupt flag). A selector sleeps on the link's doorbell
 * channel itself, and whoever it wakes runs {@link #wakeAll()}; threads and wakers do not, and while only they
 * are registered the link is told ({@link Link#blindSleepers}), so that only then its transport's doorbell
 * thread wakes for the rings too. A writer streaming into a full window thus wakes once per ring: its own
 * selector wakes it, and the credit waker runs from there. Threads that sleep on the link's wake word
 * ({@link WordSleeper}) have the link armed for the word, selectors for the doorbell, both when both sleep; like a
 * selector, a word sleeper that woke wakes the blind ones, so while one sleeps the doorbell thread need not (it
 * did, and an FTP transfer's every ring woke that thread too).
 */
public final class SessionWaiters {
    private final Link link;
    /**
     * Guards changes of {@link #sleepers} with the link's arming. A lock, not a monitor: a virtual thread
     * that waits for a monitor holds its carrier on JDK 21-23.
     */
    private final ReentrantLock lock = new ReentrantLock();
    /**
     * Threads, selectors and wakers; replaced under {@link #lock}, read by {@link #wakeAll()} without it.
     * Wake-ups are rare, so a copied array is fine.
     */
    private volatile Object[] sleepers = new Object[0];
    /**
     * Registered sleepers that watch the doorbell (selectors, doorbell sleepers), those that do not, wakers
     * (Runnables) among the latter, and sleepers on the wake word; under {@link #lock}.
     */
    private int selectors;
    private int blind;
    private int wakers;
    private int words;

    SessionWaiters(Link link) {
        this.link = link;
    }

    /**
     * Registers {@code sleeper} (a Thread, a Selector or {@link DoorbellSleeper} that sleeps on the link's
     * {@link Link#doorbell()}, a {@link WordSleeper} on its {@link Link#wakeWord()}, or a Runnable)
     * and arms the link. Re-check for work afterwards.
     */
    public void add(Object sleeper) {
        lock.lock();
        try {
            Object[] more = Arrays.copyOf(sleepers, sleepers.length + 1);
            more[more.length - 1] = sleeper;
            sleepers = more;
            count(sleeper, 1);
            link.arm(armedHow());
        } finally {
            lock.unlock();
        }
    }

    /**
     * Removes one registration of {@code sleeper}; disarms the link when nobody is left, and arms its doorbell when
     * the last word sleeper leaves blind ones behind, which no word sleeper wakes from now on.
     */
    public void remove(Object sleeper) {
        lock.lock();
        try {
            Object[] now = sleepers;
            for (int i = 0; i < now.length; i++) {
                if (now[i] == sleeper) {
                    Object[] rest = new Object[now.length - 1];
                    System.arraycopy(now, 0, rest, 0, i);
                    System.arraycopy(now, i + 1, rest, i, rest.length - i);
                    sleepers = rest;
                    count(sleeper, -1);
                    break;
                }
            }
            if (sleepers.length == 0) {
                link.arm(0);
            } else if (sleeper instanceof WordSleeper && words == 0 && blind > 0) {
                link.arm(armedHow());
            }
        } finally {
            lock.unlock();
        }
    }

    /** Under {@link #lock}: counts a sleeper in or out, and tells the link whether only blind ones are left. */
    private void count(Object sleeper, int delta) {
        if (sleeper instanceof Selector || sleeper instanceof DoorbellSleeper) {
            selectors += delta;
        } else if (sleeper instanceof WordSleeper) {
            words += delta;
        } else {
            blind += delta;
            if (sleeper instanceof Runnable) {
                wakers += delta;
            }
        }
        link.blindSleepers(blind > 0 && selectors == 0 && words == 0);
    }

    /** Under {@link #lock}: the doorbell for selectors, and for blind sleepers unless a word sleeper wakes them. */
    private int armedHow() {
        boolean doorbell = selectors > 0 || blind > 0 && words == 0;
        return (doorbell ? Link.ARM_DOORBELL : 0) | (words > 0 ? Link.ARM_WORD : 0);
    }

    /** The channel a sleeper may sleep on in the kernel until rung, or null ({@link Link#doorbell()}). */
    SelectableChannel doorbell() {
        return link.doorbell();
    }

    /** The descriptor one platform thread at a time may sleep on for this link, or -1 ({@link Link#claimReceiveFd()}). */
    int claimReceiveFd() {
        return link.claimReceiveFd();
    }

    void releaseReceiveFd() {
        link.releaseReceiveFd();
    }

    /** A sleeper found the doorbell rung: takes the ring and wakes the others too. */
    void doorbellRung() {
        link.doorbellReadable();
    }

    /** The word a platform thread waiting for this link alone may sleep on, or 0 ({@link Link#wakeWord()}). */
    long wakeWord() {
        return link.wakeWord();
    }

    /**
     * A sleeper on the wake word woke, and left: answers the peer's requests ({@link Link#wakeWordChanged()}) and
     * wakes the blind sleepers still registered, which it stood in for. Not the others: they sleep on the word or
     * the doorbell themselves, and two word sleepers of one session that woke each other after every wake-up (a
     * reader and a writer blocked at once) would never rest.
     */
    public void wakeWordChanged() {
        link.wakeWordChanged();
        if (sleepers.length > 0) {
            wake(true);
        }
    }

    /**
     * Wakes every sleeper; they re-check their condition. A ring took the link's arming (the peer rings once per
     * sleep, not per frame), so it is renewed first if a waker stays registered (a credit waker). Threads and
     * selectors leave when woken and arm again if they sleep again; renewed for them too, the arming had the peer
     * ring at its next frame for a sleeper already awake: 600,000 renewals and 95,000 needless rings in an FTP run.
     */
    public void wakeAll() {
        wake(false);
    }

    private void wake(boolean blindOnly) {
        Object[] now = sleepers;
        if (now.length > 0) {
            lock.lock();
            try {
                if (wakers > 0) {
                    link.arm(armedHow());
                }
            } finally {
                lock.unlock();
            }
        }
        for (Object sleeper : now) {
            if (sleeper instanceof Thread) {
                LockSupport.unpark((Thread) sleeper);
            } else if (sleeper instanceof Runnable) {
                ((Runnable) sleeper).run();
            } else if (!blindOnly) {
                wakeSleeping(sleeper);
            }
        }
    }

    /** Wakes a sleeper that sleeps in the kernel itself: a selector, a doorbell or word sleeper. */
    private static void wakeSleeping(Object sleeper) {
        if (sleeper instanceof Selector) {
            ((Selector) sleeper).wakeup();
        } else if (sleeper instanceof DoorbellSleeper) {
            ((DoorbellSleeper) sleeper).wakeup();
        } else {
            ((WordSleeper) sleeper).wakeup();
        }
    }
}
