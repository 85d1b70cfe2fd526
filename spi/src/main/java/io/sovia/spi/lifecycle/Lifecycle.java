package io.sovia.spi.lifecycle;

import io.sovia.spi.config.SoviaLog;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.IdleStrategy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * The one lifecycle of Sovia in a JVM: its JVM-wide threads run as Agrona {@link Agent}s, each under an
 * {@link AgentRunner} (Aeron's model), guarded so that whatever a round throws is logged and the agent
 * keeps running: no Sovia thread dies. Agents start on first use; and one exit sequence runs their close and every component's exit step
 * in {@link ExitStage} order, after the application's own shutdown hooks ({@link ExitHook}).
 *
 * <p>Threading: any thread may start agents and add exit steps; the exit sequence runs once.
 */
public final class Lifecycle {
    /**
     * How long the exit waits for an agent to see it must stop before interrupting it, which ends its
     * park or select; it is interrupted again after each such wait.
     */
    private static final int AGENT_STOP_WAIT_MILLIS = 10;
    /** Waits after which an agent that has not stopped is reported (about a second). */
    private static final int AGENT_STOP_REPORT = 100;

    /** Exit steps by stage, in the order they were added; guarded by the class. */
    private static final Map<ExitStage, List<Runnable>> STEPS = new EnumMap<>(ExitStage.class);
    /** Running agents, last started first; guarded by the class. */
    private static final Deque<Running> RUNNERS = new ArrayDeque<>();
    /** Guarded by the class. */
    private static boolean hooked;
    /** Whether the exit sequence runs after every application hook; guarded by the class. */
    private static boolean afterAppHooks;
    private static boolean exited;
    /** The thread running an exit sequence that runs after every application hook, once it closes connections. */
    private static volatile Thread exiting;

    /** An agent's runner, and what wakes it from a sleep an interrupt does not end. */
    private record Running(AgentRunner runner, Runnable wake) {
    }

    private Lifecycle() {
    }

    /** Adds {@code step} to the exit sequence's {@code stage}; it must not throw and must not block long. */
    public static synchronized void onExit(ExitStage stage, Runnable step) {
        hook();
        STEPS.computeIfAbsent(stage, s -> new ArrayList<>()).add(step);
    }

    /**
     * Starts {@code agent} on a daemon thread named after its role; it is closed at exit in the
     * {@link ExitStage#STOP} stage, last started first.
     *
     * @return the agent's thread, for whoever wakes it
     */
    public static Thread start(Agent agent, IdleStrategy idle) {
        return start(agent, idle, () -> { });
    }

    /**
     * As {@link #start(Agent, IdleStrategy)}, for an agent that sleeps where an interrupt does not reach (a native
     * call): {@code wake} ends that sleep when the agent is to stop.
     */
    public static synchronized Thread start(Agent agent, IdleStrategy idle, Runnable wake) {
        hook();
        AgentRunner runner = new AgentRunner(idle, Lifecycle::agentError, null, new GuardedAgent(agent));
        Thread thread = AgentRunner.startOnThread(runner, r -> {
            Thread t = new Thread(r, agent.roleName());
            t.setDaemon(true);
            return t;
        });
        RUNNERS.push(new Running(runner, wake));
        return thread;
    }

    private static void agentError(Throwable t) {
        SoviaLog.warn("a Sovia thread survived an internal error", t);
    }

    private static void hook() {
        if (!hooked) {
            hooked = true;
            afterAppHooks = ExitHook.install(Lifecycle::exit);
        }
    }

    /**
     * Where an app's thread enters a Sovia connection: once the exit sequence, running after every application
     * hook, closes connections, the thread waits here for the JVM's halt, as a thread blocked in the kernel does on
     * the JDK, rather than see what the exit does to its connections (end of stream, a reset, the peer's answering
     * FIN) and run app code on it: a reconnect, a "connection lost" in the log. Nothing of the app's runs after its
     * hooks but threads that the halt ends anyway.
     */
    public static void awaitHaltOnceExiting() {
        Thread t = exiting;
        if (t != null && t != Thread.currentThread()) {
            while (true) {
                LockSupport.park(Lifecycle.class);
            }
        }
    }

    /** The exit sequence: each stage's steps in order, then the next stage. */
    static void exit() {
        for (ExitStage stage : ExitStage.values()) {
            if (stage == ExitStage.STOP) {
                stopAgents();
            }
            for (Runnable step : steps(stage)) {
                try {
                    step.run();
                } catch (RuntimeException | Error e) {
                    SoviaLog.warn("exit step " + stage + " failed; the next ones still run", e);
                }
            }
        }
    }

    private static synchronized List<Runnable> steps(ExitStage stage) {
        if (stage == ExitStage.FLUSH) {
            if (exited) {
                return List.of();
            }
            exited = true;
            if (afterAppHooks) {
                exiting = Thread.currentThread();
            }
        }
        return new ArrayList<>(STEPS.getOrDefault(stage, List.of()));
    }

    private static void stopAgents() {
        Running running;
        while ((running = nextToStop()) != null) {
            int[] waits = {0};
            Runnable wake = running.wake();
            running.runner().close(AGENT_STOP_WAIT_MILLIS, stuck -> {
                wake.run();
                if (++waits[0] == AGENT_STOP_REPORT) {
                    SoviaLog.warn("thread " + stuck.getName() + " is slow to stop at exit", null);
                }
            });
        }
    }

    private static synchronized Running nextToStop() {
        return RUNNERS.poll();
    }
}
