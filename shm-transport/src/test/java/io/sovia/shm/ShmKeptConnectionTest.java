package io.sovia.shm;

import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.engine.Link;
import io.sovia.spi.jdk.JdkNio;
import io.sovia.spi.link.RingLink;
import io.sovia.spi.os.NativeOs;
import io.sovia.spi.transport.Transport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Both ends keep a closed connection's socket and segment for the client's next connect to the listener
 * ({@link ShmChannelPool}, {@link ShmIdleChannels}), at the link level, through the transport's own offer, TCP
 * connect and claim: the next connection runs on them only once both ends released the last, starts with empty
 * rings whatever the last one left unread, and a listener that closes takes its kept connections with it.
 */
@Timeout(30)
class ShmKeptConnectionTest {
    private Path root;
    private ShmTransport transport;
    private ServerSocketChannel tcp;
    private Transport.TransportListener listener;
    private InetSocketAddress address;
    private Path listenerSocket;
    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeEach
    void listen() throws IOException {
        root = Files.createTempDirectory("sovia-kept-test");
        System.setProperty(SoviaConfig.SHM_ROOT, root.toString());
        transport = new ShmTransport();
        tcp = JdkNio.provider().openServerSocketChannel();
        tcp.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        address = (InetSocketAddress) tcp.getLocalAddress();
        listener = transport.listen(address);
        listenerSocket = Path.of(root.toString(), "sovia-" + Files.getAttribute(root, "unix:uid"),
                "l-" + address.getPort() + "-v" + ShmHello.VERSION + "-7f000001.sock");
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
        listener.close();
        tcp.close();
        ShmChannelPool.KEPT.closeAll();
        System.clearProperty(SoviaConfig.SHM_ROOT);
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** One connection's two ends and what lives as long as each. */
    private record Connection(Link client, AutoCloseable clientLife, Link server, AutoCloseable serverLife) {
        void closeClient() throws Exception {
            client.close();
            clientLife.close();
        }

        void closeServer() throws Exception {
            server.close();
            serverLife.close();
        }
    }

    private Connection connect() throws IOException {
        SocketChannel setup = JdkNio.provider().openSocketChannel();
        open.add(setup);
        setup.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        Transport.Offer offer = transport.offer((InetSocketAddress) setup.getLocalAddress(), address);
        setup.connect(address);
        SocketChannel accepted = tcp.accept();
        open.add(accepted);
        Transport.Claimed claimed = listener.claim((InetSocketAddress) accepted.getRemoteAddress());
        assertNotNull(claimed, "the accept found the client's hello");
        return new Connection(offer.link(), offer.established(), claimed.link(), claimed.lifetime());
    }

    @Test
    void theNextConnectRunsOnTheLastOnesSocketAndSegmentWithEmptyRings() throws Exception {
        Connection first = connect();
        send(first.client(), "to server");
        send(first.server(), "to client");
        first.closeClient();
        assertEquals(1, ShmChannelPool.KEPT.kept(listenerSocket));
        first.closeServer();

        Connection second = connect();
        assertEquals(0, ShmChannelPool.KEPT.kept(listenerSocket), "the kept connection was taken");
        assertEquals(null, receive(second.server()), "nothing the last connection left unread");
        assertEquals(null, receive(second.client()), "nothing the last connection left unread");
        send(second.client(), "ping");
        assertEquals("ping", receive(second.server()));
        send(second.server(), "pong");
        assertEquals("pong", receive(second.client()));
        second.closeServer();
        second.closeClient();
        assertEquals(1, ShmChannelPool.KEPT.kept(listenerSocket));
    }

    @Test
    void aConnectionTheServerStillHoldsIsNotTakenAndTheNextConnectGetsItsOwn() throws Exception {
        Connection first = connect();
        first.closeClient();
        Connection second = connect();
        assertEquals(1, ShmChannelPool.KEPT.kept(listenerSocket), "still kept, not taken");
        assertNotSame(first.server(), second.server());
        send(second.client(), "fresh");
        assertEquals("fresh", receive(second.server()));
        first.closeServer();
        second.closeClient();
        second.closeServer();
        assertEquals(2, ShmChannelPool.KEPT.kept(listenerSocket));
    }

    @Test
    void aListenerThatClosesTakesItsKeptConnectionsWithIt() throws Exception {
        Connection first = connect();
        first.closeClient();
        first.closeServer();
        assertEquals(1, ShmChannelPool.KEPT.kept(listenerSocket));
        closeListenerAndAwaitKeptGone();
    }

    /**
     * A kept socket keeps its one place in each end's doorbell agent and in the listener's set from connection to
     * connection, answering for each in turn: the hellos still arrive, and the server's end still reaches the client.
     */
    @Test
    void aKeptSocketCarriesConnectionAfterConnectionAndStillHearsItsPeersEnd() throws Exception {
        for (int i = 0; i < 4; i++) {
            Connection c = connect();
            send(c.client(), "ping " + i);
            assertEquals("ping " + i, receive(c.server()));
            send(c.server(), "pong " + i);
            assertEquals("pong " + i, receive(c.client()));
            c.closeClient();
            c.closeServer();
            assertEquals(1, ShmChannelPool.KEPT.kept(listenerSocket), "one socket, kept again after connection " + i);
        }
        closeListenerAndAwaitKeptGone();
    }

    /**
     * A kept connection's hello waits for the accept of its TCP connection with its socket's registration answering
     * nothing; its client giving up meanwhile must not have the doorbell agent spin on the end it reports.
     */
    @Test
    void aHelloWaitingForItsAcceptCostsTheDoorbellAgentNothingOnceItsClientGaveUp() throws Exception {
        Connection c = connect();
        c.closeClient();
        c.closeServer();
        SocketChannel setup = JdkNio.provider().openSocketChannel();
        open.add(setup);
        setup.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        Transport.Offer offer = transport.offer((InetSocketAddress) setup.getLocalAddress(), address);
        assertEquals(null, listener.claim(new InetSocketAddress(InetAddress.getLoopbackAddress(), 1)),
                "no hello of that address; the kept connection's is collected meanwhile");
        offer.cancel();
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long agent = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("sovia-doorbells")).findFirst().orElseThrow().getId();
        long before = threads.getThreadCpuTime(agent);
        Thread.sleep(500);
        long spent = threads.getThreadCpuTime(agent) - before;
        org.junit.jupiter.api.Assertions.assertTrue(spent < 100_000_000L,
                "the doorbell agent spent " + spent / 1_000_000 + " ms of CPU in 500 ms");
    }

    @Test
    void aClientStillReadingKeepsWhatTheServerSentWhenTheListenerCloses() throws Exception {
        Connection c = connect();
        send(c.server(), "the file's tail");
        c.closeServer();
        listener.close();
        assertEquals("the file's tail", receive(c.client()), "the client reads what was sent before the close");
        c.closeClient();
    }

    /**
     * The doorbell agent takes a batch of events from epoll, then answers each: a doorbell byte the client rang (it
     * read the server's last frames, and the server's service thread waited for room) may be taken while the server's
     * end is still connected and answered once the server closed and kept the socket, whose registration then only
     * watches for the client's end. A readable socket is no end: the server must not drop the kept socket, which
     * hung up on the client and freed the rings it was still reading ("Connection reset", peersHungUp 1).
     */
    @Test
    void aDoorbellByteAnsweredAfterTheServerKeptTheSocketIsNoHangUp() throws Exception {
        Connection c = connect();
        send(c.server(), "the last bytes");
        c.closeServer();
        ShmDoorbells.Registration kept = registrationOf(c.serverLife());
        kept.ready(NativeOs.EPOLLIN);
        assertEquals("the last bytes", receive(c.client()), "the rings the client reads are intact");
        assertTrue(kept.channel().isOpen(), "the kept socket still connects the client");
        c.closeClient();
    }

    /** The same at the client's end: a doorbell byte of the server's is no reason to let a kept connection go. */
    @Test
    void aDoorbellByteAnsweredAfterTheClientKeptTheSocketIsNoHangUp() throws Exception {
        Connection c = connect();
        c.closeClient();
        assertEquals(1, ShmChannelPool.KEPT.kept(listenerSocket));
        registrationOf(c.clientLife()).ready(NativeOs.EPOLLIN);
        assertEquals(1, ShmChannelPool.KEPT.kept(listenerSocket), "still kept");
        registrationOf(c.clientLife()).ready(NativeOs.EPOLLRDHUP);
        assertEquals(0, ShmChannelPool.KEPT.kept(listenerSocket), "let go at the server's end");
        c.closeServer();
    }

    /** The registration a connection's lifetime ({@link ShmDoorbells.Watched}) watches its socket through. */
    private static ShmDoorbells.Registration registrationOf(AutoCloseable life) {
        return ((ShmDoorbells.Watched) life).registration();
    }

    @Test
    void keptConnectionsExpire() throws Exception {
        Connection c = connect();
        c.closeClient();
        c.closeServer();
        ShmChannelPool.KEPT.sweep(System.nanoTime());
        assertEquals(1, ShmChannelPool.KEPT.kept(listenerSocket), "kept for a while");
        ShmChannelPool.KEPT.sweep(System.nanoTime() + SoviaConfig.shmKeepNanos());
        assertEquals(0, ShmChannelPool.KEPT.kept(listenerSocket), "let go after sovia.shm.keep.millis");
    }

    @Test
    void doorbellBytesAheadOfAKeptConnectionsHelloAreSkipped() throws IOException {
        InetSocketAddress client = new InetSocketAddress(InetAddress.getLoopbackAddress(), 40123);
        overUnixSocket("hello.sock", (c, s) -> {
            c.write(ByteBuffer.wrap(new byte[40]).put(0, new byte[] {1, 2, 1}).limit(3));
            PartialHello partial = new PartialHello();
            partial.read(s);
            assertEquals(null, partial.hello());
            new ShmHello(client, true).writeTo(c);
            partial.read(s);
            assertEquals(new ShmHello(client, true), partial.hello());
        });
    }

    /**
     * A client may ring more doorbells during a connection than the server reads before keeping the socket: the
     * whole hello behind them comes out of one read, or the accept of its TCP connection misses it (and took the
     * connection as plain TCP while the client wrote to the rings, so both waited for ever).
     */
    @Test
    void aHelloBehindMoreDoorbellBytesThanAHelloHoldsComesOutOfOneRead() throws IOException {
        InetSocketAddress client = new InetSocketAddress(InetAddress.getLoopbackAddress(), 40124);
        overUnixSocket("rung.sock", (c, s) -> {
            byte[] rung = new byte[10 * ShmHello.MAX_LENGTH + 3];
            Arrays.fill(rung, RingLink.WAKE);
            c.write(ByteBuffer.wrap(rung));
            new ShmHello(client, true).writeTo(c);
            PartialHello partial = new PartialHello();
            assertTrue(partial.read(s));
            assertEquals(new ShmHello(client, true), partial.hello());
        });
    }

    /** What a test does with a connected pair of UNIX sockets: the client's end, and the server's non-blocking one. */
    private interface UnixPair {
        void run(SocketChannel client, SocketChannel server) throws IOException;
    }

    /** Runs {@code test} over a UNIX socket connection through {@code name} in the test's directory. */
    private void overUnixSocket(String name, UnixPair test) throws IOException {
        Path socket = root.resolve(name);
        try (ServerSocketChannel server = JdkNio.provider().openServerSocketChannel(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            try (SocketChannel c = JdkNio.provider().openSocketChannel(StandardProtocolFamily.UNIX)) {
                c.connect(UnixDomainSocketAddress.of(socket));
                try (SocketChannel s = server.accept()) {
                    s.configureBlocking(false);
                    test.run(c, s);
                }
            }
        }
    }

    /** Closes the listener; within 5 s the client's doorbell agent must have let the kept connections go. */
    private void closeListenerAndAwaitKeptGone() throws InterruptedException {
        listener.close();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (ShmChannelPool.KEPT.kept(listenerSocket) > 0 && System.nanoTime() - deadline < 0) {
            Thread.sleep(1);
        }
        assertEquals(0, ShmChannelPool.KEPT.kept(listenerSocket), "the doorbell agent saw the server close its end");
    }

    private static void send(Link link, String text) {
        byte[] bytes = text.getBytes();
        int offset = link.claim(bytes.length);
        link.sendBuffer().put(offset, bytes);
        link.commit(offset);
    }

    /** The first frame waiting, or null. */
    private static String receive(Link link) {
        String[] got = {null};
        link.poll((buffer, offset, length) -> {
            byte[] b = new byte[length];
            buffer.get(offset, b);
            got[0] = new String(b);
            return true;
        }, 1);
        return got[0];
    }
}
