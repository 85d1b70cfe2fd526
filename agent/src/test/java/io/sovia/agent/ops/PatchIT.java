package io.sovia.agent.ops;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The agent's patches of JDK classes pass the bytecode verifier, which the JDK skips for its own classes unless told
 * ({@code BytecodeVerificationLocal}): a bad frame there would not be a VerifyError but undefined behaviour. With it
 * on, the patched methods run and carry java.net sockets, file transfers and Channels' streams to Sovia, with no warning logged.
 */
@Timeout(120)
class PatchIT {
    @TempDir
    Path dir;

    @Test
    void patchedJdkClassesVerifyAndRun() throws Exception {
        List<String> command = List.of(Forked.JAVA.toString(), "-XX:+UnlockDiagnosticVMOptions",
                "-XX:+BytecodeVerificationLocal", "-javaagent:" + Forked.agentJar(), "-Dsovia.log=info",
                "--add-opens=java.base/java.net=ALL-UNNAMED",
                "-cp", Forked.testClasses(), PatchProbe.class.getName());
        try (Forked probe = Forked.start(dir, "patch-probe", command)) {
            Forked.Result r = probe.result(Duration.ofSeconds(60));
            assertEquals(0, r.exit(), probe.report());
            assertTrue(r.stderr().contains("java.net routed through a patch of SocketImpl.createPlatformSocketImpl"),
                    probe.report());
            assertFalse(r.stderr().contains("WARN"), probe.report());
            assertTrue(r.stdout().contains("impl io.sovia."), probe.report());
            assertTrue(r.stdout().contains("channel io.sovia.spi.nio.SoviaSocketChannel transferTo 100000 transferFrom 5000"),
                    probe.report());
            assertTrue(r.stdout().contains("streams io.sovia.spi.nio.AdaptorOutputStream io.sovia.spi.nio.AdaptorInputStream"
                    + " carried [1, 2, 3]"), probe.report());
        }
    }
}
