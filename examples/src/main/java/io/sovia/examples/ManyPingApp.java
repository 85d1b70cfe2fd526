package io.sovia.examples;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Many connections at once, a plain app unaware of Sovia: a thread per connection at both ends, each client thread
 * sending 64-byte pings (TCP_NODELAY) and waiting for each echo, all at the same time: more threads than cores, as
 * in a thread-per-request server under load.
 *
 * <pre>
 *   ManyPingApp server                              prints PORT n; echoes on every connection until killed
 *   ManyPingApp client PORT CONNECTIONS SECONDS     prints RESULT connections=c pings_per_s=x once all connections
 *                                                   are open and a third of SECONDS has warmed up (or FAILED ...,
 *                                                   exit status 1)
 * </pre>
 */
public final class ManyPingApp {
    private static final int PING = 64;

    private ManyPingApp() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("server")) {
            server();
        } else if (args.length == 4 && args[0].equals("client")) {
            client(Integer.parseInt(args[1]), Integer.parseInt(args[2]), Double.parseDouble(args[3]));
        } else {
            System.err.println("usage: ManyPingApp server | client PORT CONNECTIONS SECONDS");
            System.exit(2);
        }
    }

    private static void server() throws IOException {
        try (ServerSocket listener = new ServerSocket(0, 1024, DemoSupport.host())) {
            System.out.println("PORT " + listener.getLocalPort());
            System.out.flush();
            while (true) {
                Socket s = listener.accept();
                Thread echo = new Thread(() -> echo(s), "echo");
                echo.setDaemon(true);
                echo.start();
            }
        }
    }

    private static void echo(Socket s) {
        try (s) {
            s.setTcpNoDelay(true);
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            byte[] ping = new byte[PING];
            while (in.readNBytes(ping, 0, PING) == PING) {
                out.write(ping);
            }
        } catch (IOException e) {
            System.err.println("ERROR " + e);
        }
    }

    private static void client(int port, int connections, double seconds) throws Exception {
        AtomicLong pings = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch open = new CountDownLatch(connections);
        CountDownLatch done = new CountDownLatch(1);
        Thread[] threads = new Thread[connections];
        for (int i = 0; i < connections; i++) {
            threads[i] = new Thread(() -> ping(port, pings, open, done, failure), "ping-" + i);
            threads[i].start();
        }
        open.await();
        Thread.sleep((long) (seconds * 1000 / 3));
        long before = pings.get();
        long start = System.nanoTime();
        Thread.sleep((long) (seconds * 1000));
        long counted = pings.get() - before;
        long elapsed = System.nanoTime() - start;
        done.countDown();
        for (Thread t : threads) {
            t.join();
        }
        if (failure.get() != null) {
            System.out.println("FAILED " + failure.get());
            System.exit(1);
        }
        System.out.printf(Locale.ROOT, "RESULT connections=%d pings_per_s=%.0f%n", connections,
                counted / (elapsed / 1e9));
    }

    private static void ping(int port, AtomicLong pings, CountDownLatch open, CountDownLatch done,
                             AtomicReference<Throwable> failure) {
        try (Socket s = new Socket(DemoSupport.host(), port)) {
            s.setTcpNoDelay(true);
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            byte[] ping = new byte[PING];
            open.countDown();
            for (int n = 0; done.getCount() > 0; n++) {
                ping[0] = (byte) n;
                out.write(ping);
                if (in.readNBytes(ping, 0, PING) != PING) {
                    throw new EOFException("the echo ended");
                }
                if (ping[0] != (byte) n) {
                    throw new IOException("echo " + ping[0] + " for ping " + (byte) n);
                }
                pings.incrementAndGet();
            }
        } catch (Throwable e) {
            failure.compareAndSet(null, e);
            open.countDown();
        }
    }
}
