package io.sovia.examples;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.security.MessageDigest;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One connection that carries a pseudo-random stream in both directions at once, written in
 * random-sized writes (1 byte up to {@code maxWrite}, log-uniform, heap and direct buffers, now and
 * then gathering) and read in random-sized reads; each receiver hashes what arrived. Each side uses
 * {@code nio} (a blocking {@link SocketChannel}) or {@code net} ({@link Socket} streams). After its
 * stream each side shuts its output down, and the other must then see end of stream exactly there.
 *
 * <pre>
 *   DuplexStreamApp server nio|net [connections]    prints PORT n, serves that many clients (default 1) one by one
 *   DuplexStreamApp client PORT nio|net BYTES SEED_C2S SEED_S2C MAX_WRITE
 * </pre>
 * The stream for seed s is {@link DemoSupport#pseudoRandom}(s, BYTES). The client sends a 32-byte header
 * (bytes, both seeds, max write). Both print {@code RESULT c2s=<sha256> s2c=<sha256>}: what each side
 * received, and for the other direction the digest of what it generated; {@code TIMING} lines give the speed.
 * The client prints {@code CONNECTED} once its connect returned.
 * Plain JDK only: it never knows whether Sovia is there.
 */
public final class DuplexStreamApp {
    private static final int HEADER = 32;

    private DuplexStreamApp() {
    }

    /** One end of the connection, whichever API carries it. */
    private interface End extends AutoCloseable {
        void write(Chunk chunk) throws IOException;

        /** Reads into {@code into} (a heap or direct buffer); -1 at end of stream. */
        int read(ByteBuffer into) throws IOException;

        void shutdownOutput() throws IOException;

        @Override
        void close() throws IOException;
    }

    /** A write: {@code length} bytes at the start of {@code buffer}, maybe split in two for a gathering write. */
    private record Chunk(ByteBuffer buffer, int length, int split) {
    }

    public static void main(String[] args) throws Exception {
        switch (args.length > 0 ? args[0] : "") {
            case "server" -> server(args[1], args.length > 2 ? Integer.parseInt(args[2]) : 1);
            case "client" -> client(Integer.parseInt(args[1]), args[2], Long.parseLong(args[3]), Long.parseLong(args[4]),
                    Long.parseLong(args[5]), Integer.parseInt(args[6]));
            default -> {
                System.err.println("usage: DuplexStreamApp server nio|net [connections]"
                        + " | client PORT nio|net BYTES SEED_C2S SEED_S2C MAX_WRITE");
                System.exit(2);
            }
        }
    }

    private static void server(String api, int connections) throws Exception {
        InetSocketAddress any = new InetSocketAddress(DemoSupport.host(), 0);
        if (api.equals("nio")) {
            try (ServerSocketChannel listener = ServerSocketChannel.open().bind(any)) {
                announce(((InetSocketAddress) listener.getLocalAddress()).getPort());
                for (int i = 0; i < connections; i++) {
                    serve(nio(listener.accept()));
                }
            }
        } else {
            try (ServerSocket listener = new ServerSocket()) {
                listener.bind(any);
                announce(listener.getLocalPort());
                for (int i = 0; i < connections; i++) {
                    serve(net(listener.accept()));
                }
            }
        }
    }

    private static void announce(int port) {
        System.out.println("PORT " + port);
        System.out.flush();
    }

    /** Serves one accepted connection (for launchers that listen themselves). */
    static void serve(Socket socket) throws Exception {
        serve(net(socket));
    }

    private static void serve(End end) throws Exception {
        try (end) {
            ByteBuffer header = ByteBuffer.allocate(HEADER);
            while (header.hasRemaining()) {
                if (end.read(header) < 0) {
                    throw new IOException("the client left before its header");
                }
            }
            header.flip();
            long bytes = header.getLong();
            long seedC2S = header.getLong();
            long seedS2C = header.getLong();
            int maxWrite = header.getInt();
            duplex(end, bytes, seedS2C, seedC2S, maxWrite, false);
        }
    }

    private static void client(int port, String api, long bytes, long seedC2S, long seedS2C, int maxWrite)
            throws Exception {
        InetSocketAddress server = new InetSocketAddress(DemoSupport.host(), port);
        End end = api.equals("nio") ? nio(SocketChannel.open(server)) : net(new Socket(server.getAddress(), port));
        System.out.println("CONNECTED");
        System.out.flush();
        try (end) {
            ByteBuffer header = ByteBuffer.allocate(HEADER).putLong(bytes).putLong(seedC2S).putLong(seedS2C)
                    .putInt(maxWrite).putInt(0).flip();
            end.write(new Chunk(header, HEADER, 0));
            duplex(end, bytes, seedC2S, seedS2C, maxWrite, true);
        }
    }

    /** Sends the stream of {@code sendSeed} on a thread of its own while this one receives. */
    private static void duplex(End end, long bytes, long sendSeed, long receiveSeed, int maxWrite, boolean client)
            throws Exception {
        long start = System.nanoTime();
        AtomicReference<Throwable> sendFailure = new AtomicReference<>();
        long[] sendNanos = new long[1];
        Thread sender = new Thread(() -> {
            try {
                send(end, bytes, sendSeed, maxWrite);
                end.shutdownOutput();
                sendNanos[0] = System.nanoTime() - start;
            } catch (Throwable t) {
                sendFailure.set(t);
            }
        }, "sender");
        sender.start();
        String received = receive(end, bytes, receiveSeed ^ 0x5DEECE66DL, maxWrite);
        long receiveNanos = System.nanoTime() - start;
        sender.join();
        if (sendFailure.get() != null) {
            throw new IOException("sending failed", sendFailure.get());
        }
        String sent = DemoSupport.sha256OfPseudoRandom(sendSeed, bytes);
        double mib = bytes / (double) (1 << 20);
        System.out.printf(Locale.ROOT, "TIMING sent %.0f MiB in %.2f s (%.0f MiB/s), received %.0f MiB in %.2f s (%.0f MiB/s)%n",
                mib, sendNanos[0] / 1e9, mib / (sendNanos[0] / 1e9), mib, receiveNanos / 1e9, mib / (receiveNanos / 1e9));
        System.out.println(client ? "RESULT c2s=" + sent + " s2c=" + received : "RESULT c2s=" + received + " s2c=" + sent);
        System.out.flush();
    }

    private static void send(End end, long bytes, long seed, int maxWrite) throws IOException {
        SplittableRandom sizes = new SplittableRandom(seed ^ 0x9E3779B97F4A7C15L);
        PseudoRandomStream stream = new PseudoRandomStream(seed);
        ByteBuffer heap = ByteBuffer.allocate(maxWrite);
        ByteBuffer direct = ByteBuffer.allocateDirect(maxWrite);
        for (long left = bytes; left > 0; ) {
            int n = (int) Math.min(left, logUniform(sizes, maxWrite));
            ByteBuffer b = sizes.nextBoolean() ? heap : direct;
            stream.next(b, n);
            int split = n > 1 && sizes.nextInt(8) == 0 ? 1 + sizes.nextInt(n - 1) : 0;
            end.write(new Chunk(b, n, split));
            left -= n;
        }
    }

    private static String receive(End end, long bytes, long sizeSeed, int maxRead) throws IOException {
        SplittableRandom sizes = new SplittableRandom(sizeSeed);
        MessageDigest digest = DemoSupport.sha256();
        ByteBuffer heap = ByteBuffer.allocate(maxRead);
        ByteBuffer direct = ByteBuffer.allocateDirect(maxRead);
        long total = 0;
        while (true) {
            ByteBuffer b = sizes.nextBoolean() ? heap : direct;
            b.clear().limit(logUniform(sizes, maxRead));
            int n = end.read(b);
            if (n < 0) {
                break;
            }
            total += n;
            if (total > bytes) {
                throw new IOException("received " + total + " bytes, more than the " + bytes + " sent");
            }
            b.flip();
            digest.update(b);
        }
        if (total != bytes) {
            throw new IOException("end of stream after " + total + " of " + bytes + " bytes");
        }
        return DemoSupport.hex(digest);
    }

    /** 1 to {@code max}, log-uniform: as many writes of a few bytes as of hundreds of KiB. */
    private static int logUniform(SplittableRandom random, int max) {
        return (int) Math.min(max, Math.max(1, Math.round(Math.exp(random.nextDouble() * Math.log(max)))));
    }

    private static End nio(SocketChannel channel) {
        return new End() {
            @Override
            public void write(Chunk c) throws IOException {
                ByteBuffer all = c.buffer().duplicate().position(0).limit(c.length());
                if (c.split() > 0) {
                    ByteBuffer[] parts = {all.duplicate().limit(c.split()), all.duplicate().position(c.split())};
                    while (parts[1].hasRemaining()) {
                        channel.write(parts);
                    }
                } else {
                    while (all.hasRemaining()) {
                        channel.write(all);
                    }
                }
            }

            @Override
            public int read(ByteBuffer into) throws IOException {
                return channel.read(into);
            }

            @Override
            public void shutdownOutput() throws IOException {
                channel.shutdownOutput();
            }

            @Override
            public void close() throws IOException {
                channel.close();
            }
        };
    }

    private static End net(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        OutputStream out = socket.getOutputStream();
        byte[] writeArray = new byte[0];
        return new End() {
            private byte[] writes = writeArray;
            private byte[] reads = new byte[0];

            @Override
            public void write(Chunk c) throws IOException {
                if (c.buffer().hasArray()) {
                    out.write(c.buffer().array(), c.buffer().arrayOffset(), c.length());
                } else {
                    if (writes.length < c.length()) {
                        writes = new byte[c.buffer().capacity()];
                    }
                    c.buffer().get(0, writes, 0, c.length());
                    out.write(writes, 0, c.length());
                }
            }

            @Override
            public int read(ByteBuffer into) throws IOException {
                if (into.hasArray()) {
                    int n = in.read(into.array(), into.arrayOffset() + into.position(), into.remaining());
                    if (n > 0) {
                        into.position(into.position() + n);
                    }
                    return n;
                }
                if (reads.length < into.remaining()) {
                    reads = new byte[into.capacity()];
                }
                int n = in.read(reads, 0, into.remaining());
                if (n > 0) {
                    into.put(reads, 0, n);
                }
                return n;
            }

            @Override
            public void shutdownOutput() throws IOException {
                socket.shutdownOutput();
            }

            @Override
            public void close() throws IOException {
                socket.close();
            }
        };
    }
}
