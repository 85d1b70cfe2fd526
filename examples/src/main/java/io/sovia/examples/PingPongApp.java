package io.sovia.examples;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.Locale;

/**
 * A plain client and server, unaware of Sovia: 64-byte ping-pong, then one-way streams written in
 * 64 B, 4 KiB and 64 KiB pieces. The system property {@code demo.ping.bytes} (at least 1; both ends
 * must agree) changes the ping size; a ping carries its number in its first bytes (the low ones of it, if
 * it is shorter than four).
 *
 * <pre>
 *   java PingPongApp server API                          prints "PORT n", serves one client, exits
 *   java PingPongApp client API PORT [pings] [seconds]   prints one RESULT line
 *   java PingPongApp both API [pings] [seconds]          both in this JVM, the server on a thread
 * </pre>
 * API is how both ends do I/O: {@code nio} (blocking SocketChannel), {@code net} (java.net Socket
 * streams) or {@code selector} (non-blocking channels and a Selector loop; ping-pong only). Pings go
 * with TCP_NODELAY, streams without it, as apps usually configure them. A quarter of the pings warm the JIT up
 * before the clock starts. Each write size streams for about {@code seconds} (default 1; 0 runs the pings only)
 * after an untimed warm-up of doubling runs, the last of which lasts at least a quarter of that: a stream sized in
 * bytes was over in tens of milliseconds where the path is fast and measured the JIT's warm-up, not the path. Each
 * stream ends with a one-byte answer, so the clock covers delivery, not just queueing. The RESULT line gives the
 * round trips' mean, median and 99th percentile; {@code -Ddemo.rtt.tail=true} on the client adds a TAIL line
 * before it that counts the slow ones.
 */
public final class PingPongApp {
    private static final int PING = pingBytes();
    private static final int[] WRITE_SIZES = {64, 4096, 65536};
    /** Writes in the first warm-up run of a stream. */
    private static final long FIRST_WRITES = 64;

    private PingPongApp() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            usage();
        }
        String api = args[1];
        switch (args[0]) {
            case "server":
                serve(api, listen(api));
                break;
            case "client":
                int port = Integer.parseInt(args[2]);
                client(api, port, intArg(args, 3, 200_000), secondsArg(args, 4));
                break;
            case "both":
                Object listener = listen(api);
                Thread server = new Thread(() -> {
                    try {
                        serve(api, listener);
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }, "server");
                server.start();
                client(api, port(listener), intArg(args, 2, 200_000), secondsArg(args, 3));
                server.join();
                break;
            default:
                usage();
        }
    }

    private static void usage() {
        System.err.println("usage: PingPongApp server API | client API PORT [pings] [seconds]"
                + " | both API [pings] [seconds]  (API: nio, net, selector)");
        System.exit(2);
    }

    private static int pingBytes() {
        int bytes = Integer.getInteger("demo.ping.bytes", 64);
        if (bytes < 1) {
            throw new IllegalArgumentException("demo.ping.bytes must be at least 1");
        }
        return bytes;
    }

    /** Writes ping number {@code i} into the first four bytes of {@code ping}, or as many as it has. */
    private static void stamp(ByteBuffer ping, int i) {
        for (int k = 0; k < Math.min(4, ping.capacity()); k++) {
            ping.put(k, (byte) (i >>> (8 * k)));
        }
    }

    private static boolean stamped(byte[] ping, int i) {
        for (int k = 0; k < Math.min(4, ping.length); k++) {
            if (ping[k] != (byte) (i >>> (8 * k))) {
                return false;
            }
        }
        return true;
    }

    private static int intArg(String[] args, int i, int dflt) {
        return args.length > i ? Integer.parseInt(args[i]) : dflt;
    }

    private static double secondsArg(String[] args, int i) {
        double seconds = args.length > i ? Double.parseDouble(args[i]) : 1;
        if (!(seconds >= 0 && seconds <= 3600)) {
            throw new IllegalArgumentException("stream seconds must be between 0 and 3600: " + args[i]);
        }
        return seconds;
    }

    private static Object listen(String api) throws IOException {
        InetSocketAddress any = new InetSocketAddress(DemoSupport.host(), 0);
        Object listener;
        if (api.equals("net")) {
            ServerSocket s = new ServerSocket();
            s.bind(any);
            listener = s;
        } else {
            listener = ServerSocketChannel.open().bind(any);
        }
        System.out.println("PORT " + port(listener));
        System.out.flush();
        return listener;
    }

    private static int port(Object listener) throws IOException {
        return listener instanceof ServerSocket ? ((ServerSocket) listener).getLocalPort()
                : ((InetSocketAddress) ((ServerSocketChannel) listener).getLocalAddress()).getPort();
    }

    /** A connection as two streams: every API can be driven through these once connected. */
    private record Conn(InputStream in, OutputStream out, SocketChannel channel, Socket socket) implements AutoCloseable {
        static Conn of(SocketChannel ch) {
            return new Conn(Channels.newInputStream(ch), Channels.newOutputStream(ch), ch, ch.socket());
        }

        static Conn of(Socket s) throws IOException {
            return new Conn(s.getInputStream(), s.getOutputStream(), null, s);
        }

        void noDelay(boolean on) throws IOException {
            socket.setTcpNoDelay(on);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    private static void serve(String api, Object listener) throws IOException {
        try (AutoCloseable l = (AutoCloseable) listener;
             Conn c = listener instanceof ServerSocket ? Conn.of(((ServerSocket) listener).accept())
                     : Conn.of(((ServerSocketChannel) listener).accept())) {
            c.noDelay(true);
            ByteBuffer header = ByteBuffer.wrap(readFully(c.in(), new byte[4]));
            int pings = header.getInt(0);
            if (api.equals("selector")) {
                selectorEcho(c.channel(), pings);
            } else {
                byte[] ping = new byte[PING];
                for (int i = 0; i < pings; i++) {
                    readFully(c.in(), ping);
                    c.out().write(ping);
                }
            }
            c.noDelay(false);
            byte[] sink = new byte[65536];
            byte[] phase = new byte[8];
            while (true) {
                readFully(c.in(), phase);
                long bytes = ByteBuffer.wrap(phase).getLong();
                if (bytes == 0) {
                    break;
                }
                for (long left = bytes; left > 0; ) {
                    int n = c.in().read(sink, 0, (int) Math.min(sink.length, left));
                    if (n < 0) {
                        throw new IOException("stream ended " + left + " bytes early");
                    }
                    left -= n;
                }
                c.out().write(1);
            }
        } catch (Exception e) {
            throw e instanceof IOException ? (IOException) e : new IOException(e);
        }
    }

    private static void client(String api, int port, int pings, double seconds) throws IOException {
        if (pings < 1) {
            throw new IllegalArgumentException("pings must be at least 1: " + pings);
        }
        InetSocketAddress server = new InetSocketAddress(DemoSupport.host(), port);
        try (Conn c = api.equals("net") ? Conn.of(new Socket(server.getAddress(), port)) : Conn.of(SocketChannel.open(server))) {
            c.noDelay(true);
            c.out().write(ByteBuffer.allocate(4).putInt(pings).array());
            RoundTrips rtt = new RoundTrips(pings);
            if (api.equals("selector")) {
                selectorPings(c.channel(), rtt);
            } else {
                pings(c, rtt);
            }
            c.noDelay(false);
            StringBuilder result = new StringBuilder(String.format(Locale.ROOT,
                    "RESULT api=%s rtt_us=%.2f rtt_p50_us=%.2f rtt_p99_us=%.2f",
                    api, rtt.meanMicros(), rtt.percentileMicros(50), rtt.percentileMicros(99)));
            if (Boolean.getBoolean("demo.rtt.tail")) {
                System.out.println(rtt.tail());
            }
            for (int i = 0; i < WRITE_SIZES.length && seconds > 0; i++) {
                result.append(String.format(Locale.ROOT, " w%d_MiBps=%.1f", WRITE_SIZES[i],
                        timedStream(c, WRITE_SIZES[i], seconds)));
            }
            c.out().write(new byte[8]);
            System.out.println(result);
        }
    }

    private static void pings(Conn c, RoundTrips rtt) throws IOException {
        byte[] ping = new byte[PING];
        for (int i = 0; i < rtt.pings(); i++) {
            rtt.begin(i);
            stamp(ByteBuffer.wrap(ping), i);
            c.out().write(ping);
            readFully(c.in(), ping);
            if (!stamped(ping, i)) {
                throw new IOException("ping " + i + " came back as another");
            }
        }
        rtt.begin(rtt.pings());
    }

    /**
     * Streams in {@code writeSize} writes for about {@code seconds}, timed, after untimed runs that double until one
     * lasts a quarter of that (the JIT compiles this write size's path meanwhile, as the pings warm up theirs).
     *
     * @return MiB/s of the timed run, its answer included
     */
    private static double timedStream(Conn c, int writeSize, double seconds) throws IOException {
        long target = (long) (seconds * 1e9);
        long bytes = FIRST_WRITES * writeSize;
        long took;
        while ((took = stream(c, writeSize, bytes)) < target / 4) {
            bytes *= 2;
        }
        long timed = Math.max(writeSize, (long) (bytes * ((double) target / Math.max(1, took))));
        return (timed / 1048576.0) / (stream(c, writeSize, timed) / 1e9);
    }

    /** Streams {@code bytes} in {@code writeSize} writes; returns the nanoseconds it took, the answer included. */
    private static long stream(Conn c, int writeSize, long bytes) throws IOException {
        c.out().write(ByteBuffer.allocate(8).putLong(bytes).array());
        byte[] chunk = new byte[writeSize];
        long t0 = System.nanoTime();
        for (long left = bytes; left > 0; left -= writeSize) {
            c.out().write(chunk, 0, (int) Math.min(writeSize, left));
        }
        if (c.in().read() != 1) {
            throw new IOException("no answer after the stream");
        }
        return System.nanoTime() - t0;
    }

    private static void selectorPings(SocketChannel ch, RoundTrips rtt) throws IOException {
        ByteBuffer ping = ByteBuffer.allocateDirect(PING);
        SelectorLoop loop = new SelectorLoop(ch, ping, rtt.pings(), true) {
            @Override
            void onRound(int i) {
                rtt.begin(i);
                ping.clear();
                stamp(ping, i);
            }
        };
        loop.run();
        rtt.begin(rtt.pings());
    }

    /**
     * The timed round trips of a run: all but the first quarter, which warms the JIT up. The mean is what a stall
     * lifts (a sleep, a compile, a retransmission); the median is the path's usual cost.
     */
    private static final class RoundTrips {
        private final int pings;
        private final int warmup;
        private final long[] took;
        private long start;
        private long last;
        /** {@link #took} in order, sorted once for every percentile asked. */
        private long[] sorted;

        RoundTrips(int pings) {
            this.pings = pings;
            this.warmup = pings / 4;
            this.took = new long[pings - warmup];
        }

        int pings() {
            return pings;
        }

        /** Ping {@code i} starts now, so ping {@code i - 1} ended; {@code pings()} ends the last. */
        void begin(int i) {
            long now = System.nanoTime();
            if (i > warmup) {
                took[i - 1 - warmup] = now - last;
            } else if (i == warmup) {
                start = now;
            }
            last = now;
        }

        double meanMicros() {
            return (last - start) / 1e3 / took.length;
        }

        /** Call once the run ended (after {@code begin(pings())}). */
        double percentileMicros(int percent) {
            if (sorted == null) {
                sorted = took.clone();
                Arrays.sort(sorted);
            }
            return sorted[(int) ((long) (sorted.length - 1) * percent / 100)] / 1e3;
        }

        /**
         * The slow round trips: how many took over each bound and their time together, and in which tenth of the
         * run those over 50 us fell (a JIT still at work crowds the first tenths; a periodic disturbance spreads).
         */
        String tail() {
            StringBuilder b = new StringBuilder("TAIL");
            for (long bound : new long[] {20_000, 50_000, 200_000, 1_000_000, 5_000_000}) {
                long count = 0;
                long sum = 0;
                for (long t : took) {
                    if (t > bound) {
                        count++;
                        sum += t;
                    }
                }
                b.append(String.format(Locale.ROOT, " >%dus:%d(%.1fms)", bound / 1000, count, sum / 1e6));
            }
            long[] tenths = new long[10];
            for (int i = 0; i < took.length; i++) {
                if (took[i] > 50_000) {
                    tenths[(int) ((long) i * 10 / took.length)]++;
                }
            }
            return b.append(" over50us_by_tenth=").append(Arrays.toString(tenths)).toString();
        }
    }

    private static void selectorEcho(SocketChannel ch, int pings) throws IOException {
        new SelectorLoop(ch, ByteBuffer.allocateDirect(PING), pings, false).run();
    }

    /**
     * Ping-pong driven by a Selector: the client writes then waits for OP_READ; the echo side reads,
     * then writes back. The channel is blocking again afterwards, for the streams.
     */
    private static class SelectorLoop {
        private final SocketChannel ch;
        private final ByteBuffer buf;
        private final int rounds;
        private final boolean client;

        SelectorLoop(SocketChannel ch, ByteBuffer buf, int rounds, boolean client) {
            this.ch = ch;
            this.buf = buf;
            this.rounds = rounds;
            this.client = client;
        }

        void onRound(int i) {
            buf.clear();
        }

        void run() throws IOException {
            ch.configureBlocking(false);
            try (Selector selector = Selector.open()) {
                SelectionKey key = ch.register(selector, 0);
                for (int i = 0; i < rounds; i++) {
                    onRound(i);
                    if (client) {
                        writeAll(selector, key);
                        buf.clear();
                        readAll(selector, key);
                    } else {
                        readAll(selector, key);
                        buf.flip();
                        writeAll(selector, key);
                    }
                }
                key.cancel();
                selector.selectNow();
            }
            ch.configureBlocking(true);
        }

        private void readAll(Selector selector, SelectionKey key) throws IOException {
            key.interestOps(SelectionKey.OP_READ);
            while (buf.hasRemaining()) {
                if (ch.read(buf) < 0) {
                    throw new IOException("peer closed early");
                }
                if (buf.hasRemaining()) {
                    selector.select();
                    selector.selectedKeys().clear();
                }
            }
        }

        private void writeAll(Selector selector, SelectionKey key) throws IOException {
            key.interestOps(SelectionKey.OP_WRITE);
            while (buf.hasRemaining()) {
                ch.write(buf);
                if (buf.hasRemaining()) {
                    selector.select();
                    selector.selectedKeys().clear();
                }
            }
        }
    }

    private static byte[] readFully(InputStream in, byte[] b) throws IOException {
        for (int off = 0; off < b.length; ) {
            int n = in.read(b, off, b.length - off);
            if (n < 0) {
                throw new IOException("peer closed early");
            }
            off += n;
        }
        return b;
    }
}
