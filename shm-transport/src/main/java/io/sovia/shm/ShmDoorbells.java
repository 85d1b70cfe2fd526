package io.sovia.shm;

import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.engine.DoorbellSleep;
import io.sovia.spi.jdk.JdkNio;
import io.sovia.spi.lifecycle.Lifecycle;
import io.sovia.spi.link.RingLink;
import io.sovia.spi.os.NativeAccess;
import io.sovia.spi.os.NativeOs;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NoOpIdleStrategy;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The per-JVM doorbell agent, under the {@code Lifecycle}: one epoll set over the UNIX socket of every shared-memory
 * connection, driven through the native calls rather than a JDK selector, because any thread may change what it
 * watches with one {@code epoll_ctl}, taking effect at once, where a JDK selector must be woken for every change.
 *
 * <p>It always watches for the peer's end (its process died or it closed the connection): the link is then marked
 * dead at once, which the survivor's next call reports as "Connection reset". It reads rings only while the link
 * has a sleeper that cannot watch the socket itself ({@link RingLink#hasBlindSleepers()}: a parked virtual thread,
 * the service thread's credit waker); selectors and sleeping platform threads watch it in their own epoll, so a
 * ring wakes one thread, not also this one (which on two cores cost a second wake-up per ring, ~60 us). A nudge
 * (a writer blocked for credit makes the reader's side poll) whose doorbell byte nobody reads is answered within
 * {@value #NUDGE_LOOK_MILLIS} ms, when this agent looks for the requests the rings carry (a flag each, in shared
 * memory: a look at a thousand connections costs about a microsecond).
 */
final class ShmDoorbells implements Agent {
    /** The agent sleeps in epoll, never in its idle strategy. */
    private static final IdleStrategy NO_IDLE = new NoOpIdleStrategy();
    /** How often the listeners' hellos are swept (ShmListener.sweepAll). */
    private static final int SWEEP_MILLIS = 1000;
    /** How often, while connections are watched, the rings are looked at for nudges nobody read. */
    private static final int NUDGE_LOOK_MILLIS = 100;
    /** The epoll data of the eventfd that wakes the agent to stop; connections count from 1. */
    private static final long WAKE = 0;
    private static final int PEER_GONE = NativeOs.EPOLLRDHUP | NativeOs.EPOLLHUP | NativeOs.EPOLLERR;
    /** The events a kept socket is watched for: its peer's end. */
    static final int HANG_UP = NativeOs.EPOLLRDHUP;
    /** A {@link Registration}'s events before it is added to the set. */
    private static final int NOT_ADDED = -1;
    private static final int BATCH = 64;

    private static volatile ShmDoorbells instance;

    private final NativeOs os;
    /**
     * Never closed: any thread may still call epoll_ctl on it until the JVM is gone, and a closed number could by
     * then name another file. One per JVM.
     */
    private final int epoll;
    private final int wakeFd;
    /** Every registered socket, by its epoll data. */
    private final Map<Long, Registration> registrations = new ConcurrentHashMap<>();
    /** The registrations that carry a connection now, whose rings the agent looks at for nudges. */
    private final Map<Long, Watched> watched = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong(WAKE);
    /** The agent's thread only. */
    private final long[] readyData = new long[BATCH];
    private final int[] readyEvents = new int[BATCH];
    private long nextSweep = System.nanoTime();

    private ShmDoorbells() throws IOException {
        this.os = NativeAccess.os();
        this.epoll = os.epollCreate();
        try {
            this.wakeFd = os.eventfdCreate();
            os.epollControl(epoll, NativeOs.EPOLL_CTL_ADD, wakeFd, NativeOs.EPOLLIN, WAKE);
        } catch (IOException e) {
            os.closeFd(epoll);
            throw e;
        }
        Lifecycle.start(this, NO_IDLE, () -> os.eventfdSignal(wakeFd));
    }

    static ShmDoorbells get() throws IOException {
        ShmDoorbells d = instance;
        if (d == null) {
            synchronized (ShmDoorbells.class) {
                d = instance;
                if (d == null) {
                    d = new ShmDoorbells();
                    instance = d;
                }
            }
        }
        return d;
    }

    /** Who may keep a closed connection's socket and segment for the next connection. */
    interface Keeper {
        /**
         * Takes the socket, its registration (now watching only for the peer's end, with no handler) and the segment
         * and returns true, or leaves them to be released and closed.
         */
        boolean keep(SocketChannel unix, Registration registration, ShmSegment segment);
    }

    /**
     * Watches {@code channel} (made non-blocking here) for {@code link} over {@code segment}, through its
     * {@code registration} if the socket carried a connection before (null for a new socket); runs {@code onDeath}
     * if the peer dies without having closed the connection. Closing the result, once the link is closed, hands the
     * channel, its registration and the segment to {@code keeper}, or stops watching, closes the channel and
     * releases the segment.
     */
    Watched watch(SocketChannel channel, Registration registration, RingLink link, ShmSegment segment,
            Runnable onDeath, Keeper keeper) throws IOException {
        channel.configureBlocking(false);
        Registration r = registration != null ? registration : new Registration(ids.incrementAndGet(), channel);
        Watched w = new Watched(r, link, segment, onDeath, keeper);
        watched.put(r.id, w);
        try {
            w.start();
        } catch (IOException e) {
            watched.remove(r.id);
            r.release();
            throw e;
        }
        return w;
    }

    /**
     * A socket's place in the agent's epoll set, made once and kept while the socket carries one connection after
     * another (shm keeps closed connections for the next): changing what it answers, between a connection and the
     * wait for the next, costs no system call, where a removal and a new entry cost two at each end per connection.
     * Its events change under its own monitor; {@link #release()} before the socket closes, so its number never names
     * another file here.
     */
    final class Registration {
        private final long id;
        private final SocketChannel channel;
        /** Under this; {@link #NOT_ADDED} while not in the set. */
        private int events = NOT_ADDED;
        private boolean released;
        /** What the agent's thread runs for an event; null between connections. */
        private volatile java.util.function.IntConsumer handler;

        private Registration(long id, SocketChannel channel) {
            this.id = id;
            this.channel = channel;
        }

        /**
         * Has the agent run {@code onEvent} for {@code wanted} events (PEER_GONE's are always wanted) from now on;
         * null: nothing, until the next call.
         */
        synchronized void answer(java.util.function.IntConsumer onEvent, int wanted) throws IOException {
            if (released) {
                throw new IOException("the socket's registration was released");
            }
            handler = onEvent;
            if (wanted == events) {
                return;
            }
            if (events == NOT_ADDED) {
                registrations.put(id, this);
            }
            try {
                os.epollControl(epoll, events == NOT_ADDED ? NativeOs.EPOLL_CTL_ADD : NativeOs.EPOLL_CTL_MOD,
                        JdkNio.fd(channel), wanted, id);
            } catch (IOException e) {
                if (events == NOT_ADDED) {
                    registrations.remove(id);
                }
                throw e;
            }
            events = wanted;
        }

        /**
         * Has the agent run {@code onHangUp} once the peer's end comes, and nothing else: a kept socket's watch between
         * connections. The agent answers a batch of events it took from epoll before, so an event of the connection
         * that just ended (a doorbell byte the peer rang while this end still watched for those) may reach this
         * answer after this call; a readable socket is no end.
         */
        void answerHangUp(Runnable onHangUp) throws IOException {
            answer(ready -> {
                if (peerGone(ready)) {
                    onHangUp.run();
                }
            }, HANG_UP);
        }

        SocketChannel channel() {
            return channel;
        }

        /** Answers nothing until the next {@link #answer}; the entry stays as it is. */
        void park() {
            handler = null;
        }

        /** Leaves the epoll set, before the socket closes; idempotent. */
        synchronized void release() {
            released = true;
            handler = null;
            remove();
        }

        /**
         * An event nobody answers (a kept socket between its hand-over and its next connection, a hello waiting for
         * its accept): the entry leaves the set until the next {@link #answer}, or a peer's end, which epoll reports
         * whatever the entry asks for, would spin this agent.
         */
        private synchronized void silence() {
            if (handler == null) {
                remove();
            }
        }

        private void remove() {
            if (events == NOT_ADDED) {
                return;
            }
            events = NOT_ADDED;
            registrations.remove(id);
            try {
                os.epollControl(epoll, NativeOs.EPOLL_CTL_DEL, JdkNio.fd(channel), 0, id);
            } catch (IOException ignored) {
                // a closed socket left the set by itself
            }
        }

        /** Runs what this registration answers for {@code readyEvents}: the agent's call for an event it took. */
        void ready(int readyEvents) {
            java.util.function.IntConsumer h = handler;
            if (h != null) {
                h.accept(readyEvents);
            } else {
                silence();
            }
        }
    }

    /** Whether {@code events} say the peer closed its end or died. */
    static boolean peerGone(int events) {
        return (events & PEER_GONE) != 0;
    }

    @Override
    public String roleName() {
        return "sovia-doorbells";
    }

    /**
     * Sleeps in epoll until a watched socket needs an answer, the agent must stop, a look for nudges nobody read is
     * due, or a sweep (hellos, selectors of ended threads).
     */
    @Override
    public int doWork() throws IOException {
        int n = os.epollWait(epoll, readyData, readyEvents, watched.isEmpty() ? SWEEP_MILLIS : NUDGE_LOOK_MILLIS);
        long now = System.nanoTime();
        if (now - nextSweep >= 0) {
            nextSweep = now + SWEEP_MILLIS * 1_000_000L;
            ShmListener.sweepAll();
            ShmChannelPool.KEPT.sweep();
            DoorbellSleep.releaseEnded();
        }
        watched.values().forEach(w -> w.link.pollIfWanted());
        for (int i = 0; i < n; i++) {
            if (readyData[i] == WAKE) {
                os.eventfdClear(wakeFd);
                continue;
            }
            Registration r = registrations.get(readyData[i]);
            if (r != null) {
                r.ready(readyEvents[i]);
            }
        }
        return n;
    }

    /** One watched connection, over its socket's registration. */
    final class Watched implements AutoCloseable {
        private final Registration registration;
        private final RingLink link;
        private final ShmSegment segment;
        private final Runnable onDeath;
        private final Keeper keeper;
        /** Under this: once set, the registration is no longer this connection's. */
        private boolean stopped;
        /** Set by the agent's thread when it saw the peer go. */
        private volatile boolean peerGone;

        private Watched(Registration registration, RingLink link, ShmSegment segment, Runnable onDeath,
                Keeper keeper) {
            this.registration = registration;
            this.link = link;
            this.segment = segment;
            this.onDeath = onDeath;
            this.keeper = keeper;
        }

        /** The socket's registration, this connection's until it ends. */
        Registration registration() {
            return registration;
        }

        private synchronized void start() throws IOException {
            registration.answer(this::answer, wanted());
            link.onBlindSleepersChanged(this::update);
            update();
        }

        private int wanted() {
            return link.hasBlindSleepers() ? NativeOs.EPOLLIN | HANG_UP : HANG_UP;
        }

        /** Reads rings exactly while the link has sleepers that cannot. */
        private synchronized void update() {
            if (stopped) {
                return;
            }
            try {
                registration.answer(this::answer, wanted());
            } catch (IOException e) {
                SoviaLog.warnCounted("shm-doorbell-watch", "cannot change what the doorbell thread watches", e);
            }
        }

        private void answer(int ready) {
            if (!peerGone(ready) && link.drainDoorbell()) {
                link.wake();
                return;
            }
            peerGone = true;
            if (!stop(true)) {
                return; // the connection had ended here and its socket went on
            }
            // clean up first: the woken survivor may exit at once; a peer that closed in order is not dead
            if (!link.peerClosed()) {
                onDeath.run();
            }
            link.peerDied();
        }

        /**
         * Ends this connection's use of the registration, releasing it (before the descriptor can close) or leaving
         * it, now watching only for the peer's end with no handler, to whoever takes the socket next. Whether this
         * call ended it.
         */
        private synchronized boolean stop(boolean release) {
            if (stopped) {
                return false;
            }
            stopped = true;
            watched.remove(registration.id);
            if (release) {
                registration.release();
                return true;
            }
            try {
                registration.answer(null, HANG_UP);
                return true;
            } catch (IOException e) {
                registration.release();
                return false;
            }
        }

        /**
         * The connection ended here: a peer that is alive may get the socket and segment for its next connection
         * (the keeper registers them before this end's release, after which the peer may reuse them); a dead or
         * corrupting one's go.
         */
        @Override
        public void close() {
            if (!peerGone && link.detachDoorbell() && stop(false)
                    && keeper.keep(registration.channel, registration, segment)) {
                segment.releaseKept();
                return;
            }
            stop(true);
            registration.release();
            ShmTransport.closeQuietly(registration.channel);
            segment.release(peerGone);
        }
    }
}
