package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whoever cannot take the shm path gets plain TCP and notices nothing: a JVM without the agent on
 * either end, and a JVM of another user (nobody), who must not get into this user's directory.
 */
class ShmInteropTest {
    private static final Duration STEP = Duration.ofSeconds(90);
    private static final long BYTES = 64L << 20;
    private static final int NOBODY = 65534;
    private static final Path NOBODY_DIR = Path.of("/dev/shm", "sovia-" + NOBODY);
    private boolean nobodyDirExisted = true;

    @TempDir
    Path dir;

    @Test
    @Timeout(200)
    void plainClientToAcceleratedServerUsesTcp() throws Exception {
        try (ForkedJvm server = start("server", ForkedJvm.Options.agent(dir.resolve("server.stats.json")), "server", "nio")) {
            int port = server.awaitPort(STEP);
            assertTrue(!ShmChecks.listenerSockets(port).isEmpty(), "the accelerated server offers shm");
            try (ForkedJvm client = start("client", ForkedJvm.Options.plain(), clientArgs(port, "nio"))) {
                assertSameStreams(client, server);
                ShmChecks.assertAllOn("tcp", server, 1);
            }
        }
    }

    @Test
    @Timeout(200)
    void acceleratedClientToPlainServerUsesTcp() throws Exception {
        try (ForkedJvm server = start("server", ForkedJvm.Options.plain(), "server", "net")) {
            int port = server.awaitPort(STEP);
            try (ForkedJvm client = start("client", ForkedJvm.Options.agent(dir.resolve("client.stats.json")),
                    clientArgs(port, "nio"))) {
                assertSameStreams(client, server);
                SoviaStats stats = ShmChecks.assertAllOn("tcp", client, 1);
                assertEquals(1L, stats.fallbacks().get("no-transport"), stats.json());
            }
        }
    }

    /**
     * A client JVM of user nobody, under the agent, to this user's accelerated server: nobody cannot
     * even list this user's directory, so it connects over TCP, and so does the server's accept.
     */
    @Test
    @Timeout(200)
    void otherUsersClientFallsBackToTcp() throws Exception {
        Path shared = sharedCopy();
        try (ForkedJvm server = start("server", ForkedJvm.Options.agent(dir.resolve("server.stats.json")), "server", "nio")) {
            int port = server.awaitPort(STEP);
            assertTrue(!ShmChecks.listenerSockets(port).isEmpty(), "the accelerated server offers shm");
            assertNotEquals(0, asNobody("ls", ShmChecks.DIR.toString()),
                    "nobody can list " + ShmChecks.DIR + ", which must be 0700");
            try (ForkedJvm client = start("client", asNobody(shared, "client"), clientArgs(port, "nio"))) {
                assertSameStreams(client, server);
                ShmChecks.assertAllOn("tcp", client, 1);
                ShmChecks.assertAllOn("tcp", server, 1);
            }
        } finally {
            cleanUp(shared);
        }
    }

    /** And the other way round: this user's accelerated client to nobody's accelerated server. */
    @Test
    @Timeout(200)
    void clientToOtherUsersServerFallsBackToTcp() throws Exception {
        Path shared = sharedCopy();
        try (ForkedJvm server = start("server", asNobody(shared, "server"), "server", "nio")) {
            int port = server.awaitPort(STEP);
            try (ForkedJvm client = start("client", ForkedJvm.Options.agent(dir.resolve("client.stats.json")),
                    clientArgs(port, "net"))) {
                assertSameStreams(client, server);
                ShmChecks.assertAllOn("tcp", client, 1);
                ShmChecks.assertAllOn("tcp", server, 1);
            }
        } finally {
            cleanUp(shared);
        }
    }

    /**
     * SO_PEERCRED, behind the 0700 directory: root can reach nobody's listener socket anyway, and its
     * well-formed hello (HostilePeer) is refused and counted, while a real client still gets across.
     */
    @Test
    @Timeout(200)
    void anotherUsersHelloIsRefusedByItsCredentials() throws Exception {
        Path shared = sharedCopy();
        try (ForkedJvm server = start("server", asNobody(shared, "server"), "server", "nio")) {
            int port = server.awaitPort(STEP);
            List<Path> sockets = ShmChecks.listenerSockets(NOBODY_DIR, port);
            assertEquals(1, sockets.size(), "nobody's server offers shm");
            try (ForkedJvm root = HostilePeer.start(dir, "root-hello", sockets.get(0), 0, "hellos-keep", "1")) {
                try (ForkedJvm client = start("client", ForkedJvm.Options.agent(dir.resolve("client.stats.json")),
                        clientArgs(port, "net"))) {
                    assertSameStreams(client, server);
                }
            }
            server.awaitExit(STEP);
            SoviaStats stats = ShmChecks.stats(server);
            assertEquals(1L, stats.section("refused").get("shm peer user"), stats.json());
            assertTrue(server.stderr().contains("is not nobody"), server.report());
        } finally {
            cleanUp(shared);
        }
    }

    private ForkedJvm start(String name, ForkedJvm.Options options, String... args) throws IOException {
        return ForkedJvm.start(dir, name, options, DuplexStreamApp.class, args);
    }

    private static String[] clientArgs(int port, String api) {
        return new String[] {"client", String.valueOf(port), api, String.valueOf(BYTES), "7", "8", "200000"};
    }

    private static void assertSameStreams(ForkedJvm client, ForkedJvm server) throws Exception {
        String result = client.awaitResult(STEP);
        assertEquals(result, server.awaitResult(STEP));
        assertEquals("RESULT c2s=" + DemoSupport.sha256OfPseudoRandom(7, BYTES)
                + " s2c=" + DemoSupport.sha256OfPseudoRandom(8, BYTES), result);
    }

    /** Skips unless this JVM can run others as nobody. */
    private static void assumeCanSwitchUser() {
        Assumptions.assumeTrue(ShmChecks.uid() == 0, "needs root to run a JVM as nobody (uid " + NOBODY + ")");
        Assumptions.assumeTrue(Stream.of("/usr/bin/setpriv", "/bin/setpriv").anyMatch(p -> Files.isExecutable(Path.of(p))),
                "needs setpriv (util-linux) to run a JVM as nobody");
    }

    private static List<String> nobodyPrefix() {
        return List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups");
    }

    /** Runs a command as nobody; returns its exit status. */
    private static int asNobody(String... command) throws Exception {
        List<String> all = new ArrayList<>(nobodyPrefix());
        all.addAll(List.of(command));
        Process p = new ProcessBuilder(all).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(all + " did not end");
        }
        return p.exitValue();
    }

    /**
     * A world-readable copy of the agent jar and the demo classes (this JVM's are under root's home or
     * a 0700 temp directory), with a world-writable directory for the statistics.
     */
    private Path sharedCopy() throws IOException {
        assumeCanSwitchUser();
        nobodyDirExisted = Files.exists(NOBODY_DIR);
        Path shared = Files.createTempDirectory("sovia-nobody-");
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.copy(ForkedJvm.agentJar(), shared.resolve("sovia.jar"));
        Path classes = shared.resolve("classes");
        Path source = Path.of(DuplexStreamApp.class.getProtectionDomain().getCodeSource().getLocation().getPath());
        try (Stream<Path> files = Files.walk(source)) {
            for (Path f : files.toList()) {
                Path target = classes.resolve(source.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(f, target);
                }
            }
        }
        try (Stream<Path> files = Files.walk(shared)) {
            for (Path f : files.toList()) {
                Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(Files.isDirectory(f) ? "rwxr-xr-x" : "rw-r--r--"));
            }
        }
        Path out = Files.createDirectory(shared.resolve("out"));
        Files.setPosixFilePermissions(out, PosixFilePermissions.fromString("rwxrwxrwx"));
        return shared;
    }

    /** Removes the copy, and nobody's shm directory if this test made it and left it empty. */
    private void cleanUp(Path shared) throws IOException {
        DemoSupport.deleteRecursively(shared);
        if (!nobodyDirExisted) {
            try (Stream<Path> files = Files.list(NOBODY_DIR)) {
                if (files.findAny().isEmpty()) {
                    Files.delete(NOBODY_DIR);
                }
            } catch (IOException e) {
                System.out.println("left " + NOBODY_DIR + ": " + e);
            }
        }
    }

    /** Options for a JVM of nobody under the agent, running from the shared copy. */
    private static ForkedJvm.Options asNobody(Path shared, String name) {
        Path stats = shared.resolve("out").resolve(name + ".stats.json");
        return ForkedJvm.Options.flags(List.of("-javaagent:" + shared.resolve("sovia.jar"), "-Dsovia.stats=" + stats), stats)
                .withPrefix(nobodyPrefix())
                .withClasspath(shared.resolve("classes").toString())
                .withWorkDir(shared);
    }
}
