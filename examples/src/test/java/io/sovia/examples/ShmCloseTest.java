package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What a process wrote before it closed its socket and exited must all arrive, then end of stream:
 * TCP guarantees it (the kernel keeps sending after the process is gone), so over shm, where the bytes
 * may still sit in the writer's own memory, the close (or the JVM's exit) must get them into the
 * shared ring first. An app that writes from its own shutdown hook is served too: Sovia closes
 * connections only after the app's hooks have run. The reader starts reading three seconds after the connection is made (a busy or paused
 * server), by when the writer is long gone.
 */
class ShmCloseTest {
    private static final Duration STEP = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    /**
     * @param bytes  what the client writes: less than, about as much as, and more than a ring (1 MiB)
     *               plus the send buffer (128 KiB) hold
     * @param ending {@code close} (close, then System.exit), {@code exit} (System.exit without close) or
     *               {@code hook} (System.exit, then the app's shutdown hook writes and closes)
     */
    @ParameterizedTest(name = "{0} bytes, then {1}")
    @CsvSource({"1000, close", "1000000, close", "1048576, close", "1100000, close", "10000000, close",
        "1100000, exit", "1000, hook", "1100000, hook"})
    @Timeout(120)
    void everythingWrittenBeforeTheWriterExitsArrives(long bytes, String ending) throws Exception {
        try (ForkedJvm server = ForkedJvm.start(dir, "server", ForkedJvm.Options.agent(dir.resolve("server.stats.json")),
                LastWordsApp.class, "server", "3000")) {
            int port = server.awaitPort(STEP);
            try (ForkedJvm client = ForkedJvm.start(dir, "client", ForkedJvm.Options.agent(
                    dir.resolve("client.stats.json")), LastWordsApp.class, "client", String.valueOf(port),
                    String.valueOf(bytes), "9", ending)) {
                client.awaitSuccess(STEP);
                int status = server.awaitExit(STEP);
                String out = server.stdout();
                System.out.println(bytes + " bytes, then " + ending + ": " + out.lines()
                        .filter(l -> l.startsWith("RESULT") || l.startsWith("FAILED")).findFirst().orElse("(nothing)"));
                assertEquals(0, status, server::report);
                assertEquals("RESULT bytes=" + bytes + " sha256=" + DemoSupport.sha256OfPseudoRandom(9, bytes),
                        out.lines().filter(l -> l.startsWith("RESULT")).findFirst().orElse(""), server::report);
                ShmChecks.assertAllOn("shm", client, 1);
            }
        }
    }
}
