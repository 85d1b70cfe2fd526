package io.sovia.eth;

import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.stats.SoviaStats;
import io.sovia.spi.transport.PendingOffers;
import io.sovia.spi.transport.Transport;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A Sovia listener's eth side: answers the hellos of cluster clients for its port with a link of its own, which
 * waits for the accept of the client's TCP connection ({@link #claim}); the client starts that TCP connect only
 * after the answer, so the accept always finds it. Keeps its TCP port, so other clients connect as ever.
 *
 * <p>Threading: hellos and sweeps in the receiver thread, claims in accepting threads.
 */
final class EthListener implements Transport.TransportListener {
    /** As long as a TCP connect goes on retrying its SYN: a later accept gets TCP, and its client a reset. */
    private static final long UNCLAIMED_NANOS = 60_000_000_000L;
    /**
     * How long an accept waits for the client's SYN on its link: its first two resends (after the engine's initial
     * timeout, then twice that again), so a SYN is taken for missing only when three copies were lost.
     */
    private static final long FIRST_FRAME_NANOS =
            Math.max(SoviaConfig.ethConnectNanos(), 4 * SoviaConfig.session().rtoInitialNanos());
    /** How long a claimed hello is remembered, so a late copy of it is answered rather than offered again. */
    private static final long CLAIMED_NANOS = 5_000_000_000L;

    private final EthPort port;
    private final InetSocketAddress bound;
    private final PendingOffers<Pending> offers = new PendingOffers<>();
    /** Hellos answered and not yet claimed, by the client's instance and link. */
    private final Map<Long, Pending> answered = new ConcurrentHashMap<>();
    /**
     * Hellos claimed lately: the server's link id and when, so a late copy of the hello is answered again rather
     * than offered again. Ids only: the claimed link would keep its whole session reachable.
     */
    private final Map<Long, long[]> claimed = new ConcurrentHashMap<>();

    /** A client's link waiting for its claim. */
    private record Pending(EthLink link, InetSocketAddress client, long key, long since) {
    }

    private EthListener(EthPort port, InetSocketAddress bound) {
        this.port = port;
        this.bound = bound;
    }

    /** The eth side of a listener at {@code bound}, or null when another listener of this JVM has its port. */
    static EthListener open(EthPort port, InetSocketAddress bound) {
        EthListener listener = new EthListener(port, bound);
        if (port.listeners.putIfAbsent(bound.getPort(), listener) != null) {
            SoviaLog.warn("another listener of this JVM has port " + bound.getPort() + " on eth; " + bound
                    + " takes no eth connects", null);
            return null;
        }
        return listener;
    }

    /** The receiver: a cluster client's hello for this port. */
    void onHello(EthPeer peer, int clientLink, InetSocketAddress client, InetAddress server) {
        InetAddress at = bound.getAddress();
        if (!at.isAnyLocalAddress() && !at.equals(server)) {
            SoviaStats.dropped("eth-hello-wrong-address");
            port.releasePeer(peer);
            return;
        }
        long key = (long) peer.instance << 32 | (clientLink & 0xFFFFFFFFL);
        long[] done = claimed.get(key);
        if (done != null) {
            port.releasePeer(peer);
            answer(peer, clientLink, client, (int) done[0]);
            return;
        }
        Pending p = answered.get(key);
        if (p != null) {
            port.releasePeer(peer); // the first copy's link holds the peer already
        } else {
            EthLink link;
            try {
                link = EthLink.server(port, peer, clientLink, bound.getPort(), client.getPort());
            } catch (IOException full) {
                port.releasePeer(peer);
                SoviaStats.dropped("eth-too-many-links");
                return;
            }
            p = new Pending(link, client, key, System.nanoTime());
            answered.put(key, p);
            Pending replaced = offers.put(client, p);
            if (replaced != null) {
                answered.remove(replaced.key(), replaced);
                replaced.link().close();
            }
        }
        answer(peer, clientLink, client, p.link().id());
    }

    /** Tells the client's link {@code clientLink} that its server end is {@code serverLink}. */
    private void answer(EthPeer peer, int clientLink, InetSocketAddress client, int serverLink) {
        port.sendControl(EthFrameDescriptor.HELLO_OK, peer.mac, client.getPort(), bound.getPort(), peer.instance,
                clientLink, serverLink, null);
    }

    /**
     * The accept of {@code remote}'s TCP connection: the link answered for its hello, if the client took it. A client
     * whose answer came too late ({@code sovia.eth.connect.millis}) connected over TCP instead, and only the link
     * tells which: a client on eth sent its SYN on it before its TCP connect began, so that frame is there by now
     * unless lost, and is sent again twice within the wait. Without it the connection is TCP at both ends.
     */
    @Override
    public Transport.Claimed claim(InetSocketAddress remote) {
        Pending p = offers.claim(remote);
        if (p == null) {
            return null;
        }
        claimed.put(p.key(), new long[] {p.link().id(), System.nanoTime()});
        answered.remove(p.key(), p);
        if (!p.link().awaitFirstFrame(FIRST_FRAME_NANOS)) {
            SoviaStats.dropped("eth-answer-too-late");
            p.link().close();
            return null;
        }
        return new Transport.Claimed(p.link(), () -> { });
    }

    /**
     * The receiver, now and then: forgets claimed hellos and drops those never claimed, or whose client went away
     * (it gave up waiting for the answer, or its connect failed).
     */
    void sweep(long now) {
        claimed.values().removeIf(c -> now - c[1] > CLAIMED_NANOS);
        answered.values().removeIf(p -> {
            if ((now - p.since > UNCLAIMED_NANOS || !p.link().isPeerAlive()) && offers.withdraw(p.client(), p)) {
                p.link().close();
                return true;
            }
            return false;
        });
    }

    @Override
    public void close() {
        port.listeners.remove(bound.getPort(), this);
        answered.values().removeIf(p -> {
            if (offers.withdraw(p.client(), p)) {
                p.link().close();
            }
            return true;
        });
        claimed.clear();
    }
}
