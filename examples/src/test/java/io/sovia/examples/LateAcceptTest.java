package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A clean run counts nothing as hostile: a client whose early data fills the window and whose writer then probes,
 * all before the server accepts (300 ms late), sends those probes without the server's token, which it cannot have
 * yet. They are its own frames on its own ring, so they are taken: before, each was counted as a bad token (16 in
 * three 8 MiB connections), and now that a frame no engine sends resets the connection they would reset it.
 */
class LateAcceptTest {
    private static final int CONNECTIONS = 3;
    private static final int BYTES = 8 << 20;

    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void probesBeforeALateAcceptAreNeitherBadTokensNorViolations() throws Exception {
        try (ForkedJvm server = ForkedJvm.start(dir, "server", ForkedJvm.Options.agent(dir.resolve("server.json")),
                LateAcceptSink.class, "server", String.valueOf(CONNECTIONS), "300");
             ForkedJvm client = ForkedJvm.start(dir, "client", ForkedJvm.Options.agent(dir.resolve("client.json")),
                     LateAcceptSink.class, "client", String.valueOf(server.awaitPort(Duration.ofSeconds(60))),
                     String.valueOf(CONNECTIONS), String.valueOf(BYTES))) {
            assertEquals(0, client.awaitExit(Duration.ofSeconds(60)), client.report());
            server.awaitLine("DONE", Duration.ofSeconds(60));
            assertEquals(0, server.awaitExit(Duration.ofSeconds(30)), server.report());
            assertEquals(CONNECTIONS, server.stdout().split("READ " + BYTES + "\n", -1).length - 1, server.report());
            SoviaStats stats = ShmChecks.assertAllOn("shm", server, CONNECTIONS);
            Map<String, Long> engine = stats.section("engine");
            assertEquals(0L, engine.get("badTokens"), stats.json());
            assertEquals(0L, engine.get("protocolErrors"), stats.json());
            assertEquals(0L, engine.get("resets"), stats.json());
        }
    }

    /**
     * A client that writes, closes and exits before the server accepts: TCP leaves its bytes and FIN in the kernel
     * and the process ends at once; on shm they stay in the segment (in flight in the listener's queue), so the
     * client's exit does not wait for the accept (it waited until the server accepted, its FIN held back until the
     * handshake), and the server later reads everything and then end of stream, not a reset.
     */
    @Test
    @Timeout(120)
    void aClientThatExitsBeforeTheAcceptLeavesItsBytesBehind() throws Exception {
        try (ForkedJvm server = ForkedJvm.start(dir, "server", ForkedJvm.Options.agent(dir.resolve("server.json")),
                LateAcceptSink.class, "server", "1", "5000");
             ForkedJvm client = ForkedJvm.start(dir, "client", ForkedJvm.Options.agent(dir.resolve("client.json")),
                     LateAcceptSink.class, "client", String.valueOf(server.awaitPort(Duration.ofSeconds(60))), "1", "1000")) {
            assertEquals(0, client.awaitExit(Duration.ofSeconds(60)), client.report());
            assertEquals(false, server.stdout().contains("READ"), "the client's exit waited for the accept\n" + server.report());
            server.awaitLine("DONE", Duration.ofSeconds(60));
            assertEquals(0, server.awaitExit(Duration.ofSeconds(30)), server.report());
            assertEquals(true, server.stdout().contains("READ 1000\n"), server.report());
            SoviaStats stats = ShmChecks.assertAllOn("shm", server, 1);
            assertEquals(0L, stats.section("engine").get("resets"), stats.json());
        }
    }
}
