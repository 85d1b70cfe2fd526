package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;

/**
 * What every demo must show: it prints the same {@code RESULT} with the Sovia agent as without, and
 * with the agent its connections went through Sovia. {@code -Dsovia.examples.plainOnly=true} runs
 * only the half without the agent (to check the apps and the harness) and reports the rest skipped.
 */
final class CompatCheck {

    private static final boolean PLAIN_ONLY = Boolean.getBoolean("sovia.examples.plainOnly");
    /**
     * The plain RESULT of {@code app both} by app: it does not change from run to run, so the tests
     * that compare an agent run with it share one plain JVM per app.
     */
    private static final Map<Class<?>, String> PLAIN_BOTH = new HashMap<>();

    private CompatCheck() {
    }

    /**
     * Runs {@code app both} plainly and under Sovia, which must carry at least {@code minConnections}
     * connections, all on the jvm path since client and server share the JVM. Each connection is
     * counted at both ends, its connect and its accept.
     */
    static void oneJvm(Path dir, Class<?> app, Duration timeout, int minConnections) throws Exception {
        String expected = plainBoth(dir, app, timeout);
        skipUnlessAgentWanted();
        try (ForkedJvm sovia = ForkedJvm.start(dir, "sovia", true, app, "both")) {
            assertEquals(expected, sovia.awaitResult(timeout),
                    () -> "RESULT changed under Sovia\n" + sovia.report());
            SoviaStats stats = assertCarried(sovia, 2 * minConnections);
            assertEquals(stats.carried(), stats.connections().get("jvm"),
                    () -> "client and server share the JVM, so every connection belongs on jvm: " + stats.json());
        }
    }

    /**
     * Runs {@code app both} under Sovia with {@code sovia.paths=tcp}: every socket is still one of
     * Sovia's, but every connection takes the JDK's TCP underneath (the wrapped-TCP backend, which
     * also carries any connection no faster path reaches). The RESULT must equal the plain run's, at
     * least {@code minConnections} connections must be counted at both ends, all on tcp, and each
     * connect must count the fallback {@code disabled} (accepts choose no path, so count none).
     */
    static void oneJvmOnTcpPath(Path dir, Class<?> app, Duration timeout, int minConnections) throws Exception {
        String expected = plainBoth(dir, app, timeout);
        skipUnlessAgentWanted();
        try (ForkedJvm sovia = ForkedJvm.start(dir, "sovia-tcp",
                ForkedJvm.Options.agent(dir.resolve("sovia-tcp.stats.json"), "-Dsovia.paths=tcp"), app, "both")) {
            assertEquals(expected, sovia.awaitResult(timeout),
                    () -> "RESULT changed under Sovia on its TCP path\n" + sovia.report());
            SoviaStats stats = assertCarried(sovia, 2 * minConnections);
            assertEquals(stats.carried(), stats.on("tcp"),
                    () -> "sovia.paths=tcp leaves only TCP, so every connection belongs on tcp: " + stats.json());
            assertEquals(Map.of("disabled", stats.carried() / 2), stats.fallbacks(),
                    () -> "each connection's connect falls back to TCP because sovia.paths excludes the faster"
                            + " paths: " + stats.json() + "\n" + sovia.report());
        }
    }

    /**
     * Runs {@code app both} under Sovia with {@code agentFlags} that leave the app's connections to something
     * Sovia does not see (a native transport): the RESULT must equal the plain run's and Sovia must carry none.
     */
    static void oneJvmUncarried(Path dir, Class<?> app, Duration timeout, String... agentFlags) throws Exception {
        String expected = plainBoth(dir, app, timeout);
        skipUnlessAgentWanted();
        try (ForkedJvm sovia = ForkedJvm.start(dir, "sovia-uncarried",
                ForkedJvm.Options.agent(dir.resolve("sovia-uncarried.stats.json"), agentFlags), app, "both")) {
            assertEquals(expected, sovia.awaitResult(timeout),
                    () -> "RESULT changed under Sovia\n" + sovia.report());
            assertTrue(Files.isRegularFile(sovia.stats()), () -> "no statistics file\n" + sovia.report());
            SoviaStats stats = SoviaStats.read(sovia.stats());
            assertEquals(0, stats.carried(), () -> "these connections bypass Sovia's sockets, yet it counted some: "
                    + stats.json() + "\n" + sovia.report());
        }
    }

    /**
     * Runs {@code app server} and {@code app client <port>} in two JVMs, plainly and then both under
     * Sovia; the client's RESULT must not change, and each side's Sovia must carry at least
     * {@code minConnections} (the server counts the connections it accepted), all on the shm path
     * since both ends are on this host under the agent.
     */
    static void twoJvms(Path dir, Class<?> app, Duration timeout, int minConnections) throws Exception {
        String expected;
        try (ForkedJvm server = ForkedJvm.start(dir, "plain-server", false, app, "server");
                ForkedJvm client = startClient(dir, "plain-client", false, app, server, timeout)) {
            expected = client.awaitResult(timeout);
            stop(server, timeout);
        }
        skipUnlessAgentWanted();
        try (ForkedJvm server = ForkedJvm.start(dir, "sovia-server", true, app, "server");
                ForkedJvm client = startClient(dir, "sovia-client", true, app, server, timeout)) {
            assertEquals(expected, client.awaitResult(timeout),
                    () -> "RESULT changed under Sovia\n" + client.report());
            stop(server, timeout);
            assertAllShm(assertCarried(client, minConnections), client);
            assertAllShm(assertCarried(server, minConnections), server);
        }
    }

    private static ForkedJvm startClient(Path dir, String name, boolean agent, Class<?> app, ForkedJvm server,
            Duration timeout) throws Exception {
        return ForkedJvm.start(dir, name, agent, app, "client", String.valueOf(server.awaitPort(timeout)));
    }

    /** A server role stops when its standard input ends, and must then exit cleanly. */
    private static void stop(ForkedJvm server, Duration timeout) throws Exception {
        server.closeStdin();
        server.awaitSuccess(timeout);
    }

    /**
     * The RESULT of {@code app both} on the plain JDK, for tests that then vary only how the agent is
     * attached; such tests are skipped in plain-only runs.
     */
    static String plainResult(Path dir, Class<?> app, Duration timeout) throws Exception {
        skipUnlessAgentWanted();
        return plainBoth(dir, app, timeout);
    }

    private static synchronized String plainBoth(Path dir, Class<?> app, Duration timeout) throws Exception {
        String result = PLAIN_BOTH.get(app);
        if (result == null) {
            try (ForkedJvm plain = ForkedJvm.start(dir, "plain", false, app, "both")) {
                result = plain.awaitResult(timeout);
            }
            PLAIN_BOTH.put(app, result);
        }
        return result;
    }

    private static void skipUnlessAgentWanted() {
        Assumptions.assumeFalse(PLAIN_ONLY,
                "sovia.examples.plainOnly: the plain half passed, the Sovia half is skipped");
    }

    private static void assertAllShm(SoviaStats stats, ForkedJvm jvm) {
        assertEquals(stats.carried(), stats.on("shm"), () -> "both JVMs are on this host under the agent, so every"
                + " connection belongs on shm: " + stats.json() + "\n" + jvm.report());
    }

    /**
     * The agent wrote its statistics at exit, and they count at least {@code min} carried connections
     * (a JVM counts each connect and each accept it made).
     */
    private static SoviaStats assertCarried(ForkedJvm jvm, int min) throws Exception {
        assertTrue(Files.isRegularFile(jvm.stats()),
                () -> "no statistics file " + jvm.stats() + "\n" + jvm.report());
        SoviaStats stats = SoviaStats.read(jvm.stats());
        System.out.println(jvm.stats().getFileName() + ": connections " + stats.connections()
                + ", fallbacks " + stats.fallbacks());
        assertTrue(stats.carried() >= min, () -> "Sovia carried " + stats.carried()
                + " connections, expected at least " + min + "; statistics: " + stats.json() + "\n" + jvm.report());
        return stats;
    }
}
