package io.sovia.spi.lifecycle;

import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Idles an agent whose work arrives by {@link LockSupport#unpark}: after a round with no work it parks
 * until its next deadline ({@code Long.MAX_VALUE}: until unparked). An unpark that comes before the
 * park leaves a permit, so no wake-up is lost.
 */
public final class ParkingIdle implements IdleStrategy {
    private final LongSupplier waitNanos;

    /** @param waitNanos how long the agent may sleep now, read after each round with no work */
    public ParkingIdle(LongSupplier waitNanos) {
        this.waitNanos = waitNanos;
    }

    @Override
    public void idle(int workCount) {
        if (workCount == 0) {
            idle();
        }
    }

    @Override
    public void idle() {
        long wait = waitNanos.getAsLong();
        if (wait == Long.MAX_VALUE) {
            LockSupport.park(this);
        } else if (wait > 0) {
            LockSupport.parkNanos(this, wait);
        }
    }

    @Override
    public void reset() {
        // no state between rounds
    }

    @Override
    public String alias() {
        return "parking";
    }
}
