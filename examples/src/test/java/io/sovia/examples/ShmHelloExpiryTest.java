package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hellos whose TCP connection never comes must not pin a listener's descriptors for good: a local peer that leaves
 * hundreds of them (HostilePeer), some on connections it keeps open, some on ones it closes at once. They go after
 * {@code sovia.shm.hello.ttl.millis} (the doorbell agent sweeps every second); then the listener's process holds
 * what it held before, and real clients still get across on shm.
 */
class ShmHelloExpiryTest {
    private static final int HELLOS = 300;
    private static final long TTL_MILLIS = 2000;

    @TempDir
    Path dir;

    @Test
    @Timeout(180)
    void unclaimedHellosExpire() throws Exception {
        try (ForkedJvm server = ForkedJvm.start(dir, "server", ForkedJvm.Options.agent(dir.resolve("server.json"),
                "-Dsovia.shm.hello.ttl.millis=" + TTL_MILLIS), ManyEchoApp.class, "server")) {
            int port = server.awaitPort(Duration.ofSeconds(60));
            Path socket = ShmChecks.listenerSockets(port).get(0);
            echo(port, "warm-up");
            long before = server.descriptors();
            try (ForkedJvm kept = HostilePeer.start(dir, "kept", socket, 0, "hellos-keep", String.valueOf(HELLOS));
                 ForkedJvm closed = HostilePeer.start(dir, "closed", socket, 0, "hellos-close", String.valueOf(HELLOS))) {
                // an accept collects every hello queued so far, and these never get claimed
                echo(port, "after-hellos");
                long after = server.awaitDescriptorsAtMost(before + 5, Duration.ofSeconds(30));
                assertTrue(after <= before + 5, () -> "the listener holds " + after + " descriptors, " + before
                        + " before " + 2 * HELLOS + " hellos that never connected\n" + server.report());
            }
            echo(port, "at-the-end");
        }
    }

    /** One connection from a client JVM under the agent, which must take shm. */
    private void echo(int port, String name) throws Exception {
        try (ForkedJvm client = ForkedJvm.start(dir, name, ForkedJvm.Options.agent(dir.resolve(name + ".json")),
                ManyEchoApp.class, "client", String.valueOf(port), "1", "1000")) {
            client.awaitResult(Duration.ofSeconds(60));
            client.awaitExit(Duration.ofSeconds(30));
            ShmChecks.assertAllOn("shm", client, 1);
        }
    }
}
