package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A listener's UNIX socket in {@code /dev/shm/sovia-<uid>/} is reachable by every process of this
 * user, and its file outlives the process unless someone removes it. Neither may hurt: a local
 * process that connects and says nothing must not stall the server's accepts, connections that pile
 * up on a listener that accepts nothing must not hang other JVMs, and a server stopped the usual way
 * (SIGTERM, or System.exit without closing its listener) must not leave its socket behind.
 */
class ShmListenerRobustnessTest {
    private static final Duration STEP = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    /**
     * A process of this user connects to the listener's socket and sends no hello (a hung or
     * stopped client, or any local program). An ordinary TCP client must still be served.
     */
    @Test
    @Timeout(120)
    void silentConnectionOnTheListenerSocketDoesNotStallAccepts() throws Exception {
        try (ForkedJvm server = ForkedJvm.start(dir, "server", ForkedJvm.Options.agent(dir.resolve("server.stats.json")),
                DuplexStreamApp.class, "server", "nio")) {
            int port = server.awaitPort(STEP);
            Path socket = ShmChecks.listenerSockets(port).get(0);
            try (SocketChannel silent = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                silent.connect(UnixDomainSocketAddress.of(socket));
                try (ForkedJvm client = ForkedJvm.start(dir, "client", ForkedJvm.Options.plain(),
                        DuplexStreamApp.class, "client", String.valueOf(port), "nio", "1000000", "3", "4", "4096")) {
                    client.awaitResult(Duration.ofSeconds(20));
                }
            }
        }
    }

    /**
     * Every Sovia JVM of this user, when it starts, probes each listener socket with a connect that
     * stays queued until that listener's next accept. Once a listener that accepts nothing has
     * {@value #BACKLOG} of them (here made directly, as many JVM starts would), no further JVM may hang.
     */
    @Test
    @Timeout(120)
    void connectionsQueuedOnAnIdleListenerDoNotHangOtherJvms() throws Exception {
        // a root of their own: while the test runs, the full queue would hang every other Sovia JVM of this user
        Path root = Files.createDirectory(dir.resolve("shm"));
        String rootFlag = "-Dsovia.shm.root=" + root;
        try (ForkedJvm idle = ForkedJvm.start(dir, "idle", ForkedJvm.Options.agent(dir.resolve("idle.stats.json"), rootFlag),
                DuplexStreamApp.class, "server", "nio");
                ForkedJvm plain = ForkedJvm.start(dir, "plain", ForkedJvm.Options.plain(),
                        DuplexStreamApp.class, "server", "nio")) {
            int idlePort = idle.awaitPort(STEP);
            int plainPort = plain.awaitPort(STEP);
            int queued = fillBacklog(ShmChecks.listenerSockets(root.resolve("sovia-" + ShmChecks.uid()), idlePort).get(0));
            System.out.println("queued " + queued + " connections on the idle listener's socket");
            try (ForkedJvm client = ForkedJvm.start(dir, "client", ForkedJvm.Options.agent(dir.resolve("client.stats.json"),
                    rootFlag), DuplexStreamApp.class, "client", String.valueOf(plainPort), "nio", "1000000", "5", "6", "4096")) {
                client.awaitResult(Duration.ofSeconds(30));
            }
        }
    }

    /** The JDK's default backlog for a UNIX listener: 50, so the kernel queues 51. */
    private static final int BACKLOG = 51;

    /** Connects and closes until the listener's queue is full, as {@value #BACKLOG} JVM starts would. */
    private static int fillBacklog(Path socket) throws IOException {
        for (int i = 0; i < BACKLOG + 10; i++) {
            try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                probe.configureBlocking(false);
                if (!probe.connect(UnixDomainSocketAddress.of(socket))) {
                    return i;
                }
            } catch (IOException full) {
                return i;
            }
        }
        return BACKLOG + 10;
    }

    /** SIGTERM: the JVM exits through its shutdown hooks, with the app's listener still open. */
    @Test
    @Timeout(120)
    void terminatedServerLeavesNoListenerSocket() throws Exception {
        try (ForkedJvm server = ForkedJvm.start(dir, "server", ForkedJvm.Options.agent(dir.resolve("server.stats.json")),
                CrashApp.class, "server", "idle", "nio")) {
            int port = server.awaitPort(STEP);
            try (ForkedJvm client = ForkedJvm.start(dir, "client", ForkedJvm.Options.agent(dir.resolve("client.stats.json")),
                    CrashApp.class, "client", String.valueOf(port), "read", "nio")) {
                client.awaitLine("^BLOCKING read$", STEP);
                assertFalse(ShmChecks.listenerSockets(port).isEmpty(), "the server's listener socket is there while it runs");
                server.process().destroy();
                server.process().waitFor(30, TimeUnit.SECONDS);
                client.awaitExit(STEP);
                ShmChecks.assertAllOn("shm", server, 1);
                List<String> left = ShmChecks.filesOf(List.of(server.pid(), client.pid()), List.of(port));
                ShmChecks.removeFilesOf(List.of(server.pid(), client.pid()), List.of(port));
                assertEquals(List.of(), left, "left in " + ShmChecks.DIR + " after a SIGTERM");
            }
        }
    }
}
