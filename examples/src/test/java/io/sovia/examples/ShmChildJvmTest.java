package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code JAVA_TOOL_OPTIONS=-javaagent:...} reaches the JVMs a launcher starts: a parent (agent only
 * through that variable) starts a child with ProcessBuilder, and the two talk over shm. The variable
 * names the parent's statistics file with {@code -Dsovia.stats}; the child's own command line
 * overrides it, so each process writes its own.
 */
class ShmChildJvmTest {
    private static final long BYTES = 128L << 20;

    @TempDir
    Path dir;

    @Test
    @Timeout(200)
    void childStartedThroughJavaToolOptionsTalksShmToItsParent() throws Exception {
        Path parentStats = dir.resolve("parent.stats.json");
        Path childStats = dir.resolve("child.stats.json");
        String toolOptions = "-javaagent:" + ForkedJvm.agentJar() + " -Dsovia.stats=" + parentStats;
        ForkedJvm.Options options = ForkedJvm.Options.plain()
                .withEnvironment(Map.of("JAVA_TOOL_OPTIONS", toolOptions))
                .withStats(parentStats);
        try (ForkedJvm parent = ForkedJvm.start(dir, "parent", options, ParentChildApp.class,
                String.valueOf(BYTES), "-Dsovia.stats=" + childStats)) {
            String out = parent.awaitSuccess(Duration.ofSeconds(150));
            Matcher result = Pattern.compile("(?m)^RESULT .*$").matcher(out);
            Matcher childResult = Pattern.compile("(?m)^CHILD (RESULT .*)$").matcher(out);
            assertTrue(result.find() && childResult.find(), parent::report);
            assertEquals(result.group(), childResult.group(1), "the child's view of the streams differs from its parent's");
            assertEquals("RESULT c2s=" + DemoSupport.sha256OfPseudoRandom(31, BYTES)
                    + " s2c=" + DemoSupport.sha256OfPseudoRandom(32, BYTES), result.group());
            String err = parent.stderr();
            assertEquals(2, Pattern.compile("(?m)^Picked up JAVA_TOOL_OPTIONS: ").matcher(err).results().count(),
                    () -> "both the parent and the child should have picked up JAVA_TOOL_OPTIONS\n" + parent.report());

            ShmChecks.assertAllOn("shm", parent, 1);
            assertTrue(Files.isRegularFile(childStats), () -> "the child wrote no statistics: its agent did not run\n"
                    + parent.report());
            SoviaStats child = SoviaStats.read(childStats);
            System.out.println("child: connections " + child.connections() + ", fallbacks " + child.fallbacks());
            assertEquals(1L, child.on("shm"), child.json());
            assertEquals(1L, child.carried(), child.json());
            long childPid = Long.parseLong(Pattern.compile("(?m)^CHILD-PID (\\d+)$").matcher(out).results()
                    .findFirst().orElseThrow().group(1));
            int port = Integer.parseInt(Pattern.compile("(?m)^PORT (\\d+)$").matcher(out).results()
                    .findFirst().orElseThrow().group(1));
            assertEquals(List.of(), ShmChecks.filesOf(List.of(parent.pid(), childPid), List.of(port)),
                    "left in " + ShmChecks.DIR);
        }
    }
}
