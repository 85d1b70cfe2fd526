package io.sovia.agent.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * {@code bin/sovia} as a user runs it right after the build: a command under the agent (whose child JVM inherits
 * it), its options, and the jar's commands, also from an installed layout with the jar beside the script.
 */
@Timeout(180)
class LauncherIT {
    /** The repository's launcher; failsafe runs in the agent module's directory. */
    private static final Path LAUNCHER = Path.of(System.getProperty("user.dir")).resolve("../bin/sovia").normalize();
    /** The launcher's ss and doctor run this JVM's java, so a run on another JDK tests that one. */
    private static final Map<String, String> JAVA = Map.of("JAVA", Forked.JAVA.toString());

    @TempDir
    Path dir;

    @Test
    void runsAChildJvmOfTheCommandUnderTheAgent() throws Exception {
        Path stats = dir.resolve("stats.json");
        // sh starts the JVM as its child: the agent reaches it through the environment alone
        List<String> command = List.of(LAUNCHER.toString(), "--stats", stats.toString(), "--log", "info", "sh", "-c",
                "\"$0\" -cp \"$1\" " + HoldApp.class.getName() + " events; exit $?",
                Forked.JAVA.toString(), Forked.testClasses());
        try (Forked run = Forked.start(dir, "launched", command, JAVA)) {
            Forked.Result r = run.result(Duration.ofSeconds(90));
            assertEquals(0, r.exit(), run.report());
            assertTrue(r.stdout().contains("DONE"), run.report());
            assertTrue(r.stderr().contains("Picked up JAVA_TOOL_OPTIONS: -javaagent:"), run.report());
        }
        String json = Files.readString(stats);
        // both jvm connections counted at each end, and the connect sovia.paths=tcp sent to TCP
        assertTrue(json.contains("\"connections\": {\"jvm\": 4,"), json);
        assertTrue(json.contains("\"fallbacks\": {\"disabled\": 1}"), json);
    }

    @Test
    void runsTheJarsCommandsAndRefusesBadUsage() throws Exception {
        assertEquals(0, launch(LAUNCHER, "--help").exit());
        assertEquals(2, launch(LAUNCHER, "--no-such-option", "java").exit());
        assertEquals(2, launch(LAUNCHER).exit());
        Forked.Result ss = launch(LAUNCHER, "ss", "-p", "1"); // pid 1 is never under the agent
        assertEquals(1, ss.exit(), ss.toString());
        assertTrue(ss.stdout().startsWith("PID "), ss.toString());

        Path installed = Files.createDirectory(dir.resolve("installed"));
        Files.copy(LAUNCHER, installed.resolve("sovia"));
        Files.copy(Forked.agentJar(), installed.resolve("sovia.jar"));
        installed.resolve("sovia").toFile().setExecutable(true);
        Forked.Result doctor = launch(installed.resolve("sovia"), "doctor", "--help");
        assertEquals(0, doctor.exit(), doctor.toString());
        assertTrue(doctor.stdout().contains("Usage: sovia doctor"), doctor.toString());
    }

    private Forked.Result launch(Path launcher, String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(launcher.toString()));
        command.addAll(List.of(args));
        try (Forked run = Forked.start(dir, "launcher", command, JAVA)) {
            return run.result(Duration.ofSeconds(60));
        }
    }
}
