package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A thousand connections at once between JVMs under the agent, for a bounded time, ending every way apps end
 * them: orderly closes, resets (SO_LINGER 0), connections dropped with bytes in flight, and one whole client JVM
 * killed (-9) while its 500 connections are busy. The surviving clients must see no failure, and afterwards the
 * server must be back to what it held before: descriptors, threads, direct and mapped memory, and no file of
 * these processes left in this user's shm directory.
 */
class SoakTest {
    private static final int PER_CLIENT = 500;
    private static final Pattern STATS = Pattern.compile("STATS (.*)");

    @TempDir
    Path dir;

    @Test
    @Timeout(300)
    void aThousandConnectionsEndingEveryWayLeaveNothingBehind() throws Exception {
        try (ForkedJvm server = ForkedJvm.start(dir, "server", agent("server"), SoakServer.class)) {
            int port = server.awaitPort(Duration.ofSeconds(60));
            try (ForkedJvm warm = client("warm", port, 4, 2, 0)) {
                assertEquals(0, warm.awaitExit(Duration.ofSeconds(60)), warm.report());
            }
            Map<String, Long> before = stats(server, 1);
            try (ForkedJvm a = client("a", port, PER_CLIENT, 40, 1); ForkedJvm killed = client("killed", port, PER_CLIENT, 40, 2)) {
                a.awaitLine("CONNECTED", Duration.ofSeconds(90));
                killed.awaitLine("CONNECTED", Duration.ofSeconds(90));
                Thread.sleep(8_000);
                killed.process().destroyForcibly().waitFor();
                try (ForkedJvm c = client("c", port, PER_CLIENT, 20, 3)) {
                    c.awaitLine("CONNECTED", Duration.ofSeconds(90));
                    assertEquals(0, a.awaitExit(Duration.ofSeconds(120)), a.report());
                    assertEquals(0, c.awaitExit(Duration.ofSeconds(120)), c.report());
                    for (ForkedJvm survivor : List.of(a, c)) {
                        System.out.println(survivor.stdout().strip());
                        SoviaStats stats = ShmChecks.stats(survivor);
                        assertEquals(stats.carried(), stats.on("shm"), "every connection on shm: " + stats.json());
                    }
                }
            }
            Map<String, Long> after = null;
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            for (int round = 2; System.nanoTime() < deadline; round++) {
                after = stats(server, round);
                if (settled(before, after)) {
                    break;
                }
                Thread.sleep(1000);
            }
            Map<String, Long> end = after;
            System.out.println("server before " + before + ", after " + end);
            assertTrue(settled(before, end), () -> "the server holds more than before: " + before + " then " + end
                    + "\n" + server.report());
            server.closeStdin();
            assertEquals(0, server.awaitExit(Duration.ofSeconds(30)), server.report());
            assertEquals(List.of(), ShmChecks.filesOf(List.of(server.pid()), List.of(port)), "left in " + ShmChecks.DIR);
        }
    }

    /** Back to where it started, give or take the JVM's own churn. */
    private static boolean settled(Map<String, Long> before, Map<String, Long> after) {
        return after.get("open") == 0
                && after.get("fds") <= before.get("fds") + 5
                && after.get("threads") <= before.get("threads") + 2
                && after.get("direct") <= before.get("direct") + (1 << 20)
                && after.get("mapped") <= before.get("mapped") + (1 << 20);
    }

    private ForkedJvm.Options agent(String name) {
        // 64 KiB rings: a thousand connections in 128 MiB of shared memory
        return ForkedJvm.Options.agent(dir.resolve(name + ".json"), "-Dsovia.shm.ring=65536");
    }

    private ForkedJvm client(String name, int port, int connections, int seconds, long seed) throws Exception {
        return ForkedJvm.start(dir, name, agent(name), SoakClient.class, String.valueOf(port),
                String.valueOf(connections), String.valueOf(seconds), String.valueOf(seed));
    }

    /** Asks the server what it holds; the {@code round}-th answer. */
    private static Map<String, Long> stats(ForkedJvm server, int round) throws Exception {
        server.process().getOutputStream().write("stats\n".getBytes(StandardCharsets.US_ASCII));
        server.process().getOutputStream().flush();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            Matcher m = STATS.matcher(server.stdout());
            int seen = 0;
            while (m.find()) {
                if (++seen == round) {
                    Map<String, Long> values = new TreeMap<>();
                    for (String pair : m.group(1).split(" ")) {
                        String[] kv = pair.split("=");
                        values.put(kv[0], Long.parseLong(kv[1]));
                    }
                    return values;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no answer " + round + " to stats\n" + server.report());
    }
}
