package io.sovia.shm;

import io.sovia.spi.engine.DoorbellSleep;
import io.sovia.spi.lifecycle.Lifecycle;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NoOpIdleStrategy;
import io.sovia.spi.link.RingLink;
import io.sovia.spi.jdk.JdkNio;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Iterator;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The per-JVM doorbell agent, under the {@code Lifecycle}: one JDK selector over the UNIX socket of every shared-memory
 * connection. A byte on it means "the peer published frames while you slept": the link's session wakes
 * its sleepers. End of stream or an error means the peer process is gone: the link is marked dead at
 * once, which the survivor's next call reports as "Connection reset".
 */
final class ShmDoorbells implements Agent {
    /** The agent sleeps in its selector, never in its idle strategy. */
    private static final IdleStrategy NO_IDLE = new NoOpIdleStrategy();

    /** How often the listeners' hellos are swept (ShmListener.sweepAll). */
    private static final long SWEEP_MILLIS = 1000;

    private static volatile ShmDoorbells instance;

    private final Selector selector;
    private final Queue<Watch> added = new ConcurrentLinkedQueue<>();
    /** When the next sweep is due ({@link System#nanoTime()}); the agent's thread only. */
    private long nextSweep = System.nanoTime();

    /** A watched connection: its link, and what else to do when its peer dies. */
    private record Watch(SocketChannel channel, RingLink link, Runnable onDeath) {
    }

    private ShmDoorbells() throws IOException {
        this.selector = JdkNio.provider().openSelector();
        Lifecycle.start(this, NO_IDLE);
    }

    static ShmDoorbells get() throws IOException {
        ShmDoorbells d = instance;
        if (d == null) {
            synchronized (ShmDoorbells.class) {
                d = instance;
                if (d == null) {
                    d = new ShmDoorbells();
                    instance = d;
                }
            }
        }
        return d;
    }

    /** Watches {@code channel} (made non-blocking here) for {@code link}; runs {@code onDeath} if the peer dies. */
    void watch(SocketChannel channel, RingLink link, Runnable onDeath) throws IOException {
        channel.configureBlocking(false);
        added.add(new Watch(channel, link, onDeath));
        selector.wakeup();
    }

    /** Closes a watched channel; the selector is woken so the descriptor is released now. */
    void close(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing is all that was wanted
        }
        selector.wakeup();
    }

    @Override
    public String roleName() {
        return "sovia-doorbells";
    }

    /**
     * Sleeps in epoll until a doorbell rings, a peer dies or a new connection is to be watched, or the next sweep
     * of the listeners' hellos is due.
     */
    @Override
    public int doWork() throws IOException {
        int work = selector.select(SWEEP_MILLIS);
        long now = System.nanoTime();
        if (now - nextSweep >= 0) {
            nextSweep = now + SWEEP_MILLIS * 1_000_000;
            ShmListener.sweepAll();
            DoorbellSleep.releaseEnded();
        }
        Watch w;
        while ((w = added.poll()) != null) {
            try {
                w.channel().register(selector, SelectionKey.OP_READ, w);
            } catch (ClosedChannelException closed) {
                // the connection ended before it was watched: nothing to watch
            }
        }
        for (Iterator<SelectionKey> it = selector.selectedKeys().iterator(); it.hasNext(); ) {
            SelectionKey key = it.next();
            it.remove();
            answer(key);
        }
        return work;
    }

    @Override
    public void onClose() {
        try {
            selector.close();
        } catch (IOException ignored) {
            // the process is ending; the descriptors go with it
        }
    }

    private void answer(SelectionKey key) {
        Watch watch = (Watch) key.attachment();
        RingLink link = watch.link();
        if (link.drainDoorbell()) {
            link.wake();
        } else {
            key.cancel();
            // clean up first: the woken survivor may exit at once
            watch.onDeath().run();
            link.peerDied();
        }
    }
}
