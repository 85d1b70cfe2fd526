package io.sovia.examples;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.security.MessageDigest;

/**
 * A client that writes a stream, closes its socket and exits at once, to a server that starts reading
 * only later: everything written before the close must arrive, then end of stream, as with TCP, where
 * the kernel still delivers what a process wrote before it exited. Plain JDK only.
 *
 * <pre>
 *   LastWordsApp server DELAY_MS          prints PORT n; accepts one connection, waits, reads to the end,
 *                                         prints RESULT bytes=n sha256=... (or FAILED after n bytes: ...)
 *   LastWordsApp client PORT BYTES SEED [close|exit|hook]
 *                                         writes the stream of SEED (java.net), closes the socket (or, with
 *                                         exit, does not), and ends with System.exit(0) at once; with hook,
 *                                         connects, then exits at once and writes and closes from its own
 *                                         shutdown hook
 * </pre>
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
            Socket socket = new Socket(InetAddress.getLoopbackAddress(), Integer.parseInt(args[1]));
            String ending = args.length < 5 ? "close" : args[4];
            if (ending.equals("hook")) {
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
