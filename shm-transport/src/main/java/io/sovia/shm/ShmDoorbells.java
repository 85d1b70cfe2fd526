package io.sovia.shm;

import io.sovia.spi.jdk.JdkEpoll;
import io.sovia.spi.jdk.JdkNio;
import io.sovia.spi.lifecycle.ExitStage;
import io.sovia.spi.lifecycle.Lifecycle;
import io.sovia.spi.link.RingLink;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NoOpIdleStrategy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The per-JVM doorbell agent, under the {@code Lifecycle}: one epoll over the UNIX socket of every shared-memory
 * connection. A byte on it means "the peer published frames while you slept": the link's session wakes its
 * sleepers. End of stream or an error means the peer process is gone: the link is marked dead at once, which the
 * survivor's next call reports as "Connection reset".
 *
 * <p>While every sleeper of a connection sleeps on its doorbell in the kernel itself, the agent watches that socket
 * for the peer's end only ({@link JdkEpoll#RDHUP}, not {@link JdkEpoll#IN}), so a ring wakes the sleeper alone
 * and not this thread too: a JDK selector cannot ask for that, hence the raw epoll.
 */
final class ShmDoorbells implements Agent {
    /** The agent sleeps in epoll, never in its idle strategy. */
    private static final IdleStrategy NO_IDLE = new NoOpIdleStrategy();

    /** How often the listeners' hellos are swept (ShmListener.sweepAll). */
    private static final int SWEEP_MILLIS = 1000;
    private static final int EVENTS = 256;

    private static volatile ShmDoorbells instance;

    private final JdkEpoll epoll;
    /** Written at exit, so the agent leaves its wait at once. */
    private final Pipe wakeup;
    private final int wakeupFd;
    private final ByteBuffer wakeupBytes = ByteBuffer.allocate(64);
    /** Watched connections by their socket's descriptor. */
    private final Map<Integer, Watch> watches = new ConcurrentHashMap<>();
    /** When the next sweep is due ({@link System#nanoTime()}); the agent's thread only. */
    private long nextSweep = System.nanoTime();
    private volatile boolean stopping;

    private ShmDoorbells() throws IOException {
        this.epoll = new JdkEpoll(EVENTS);
        this.wakeup = JdkNio.provider().openPipe();
        wakeup.source().configureBlocking(false);
        this.wakeupFd = JdkEpoll.fd(wakeup.source());
        epoll.add(wakeupFd, JdkEpoll.IN);
        Lifecycle.start(this, NO_IDLE);
        Lifecycle.onExit(ExitStage.CLOSE, this::stop);
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
        Watch watch = new Watch(channel, JdkEpoll.fd(channel), link, onDeath);
        synchronized (watch) {
            watches.put(watch.fd, watch);
            epoll.add(watch.fd, JdkEpoll.IN | JdkEpoll.RDHUP);
        }
        link.watchedBy(watch);
    }

    /** Closes a watched channel (or one never watched); its descriptor is released now. */
    void close(SocketChannel channel) {
        Watch watch = watches.get(JdkEpoll.fd(channel));
        if (watch != null && watch.channel == channel) {
            watch.close();
        } else {
            ShmTransport.closeQuietly(channel);
        }
    }

    @Override
    public String roleName() {
        return "sovia-doorbells";
    }

    /** Sleeps in epoll until a doorbell rings, a peer ends, or the next sweep of the listeners' hellos is due. */
    @Override
    public int doWork() throws IOException {
        int n = epoll.await(stopping ? 0 : SWEEP_MILLIS);
        long now = System.nanoTime();
        if (now - nextSweep >= 0) {
            nextSweep = now + SWEEP_MILLIS * 1_000_000L;
            ShmListener.sweepAll();
        }
        for (int i = 0; i < n; i++) {
            int fd = epoll.descriptor(i);
            if (fd == wakeupFd) {
                wakeupBytes.clear();
                wakeup.source().read(wakeupBytes);
                continue;
            }
            Watch watch = watches.get(fd);
            if (watch != null) {
                watch.answer();
            }
        }
        return n;
    }

    /** The exit: the agent stops waiting, so the runner that stops it next need not wait for the sweep timer. */
    private void stop() {
        stopping = true;
        try {
            wakeup.sink().write(ByteBuffer.wrap(new byte[] {1}));
        } catch (IOException ignored) {
            // then the agent leaves its wait within a sweep interval
        }
    }

    @Override
    public void onClose() {
        try {
            epoll.close();
            wakeup.source().close();
            wakeup.sink().close();
        } catch (IOException ignored) {
            // the process is ending; the descriptors go with it
        }
    }

    /**
     * A watched connection: its link, and what else to do when its peer dies. Its monitor orders changes of its
     * epoll registration against the close of its socket, so a descriptor number reused by a later connection is
     * never changed on this one's behalf.
     */
    private final class Watch implements RingLink.DoorbellWatcher {
        final SocketChannel channel;
        final int fd;
        final RingLink link;
        final Runnable onDeath;
        /** Whether epoll watches the socket; guarded by this. */
        private boolean registered = true;
        /** Whether the sleepers alone watch the bytes; guarded by this. */
        private boolean quiet;

        Watch(SocketChannel channel, int fd, RingLink link, Runnable onDeath) {
            this.channel = channel;
            this.fd = fd;
            this.link = link;
            this.onDeath = onDeath;
        }

        @Override
        public synchronized void sleepersWatch(boolean all) {
            if (registered && all != quiet && epoll.modify(fd, all ? JdkEpoll.RDHUP : JdkEpoll.IN | JdkEpoll.RDHUP)) {
                quiet = all;
            }
        }

        synchronized void close() {
            registered = false;
            watches.remove(fd, this);
            ShmTransport.closeQuietly(channel);
        }

        /**
         * On the agent's thread: bytes wake the link's sleepers; the end of the socket (checked by reading, never
         * from the event's bits, which may be a reused descriptor's) is the peer's death.
         */
        void answer() {
            synchronized (this) {
                if (!registered) {
                    return;
                }
            }
            if (link.drainDoorbell()) {
                link.wake();
                return;
            }
            synchronized (this) {
                if (!registered) {
                    return;
                }
                registered = false;
                epoll.remove(fd);
            }
            // clean up first: the woken survivor may exit at once
            onDeath.run();
            link.peerDied();
        }
    }
}
