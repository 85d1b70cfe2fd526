package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent never takes an app down: when Sovia cannot do its part, the app still runs exactly as on
 * the plain JDK and one {@code [sovia] WARN} line on stderr says why.
 */
class AgentFailSafeTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final Pattern WARN = Pattern.compile("(?m)^\\[sovia\\] WARN .*$");
    private static String expected;

    @TempDir
    Path dir;

    @BeforeAll
    static void plainResult(@TempDir Path dir) throws Exception {
        expected = CompatCheck.plainResult(dir, RmiApp.class, TIMEOUT);
    }

    @Test
    @Timeout(90)
    void malformedAgentArgumentLeavesTheJvmOnThePlainJdk() throws Exception {
        Path stats = dir.resolve("stats.json");
        List<String> flags = ForkedJvm.agentFlags("stats=" + stats + ",verbose");
        try (ForkedJvm app = ForkedJvm.start(dir, "malformed", flags, stats, RmiApp.class, "both")) {
            assertEquals(expected, app.awaitResult(TIMEOUT));
            String warning = onlyWarning(app);
            assertTrue(warning.contains("Sovia is off for this JVM")
                    && warning.contains("agent argument 'verbose' is not key=value"), warning);
            assertFalse(Files.exists(stats), "Sovia was off, so it wrote no statistics");
        }
    }

    @Test
    @Timeout(90)
    void unwritableStatsFileIsReportedAndTheAppIsUnaffected() throws Exception {
        Path stats = dir.resolve("no-such-directory").resolve("stats.json");
        List<String> flags = ForkedJvm.agentFlags("", "-Dsovia.stats=" + stats);
        try (ForkedJvm app = ForkedJvm.start(dir, "unwritable", flags, stats, RmiApp.class, "both")) {
            assertEquals(expected, app.awaitResult(TIMEOUT));
            String warning = onlyWarning(app);
            assertTrue(warning.contains("cannot write stats to " + stats), warning);
        }
    }

    @Test
    @Timeout(90)
    void disabledAgentChangesNothing() throws Exception {
        Path stats = dir.resolve("stats.json");
        List<String> flags = ForkedJvm.agentFlags("enabled=false", "-Dsovia.stats=" + stats);
        try (ForkedJvm app = ForkedJvm.start(dir, "disabled", flags, stats, RmiApp.class, "both")) {
            assertEquals(expected, app.awaitResult(TIMEOUT));
            assertFalse(WARN.matcher(app.stderr()).find(), app.report());
            assertFalse(Files.exists(stats), "a disabled agent writes no statistics");
        }
    }

    /**
     * The agent named twice, as when JAVA_TOOL_OPTIONS and the command line both carry it: the second
     * must change nothing, not even with arguments of its own. The app sets its own SocketImpl factory,
     * which a second install stacking Sovia's factory on the advice would make fail.
     */
    @Test
    @Timeout(120)
    void agentGivenTwiceIsInstalledOnce() throws Exception {
        String plain = CompatCheck.plainResult(dir, FactoryApp.class, TIMEOUT);
        Path stats = dir.resolve("stats.json");
        Path secondStats = dir.resolve("second.stats.json");
        ForkedJvm.Options options = ForkedJvm.Options.agent(stats,
                "-javaagent:" + ForkedJvm.agentJar() + "=stats=" + secondStats);
        try (ForkedJvm app = ForkedJvm.start(dir, "twice", options, FactoryApp.class, "both")) {
            assertEquals(plain, app.awaitResult(TIMEOUT), app::report);
            String warning = onlyWarning(app);
            assertTrue(warning.contains("already installed"), warning);
            assertFalse(Files.exists(secondStats), "the second agent's arguments were applied\n" + app.report());
            SoviaStats counted = ShmChecks.stats(app);
            // the app's one connection, counted at its connect and at its accept, by one Sovia
            assertTrue(counted.carried() == 2 && counted.on("jvm") == 2, () -> counted.json() + "\n" + app.report());
        }
    }

    /**
     * An app that names its own NIO provider keeps it: Sovia's would replace what the app chose, so
     * the agent leaves NIO (here the HTTP server and HttpClient) to it and says so. HttpURLConnection's
     * java.net sockets are still Sovia's, but their peer is a JDK channel, so they can only use TCP.
     */
    @Test
    @Timeout(120)
    void appsOwnSelectorProviderIsKept() throws Exception {
        String plain = CompatCheck.plainResult(dir, JdkHttpServerApp.class, TIMEOUT);
        Path stats = dir.resolve("stats.json");
        ForkedJvm.Options options = ForkedJvm.Options.agent(stats,
                "-Djava.nio.channels.spi.SelectorProvider=sun.nio.ch.EPollSelectorProvider");
        try (ForkedJvm app = ForkedJvm.start(dir, "own-provider", options, JdkHttpServerApp.class, "both")) {
            assertEquals(plain, app.awaitResult(TIMEOUT), app::report);
            String warning = onlyWarning(app);
            assertTrue(warning.contains("NIO stays on") && warning.contains("sun.nio.ch.EPollSelectorProvider"),
                    warning);
            SoviaStats counted = ShmChecks.stats(app);
            assertEquals(counted.carried(), counted.on("tcp"), () -> counted.json() + "\n" + app.report());
        }
    }

    /**
     * Invalid engine settings (a receive buffer below the 1024 minimum, a ring that is not a power of
     * two) break only the accelerated path they are read for: connects take TCP instead of failing.
     */
    @Test
    @Timeout(90)
    void invalidSettingsLeaveConnectsOnTcp() throws Exception {
        Path stats = dir.resolve("stats.json");
        List<String> flags = ForkedJvm.agentFlags("", "-Dsovia.stats=" + stats,
                "-Dsovia.rcvbuf=512", "-Dsovia.jvm.ring=1000");
        try (ForkedJvm app = ForkedJvm.start(dir, "invalid", flags, stats, RmiApp.class, "both")) {
            assertEquals(expected, app.awaitResult(TIMEOUT), app::report);
            String warning = onlyWarning(app);
            assertTrue(warning.contains("sovia.rcvbuf") || warning.contains("sovia.jvm.ring"), warning);
            SoviaStats counted = ShmChecks.stats(app);
            assertTrue(counted.on("tcp") > 0 && counted.carried() == counted.on("tcp"),
                    () -> "every connection belongs on tcp: " + counted.json() + "\n" + app.report());
        }
    }

    /**
     * An invalid {@code sovia.shm.sleep} turns the shm transport off as it loads, with one warning naming the
     * property: connects that would have taken shm take TCP (jvm is left out here, so they would have).
     */
    @Test
    @Timeout(90)
    void anInvalidShmSettingTurnsShmOff() throws Exception {
        Path stats = dir.resolve("stats.json");
        List<String> flags = ForkedJvm.agentFlags("", "-Dsovia.stats=" + stats, "-Dsovia.paths=shm,tcp",
                "-Dsovia.shm.sleep=spin");
        try (ForkedJvm app = ForkedJvm.start(dir, "invalid-shm", flags, stats, RmiApp.class, "both")) {
            assertEquals(expected, app.awaitResult(TIMEOUT), app::report);
            String warning = onlyWarning(app);
            assertTrue(warning.contains("sovia.shm.sleep=spin"), warning);
            SoviaStats counted = ShmChecks.stats(app);
            assertTrue(counted.on("tcp") > 0 && counted.carried() == counted.on("tcp"),
                    () -> "every connection belongs on tcp: " + counted.json() + "\n" + app.report());
        }
    }

    private static String onlyWarning(ForkedJvm app) throws Exception {
        List<String> warnings = WARN.matcher(app.stderr()).results().map(r -> r.group()).toList();
        assertEquals(1, warnings.size(), () -> "expected exactly one warning line\n" + app.report());
        return warnings.get(0);
    }
}
