package io.sovia.agent.ops;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * The app the operability tests run under the agent, in JVMs of their own. It prints what the test waits for on
 * stdout and runs until its stdin ends:
 * <ul>
 *   <li>{@code server}: listens on the loopback, prints {@code PORT n}, echoes each connection until it ends;</li>
 *   <li>{@code client PORT N}: holds N connections to PORT after one echo each, prints {@code LOCAL p1,p2,...};</li>
 *   <li>{@code events}: in one JVM, a connection closed normally, one reset (SO_LINGER 0) and one connect sent to
 *       TCP by {@code sovia.paths=tcp}, then prints {@code DONE} and exits (for the JFR events).</li>
 * </ul>
 */
public final class HoldApp {
    private HoldApp() {
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "server" -> server();
            case "client" -> client(Integer.parseInt(args[1]), Integer.parseInt(args[2]));
            case "events" -> events();
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    private static ServerSocketChannel listen() throws IOException {
        return ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    private static void server() throws Exception {
        ServerSocketChannel server = listen();
        System.out.println("PORT " + ((InetSocketAddress) server.getLocalAddress()).getPort());
        Thread acceptor = new Thread(() -> {
            try {
                while (true) {
                    SocketChannel c = server.accept();
                    Thread echo = new Thread(() -> echo(c), "echo");
                    echo.setDaemon(true);
                    echo.start();
                }
            } catch (IOException closed) {
                // the JVM is exiting
            }
        }, "acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
        awaitStdinEnd();
    }

    /** Echoes until end of stream or a reset, then closes: a client that died leaves nothing behind here. */
    private static void echo(SocketChannel c) {
        try (c) {
            ByteBuffer b = ByteBuffer.allocate(4096);
            while (c.read(b) >= 0) {
                b.flip();
                while (b.hasRemaining()) {
                    c.write(b);
                }
                b.clear();
            }
        } catch (IOException gone) {
            // a reset peer ends the connection as the end of stream does
        }
    }

    private static void client(int port, int n) throws Exception {
        List<SocketChannel> held = new ArrayList<>();
        List<String> ports = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            SocketChannel c = SocketChannel.open(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            roundTrip(c);
            held.add(c);
            ports.add(String.valueOf(((InetSocketAddress) c.getLocalAddress()).getPort()));
        }
        System.out.println("LOCAL " + String.join(",", ports));
        awaitStdinEnd();
    }

    private static void roundTrip(SocketChannel c) throws IOException {
        c.write(ByteBuffer.wrap("hello".getBytes()));
        ByteBuffer b = ByteBuffer.allocate(5);
        while (b.hasRemaining()) {
            if (c.read(b) < 0) {
                throw new IOException("the server closed early");
            }
        }
    }

    private static void events() throws Exception {
        try (ServerSocketChannel server = listen()) {
            InetSocketAddress at = (InetSocketAddress) server.getLocalAddress();
            try (SocketChannel client = SocketChannel.open(at); SocketChannel accepted = server.accept()) {
                client.write(ByteBuffer.wrap("bye".getBytes()));
                accepted.read(ByteBuffer.allocate(3));
            }
            SocketChannel aborted = SocketChannel.open(at);
            try (SocketChannel accepted = server.accept()) {
                aborted.setOption(StandardSocketOptions.SO_LINGER, 0);
                aborted.close();
                accepted.read(ByteBuffer.allocate(1));
            } catch (IOException reset) {
                // what the reset is for
            }
            System.setProperty("sovia.paths", "tcp"); // read at each connect: this one falls back ("disabled")
            try (SocketChannel tcp = SocketChannel.open(at); SocketChannel accepted = server.accept()) {
                tcp.write(ByteBuffer.wrap("tcp".getBytes()));
                accepted.read(ByteBuffer.allocate(3));
            }
        }
        System.out.println("DONE");
    }

    private static void awaitStdinEnd() throws IOException {
        InputStream in = System.in;
        while (in.read() >= 0) {
            // only the end matters
        }
    }
}
