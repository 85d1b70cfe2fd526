package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A thread blocked on an eth connection sleeps on its JVM's packet socket itself while no other thread of that JVM
 * does, so the kernel wakes it when frames come, rather than the eth receiver thread, which then had to wake it: two
 * wake-ups a message, and with every core busy each waited for a time slice. With no spin
 * ({@code sovia.spin.micros=0}) every wait of ManyPingApp's threads sleeps, at both ends. With one connection its one
 * blocked thread sleeps on the socket each time; with ten, one thread at a time does, taking every connection's frames
 * whenever it wakes and waking their sleepers, and the others are woken that way or by the receiver thread: each of
 * the ten connections must go on until the client stops.
 */
class EthWakeTest {
    private static final Duration STEP = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} connections")
    @ValueSource(ints = {1, 10})
    @Timeout(180)
    void blockedThreadsSleepOnThePacketSocket(int connections) throws Exception {
        try (EthNamespaces hosts = EthNamespaces.direct(dir, "svwake", 1500);
             ForkedJvm server = ForkedJvm.start(dir, "server", agent(hosts, "b", "server"), ManyPingApp.class,
                     "server")) {
            int port = server.awaitPort(STEP);
            try (ForkedJvm client = ForkedJvm.start(dir, "client", agent(hosts, "a", "client"), ManyPingApp.class,
                    "client", String.valueOf(port), String.valueOf(connections), "1.5")) {
                String result = client.awaitResult(STEP);
                assertTrue(result.startsWith("RESULT connections=" + connections), client.report());
                System.out.println(result);
                assertEquals(0, client.awaitExit(STEP), client.report());
                server.process().destroy(); // serves until told to stop; its exit hook writes the stats
                server.awaitExit(STEP);
                assertSleptOnSocket(client, connections);
                assertSleptOnSocket(server, connections);
            }
        }
    }

    private ForkedJvm.Options agent(EthNamespaces hosts, String host, String role) {
        return ForkedJvm.Options.agent(dir.resolve(role + ".stats.json"), "-Dsovia.hosts=" + hosts.hosts(),
                "-Ddemo.host=" + EthNamespaces.SERVER_IP, EthNamespaces.PATIENT_CONNECT, "-Dsovia.spin.micros=0")
                .withPrefix(hosts.in(host));
    }

    /**
     * Every connection on eth and its waits asleep; with one connection nearly all on the socket (the connect's and
     * the accept's waits are not a session's), with more a share of them, and not all.
     */
    private static void assertSleptOnSocket(ForkedJvm jvm, int connections) throws Exception {
        Map<String, Long> engine = ShmChecks.assertAllOn("eth", jvm, connections).section("engine");
        long sleeps = engine.getOrDefault("sleeps", 0L);
        long onSocket = engine.getOrDefault("receiveFdSleeps", 0L);
        String name = jvm.stats().getFileName() + ": " + onSocket + " of " + sleeps + " sleeps on the socket: " + engine;
        System.out.println(name);
        assertTrue(sleeps > 1000, name);
        if (connections == 1) {
            assertTrue(onSocket > sleeps * 9 / 10, name);
        } else {
            assertTrue(onSocket > 0 && onSocket < sleeps, name);
        }
    }
}
