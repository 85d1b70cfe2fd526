package io.sovia.examples;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The soak's client: keeps CONNECTIONS connections busy for SECONDS, each on a thread of its own, echoing random
 * writes and checking every byte; now and then a connection ends in one of the ways apps end them (an orderly
 * close, an abortive one with SO_LINGER 0, or dropped with unread bytes in flight) and a new one takes its place.
 * Plain JDK only.
 *
 * <pre>  java SoakClient PORT CONNECTIONS SECONDS SEED</pre>
 * Prints {@code CONNECTED} once the first CONNECTIONS are up, then {@code RESULT connections=.. bytes=.. closes=..
 * resets=.. drops=.. failures=..}; exits 1 if any connection failed.
 */
public final class SoakClient {
    private SoakClient() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int connections = Integer.parseInt(args[1]);
        long end = System.nanoTime() + Long.parseLong(args[2]) * 1_000_000_000L;
        long seed = Long.parseLong(args[3]);
        AtomicLong made = new AtomicLong();
        AtomicLong bytes = new AtomicLong();
        AtomicLong[] endings = {new AtomicLong(), new AtomicLong(), new AtomicLong()};
        AtomicLong failures = new AtomicLong();
        java.util.concurrent.CountDownLatch up = new java.util.concurrent.CountDownLatch(connections);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            Random r = new Random(seed * 1_000_003 + i);
            Thread t = new Thread(() -> {
                boolean first = true;
                while (System.nanoTime() < end) {
                    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                        made.incrementAndGet();
                        if (first) {
                            up.countDown();
                            first = false;
                        }
                        int rounds = 1 + r.nextInt(50);
                        for (int round = 0; round < rounds && System.nanoTime() < end; round++) {
                            bytes.addAndGet(echo(s, r));
                        }
                        int ending = r.nextInt(3);
                        endings[ending].incrementAndGet();
                        if (ending == 1) {
                            s.setSoLinger(true, 0);
                        } else if (ending == 2) {
                            s.getOutputStream().write(new byte[1 + r.nextInt(4096)]); // its echo is never read
                        }
                    } catch (IOException e) {
                        if (failures.getAndIncrement() < 5) {
                            System.out.println("FAILURE " + e);
                        }
                        if (first) {
                            up.countDown();
                            first = false;
                        }
                    }
                }
            });
            t.start();
            threads.add(t);
        }
        up.await();
        System.out.println("CONNECTED");
        System.out.flush();
        for (Thread t : threads) {
            t.join();
        }
        System.out.println("RESULT connections=" + made.get() + " bytes=" + bytes.get() + " closes=" + endings[0].get()
                + " resets=" + endings[1].get() + " drops=" + endings[2].get() + " failures=" + failures.get());
        System.exit(failures.get() == 0 ? 0 : 1);
    }

    /** Writes 1 B to 16 KiB and reads the same back; the bytes echoed. */
    private static int echo(Socket s, Random r) throws IOException {
        byte[] out = new byte[1 + r.nextInt(16 * 1024)];
        r.nextBytes(out);
        OutputStream o = s.getOutputStream();
        InputStream in = s.getInputStream();
        o.write(out);
        byte[] back = new byte[out.length];
        for (int n = 0; n < back.length; ) {
            int k = in.read(back, n, back.length - n);
            if (k < 0) {
                throw new IOException("end of stream after " + n + " of " + back.length + " echoed bytes");
            }
            n += k;
        }
        if (!java.util.Arrays.equals(out, back)) {
            throw new IOException("the echo differs from what was written");
        }
        return out.length;
    }
}
