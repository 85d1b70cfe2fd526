package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * when both JVMs' collectors get to the mappings. Measured as the blocks allocated to the segments both JVMs map
 * (each memory file once, through /proc/PID/map_files), so no other process's memory counts.
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
            try (ForkedJvm client = ForkedJvm.start(dir, "client", agent("client"), IdleClient.class,
                    String.valueOf(port), String.valueOf(CONNECTIONS), "300", "200")) {
                client.awaitLine("HELD " + CONNECTIONS, Duration.ofSeconds(150));
                List<Long> pids = List.of(server.pid(), client.pid());
                long held = segmentBytes(pids);
                System.out.printf("%d idle shm connections hold %.1f MiB of shared memory (%.1f KiB each)%n",
                        CONNECTIONS, held / 1048576.0, held / 1024.0 / CONNECTIONS);
                assertTrue(held < BUDGET, () -> CONNECTIONS + " idle connections hold " + held + " bytes");
                client.process().getOutputStream().write("close\n".getBytes(StandardCharsets.US_ASCII));
                client.process().getOutputStream().flush();
                client.awaitLine("CLOSED", Duration.ofSeconds(60));
                long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                long left = segmentBytes(pids);
                while (left > 0 && System.nanoTime() < deadline) {
                    Thread.sleep(200);
                    left = segmentBytes(pids);
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

    /**
     * Bytes allocated to the Sovia segments that {@code pids} map: each memory file counted once (by inode), with
     * the blocks its pages hold (a page never touched, or freed, holds none; stat(1) reads them, Java cannot).
     */
    private static long segmentBytes(List<Long> pids) throws IOException, InterruptedException {
        Map<Long, Long> blocksByInode = new HashMap<>();
        for (long pid : pids) {
            List<String> command = new ArrayList<>(List.of("stat", "-L", "-c", "%i %b"));
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/maps"))) {
                if (line.contains("/memfd:sovia-segment")) {
                    command.add("/proc/" + pid + "/map_files/" + line.substring(0, line.indexOf(' ')));
                }
            }
            if (command.size() == 4) {
                continue;
            }
            Process stat = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            for (String line : new String(stat.getInputStream().readAllBytes()).split("\n")) {
                String[] inodeAndBlocks = line.trim().split(" ");
                if (inodeAndBlocks.length == 2) {
                    blocksByInode.put(Long.parseLong(inodeAndBlocks[0]), Long.parseLong(inodeAndBlocks[1]));
                }
            }
            stat.waitFor(); // a mapping collected meanwhile makes stat fail for that one path only
        }
        return blocksByInode.values().stream().mapToLong(Long::longValue).sum() * 512;
    }
}
