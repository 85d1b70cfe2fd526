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

    private static String onlyWarning(ForkedJvm app) throws Exception {
        List<String> warnings = WARN.matcher(app.stderr()).results().map(r -> r.group()).toList();
        assertEquals(1, warnings.size(), () -> "expected exactly one warning line\n" + app.report());
        return warnings.get(0);
    }
}
