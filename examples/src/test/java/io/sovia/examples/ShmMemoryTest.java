package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What shared memory an shm connection holds: a thousand idle connections (each after a few hundred small
 * request/response rounds, default ring size) fit in 128 MiB, and once closed their memory is back at once, not
 * when both JVMs' collectors get to the mappings. Measured as the host's {@code Shmem} in /proc/meminfo (memory
 * files count there, mapped or not), so other processes' churn is in the figure too; the bounds leave room for it.
 */
class ShmMemoryTest {
    private static final int CONNECTIONS = 1000;
    private static final long BUDGET = 128L << 20;

    @TempDir
    Path dir;

    @Test
    @Timeout(240)
    void aThousandIdleConnectionsFitIn128MiBAndClosingGivesItBack() throws Exception {
        try (ForkedJvm server = ForkedJvm.start(dir, "server", agent("server"), ManyEchoApp.class, "server")) {
            int port = server.awaitPort(Duration.ofSeconds(60));
            long before = shmem();
            try (ForkedJvm client = ForkedJvm.start(dir, "client", agent("client"), IdleClient.class,
                    String.valueOf(port), String.valueOf(CONNECTIONS), "300", "200")) {
                client.awaitLine("HELD " + CONNECTIONS, Duration.ofSeconds(150));
                long held = shmem() - before;
                System.out.printf("%d idle shm connections hold %.1f MiB of shared memory (%.1f KiB each)%n",
                        CONNECTIONS, held / 1048576.0, held / 1024.0 / CONNECTIONS);
                assertTrue(held < BUDGET, () -> CONNECTIONS + " idle connections hold " + held + " bytes");
                client.process().getOutputStream().write("close\n".getBytes(StandardCharsets.US_ASCII));
                client.process().getOutputStream().flush();
                client.awaitLine("CLOSED", Duration.ofSeconds(60));
                long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                long left = shmem() - before;
                while (left > (8L << 20) && System.nanoTime() < deadline) {
                    Thread.sleep(200);
                    left = shmem() - before;
                }
                long remaining = left;
                System.out.printf("after closing them: %.1f MiB%n", remaining / 1048576.0);
                assertTrue(remaining <= (8L << 20), () -> "closed connections still hold " + remaining + " bytes");
                client.closeStdin();
                assertEquals(0, client.awaitExit(Duration.ofSeconds(30)), client.report());
                SoviaStats stats = ShmChecks.stats(client);
                assertEquals(CONNECTIONS, stats.on("shm"), stats.json());
            }
            server.closeStdin();
            assertEquals(0, server.awaitExit(Duration.ofSeconds(30)), server.report());
        }
    }

    private ForkedJvm.Options agent(String name) {
        return ForkedJvm.Options.agent(dir.resolve(name + ".json"));
    }

    /** The host's shared memory, memory files included (/proc/meminfo {@code Shmem}), in bytes. */
    private static long shmem() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
            if (line.startsWith("Shmem:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IOException("no Shmem line in /proc/meminfo");
    }
}
