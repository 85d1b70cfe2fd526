package io.sovia.spi.lifecycle;

import io.sovia.spi.config.SoviaLog;
import org.agrona.concurrent.Agent;

/**
 * Keeps a Sovia thread alive whatever its agent's round throws. {@code AgentRunner} handles exceptions
 * but rethrows errors (a SIGBUS on a damaged shared segment arrives as {@code InternalError}) and stops
 * on a stray interrupt; either would end the thread for good, and with it every connection's timers or
 * doorbells. A failure is logged once per kind and costs one round; the lifecycle alone stops agents.
 */
final class GuardedAgent implements Agent {
    private final Agent agent;

    GuardedAgent(Agent agent) {
        this.agent = agent;
    }

    @Override
    public void onStart() {
        agent.onStart();
    }

    @Override
    public int doWork() {
        // an interrupt is never a request to stop (the lifecycle stops agents by closing their runner)
        Thread.interrupted();
        try {
            return agent.doWork();
        } catch (Throwable t) {
            SoviaLog.warnOnce(agent.roleName() + t.getClass().getName() + t.getMessage(),
                    "thread " + agent.roleName() + " survived an internal error", t);
            return 0;
        }
    }

    @Override
    public void onClose() {
        agent.onClose();
    }

    @Override
    public String roleName() {
        return agent.roleName();
    }
}
