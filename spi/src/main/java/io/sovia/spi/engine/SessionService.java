package io.sovia.spi.engine;

import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.lifecycle.ExitStage;
import io.sovia.spi.lifecycle.Lifecycle;
import io.sovia.spi.lifecycle.ParkingIdle;
import org.agrona.concurrent.Agent;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * The per-JVM service agent (SOVIA's close thread): runs session timers (delayed ACK, combining,
 * retransmission), finishes closes nobody waits for, and at JVM exit flushes what apps wrote before
 * closing. The app threads do all work on the fast path; this agent only catches what they leave. It
 * runs under the {@link Lifecycle}, started by the first session that needs it.
 *
 * <p>A session is visited when a timer it reported is due, not when it reports one: each request/response turn
 * re-arms a session's timers (the delayed ACK, the retransmission) about a millisecond ahead and cancels them
 * within microseconds, and visiting every session at each report (then again at each deadline) took 1,700-1,900
 * wake-ups a second of this thread on the app's core with one eth connection ping-ponging, and with 100 of them
 * 12% of the server JVM's CPU, most of it in visits that found nothing due.
 *
 * <p>Threading: {@link #timed}, {@link #lingering} and {@link #live} take any thread; {@link #watched}
 * and {@link #waitNanos} belong to the agent's thread.
 */
public final class SessionService implements Agent {
    private static final SessionService INSTANCE = new SessionService();
    /** The least {@link #lookAgainNanos}, whatever the combining span. */
    private static final long MIN_LOOK_AGAIN_NANOS = 50_000;
    /** Visits asked for, handed over by any thread. */
    private final Queue<Visit> timed = new ConcurrentLinkedQueue<>();
    /** Closed sessions still delivering data or FIN, with what releases them when done. */
    private final Map<Session, Runnable> lingering = new ConcurrentHashMap<>();
    /** Every session not yet released, for the exit flush. */
    private final Set<Session> live = ConcurrentHashMap.newKeySet();
    /** Sessions with a pending timer, each with the {@link System#nanoTime()} to visit it by. */
    private final Map<Session, long[]> watched = new HashMap<>();
    /** How long the agent may park after a round: until its next deadline, or a wake-up. */
    private long waitNanos = Long.MAX_VALUE;
    /**
     * The {@link System#nanoTime()} by which the agent visits its timed sessions anyway, Long.MAX_VALUE while it
     * parks with no deadline: a timer for no earlier needs no wake-up, so a writer that stalls at every turn of
     * a stream (its persist timer starts each time) does not wake this thread each time. Written by the agent
     * before it looks at {@link #timed} a last time; read by schedulers after they added to it.
     */
    private volatile long lookBy = Long.MAX_VALUE;
    private volatile Thread thread;
    private volatile boolean exitHooked;
    /**
     * How long the agent keeps looking after a round that took sessions and found no deadline: the combining span,
     * within which a stream of small writes arms its timer again (it combines until its peer catches up, then arms
     * for the next bytes). A parked agent was unparked by every such arm, 52,000 times a second under a stream of
     * 64-byte writes; one that looks again this soon is woken by its own timer once per span, and the arms in
     * between, all due later, need no wake-up.
     */
    private final long lookAgainNanos = Math.max(SoviaConfig.nagleNanos(), MIN_LOOK_AGAIN_NANOS);
    /** Whether a round since the agent last parked without a deadline took sessions; the agent's thread only. */
    private boolean tookSessions;

    private SessionService() {
    }

    public static SessionService get() {
        return INSTANCE;
    }

    /** Tracks a new session: its timers will run here, and its data is handed over at exit. */
    public void register(Session session) {
        if (!exitHooked) {
            hookExit();
        }
        live.add(session);
        session.onTimer(by -> schedule(session, by));
    }

    private synchronized void hookExit() {
        if (!exitHooked) {
            exitHooked = true;
            Lifecycle.onExit(ExitStage.FLUSH, this::flushAtExit);
        }
    }

    private void schedule(Session session, long visitBy) {
        timed.add(new Visit(session, visitBy));
        // a timer may run late by up to its own span (at most lookAgainNanos) rather than wake the agent before its
        // next look: the writer that holds its session's lock when the agent comes by does the visit itself and
        // reports the combining timer it found, due just before that next look, after each frame; a request for a
        // visit now is never late
        long slack = Math.min(Math.max(visitBy - System.nanoTime(), 0), lookAgainNanos);
        if (visitBy + slack - lookBy < 0 || thread == null) {
            wake();
        }
    }

    /** Takes over a closed session until it finishes delivering, then runs {@code release}. */
    public void linger(Session session, Runnable release) {
        lingering.put(session, release);
        wake();
    }

    /** The session's link is released; forget it. */
    public void released(Session session) {
        live.remove(session);
    }

    private void wake() {
        Thread t = thread;
        if (t == null) {
            synchronized (this) {
                if (thread == null) {
                    thread = Lifecycle.start(this, new ParkingIdle(() -> timed.isEmpty() ? waitNanos : 0));
                }
                t = thread;
            }
        }
        EngineCounters.SERVICE_WAKEUPS.increment();
        LockSupport.unpark(t);
    }

    @Override
    public String roleName() {
        return "sovia-service";
    }

    /** One round: takes newly timed sessions, runs due timers, finishes lingering closes. */
    @Override
    public int doWork() {
        int work = 0;
        Visit v;
        while ((v = timed.poll()) != null) {
            long[] by = watched.get(v.session());
            if (by == null) {
                watched.put(v.session(), new long[] {v.by()});
            } else if (v.by() - by[0] < 0) {
                by[0] = v.by();
            }
            work++;
        }
        long now = System.nanoTime();
        long next = 0;
        for (Iterator<Map.Entry<Session, long[]>> it = watched.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Session, long[]> e = it.next();
            long[] by = e.getValue();
            if (by[0] - now <= 0) {
                long deadline = e.getKey().serviceVisit();
                if (deadline == 0) {
                    it.remove();
                    continue;
                }
                // a timer re-armed since it was reported (a combining writer's, every ~100 us) is visited again no
                // sooner than one span on: this thread woke 3,200-4,500 times a second for such timers, none due,
                // on the core of a stream of small writes; a writer that stopped is flushed at most one span late
                long soonest = now + lookAgainNanos;
                by[0] = deadline - soonest < 0 ? soonest : deadline;
            }
            next = SessionMachine.earliest(next, by[0]);
        }
        for (Map.Entry<Session, Runnable> e : lingering.entrySet()) {
            if (e.getKey().isFinished()) {
                lingering.remove(e.getKey());
                e.getValue().run();
                work++;
            }
        }
        long wait = next == 0 ? Long.MAX_VALUE : Math.max(next - now, 0);
        if (!lingering.isEmpty()) {
            wait = Math.min(wait, 1_000_000L);
        }
        tookSessions |= work > 0;
        if (wait == Long.MAX_VALUE && work == 0 && tookSessions) {
            tookSessions = false;
            wait = lookAgainNanos;
        }
        waitNanos = wait;
        lookBy = wait == Long.MAX_VALUE ? Long.MAX_VALUE : now + wait;
        return work;
    }

    /** A session's request to be visited by a {@link System#nanoTime()}. */
    private record Visit(Session session, long by) {
    }

    /**
     * The process is ending: as the kernel does for a process's sockets, every session still open is
     * closed (FIN after what was written), and the exit waits until every session has put what it was
     * given into its link, or its peer is gone, for at most {@code sovia.exit.linger.millis}
     * (SOVIA waited for CLOSED at exit too). A peer that reads nothing can delay the exit that long.
     */
    private void flushAtExit() {
        for (Session s : live) {
            s.close();
        }
        long end = System.nanoTime() + SoviaConfig.exitLingerNanos();
        while (System.nanoTime() - end < 0) {
            boolean done = true;
            for (Session s : live) {
                done &= s.isFinished();
            }
            if (done) {
                return;
            }
            LockSupport.parkNanos(200_000L);
        }
    }
}
