package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ten thousand connections between two JVMs under the agent, every one on a virtual thread at both ends and on the
 * shm path ({@link VirtualEchoApp}). Runs on JDK 21+: this JVM if it is one, else a Temurin 25 found where
 * {@code .ci/run} looks; skipped otherwise.
 *
 * <p>Limits: a connection holds two descriptors in the client and one in the server until both ends closed, so
 * the client keeps at most {@value #MAX_OPEN} open at once (the other virtual threads wait for a permit; this
 * machine allows 20000 descriptors per process). Each connection holds {@code 2 x sovia.shm.ring} of /dev/shm until
 * both garbage collectors drop its mapping: with 64 KiB rings, 10000 connections are 1.25 GiB at most.
 */
class VirtualThreadShmTest {
    private static final int CONNECTIONS = 10_000;
    private static final int MAX_OPEN = 2_000;
    private static final String RING = "-Dsovia.shm.ring=65536";

    /**
     * Descriptors the client may hold per open connection at its peak: its setup socket and the doorbell, and
     * some slack for the JVM's own. A blocked call that slept in a JDK selector of its own cost two more each
     * (8526 at the peak for 2000 open connections, against 4119 when they park).
     */
    private static final int DESCRIPTORS_PER_CONNECTION = 3;
    private static final Pattern PEAK = Pattern.compile("(?m)^DESCRIPTORS peak=(-?\\d+)$");

    @TempDir
    Path dir;

    @Test
    @Timeout(300)
    void tenThousandVirtualThreadConnectionsOverShm() throws Exception {
        Path jdk = Jdks.atLeast(21).orElse(null);
        Assumptions.assumeTrue(jdk != null, () -> "needs a JDK 21+ for virtual threads: this JVM is "
                + Runtime.version() + " and no /usr/lib/jvm/temurin-25* was found");
        try (ForkedJvm server = ForkedJvm.start(dir, "vt-server", ForkedJvm.Options.agent(
                dir.resolve("vt-server.stats.json"), RING).withJavaHome(jdk), VirtualEchoApp.class, "server")) {
            int port = server.awaitPort(Duration.ofSeconds(60));
            try (ForkedJvm client = ForkedJvm.start(dir, "vt-client", ForkedJvm.Options.agent(
                    dir.resolve("vt-client.stats.json"), RING).withJavaHome(jdk), VirtualEchoApp.class, "client",
                    String.valueOf(port), String.valueOf(CONNECTIONS), String.valueOf(MAX_OPEN))) {
                assertEquals("RESULT connections=" + CONNECTIONS + " echoed=" + CONNECTIONS + " failed=0",
                        client.awaitResult(Duration.ofSeconds(200)));
                client.stdout().lines().filter(l -> l.startsWith("TIMING") || l.startsWith("DESCRIPTORS"))
                        .forEach(System.out::println);
                assertDescriptorsPerConnection(client);
                server.closeStdin();
                String echoed = server.awaitSuccess(Duration.ofSeconds(60));
                assertTrue(echoed.contains("ECHOED accepted=" + CONNECTIONS + " echoed=" + CONNECTIONS + " failed=0"),
                        server::report);
                // orderly closes only: a reset here would be a connection the engine ended for nothing
                for (ForkedJvm end : new ForkedJvm[] {client, server}) {
                    SoviaStats stats = ShmChecks.assertAllOn("shm", end, CONNECTIONS);
                    assertEquals(0L, stats.section("engine").get("resets"), stats.json());
                }
                assertEquals(List.of(), ShmChecks.filesOf(List.of(server.pid(), client.pid()), List.of(port)),
                        "files left in " + ShmChecks.DIR);
            }
        }
    }

    private static void assertDescriptorsPerConnection(ForkedJvm client) throws Exception {
        Matcher m = PEAK.matcher(client.stdout());
        assertTrue(m.find(), client::report);
        long peak = Long.parseLong(m.group(1));
        assertTrue(peak <= (long) DESCRIPTORS_PER_CONNECTION * MAX_OPEN, () -> "the client held " + peak
                + " descriptors with at most " + MAX_OPEN + " connections open: more than "
                + DESCRIPTORS_PER_CONNECTION + " each");
    }
}
