package io.sovia.agent.it;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.stream.Stream;

/** The transports every {@link TransportTest} runs over; adding a transport is one more entry in {@link #all()}. */
public final class Transports {

    /** Plain TCP over the IPv4 loopback. */
    public static final Transport TCP = new Transport.Bound("tcp", new InetSocketAddress(loopback(), 0));
    /** Client and server in this JVM: the engine over memory (servers bind the IPv4 loopback). */
    public static final Transport JVM = new Transport.Bound("jvm", new InetSocketAddress(loopback(), 0));
    /**
     * The engine over a shared segment, with the jvm path turned off: both ends are in this JVM, but
     * everything else is as between processes (segment file, UNIX socket hello, doorbell thread).
     */
    public static final Transport SHM = new Transport.Bound("shm", new InetSocketAddress(loopback(), 0));
    /**
     * The engine over shared segments between JVMs: servers in this JVM, clients connecting through a relay in
     * another JVM, both connections on the shm path.
     */
    public static final RelayedTransport SHM_2JVM = new RelayedTransport("shm-2jvm", SHM, Relay::start);
    /**
     * The engine over raw Ethernet frames between hosts: servers in this JVM on its address of a veth pair, clients
     * connecting through a relay on the other host (a network namespace, {@link EthHosts}), both connections on eth.
     */
    public static final RelayedTransport ETH = new RelayedTransport("eth",
            new Transport.Bound("eth", new InetSocketAddress(EthHosts.SERVERS, 0)), EthHosts::startRelay);

    private Transports() {
    }

    /** Source of the {@link TransportTest} parameters. */
    public static Stream<Transport> all() {
        return Boolean.getBoolean("sovia.it.plain") ? Stream.of(TCP) : Stream.of(TCP, JVM, SHM, SHM_2JVM, ETH);
    }

    private static InetAddress loopback() {
        try {
            return InetAddress.getByAddress("localhost", new byte[] {127, 0, 0, 1});
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
