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
    /** The TCP port of the listener this serves. */
    private final int port;
    /** Hellos read and not yet claimed, by client address; changed under {@code this}. */
    private final PendingOffers<Pending> hellos = new PendingOffers<>();

    /**
     * A hello waiting for the accept of its TCP connection, since {@code since} ({@link System#nanoTime()}), with
     * its segment: a descriptor, which whoever drops or claims it closes, or for a kept connection the segment
     * itself (descriptor -1) and the kept socket's registration with the doorbell agent.
     */
    private static final class Pending {
        final SocketChannel unix;
        final ShmDoorbells.Registration registration;
        final ShmHello hello;
        final int descriptor;
        final ShmSegment kept;
        final long since;
        /**
         * An older hello naming the same client address from another process, or null; under the listener's lock.
         * Only one of them can be the client's, and the accept tells which ({@link #contest}).
         */
        Pending rival;

        Pending(SocketChannel unix, ShmDoorbells.Registration registration, ShmHello hello, int descriptor,
                ShmSegment kept, long since) {
            this.unix = unix;
            this.registration = registration;
            this.hello = hello;
            this.descriptor = descriptor;
            this.kept = kept;
            this.since = since;
        }
    }

    /** A client writes its hello before its TCP connect; one silent this long is no client. */
    private static final long SILENCE_NANOS = 10_000_000_000L;
    /** Connections whose hello is incomplete; guarded by {@code this}. */
    private final Map<SocketChannel, PartialHello> partial = new HashMap<>();
    /** Closed connections kept for their clients' next connects; guarded by {@code this}. */
    private final ShmIdleChannels idle;
    /** Where the hellos on kept connections go: one object, not one per accept. */
    private final ShmIdleChannels.Arrivals keptArrivals = new ShmIdleChannels.Arrivals() {
        @Override
        public void hello(SocketChannel unix, ShmDoorbells.Registration registration, ShmHello hello,
                ShmSegment segment) {
            pending(new Pending(unix, registration, hello, -1, segment, System.nanoTime()));
        }

        @Override
        public void refused(IOException why) {
            ShmListener.refused(null, -1, "shm kept hello", why);
        }
    };
    private final long helloTtlNanos = SoviaConfig.shmHelloTtlNanos();
    /** Whether the threads of accepted connections sleep on their wake words (ShmTransport's). */
    private final boolean sleepOnWords;

    private ShmListener(ShmDirectory directory, java.nio.file.Path socket, ServerSocketChannel unixServer,
            int port, boolean sleepOnWords) throws IOException {
        this.sleepOnWords = sleepOnWords;
        this.port = port;
        // the doorbell agent also sweeps the hellos of listeners that accept nothing (see sweepAll)
        ShmDoorbells.get();
        this.idle = new ShmIdleChannels(NativeAccess.os(), unixServer, this::idleHungUp);
        this.socket = socket;
        this.unixServer = unixServer;
        this.selfUid = (Integer) Files.getAttribute(directory.path(), "unix:uid");
    }

    /** Opens the UNIX socket for a listener bound at {@code bound}; null if a live listener owns it. */
    static ShmListener open(ShmDirectory directory, InetSocketAddress bound, boolean sleepOnWords)
            throws IOException {
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
            ShmListener listener = new ShmListener(directory, socket, server, bound.getPort(), sleepOnWords);
            OPEN.add(listener);
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
        if (p.rival != null) {
            p = contest(p, remote);
        }
        try {
            ShmSegment segment = p.kept != null ? p.kept : ShmSegment.open(p.descriptor);
            RingLink link = ShmTransport.link(segment.clientToServer(), segment.serverToClient(), p.unix,
                    sleepOnWords);
            return new Transport.Claimed(link,
                    ShmDoorbells.get().watch(p.unix, p.registration, link, segment, () -> { }, this::keep));
        } catch (IOException | RuntimeException e) {
            // the client already moved to the segment: closing its socket resets it instead of leaving it hanging
            SoviaStats.refused("shm segment");
            SoviaLog.warnCounted("shm-segment", "cannot take an shm connection (from " + remote + "); it is reset", e);
            // ShmSegment.open closed the descriptor, whatever it found
            release(p.registration, p.unix, -1);
            return null;
        }
    }

    /**
     * Takes every queued UNIX connection of this user and collects its hello without blocking, so a
     * silent or slow local process cannot stall accepts; one still silent after a while is dropped.
     */
    private void drain() {
        boolean setupReady = idle.collect(keptArrivals);
        SocketChannel c;
        while (setupReady && (c = acceptSetup()) != null) {
            try {
                if (NativeAccess.os().peerUid(JdkNio.fd(c)) != selfUid) {
                    // the directory is 0700, so only root or a leak of the socket gets here; names only for the log
                    UnixDomainPrincipal peer = c.getOption(ExtendedSocketOptions.SO_PEERCRED);
                    refused(c, -1, "shm peer user", new IOException("peer " + peer.user() + " is not "
                            + Files.getOwner(socket.getParent())));
                    continue;
                }
                c.configureBlocking(false);
                partial.put(c, new PartialHello());
            } catch (IOException | RuntimeException e) {
                refused(c, -1, "shm hello", e);
            }
        }
        for (Iterator<Map.Entry<SocketChannel, PartialHello>> it = partial.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<SocketChannel, PartialHello> e = it.next();
            SocketChannel ch = e.getKey();
            PartialHello p = e.getValue();
            try {
                boolean open = p.read(ch);
                ShmHello hello = p.hello();
                if (hello != null) {
                    if (p.segment() < 0 || hello.reused()) {
                        throw new IOException(hello.reused() ? "a kept connection's hello on a new socket"
                                : "a hello without its segment");
                    }
                    it.remove();
                    pending(new Pending(ch, null, hello, p.segment(), null, System.nanoTime()));
                } else if (!open && p.isEmpty()) {
                    // a probe of whether this listener lives (ShmDirectory.accepting), not a client
                    it.remove();
                    ShmTransport.closeQuietly(ch);
                } else if (!open || System.nanoTime() - p.since() > SILENCE_NANOS) {
                    throw new IOException("no hello");
                }
            } catch (IOException | RuntimeException x) {
                it.remove();
                refused(ch, p.segment(), "shm hello", x);
            }
        }
        // only by age: a hello whose client died is still claimed by the accept of its TCP connection, which
        // then ends with "Connection reset" as TCP's would, not with the setup connection's end of stream
        long now = System.nanoTime();
        hellos.removeIf((client, p) -> {
            if (now - p.since >= helloTtlNanos) {
                dropUnclaimed(p);
                return true;
            }
            expireRivals(p, now);
            return false;
        });
    }

    /** Drops the rivals of {@code p} that are too old; they are older than {@code p}, so the first such ends its chain. */
    private void expireRivals(Pending p, long now) {
        for (Pending c = p; c.rival != null; c = c.rival) {
            if (now - c.rival.since >= helloTtlNanos) {
                dropUnclaimed(c.rival);
                c.rival = null;
                return;
            }
        }
    }

    /**
     * Parks a hello for its accept. One naming a client address that has a hello already is kept beside it, unless
     * both came from one process (which then gave up its earlier connect, and the newest is its own): a process of
     * this user naming another's address must not take that client's place, nor reset it.
     */
    private void pending(Pending p) {
        Pending older = hellos.put(p.hello.client(), p);
        if (older == null) {
            return;
        }
        int pid = peerPid(p);
        Pending last = p;
        for (Pending c = older; c != null; ) {
            Pending next = c.rival;
            c.rival = null;
            if (pid >= 0 && peerPid(c) == pid) {
                dropUnclaimed(c);
            } else {
                last.rival = c;
                last = c;
            }
            c = next;
        }
    }

    /**
     * Of hellos from several processes naming the accepted connection's client address, the one whose process holds
     * that connection's client socket, or the newest if none can be shown to (its socket closed already, say); the
     * others are reset.
     */
    private Pending contest(Pending newest, InetSocketAddress remote) {
        Pending winner = newest;
        try {
            long inode = TcpSocketOwners.clientSocket(remote, port);
            for (Pending c = newest; inode != 0 && c != null; c = c.rival) {
                if (TcpSocketOwners.holds(peerPid(c), inode)) {
                    winner = c;
                    break;
                }
            }
        } catch (IOException | RuntimeException e) {
            SoviaLog.warnCounted("shm-hello-contest", "cannot tell which process holds the connection from " + remote
                    + "; the newest of its hellos is taken", e);
        }
        for (Pending c = newest; c != null; ) {
            Pending next = c.rival;
            c.rival = null;
            if (c != winner) {
                refused(null, -1, "shm hello contested", new IOException("another process named the connection from "
                        + remote + " in its hello; the hello of the process holding it is taken"));
                dropUnclaimed(c);
            }
            c = next;
        }
        return winner;
    }

    /** The process that connected a hello's setup socket, or -1 if that cannot be read. */
    private static int peerPid(Pending p) {
        try {
            return NativeAccess.os().peerPid(JdkNio.fd(p.unix));
        } catch (IOException e) {
            return -1;
        }
    }

    /**
     * A claimed connection closed in order: keeps its socket and segment for its client's next connect, unless
     * this listener closed; false if it is not kept.
     */
    private synchronized boolean keep(SocketChannel unix, ShmDoorbells.Registration registration,
            ShmSegment segment) {
        if (!OPEN.contains(this)) {
            return false;
        }
        try {
            idle.keep(unix, registration, segment);
            return true;
        } catch (IOException e) {
            SoviaLog.warnCounted("shm-keep", "cannot keep a closed shm connection for the next connect", e);
            return false;
        }
    }

    private synchronized void idleHungUp(long id) {
        idle.hungUp(id);
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

    /**
     * Resets the client of a hello nobody claimed, and those of its rivals, and lets their segments go; a kept one's
     * memory is the client's until its collection, as the client may still write to it.
     */
    private static void dropUnclaimed(Pending p) {
        for (Pending c = p; c != null; c = c.rival) {
            release(c.registration, c.unix, c.descriptor);
        }
    }

    /** Closes a kept setup connection, its registration released first (null: a new one), and its descriptor. */
    private static void release(ShmDoorbells.Registration registration, SocketChannel unix, int segment) {
        if (registration != null) {
            registration.release();
        }
        release(unix, segment);
    }

    /** Ends a setup connection whose hello cannot be taken: counted, logged once with a running count. */
    private static void refused(SocketChannel unix, int segment, String what, Exception why) {
        SoviaStats.refused(what);
        SoviaLog.warnCounted(what, "refused a local connection's shm hello; that connection is reset", why);
        release(unix, segment);
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
        hellos.drain(ShmListener::dropUnclaimed);
        partial.forEach((unix, p) -> release(unix, p.segment()));
        partial.clear();
        idle.close();
    }
}
