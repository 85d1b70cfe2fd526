package io.sovia.agent.it;

import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The second JVM of the {@code shm-2jvm} and {@code eth} transports: it relays connections to servers in the test
 * JVM, so that both of a scenario's connections cross a JVM boundary. It runs under the agent with the default paths,
 * so both of them take the shm path, or the eth path when it runs on another host (a network namespace) with a host
 * table. {@code RelayPeer [LISTEN_IP SERVER_IP]} (both 127.0.0.1 by default): the test JVM drives it over stdin and
 * stdout, one line per request and one per reply:
 *
 * <pre>
 * forward PORT        ok LISTEN   listens on LISTEN_IP:LISTEN and relays each connection to SERVER_IP:PORT
 * unforward LISTEN    ok          closes that listener; connections it relays go on until their ends close them
 * refused             ok PORT     a port of LISTEN_IP where nothing listens, last held by a listener of this JVM
 * idle                ok          once every connection relayed so far is closed (both of its channels)
 * </pre>
 *
 * A failed request gets {@code error MESSAGE}. The first line it prints is {@code ready}. It ends, closing everything,
 * when stdin ends, which is also what happens when the test JVM dies.
 */
public final class RelayPeer {

    /** Bound for connecting to a server of the test JVM, which listens whenever it is asked to forward to it. */
    private static final int CONNECT_MILLIS = 10_000;
    /** Bound for {@code idle}, below the test JVM's bound for a reply. */
    private static final long IDLE_MILLIS = 5_000;

    private final InetAddress listenAt;
    private final InetAddress serversAt;
    private final Map<Integer, ServerSocketChannel> listeners = new ConcurrentHashMap<>();
    private final Set<SocketChannel> connections = ConcurrentHashMap.newKeySet();

    private RelayPeer(InetAddress listenAt, InetAddress serversAt) {
        this.listenAt = listenAt;
        this.serversAt = serversAt;
    }

    /** Serves requests from stdin until it ends. */
    public static void main(String[] args) throws IOException {
        PrintStream replies = System.out;
        // Only replies may reach stdout, or the test JVM would read something else as the reply to its request.
        System.setOut(System.err);
        InetAddress loopback = InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
        RelayPeer peer = args.length == 2 ? new RelayPeer(InetAddress.getByName(args[0]), InetAddress.getByName(args[1]))
                : new RelayPeer(loopback, loopback);
        BufferedReader requests = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        try {
            reply(replies, "ready");
            for (String request = requests.readLine(); request != null; request = requests.readLine()) {
                reply(replies, peer.serve(request));
            }
        } finally {
            peer.closeAll();
        }
    }

    private static void reply(PrintStream replies, String line) {
        replies.println(line);
        replies.flush();
    }

    private String serve(String request) {
        String[] words = request.trim().split(" ");
        try {
            if (words.length == 2 && words[0].equals("forward")) {
                return "ok " + forward(Integer.parseInt(words[1]));
            }
            if (words.length == 2 && words[0].equals("unforward")) {
                ServerSocketChannel listener = listeners.remove(Integer.parseInt(words[1]));
                if (listener == null) {
                    return "error no listener on " + words[1];
                }
                listener.close();
                return "ok";
            }
            if (words.length == 1 && words[0].equals("refused")) {
                try (ServerSocketChannel listener = ServerSocketChannel.open()) {
                    return "ok " + port(listener.bind(new InetSocketAddress(listenAt, 0)));
                }
            }
            if (words.length == 1 && words[0].equals("idle")) {
                return awaitIdle();
            }
            return "error unknown request: " + request;
        } catch (IOException | RuntimeException e) {
            return "error " + e;
        }
    }

    private String awaitIdle() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(IDLE_MILLIS);
        while (!connections.isEmpty()) {
            if (System.nanoTime() - deadline > 0) {
                return "error " + connections.size() + " channels still open after " + IDLE_MILLIS + " ms";
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        return "ok";
    }

    /** Opens a listener whose connections go on to {@code port}; returns the listener's port. */
    private int forward(int port) throws IOException {
        InetSocketAddress target = new InetSocketAddress(serversAt, port);
        ServerSocketChannel listener = ServerSocketChannel.open();
        try {
            listener.bind(new InetSocketAddress(listenAt, 0));
        } catch (IOException | RuntimeException e) {
            listener.close();
            throw e;
        }
        int listenPort = port(listener);
        listeners.put(listenPort, listener);
        Thread acceptor = new Thread(() -> accept(listener, target), "relay-accept-" + listenPort);
        acceptor.setDaemon(true);
        acceptor.start();
        return listenPort;
    }

    /**
     * Accepts until the listener is closed. The accept waits without a bound of its own: unforward or the end of
     * stdin closes the listener, which ends it.
     */
    private void accept(ServerSocketChannel listener, InetSocketAddress target) {
        while (true) {
            SocketChannel client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                if (listener.isOpen()) {
                    System.err.println("relay: accepting for " + target + ": " + e);
                }
                return;
            }
            connections.add(client);
            // Connect on a thread of its own, so the next client is accepted meanwhile, as the server would.
            Thread relay = new Thread(() -> relay(client, target), "relay-" + target.getPort());
            relay.setDaemon(true);
            relay.start();
        }
    }

    private void relay(SocketChannel client, InetSocketAddress target) {
        SocketChannel server;
        try {
            server = SocketChannel.open();
        } catch (IOException e) {
            System.err.println("relay: " + e);
            Splice.abort(client);
            connections.remove(client);
            return;
        }
        connections.add(server);
        try {
            server.socket().connect(target, CONNECT_MILLIS);
        } catch (IOException | RuntimeException e) {
            // A refused client would see its connect fail; the nearest a relay can do is to reset the connection.
            System.err.println("relay: connecting to " + target + ": " + e);
            Splice.abort(client);
            Splice.abort(server);
            connections.remove(client);
            connections.remove(server);
            return;
        }
        new Splice(client, server, () -> {
            connections.remove(client);
            connections.remove(server);
        }).start();
    }

    /** Closes every listener and connection, which ends the threads waiting in them. */
    private void closeAll() {
        List<Closeable> all = new ArrayList<>(listeners.values());
        all.addAll(connections);
        for (Closeable closeable : all) {
            try {
                closeable.close();
            } catch (IOException e) {
                // The process ends right after, which releases whatever failed to close.
                System.err.println("relay: " + e);
            }
        }
    }

    private static int port(ServerSocketChannel listener) throws IOException {
        return ((InetSocketAddress) listener.getLocalAddress()).getPort();
    }
}
