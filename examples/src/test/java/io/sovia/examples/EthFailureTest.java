package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The eth path between two hosts (network namespaces) when things go wrong: a peer killed with -9, a peer paused
 * (which TCP survives, so Sovia must too), the link cut mid-stream, answers too late or slowed by a burst of
 * connects, and the connects that must end up on TCP (a listed host without the agent, a host not in the table, a
 * JVM without CAP_NET_RAW), each working and with its reason counted.
 */
class EthFailureTest {
    /** sovia.eth.dead.millis (500), the receiver's 100 ms beat and a probe, with room for a loaded machine. */
    private static final long LIMIT_MILLIS = 1000;
    private static final Duration STEP = Duration.ofSeconds(60);
    private static final long BYTES = 4_000_000;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "kill the {0}, survivor blocked in read ({1})")
    @CsvSource({"server, nio", "client, net"})
    @Timeout(150)
    void killedPeerIsSeenWithinASecond(String victim, String api) throws Exception {
        boolean serverDies = victim.equals("server");
        try (EthNamespaces hosts = EthNamespaces.direct(dir, "svkill", 1500);
             ForkedJvm server = ForkedJvm.start(dir, "server", agent(hosts, "b", "server"), CrashApp.class, "server",
                     serverDies ? "idle" : "read", api)) {
            int port = server.awaitPort(STEP);
            try (ForkedJvm client = ForkedJvm.start(dir, "client", agent(hosts, "a", "client"), CrashApp.class,
                    "client", String.valueOf(port), serverDies ? "read" : "idle", api)) {
                ForkedJvm dying = serverDies ? server : client;
                ForkedJvm survivor = serverDies ? client : server;
                survivor.awaitLine("^BLOCKING .*$", STEP);
                dying.awaitLine("^CONNECTED$", STEP);
                Thread.sleep(300);
                long killed = System.nanoTime();
                dying.process().destroyForcibly();
                int status = survivor.awaitExit(Duration.ofSeconds(30));
                Matcher failed = Pattern.compile("(?m)^FAILED (\\d+) (.*)$").matcher(survivor.stdout());
                boolean threw = failed.find();
                double millis = threw ? (Long.parseLong(failed.group(1)) - killed) / 1e6 : Double.NaN;
                System.out.printf(Locale.ROOT, "kill the %s: the survivor's read failed after %.0f ms: %s%n", victim,
                        millis, threw ? failed.group(2) : "(no exception)");
                assertAll(() -> assertEquals(0, status, survivor::report),
                        () -> assertTrue(threw, survivor::report),
                        () -> assertTrue(millis < LIMIT_MILLIS, () -> "seen after " + millis + " ms"),
                        () -> assertEquals(1, SoviaStats.read(survivor.stats()).on("eth")));
            }
        }
    }

    /**
     * The server JVM stopped (SIGSTOP, as a debugger or a long collection would pause it) for six times
     * {@code sovia.eth.dead.millis} mid-stream, then continued: the stream must complete intact, still on eth, the
     * client having probed it (counted in the stats).
     */
    @Test
    @Timeout(180)
    void pausedPeerKeepsItsConnection() throws Exception {
        long bytes = 400_000_000L;
        try (EthNamespaces hosts = EthNamespaces.direct(dir, "svpause", 1500);
             ForkedJvm server = ForkedJvm.start(dir, "server", agent(hosts, "b", "server"), DuplexStreamApp.class,
                     "server", "nio")) {
            int port = server.awaitPort(STEP);
            try (ForkedJvm client = ForkedJvm.start(dir, "client", agent(hosts, "a", "client"), DuplexStreamApp.class,
                    "client", String.valueOf(port), "nio", String.valueOf(bytes), "1", "2", "65536")) {
                client.awaitLine("^CONNECTED$", STEP);
                Thread.sleep(500);
                String pid = String.valueOf(server.process().pid());
                assertEquals(0, new ProcessBuilder("kill", "-STOP", pid).inheritIO().start().waitFor());
                Thread.sleep(3000);
                assertEquals(0, new ProcessBuilder("kill", "-CONT", pid).inheritIO().start().waitFor());
                assertEquals("RESULT c2s=" + DemoSupport.sha256OfPseudoRandom(1, bytes) + " s2c="
                        + DemoSupport.sha256OfPseudoRandom(2, bytes), client.awaitResult(Duration.ofSeconds(120)),
                        client::report);
                server.awaitResult(STEP);
                assertEquals(0, client.awaitExit(STEP), client::report);
                SoviaStats stats = SoviaStats.read(client.stats());
                assertEquals(1, stats.on("eth"), stats::json);
                assertTrue(stats.section("engine").getOrDefault("probes", 0L) > 0,
                        () -> "the silent server was probed (and found alive): " + stats.json());
            }
        }
    }

    /** The veth pair deleted mid-stream: both ends must fail with an exception, soon, not hang. */
    @Test
    @Timeout(180)
    void cutLinkEndsBothSidesWithAnException() throws Exception {
        try (EthNamespaces hosts = EthNamespaces.direct(dir, "svcut", 1500);
             ForkedJvm server = ForkedJvm.start(dir, "server", agent(hosts, "b", "server"), DuplexStreamApp.class,
                     "server", "nio")) {
            int port = server.awaitPort(STEP);
            try (ForkedJvm client = ForkedJvm.start(dir, "client", agent(hosts, "a", "client"), DuplexStreamApp.class,
                    "client", String.valueOf(port), "nio", String.valueOf(1L << 40), "1", "2", "65536")) {
                Thread.sleep(3000);
                assertTrue(client.process().isAlive() && server.process().isAlive(), client::report);
                long cut = System.nanoTime();
                hosts.exec("a", "ip", "link", "del", "sva");
                for (ForkedJvm end : List.of(client, server)) {
                    assertTrue(end.process().waitFor(30, TimeUnit.SECONDS), () -> "still running 30 s after the cut\n"
                            + end.report());
                    System.out.printf(Locale.ROOT, "%s ended %.1f s after the cut%n", end == client ? "client" : "server",
                            (System.nanoTime() - cut) / 1e9);
                    String err = end.report();
                    assertNotEquals(0, end.process().exitValue(), err);
                    assertTrue(err.contains("Exception"), err);
                }
            }
        }
    }

    /**
     * Connects whose answer comes after the client stopped waiting ({@code sovia.eth.connect.millis=1}, no verdict
     * kept, so each connect asks): those clients use TCP, and so must the server, which had answered with a link.
     * Every connection echoes its byte, and both ends count the same paths.
     */
    @Test
    @Timeout(120)
    void answerTooLateLeavesBothEndsOnTcp() throws Exception {
        try (EthNamespaces hosts = EthNamespaces.direct(dir, "svlate", 1500);
             ForkedJvm server = ForkedJvm.start(dir, "server", agent(hosts, "b", "server"), ConnectApp.class,
                     "server")) {
            int port = server.awaitPort(STEP);
            try (ForkedJvm client = ForkedJvm.start(dir, "client", agent(hosts, "a", "client")
                    .withFlag("-Dsovia.eth.connect.millis=1").withFlag("-Dsovia.eth.verdict.millis=0"),
                    ConnectApp.class, "client", String.valueOf(port), "1.5")) {
                client.awaitResult(STEP);
                assertEquals(0, client.awaitExit(STEP), client::report);
                server.process().destroy();
                server.awaitExit(STEP);
                SoviaStats clientStats = SoviaStats.read(client.stats());
                SoviaStats serverStats = SoviaStats.read(server.stats());
                System.out.println("answer too late: client " + clientStats.json() + "\nserver " + serverStats.json());
                assertAll(() -> assertTrue(clientStats.fallbacks().getOrDefault("eth-no-answer", 0L) > 0,
                                clientStats::json),
                        () -> assertEquals(clientStats.on("eth"), serverStats.on("eth"), serverStats::json),
                        () -> assertEquals(clientStats.on("tcp"), serverStats.on("tcp"), serverStats::json));
            }
        }
    }

    /**
     * A burst of connects from a fresh JVM to a fresh server, at the default {@code sovia.eth.connect.millis} (50):
     * the listener answers the hellos one after another (100 at once took 66-120 ms), so each connect waits longer
     * while many wait at once, and every one goes over eth. With a fixed 50 ms most went to TCP, and the destination
     * stayed there for {@code sovia.eth.verdict.millis}.
     */
    @Test
    @Timeout(120)
    void burstOfConnectsFromAFreshJvmAllGoOverEth() throws Exception {
        int connections = 100;
        try (EthNamespaces hosts = EthNamespaces.direct(dir, "svburst", 1500);
             ForkedJvm server = ForkedJvm.start(dir, "server", agent(hosts, "b", "server"), ManyPingApp.class,
                     "server")) {
            int port = server.awaitPort(STEP);
            ForkedJvm.Options impatient = ForkedJvm.Options.agent(dir.resolve("client.stats.json"),
                            "-Dsovia.hosts=" + hosts.hosts(), "-Ddemo.host=" + EthNamespaces.SERVER_IP)
                    .withPrefix(hosts.in("a"));
            try (ForkedJvm client = ForkedJvm.start(dir, "client", impatient, ManyPingApp.class, "client",
                    String.valueOf(port), String.valueOf(connections), "1")) {
                client.awaitResult(STEP);
                assertEquals(0, client.awaitExit(STEP), client::report);
                server.process().destroy(); // serves until told to stop: its exit hook removes its files
                server.awaitExit(STEP);
                SoviaStats stats = SoviaStats.read(client.stats());
                assertAll(stats.json(), () -> assertEquals(connections, stats.on("eth")),
                        () -> assertEquals(0, stats.on("tcp")));
            }
        }
    }

    /** A listed host whose JVM runs without the agent: no answer to the hello, so TCP, counted. */
    @Test
    @Timeout(120)
    void hostWithoutTheAgentGetsTcp() throws Exception {
        try (EthNamespaces hosts = EthNamespaces.direct(dir, "svplain", 1500)) {
            fallback(hosts, ForkedJvm.Options.plain().withPrefix(hosts.in("b")), EthNamespaces.SERVER_IP,
                    agent(hosts, "a", "client"), "eth-no-answer");
        }
    }

    /** A host that is not in the table (the server's second address is not listed): TCP, counted. */
    @Test
    @Timeout(120)
    void hostNotInTheTableGetsTcp() throws Exception {
        try (EthNamespaces hosts = EthNamespaces.direct(dir, "svunlisted", 1500)) {
            hosts.exec("b", "ip", "addr", "add", "10.77.0.3/24", "dev", "svb");
            fallback(hosts, agent(hosts, "b", "server"), "10.77.0.3", agent(hosts, "a", "client"), "no-transport");
        }
    }

    /** A client JVM without CAP_NET_RAW cannot open packet sockets: TCP, counted, the cause logged once. */
    @Test
    @Timeout(120)
    void jvmWithoutCapNetRawGetsTcp() throws Exception {
        try (EthNamespaces hosts = EthNamespaces.direct(dir, "svnocap", 1500)) {
            List<String> prefix = new ArrayList<>(hosts.in("a"));
            prefix.addAll(List.of("setpriv", "--bounding-set=-net_raw", "--inh-caps=-net_raw"));
            ForkedJvm client = fallback(hosts, agent(hosts, "b", "server"), EthNamespaces.SERVER_IP,
                    agent(hosts, "a", "client").withPrefix(prefix), "eth-no-cap-net-raw");
            String err = client.report();
            assertTrue(err.contains("CAP_NET_RAW"), err);
        }
    }

    /** A small duplex stream from host a to {@code serverIp} on host b; it must work, over TCP for {@code reason}. */
    private ForkedJvm fallback(EthNamespaces hosts, ForkedJvm.Options serverOptions, String serverIp,
                               ForkedJvm.Options clientOptions, String reason) throws Exception {
        try (ForkedJvm server = ForkedJvm.start(dir, "server", serverOptions.withFlag("-Ddemo.host=0.0.0.0"), DuplexStreamApp.class,
                "server", "net")) {
            int port = server.awaitPort(STEP);
            ForkedJvm client = ForkedJvm.start(dir, "client", clientOptions.withFlag("-Ddemo.host=" + serverIp), DuplexStreamApp.class,
                    "client", String.valueOf(port), "nio", String.valueOf(BYTES), "1", "2", "65536");
            try (client) {
                assertEquals("RESULT c2s=" + DemoSupport.sha256OfPseudoRandom(1, BYTES) + " s2c="
                        + DemoSupport.sha256OfPseudoRandom(2, BYTES), client.awaitResult(STEP), client::report);
                server.awaitResult(STEP);
                SoviaStats stats = SoviaStats.read(client.stats());
                assertAll(stats.json(), () -> assertEquals(1, stats.on("tcp")), () -> assertEquals(0, stats.on("eth")),
                        () -> assertEquals(1L, stats.fallbacks().get(reason)));
            }
            return client;
        }
    }

    private ForkedJvm.Options agent(EthNamespaces hosts, String host, String role) {
        return ForkedJvm.Options.agent(dir.resolve(role + ".stats.json"), "-Dsovia.hosts=" + hosts.hosts(),
                "-Ddemo.host=" + EthNamespaces.SERVER_IP, EthNamespaces.PATIENT_CONNECT).withPrefix(hosts.in(host));
    }
}
