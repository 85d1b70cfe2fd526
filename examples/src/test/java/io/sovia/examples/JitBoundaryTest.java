package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's compiler directive (sovia.jit.boundary) in real JVMs: added where the JVM has none of its own, left out
 * (with an info line) where it has, since ours would hide theirs.
 */
class JitBoundaryTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void theDirectiveIsAddedAndAnAppsOwnDirectivesAreLeftAlone() throws Exception {
        assertTrue(run("plain", List.of("-Dsovia.log=debug")).contains("compiler directive: 1 compiler directives added"));

        Path own = dir.resolve("own.json");
        Files.writeString(own, "[ { match: \"java/lang/String.*\", c2: { inline: \"-java/lang/String.hashCode\" } } ]");
        String stderr = run("own", List.of("-Dsovia.log=debug", "-XX:+UnlockDiagnosticVMOptions",
                "-XX:CompilerDirectivesFile=" + own));
        assertTrue(stderr.contains("the JVM has compiler directives of its own"), stderr);
        assertFalse(stderr.contains("[sovia] DEBUG compiler directive:"), stderr);
    }

    /** Runs a short ping-pong in one JVM under the agent with {@code flags}; returns its stderr. */
    private String run(String name, List<String> flags) throws Exception {
        List<String> all = new ArrayList<>(ForkedJvm.agentFlags(""));
        all.addAll(flags);
        try (ForkedJvm jvm = ForkedJvm.start(dir, name, all, null, PingPongApp.class, "both", "nio", "20000")) {
            jvm.awaitResult(Duration.ofSeconds(60));
            jvm.awaitExit(Duration.ofSeconds(30));
            return jvm.stderr();
        }
    }
}
