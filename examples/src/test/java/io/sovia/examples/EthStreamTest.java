package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two JVMs on two hosts (network namespaces) under the agent with a host table: a duplex stream in random-sized
 * writes both ways at once must arrive whole over the eth path, on a plain veth and through a bridge that drops,
 * duplicates, reorders and damages frames (seeded, so a failure replays); damaged frames are dropped and counted.
 */
class EthStreamTest {
    private static final long GIB = 1L << 30;

    @TempDir
    Path dir;

    @Test
    @Timeout(420)
    void gibibyteEachWayAtOnce() throws Exception {
        try (EthNamespaces hosts = EthNamespaces.direct(dir, "svstream", 1500)) {
            duplex(hosts, "gib", GIB, Duration.ofSeconds(360));
        }
    }

    /**
     * 5% of the frames each dropped, duplicated and reordered, 1% damaged (a token, a port or a length). 25 s here
     * (40 MiB/s each way); before ACKs told which frames past a gap arrived, 150-490 s, which the bound now fails.
     */
    @Test
    @Timeout(420)
    void gibibyteEachWayThroughALossyBridge() throws Exception {
        try (EthNamespaces hosts = EthNamespaces.bridged(dir, "svlossy")) {
            hosts.startBridge("--seed", "42", "--drop", "5", "--dup", "5", "--reorder", "5", "--corrupt", "1",
                    "--only-ethertype", "0x88B5");
            SoviaStats[] stats = duplex(hosts, "lossy", GIB, Duration.ofSeconds(360));
            String counters = hosts.stopBridge();
            System.out.println("bridge: " + counters);
            for (SoviaStats s : stats) {
                long badTokens = s.section("engine").getOrDefault("badTokens", 0L);
                long strays = s.section("dropped").getOrDefault("eth-stray", 0L);
                long lengths = s.section("dropped").getOrDefault("eth-bad-length", 0L);
                System.out.println("dropped and counted: " + badTokens + " bad tokens, " + strays + " wrong ports, "
                        + lengths + " bad lengths; " + s.section("dropped"));
                assertAll("each kind of damaged frame was dropped and counted: " + s.json(),
                        () -> assertTrue(badTokens > 0, "bad tokens"),
                        () -> assertTrue(strays > 0, "wrong ports"),
                        () -> assertTrue(lengths > 0, "bad lengths"));
            }
        }
    }

    /** Runs DuplexStreamApp between the hosts; returns the server's and the client's stats. */
    private SoviaStats[] duplex(EthNamespaces hosts, String name, long bytes, Duration timeout) throws Exception {
        String[] flags = {"-Dsovia.hosts=" + hosts.hosts(), "-Ddemo.host=" + EthNamespaces.SERVER_IP,
                EthNamespaces.PATIENT_CONNECT};
        try (ForkedJvm server = ForkedJvm.start(dir, name + "-server", ForkedJvm.Options.agent(
                dir.resolve(name + "-server.stats.json"), flags).withPrefix(hosts.in("b")),
                DuplexStreamApp.class, "server", "net")) {
            int port = server.awaitPort(Duration.ofSeconds(60));
            try (ForkedJvm client = ForkedJvm.start(dir, name + "-client", ForkedJvm.Options.agent(
                    dir.resolve(name + "-client.stats.json"), flags).withPrefix(hosts.in("a")),
                    DuplexStreamApp.class, "client", String.valueOf(port), "nio", String.valueOf(bytes), "1", "2",
                    String.valueOf(512 * 1024))) {
                String clientResult = client.awaitResult(timeout);
                String serverResult = server.awaitResult(timeout);
                client.printTimings("client");
                server.printTimings("server");
                assertEquals("RESULT c2s=" + DemoSupport.sha256OfPseudoRandom(1, bytes)
                        + " s2c=" + DemoSupport.sha256OfPseudoRandom(2, bytes), clientResult, client::report);
                assertEquals(clientResult, serverResult, server::report);
                SoviaStats serverStats = SoviaStats.read(server.stats());
                SoviaStats clientStats = SoviaStats.read(client.stats());
                for (SoviaStats s : new SoviaStats[] {serverStats, clientStats}) {
                    assertEquals(1, s.on("eth"), () -> "one connection, over eth: " + s.json());
                    assertEquals(0, s.on("tcp"), () -> "none over TCP: " + s.json());
                }
                assertEquals(bytes + 32, clientStats.section("bytesSent").get("eth"),
                        "the client's stream and header went over eth");
                return new SoviaStats[] {serverStats, clientStats};
            }
        }
    }
}
