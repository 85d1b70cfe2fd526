package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * With a CPU-bound process on every core, waits on an shm connection must stop spinning: a spinner whose yield hands
 * its core to such a process for a whole time slice keeps its peer from running, which made 64-byte round trips
 * 25 times slower than TCP's. The round trips and streams of PingPongApp (client and server JVMs under the agent)
 * must complete on shm, and the engine counters must show the spins given up or skipped. How fast it then is, is
 * the benchmarks' business ({@code examples/demo.sh}), not this test's.
 */
class BusyCoresTest {
    private static final int PINGS = 300;

    @TempDir
    Path dir;

    @Test
    @Timeout(180)
    void spinsGiveWayToCpuBoundProcesses() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/taskset")), "taskset (util-linux) is needed to pin the hogs");
        List<Process> hogs = new ArrayList<>();
        try {
            for (int core = 0; core < Runtime.getRuntime().availableProcessors(); core++) {
                hogs.add(new ProcessBuilder("taskset", "-c", String.valueOf(core), "sh", "-c", "while :; do :; done")
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start());
            }
            try (ForkedJvm server = ForkedJvm.start(dir, "server",
                    ForkedJvm.Options.agent(dir.resolve("server.stats.json")), PingPongApp.class, "server", "nio")) {
                int port = server.awaitPort(Duration.ofSeconds(60));
                try (ForkedJvm client = ForkedJvm.start(dir, "client",
                        ForkedJvm.Options.agent(dir.resolve("client.stats.json")), PingPongApp.class, "client", "nio",
                        String.valueOf(port), String.valueOf(PINGS), "0.2")) {
                    String result = client.awaitResult(Duration.ofSeconds(150));
                    System.out.println("busy cores: " + result);
                    server.awaitExit(Duration.ofSeconds(30));
                    long gaveWay = 0;
                    for (ForkedJvm jvm : List.of(client, server)) {
                        Map<String, Long> engine = ShmChecks.assertAllOn("shm", jvm, 1).section("engine");
                        System.out.println(jvm.stats().getFileName() + ": engine " + engine);
                        gaveWay += engine.getOrDefault("contendedSpins", 0L) + engine.getOrDefault("spinsSkipped", 0L);
                    }
                    assertTrue(gaveWay > 0, "no wait gave up or skipped its spin while every core was busy");
                }
            }
        } finally {
            for (Process hog : hogs) {
                hog.destroyForcibly();
                hog.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
