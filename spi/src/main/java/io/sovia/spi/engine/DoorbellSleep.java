package io.sovia.spi.engine;

import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.jdk.JdkEpoll;
import io.sovia.spi.jdk.JdkEventFd;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectableChannel;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Lets a blocked read or write sleep in the kernel on its link's doorbell channel (DESIGN section 3), so a ring
 * wakes it directly instead of through the doorbell agent: one wake-up instead of two, 45-60 us each across cores
 * here. Each thread that sleeps this way gets one {@link Sleeper}: an epoll and an eventfd, through the JDK's own
 * bindings (what its selectors are made of). The doorbell stays in the epoll from one sleep to the next on the same
 * connection, so a sleep costs one epoll_wait; the kernel drops it from the epoll when its socket closes, so a
 * closed connection's descriptor is never held, as it would be by a JDK selector that happens not to select again.
 * Sleepers of threads that ended are closed when the next thread asks for one.
 */
final class DoorbellSleep {
    private static final ThreadLocal<Sleeper> SLEEPER = new ThreadLocal<>();
    /** Every thread's sleeper, to close those whose thread ended; guarded by itself. */
    private static final List<Sleeper> ALL = new ArrayList<>();

    private DoorbellSleep() {
    }

    /** This thread's sleeper; null if none can be made (then the caller parks, as before). */
    static Sleeper sleeper() {
        Sleeper s = SLEEPER.get();
        if (s == null) {
            try {
                s = new Sleeper();
            } catch (IOException | RuntimeException | LinkageError e) {
                SoviaLog.debugOnce("doorbell-sleep", "blocked calls park instead of sleeping on doorbells: " + e);
                return null;
            }
            SLEEPER.set(s);
            synchronized (ALL) {
                for (Iterator<Sleeper> it = ALL.iterator(); it.hasNext(); ) {
                    Sleeper o = it.next();
                    Thread t = o.owner.get();
                    if (t == null || !t.isAlive()) {
                        it.remove();
                        o.close();
                    }
                }
                ALL.add(s);
            }
        }
        return s;
    }

    /**
     * One thread's place to sleep: registered with a session's waiters, it is woken by {@link #run()} (close, a
     * drained ring, the doorbell agent, another sleeper that took the doorbell's bytes).
     */
    static final class Sleeper implements Runnable {
        private final WeakReference<Thread> owner = new WeakReference<>(Thread.currentThread());
        private final JdkEpoll epoll;
        private final JdkEventFd wakeup;
        /** Whether {@link #wakeup} may be readable. */
        private volatile boolean woken;
        /** The doorbell in the epoll, and its descriptor; the owner's. */
        private SelectableChannel watched;
        private int watchedFd;

        private Sleeper() throws IOException {
            this.epoll = new JdkEpoll(2);
            try {
                this.wakeup = new JdkEventFd();
                epoll.add(wakeup.fd(), JdkEpoll.IN);
            } catch (IOException | RuntimeException e) {
                epoll.close();
                throw e;
            }
        }

        /** Wakes the owner from {@link #sleep}; a thread never needs to wake itself, and does not pay for it. */
        @Override
        public void run() {
            if (owner.get() == Thread.currentThread()) {
                return;
            }
            woken = true;
            try {
                wakeup.set();
            } catch (IOException e) {
                SoviaLog.debugOnce("doorbell-wakeup", "cannot wake a sleeping thread: " + e);
            }
        }

        /**
         * Clears wake-ups meant for an earlier sleep; call before registering as a waiter, never between that and
         * {@link #sleep}, or a wake-up for this sleep would be lost.
         */
        void forget() throws IOException {
            if (woken) {
                woken = false;
                wakeup.reset();
            }
        }

        /**
         * Sleeps until the doorbell rings, a {@link #run() wake-up} or the deadline.
         *
         * @param deadline {@link System#nanoTime()} deadline, or 0 for none
         * @return whether the doorbell rang (the caller takes the bytes, see {@link Link#doorbellReadable()})
         * @throws ClosedChannelException if the doorbell is closed (the connection ended)
         */
        boolean sleep(SelectableChannel doorbell, long deadline) throws IOException {
            if (!doorbell.isOpen()) {
                throw new ClosedChannelException();
            }
            if (doorbell != watched) {
                if (watched != null) {
                    epoll.remove(watchedFd); // fails harmlessly if its socket closed: the kernel dropped it then
                    watched = null;
                }
                int fd = JdkEpoll.fd(doorbell);
                epoll.add(fd, JdkEpoll.IN);
                watched = doorbell;
                watchedFd = fd;
            }
            int millis = deadline == 0 ? -1
                    : (int) Math.min(Integer.MAX_VALUE, Math.max(1, (deadline - System.nanoTime() + 999_999) / 1_000_000));
            int n = epoll.await(millis);
            for (int i = 0; i < n; i++) {
                if (epoll.descriptor(i) == watchedFd) {
                    return true;
                }
            }
            return false;
        }

        private void close() {
            try {
                wakeup.close();
                epoll.close();
            } catch (IOException ignored) {
                // a sleeper of a thread that ended: nothing else holds it
            }
        }
    }
}
