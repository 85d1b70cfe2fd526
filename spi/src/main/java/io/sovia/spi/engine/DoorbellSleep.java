package io.sovia.spi.engine;

import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.jdk.JdkNio;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.channels.ClosedChannelException;
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
 * <p>The doorbell is registered for one sleep only, so a closed connection's descriptor is never held
 * by a selector that happens not to select again. Selectors of threads that ended are closed when the
 * next thread asks for one, when one cannot be opened (out of descriptors: these may be why), and by
 * {@link #releaseEnded()}, which the shm doorbell agent runs every second: a thread-per-connection server
 * whose connection threads all ended must get their descriptors back without a new thread coming.
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
     * Clears wake-ups meant for an earlier sleep; call before registering as a waiter, never between
     * that and {@link #sleep}, or a wake-up for this sleep would be lost.
     */
    static void forget(Selector selector) throws IOException {
        selector.selectNow();
        selector.selectedKeys().clear();
    }

    /**
     * Sleeps until the doorbell rings, a {@link Selector#wakeup()}, an interrupt or the deadline.
     *
     * @param deadline {@link System#nanoTime()} deadline, or 0 for none
     * @return whether the doorbell rang (the caller takes the bytes, see {@link Link#doorbellReadable()})
     * @throws ClosedChannelException if the doorbell is closed (the connection ended)
     */
    static boolean sleep(Selector selector, SelectableChannel doorbell, long deadline) throws IOException {
        SelectionKey key = doorbell.register(selector, SelectionKey.OP_READ);
        try {
            if (deadline == 0) {
                selector.select();
            } else {
                long millis = Math.max(1, (deadline - System.nanoTime() + 999_999) / 1_000_000);
                selector.select(millis);
            }
            return selector.selectedKeys().remove(key);
        } finally {
            key.cancel();
            forget(selector); // deregisters now: the doorbell's descriptor must not outlive its connection
        }
    }

    private static void closeQuietly(Selector selector) {
        try {
            selector.close();
        } catch (IOException ignored) {
            // a selector of a thread that ended: nothing else holds it
        }
    }
}
