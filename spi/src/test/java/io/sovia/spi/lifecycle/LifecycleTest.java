package io.sovia.spi.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.agrona.concurrent.Agent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The lifecycle's promises: an agent that throws keeps running (no Sovia thread dies), and the exit sequence runs
 * its stages in order, stopping the agents (also one parked with nothing to do) between closing and reporting.
 * One test, since the exit sequence runs once per JVM.
 */
@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class LifecycleTest {

    @Test
    void agentsSurviveTheirErrorsAndTheExitRunsInStageOrder() {
        List<String> order = new CopyOnWriteArrayList<>();
        AtomicInteger rounds = new AtomicInteger();
        Thread thread = Lifecycle.start(new Agent() {
            @Override
            public int doWork() {
                if (rounds.incrementAndGet() == 1) {
                    throw new InternalError("a broken round, as SIGBUS arrives (expected in this test)");
                }
                return 0;
            }

            @Override
            public void onClose() {
                order.add("agent closed");
            }

            @Override
            public String roleName() {
                return "sovia-test-agent";
            }
        }, new ParkingIdle(() -> Long.MAX_VALUE));
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (rounds.get() < 2 && System.nanoTime() - deadline < 0) {
            LockSupport.unpark(thread);
            LockSupport.parkNanos(1_000_000L);
        }
        assertTrue(rounds.get() >= 2, "the agent runs again after its error");
        assertTrue(thread.isAlive());

        Lifecycle.onExit(ExitStage.REPORT, () -> order.add("report"));
        Lifecycle.onExit(ExitStage.CLOSE, () -> order.add("close"));
        Lifecycle.onExit(ExitStage.FLUSH, () -> {
            order.add("flush");
            throw new IllegalStateException("a failing step (expected in this test)");
        });
        Lifecycle.exit();
        assertEquals(List.of("flush", "close", "agent closed", "report"), order);
        assertFalse(thread.isAlive(), "stopped although parked with nothing to do");
    }
}
