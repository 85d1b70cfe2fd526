package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Without its native calls (here: the private directory the agent loads JNA from is not private, as another user
 * could have made it; a noexec temporary directory does the same) shared memory is off: the server offers no shm,
 * says so in one line, and its clients get TCP and notice nothing.
 */
class NativeCallsUnavailableTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void withoutNativeCallsEveryoneUsesTcp() throws Exception {
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        Files.createDirectory(tmp.resolve("sovia-" + ShmChecks.uid()), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwxr-xr-x")));
        String flag = "-Djava.io.tmpdir=" + tmp;
        try (ForkedJvm server = ForkedJvm.start(dir, "server", ForkedJvm.Options.agent(dir.resolve("server.json"), flag),
                ManyEchoApp.class, "server")) {
            int port = server.awaitPort(Duration.ofSeconds(60));
            assertEquals(0, ShmChecks.listenerSockets(port).size(), "the server offers shm without its native calls");
            try (ForkedJvm client = ForkedJvm.start(dir, "client", ForkedJvm.Options.agent(dir.resolve("client.json"), flag),
                    ManyEchoApp.class, "client", String.valueOf(port), "2", "100000")) {
                client.awaitResult(Duration.ofSeconds(60));
                client.awaitExit(Duration.ofSeconds(30));
                ShmChecks.assertAllOn("tcp", client, 2);
            }
            String err = server.stderr();
            assertEquals(1, err.split("native calls unavailable", -1).length - 1, err);
            assertTrue(err.contains("is not a 0700 directory"), err);
        }
    }
}
