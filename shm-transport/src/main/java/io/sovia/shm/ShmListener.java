package io.sovia.shm;

import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.link.RingLink;
import io.sovia.spi.jdk.JdkNio;
import io.sovia.spi.os.NativeAccess;
import io.sovia.spi.stats.SoviaStats;
import io.sovia.spi.transport.PendingOffers;
import io.sovia.spi.transport.Transport;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A Sovia listener's shared-memory side: a UNIX socket at the listener's well-known path, where local
 * clients leave their {@link ShmHello} before their TCP setup. An accept that takes a TCP connection
 * looks for the hello with that connection's address; the kernel queued it before the TCP connect, so
 * it is already there. Only processes of this user get in: the directory is 0700 and SO_PEERCRED is
 * checked anyway.
 */
final class ShmListener implements Transport.TransportListener {
    /** This JVM's open listeners, closed at exit when the app did not close them. */
    private static final Set<ShmListener> OPEN = ConcurrentHashMap.newKeySet();

    private final java.nio.file.Path socket;
    private final ServerSocketChannel unixServer;
    private final int selfUid;
    /** Hellos read and not yet claimed, by client address; changed under {@code this}. */
    private final PendingOffers<Pending> hellos = new PendingOffers<>();

    /**
     * A hello waiting for the accept of its TCP connection, since {@code since} ({@link System#nanoTime()}),
     * with the descriptor of its segment, which whoever drops or claims it closes.
     */
    private record Pending(SocketChannel unix, ShmHello hello, int segment, long since) {
    }

    /** A UNIX connection whose hello is still arriving; its bytes and descriptor so far. */
    private static final class Partial {
        final byte[] bytes = new byte[ShmHello.MAX_LENGTH];
        final long since = System.nanoTime();
        final int[] received = new int[1];
        int length;
        int segment = -1;

        /** Reads what is there; false at end of stream. */
        boolean read(SocketChannel ch) throws IOException {
            int n = NativeAccess.os().receiveWithDescriptors(JdkNio.fd(ch), bytes, length, bytes.length - length, received);
            if (received[0] >= 0) {
                if (segment >= 0) {
                    NativeAccess.os().closeFd(received[0]);
                    throw new IOException("a second descriptor");
                }
                segment = received[0];
            }
            length += Math.max(n, 0);
            return n >= 0;
        }
    }

    /** A client writes its hello before its TCP connect; one silent this long is no client. */
    private static final long SILENCE_NANOS = 10_000_000_000L;
    /** Connections whose hello is incomplete; guarded by {@code this}. */
    private final Map<SocketChannel, Partial> partial = new HashMap<>();
    private final long helloTtlNanos = SoviaConfig.shmHelloTtlNanos();

    private ShmListener(ShmDirectory directory, java.nio.file.Path socket, ServerSocketChannel unixServer)
            throws IOException {
        this.socket = socket;
        this.unixServer = unixServer;
        this.selfUid = (Integer) Files.getAttribute(directory.path(), "unix:uid");
    }

    /** Opens the UNIX socket for a listener bound at {@code bound}; null if a live listener owns it. */
    static ShmListener open(ShmDirectory directory, InetSocketAddress bound) throws IOException {
        java.nio.file.Path socket = directory.listenerSocket(bound);
        if (Files.exists(socket)) {
            if (ShmDirectory.accepting(socket)) {
                SoviaLog.warn("another process listens at " + bound + "; this listener takes no shm connects", null);
                return null;
            }
            Files.deleteIfExists(socket);
        }
        ServerSocketChannel server = JdkNio.provider().openServerSocketChannel(StandardProtocolFamily.UNIX);
        try {
            // a burst of connects must not overflow the queue (the JDK's default is 50): each one
            // waits there until the accept of its TCP connection collects it
            server.bind(UnixDomainSocketAddress.of(socket), 4096);
            Files.setPosixFilePermissions(socket, ShmDirectory.FILE);
            server.configureBlocking(false);
            ShmListener listener = new ShmListener(directory, socket, server);
            OPEN.add(listener);
            // its agent sweeps the hellos of listeners that accept nothing (see sweepAll)
            ShmDoorbells.get();
            return listener;
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    @Override
    public synchronized Transport.Claimed claim(InetSocketAddress remote) {
        drain();
        Pending p = hellos.claim(remote);
        if (p == null) {
            return null;
        }
        try {
            ShmSegment segment = ShmSegment.open(p.segment());
            RingLink link = ShmTransport.link(segment.clientToServer(), segment.serverToClient(), p.unix());
            return new Transport.Claimed(link, ShmDoorbells.get().watch(p.unix(), link, segment, () -> { }));
        } catch (IOException | RuntimeException e) {
            // the client already moved to the segment: closing its socket resets it instead of leaving it hanging
            SoviaStats.refused("shm segment");
            SoviaLog.warnCounted("shm-segment", "cannot take an shm connection (from " + remote + "); it is reset", e);
            ShmTransport.closeQuietly(p.unix());
            return null;
        }
    }

    /**
     * Takes every queued UNIX connection of this user and collects its hello without blocking, so a
     * silent or slow local process cannot stall accepts; one still silent after a while is dropped.
     */
    private void drain() {
        SocketChannel c;
        while ((c = acceptSetup()) != null) {
            try {
                if (NativeAccess.os().peerUid(JdkNio.fd(c)) != selfUid) {
                    // the directory is 0700, so only root or a leak of the socket gets here; names only for the log
                    UnixDomainPrincipal peer = c.getOption(ExtendedSocketOptions.SO_PEERCRED);
                    refused(c, null, "shm peer user", new IOException("peer " + peer.user() + " is not "
                            + Files.getOwner(socket.getParent())));
                    continue;
                }
                c.configureBlocking(false);
                partial.put(c, new Partial());
            } catch (IOException | RuntimeException e) {
                refused(c, null, "shm hello", e);
            }
        }
        for (Iterator<Map.Entry<SocketChannel, Partial>> it = partial.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<SocketChannel, Partial> e = it.next();
            SocketChannel ch = e.getKey();
            Partial p = e.getValue();
            try {
                boolean open = p.read(ch);
                ShmHello hello = ShmHello.parse(p.bytes, p.length);
                if (hello != null) {
                    if (p.segment < 0) {
                        throw new IOException("a hello without its segment");
                    }
                    it.remove();
                    Pending old = hellos.put(hello.client(), new Pending(ch, hello, p.segment, System.nanoTime()));
                    if (old != null) {
                        dropUnclaimed(old);
                    }
                } else if (!open && p.length == 0 && p.segment < 0) {
                    // a probe of whether this listener lives (ShmDirectory.accepting), not a client
                    it.remove();
                    ShmTransport.closeQuietly(ch);
                } else if (!open || System.nanoTime() - p.since > SILENCE_NANOS) {
                    throw new IOException("no hello");
                }
            } catch (IOException | RuntimeException x) {
                it.remove();
                refused(ch, p, "shm hello", x);
            }
        }
        // only by age: a hello whose client died is still claimed by the accept of its TCP connection, which
        // then ends with "Connection reset" as TCP's would, not with the setup connection's end of stream
        long now = System.nanoTime();
        hellos.removeIf((client, p) -> {
            if (now - p.since() < helloTtlNanos) {
                return false;
            }
            dropUnclaimed(p);
            return true;
        });
    }

    /**
     * The next queued setup connection, or null. Out of descriptors (EMFILE) is no reason to stop collecting
     * and expiring the hellos already taken: that is what frees descriptors again, so it only ends this round.
     */
    private SocketChannel acceptSetup() {
        try {
            return unixServer.accept();
        } catch (IOException e) {
            SoviaStats.refused("shm setup accept");
            SoviaLog.warnCounted("shm-accept", "cannot take local connections' shm hellos now; they wait", e);
            return null;
        }
    }

    /** Resets the client of a hello nobody claimed and lets its segment go. */
    private void dropUnclaimed(Pending p) {
        release(p.unix(), p.segment());
    }

    /** Ends a setup connection whose hello cannot be taken: counted, logged once with a running count. */
    private static void refused(SocketChannel unix, Partial partial, String what, Exception why) {
        SoviaStats.refused(what);
        SoviaLog.warnCounted(what, "refused a local connection's shm hello; that connection is reset", why);
        release(unix, partial == null ? -1 : partial.segment);
    }

    /** Closes a setup connection and the segment descriptor it brought, if any (-1: none). */
    private static void release(SocketChannel unix, int segment) {
        ShmTransport.closeQuietly(unix);
        if (segment >= 0) {
            try {
                NativeAccess.os().closeFd(segment);
            } catch (IOException unreachable) {
                // a descriptor was received, so the native calls were there
            }
        }
    }

    /**
     * Collects and expires the hellos of every open listener: run now and then by the doorbell agent, so hellos
     * whose TCP connection never comes are dropped although no accept looks for them.
     */
    static void sweepAll() {
        for (ShmListener listener : OPEN) {
            listener.sweep();
        }
    }

    private synchronized void sweep() {
        if (!OPEN.contains(this)) {
            return;
        }
        try {
            drain();
        } catch (RuntimeException e) {
            SoviaLog.warnCounted("shm-sweep", "could not collect shm hellos", e);
        }
    }

    /** The JVM exits: closes the listeners the app left open. */
    static void closeAll() {
        OPEN.forEach(ShmListener::close);
    }

    /**
     * Closes the listener: its socket goes, and connections offered to it and never claimed are reset,
     * their segments removed (the kernel resets connections left in a closed listener's queue).
     */
    @Override
    public synchronized void close() {
        if (!OPEN.remove(this)) {
            return;
        }
        try {
            drain();
        } catch (RuntimeException ignored) {
            // what cannot be read now is left to its client, which sees this end
        }
        try {
            unixServer.close();
        } catch (IOException ignored) {
            // the socket file goes below either way
        }
        ShmTransport.deleteQuietly(socket);
        hellos.drain(this::dropUnclaimed);
        partial.forEach((unix, p) -> release(unix, p.segment));
        partial.clear();
    }
}
