package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * kill -9 of one end of a shared-memory connection: the survivor, blocked in a read, in a write with
 * the peer's ring full, or in {@code Selector.select()}, must get an IOException ("Connection reset")
 * within {@link #LIMIT_MILLIS} of the kill, and once both processes are gone none of their files may
 * be left in {@code /dev/shm/sovia-<uid>/} (a killed server's listener socket at the latest after the
 * next Sovia JVM started, see {@link #leftovers}).
 *
 * <p>The time is measured from just before this JVM sends SIGKILL to the survivor's
 * {@code System.nanoTime()} when the exception reached the app; both clocks are CLOCK_MONOTONIC.
 * {@code -Dsovia.examples.crashLimitMillis=n} changes the limit.
 */
class ShmCrashTest {
    private static final long LIMIT_MILLIS = Long.getLong("sovia.examples.crashLimitMillis", 100);
    private static final Duration STEP = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    /**
     * @param victim the side that is killed: {@code server} or {@code client}
     * @param mode   what the survivor blocks in: {@code read}, {@code write} or {@code select}
     * @param api    {@code nio} (SocketChannel) or {@code net} (Socket streams)
     */
    @ParameterizedTest(name = "kill the {0}, survivor blocked in {1} ({2})")
    @CsvSource({
        "server, read, nio", "server, read, net", "server, write, nio", "server, write, net", "server, select, nio",
        "client, read, nio", "client, read, net", "client, write, nio", "client, write, net", "client, select, nio"})
    @Timeout(150)
    void survivorLearnsOfTheKillAtOnceAndNothingIsLeft(String victim, String mode, String api) throws Exception {
        boolean serverDies = victim.equals("server");
        String serverMode = serverDies ? "idle" : mode;
        String clientMode = serverDies ? mode : "idle";
        try (ForkedJvm server = ForkedJvm.start(dir, "server", ForkedJvm.Options.agent(dir.resolve("server.stats.json")),
                CrashApp.class, "server", serverMode, api)) {
            int port = server.awaitPort(STEP);
            try (ForkedJvm client = ForkedJvm.start(dir, "client", ForkedJvm.Options.agent(
                    dir.resolve("client.stats.json")), CrashApp.class, "client", String.valueOf(port), clientMode, api)) {
                ForkedJvm dying = serverDies ? server : client;
                ForkedJvm survivor = serverDies ? client : server;
                survivor.awaitLine("^BLOCKING .*$", STEP);
                dying.awaitLine("^CONNECTED$", STEP);
                boolean listenerSocketWhileAlive = !ShmChecks.listenerSockets(port).isEmpty();
                Thread.sleep(300); // long past the spin: the survivor sleeps, and only a wake-up can end its wait

                long killed = System.nanoTime();
                dying.process().destroyForcibly();
                int status = survivor.awaitExit(Duration.ofSeconds(30));
                assertTrue(dying.process().waitFor(30, TimeUnit.SECONDS), "the killed JVM did not end");
                String out = survivor.stdout();

                Matcher failed = Pattern.compile("(?m)^FAILED (\\d+) (.*)$").matcher(out);
                Matcher selected = Pattern.compile("(?m)^SELECTED (\\d+) (\\d+)$").matcher(out);
                String what = String.format(Locale.ROOT, "kill the %s, survivor blocked in %s (%s)", victim, mode, api);
                boolean threw = failed.find();
                double millis = threw ? (Long.parseLong(failed.group(1)) - killed) / 1e6 : Double.NaN;
                String exception = threw ? failed.group(2) : "(none)";
                String woke = selected.find() ? String.format(Locale.ROOT, ", select returned %d key(s) after %.1f ms",
                        Long.parseLong(selected.group(2)), (Long.parseLong(selected.group(1)) - killed) / 1e6) : "";
                System.out.printf(Locale.ROOT, "%s: exception after %.1f ms%s: %s%n", what, millis, woke, exception);

                List<String> left = leftovers(List.of(server.pid(), client.pid()), port, serverDies);
                assertAll(what,
                        () -> assertEquals(0, status, () -> "the survivor got no IOException (exit status " + status
                                + ": 3 means end of stream or data instead)\n" + survivor.report()),
                        () -> assertTrue(exception.contains("Exception"), exception),
                        () -> assertTrue(millis < LIMIT_MILLIS, () -> String.format(Locale.ROOT,
                                "the survivor learned of the kill after %.1f ms, not within %d ms", millis, LIMIT_MILLIS)),
                        () -> assertTrue(listenerSocketWhileAlive, "the server's listener socket was not in "
                                + ShmChecks.DIR + " while it ran: the test would prove nothing about leftovers"),
                        () -> ShmChecks.assertAllOn("shm", survivor, 1),
                        () -> assertEquals(List.of(), left, () -> "left in " + ShmChecks.DIR + " after both ended (pids "
                                + server.pid() + ", " + client.pid() + ", port " + port + ")"));
            }
        }
    }

    /**
     * kill -9 of a selector echo server in the middle of 200 busy connections: every one of the
     * client's 400 threads (a reader and a writer per connection) must fail, so the client ends, fast.
     */
    @Test
    @Timeout(200)
    void killingTheServerFailsTwoHundredBusyConnections() throws Exception {
        try (ForkedJvm server = ForkedJvm.start(dir, "server", ForkedJvm.Options.agent(dir.resolve("server.stats.json")),
                ManyEchoApp.class, "server")) {
            int port = server.awaitPort(STEP);
            try (ForkedJvm client = ForkedJvm.start(dir, "client", ForkedJvm.Options.agent(
                    dir.resolve("client.stats.json")), ManyEchoApp.class, "client", String.valueOf(port), "200",
                    String.valueOf(100_000_000L))) {
                client.awaitLine("^CONNECTED 200$", STEP);
                Thread.sleep(1000);
                long killed = System.nanoTime();
                server.process().destroyForcibly();
                int status = client.awaitExit(Duration.ofSeconds(60));
                double millis = (System.nanoTime() - killed) / 1e6;
                Matcher failed = Pattern.compile("(?m)^FAILED .*$").matcher(client.stdout());
                System.out.printf(Locale.ROOT, "client of 200 busy connections ended %.0f ms after the server's kill: %s%n",
                        millis, failed.find() ? failed.group() : "(no FAILED line)");
                assertTrue(server.process().waitFor(30, TimeUnit.SECONDS));
                List<String> left = leftovers(List.of(server.pid(), client.pid()), port, true);
                assertAll(
                        () -> assertEquals(1, status, client::report),
                        () -> assertTrue(client.stdout().contains("FAILED 200 of 200 connections"), client::report),
                        () -> assertTrue(millis < 5000, "the client took " + millis + " ms to notice"),
                        () -> ShmChecks.assertAllOn("shm", client, 200),
                        () -> assertEquals(List.of(), left, "left in " + ShmChecks.DIR));
            }
        }
    }

    /**
     * kill -9 of a client with 200 busy connections: the server's selector loop must get an error on
     * each (a reset, not an orderly end of stream), keep running, and serve the next client.
     */
    @Test
    @Timeout(200)
    void serverOutlivesTheKillOfAClientWithTwoHundredBusyConnections() throws Exception {
        try (ForkedJvm server = ForkedJvm.start(dir, "server", ForkedJvm.Options.agent(dir.resolve("server.stats.json")),
                ManyEchoApp.class, "server")) {
            int port = server.awaitPort(STEP);
            long doomedPid;
            try (ForkedJvm doomed = ForkedJvm.start(dir, "doomed", ForkedJvm.Options.agent(
                    dir.resolve("doomed.stats.json")), ManyEchoApp.class, "client", String.valueOf(port), "200",
                    String.valueOf(100_000_000L))) {
                doomedPid = doomed.pid();
                doomed.awaitLine("^CONNECTED 200$", STEP);
                Thread.sleep(1000);
                long killed = System.nanoTime();
                doomed.process().destroyForcibly();
                long errors = 0;
                while (System.nanoTime() - killed < 10_000_000_000L && (errors = errorLines(server)) < 200) {
                    Thread.sleep(5);
                }
                System.out.printf(Locale.ROOT, "the server saw %d of 200 connections fail within %.0f ms of the client's kill%n",
                        errors, (System.nanoTime() - killed) / 1e6);
                assertEquals(200, errors, server::report);
            }
            try (ForkedJvm next = ForkedJvm.start(dir, "next", ForkedJvm.Options.agent(dir.resolve("next.stats.json")),
                    ManyEchoApp.class, "client", String.valueOf(port), "10", "1000000")) {
                assertEquals("RESULT connections=10 bytes=1000000", next.awaitResult(STEP));
                SoviaStats stats = ShmChecks.assertAllOn("shm", next, 10);
                assertEquals(0, stats.section("engine").get("peersHungUp") + stats.section("engine").get("peersReleased"),
                        stats::json);
            }
            server.closeStdin();
            String out = server.awaitSuccess(STEP);
            assertTrue(out.contains("ECHOED accepted=210 closed=10 ") && out.contains(" errors=200"), server::report);
            SoviaStats stats = ShmChecks.assertAllOn("shm", server, 210);
            assertEquals(200, stats.section("engine").get("peersHungUp"), () -> "each killed connection, seen as such: "
                    + stats.json());
            assertEquals(0, stats.section("engine").get("peersReleased"), stats::json);
            List<String> left = leftovers(List.of(server.pid(), doomedPid), port, false);
            assertEquals(List.of(), left, "left in " + ShmChecks.DIR);
        }
    }

    /**
     * What is left in {@link ShmChecks#DIR} of these processes and of the listener at {@code port} once
     * they all ended; removes it, so a failure leaves nothing behind either. The README promises that a
     * dead process's files are removed by the survivor when it can tell, and at the latest by the next
     * Sovia JVM of the user when it starts. Segments have no name (sealed memory files), but the
     * survivor's probe of a killed server's listener socket may still be accepted by the kernel while the
     * killed process is being torn down: then that socket may outlive the survivor, and the next agent
     * JVM, started here, must remove it. Anything else left is returned right away.
     */
    private List<String> leftovers(List<Long> pids, int port, boolean serverKilled) throws Exception {
        List<String> left = ShmChecks.filesOf(pids, List.of(port));
        if (serverKilled && !left.isEmpty() && left.stream().allMatch(name -> name.startsWith("l-" + port + "-"))) {
            System.out.println("the killed server's listener socket outlived the survivor: " + left
                    + "; the next Sovia JVM must remove it");
            try (ForkedJvm next = ForkedJvm.start(dir, "next-jvm", ForkedJvm.Options.agent(
                    dir.resolve("next-jvm.stats.json")), RmiApp.class, "both")) {
                next.awaitResult(STEP);
            }
            left = ShmChecks.filesOf(pids, List.of(port));
        }
        ShmChecks.removeFilesOf(pids, List.of(port));
        return left;
    }

    private static long errorLines(ForkedJvm jvm) throws Exception {
        return Pattern.compile("(?m)^ERROR .*$").matcher(jvm.stdout()).results().count();
    }
}
