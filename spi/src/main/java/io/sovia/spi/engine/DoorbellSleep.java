package io.sovia.spi.engine;

import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.jdk.JdkNio;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Lets a blocked read or write sleep in the kernel on its link's doorbell channel (DESIGN section 3),
 * so a ring wakes it directly instead of through the doorbell thread: one wake-up instead of two, which
 * is ~60 us each across cores here. Each thread that sleeps this way gets one JDK selector (an epoll
 * and an eventfd); {@link Selector#wakeup()} is how everyone else (close, a drained ring, the doorbell
 * thread) wakes it, and interrupts wake it as they wake any selector.
 *
 * <p>A doorbell stays registered between sleeps, until the thread sleeps on another one: a sleep is then one
 * {@code epoll_wait}. Registering it for each sleep cost two {@code epoll_ctl} and two more {@code epoll_wait}
 * per sleep, which under CPU-bound neighbours made each wake-up's slice long enough that the scheduler let them
 * run first (64-byte round trips 0.7-0.8x TCP's). A selector that still holds a closed channel keeps its
 * descriptor open until it selects again, so whoever closes a doorbell calls {@link #release} after.
 * Selectors of threads that ended are closed when the next thread asks for one, when one cannot be opened
 * (out of descriptors: these may be why), and by {@link #releaseEnded()}, which the shm doorbell agent runs
 * every second: a thread-per-connection server whose connection threads all ended must get their descriptors
 * back without a new thread coming.
 */
public final class DoorbellSleep {
    private static final ThreadLocal<Selector> SELECTOR = new ThreadLocal<>();
    /** Every thread's selector, to close those whose thread ended; guarded by itself. */
    private static final List<Owned> ALL = new ArrayList<>();

    private record Owned(WeakReference<Thread> thread, Selector selector) {
    }

    private DoorbellSleep() {
    }

    /** This thread's selector; null if none can be opened (then the caller parks, as before). */
    static Selector selector() {
        Selector s = SELECTOR.get();
        if (s == null) {
            try {
                s = open();
            } catch (IOException | RuntimeException e) {
                SoviaLog.debugOnce("doorbell-sleep", "blocked calls park instead of sleeping on doorbells: " + e);
                return null;
            }
            SELECTOR.set(s);
        }
        return s;
    }

    private static Selector open() throws IOException {
        Selector s;
        try {
            s = JdkNio.provider().openSelector();
        } catch (IOException e) {
            if (releaseEnded() == 0) {
                throw e;
            }
            s = JdkNio.provider().openSelector();
        }
        synchronized (ALL) {
            ALL.add(new Owned(new WeakReference<>(Thread.currentThread()), s));
        }
        releaseEnded();
        return s;
    }

    /** Closes the selectors of threads that ended; returns how many. */
    public static int releaseEnded() {
        int released = 0;
        synchronized (ALL) {
            for (Iterator<Owned> it = ALL.iterator(); it.hasNext(); ) {
                Owned o = it.next();
                Thread t = o.thread().get();
                if (t == null || !t.isAlive()) {
                    it.remove();
                    closeQuietly(o.selector());
                    released++;
                }
            }
        }
        return released;
    }

    /**
     * Has every sleep selector that still holds {@code doorbell}, which its caller has just closed, let it go, so its
     * descriptor closes now. A selector whose thread sleeps is woken for it, and woken once more after, so that a
     * thread about to sleep does not sleep through the wake-up this took from it.
     */
    public static void release(SelectableChannel doorbell) {
        if (!doorbell.isRegistered()) {
            return;
        }
        List<Owned> holders = new ArrayList<>(1);
        synchronized (ALL) {
            for (Owned o : ALL) {
                if (doorbell.keyFor(o.selector()) != null) {
                    holders.add(o);
                }
            }
        }
        for (Owned o : holders) {
            Selector s = o.selector();
            boolean mine = o.thread().get() == Thread.currentThread();
            try {
                if (!mine) {
                    s.wakeup();
                }
                s.selectNow();
                if (!mine) {
                    s.wakeup();
                }
            } catch (IOException | ClosedSelectorException ignored) {
                // a closed selector let every channel go
            }
        }
    }

    /**
     * The key of {@code doorbell} in {@code selector}, registered if need be; any other doorbell's is cancelled.
     * Call before registering as a waiter, never between that and {@link #sleep}: changing doorbells selects, which
     * takes a pending wake-up.
     *
     * @throws ClosedChannelException if the doorbell is closed (the connection ended)
     */
    static SelectionKey hold(Selector selector, SelectableChannel doorbell) throws IOException {
        SelectionKey key = doorbell.keyFor(selector);
        if (key != null && key.isValid() && selector.keys().size() == 1) {
            return key;
        }
        for (SelectionKey k : selector.keys()) {
            if (k.channel() != doorbell) {
                k.cancel();
            }
        }
        // a cancelled key stays in its channel until the selector next selects; only then may it register again
        selector.selectNow();
        selector.selectedKeys().clear();
        return doorbell.register(selector, SelectionKey.OP_READ);
    }

    /**
     * Sleeps until the doorbell of {@code key} rings, a {@link Selector#wakeup()}, an interrupt or the deadline. A
     * wake-up meant for an earlier sleep may end this one early: callers re-check and sleep again.
     *
     * @param deadline {@link System#nanoTime()} deadline, or 0 for none
     * @return whether the doorbell rang (the caller takes the bytes, see {@link Link#doorbellReadable()})
     */
    static boolean sleep(Selector selector, SelectionKey key, long deadline) throws IOException {
        if (deadline == 0) {
            selector.select();
        } else {
            long millis = Math.max(1, (deadline - System.nanoTime() + 999_999) / 1_000_000);
            selector.select(millis);
        }
        return selector.selectedKeys().remove(key);
    }

    private static void closeQuietly(Selector selector) {
        try {
            selector.close();
        } catch (IOException ignored) {
            // a selector of a thread that ended: nothing else holds it
        }
    }
}
