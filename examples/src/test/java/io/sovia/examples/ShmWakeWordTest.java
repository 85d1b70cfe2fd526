package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * A thread blocked on an shm connection sleeps on its ring's wake word, a futex in the shared segment
 * ({@code sovia.shm.sleep=word}, the default), or on the connection's doorbell socket ({@code doorbell}). With no
 * spin at all ({@code sovia.spin.micros=0}) every wait of ManyPingApp's ten connections sleeps, thousands of times a
 * second at both ends, so one wake-up lost between a thread's last look and its sleep would stop its connection for
 * good, and the client would never finish. Each JVM wakes its peer the way the peer asked, whatever it does itself:
 * a JVM that sleeps on doorbells still wakes one that sleeps on words, and the other way round. A selector whose
 * keys are all shm connections sleeps on their words too (PingPongApp's selector loop at both ends).
 */
class ShmWakeWordTest {
    private static final Duration STEP = Duration.ofSeconds(60);
    private static final int CONNECTIONS = 10;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "server sleeps on {0}, client on {1}")
    @CsvSource({"word, word", "doorbell, word", "word, doorbell"})
    @Timeout(120)
    void everyWaitSleepsAndIsWoken(String serverSleep, String clientSleep) throws Exception {
        try (ForkedJvm server = ForkedJvm.start(dir, "server", options("server", serverSleep), ManyPingApp.class,
                "server")) {
            int port = server.awaitPort(STEP);
            try (ForkedJvm client = ForkedJvm.start(dir, "client", options("client", clientSleep),
                    ManyPingApp.class, "client", String.valueOf(port), String.valueOf(CONNECTIONS), "1.5")) {
                String result = client.awaitResult(STEP);
                assertTrue(result.startsWith("RESULT connections=" + CONNECTIONS), client.report());
                assertEquals(0, client.awaitExit(STEP), client.report());
                server.process().destroy(); // serves until told to stop; its exit hook writes the stats
                server.awaitExit(STEP);
                assertSlept(client, clientSleep, CONNECTIONS);
                assertSlept(server, serverSleep, CONNECTIONS);
            }
        }
    }

    @ParameterizedTest(name = "server sleeps on {0}, client on {1}")
    @CsvSource({"word, word", "doorbell, word", "word, doorbell"})
    @Timeout(120)
    void aSelectorOfShmConnectionsSleepsAndIsWoken(String serverSleep, String clientSleep) throws Exception {
        try (ForkedJvm server = ForkedJvm.start(dir, "server", options("server", serverSleep), PingPongApp.class,
                "server", "selector")) {
            int port = server.awaitPort(STEP);
            try (ForkedJvm client = ForkedJvm.start(dir, "client", options("client", clientSleep),
                    PingPongApp.class, "client", "selector", String.valueOf(port), "20000", "0")) {
                String result = client.awaitResult(STEP);
                assertTrue(result.contains("rtt_us="), client.report());
                assertEquals(0, client.awaitExit(STEP), client.report());
                assertEquals(0, server.awaitExit(STEP), server.report());
                assertSlept(client, clientSleep, 1);
                assertSlept(server, serverSleep, 1);
            }
        }
    }

    private ForkedJvm.Options options(String role, String sleep) {
        return ForkedJvm.Options.agent(dir.resolve(role + ".stats.json"), "-Dsovia.spin.micros=0",
                "-Dsovia.shm.sleep=" + sleep);
    }

    /** Every connection on shm, its waits asleep, and on the wake word exactly when configured so. */
    private static void assertSlept(ForkedJvm jvm, String sleep, int connections) throws Exception {
        Map<String, Long> engine = ShmChecks.assertAllOn("shm", jvm, connections).section("engine");
        long sleeps = engine.getOrDefault("sleeps", 0L);
        long onWords = engine.getOrDefault("wordSleeps", 0L);
        assertTrue(sleeps > 1000, jvm.stats().getFileName() + ": only " + sleeps + " sleeps: " + engine);
        if (sleep.equals("word")) {
            assertTrue(onWords > sleeps / 2, jvm.stats().getFileName() + ": " + onWords + " of " + sleeps
                    + " sleeps on the wake word: " + engine);
        } else {
            assertEquals(0L, onWords, jvm.stats().getFileName() + ": " + engine);
        }
    }
}
