package io.sovia.shm;

import io.sovia.spi.jdk.JdkNio;
import io.sovia.spi.os.NativeOs;

import java.io.IOException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.HashMap;
import java.util.Map;

/**
 * A listener's closed shm connections whose client kept them for its next connect ({@link ShmChannelPool}): each
 * waits, in an epoll set of the listener's own, for the hello of its next connection or for its client to close
 * it. The listener's setup socket is in that set too, so an accept learns with one {@code epoll_wait} whether a
 * hello came on a kept socket, however many are kept, and whether new setup connections wait. A kept socket stays in
 * the set while it carries a connection, one-shot: the hello that brings its next connection disables it, and the
 * connection's end re-arms it, one system call per connection rather than an entry added and removed. Guarded by
 * the listener's lock.
 */
final class ShmIdleChannels {
    private static final int BATCH = 64;
    /** The epoll data of the listener's setup socket; kept sockets count from 1. */
    private static final long SETUP = 0;
    private static final int ARMED = NativeOs.EPOLLIN | NativeOs.EPOLLRDHUP | NativeOs.EPOLLONESHOT;

    /** What a kept socket brought: the next connection's hello, or its end. */
    interface Arrivals {
        /** A client's next connection over {@code unix}, whose registration answers nothing now, and {@code segment}. */
        void hello(SocketChannel unix, ShmDoorbells.Registration registration, ShmHello hello, ShmSegment segment);

        /** Bytes that are no reused hello came, or a descriptor with them; the socket is closed. */
        void refused(IOException why);
    }

    /** A kept socket; {@code registration}: its registration with the doorbell agent. */
    private record Idle(long id, int fd, SocketChannel unix, ShmDoorbells.Registration registration,
            ShmSegment segment, PartialHello partial) {
    }

    private final NativeOs os;
    private final ServerSocketChannel setup;
    /** Runs on the doorbell agent's thread when a kept socket's client closes it: takes the lock, then {@link #hungUp}. */
    private final java.util.function.LongConsumer onHangUp;
    private final Map<Long, Idle> idle = new HashMap<>();
    private final long[] readyData = new long[BATCH];
    private final int[] readyEvents = new int[BATCH];
    /** Made with the first kept connection; -1 before and once closed. */
    private int epoll = -1;
    private long ids = SETUP;

    /** For the listener whose setup socket is {@code setup}. */
    ShmIdleChannels(NativeOs os, ServerSocketChannel setup, java.util.function.LongConsumer onHangUp) {
        this.os = os;
        this.setup = setup;
        this.onHangUp = onHangUp;
    }

    /** Keeps a closed connection's socket, its registration and its segment for its client's next hello. */
    void keep(SocketChannel unix, ShmDoorbells.Registration registration, ShmSegment segment) throws IOException {
        if (epoll < 0) {
            int set = os.epollCreate();
            try {
                os.epollControl(set, NativeOs.EPOLL_CTL_ADD, JdkNio.fd(setup), NativeOs.EPOLLIN, SETUP);
            } catch (IOException e) {
                os.closeFd(set);
                throw e;
            }
            epoll = set;
        }
        long id = ++ids;
        Idle i = new Idle(id, JdkNio.fd(unix), unix, registration, segment, new PartialHello());
        os.epollSet(epoll, i.fd(), ARMED, id);
        registration.answerHangUp(() -> onHangUp.accept(id));
        idle.put(id, i);
    }

    /** The client closed kept socket {@code id}, which may have gone meanwhile. */
    void hungUp(long id) {
        Idle i = idle.get(id);
        if (i != null) {
            drop(i, true);
        }
    }

    /**
     * Collects what arrived on kept sockets, without blocking; whether new setup connections may wait (always, before
     * the first kept connection made the set).
     */
    boolean collect(Arrivals arrivals) {
        if (epoll < 0) {
            return true;
        }
        boolean setupReady = false;
        int n;
        do {
            try {
                n = os.epollWait(epoll, readyData, readyEvents, 0);
            } catch (IOException e) {
                arrivals.refused(e);
                return true;
            }
            for (int r = 0; r < n; r++) {
                if (readyData[r] == SETUP) {
                    setupReady = true;
                    continue;
                }
                Idle i = idle.get(readyData[r]);
                if (i != null) {
                    read(i, arrivals);
                }
            }
        } while (n == BATCH);
        return setupReady;
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
                idle.remove(i.id());
                i.registration().park();
                i.segment().reopened();
                arrivals.hello(i.unix(), i.registration(), hello, i.segment());
            } else if (!open) {
                drop(i, true);
            } else {
                os.epollSet(epoll, i.fd(), ARMED, i.id());
            }
        } catch (IOException | RuntimeException e) {
            drop(i, true);
            arrivals.refused(e instanceof IOException io ? io : new IOException(e));
        }
    }

    /**
     * Closes a kept socket. Its memory goes now only if nobody can touch the rings: the client let the connection go
     * (or broke it), or released it too. Kept here means only that the server is done: the client may still be
     * reading what the server sent last (an FTP server closes a download's connection, then its passive listener,
     * while the client reads the file's tail); the client then sees this end gone, and its own release frees them.
     */
    private void drop(Idle i, boolean clientGone) {
        idle.remove(i.id());
        i.registration().release();
        try {
            os.epollControl(epoll, NativeOs.EPOLL_CTL_DEL, i.fd(), 0, i.id());
        } catch (IOException ignored) {
            // not in the set: it is closing anyway
        }
        if (i.partial().segment() >= 0) {
            os.closeFd(i.partial().segment());
        }
        ShmTransport.closeQuietly(i.unix());
        if (clientGone || i.segment().bothReleased()) {
            i.segment().discard();
        }
    }

    /** The listener closed: every kept socket closes, which tells its client. */
    void close() {
        for (Idle i : idle.values().toArray(Idle[]::new)) {
            drop(i, false);
        }
        if (epoll >= 0) {
            os.closeFd(epoll);
            epoll = -1;
        }
    }
}
