package io.sovia.spi.engine;

import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.os.NativeAccess;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Lets a blocked read or write sleep in the kernel on its link's doorbell channel (DESIGN section 3), so a ring
 * wakes it directly instead of through the doorbell thread: one wake-up instead of two, which is ~60 us each across
 * cores here. Each platform thread that sleeps this way gets one {@link DoorbellSleeper} (an eventfd), which is how
 * everyone else (close, a drained ring, the doorbell thread) wakes it.
 *
 * <p>A sleep is one {@code poll} on the doorbell and the eventfd. It used to be a JDK selector's: registering the
 * doorbell for each sleep cost two {@code epoll_ctl} and three {@code epoll_wait} per sleep, which under CPU-bound
 * neighbours made each wake-up's slice long enough that the scheduler let them run first (64-byte round trips
 * 0.76-0.99x TCP's); keeping it registered between sleeps made a selector hold descriptors of closed doorbells and
 * needed a release protocol across threads, and a CI run hung with a writer asleep in it. {@code poll} registers nothing.
 * Eventfds of threads that ended are closed when the next thread asks for one, when one cannot be made (out of
 * descriptors: these may be why), and by {@link #releaseEnded()}, which the shm doorbell agent runs every second.
 */
public final class DoorbellSleep {
    private static final ThreadLocal<DoorbellSleeper> SLEEPER = new ThreadLocal<>();
    /** Every thread's sleeper, to close those whose thread ended; guarded by itself. */
    private static final List<Owned> ALL = new ArrayList<>();

    private record Owned(WeakReference<Thread> thread, DoorbellSleeper sleeper) {
    }

    private DoorbellSleep() {
    }

    /** This thread's sleeper; null if none can be made (then the caller parks, as before). */
    static DoorbellSleeper sleeper() {
        DoorbellSleeper s = SLEEPER.get();
        if (s == null) {
            try {
                s = open();
            } catch (IOException | RuntimeException e) {
                SoviaLog.debugOnce("doorbell-sleep", "blocked calls park instead of sleeping on doorbells: " + e);
                return null;
            }
            SLEEPER.set(s);
        }
        return s;
    }

    private static DoorbellSleeper open() throws IOException {
        DoorbellSleeper s;
        try {
            s = new DoorbellSleeper(NativeAccess.os());
        } catch (IOException e) {
            if (releaseEnded() == 0) {
                throw e;
            }
            s = new DoorbellSleeper(NativeAccess.os());
        }
        synchronized (ALL) {
            ALL.add(new Owned(new WeakReference<>(Thread.currentThread()), s));
        }
        releaseEnded();
        return s;
    }

    /** Closes the sleepers of threads that ended; returns how many. */
    public static int releaseEnded() {
        int released = 0;
        synchronized (ALL) {
            for (Iterator<Owned> it = ALL.iterator(); it.hasNext(); ) {
                Owned o = it.next();
                Thread t = o.thread().get();
                if (t == null || !t.isAlive()) {
                    it.remove();
                    o.sleeper().close();
                    released++;
                }
            }
        }
        return released;
    }
}
