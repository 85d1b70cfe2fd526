package io.sovia.shm;

import io.sovia.spi.jdk.JdkNio;
import io.sovia.spi.os.NativeOs;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.util.HashMap;
import java.util.Map;

/**
 * A listener's closed shm connections whose client kept them for its next connect ({@link ShmChannelPool}): each
 * waits, in an epoll set of the listener's own, for the hello of its next connection or for its client to close
 * it. An accept then finds a hello on a kept socket with one {@code epoll_wait}, however many are kept. Guarded by
 * the listener's lock.
 */
final class ShmIdleChannels {
    private static final int BATCH = 64;

    /** What a kept socket brought: the next connection's hello, or its end. */
    interface Arrivals {
        /** A client's next connection over {@code unix} and {@code segment}. */
        void hello(SocketChannel unix, ShmHello hello, ShmSegment segment);

        /** Bytes that are no reused hello came, or a descriptor with them; the socket is closed. */
        void refused(IOException why);
    }

    /** A kept socket; {@code watch}: its registration with the doorbell agent. */
    private record Idle(long id, int fd, SocketChannel unix, ShmSegment segment, PartialHello partial, long watch) {
    }

    private final NativeOs os;
    private final ShmDoorbells doorbells;
    /** Runs on the doorbell agent's thread when a kept socket's client closes it: takes the lock, then {@link #hungUp}. */
    private final java.util.function.LongConsumer onHangUp;
    private final Map<Long, Idle> idle = new HashMap<>();
    private final long[] readyData = new long[BATCH];
    private final int[] readyEvents = new int[BATCH];
    /** Made with the first kept connection; -1 before and once closed. */
    private int epoll = -1;
    private long ids;

    ShmIdleChannels(NativeOs os, ShmDoorbells doorbells, java.util.function.LongConsumer onHangUp) {
        this.os = os;
        this.doorbells = doorbells;
        this.onHangUp = onHangUp;
    }

    /** Keeps a closed connection's socket and segment for its client's next hello. */
    void keep(SocketChannel unix, ShmSegment segment) throws IOException {
        if (epoll < 0) {
            epoll = os.epollCreate();
        }
        long id = ++ids;
        long watch = doorbells.watchHangUp(unix, () -> onHangUp.accept(id));
        Idle i = new Idle(id, JdkNio.fd(unix), unix, segment, new PartialHello(), watch);
        try {
            os.epollControl(epoll, NativeOs.EPOLL_CTL_ADD, i.fd(), NativeOs.EPOLLIN | NativeOs.EPOLLRDHUP, id);
        } catch (IOException e) {
            doorbells.unwatchHangUp(watch, unix);
            throw e;
        }
        idle.put(id, i);
    }

    /** The client closed kept socket {@code id}, which may have gone meanwhile. */
    void hungUp(long id) {
        Idle i = idle.get(id);
        if (i != null) {
            drop(i);
        }
    }

    /** Collects what arrived on kept sockets, without blocking. */
    void collect(Arrivals arrivals) {
        if (epoll < 0 || idle.isEmpty()) {
            return;
        }
        int n;
        do {
            try {
                n = os.epollWait(epoll, readyData, readyEvents, 0);
            } catch (IOException e) {
                arrivals.refused(e);
                return;
            }
            for (int r = 0; r < n; r++) {
                Idle i = idle.get(readyData[r]);
                if (i != null) {
                    read(i, arrivals);
                }
            }
        } while (n == BATCH);
    }

    private void read(Idle i, Arrivals arrivals) {
        try {
            boolean open = i.partial().read(i.unix());
            if (i.partial().segment() >= 0) {
                throw new IOException("a descriptor on a kept connection");
            }
            ShmHello hello = i.partial().hello();
            if (hello != null) {
                if (!hello.reused()) {
                    throw new IOException("a new connection's hello on a kept one");
                }
                forget(i);
                i.segment().reopened();
                arrivals.hello(i.unix(), hello, i.segment());
            } else if (!open) {
                drop(i);
            }
        } catch (IOException | RuntimeException e) {
            drop(i);
            arrivals.refused(e instanceof IOException io ? io : new IOException(e));
        }
    }

    private void forget(Idle i) {
        idle.remove(i.id());
        doorbells.unwatchHangUp(i.watch(), i.unix());
        try {
            os.epollControl(epoll, NativeOs.EPOLL_CTL_DEL, i.fd(), 0, i.id());
        } catch (IOException ignored) {
            // the socket goes on to its next connection or closes; either way it is no longer idle here
        }
    }

    /** The client let the kept connection go (or broke it): nobody uses its rings, so its memory goes now. */
    private void drop(Idle i) {
        forget(i);
        if (i.partial().segment() >= 0) {
            os.closeFd(i.partial().segment());
        }
        ShmTransport.closeQuietly(i.unix());
        i.segment().discard();
    }

    /** The listener closed: every kept socket closes, which tells its client. */
    void close() {
        for (Idle i : idle.values().toArray(Idle[]::new)) {
            drop(i);
        }
        if (epoll >= 0) {
            os.closeFd(epoll);
            epoll = -1;
        }
    }
}
