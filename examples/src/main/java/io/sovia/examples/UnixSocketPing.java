package io.sovia.examples;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * A reference for the benchmark: 64-byte (or {@code demo.ping.bytes}) ping-pong between two processes over a UNIX domain socket (blocking
 * channels of the plain JDK; the agent never touches UNIX sockets), what a same-host IPC costs in the kernel.
 *
 * <pre>
 *   UnixSocketPing pong PATH          binds PATH, prints READY, echoes one client until it ends, removes PATH
 *   UnixSocketPing ping PATH PINGS    prints RESULT rtt_us=... (after a quarter as many warm-up pings)
 * </pre>
 */
public final class UnixSocketPing {
    /** The ping size: {@code demo.ping.bytes}, as PingPongApp's; a ping carries (the low bytes of) its number. */
    private static final int PING = Math.max(1, Integer.getInteger("demo.ping.bytes", 64));
    private static final int STAMP = Math.min(4, PING);

    private UnixSocketPing() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 2 || !(args[0].equals("pong") || (args[0].equals("ping") && args.length == 3))) {
            System.err.println("usage: UnixSocketPing pong PATH | ping PATH PINGS");
            System.exit(2);
        }
        Path path = Path.of(args[1]);
        if (args[0].equals("pong")) {
            pong(path);
        } else {
            ping(path, Integer.parseInt(args[2]));
        }
    }

    private static void pong(Path path) throws IOException {
        Files.deleteIfExists(path);
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(path));
            System.out.println("READY");
            System.out.flush();
            try (SocketChannel peer = server.accept()) {
                ByteBuffer buffer = ByteBuffer.allocateDirect(PING);
                while (readFully(peer, buffer.clear())) {
                    peer.write(buffer.flip());
                }
            }
        } finally {
            Files.deleteIfExists(path);
        }
    }

    private static void ping(Path path, int pings) throws IOException {
        try (SocketChannel peer = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
            ByteBuffer buffer = ByteBuffer.allocateDirect(PING);
            int warmup = pings / 4;
            long start = 0;
            for (int i = 0; i < warmup + pings; i++) {
                if (i == warmup) {
                    start = System.nanoTime();
                }
                buffer.clear();
                for (int k = 0; k < STAMP; k++) {
                    buffer.put(k, (byte) (i >>> (8 * k)));
                }
                while (buffer.hasRemaining()) {
                    peer.write(buffer);
                }
                if (!readFully(peer, buffer.clear())) {
                    throw new IOException("ping " + i + " did not come back");
                }
                for (int k = 0; k < STAMP; k++) {
                    if (buffer.get(k) != (byte) (i >>> (8 * k))) {
                        throw new IOException("ping " + i + " came back as another");
                    }
                }
            }
            System.out.printf(Locale.ROOT, "RESULT rtt_us=%.2f%n", (System.nanoTime() - start) / 1e3 / pings);
        }
    }

    /** Fills {@code buffer}; false if the peer ended first. */
    private static boolean readFully(SocketChannel channel, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) {
                return false;
            }
        }
        return true;
    }
}
