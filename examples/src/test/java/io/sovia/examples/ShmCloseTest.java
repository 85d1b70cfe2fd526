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
     * @param bytes  what the client writes: less than, about as much as, and more than a ring (4 MiB; 1 MiB
     *               before) plus the send buffer (128 KiB) hold
     * @param ending {@code close} (close, then System.exit), {@code exit} (System.exit without close) or
     *               {@code hook} (System.exit, then the app's shutdown hook writes and closes)
     */
    @ParameterizedTest(name = "{0} bytes, then {1}")
    @CsvSource({"1000, close", "1000000, close", "1048576, close", "1100000, close", "4194304, close",
        "4400000, close", "10000000, close", "1100000, exit", "1000, hook", "1100000, hook"})
    @Timeout(120)
    void everythingWrittenBeforeTheWriterExitsArrives(long bytes, String ending) throws Exception {
        try (ForkedJvm server = ForkedJvm.start(dir, "server", options(true, "server"),
                LastWordsApp.class, "server", "3000")) {
            int port = server.awaitPort(STEP);
            try (ForkedJvm client = ForkedJvm.start(dir, "client", options(true, "client"),
                    LastWordsApp.class, "client", String.valueOf(port), String.valueOf(bytes), "9", ending)) {
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

    /**
     * On the JDK a thread blocked on a socket when its process exits never wakes: the kernel ends the connection after
     * the process is gone. Sovia's exit ends it before (so that what was written arrives), and the server, reading at
     * once, answers with its own end; a thread reading, or selecting, must see neither, or the app would run code on it
     * during its shutdown (a reconnect, a "connection lost" in its log). Plain: the JDK's own behaviour, which the
     * test asserts for the agent.
     */
    @ParameterizedTest(name = "{0}, agent {1}")
    @CsvSource({"reader, true", "selector, true", "reader, false", "selector, false"})
    @Timeout(120)
    void aThreadWaitingOnASocketWhenItsProcessExitsNeverWakes(String waiter, boolean agent) throws Exception {
        try (ForkedJvm server = ForkedJvm.start(dir, "server", options(agent, "server"),
                LastWordsApp.class, "server", "0")) {
            int port = server.awaitPort(STEP);
            try (ForkedJvm client = ForkedJvm.start(dir, "client", options(agent, "client"),
                    LastWordsApp.class, "client", String.valueOf(port), "1000", "9", waiter)) {
                String out = client.awaitSuccess(STEP);
                assertEquals(true, out.contains("EXITING WHILE A THREAD WAITS"), client::report);
                assertEquals(false, out.contains("WOKE"), client::report);
                assertEquals(0, server.awaitExit(STEP), server::report);
                assertEquals("RESULT bytes=1000 sha256=" + DemoSupport.sha256OfPseudoRandom(9, 1000),
                        server.stdout().lines().filter(l -> l.startsWith("RESULT")).findFirst().orElse(""),
                        server::report);
                if (agent) {
                    ShmChecks.assertAllOn("shm", client, 1);
                }
            }
        }
    }

    /** The agent with its stats file for {@code role}, or the plain JDK. */
    private ForkedJvm.Options options(boolean agent, String role) {
        return agent ? ForkedJvm.Options.agent(dir.resolve(role + ".stats.json")) : ForkedJvm.Options.plain();
    }
}
