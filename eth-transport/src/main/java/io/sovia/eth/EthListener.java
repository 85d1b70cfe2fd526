package io.sovia.eth;

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
    /** How long a claimed hello is remembered, so a late copy of it is answered rather than offered again. */
    private static final long CLAIMED_NANOS = 5_000_000_000L;

    private final EthPort port;
    private final InetSocketAddress bound;
    private final PendingOffers<Pending> offers = new PendingOffers<>();
    /** Every hello answered lately, by the client's instance and link. */
    private final Map<Long, Pending> answered = new ConcurrentHashMap<>();

    /** A client's link waiting for its claim. */
    private static final class Pending {
        final EthLink link;
        final InetSocketAddress client;
        final long key;
        final long since;
        volatile long claimedAt;

        Pending(EthLink link, InetSocketAddress client, long key, long since) {
            this.link = link;
            this.client = client;
            this.key = key;
            this.since = since;
        }
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
                answered.remove(replaced.key, replaced);
                replaced.link.close();
            }
        }
        port.sendControl(EthFrameDescriptor.HELLO_OK, peer.mac, client.getPort(), bound.getPort(), peer.instance,
                clientLink, p.link.id(), null);
    }

    @Override
    public Transport.Claimed claim(InetSocketAddress remote) {
        Pending p = offers.claim(remote);
        if (p == null) {
            return null;
        }
        p.claimedAt = System.nanoTime();
        return new Transport.Claimed(p.link, () -> { });
    }

    /** The receiver, now and then: forgets claimed hellos and drops those never claimed. */
    void sweep(long now) {
        answered.values().removeIf(p -> {
            if (p.claimedAt != 0) {
                return now - p.claimedAt > CLAIMED_NANOS;
            }
            if (now - p.since > UNCLAIMED_NANOS && offers.withdraw(p.client, p)) {
                p.link.close();
                return true;
            }
            return false;
        });
    }

    @Override
    public void close() {
        port.listeners.remove(bound.getPort(), this);
        answered.values().removeIf(p -> {
            if (p.claimedAt == 0 && offers.withdraw(p.client, p)) {
                p.link.close();
            }
            return true;
        });
    }
}
