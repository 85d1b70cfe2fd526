package io.sovia.shm;

import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.lifecycle.Lifecycle;
import io.sovia.spi.lifecycle.ParkingIdle;
import org.agrona.concurrent.Agent;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.locks.LockSupport;

/**
 * Segments made ahead of connects. Making one writes every page of it (so a lack of memory fails the
 * connect cleanly rather than faulting later), about 1.3 ms for 2 MiB here, which was a third of a
 * short connection's cost; an agent of the {@link Lifecycle} pays it between connects, started by the
 * first connect and woken by each one. A spare holds a descriptor, closed at exit.
 *
 * <p>Threading: {@link #ready}, {@link #closed}, {@link #capacity} and {@link #maker} are guarded by
 * {@code this}; making a segment runs on the agent's thread outside the lock.
 */
final class ShmSpares implements Agent {
    private final int wanted;
    private final Deque<ShmSegment> ready = new ArrayDeque<>();
    private boolean closed;
    /** The ring capacity of the last connect, which spares are made for. */
    private int capacity;
    /** The agent's thread, once a connect started it. */
    private Thread maker;
    /** Set by the agent when making failed, so it sleeps until the next connect. */
    private volatile boolean failed;

    /** @param wanted how many spares to keep; 0 makes every segment at connect */
    ShmSpares(int wanted) {
        this.wanted = wanted;
    }

    /** A new segment with rings of {@code capacity}: a spare if one is ready, else made now. */
    ShmSegment take(int capacity) throws IOException {
        ShmSegment spare;
        synchronized (this) {
            spare = ready.pollFirst();
            while (spare != null && spare.capacity() != capacity) {
                spare.close(); // made before the ring size changed
                spare = ready.pollFirst();
            }
            if (wanted > 0 && !closed) {
                this.capacity = capacity;
                failed = false;
                if (maker == null) {
                    maker = Lifecycle.start(this, new ParkingIdle(() -> Long.MAX_VALUE));
                }
                LockSupport.unpark(maker);
            }
        }
        return spare != null ? spare : ShmSegment.create(capacity);
    }

    @Override
    public String roleName() {
        return "sovia-shm-spares";
    }

    /** Makes one spare while fewer than wanted are ready; 0 (sleep) when enough are, or making failed. */
    @Override
    public int doWork() {
        int size;
        synchronized (this) {
            if (closed || failed || ready.size() >= wanted) {
                return 0;
            }
            size = capacity;
        }
        ShmSegment spare;
        try {
            spare = ShmSegment.create(size);
        } catch (IOException | RuntimeException e) {
            // e.g. out of memory: connects make their own segment, and fall back to TCP if that fails too
            SoviaLog.debugOnce("shm-spares", "cannot make a spare segment: " + e);
            failed = true;
            return 0;
        }
        synchronized (this) {
            if (closed) {
                spare.close();
                return 0;
            }
            ready.addLast(spare);
        }
        return 1;
    }

    /** Removes the spares; none is made after this. */
    synchronized void close() {
        closed = true;
        ready.forEach(ShmSegment::close);
        ready.clear();
    }
}
