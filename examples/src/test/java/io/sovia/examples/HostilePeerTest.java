package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A local peer of the same user that writes what it likes into the segment it shares with a Sovia server
 * ({@link HostilePeer}) stops nothing but its own connection: each damaged connection ends at the server with an
 * IOException within seconds, segments that could shrink under the server's mapping (SIGBUS) are refused before
 * they are mapped, every other client still gets across on shm, no Sovia thread dies, the log says each thing
 * once, and SIGTERM still ends the server at once while the hostile connections are open.
 */
class HostilePeerTest {
    /** Modes whose connection the server accepts and must then end with an IOException. */
    private static final List<String> DAMAGED = List.of("min-length", "padding-loop", "zero-records", "overflow",
            "past-end", "short-frame", "bad-token");
    /** Modes whose segment the server must refuse to map. */
    private static final List<String> REFUSED = List.of("unsealed", "plain-file");
    private static final Pattern ERROR = Pattern.compile("(?m)^ERROR (.*)$");

    @TempDir
    Path dir;

    @Test
    @Timeout(240)
    void aHostilePeerEndsOnlyItsOwnConnection() throws Exception {
        List<ForkedJvm> peers = new ArrayList<>();
        try (ForkedJvm server = ForkedJvm.start(dir, "server", ForkedJvm.Options.agent(dir.resolve("server.json")),
                ManyEchoApp.class, "server")) {
            int port = server.awaitPort(Duration.ofSeconds(60));
            Path socket = ShmChecks.listenerSockets(port).get(0);
            echo(port, "before");
            int errors = 0;
            for (String mode : DAMAGED) {
                peers.add(HostilePeer.start(dir, "hostile-" + mode, socket, port, mode));
                errors++;
                int expected = errors;
                awaitCount(server, ERROR, expected, Duration.ofSeconds(20));
                echo(port, "after-" + mode);
            }
            for (String mode : REFUSED) {
                peers.add(HostilePeer.start(dir, "hostile-" + mode, socket, port, mode));
            }
            ForkedJvm truncating = HostilePeer.start(dir, "hostile-truncate", socket, port, "truncate");
            peers.add(truncating);
            assertTrue(truncating.stdout().contains("TRUNCATE refused"), () -> "the seal let a peer shrink its segment\n"
                    + truncating.report());
            echo(port, "at-the-end");

            List<String> seen = new ArrayList<>();
            Matcher m = ERROR.matcher(server.stdout());
            while (m.find()) {
                seen.add(m.group(1));
            }
            assertEquals(DAMAGED.size(), seen.size(), () -> "server errors " + seen + "\n" + server.report());
            assertTrue(seen.stream().allMatch(e -> e.contains("Connection reset")), () -> "server errors " + seen);

            // SIGTERM while the hostile connections are still open: no Sovia thread may hold the JVM
            server.process().destroy();
            assertTrue(server.process().waitFor(20, java.util.concurrent.TimeUnit.SECONDS),
                    () -> "SIGTERM did not end the server\n" + server.report());
            String err = server.stderr();
            assertFalse(err.contains("Exception in thread") || err.contains("InternalError"), err);
            // each cause once, however many connections had it
            assertEquals(1, count(err, "wrote a malformed frame ring"), err);
            assertEquals(1, count(err, "the peer of a connection sent"), err);
            assertEquals(1, count(err, "cannot take an shm connection"), err);
            SoviaStats stats = ShmChecks.stats(server);
            assertEquals(REFUSED.size(), stats.section("refused").getOrDefault("shm segment", 0L), stats.json());
        } finally {
            for (ForkedJvm peer : peers) {
                peer.close();
            }
        }
    }

    /**
     * A same-user process that names a live client's address in a hello of its own, between that client's hello and
     * the accept, takes nothing from it: the accept gets the client's segment (the process holding the TCP socket
     * wins), its bytes arrive, and only the hostile hello is refused. Before, the newest hello for an address won, so
     * the accept took the hostile segment and the client was reset.
     */
    @Test
    @Timeout(120)
    void aHelloNamingAnotherClientsConnectionTakesNothingFromIt() throws Exception {
        try (ForkedJvm server = ForkedJvm.start(dir, "server", ForkedJvm.Options.agent(dir.resolve("server.json")),
                LateAcceptSink.class, "server", "1", "-1")) {
            int port = server.awaitPort(Duration.ofSeconds(60));
            Path socket = ShmChecks.listenerSockets(port).get(0);
            try (ForkedJvm client = ForkedJvm.start(dir, "client", ForkedJvm.Options.agent(dir.resolve("client.json")),
                    LateAcceptSink.class, "holder", String.valueOf(port), "1000")) {
                String clientPort = client.awaitLine("^CONNECTED (\\d+)$", Duration.ofSeconds(60)).group(1);
                // past the doorbell agent's sweep (every second), so the client's hello is parked before the other
                Thread.sleep(1500);
                try (ForkedJvm hostile = HostilePeer.start(dir, "hostile", socket, port, "hello-for", clientPort)) {
                    server.closeStdin();
                    server.awaitLine("DONE", Duration.ofSeconds(30));
                    assertTrue(server.stdout().contains("READ 1000\n"), server.report());
                    assertEquals(0, client.awaitExit(Duration.ofSeconds(30)), client.report());
                    assertEquals(0, server.awaitExit(Duration.ofSeconds(30)), server.report());
                    SoviaStats stats = ShmChecks.assertAllOn("shm", server, 1);
                    assertEquals(1L, stats.section("refused").getOrDefault("shm hello contested", 0L), stats.json());
                    assertEquals(0L, stats.section("engine").get("resets"), stats.json());
                }
            }
        }
    }

    /** One connection from a client JVM under the agent, which must take shm. */
    private void echo(int port, String name) throws Exception {
        try (ForkedJvm client = ForkedJvm.start(dir, name, ForkedJvm.Options.agent(dir.resolve(name + ".json")),
                ManyEchoApp.class, "client", String.valueOf(port), "2", "100000")) {
            client.awaitResult(Duration.ofSeconds(60));
            client.awaitExit(Duration.ofSeconds(30));
            ShmChecks.assertAllOn("shm", client, 2);
        }
    }

    private static void awaitCount(ForkedJvm jvm, Pattern line, int count, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (count(jvm.stdout(), line) < count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("expected " + count + " lines " + line + " within " + timeout + "\n" + jvm.report());
            }
            Thread.sleep(50);
        }
    }

    private static int count(String text, Pattern line) {
        int n = 0;
        for (Matcher m = line.matcher(text); m.find(); ) {
            n++;
        }
        return n;
    }

    private static int count(String text, String part) {
        return count(text, Pattern.compile(Pattern.quote(part)));
    }
}
