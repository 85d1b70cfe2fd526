package io.sovia.spi.route;

import io.sovia.spi.backend.SetupOptions;
import io.sovia.spi.backend.SessionBackend;
import io.sovia.spi.backend.Sessions;
import io.sovia.spi.config.BufferSizes;
import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.ops.LiveRegistry;
import io.sovia.spi.transport.Transport;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A Sovia listener's side of every transport that takes connects for it: the one claim of an accepted
 * connection, for {@code ServerSocketChannel} and {@code ServerSocket} alike.
 *
 * <p>Threading: claims may run on several accepting threads; {@link #close()} on any thread.
 */
public final class Listeners {
    /** A listener that takes no accelerated connects. */
    public static final Listeners NONE = new Listeners(List.of(), null);

    private record Listening(Transport transport, Transport.TransportListener listener) {
    }

    /** An accepted socket's option snapshot, and the count of options set on the listener when it was taken. */
    private record Inherited(int listenerChanges, SetupOptions options) {
    }

    private final List<Listening> listening;
    /** This listener in the JVM's live listing; null for {@link #NONE}. */
    private final LiveRegistry.Listener live;
    /** The last claimed connection's options; replaced by any accepting thread, a stale one only costs a snapshot. */
    private volatile Inherited inherited;

    private Listeners(List<Listening> listening, LiveRegistry.Listener live) {
        this.listening = listening;
        this.live = live;
    }

    /** A listener is bound at {@code bound}: its side of each transport; a failing transport is left out. */
    public static Listeners open(InetSocketAddress bound) {
        List<Listening> list = new ArrayList<>();
        for (Transport t : Transports.all()) {
            try {
                Transport.TransportListener l = t.listen(bound);
                if (l != null) {
                    list.add(new Listening(t, l));
                }
            } catch (IOException | RuntimeException e) {
                SoviaLog.warn("listener at " + bound + " takes no " + t.path().key() + " connects", e);
            }
        }
        if (list.isEmpty()) {
            return NONE;
        }
        return new Listeners(List.copyOf(list),
                LiveRegistry.listening(bound, list.stream().map(l -> l.transport().path()).toList()));
    }

    /**
     * An accept took a TCP connection from {@code remote} to {@code local}: the session of the first
     * transport a client offered it on, or null when it is plain TCP (the caller keeps the TCP
     * connection). On a session the caller closes the TCP connection itself.
     *
     * @param options the accepted TCP socket's options, which the session keeps; read only for a claimed
     *                connection (system calls), before the caller closes that socket
     * @param sizes   the buffer sizes the app set on the listener
     * @param changes {@code sizes.changes()} read before the kernel's accept: an option the app sets on the
     *                listener after that is not the accepted socket's, which must not be cached under it
     * @param listener reads the listener's own options (a system call; only when a snapshot is taken)
     */
    public SessionBackend claim(InetSocketAddress remote, InetSocketAddress local,
                                SetupOptions options, BufferSizes sizes, int changes, ListenerOption listener,
                                boolean interruptible) throws IOException {
        for (Listening l : listening) {
            Transport.Claimed claimed = l.listener().claim(remote);
            if (claimed != null) {
                return serve(l.transport(), claimed, remote, local, options, sizes, changes, listener,
                        interruptible);
            }
        }
        return null;
    }

    /** One of the listening socket's own options, read when {@link #claim} takes a new snapshot. */
    @FunctionalInterface
    public interface ListenerOption {
        Object get(SocketOption<?> option) throws IOException;
    }

    private SessionBackend serve(Transport transport, Transport.Claimed claimed, InetSocketAddress remote,
                                 InetSocketAddress local, SetupOptions options, BufferSizes sizes, int changes,
                                 ListenerOption listener, boolean interruptible) throws IOException {
        try {
            return Sessions.backend(Sessions.server(claimed.link(), sizes), transport.path(), local, remote,
                    claimed.lifetime(), inherited(options, changes, listener), interruptible);
        } catch (Exception e) {
            // the client already runs on the link: closing it resets the client instead of leaving it hanging
            claimed.link().close();
            Upgrade.closeQuietly(claimed.lifetime());
            throw e instanceof IOException io ? io
                    : new IOException("cannot take the connection from " + remote + " on its path", e);
        }
    }

    /**
     * The accepted socket's options, as a snapshot: the last claimed connection's while the app has set no option
     * on the listener since. An accepted socket inherits its options from its listener, so one snapshot serves them
     * all; it took 15 {@code getsockopt} calls per accept.
     */
    private SetupOptions inherited(SetupOptions accepted, int changes, ListenerOption listener) {
        Inherited last = inherited;
        if (last != null && last.listenerChanges() == changes) {
            return last.options();
        }
        SetupOptions snapshot = SetupOptions.snapshot(accepted);
        if (hasListenersValues(snapshot, listener)) {
            inherited = new Inherited(changes, snapshot);
        }
        return snapshot;
    }

    /**
     * Whether {@code snapshot} has the listener's current receive buffer, the option apps set on listeners for
     * their accepted sockets. The kernel copies a listener's options into a connection when its handshake completes,
     * not at the accept: one that waited in the backlog while the app set an option has the older value, and cached
     * under the newer option count it would stand for the connections after it.
     */
    private static boolean hasListenersValues(SetupOptions snapshot, ListenerOption listener) {
        try {
            return Objects.equals(snapshot.get(StandardSocketOptions.SO_RCVBUF),
                    listener.get(StandardSocketOptions.SO_RCVBUF));
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    /** The listener closed: connects offered to it and never claimed are reset. */
    public void close() {
        for (Listening l : listening) {
            l.listener().close();
        }
        if (live != null) {
            live.closed();
        }
    }
}
