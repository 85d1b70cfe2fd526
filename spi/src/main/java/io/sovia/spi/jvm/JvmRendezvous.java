package io.sovia.spi.jvm;

import io.sovia.spi.link.JvmLinks;
import io.sovia.spi.transport.LocalAddresses;
import io.sovia.spi.transport.PendingOffers;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where same-JVM connections meet (the jvm path).
 *
 * <p>Every Sovia listener in this JVM records its bound address here. A client connecting to one creates
 * the link pair, parks it here under its own bound address, then connects over loopback TCP as usual;
 * whichever accept (NIO or java.net) takes that TCP connection finds the link by the connection's remote
 * address and claims it. The kernel thus keeps TCP's accept-queue semantics (connect may complete before
 * accept, backlog, wake-ups of blocked accepts) while the data never touches it.
 */
final class JvmRendezvous {
    private static final Map<Integer, Set<InetSocketAddress>> LISTENERS = new ConcurrentHashMap<>();
    private static final PendingOffers<JvmLinks> PENDING = new PendingOffers<>();

    private JvmRendezvous() {
    }

    /** A Sovia listener is bound at {@code bound}. */
    static void listening(InetSocketAddress bound) {
        LISTENERS.computeIfAbsent(bound.getPort(), p -> ConcurrentHashMap.newKeySet()).add(bound);
    }

    /**
     * The listener at {@code bound} closed: connections parked for it but never accepted are reset, as
     * the kernel resets connections left in a closed listener's queue.
     */
    static void closed(InetSocketAddress bound) {
        Set<InetSocketAddress> addresses = LISTENERS.get(bound.getPort());
        if (addresses != null) {
            addresses.remove(bound);
        }
        PENDING.removeIf((client, links) -> {
            if (links.serverAddress().getPort() == bound.getPort() && !hasListener(links.serverAddress())) {
                links.server().close();
                return true;
            }
            return false;
        });
    }

    /** Whether a Sovia listener in this JVM would accept a connect to {@code remote}. */
    static boolean hasListener(InetSocketAddress remote) {
        if (remote.isUnresolved()) {
            return false;
        }
        Set<InetSocketAddress> addresses = LISTENERS.get(remote.getPort());
        if (addresses == null) {
            return false;
        }
        for (InetSocketAddress bound : addresses) {
            if (bound.getAddress().equals(remote.getAddress())
                    || (bound.getAddress().isAnyLocalAddress() && LocalAddresses.isLocal(remote.getAddress()))) {
                return true;
            }
        }
        return false;
    }

    /** Parks {@code links} for the connection from {@code client} (the client's bound address). */
    static void offer(InetSocketAddress client, JvmLinks links) {
        PENDING.put(client, links);
    }

    /** Takes back an offer nobody claimed; false if an accept claimed it first. */
    static boolean withdraw(InetSocketAddress client, JvmLinks links) {
        return PENDING.withdraw(client, links);
    }

    /** An accept got a TCP connection from {@code remote}: the links parked for it, or null. */
    static JvmLinks claim(InetSocketAddress remote) {
        return PENDING.claim(remote);
    }
}
