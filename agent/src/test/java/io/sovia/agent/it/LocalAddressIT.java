package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * Where a client is bound and what it connects to: a client bound before connecting (wildcard, fixed port,
 * SO_REUSEADDR, SO_REUSEPORT), a connect to the wildcard address a listener is bound to ({@code [::]} or
 * {@code 0.0.0.0}, as Netty's tests do), and IPv6 loopback. Each must connect,
 * carry bytes both ways on the transport's path, and report the addresses the JDK reports.
 */
class LocalAddressIT extends SoviaTestBase {
    private static final InetAddress ANY4 = address("0.0.0.0");
    private static final InetAddress ANY6 = address("::");
    private static final InetAddress LOOPBACK6 = address("::1");

    private static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @TransportTest
    void channelBoundToTheWildcardBeforeConnecting(Transport transport) throws IOException {
        channelBoundBeforeConnecting(transport, new InetSocketAddress(0), false);
    }

    @TransportTest
    void channelBoundToAFixedPortWithReuseOptions(Transport transport) throws IOException {
        // a port found free can be taken by another process's connect before the bind: try a few
        for (int attempt = 1; ; attempt++) {
            try {
                channelBoundBeforeConnecting(transport, new InetSocketAddress(ANY4, freePort()), true);
                return;
            } catch (BindException taken) {
                if (attempt == 5) {
                    throw taken;
                }
            }
        }
    }

    private void channelBoundBeforeConnecting(Transport transport, InetSocketAddress bindTo, boolean reuse)
            throws IOException {
        try (ServerSocketChannel server = transport.openServerChannel(); SocketChannel client = SocketChannel.open()) {
            if (reuse) {
                client.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                client.setOption(StandardSocketOptions.SO_REUSEPORT, true);
            }
            client.bind(bindTo);
            long before = transport.carried();
            client.connect(transport.connectAddress(server));
            try (SocketChannel accepted = server.accept()) {
                InetSocketAddress local = (InetSocketAddress) client.getLocalAddress();
                assertFalse(local.getAddress().isAnyLocalAddress(), "connected, the local address is the source: " + local);
                if (bindTo.getPort() != 0) {
                    assertEquals(bindTo.getPort(), local.getPort());
                }
                if (transport.acceptedSeesClient()) {
                    assertEquals(local, accepted.getRemoteAddress());
                }
                Io.assertTalks(client, accepted);
                transport.assertCarried(before, "a client bound to " + bindTo);
            }
        }
    }

    @TransportTest
    void socketBoundToTheWildcardBeforeConnecting(Transport transport) throws IOException {
        try (ServerSocket server = transport.openServerSocket(); Socket client = new Socket()) {
            client.bind(new InetSocketAddress(0));
            long before = transport.carried();
            client.connect(transport.connectAddress(server));
            try (Socket accepted = server.accept()) {
                assertFalse(client.getLocalAddress().isAnyLocalAddress(), "connected, the local address is the source");
                if (transport.acceptedSeesClient()) {
                    assertEquals(client.getLocalSocketAddress(), accepted.getRemoteSocketAddress());
                }
                Io.assertTalks(client, accepted);
                transport.assertCarried(before, "a java.net client bound to the wildcard");
            }
        }
    }

    @TransportTest
    void connectToAWildcardListenerThroughBothFamilies(Transport transport) throws IOException {
        try (ServerSocketChannel server = transport.openServerChannel(new InetSocketAddress(ANY6, 0))) {
            int port = ((InetSocketAddress) transport.connectAddress(server)).getPort();
            for (InetAddress to : new InetAddress[] {ANY6, ANY4, LOOPBACK6}) {
                long before = transport.carried();
                try (SocketChannel client = SocketChannel.open(new InetSocketAddress(to, port));
                        SocketChannel accepted = server.accept();
                        Socket javaNet = new Socket(to, port);
                        SocketChannel acceptedNet = server.accept()) {
                    Io.assertTalks(client, accepted);
                    Io.assertTalks(javaNet, acceptedNet.socket());
                    transport.assertCarried(before + 2, "a connect to " + to + " (NIO and java.net)");
                }
            }
        }
    }

    @TransportTest
    void ipv6Loopback(Transport transport) throws IOException {
        try (ServerSocketChannel server = transport.openServerChannel(new InetSocketAddress(LOOPBACK6, 0))) {
            SocketAddress to = transport.connectAddress(server);
            long before = transport.carried();
            try (SocketChannel client = SocketChannel.open(to); SocketChannel accepted = server.accept()) {
                assertTrue(((InetSocketAddress) client.getLocalAddress()).getAddress().equals(LOOPBACK6));
                if (transport.acceptedSeesClient()) {
                    assertEquals(client.getLocalAddress(), accepted.getRemoteAddress());
                }
                assertNotEquals(0, ((InetSocketAddress) client.getLocalAddress()).getPort());
                Io.assertTalks(client, accepted);
                transport.assertCarried(before, "a connect to ::1");
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket probe = new ServerSocket(0)) {
            return probe.getLocalPort();
        }
    }
}
