package io.sovia.spi.engine;

import io.sovia.spi.config.SessionConfig;

import java.util.function.LongSupplier;

/**
 * The persist timer of a reliable link: when a writer has waited for credit or link space longer than
 * the minimum rto, its session is polled (sending what now fits), probes the window and
 * {@linkplain Link#nudge() nudges} the peer, doubling the wait up to the maximum rto while it lasts. A
 * reader that freed less than half its buffer, or only took frames off the link, tells nobody, and one
 * that makes no further call (it waits for this very write to end, say) never would; a kernel answers
 * for its process, here the peer's service thread does once nudged. An unreliable link probes from its
 * {@link Retransmitter}. Guarded by the session's lock.
 */
final class CreditProbe {
    private final SessionConfig config;
    /** When to probe; 0 while credit is not awaited. */
    private long deadline;
    private long interval;

    CreditProbe(SessionConfig config) {
        this.config = config;
    }

    /**
     * Credit or link space ran out with bytes waiting; returns whether this started the timer. The clock is read only
     * then: a writer of small pieces into a full ring comes here at every write.
     */
    boolean windowClosed(LongSupplier clock) {
        if (deadline != 0) {
            return false;
        }
        interval = config.rtoMinNanos();
        deadline = clock.getAsLong() + interval;
        return true;
    }

    /** A frame went out: no probe needed. */
    void windowOpened() {
        deadline = 0;
    }

    /** Whether to probe now; if so the next probe is scheduled, later by twice the last wait. */
    boolean due(long now) {
        if (deadline == 0 || now - deadline < 0) {
            return false;
        }
        interval = Math.min(config.rtoMaxNanos(), 2 * interval);
        deadline = now + interval;
        return true;
    }

    long deadline() {
        return deadline;
    }
}
