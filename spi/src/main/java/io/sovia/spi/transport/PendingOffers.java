package io.sovia.spi.transport;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiPredicate;

/**
 * Offers waiting for their claim, keyed by the client's bound address: what the accept of the TCP
 * connection sees as its remote address. A client bound to a wildcard address ({@code bind(new
 * InetSocketAddress(0))}) does not know its source address before the kernel picks it at connect, so
 * its offer is keyed by the wildcard and found by port: a port bound to a wildcard address is its
 * holder's alone towards one listener, since TCP allows one connection per address pair.
 *
 * <p>Threading: any thread.
 *
 * @param <T> what a transport keeps for an offer
 */
public final class PendingOffers<T> {
    private static final InetAddress ANY4 = address(new byte[4]);

    private final Map<InetSocketAddress, T> offers = new ConcurrentHashMap<>();

    private static InetAddress address(byte[] bytes) {
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Parks {@code offer} for the connection from {@code client}; returns the offer it replaced, or null. */
    public T put(InetSocketAddress client, T offer) {
        return offers.put(normalized(client), offer);
    }

    /** Takes back an offer nobody claimed; false if a claim took it first. */
    public boolean withdraw(InetSocketAddress client, T offer) {
        return offers.remove(normalized(client), offer);
    }

    /** An accept got a TCP connection from {@code remote}: the offer parked for it, or null. */
    public T claim(InetSocketAddress remote) {
        if (remote == null) {
            return null;
        }
        T offer = offers.remove(remote);
        if (offer == null) {
            offer = offers.remove(new InetSocketAddress(ANY4, remote.getPort()));
        }
        return offer;
    }

    /** Removes every offer for which {@code drop} says so, after it has released it. */
    public void removeIf(BiPredicate<InetSocketAddress, T> drop) {
        offers.entrySet().removeIf(e -> drop.test(e.getKey(), e.getValue()));
    }

    /** Every offer, emptying the set. */
    public void drain(java.util.function.Consumer<T> each) {
        removeIf((client, offer) -> {
            each.accept(offer);
            return true;
        });
    }

    /** One key for both wildcard families, since a wildcard-bound IPv6 socket also connects over IPv4. */
    private static InetSocketAddress normalized(InetSocketAddress client) {
        InetAddress a = client.getAddress();
        if (a.isAnyLocalAddress() && !(a instanceof Inet4Address)) {
            return new InetSocketAddress(ANY4, client.getPort());
        }
        return client;
    }
}
