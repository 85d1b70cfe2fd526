package io.sovia.examples;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.security.MessageDigest;

/**
 * A client that writes a stream, closes its socket and exits at once, to a server that starts reading
 * only later: everything written before the close must arrive, then end of stream, as with TCP, where
 * the kernel still delivers what a process wrote before it exited. Plain JDK only.
 *
 * <pre>
 *   LastWordsApp server DELAY_MS          prints PORT n; accepts one connection, waits, reads to the end,
 *                                         prints RESULT bytes=n sha256=... (or FAILED after n bytes: ...)
 *   LastWordsApp client PORT BYTES SEED [close|exit|hook|reader|selector]
 *                                         writes the stream of SEED (java.net), closes the socket (or, with
 *                                         exit, does not), and ends with System.exit(0) at once; with hook,
 *                                         connects, then exits at once and writes and closes from its own
 *                                         shutdown hook; with reader (selector), exits without close while a
 *                                         thread waits to read from the socket (in a Selector), which prints
 *                                         WOKE if its wait ends before the process does
 * </pre>
 * On the JDK a thread blocked on a socket when the process exits never returns: the kernel closes the socket after
 * the process is gone.
 */
public final class LastWordsApp {
    private LastWordsApp() {
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("server")) {
            try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
                System.out.println("PORT " + listener.getLocalPort());
                System.out.flush();
                try (Socket socket = listener.accept()) {
                    Thread.sleep(Long.parseLong(args[1]));
                    MessageDigest digest = DemoSupport.sha256();
                    byte[] buffer = new byte[64 * 1024];
                    long total = 0;
                    try {
                        for (int n; (n = socket.getInputStream().read(buffer)) >= 0; ) {
                            digest.update(buffer, 0, n);
                            total += n;
                        }
                    } catch (java.io.IOException e) {
                        System.out.println("FAILED after " + total + " bytes: " + e);
                        System.exit(1);
                    }
                    System.out.println("RESULT bytes=" + total + " sha256=" + DemoSupport.hex(digest));
                }
            }
        } else {
            long bytes = Long.parseLong(args[2]);
            String ending = args.length < 5 ? "close" : args[4];
            InetSocketAddress server = new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(args[1]));
            Socket socket = ending.equals("selector") ? SocketChannel.open(server).socket()
                    : new Socket(server.getAddress(), server.getPort());
            if (ending.equals("reader") || ending.equals("selector")) {
                write(socket, bytes, Long.parseLong(args[3]));
                Thread waiter = new Thread(() -> awaitInput(socket, ending.equals("selector")), "waiter");
                waiter.setDaemon(true);
                waiter.start();
                Thread.sleep(200); // by then it waits
                System.out.println("EXITING WHILE A THREAD WAITS");
            } else if (ending.equals("hook")) {
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    try {
                        write(socket, bytes, Long.parseLong(args[3]));
                        socket.close();
                    } catch (java.io.IOException e) {
                        e.printStackTrace();
                    }
                }));
                System.out.println("EXITING, THE HOOK WRITES");
            } else {
                write(socket, bytes, Long.parseLong(args[3]));
                if (ending.equals("close")) {
                    socket.close();
                    System.out.println("CLOSED");
                } else {
                    System.out.println("EXITING WITHOUT CLOSE");
                }
            }
            System.out.flush();
            System.exit(0);
        }
    }

    /** Waits for input (or its end) on {@code socket}, reading or in a Selector; prints WOKE if the wait ends. */
    private static void awaitInput(Socket socket, boolean selector) {
        String how;
        try {
            if (selector) {
                SocketChannel channel = socket.getChannel();
                channel.configureBlocking(false);
                try (Selector s = Selector.open()) {
                    channel.register(s, SelectionKey.OP_READ);
                    how = "select " + s.select();
                }
            } else {
                how = "read " + socket.getInputStream().read();
            }
        } catch (java.io.IOException | RuntimeException e) {
            how = e.toString();
        }
        System.out.println("WOKE: " + how);
        System.out.flush();
    }

    private static void write(Socket socket, long bytes, long seed) throws java.io.IOException {
        OutputStream out = socket.getOutputStream();
        PseudoRandomStream stream = new PseudoRandomStream(seed);
        ByteBuffer chunk = ByteBuffer.allocate(64 * 1024);
        for (long left = bytes; left > 0; ) {
            int n = (int) Math.min(left, chunk.capacity());
            stream.next(chunk, n);
            out.write(chunk.array(), 0, n);
            left -= n;
        }
    }
}
