package io.sovia.examples;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Locale;

/**
 * Connection setup, a plain app unaware of Sovia: the client opens a connection, sends one byte, reads the echo
 * and closes, over and over; the server accepts, echoes and closes each in turn.
 *
 * <pre>
 *   ConnectApp server               prints PORT n; serves until killed
 *   ConnectApp client PORT SECONDS  prints RESULT connect_us=.. first_us=..: a third of SECONDS warms up first, and
 *                                   first_us is its time per connection (the JVM's first connections, while the JIT
 *                                   still compiles), connect_us the time per connection over SECONDS after it
 *   ConnectApp both SECONDS         the same, the server a thread of the client's JVM
 * </pre>
 */
public final class ConnectApp {
    private ConnectApp() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length == 1 && args[0].equals("server")) {
            ServerSocket listener = listen();
            System.out.println("PORT " + listener.getLocalPort());
            System.out.flush();
            serve(listener);
        } else if (args.length == 3 && args[0].equals("client")) {
            client(Integer.parseInt(args[1]), Double.parseDouble(args[2]));
        } else if (args.length == 2 && args[0].equals("both")) {
            ServerSocket listener = listen();
            Thread server = new Thread(() -> {
                try {
                    serve(listener);
                } catch (IOException e) {
                    System.err.println("server: " + e);
                }
            }, "server");
            server.setDaemon(true);
            server.start();
            client(listener.getLocalPort(), Double.parseDouble(args[1]));
        } else {
            System.err.println("usage: ConnectApp server | client PORT SECONDS | both SECONDS");
            System.exit(2);
        }
    }

    private static ServerSocket listen() throws IOException {
        return new ServerSocket(0, 200, DemoSupport.host());
    }

    private static void serve(ServerSocket listener) throws IOException {
        try (listener) {
            while (true) {
                try (Socket s = listener.accept()) {
                    int b = s.getInputStream().read();
                    if (b >= 0) {
                        s.getOutputStream().write(b);
                    }
                }
            }
        }
    }

    private static void client(int port, double seconds) throws IOException {
        long start = System.nanoTime();
        long first = connections(port, seconds / 3);
        double firstMicros = (System.nanoTime() - start) / 1e3 / first;
        start = System.nanoTime();
        long n = connections(port, seconds);
        System.out.printf(Locale.ROOT, "RESULT connect_us=%.1f connections=%d first_us=%.1f%n",
                (System.nanoTime() - start) / 1e3 / n, n, firstMicros);
    }

    private static long connections(int port, double seconds) throws IOException {
        long end = System.nanoTime() + (long) (seconds * 1e9);
        long n = 0;
        do {
            try (Socket s = new Socket(DemoSupport.host(), port)) {
                s.getOutputStream().write(1);
                InputStream in = s.getInputStream();
                if (in.read() != 1) {
                    throw new IOException("no echo");
                }
            }
            n++;
        } while (System.nanoTime() < end);
        return n;
    }
}
