package io.sovia.spi.ops;

import io.sovia.spi.engine.Session;
import io.sovia.spi.engine.SessionActivity;
import io.sovia.spi.jfr.SoviaEvents;
import io.sovia.spi.stats.SoviaStats;
import io.sovia.spi.transport.PathKind;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This JVM's live accelerated listeners and connections, for {@code sovia ss}, the MBeans and the JFR events.
 * Entries are added and removed when a connection or listener begins and ends, never on the data path: what a
 * connection carried is read from its session when a listing is made.
 *
 * <p>Threading: any thread; the sets are concurrent and a listing is a snapshot.
 */
public final class LiveRegistry {
    private static final Set<Connection> CONNECTIONS = ConcurrentHashMap.newKeySet();
    private static final Set<Listener> LISTENERS = ConcurrentHashMap.newKeySet();

    private LiveRegistry() {
    }

    /** One accelerated connection, from its establishment until its link is released. */
    public static final class Connection implements SoviaStats.OwnCounts {
        final PathKind path;
        final InetSocketAddress local;
        final InetSocketAddress remote;
        final Session session;
        final long sinceMillis = System.currentTimeMillis();
        /** The app closed it; the session hands over what is left. */
        volatile boolean appClosed;

        private Connection(PathKind path, InetSocketAddress local, InetSocketAddress remote, Session session) {
            this.path = path;
            this.local = local;
            this.remote = remote;
            this.session = session;
        }

        @Override
        public PathKind path() {
            return path;
        }

        @Override
        public long bytesWritten() {
            return session.bytesWritten();
        }

        @Override
        public long bytesRead() {
            return session.bytesRead();
        }

        /** The session's state, or {@code closed} once the app closed it and the handover runs. */
        String state(SessionActivity activity) {
            return appClosed && "established".equals(activity.state()) ? "closed" : activity.state();
        }

        /** The app closed the connection; it stays listed until its link is released. */
        public void appClosed() {
            appClosed = true;
        }

        /** The link is released: the connection is gone. Idempotent. */
        public void released() {
            if (CONNECTIONS.remove(this)) {
                SoviaStats.ended(this);
                SessionActivity a = session.activity();
                SoviaEvents.closed(path.key(), LiveFile.address(local), LiveFile.address(remote), a.sent(),
                        a.received());
            }
        }
    }

    /** One listener taking connects on accelerated paths. */
    public static final class Listener {
        final InetSocketAddress bound;
        final List<PathKind> paths;
        final long sinceMillis = System.currentTimeMillis();

        private Listener(InetSocketAddress bound, List<PathKind> paths) {
            this.bound = bound;
            this.paths = paths;
        }

        /** The listener closed. Idempotent. */
        public void closed() {
            LISTENERS.remove(this);
        }
    }

    /** A connection was established on accelerated {@code path}; the caller tells the handle when it ends. */
    public static Connection opened(PathKind path, InetSocketAddress local, InetSocketAddress remote, Session session) {
        Connection c = new Connection(path, local, remote, session);
        CONNECTIONS.add(c);
        SoviaStats.counting(c);
        SoviaEvents.opened(path.key(), LiveFile.address(local), LiveFile.address(remote));
        LivePublisher.ensureStarted();
        return c;
    }

    /** A listener bound at {@code bound} takes connects on {@code paths}. */
    public static Listener listening(InetSocketAddress bound, List<PathKind> paths) {
        Listener l = new Listener(bound, List.copyOf(paths));
        LISTENERS.add(l);
        LivePublisher.ensureStarted();
        return l;
    }

    /**
     * A connect to {@code remote} went to TCP for {@code reason}: the JFR event, and the MBeans for a JVM whose
     * connects all fall back, which is the one an operator looks at.
     */
    public static void fellBack(String reason, SocketAddress remote) {
        SoviaEvents.fallback(reason, String.valueOf(remote));
        LivePublisher.ensureStarted();
    }

    /** Connections open now on {@code path}. */
    static long open(PathKind path) {
        return CONNECTIONS.stream().filter(c -> c.path == path).count();
    }

    static Set<Connection> connections() {
        return CONNECTIONS;
    }

    static Set<Listener> listeners() {
        return LISTENERS;
    }
}
