package io.sovia.examples;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One connection whose peer is killed: one side is the victim ({@code idle}: it sends one byte, then
 * neither reads nor writes until it is killed), the other the survivor, which blocks in a
 * {@code read}, in a {@code write} (it writes until the peer's window and its own buffers are full)
 * or in {@code select} (NIO only), and reports how that ends.
 *
 * <pre>
 *   CrashApp server MODE nio|net        prints PORT n, takes one connection
 *   CrashApp client PORT MODE nio|net
 * </pre>
 * A server keeps its listener open while it runs (a survivor closes it before it exits). Output: {@code CONNECTED}, then the survivor's {@code BLOCKING <what>} just before it blocks, and when
 * the wait ends {@code FAILED <System.nanoTime()> <exception>} (exit 0), {@code EOF <nanoTime>} (exit 3)
 * or, for select, first {@code SELECTED <nanoTime> <ready keys>}. The nanoTime is CLOCK_MONOTONIC, so the
 * process that kills the victim can compare it with its own. Plain JDK only.
 */
public final class CrashApp {
    private static final long STALL_NANOS = 500_000_000L;
    /** A server's listener, closed before a survivor exits (a victim never gets to). */
    private static AutoCloseable listener = () -> { };

    private CrashApp() {
    }

    public static void main(String[] args) throws Exception {
        boolean server = args[0].equals("server");
        String mode = args[server ? 1 : 2];
        boolean nio = args[server ? 2 : 3].equals("nio");
        InetSocketAddress loopback = new InetSocketAddress(DemoSupport.host(), server ? 0 : Integer.parseInt(args[1]));
        if (nio) {
            SocketChannel channel;
            if (server) {
                ServerSocketChannel ssc = ServerSocketChannel.open().bind(loopback);
                listener = ssc;
                announce(((InetSocketAddress) ssc.getLocalAddress()).getPort());
                channel = ssc.accept();
            } else {
                channel = SocketChannel.open(loopback);
            }
            runNio(channel, mode);
        } else {
            Socket socket;
            if (server) {
                ServerSocket ss = new ServerSocket();
                listener = ss;
                ss.bind(loopback);
                announce(ss.getLocalPort());
                socket = ss.accept();
            } else {
                socket = new Socket(loopback.getAddress(), loopback.getPort());
            }
            runNet(socket, mode);
        }
    }

    private static void announce(int port) {
        System.out.println("PORT " + port);
        System.out.flush();
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static void runNio(SocketChannel channel, String mode) throws Exception {
        if (mode.equals("idle")) {
            channel.write(ByteBuffer.wrap(new byte[] {42}));
            idle();
        }
        ByteBuffer one = ByteBuffer.allocate(1);
        while (one.hasRemaining()) {
            if (channel.read(one) < 0) {
                throw new IOException("the victim left before its byte");
            }
        }
        say("CONNECTED");
        try {
            switch (mode) {
                case "read" -> {
                    say("BLOCKING read");
                    end(channel.read(ByteBuffer.allocate(8192)));
                }
                case "write" -> writeUntilFailure(b -> channel.write(ByteBuffer.wrap(b)));
                case "select" -> {
                    channel.configureBlocking(false);
                    try (Selector selector = Selector.open()) {
                        channel.register(selector, SelectionKey.OP_READ);
                        while (true) {
                            say("BLOCKING select");
                            int n = selector.select();
                            say("SELECTED " + System.nanoTime() + " " + n);
                            if (n > 0) {
                                selector.selectedKeys().clear();
                                int r = channel.read(ByteBuffer.allocate(8192));
                                if (r != 0) {
                                    end(r);
                                }
                            }
                        }
                    }
                }
                default -> throw new IllegalArgumentException(mode);
            }
        } catch (IOException e) {
            failed(e);
        }
    }

    private static void runNet(Socket socket, String mode) throws Exception {
        InputStream in = socket.getInputStream();
        OutputStream out = socket.getOutputStream();
        if (mode.equals("idle")) {
            out.write(42);
            idle();
        }
        if (in.read() < 0) {
            throw new IOException("the victim left before its byte");
        }
        say("CONNECTED");
        try {
            switch (mode) {
                case "read" -> {
                    say("BLOCKING read");
                    end(in.read(new byte[8192]));
                }
                case "write" -> writeUntilFailure(b -> {
                    out.write(b);
                    return b.length;
                });
                default -> throw new IllegalArgumentException(mode);
            }
        } catch (IOException e) {
            failed(e);
        }
    }

    private interface Writer {
        int write(byte[] b) throws IOException;
    }

    /** Writes until a write blocks for long (announced by a watchdog), then until one fails. */
    private static void writeUntilFailure(Writer writer) throws IOException {
        AtomicLong written = new AtomicLong();
        Thread watchdog = new Thread(() -> {
            long last = -1;
            long since = System.nanoTime();
            while (true) {
                long now = written.get();
                if (now != last) {
                    last = now;
                    since = System.nanoTime();
                } else if (System.nanoTime() - since > STALL_NANOS) {
                    say("BLOCKING write after " + now + " bytes");
                    return;
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        byte[] chunk = new byte[64 * 1024];
        while (true) {
            written.addAndGet(writer.write(chunk));
        }
    }

    private static void end(int read) {
        say((read < 0 ? "EOF " : "READ " + read + " ") + System.nanoTime());
        exit(3);
    }

    private static void failed(IOException e) {
        say("FAILED " + System.nanoTime() + " " + e);
        e.printStackTrace(System.out);
        exit(0);
    }

    private static void exit(int status) {
        try {
            listener.close();
        } catch (Exception e) {
            e.printStackTrace(System.out);
        }
        System.out.flush();
        System.exit(status);
    }

    private static void idle() throws InterruptedException {
        say("CONNECTED");
        Thread.sleep(Long.MAX_VALUE);
    }
}
