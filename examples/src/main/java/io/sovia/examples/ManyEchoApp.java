package io.sovia.examples;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Many connections at once: a one-thread non-blocking {@link Selector} echo server, and a client that
 * opens all its connections concurrently, then on each sends a pseudo-random stream (random-sized
 * writes) on one thread while another reads the echo and compares it byte for byte.
 *
 * <pre>
 *   ManyEchoApp server                          prints PORT n, echoes until standard input ends, prints ECHOED
 *                                               (and ERROR for each connection that failed, ACCEPT FAILED
 *                                               for the first accept that failed, e.g. out of descriptors)
 *   ManyEchoApp client PORT CONNECTIONS BYTES   prints CONNECTED c once all are, then RESULT connections=c bytes=b
 *                                               (or FAILED n of c connections, and exits 1)
 * </pre>
 * Plain JDK only.
 */
public final class ManyEchoApp {
    private static final int MAX_WRITE = 256 * 1024;

    private ManyEchoApp() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("server")) {
            server();
        } else if (args.length == 4 && args[0].equals("client")) {
            client(Integer.parseInt(args[1]), Integer.parseInt(args[2]), Long.parseLong(args[3]));
        } else {
            System.err.println("usage: ManyEchoApp server | client PORT CONNECTIONS BYTES");
            System.exit(2);
        }
    }

    private static void server() throws Exception {
        try (EchoServer server = new EchoServer()) {
            System.out.println("PORT " + server.port());
            System.out.flush();
            CountDownLatch stdinEnded = new CountDownLatch(1);
            Thread watcher = new Thread(() -> {
                try {
                    System.in.transferTo(OutputStream.nullOutputStream());
                } catch (IOException ignored) {
                    // ended either way
                }
                server.stop(stdinEnded);
            }, "stdin");
            watcher.setDaemon(true);
            watcher.start();
            server.serveUntil(stdinEnded);
            System.out.println(server.summary());
        }
    }

    /**
     * The server's one-thread selector loop, on a loopback port of its own; also what the soak test's server runs.
     * The counters belong to the thread in {@link #serveUntil}.
     */
    static final class EchoServer implements AutoCloseable {
        private final Selector selector;
        private final ServerSocketChannel listener;
        private long accepted;
        private long echoed;
        private long closed;
        private long errors;
        private long acceptFailures;

        EchoServer() throws IOException {
            selector = Selector.open();
            listener = ServerSocketChannel.open();
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
            listener.configureBlocking(false);
            listener.register(selector, SelectionKey.OP_ACCEPT);
        }

        int port() throws IOException {
            return ((InetSocketAddress) listener.getLocalAddress()).getPort();
        }

        /** Connections registered now (the listener's own key aside). */
        int open() {
            return selector.keys().size() - 1;
        }

        /** Counts {@code stop} down and wakes the loop, from any thread. */
        void stop(CountDownLatch stop) {
            stop.countDown();
            selector.wakeup();
        }

        /** Echoes until {@code stop} reaches zero (see {@link #stop}). */
        void serveUntil(CountDownLatch stop) throws Exception {
            while (stop.getCount() > 0) {
                selector.select(1000);
                for (Iterator<SelectionKey> it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                    SelectionKey key = it.next();
                    it.remove();
                    if (key.isAcceptable()) {
                        accept();
                    } else {
                        echo(key);
                    }
                }
            }
        }

        private void accept() throws InterruptedException {
            try {
                SocketChannel c;
                while ((c = listener.accept()) != null) {
                    c.configureBlocking(false);
                    c.register(selector, SelectionKey.OP_READ, ByteBuffer.allocateDirect(64 * 1024));
                    accepted++;
                }
            } catch (IOException e) {
                // out of descriptors, as servers meet it: say so, back off, accept again later
                if (acceptFailures++ == 0) {
                    System.out.println("ACCEPT FAILED " + e);
                }
                Thread.sleep(10);
            }
        }

        private void echo(SelectionKey key) throws IOException {
            SocketChannel c = (SocketChannel) key.channel();
            ByteBuffer b = (ByteBuffer) key.attachment();
            try {
                if (key.isWritable()) {
                    c.write(b);
                    if (!b.hasRemaining()) {
                        b.clear();
                        key.interestOps(SelectionKey.OP_READ);
                    }
                } else if (key.isReadable()) {
                    int n = c.read(b);
                    if (n < 0) {
                        c.close();
                        closed++;
                        return;
                    }
                    b.flip();
                    echoed += b.remaining();
                    c.write(b);
                    if (b.hasRemaining()) {
                        key.interestOps(SelectionKey.OP_WRITE);
                    } else {
                        b.clear();
                    }
                }
            } catch (IOException e) {
                System.out.println("ERROR " + e);
                errors++;
                c.close();
            }
        }

        String summary() {
            return "ECHOED accepted=" + accepted + " closed=" + closed + " bytes=" + echoed
                    + (errors > 0 ? " errors=" + errors : "") + (acceptFailures > 0 ? " acceptFailures=" + acceptFailures : "");
        }

        @Override
        public void close() throws IOException {
            try (selector) {
                listener.close();
            }
        }
    }

    private static void client(int port, int connections, long bytes) throws Exception {
        InetSocketAddress server = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        SocketChannel[] channels = new SocketChannel[connections];
        CyclicBarrier allConnected = new CyclicBarrier(connections);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicInteger failed = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        long start = System.nanoTime();
        long[] connectedAt = new long[1];
        for (int i = 0; i < connections; i++) {
            int index = i;
            Thread t = new Thread(() -> {
                try {
                    SocketChannel c = SocketChannel.open(server);
                    channels[index] = c;
                    if (allConnected.await(60, TimeUnit.SECONDS) == 0) {
                        connectedAt[0] = System.nanoTime();
                        System.out.println("CONNECTED " + connections);
                        System.out.flush();
                    }
                    Thread writer = new Thread(() -> {
                        try {
                            send(c, index, bytes);
                        } catch (Throwable e) {
                            failure.compareAndSet(null, new IOException("connection " + index + " send", e));
                        }
                    }, "writer-" + index);
                    writer.start();
                    receive(c, index, bytes);
                    writer.join();
                    c.close();
                } catch (Throwable e) {
                    failure.compareAndSet(null, new IOException("connection " + index, e));
                    failed.incrementAndGet();
                    allConnected.reset();
                }
            }, "reader-" + index);
            t.start();
            threads.add(t);
        }
        for (Thread t : threads) {
            t.join();
        }
        if (failure.get() != null) {
            System.out.println("FAILED " + failed.get() + " of " + connections + " connections, first: " + failure.get().getCause());
            System.out.flush();
            throw new IOException("a connection failed", failure.get());
        }
        double seconds = (System.nanoTime() - connectedAt[0]) / 1e9;
        System.out.printf(Locale.ROOT, "TIMING connect %.2f s, exchange %.2f s (%.0f MiB/s each way)%n",
                (connectedAt[0] - start) / 1e9, seconds, connections * (double) bytes / (1 << 20) / seconds);
        System.out.println("RESULT connections=" + connections + " bytes=" + bytes);
    }

    private static void send(SocketChannel c, int index, long bytes) throws IOException {
        PseudoRandomStream data = new PseudoRandomStream(index);
        SplittableRandom sizes = new SplittableRandom(~index);
        ByteBuffer b = (index & 1) == 0 ? ByteBuffer.allocate(MAX_WRITE) : ByteBuffer.allocateDirect(MAX_WRITE);
        for (long left = bytes; left > 0; ) {
            int n = (int) Math.min(left, 1 + sizes.nextInt(MAX_WRITE));
            data.next(b, n);
            while (b.hasRemaining()) {
                c.write(b);
            }
            left -= n;
        }
        c.shutdownOutput();
    }

    private static void receive(SocketChannel c, int index, long bytes) throws IOException {
        PseudoRandomStream data = new PseudoRandomStream(index);
        ByteBuffer b = ByteBuffer.allocate(MAX_WRITE);
        byte[] expected = new byte[MAX_WRITE];
        long total = 0;
        while (true) {
            b.clear();
            int n = c.read(b);
            if (n < 0) {
                break;
            }
            if (total + n > bytes) {
                throw new IOException("connection " + index + ": echo longer than the " + bytes + " bytes sent");
            }
            data.next(expected, n);
            int at = Arrays.mismatch(b.array(), 0, n, expected, 0, n);
            if (at >= 0) {
                throw new IOException("connection " + index + ": echo differs at byte " + (total + at));
            }
            total += n;
        }
        if (total != bytes) {
            throw new IOException("connection " + index + ": echo ended after " + total + " of " + bytes + " bytes");
        }
    }
}
