package io.sovia.shm;

import io.sovia.spi.config.SoviaLog;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Segments made ahead of connects. Making one writes every page of it (so a full /dev/shm fails the
 * connect cleanly rather than faulting later), about 1.3 ms for 2 MiB here, which was a third of a
 * short connection's cost; a background thread now pays it between connects. Spares are files of this
 * process like any segment: removed at exit, and by the next Sovia JVM of the user after a crash.
 */
final class ShmSpares {
    private final ShmDirectory directory;
    private final int wanted;
    /** Ready segments; guarded by {@code this}, like {@link #closed} and {@link #making}. */
    private final Deque<Spare> ready = new ArrayDeque<>();
    private boolean closed;
    private boolean making;

    /** A segment file and its mapping. */
    record Spare(Path file, ShmSegment segment) {
    }

    /** @param wanted how many spares to keep; 0 makes every segment at connect */
    ShmSpares(ShmDirectory directory, int wanted) {
        this.directory = directory;
        this.wanted = wanted;
    }

    /** A new segment with rings of {@code capacity}: a spare if one is ready, else made now. */
    Spare take(int capacity) throws IOException {
        Spare spare;
        synchronized (this) {
            spare = ready.pollFirst();
            while (spare != null && spare.segment().capacity() != capacity) {
                ShmTransport.deleteQuietly(spare.file()); // made before the ring size changed
                spare = ready.pollFirst();
            }
            if (wanted > 0 && !making && !closed) {
                making = true;
                Thread maker = new Thread(() -> make(capacity), "sovia-shm-spares");
                maker.setDaemon(true);
                maker.start();
            }
        }
        return spare != null ? spare : create(capacity);
    }

    private Spare create(int capacity) throws IOException {
        Path file = directory.newSegment();
        return new Spare(file, ShmSegment.create(file, capacity));
    }

    private void make(int capacity) {
        try {
            while (true) {
                synchronized (this) {
                    if (closed || ready.size() >= wanted) {
                        return;
                    }
                }
                Spare spare = create(capacity);
                synchronized (this) {
                    if (closed) {
                        ShmTransport.deleteQuietly(spare.file());
                        return;
                    }
                    ready.addLast(spare);
                }
            }
        } catch (IOException | RuntimeException e) {
            // e.g. /dev/shm full: connects make their own segment, and fall back to TCP if that fails too
            SoviaLog.debugOnce("shm-spares", "cannot make a spare segment: " + e);
        } finally {
            synchronized (this) {
                making = false;
            }
        }
    }

    /** Removes the spares; none is made after this. */
    synchronized void close() {
        closed = true;
        for (Spare spare : ready) {
            ShmTransport.deleteQuietly(spare.file());
        }
        ready.clear();
    }
}
