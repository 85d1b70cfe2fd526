package io.sovia.agent.it;

import io.sovia.spi.transport.PathKind;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Assumptions;

/**
 * A path between two JVMs (shm, or eth when the other JVM is on another host). Servers listen in this JVM, opened by an
 * in-JVM transport, but clients reach each of them through a {@link RelayPeer} in another JVM, which runs under the
 * agent too. So each connection a scenario
 * makes is two connections between JVMs, client to relay and relay to server, and this JVM holds one end of each:
 * the client and the accepted socket, both on the relayed path.
 *
 * <p>The relay starts when first needed and lives until this JVM exits; should it die, the next server starts
 * another. It stops forwarding to a server once the server is closed: at the next server this transport opens, or
 * at the end of the scenario ({@link RelayedServersRelease}), since a server cannot tell anyone when it closes.
 */
public final class RelayedTransport implements Transport {

    /** A server with the relay's listener in front of it. */
    private record Forward(InetSocketAddress address, BooleanSupplier serverClosed) {
    }

    /** Starts the relay JVM. */
    @FunctionalInterface
    interface Starter {
        Relay start() throws IOException;
    }

    private final String name;
    private final Transport servers;
    private final Starter starter;
    private final Map<Object, Forward> forwards = new IdentityHashMap<>();
    private Relay relay;

    /**
     * @param name report name
     * @param servers the in-JVM transport that opens the servers and picks the paths of this JVM's connects
     * @param starter starts the relay JVM
     */
    RelayedTransport(String name, Transport servers, Starter starter) {
        this.name = name;
        this.servers = servers;
        this.starter = starter;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public PathKind path() {
        return servers.path();
    }

    @Override
    public synchronized ServerSocketChannel openServerChannel() throws IOException {
        releaseClosed();
        relay(); // first: a transport without its relay skips the test before it binds anything
        ServerSocketChannel server = servers.openServerChannel();
        try {
            forward(server, ((InetSocketAddress) server.getLocalAddress()).getPort(), () -> !server.isOpen());
            return server;
        } catch (IOException | RuntimeException e) {
            Io.closeAll(e, server);
            throw e;
        }
    }

    /** The relay listens on one IPv4 address only, so its clients reach no other listener address. */
    @Override
    public ServerSocketChannel openServerChannel(InetSocketAddress at) {
        return Assumptions.abort("the relay's clients connect to its one IPv4 listener address only");
    }

    @Override
    public synchronized ServerSocket openServerSocket() throws IOException {
        releaseClosed();
        relay();
        ServerSocket server = servers.openServerSocket();
        try {
            forward(server, server.getLocalPort(), server::isClosed);
            return server;
        } catch (IOException | RuntimeException e) {
            Io.closeAll(e, server);
            throw e;
        }
    }

    @Override
    public synchronized SocketAddress connectAddress(ServerSocketChannel server) {
        return forwardOf(server).address();
    }

    @Override
    public synchronized SocketAddress connectAddress(ServerSocket server) {
        return forwardOf(server).address();
    }

    @Override
    public boolean acceptedSeesClient() {
        return false;
    }

    /** The relay's ends of this JVM's connections are its peers: waits until the relay has closed all of them. */
    @Override
    public synchronized void awaitPeersClosed() throws IOException {
        if (relay != null && relay.isAlive()) {
            relay.awaitIdle();
        }
    }

    /** A port where nothing listens, last held by a listener in the relay's JVM. */
    @Override
    public synchronized SocketAddress refusedAddress() throws IOException {
        return relay().refusedAddress();
    }

    /** Stops forwarding to every server opened so far, closed or not: their scenario is over. */
    synchronized void releaseAll() throws IOException {
        release(new ArrayList<>(forwards.keySet()));
    }

    @Override
    public String toString() {
        return name;
    }

    private void releaseClosed() throws IOException {
        List<Object> closed = new ArrayList<>();
        forwards.forEach((server, forward) -> {
            if (forward.serverClosed().getAsBoolean()) {
                closed.add(server);
            }
        });
        release(closed);
    }

    private void release(List<Object> released) throws IOException {
        for (Object server : released) {
            Forward forward = forwards.remove(server);
            if (relay != null && relay.isAlive()) {
                relay.unforward(forward.address().getPort());
            }
        }
    }

    private void forward(Object server, int port, BooleanSupplier serverClosed) throws IOException {
        forwards.put(server, new Forward(relay().forward(port), serverClosed));
    }

    private Forward forwardOf(Object server) {
        Forward forward = forwards.get(server);
        if (forward == null) {
            throw new IllegalArgumentException(server + " is not an open server of " + name);
        }
        return forward;
    }

    private Relay relay() throws IOException {
        if (relay == null || !relay.isAlive()) {
            // The forwards of a relay that died died with it.
            forwards.clear();
            relay = starter.start();
        }
        return relay;
    }
}
