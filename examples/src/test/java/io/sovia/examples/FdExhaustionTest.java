package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server that runs out of file descriptors once recovers when the clients that exhausted it go, as the plain
 * JDK's does: a selector echo server limited to 256 descriptors ({@code prlimit}) takes a burst of 400 concurrent
 * connections, its accepts fail with "Too many open files" for a while; the flooding client is killed; then the
 * server must be back to the descriptors it held before and serve new clients (on shm under the agent). Run on the
 * plain JDK too, which checks the test itself. Under the agent, hellos whose connection was never accepted expire
 * after {@code sovia.shm.hello.ttl.millis}, here 3 s.
 */
class FdExhaustionTest {
    private static final Duration STEP = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"plain", "agent"})
    @Timeout(240)
    void aServerRecoversWhenTheClientsThatExhaustedItGo(String mode) throws Exception {
        boolean agent = mode.equals("agent");
        ForkedJvm.Options options = (agent
                ? ForkedJvm.Options.agent(dir.resolve("server.json"), "-Dsovia.shm.hello.ttl.millis=3000")
                : ForkedJvm.Options.plain()).withPrefix(List.of("prlimit", "--nofile=256:256", "--"));
        try (ForkedJvm server = ForkedJvm.start(dir, "server", options, ManyEchoApp.class, "server")) {
            int port = server.awaitPort(STEP);
            echo(port, "before", agent);
            long before = server.descriptors();
            try (ForkedJvm flood = client(port, "flood", 400, agent)) {
                server.awaitLine("ACCEPT FAILED .*", STEP);
                flood.process().destroyForcibly().waitFor();
            }
            long after = server.awaitDescriptorsAtMost(before + 10, Duration.ofSeconds(60));
            assertTrue(after <= before + 10, () -> mode + " server holds " + after + " descriptors, " + before
                    + " before the flood\n" + server.report());
            echo(port, "after", agent);
        }
    }

    private ForkedJvm client(int port, String name, int connections, boolean agent) throws IOException {
        ForkedJvm.Options options = agent ? ForkedJvm.Options.agent(dir.resolve(name + ".json")) : ForkedJvm.Options.plain();
        return ForkedJvm.start(dir, name, options, ManyEchoApp.class, "client", String.valueOf(port),
                String.valueOf(connections), String.valueOf(connections * 1000L));
    }

    private void echo(int port, String name, boolean agent) throws Exception {
        try (ForkedJvm client = client(port, name, 4, agent)) {
            client.awaitResult(STEP);
            client.awaitExit(STEP);
            if (agent) {
                ShmChecks.assertAllOn("shm", client, 4);
            }
        }
    }
}
