package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/**
 * Blocking calls on virtual threads (JDK 21+; skipped on 17): a virtual thread blocked in a read, write, accept or
 * connect must park and leave its carrier to other virtual threads, and an interrupt must end the call as the JDK
 * ends it on a virtual thread: a channel throws ClosedByInterruptException and is closed; a java.net socket is
 * closed and its call throws {@code SocketException("Closed by interrupt")}; the interrupt status stays set.
 *
 * <p>The agent module's failsafe JVM gives the virtual-thread scheduler two carriers at most
 * ({@code jdk.virtualThreadScheduler.parallelism} and {@code maxPoolSize}); each scenario blocks more virtual threads
 * than that, then checks that another virtual thread still runs a whole exchange.
 */
class VirtualThreadIT extends SoviaTestBase {

    /** Big enough that a write blocks on every transport (loopback TCP buffers a few MiB, the engine 1 MiB). */
    private static final byte[] BIG = new byte[32 << 20];

    /** More virtual threads than carriers, so blocked ones that held their carriers would starve the rest. */
    private static int blockers() {
        return VirtualThreads.maxCarriers() + 2;
    }

    @TransportTest
    void blockedReadsLeaveCarriersFree(Transport transport) throws Exception {
        VirtualThreads.assumeAvailable();
        List<AutoCloseable> open = new ArrayList<>();
        try {
            List<Async<Integer>> readers = new ArrayList<>();
            List<Runnable> feeds = new ArrayList<>();
            for (int i = 0; i < blockers(); i++) {
                NioPair nio = opened(open, NioPair.open(transport));
                readers.add(Async.startVirtual("nio-reader-" + i, () -> (int) Io.readFully(nio.client(), 1)[0]));
                feeds.add(() -> write(nio.accepted(), 7));
                SocketPair net = opened(open, SocketPair.open(transport));
                readers.add(Async.startVirtual("net-reader-" + i, () -> net.client().getInputStream().read()));
                feeds.add(() -> write(net.accepted(), 7));
            }
            awaitAllBlockedIn(readers, "read");
            assertOthersRun(transport, open, readers.size() + " reads");
            feeds.forEach(Runnable::run);
            for (Async<Integer> reader : readers) {
                assertEquals(7, reader.get(), reader.thread().getName());
            }
        } finally {
            closeAll(open);
        }
    }

    @TransportTest
    void blockedWritesLeaveCarriersFree(Transport transport) throws Exception {
        VirtualThreads.assumeAvailable();
        List<AutoCloseable> open = new ArrayList<>();
        try {
            List<Async<Integer>> writers = new ArrayList<>();
            List<Async<byte[]>> drains = new ArrayList<>();
            List<Runnable> startDrains = new ArrayList<>();
            for (int i = 0; i < blockers(); i++) {
                NioPair nio = opened(open, NioPair.open(transport));
                writers.add(Async.startVirtual("nio-writer-" + i, () -> {
                    Io.writeFully(nio.client(), ByteBuffer.wrap(BIG));
                    return BIG.length;
                }));
                startDrains.add(() -> drains.add(Async.start("nio-drain", () -> Io.readFully(nio.accepted(), BIG.length))));
                SocketPair net = opened(open, SocketPair.open(transport));
                writers.add(Async.startVirtual("net-writer-" + i, () -> {
                    net.client().getOutputStream().write(BIG);
                    return BIG.length;
                }));
                startDrains.add(() -> drains.add(Async.start("net-drain",
                        () -> Io.readFully(net.accepted().getInputStream(), BIG.length))));
            }
            awaitAllBlockedIn(writers, "write");
            assertOthersRun(transport, open, writers.size() + " writes");
            startDrains.forEach(Runnable::run);
            for (Async<Integer> writer : writers) {
                assertEquals(BIG.length, writer.get(), writer.thread().getName());
            }
            for (Async<byte[]> drain : drains) {
                assertEquals(BIG.length, drain.get().length);
            }
        } finally {
            closeAll(open);
        }
    }

    /** Blocked accepts on both APIs; then interrupts end them as the JDK's do and close their listeners. */
    @TransportTest
    void blockedAcceptsLeaveCarriersFreeAndEndByInterrupt(Transport transport) throws Exception {
        VirtualThreads.assumeAvailable();
        List<AutoCloseable> open = new ArrayList<>();
        try {
            List<Async<?>> channelAccepts = new ArrayList<>();
            List<Async<?>> socketAccepts = new ArrayList<>();
            List<AutoCloseable> listeners = new ArrayList<>();
            for (int i = 0; i < blockers(); i++) {
                ServerSocketChannel channel = opened(open, transport.openServerChannel());
                channelAccepts.add(Async.startVirtual("nio-acceptor-" + i, channel::accept));
                ServerSocket socket = opened(open, transport.openServerSocket());
                socketAccepts.add(Async.startVirtual("net-acceptor-" + i, socket::accept));
                listeners.add(channel);
                listeners.add(socket);
            }
            awaitAllBlockedIn(channelAccepts, "accept");
            awaitAllBlockedIn(socketAccepts, "accept");
            assertOthersRun(transport, open, 2 * blockers() + " accepts");
            for (Async<?> accept : channelAccepts) {
                accept.thread().interrupt();
                assertInstanceOf(ClosedByInterruptException.class, accept.failure());
            }
            for (Async<?> accept : socketAccepts) {
                accept.thread().interrupt();
                assertClosedByInterrupt(accept.failure());
            }
            assertFalse(listeners.stream().anyMatch(VirtualThreadIT::isOpen), "an interrupted accept closes its listener");
        } finally {
            closeAll(open);
        }
    }

    /**
     * Connects that block because the listener's queue is full (Linux then drops their SYNs); interrupts end them as
     * the JDK's and close their sockets.
     */
    @TransportTest
    void blockedConnectsLeaveCarriersFreeAndEndByInterrupt(Transport transport) throws Exception {
        VirtualThreads.assumeAvailable();
        Assumptions.assumeTrue(transport.acceptedSeesClient(),
                "a relay accepts every connect at once, so no connect to it blocks");
        List<AutoCloseable> open = new ArrayList<>();
        try {
            ServerSocketChannel server = opened(open, transport.openServerChannel());
            SocketAddress to = transport.connectAddress(server);
            fillAcceptQueue(open, to);
            List<SocketChannel> channels = new ArrayList<>();
            List<Socket> sockets = new ArrayList<>();
            List<Async<?>> connects = new ArrayList<>();
            for (int i = 0; i < blockers(); i++) {
                SocketChannel channel = opened(open, SocketChannel.open());
                channels.add(channel);
                connects.add(Async.startVirtual("nio-connector-" + i, () -> channel.connect(to)));
                Socket socket = opened(open, new Socket());
                sockets.add(socket);
                connects.add(Async.startVirtual("net-connector-" + i, () -> {
                    socket.connect(to);
                    return socket;
                }));
            }
            awaitAllBlockedIn(connects, "connect");
            assertOthersRun(transport, open, connects.size() + " connects");
            for (int i = 0; i < connects.size(); i++) {
                Async<?> connect = connects.get(i);
                connect.thread().interrupt();
                Throwable thrown = connect.failure();
                if (i % 2 == 0) {
                    assertInstanceOf(ClosedByInterruptException.class, thrown);
                    assertFalse(channels.get(i / 2).isOpen(), "an interrupted connect closes its channel");
                } else {
                    assertClosedByInterrupt(thrown);
                    assertTrue(sockets.get(i / 2).isClosed(), "an interrupted connect closes its socket");
                }
            }
        } finally {
            closeAll(open);
        }
    }

    @TransportTest
    void interruptEndsChannelRead(Transport transport) throws Exception {
        VirtualThreads.assumeAvailable();
        try (NioPair pair = NioPair.open(transport)) {
            Async<Boolean> reader = Async.startVirtual("reader", () -> AsyncCloseIT.readExpectingInterrupt(pair.client()));
            reader.awaitBlockedIn("read").thread().interrupt();
            assertTrue(reader.get(), "the reader keeps its interrupt status");
            assertFalse(pair.client().isOpen());
            assertEquals(-1, pair.accepted().read(ByteBuffer.allocate(1)), "the peer sees EOF");
        }
    }

    @TransportTest
    void interruptEndsChannelWrite(Transport transport) throws Exception {
        VirtualThreads.assumeAvailable();
        try (NioPair pair = NioPair.open(transport)) {
            Async<Boolean> writer = Async.startVirtual("writer", () -> {
                try {
                    Io.writeFully(pair.client(), ByteBuffer.wrap(BIG));
                    return fail("a write of " + BIG.length + " bytes nobody reads returned");
                } catch (ClosedByInterruptException expected) {
                    return Thread.currentThread().isInterrupted();
                }
            });
            writer.awaitBlockedIn("write").thread().interrupt();
            assertTrue(writer.get(), "the writer keeps its interrupt status");
            assertFalse(pair.client().isOpen());
        }
    }

    @TransportTest
    void interruptEndsSocketRead(Transport transport) throws Exception {
        VirtualThreads.assumeAvailable();
        try (SocketPair pair = SocketPair.open(transport)) {
            Async<Boolean> reader = Async.startVirtual("reader", () -> socketCallExpectingInterrupt(
                    () -> pair.client().getInputStream().read()));
            reader.awaitBlockedIn("read").thread().interrupt();
            assertTrue(reader.get(), "the reader keeps its interrupt status");
            assertTrue(pair.client().isClosed(), "an interrupted read closes the socket");
            assertEquals(-1, pair.accepted().getInputStream().read(), "the peer sees EOF");
        }
    }

    /** With SO_TIMEOUT an interrupt still closes the socket: it is no timeout. */
    @TransportTest
    void interruptEndsTimedSocketRead(Transport transport) throws Exception {
        VirtualThreads.assumeAvailable();
        try (SocketPair pair = SocketPair.open(transport)) {
            pair.client().setSoTimeout((int) Io.WAIT_MILLIS * 2);
            Async<Boolean> reader = Async.startVirtual("reader", () -> socketCallExpectingInterrupt(
                    () -> pair.client().getInputStream().read()));
            reader.awaitBlockedIn("read").thread().interrupt();
            assertTrue(reader.get(), "the reader keeps its interrupt status");
            assertTrue(pair.client().isClosed(), "an interrupted read closes the socket");
        }
    }

    @TransportTest
    void interruptBeforeSocketRead(Transport transport) throws Exception {
        VirtualThreads.assumeAvailable();
        try (SocketPair pair = SocketPair.open(transport)) {
            Async<Boolean> reader = Async.startVirtual("reader", () -> {
                Thread.currentThread().interrupt();
                return socketCallExpectingInterrupt(() -> pair.client().getInputStream().read());
            });
            assertTrue(reader.get(), "the reader keeps its interrupt status");
            assertTrue(pair.client().isClosed(), "an interrupted read closes the socket");
        }
    }

    /** Data already there is read although the thread is interrupted, as on the JDK. */
    @TransportTest
    void interruptedSocketReadTakesWaitingData(Transport transport) throws Exception {
        VirtualThreads.assumeAvailable();
        try (SocketPair pair = SocketPair.open(transport)) {
            pair.accepted().getOutputStream().write(9);
            Io.await(() -> available(pair.client()) > 0, () -> "the byte never arrived");
            Async<Integer> reader = Async.startVirtual("reader", () -> {
                Thread.currentThread().interrupt();
                return pair.client().getInputStream().read();
            });
            assertEquals(9, reader.get());
            assertFalse(pair.client().isClosed());
        }
    }

    @TransportTest
    void interruptEndsSocketWrite(Transport transport) throws Exception {
        VirtualThreads.assumeAvailable();
        try (SocketPair pair = SocketPair.open(transport)) {
            Async<Boolean> writer = Async.startVirtual("writer", () -> socketCallExpectingInterrupt(() -> {
                pair.client().getOutputStream().write(BIG);
                return BIG.length;
            }));
            writer.awaitBlockedIn("write").thread().interrupt();
            assertTrue(writer.get(), "the writer keeps its interrupt status");
            assertTrue(pair.client().isClosed(), "an interrupted write closes the socket");
        }
    }

    /** A java.net call that blocks, returning what a successful one would. */
    @FunctionalInterface
    private interface SocketCall {
        int call() throws IOException;
    }

    /**
     * Runs a java.net call that an interrupt must end as on the JDK (on a virtual thread): the call throws
     * {@code SocketException("Closed by interrupt")}. Returns the interrupt status afterwards.
     */
    private static boolean socketCallExpectingInterrupt(SocketCall call) throws IOException {
        try {
            int n = call.call();
            return fail("the call returned " + n + " instead of throwing SocketException(\"Closed by interrupt\")");
        } catch (SocketTimeoutException e) {
            return fail("an interrupt is no timeout", e);
        } catch (SocketException expected) {
            assertEquals("Closed by interrupt", expected.getMessage());
            return Thread.currentThread().isInterrupted();
        }
    }

    private static void assertClosedByInterrupt(Throwable thrown) {
        assertInstanceOf(SocketException.class, thrown);
        assertEquals("Closed by interrupt", thrown.getMessage());
    }

    /**
     * Every blocked virtual thread may hold a carrier; another virtual thread must still run a whole exchange over
     * a new connection of the transport.
     */
    private static void assertOthersRun(Transport transport, List<AutoCloseable> open, String blocked)
            throws Exception {
        NioPair spare = opened(open, NioPair.open(transport));
        Async<Boolean> probe = Async.startVirtual("probe", () -> {
            Io.assertTalks(spare.client(), spare.accepted());
            return true;
        });
        try {
            assertTrue(probe.get());
        } catch (AssertionError e) {
            throw new AssertionError(blocked + " blocked on virtual threads hold the scheduler's "
                    + VirtualThreads.maxCarriers() + " carriers: another virtual thread made no progress", e);
        }
    }

    private static void awaitAllBlockedIn(List<? extends Async<?>> calls, String method) {
        calls.forEach(call -> call.awaitBlockedIn(method));
    }

    /** Connects until one times out: the listener's accept queue is full, so further connects block. */
    private static void fillAcceptQueue(List<AutoCloseable> open, SocketAddress to) throws IOException {
        for (int i = 0; i < 1000; i++) {
            Socket filler = opened(open, new Socket());
            try {
                filler.connect(to, 200);
            } catch (SocketTimeoutException full) {
                return;
            }
        }
        fail("1000 connects to " + to + " never filled its accept queue");
    }

    private static void write(SocketChannel channel, int b) {
        try {
            Io.writeFully(channel, ByteBuffer.wrap(new byte[] {(byte) b}));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static void write(Socket socket, int b) {
        try {
            socket.getOutputStream().write(b);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static int available(Socket socket) {
        try {
            return socket.getInputStream().available();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static boolean isOpen(AutoCloseable listener) {
        return listener instanceof ServerSocket socket ? !socket.isClosed() : ((ServerSocketChannel) listener).isOpen();
    }

    private static <T extends AutoCloseable> T opened(List<AutoCloseable> open, T resource) {
        open.add(resource);
        return resource;
    }

    private static void closeAll(List<AutoCloseable> open) throws IOException {
        Io.closeAll(open.toArray(AutoCloseable[]::new));
    }
}
