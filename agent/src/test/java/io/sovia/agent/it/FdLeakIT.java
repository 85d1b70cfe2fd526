package io.sovia.agent.it;

import io.sovia.spi.transport.PathKind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
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
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
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
    /** Far above the ~30 s that shm-2jvm's cycles take on two busy cores: each crosses to the relay JVM and back. */
    private static final long CYCLES_TIMEOUT_SECONDS = 120;
    /** How long the count must hold still to be taken: far above the service thread's 1 ms round. */
    private static final long STILL_MILLIS = 20;
    /** How often the doorbell agent sweeps expired kept shm connections. */
    private static final long SWEEP_MILLIS = 1_000;

    /** One open/use/close round; leaves nothing open that it opened. */
    @FunctionalInterface
    private interface Cycle {
        void run() throws IOException;
    }

    /** Waits until the peers of the connections closed so far have closed too. */
    @FunctionalInterface
    private interface PeersClosed {
        void await() throws IOException;
    }

    @BeforeAll
    static void requireProcFs() {
        assumeTrue(FDS.isDirectory(), "counting descriptors needs /proc/self/fd");
    }

    @TransportTest
    @Timeout(value = CYCLES_TIMEOUT_SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void socketChannelsWithSelectors(Transport transport) throws IOException {
        try (ServerSocketChannel server = transport.openServerChannel(); Selector shared = Selector.open()) {
            assertNoLeak(() -> awaitPeersClosed(transport), () -> {
                try (SocketChannel client = SocketChannel.open(transport.connectAddress(server));
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
    @Timeout(value = CYCLES_TIMEOUT_SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void javaNetSockets(Transport transport) throws IOException {
        assertNoLeak(() -> awaitPeersClosed(transport), () -> {
            try (ServerSocket server = transport.openServerSocket();
                    Socket client = new Socket()) {
                client.connect(transport.connectAddress(server));
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
        try (UnixSockets unix = new UnixSockets(); Selector shared = Selector.open()) {
            // Every peer is in this JVM and closed with its channel.
            assertNoLeak(() -> { }, () -> {
                withPassThroughChannels(unix, channels -> {
                    for (SelectableChannel channel : channels) {
                        channel.register(shared, SelectionKey.OP_READ & channel.validOps()
                                | SelectionKey.OP_WRITE & channel.validOps());
                    }
                    shared.selectNow();
                });
                shared.selectNow();
            });
        }
    }

    /**
     * The channels are closed by this thread while another sits in select on the selector they are registered with.
     * The JDK closes a closed channel's descriptor only once the channel has left every selector, and it checks that
     * only in its own selectors. Here the inner JDK selector drops its key during that select, while our key still
     * holds the channel; when our selector then drops its key, it must close the descriptor itself.
     */
    @Test
    @Timeout(value = CYCLES_TIMEOUT_SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void passThroughChannelsClosedDuringSelectByAnotherThread() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong selections = new AtomicLong();
        try (UnixSockets unix = new UnixSockets(); Selector shared = Selector.open()) {
            Async<Void> selecting = Async.start("selecting", () -> {
                while (!stop.get()) {
                    shared.select();
                    shared.selectedKeys().clear();
                    selections.incrementAndGet();
                }
                return null;
            });
            try {
                assertNoLeak(() -> { }, () -> {
                    SelectableChannel[] channels = withPassThroughChannels(unix, open -> {
                        for (SelectableChannel channel : open) {
                            // Nothing becomes ready (the sink, always writable, asks for nothing), so the
                            // select stays blocked until the wakeup below.
                            channel.register(shared, SelectionKey.OP_READ & channel.validOps());
                        }
                        // The selecting thread registers the channels in its inner selector at its next select.
                        long seen = selections.get();
                        shared.wakeup();
                        Io.await(() -> selections.get() > seen, () -> "the selector never returned from the"
                                + " select a wakeup should have ended");
                        // Closed between selects, a channel would leave our selector first and the JDK's
                        // inner one would close its descriptor: only a close during the select shows the leak.
                        selecting.awaitBlockedIn("select");
                    });
                    shared.wakeup();
                    Io.await(() -> Arrays.stream(channels).noneMatch(SelectableChannel::isRegistered),
                            () -> "closed channels still registered: " + Arrays.toString(channels));
                });
            } finally {
                stop.set(true);
                shared.wakeup();
                selecting.get();
            }
        }
    }

    /** What a cycle does with one open, non-blocking channel of each pass-through kind. */
    private interface PassThroughUse {
        void accept(SelectableChannel[] channels) throws IOException;
    }

    /**
     * Opens a datagram channel, both ends of a pipe and a connected UNIX-domain pair, all non-blocking, lets
     * {@code use} have them, then closes them all; returns them, closed.
     */
    private static SelectableChannel[] withPassThroughChannels(UnixSockets unix, PassThroughUse use)
            throws IOException {
        Pipe pipe = Pipe.open();
        try (DatagramChannel datagram = DatagramChannel.open()
                        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                Pipe.SourceChannel source = pipe.source();
                Pipe.SinkChannel sink = pipe.sink();
                SocketChannel unixClient = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            unixClient.connect(unix.address());
            try (SocketChannel unixAccepted = unix.server().accept()) {
                SelectableChannel[] channels = {datagram, source, sink, unixClient, unixAccepted};
                for (SelectableChannel channel : channels) {
                    channel.configureBlocking(false);
                }
                use.accept(channels);
                return channels;
            }
        }
    }

    /**
     * The peers closed, and on shm every connection kept for the next connect is let go: by design their
     * descriptors outlive the connection, bounded in number and time ({@link Io#SHM_KEEP_MILLIS}), so the counts
     * wait until the doorbell agent's sweep has let every kept one go.
     */
    private static void awaitPeersClosed(Transport transport) throws IOException {
        transport.awaitPeersClosed();
        if (transport.path() == PathKind.SHM) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(Io.SHM_KEEP_MILLIS + 2 * SWEEP_MILLIS));
        }
    }

    /**
     * Runs the cycle {@value #WARM_UP_CYCLES} times, counts the descriptors, runs it {@value #CYCLES} times and
     * counts again. The warm-up lets the JDK open what it opens once and keeps (e.g. the jars of classes loaded on
     * first use), so the two counts must match exactly: no slack, which would hide a leak of a few descriptors.
     */
    private static void assertNoLeak(PeersClosed peers, Cycle cycle) throws IOException {
        for (int i = 0; i < WARM_UP_CYCLES; i++) {
            cycle.run();
        }
        Map<Integer, String> before = openFdsAtRest(peers);
        for (int i = 0; i < CYCLES; i++) {
            cycle.run();
        }
        Map<Integer, String> after = openFdsAtRest(peers);
        Map<Integer, String> added = new TreeMap<>(after);
        added.entrySet().removeAll(before.entrySet());
        // fewer is no leak: Sovia closes the sleep selectors of threads that ended (earlier tests') every second
        assertTrue(after.size() <= before.size(), () -> "descriptors after " + CYCLES + " cycles: "
                + before.size() + " -> " + after.size() + "; new or reused: " + added);
    }

    /**
     * The open descriptors once no close is in flight. A closed connection keeps its descriptors until its peer has
     * closed too and Sovia's service thread has seen that, within a millisecond or so; a peer in another JVM closes
     * in its own time. So this waits for the peers, then until the descriptors hold still for {@value #STILL_MILLIS}
     * ms, at most {@link Io#WAIT_MILLIS}; a count that never holds still is returned as it is, for the assertion.
     */
    private static Map<Integer, String> openFdsAtRest(PeersClosed peers) throws IOException {
        peers.await();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Io.WAIT_MILLIS);
        Map<Integer, String> fds = openFds();
        while (System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(STILL_MILLIS));
            Map<Integer, String> again = openFds();
            if (again.equals(fds)) {
                return fds;
            }
            fds = again;
        }
        return fds;
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
