package io.sovia.examples;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Locale;

/**
 * A plain NIO client and server, unaware of Sovia: 64-byte ping-pong, then a one-way stream.
 *
 * <pre>
 *   java PingPongApp server                      prints "PORT n", serves one client, exits
 *   java PingPongApp client PORT [pings] [MiB]   prints RTT and throughput
 *   java PingPongApp both [pings] [MiB]          both in this JVM, the server on a thread of its own
 * </pre>
 * The server echoes each 64-byte ping, then swallows the stream and answers one byte at its end, so the
 * client's clock covers delivery, not just queueing.
 */
public final class PingPongApp {
    private static final int PING = 64;
    private static final int CHUNK = 64 * 1024;

    private PingPongApp() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length >= 1 && args[0].equals("server")) {
            try (ServerSocketChannel listener = listen()) {
                serve(listener);
            }
        } else if (args.length >= 1 && args[0].equals("both")) {
            both(args.length > 1 ? Integer.parseInt(args[1]) : 20_000, args.length > 2 ? Integer.parseInt(args[2]) : 256);
        } else if (args.length >= 2 && args[0].equals("client")) {
            int pings = args.length > 2 ? Integer.parseInt(args[2]) : 20_000;
            int mib = args.length > 3 ? Integer.parseInt(args[3]) : 256;
            client(Integer.parseInt(args[1]), pings, mib);
        } else {
            System.err.println("usage: PingPongApp server | client PORT [pings] [MiB] | both [pings] [MiB]");
            System.exit(2);
        }
    }

    private static ServerSocketChannel listen() throws IOException {
        ServerSocketChannel listener = ServerSocketChannel.open();
        listener.bind(new InetSocketAddress("127.0.0.1", 0));
        System.out.println("PORT " + port(listener));
        System.out.flush();
        return listener;
    }

    private static int port(ServerSocketChannel listener) throws IOException {
        return ((InetSocketAddress) listener.getLocalAddress()).getPort();
    }

    private static void both(int pings, int mib) throws IOException {
        try (ServerSocketChannel listener = listen()) {
            Thread server = new Thread(() -> {
                try {
                    serve(listener);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }, "server");
            server.start();
            client(port(listener), pings, mib);
            server.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void serve(ServerSocketChannel listener) throws IOException {
        try (SocketChannel ch = listener.accept()) {
                ch.socket().setTcpNoDelay(true);
                ByteBuffer header = ByteBuffer.allocateDirect(12);
                readFully(ch, header);
                int pings = header.getInt(0);
                long streamBytes = header.getLong(4);
                ByteBuffer ping = ByteBuffer.allocateDirect(PING);
                for (int i = 0; i < pings; i++) {
                    ping.clear();
                    readFully(ch, ping);
                    ping.flip();
                    writeFully(ch, ping);
                }
                ByteBuffer sink = ByteBuffer.allocateDirect(CHUNK);
                long left = streamBytes;
                while (left > 0) {
                    sink.clear();
                    int n = ch.read(sink);
                    if (n < 0) {
                        throw new IOException("stream ended " + left + " bytes early");
                    }
                    left -= n;
                }
                writeFully(ch, ByteBuffer.wrap(new byte[] {1}));
        }
    }

    private static void client(int port, int pings, int mib) throws IOException {
        try (SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port))) {
            ch.socket().setTcpNoDelay(true);
            long streamBytes = (long) mib << 20;
            ByteBuffer header = ByteBuffer.allocateDirect(12).putInt(pings).putLong(streamBytes).flip();
            writeFully(ch, header);
            ByteBuffer ping = ByteBuffer.allocateDirect(PING);
            // a quarter of the pings warm the JIT up before the clock starts
            int warmup = pings / 4;
            long start = 0;
            for (int i = 0; i < pings; i++) {
                if (i == warmup) {
                    start = System.nanoTime();
                }
                ping.clear();
                ping.putInt(0, i);
                writeFully(ch, ping);
                ping.clear();
                readFully(ch, ping);
                if (ping.getInt(0) != i) {
                    throw new IOException("ping " + i + " came back as " + ping.getInt(0));
                }
            }
            double rttMicros = (System.nanoTime() - start) / 1e3 / (pings - warmup);

            ByteBuffer chunk = ByteBuffer.allocateDirect(CHUNK);
            long t0 = System.nanoTime();
            for (long left = streamBytes; left > 0; left -= CHUNK) {
                chunk.clear().limit((int) Math.min(CHUNK, left));
                writeFully(ch, chunk);
            }
            readFully(ch, ByteBuffer.allocate(1));
            double seconds = (System.nanoTime() - t0) / 1e9;
            System.out.printf(Locale.ROOT, "RESULT rtt_us=%.2f stream_MiBps=%.1f%n", rttMicros, mib / seconds);
        }
    }

    private static void readFully(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                throw new IOException("peer closed early");
            }
        }
    }

    private static void writeFully(SocketChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }
}
