package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.fail;

import java.lang.Thread.State;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * A piece of a scenario run on its own thread, so the test can block it in a call, then interrupt it or close the
 * channel under it, and wait for the outcome with a bound.
 *
 * @param <T> what the body returns
 */
public final class Async<T> {

    /** The code to run; may throw anything. */
    @FunctionalInterface
    public interface Body<T> {
        /** Runs the body. */
        T run() throws Exception;
    }

    private final CompletableFuture<T> outcome = new CompletableFuture<>();
    private final Thread thread;

    private Async(String name, Body<T> body, boolean virtual) {
        Runnable run = () -> {
            try {
                outcome.complete(body.run());
            } catch (Throwable t) {
                outcome.completeExceptionally(t);
            }
        };
        // virtual threads are daemons; a body stuck in a broken implementation must not keep the test JVM alive
        thread = virtual ? VirtualThreads.unstarted(name, run) : new Thread(run, name);
        thread.setDaemon(true);
    }

    /** Starts {@code body} on a new daemon thread. */
    public static <T> Async<T> start(String name, Body<T> body) {
        return started(new Async<>(name, body, false));
    }

    /** Starts {@code body} on a new virtual thread (JDK 21+; the scenario is skipped before). */
    public static <T> Async<T> startVirtual(String name, Body<T> body) {
        return started(new Async<>(name, body, true));
    }

    private static <T> Async<T> started(Async<T> async) {
        async.thread.start();
        return async;
    }

    /** The thread running the body. */
    public Thread thread() {
        return thread;
    }

    /**
     * Waits until the thread is blocked inside a method called {@code method} (any class), so that what the test does
     * next happens during that call rather than before it. Blocked means parked or in native code; an implementation
     * that spins in Java instead counts as blocked once it has stayed in the method for half a second.
     */
    public Async<T> awaitBlockedIn(String method) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Io.WAIT_MILLIS);
        long enteredAt = 0;
        while (System.nanoTime() < deadline && !outcome.isDone()) {
            StackTraceElement[] stack = thread.getStackTrace();
            if (Arrays.stream(stack).anyMatch(frame -> frame.getMethodName().equals(method))) {
                long now = System.nanoTime();
                enteredAt = enteredAt == 0 ? now : enteredAt;
                State state = thread.getState();
                boolean parked = state == State.WAITING || state == State.TIMED_WAITING;
                boolean inNative = stack.length > 0 && stack[0].isNativeMethod();
                if (parked || inNative || now - enteredAt > TimeUnit.MILLISECONDS.toNanos(500)) {
                    return this;
                }
            } else {
                enteredAt = 0;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        throw new AssertionError(thread.getName() + " never blocked in " + method + "(); outcome: " + describe());
    }

    /** The body's result; rethrows what the body threw. Fails if the body does not end in time. */
    public T get() throws Exception {
        try {
            return outcome.get(Io.WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw e;
        } catch (TimeoutException e) {
            throw stillRunning();
        }
    }

    /** What the body threw. Fails if it returned normally or does not end in time. */
    public Throwable failure() throws InterruptedException {
        try {
            T result = outcome.get(Io.WAIT_MILLIS, TimeUnit.MILLISECONDS);
            return fail(thread.getName() + " returned " + result + " instead of throwing");
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (TimeoutException e) {
            throw stillRunning();
        }
    }

    private AssertionError stillRunning() {
        AssertionError error = new AssertionError(thread.getName() + " still running after " + Io.WAIT_MILLIS + " ms");
        error.setStackTrace(thread.getStackTrace());
        return error;
    }

    private String describe() {
        if (!outcome.isDone()) {
            return "still running";
        }
        return String.valueOf(outcome.handle((result, thrown) -> thrown != null ? thrown : result).join());
    }
}
