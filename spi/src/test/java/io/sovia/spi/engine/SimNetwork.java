package io.sovia.spi.engine;

import java.util.PriorityQueue;
import java.util.Random;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * A deterministic wire between two {@link SimLink} ends, driven by a virtual clock: committed frames are
 * queued with a delivery time (base delay + jitter, in order like a real wire) and, with configurable
 * probabilities, lost, duplicated (the copy arrives at another time) or held back extra (which reorders
 * them). Everything random comes from one seeded {@link Random}, so a seed replays a run exactly.
 *
 * <p>A reliable network never loses, duplicates or reorders: delivery times per direction never go
 * backwards, ties keep commit order.
 */
final class SimNetwork {
    /** The virtual clock in nanos; the sessions read it through {@link #clock()}. */
    long now;
    final Random random;
    final boolean reliable;

    /** Probabilities per frame (unreliable networks only). */
    double loss;
    double duplicate;
    double reorder;
    /** Nanos: every frame's delay, a random extra that keeps order, and the most a reordered frame is held. */
    long baseDelay = 1_000;
    long jitter;
    long reorderDelay;
    /** Bytes queued undelivered per direction before claims fail (0: unlimited), to exercise "link full". */
    int capacity;
    /** Frame types never lost (still delayed and duplicated), e.g. RST when a test needs it to arrive. */
    boolean[] lossless = new boolean[256];

    /** Scripted loss: frames (whole bytes, header first) this says true for are dropped, on any link. */
    Predicate<byte[]> dropIf = f -> false;

    final SimLink a;
    final SimLink b;
    private long order;

    SimNetwork(long seed, boolean reliable, int maxFrameLength) {
        this.random = SimSeeds.random(seed, 0);
        this.reliable = reliable;
        // an arbitrary origin, negative for some seeds, as System.nanoTime() may be
        this.now = random.nextLong() >> 2;
        // a stream of its own, so that the seeds' other draws stay what they were
        java.util.Random ends = SimSeeds.random(seed, 10);
        this.a = new SimLink(this, "a", maxFrameLength, random.nextBoolean(), !reliable && ends.nextBoolean());
        this.b = new SimLink(this, "b", maxFrameLength, random.nextBoolean(), !reliable && ends.nextBoolean());
        a.peer = b;
        b.peer = a;
    }

    LongSupplier clock() {
        return () -> now;
    }

    /** Queues a committed frame towards {@code to}, applying the impairments. */
    void send(SimLink to, byte[] frame) {
        if (to.closed) {
            return; // a dead end receives nothing
        }
        if (dropIf.test(frame)) {
            to.lost++;
            return;
        }
        // jitter varies the delay but keeps order, as on a real wire; only the reorder draw reorders
        long at = Math.max(now + baseDelay + (jitter > 0 ? (long) (random.nextDouble() * jitter) : 0), to.lastDeliveryAt);
        if (reliable) {
            to.lastDeliveryAt = at;
            enqueue(to, frame, at);
            return;
        }
        if (random.nextDouble() < loss && !(frame.length > 0 && lossless[frame[0] & 0xff])) {
            to.lost++;
            return;
        }
        if (random.nextDouble() < reorder) {
            at += 1 + (long) (random.nextDouble() * reorderDelay); // overtaken by later frames
        } else {
            to.lastDeliveryAt = at;
        }
        enqueue(to, frame, at);
        if (random.nextDouble() < duplicate) {
            to.duplicated++;
            long again = at + 1 + (long) (random.nextDouble() * (jitter + reorderDelay + baseDelay));
            enqueue(to, frame.clone(), again);
        }
    }

    /** Puts a frame straight into {@code to}'s queue for delivery at {@code at}, bypassing impairments. */
    void enqueue(SimLink to, byte[] frame, long at) {
        to.incoming.add(new InFlight(frame, at, order++));
        to.queuedBytes += frame.length;
    }

    @Override
    public String toString() {
        return "SimNetwork[now=" + now + ", reliable=" + reliable + ", loss=" + loss + ", dup=" + duplicate
                + ", reorder=" + reorder + ", delay=" + baseDelay + "+" + jitter + "+" + reorderDelay
                + ", capacity=" + capacity + "]\n  " + a + "\n  " + b;
    }

    /** A frame on the wire. */
    record InFlight(byte[] frame, long at, long order) implements Comparable<InFlight> {
        @Override
        public int compareTo(InFlight o) {
            int c = Long.compare(at, o.at);
            return c != 0 ? c : Long.compare(order, o.order);
        }
    }

    static PriorityQueue<InFlight> queue() {
        return new PriorityQueue<>();
    }
}
