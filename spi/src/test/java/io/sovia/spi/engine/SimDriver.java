package io.sovia.spi.engine;

import java.io.IOException;
import java.util.function.BooleanSupplier;

/**
 * Runs two sessions over a {@link SimNetwork} on virtual time until a condition holds. Each step lets
 * both apps do their next operation, polls both sessions (or visits one left to the service thread, as
 * that thread would), checks the invariants, then moves the clock to the earliest event: a frame
 * delivery, a nudge for a session left to the service thread, a session timer, or (if an app made
 * progress) a short app step. A stall (nothing scheduled but the condition unmet), too many steps or
 * too much virtual time fails with the whole state, so a seed can be replayed and debugged.
 */
final class SimDriver {
    /** Virtual nanos an app spends between operations when it is busy. */
    static final long APP_STEP = 2_000;
    /** Longest step while a stale deadline hides the real timers. */
    static final long STALE_STEP_MAX = 100_000;
    private long staleStep = APP_STEP / 2;
    /** A time {@link #runFor} wants to reach even if nothing happens until then. */
    private long horizon = Long.MAX_VALUE;
    private int idleSteps;

    final SimNetwork net;
    final SimApp a;
    final SimApp b;
    final String label;
    long maxSteps = 2_000_000;
    long maxVirtualNanos = 60_000_000_000L;
    /** Whether to let each app act; tests that script calls by hand turn these off. */
    boolean aActive = true;
    boolean bActive = true;
    /** Whether to poll each session; off for one whose process "crashed". */
    boolean aAlive = true;
    boolean bAlive = true;
    /** Each session's visits by the service thread, once it is left to it ({@link #leaveToService}). */
    private final Service serviceA = new Service();
    private final Service serviceB = new Service();
    /** Whether to assert the flow-control invariant every step (off once a close discards input). */
    boolean checkWindows = true;
    /** The sessions' receive buffers, for that invariant. */
    long receiveBufferA = Long.MAX_VALUE / 4;
    long receiveBufferB = Long.MAX_VALUE / 4;
    /** Runs at the start of every step, e.g. to inject frames. */
    Runnable onStep = () -> { };
    long steps;
    /** Times a session reported a deadline poll() had already passed (a service thread would spin on it). */
    long staleDeadlines;
    final long start;

    SimDriver(String label, SimNetwork net, SimApp a, SimApp b) {
        this.label = label;
        this.net = net;
        this.a = a;
        this.b = b;
        this.start = net.now;
    }

    /** Runs for {@code nanos} of virtual time. */
    void runFor(long nanos) {
        long end = net.now + nanos;
        horizon = end;
        try {
            runUntil("time to pass", () -> net.now - end >= 0);
        } finally {
            horizon = Long.MAX_VALUE;
        }
    }

    /** Steps until {@code done}; fails with the state on a stall, an invariant break or an exception. */
    void runUntil(String what, BooleanSupplier done) {
        try {
            while (!done.getAsBoolean()) {
                if (++steps > maxSteps || net.now - start > maxVirtualNanos) {
                    throw fail("too slow or livelocked: no " + what + " after " + steps + " steps, "
                            + (net.now - start) + " ns", null);
                }
                onStep.run();
                boolean progress = false;
                if (aActive) {
                    progress |= a.step();
                }
                if (bActive) {
                    progress |= b.step();
                }
                // a nudge that arrived asks the service thread to visit (Session wires it to onTimer)
                link(a).nudgesArrive();
                link(b).nudgesArrive();
                if (aAlive) {
                    poll(a);
                }
                if (bAlive) {
                    poll(b);
                }
                checkWindow(a, b);
                checkWindow(b, a);
                if (done.getAsBoolean()) {
                    return;
                }
                advance(progress, what);
            }
        } catch (Failure e) {
            throw e;
        } catch (IOException | RuntimeException | AssertionError e) {
            throw fail("unexpected " + e, e);
        }
    }

    /**
     * Leaves {@code app}'s session to the service thread: its app makes no more calls (no read, write,
     * poll, selector or waiter), and the session is touched only as {@link SessionService} touches it:
     * visited at once when it announces a timer through {@link Session#onTimer} or its peer's
     * {@linkplain SimLink#nudge() nudge} arrives (the session runs the same callback), then at each deadline a
     * visit returns, until a visit returns none. The first visit is made here, before the test goes on
     * (it may make the app's last calls next), since the service thread already watches a session that
     * announced timers before.
     */
    void leaveToService(SimApp app) {
        Service service = app == a ? serviceA : serviceB;
        if (app == a) {
            aActive = false;
        } else {
            bActive = false;
        }
        service.on = true;
        app.session.onTimer(by -> service.woken = true);
        service.next = app.session.serviceVisit();
    }

    private void poll(SimApp app) {
        Service service = app == a ? serviceA : serviceB;
        if (!service.on) {
            app.session.poll(); // an app thread, selector or waiter calls the session on every step
        } else if (service.woken || (service.next != 0 && net.now - service.next >= 0)) {
            service.woken = false;
            service.next = app.session.serviceVisit(); // the lock is free: the sim has one thread
        }
    }

    /** Moves the clock to the next event; {@code progress}: an app did something and may do more soon. */
    void advance(boolean progress, String what) {
        boolean stale = false;
        long next = Long.MAX_VALUE;
        for (SimApp app : new SimApp[] {a, b}) {
            Service service = app == a ? serviceA : serviceB;
            SimLink in = link(app);
            // a frame for a session left to the service thread wakes nobody: it waits for a visit
            if (!service.on && !in.incoming.isEmpty()) {
                next = Math.min(next, in.incoming.peek().at());
            }
            if (!(app == a ? aAlive : bAlive)) {
                continue;
            }
            if (service.on && !in.nudges.isEmpty()) {
                next = Math.min(next, in.nudges.peekFirst()); // it will have the service thread visit
            }
            if (service.on && service.woken) {
                next = Math.min(next, net.now); // the service thread runs at once
                continue;
            }
            long d = service.on ? service.next : app.session.nextDeadline();
            if (d != 0 && d - net.now <= 0) {
                // poll() just ran the timers, so a passed deadline is one it could not act on (window
                // closed, link full): a service thread would spin on it. Count it, wait for real events.
                staleDeadlines++;
                stale = true;
            } else if (d != 0) {
                next = Math.min(next, d); // virtual times stay far from overflow, plain min is safe
            }
        }
        if (stale) {
            // the stale deadline hides the session's real next timer (nextDeadline() reports only the
            // earliest), so look again soon, backing off while nothing else happens: timers may fire late
            // by up to STALE_STEP_MAX, as they would not on a spinning service thread, but runs stay short
            staleStep = Math.min(STALE_STEP_MAX, staleStep * 2);
            next = Math.min(next, net.now + staleStep);
        } else {
            staleStep = APP_STEP / 2;
        }
        if (progress) {
            next = Math.min(next, net.now + APP_STEP);
        }
        next = Math.min(next, horizon);
        if (next == Long.MAX_VALUE) {
            // a poll may have changed a session (e.g. noticed a dead peer) without anything scheduled:
            // let the apps try once more before calling it a stall
            if (++idleSteps > 2) {
                throw fail("stall: nothing scheduled and no " + what, null);
            }
            next = net.now + APP_STEP;
        } else {
            idleSteps = 0;
        }
        net.now = Math.max(next, net.now + 1);
    }

    /**
     * Flow control: the writer never framed more new data than the reader's app consumed plus its
     * receive buffer (the window edge it can have advertised).
     */
    private void checkWindow(SimApp writer, SimApp reader) {
        SimLink out = link(writer);
        long limit = reader.read + receiveBuffer(reader);
        if (checkWindows && out.uniqueDataBytes > limit) {
            throw fail(writer.name + " sent " + out.uniqueDataBytes + " bytes, beyond the window edge " + limit, null);
        }
    }

    SimLink link(SimApp app) {
        return (SimLink) app.session.link();
    }

    private long receiveBuffer(SimApp reader) {
        return reader == a ? receiveBufferA : receiveBufferB;
    }

    /** An assertion error naming the seed, the step and the whole state. */
    AssertionError fail(String why, Throwable cause) {
        return new Failure(label + ": " + why + "\n  at step " + steps + ", virtual "
                + (net.now - start) + " ns, stale deadlines " + staleDeadlines + "\n  " + a + "\n  " + b + "\n  " + net
                + "\n  engine " + EngineCounters.toJson(), cause);
    }

    /** What the service thread knows of a session left to it. */
    private static final class Service {
        boolean on;
        /** The session announced a timer since the last visit. */
        boolean woken;
        /** The deadline the last visit returned, 0: the service thread does not watch the session. */
        long next;
    }

    /** A failure already carrying the state. */
    static final class Failure extends AssertionError {
        Failure(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
