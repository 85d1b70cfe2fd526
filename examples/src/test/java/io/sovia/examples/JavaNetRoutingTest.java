package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sovia.javanet} picks how java.net sockets reach Sovia. RMI uses nothing but java.net, so its
 * connections are counted exactly when java.net is routed, whatever the mechanism.
 */
class JavaNetRoutingTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    /** RmiApp in one JVM: client and server ends of its registry and remote-object connections. */
    private static final int RMI_CONNECTIONS = 4;
    private static String expected;

    @TempDir
    Path dir;

    @BeforeAll
    static void plainResult(@TempDir Path dir) throws Exception {
        expected = CompatCheck.plainResult(dir, RmiApp.class, TIMEOUT);
    }

    private SoviaStats runRmi(String mode) throws Exception {
        Path stats = dir.resolve(mode + ".stats.json");
        List<String> flags = ForkedJvm.agentFlags("javanet=" + mode, "-Dsovia.stats=" + stats);
        try (ForkedJvm app = ForkedJvm.start(dir, mode, flags, stats, RmiApp.class, "both")) {
            assertEquals(expected, app.awaitResult(TIMEOUT));
            assertTrue(!app.stderr().contains("[sovia] WARN"), app.report());
        }
        return SoviaStats.read(stats);
    }

    @Test
    @Timeout(90)
    void factoryFallbackRoutesJavaNet() throws Exception {
        assertTrue(runRmi("factory").carried() >= RMI_CONNECTIONS);
    }

    @Test
    @Timeout(90)
    void adviceRoutesJavaNet() throws Exception {
        assertTrue(runRmi("advice").carried() >= RMI_CONNECTIONS);
    }

    @Test
    @Timeout(90)
    void offLeavesJavaNetAlone() throws Exception {
        assertEquals(0, runRmi("off").carried());
    }
}
