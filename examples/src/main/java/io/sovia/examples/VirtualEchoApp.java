package io.sovia.examples;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Thousands of short connections, each on a virtual thread of its own (JDK 21+): a java.net server whose
 * accept loop and connections all run on virtual threads, and a client that starts one virtual thread per
 * connection, each connecting a blocking {@code SocketChannel}, sending a 32-byte message, reading its echo
 * and closing.
 *
 * <pre>
 *   VirtualEchoApp server                               prints PORT n; echoes until standard input ends,
 *                                                       then prints ECHOED accepted=a echoed=e failed=f
 *   VirtualEchoApp client PORT CONNECTIONS MAX_OPEN     prints DESCRIPTORS peak=n (the most it held at once)
 *                                                       and RESULT connections=c echoed=e failed=f
 *                                                       (exit 1 unless every connection echoed)
 * </pre>
 * {@code MAX_OPEN} bounds the connections open at once (each holds descriptors until both ends closed);
 * the other virtual threads wait for a permit before they connect. Plain JDK only; compiled for 17, so
 * virtual threads are made through reflection.
 */
public final class VirtualEchoApp {
    private static final int MESSAGE = 32;
    /** Failures printed as ERROR lines; the rest are only counted. */
    private static final int ERRORS_SHOWN = 20;

    private VirtualEchoApp() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("server")) {
            server();
        } else if (args.length == 4 && args[0].equals("client")) {
            client(Integer.parseInt(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]));
        } else {
            System.err.println("usage: VirtualEchoApp server | client PORT CONNECTIONS MAX_OPEN");
            System.exit(2);
        }
    }

    private static void server() throws Exception {
        AtomicLong accepted = new AtomicLong();
        AtomicLong echoed = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        ExecutorService threads = virtualThreadPerTask();
        try (ServerSocket listener = new ServerSocket()) {
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4096);
            threads.execute(() -> {
                while (!listener.isClosed()) {
                    try {
                        Socket s = listener.accept();
                        accepted.incrementAndGet();
                        threads.execute(() -> echo(s, echoed, failed));
                    } catch (IOException e) {
                        if (!listener.isClosed()) {
                            report(failed, "accept", e);
                        }
                    }
                }
            });
            System.out.println("PORT " + listener.getLocalPort());
            System.out.flush();
            System.in.transferTo(OutputStream.nullOutputStream());
        }
        threads.shutdown();
        threads.awaitTermination(30, TimeUnit.SECONDS);
        System.out.println("ECHOED accepted=" + accepted + " echoed=" + echoed + " failed=" + failed);
    }

    /** Echoes one message, then waits for the client to close first, as a request/response server would. */
    private static void echo(Socket s, AtomicLong echoed, AtomicLong failed) {
        try (s) {
            InputStream in = s.getInputStream();
            byte[] message = in.readNBytes(MESSAGE);
            if (message.length != MESSAGE) {
                throw new IOException("got " + message.length + " of " + MESSAGE + " bytes");
            }
            s.getOutputStream().write(message);
            if (in.read() != -1) {
                throw new IOException("more than one message");
            }
            echoed.incrementAndGet();
        } catch (IOException e) {
            report(failed, "echo", e);
        }
    }

    private static void client(int port, int connections, int maxOpen) throws Exception {
        InetSocketAddress server = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        Semaphore open = new Semaphore(maxOpen);
        CountDownLatch done = new CountDownLatch(connections);
        AtomicLong echoed = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        long start = System.nanoTime();
        AtomicLong peakDescriptors = watchDescriptors();
        ExecutorService threads = virtualThreadPerTask();
        for (int i = 0; i < connections; i++) {
            int id = i;
            threads.execute(() -> {
                try {
                    open.acquire();
                    try {
                        exchange(server, id);
                        echoed.incrementAndGet();
                    } finally {
                        open.release();
                    }
                } catch (IOException | RuntimeException e) {
                    report(failed, "connection " + id, e);
                } catch (InterruptedException e) {
                    report(failed, "connection " + id, e);
                    Thread.currentThread().interrupt();
                } finally {
                    done.countDown();
                }
            });
        }
        done.await();
        threads.shutdown();
        System.out.printf("TIMING %d connections in %.1f s%n", connections, (System.nanoTime() - start) / 1e9);
        System.out.println("DESCRIPTORS peak=" + peakDescriptors);
        System.out.println("RESULT connections=" + connections + " echoed=" + echoed + " failed=" + failed);
        System.out.flush();
        System.exit(echoed.get() == connections ? 0 : 1);
    }

    private static void exchange(InetSocketAddress server, int id) throws IOException {
        byte[] message = new byte[MESSAGE];
        Arrays.fill(message, (byte) id);
        ByteBuffer.wrap(message).putInt(id);
        try (SocketChannel channel = SocketChannel.open(server)) {
            ByteBuffer out = ByteBuffer.wrap(message);
            while (out.hasRemaining()) {
                channel.write(out);
            }
            ByteBuffer back = ByteBuffer.allocate(MESSAGE);
            while (back.hasRemaining()) {
                if (channel.read(back) < 0) {
                    throw new IOException("end of stream after " + back.position() + " bytes of the echo");
                }
            }
            if (!Arrays.equals(message, back.array())) {
                throw new IOException("the echo differs from what was sent");
            }
        }
    }

    /**
     * The most descriptors this process held, sampled every few milliseconds by a daemon platform thread: what
     * the connections cost besides their own sockets shows here (-1 without /proc).
     */
    private static AtomicLong watchDescriptors() {
        AtomicLong peak = new AtomicLong(-1);
        Path fds = Path.of("/proc/self/fd");
        Thread watcher = new Thread(() -> {
            while (Files.isDirectory(fds)) {
                try (Stream<Path> open = Files.list(fds)) {
                    long n = open.count();
                    peak.accumulateAndGet(n, Math::max);
                    Thread.sleep(5);
                } catch (IOException | UncheckedIOException e) {
                    // a descriptor closed while listed: sample again
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "descriptors");
        watcher.setDaemon(true);
        watcher.start();
        return peak;
    }

    private static void report(AtomicLong failed, String what, Exception e) {
        if (failed.incrementAndGet() <= ERRORS_SHOWN) {
            System.out.println("ERROR " + what + ": " + e);
        }
    }

    /** {@code Executors.newVirtualThreadPerTaskExecutor()}, which this class, compiled for 17, cannot name. */
    private static ExecutorService virtualThreadPerTask() throws ReflectiveOperationException {
        return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    }
}
