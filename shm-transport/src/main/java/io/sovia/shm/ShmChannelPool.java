package io.sovia.shm;

import io.sovia.spi.config.SoviaConfig;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The client's closed shm connections, kept per listener for the next connect to it: the UNIX socket and the
 * segment, which the server keeps too ({@link ShmIdleChannels}). A new connection then costs a hello on the kept
 * socket, not a socket, a connect, an accept, a memory file, two mappings and a descriptor hand-over (the
 * reason sequential connects took 3.6x TCP's time). A kept connection is reused only once both ends released it
 * ({@link ShmSegment#bothReleased()}): nobody touches its rings, so the client may reset them.
 *
 * <p>Kept at most {@code sovia.shm.keep} per listener for {@code sovia.shm.keep.millis}. The doorbell agent watches
 * each kept socket and closes it at once when the server closes its end (its listener closed, or its process died),
 * and {@linkplain #sweep() sweeps} the expired each second. Closing the socket is what tells the server to drop its
 * end.
 */
final class ShmChannelPool {
    /** This JVM's kept connections. */
    static final ShmChannelPool KEPT = new ShmChannelPool(SoviaConfig.shmKeep(), SoviaConfig.shmKeepNanos());

    /**
     * A kept connection: its socket, the socket's registration with the doorbell agent and its segment, since
     * {@code since} ({@link System#nanoTime()}).
     */
    record Kept(SocketChannel unix, ShmDoorbells.Registration registration, ShmSegment segment, long since) {
    }

    private final int perListener;
    private final long keepNanos;
    /** By listener socket file (a listener bound again at the same path is another), oldest first; guarded by this. */
    private final Map<ShmDirectory.ListenerSocket, ArrayDeque<Kept>> kept = new HashMap<>();

    ShmChannelPool(int perListener, long keepNanos) {
        this.perListener = perListener;
        this.keepNanos = keepNanos;
    }

    /**
     * Keeps a closed connection to {@code listener}, whose registration then closes it when the server closes its
     * end; false when full, and the caller closes it.
     */
    synchronized boolean give(ShmDirectory.ListenerSocket listener, SocketChannel unix,
            ShmDoorbells.Registration registration, ShmSegment segment) {
        ArrayDeque<Kept> queue = kept.computeIfAbsent(listener, l -> new ArrayDeque<>());
        if (queue.size() >= perListener) {
            return false;
        }
        Kept k = new Kept(unix, registration, segment, System.nanoTime());
        try {
            registration.answerHangUp(() -> hungUp(listener, k));
        } catch (IOException e) {
            return false;
        }
        queue.addLast(k);
        return true;
    }

    /** The server closed a kept connection's end. */
    private void hungUp(ShmDirectory.ListenerSocket listener, Kept k) {
        boolean wasKept;
        synchronized (this) {
            ArrayDeque<Kept> queue = kept.get(listener);
            wasKept = queue != null && queue.remove(k);
        }
        if (wasKept) {
            close(k);
        }
    }

    /**
     * A kept connection to {@code listener} that both ends released, its rings reset for the next connection and
     * its socket alive, or null. Doorbell bytes its previous connection left on the socket are dropped here.
     */
    Kept take(ShmDirectory.ListenerSocket listener) {
        Kept k;
        while ((k = takeReleased(listener)) != null) {
            if (drain(k.unix())) {
                k.segment().resetForReuse();
                return k;
            }
            close(k);
        }
        return null;
    }

    private synchronized Kept takeReleased(ShmDirectory.ListenerSocket listener) {
        ArrayDeque<Kept> queue = kept.get(listener);
        if (queue == null) {
            return null;
        }
        for (Iterator<Kept> it = queue.iterator(); it.hasNext(); ) {
            Kept k = it.next();
            if (k.segment().bothReleased()) {
                it.remove();
                k.registration().park();
                return k;
            }
        }
        return null;
    }

    /** How many connections to listeners at {@code path} are kept. */
    synchronized int kept(Path path) {
        int n = 0;
        for (Map.Entry<ShmDirectory.ListenerSocket, ArrayDeque<Kept>> e : kept.entrySet()) {
            n += e.getKey().path().equals(path) ? e.getValue().size() : 0;
        }
        return n;
    }

    /** Closes the expired; by the doorbell agent. */
    void sweep() {
        sweep(System.nanoTime());
    }

    /** Closes those expired at {@code now} ({@link System#nanoTime()}). */
    void sweep(long now) {
        List<Kept> gone = new ArrayList<>();
        synchronized (this) {
            for (Iterator<ArrayDeque<Kept>> queues = kept.values().iterator(); queues.hasNext(); ) {
                ArrayDeque<Kept> queue = queues.next();
                queue.removeIf(k -> now - k.since() >= keepNanos && gone.add(k));
                if (queue.isEmpty()) {
                    queues.remove();
                }
            }
        }
        gone.forEach(ShmChannelPool::close);
    }

    /** Closes every kept connection: the JVM exits. */
    void closeAll() {
        List<Kept> all = new ArrayList<>();
        synchronized (this) {
            kept.values().forEach(all::addAll);
            kept.clear();
        }
        all.forEach(ShmChannelPool::close);
    }

    /** Takes what the socket holds without blocking; false once the server closed its end. */
    private static boolean drain(SocketChannel unix) {
        ByteBuffer bytes = ByteBuffer.allocate(64);
        try {
            int n;
            do {
                bytes.clear();
                n = unix.read(bytes);
            } while (n > 0);
            return n == 0;
        } catch (IOException gone) {
            return false;
        }
    }

    /**
     * Lets a kept connection go: its socket closes, which tells the server; its memory is freed now if the server
     * released it too, else by the server's release, which then sees this end gone.
     */
    static void close(Kept k) {
        k.registration().release();
        ShmTransport.closeQuietly(k.unix());
        if (k.segment().bothReleased()) {
            k.segment().discard();
        }
    }
}
