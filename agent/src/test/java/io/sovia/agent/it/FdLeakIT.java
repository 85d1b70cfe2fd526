package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Pipe;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Thousands of open/use/close cycles must leave the process with exactly the file descriptors it had before.
 * Every close is explicit, so the count must not depend on garbage collection either.
 */
class FdLeakIT extends SoviaTestBase {

    private static final File FDS = new File("/proc/self/fd");
    private static final int CYCLES = 2_000;
    private static final int WARM_UP_CYCLES = 50;

    /** One open/use/close round; leaves nothing open that it opened. */
    @FunctionalInterface
    private interface Cycle {
        void run() throws IOException;
    }

    @BeforeAll
    static void requireProcFs() {
        assumeTrue(FDS.isDirectory(), "counting descriptors needs /proc/self/fd");
    }

    @TransportTest
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void socketChannelsWithSelectors(Transport transport) throws IOException {
        try (ServerSocketChannel server = transport.openServerChannel(); Selector shared = Selector.open()) {
            assertNoLeak(() -> {
                try (SocketChannel client = SocketChannel.open(server.getLocalAddress());
                        SocketChannel accepted = server.accept();
                        Selector own = Selector.open()) {
                    client.configureBlocking(false);
                    client.register(shared, SelectionKey.OP_READ | SelectionKey.OP_WRITE);
                    accepted.configureBlocking(false);
                    SelectionKey key = accepted.register(own, SelectionKey.OP_READ);
                    client.write(ByteBuffer.wrap(new byte[] {1}));
                    Io.readOne(own, key);
                    // Let the shared selector poll the channel while it is open, as an event loop would.
                    shared.selectNow();
                }
                // A channel closed while registered may keep its descriptor until a selection deregisters it.
                shared.selectNow();
            });
        }
    }

    @TransportTest
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void javaNetSockets(Transport transport) throws IOException {
        assertNoLeak(() -> {
            try (ServerSocket server = transport.openServerSocket();
                    Socket client = new Socket()) {
                client.connect(server.getLocalSocketAddress());
                try (Socket accepted = server.accept()) {
                    client.getOutputStream().write(1);
                    assertEquals(1, accepted.getInputStream().read());
                }
            }
        });
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void passThroughChannelsInOurSelector() throws IOException {
        InetSocketAddress loopback = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        try (UnixSockets unix = new UnixSockets(); Selector shared = Selector.open()) {
            assertNoLeak(() -> {
                Pipe pipe = Pipe.open();
                try (DatagramChannel datagram = DatagramChannel.open().bind(loopback);
                        Pipe.SourceChannel source = pipe.source();
                        Pipe.SinkChannel sink = pipe.sink();
                        SocketChannel unixClient = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                    unixClient.connect(unix.address());
                    try (SocketChannel unixAccepted = unix.server().accept()) {
                        for (SelectableChannel channel : new SelectableChannel[] {
                                datagram, source, sink, unixClient, unixAccepted}) {
                            channel.configureBlocking(false);
                            channel.register(shared, SelectionKey.OP_READ & channel.validOps()
                                    | SelectionKey.OP_WRITE & channel.validOps());
                        }
                        shared.selectNow();
                    }
                }
                shared.selectNow();
            });
        }
    }

    /**
     * Runs the cycle {@value #WARM_UP_CYCLES} times, counts the descriptors, runs it {@value #CYCLES} times and
     * counts again. The warm-up lets the JDK open what it opens once and keeps (e.g. the jars of classes loaded on
     * first use), so the two counts must match exactly: no slack, which would hide a leak of a few descriptors.
     */
    private static void assertNoLeak(Cycle cycle) throws IOException {
        for (int i = 0; i < WARM_UP_CYCLES; i++) {
            cycle.run();
        }
        Map<Integer, String> before = openFds();
        for (int i = 0; i < CYCLES; i++) {
            cycle.run();
        }
        Map<Integer, String> after = openFds();
        Map<Integer, String> added = new TreeMap<>(after);
        added.entrySet().removeAll(before.entrySet());
        assertEquals(before.size(), after.size(), () -> "descriptors after " + CYCLES + " cycles: "
                + before.size() + " -> " + after.size() + "; new or reused: " + added);
    }

    /** Open descriptors and what they point to; the directory listing's own descriptor is gone by then. */
    private static Map<Integer, String> openFds() {
        Map<Integer, String> fds = new TreeMap<>();
        String[] names = FDS.list();
        for (String name : names == null ? new String[0] : names) {
            try {
                fds.put(Integer.valueOf(name), Files.readSymbolicLink(FDS.toPath().resolve(name)).toString());
            } catch (IOException closedMeanwhile) {
                // Only the listing's own descriptor, closed right after the listing, ends up here.
            }
        }
        return fds;
    }
}
