package io.sovia.examples;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * The soak's server: ManyEchoApp's selector echo server, which also tells what it holds. Plain JDK only.
 *
 * <pre>  java SoakServer</pre>
 * Prints {@code PORT n}; then, for each line {@code stats} on standard input, collects garbage (mappings and
 * direct buffers go with their owners) and prints {@code STATS fds=.. threads=.. direct=.. mapped=.. open=..};
 * ends when standard input ends.
 */
public final class SoakServer {
    private SoakServer() {
    }

    public static void main(String[] args) throws Exception {
        try (ManyEchoApp.EchoServer server = new ManyEchoApp.EchoServer()) {
            System.out.println("PORT " + server.port());
            System.out.flush();
            CountDownLatch inputEnded = new CountDownLatch(1);
            Thread commands = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in))) {
                    for (String line; (line = in.readLine()) != null; ) {
                        if (line.equals("stats")) {
                            System.out.println(stats(server.open()));
                            System.out.flush();
                        }
                    }
                } catch (IOException ignored) {
                    // ended either way
                }
                server.stop(inputEnded);
            }, "commands");
            commands.setDaemon(true);
            commands.start();
            server.serveUntil(inputEnded);
        }
    }

    private static String stats(int open) throws IOException {
        System.gc();
        try {
            Thread.sleep(200); // cleaners run on their own thread
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        System.gc();
        long direct = 0;
        long mapped = 0;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                direct = pool.getMemoryUsed();
            } else if (pool.getName().equals("mapped")) {
                mapped = pool.getMemoryUsed();
            }
        }
        long fds;
        try (var list = Files.list(Path.of("/proc/self/fd"))) {
            fds = list.count();
        }
        return "STATS fds=" + fds + " threads=" + Thread.activeCount() + " direct=" + direct + " mapped=" + mapped
                + " open=" + open;
    }
}
