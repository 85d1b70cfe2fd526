package io.sovia.examples;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * One-way stream throughput, a plain app unaware of Sovia: the client writes for a while in writes of one size
 * through one API, the server reads everything in 64 KiB reads and answers one byte at the end of each run, so a
 * run's time covers delivery. A third of the time warms the JIT up first, untimed.
 *
 * <pre>
 *   StreamApp server                        prints PORT n; serves clients until killed
 *   StreamApp client PORT API SIZE SECONDS  prints RESULT api=.. size=.. MiBps=..
 *   StreamApp both API SIZE SECONDS         both in this JVM, the server on a thread
 * </pre>
 * API: {@code net} (java.net Socket streams over a heap array), {@code heap} (Channels streams over a blocking
 * SocketChannel, heap array), {@code direct} (SocketChannel.write of a direct buffer), {@code file}
 * (FileChannel.transferTo of a temporary file of SIZE bytes, as file servers send).
 */
public final class StreamApp {
    private StreamApp() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("server")) {
            server();
        } else if (args.length == 5 && args[0].equals("client")) {
            client(Integer.parseInt(args[1]), args[2], Integer.parseInt(args[3]), Double.parseDouble(args[4]));
        } else if (args.length == 4 && args[0].equals("both")) {
            try (ServerSocket listener = new ServerSocket(0, 50, DemoSupport.host())) {
                Thread acceptor = new Thread(() -> serve(listener), "stream-server");
                acceptor.setDaemon(true);
                acceptor.start();
                client(listener.getLocalPort(), args[1], Integer.parseInt(args[2]), Double.parseDouble(args[3]));
            }
        } else {
            System.err.println("usage: StreamApp server | client PORT net|heap|direct|file SIZE SECONDS"
                    + " | both net|heap|direct|file SIZE SECONDS");
            System.exit(2);
        }
    }

    private static void server() throws IOException {
        try (ServerSocket listener = new ServerSocket(0, 50, DemoSupport.host())) {
            System.out.println("PORT " + listener.getLocalPort());
            System.out.flush();
            serve(listener);
        }
    }

    /** Drains each client on a thread of its own until the listener closes. */
    private static void serve(ServerSocket listener) {
        try {
            while (true) {
                Socket s = listener.accept();
                Thread t = new Thread(() -> drain(s));
                t.setDaemon(true);
                t.start();
            }
        } catch (IOException closed) {
            // the listener closed: no more clients
        }
    }

    /** Reads runs: an 8-byte length, then that many bytes, answered by one byte; until the client closes. */
    private static void drain(Socket s) {
        try (s) {
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            byte[] sink = new byte[65536];
            while (true) {
                byte[] header = in.readNBytes(8);
                if (header.length < 8) {
                    return;
                }
                for (long left = ByteBuffer.wrap(header).getLong(); left > 0; ) {
                    int n = in.read(sink, 0, (int) Math.min(sink.length, left));
                    if (n < 0) {
                        throw new IOException("stream ended " + left + " bytes early");
                    }
                    left -= n;
                }
                out.write(1);
            }
        } catch (IOException e) {
            System.err.println("ERROR " + e);
        }
    }

    private static void client(int port, String api, int size, double seconds) throws IOException {
        InetSocketAddress server = new InetSocketAddress(DemoSupport.host(), port);
        try (SocketChannel ch = api.equals("net") ? null : SocketChannel.open(server);
             Socket s = api.equals("net") ? new Socket(server.getAddress(), port) : ch.socket()) {
            InputStream in = api.equals("net") ? s.getInputStream() : Channels.newInputStream(ch);
            OutputStream out = api.equals("net") ? s.getOutputStream() : Channels.newOutputStream(ch);
            Writer writer = switch (api) {
                case "net", "heap" -> heap(out, size);
                case "direct" -> direct(ch, size);
                case "file" -> file(ch, size);
                default -> throw new IllegalArgumentException("API " + api);
            };
            run(in, out, writer, size, seconds / 3);
            double mibps = run(in, out, writer, size, seconds);
            System.out.printf(Locale.ROOT, "RESULT api=%s size=%d MiBps=%.1f%n", api, size, mibps);
        }
    }

    private interface Writer {
        void write() throws IOException;
    }

    private static Writer heap(OutputStream out, int size) {
        byte[] chunk = new byte[size];
        return () -> out.write(chunk);
    }

    private static Writer direct(SocketChannel ch, int size) {
        ByteBuffer chunk = ByteBuffer.allocateDirect(size);
        return () -> {
            chunk.clear();
            while (chunk.hasRemaining()) {
                ch.write(chunk);
            }
        };
    }

    private static Writer file(SocketChannel ch, int size) throws IOException {
        Path path = Files.createTempFile("sovia-stream", ".bin");
        path.toFile().deleteOnExit();
        Files.write(path, new byte[size]);
        FileChannel file = FileChannel.open(path);
        return () -> {
            for (long at = 0; at < size; ) {
                at += file.transferTo(at, size - at, ch);
            }
        };
    }

    /** Writes for about {@code seconds} in runs of at least 1 MiB; returns MiB/s including the answers. */
    private static double run(InputStream in, OutputStream out, Writer writer, int size, double seconds)
            throws IOException {
        int writesPerRun = Math.max(1, (1 << 20) / size);
        long runBytes = (long) writesPerRun * size;
        long start = System.nanoTime();
        long end = start + (long) (seconds * 1e9);
        long bytes = 0;
        do {
            out.write(ByteBuffer.allocate(8).putLong(runBytes).array());
            for (int i = 0; i < writesPerRun; i++) {
                writer.write();
            }
            if (in.read() != 1) {
                throw new IOException("no answer after a run");
            }
            bytes += runBytes;
        } while (System.nanoTime() < end);
        return bytes / 1048576.0 / ((System.nanoTime() - start) / 1e9);
    }
}
