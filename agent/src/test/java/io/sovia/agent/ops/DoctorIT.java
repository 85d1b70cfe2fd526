package io.sovia.agent.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code sovia doctor}: its verdict toward a live agent listener and toward a port without one, its eth checks (with
 * and without CAP_NET_RAW), its exit codes.
 */
@Timeout(180)
class DoctorIT {
    @TempDir
    Path dir;

    @Test
    void saysWhichPathAConnectWouldTakeAndWhy() throws Exception {
        try (Forked server = Forked.app(dir, "server", List.of(), "server")) {
            String port = server.awaitPort();
            Forked.Result shm = Forked.cli(dir, "doctor-shm", "doctor", "127.0.0.1:" + port);
            assertTrue(shm.stdout().contains("path  127.0.0.1:" + port + " -> shm: "), shm.toString());
            // the listing names the listener's JVM once its entry is published (within a second)
            assertTrue(shm.stdout().contains("ok    JDK "), shm.toString());
            assertEquals(shm.stdout().contains("FAIL") ? 1 : 0, shm.exit(), shm.toString());
            // JDK 22+ would warn of JNA's native access unless the jar's manifest grants what the agent grants
            assertEquals("", shm.stderr(), shm.toString());

            Forked.Result named = awaitOwner(port, server.pid());
            assertTrue(named.stdout().contains("pid " + server.pid() + " listens at 127.0.0.1:" + port
                    + " offering jvm,shm"), named.toString());

            int closed = freePort();
            Forked.Result tcp = Forked.cli(dir, "doctor-tcp", "doctor", "127.0.0.1:" + closed);
            assertTrue(tcp.stdout().contains("path  127.0.0.1:" + closed + " -> tcp: no-transport: no JVM under the"
                    + " agent listens on port " + closed), tcp.toString());
            assertEquals(1, tcp.exit(), tcp.toString());
        }
    }

    @Test
    void failsOnAnUnusableHostTableAndRefusesBadUsage() throws Exception {
        Path table = Files.writeString(dir.resolve("hosts"), "10.0.0.1 not-a-mac\n");
        Forked.Result broken = Forked.cli(dir, "doctor-hosts", "doctor", "--hosts", table.toString());
        assertTrue(broken.stdout().contains("FAIL  host table " + table + " is unusable"), broken.toString());
        assertEquals(1, broken.exit(), broken.toString());

        assertEquals(2, Forked.cli(dir, "doctor-bad", "doctor", "no-port-here").exit());
        assertEquals(2, Forked.cli(dir, "doctor-two", "doctor", "127.0.0.1:1", "127.0.0.1:2").exit());
        assertEquals(2, Forked.cli(dir, "ss-bad", "ss", "--bogus").exit());
        assertEquals(2, Forked.cli(dir, "none", "nothing").exit());
        Forked.Result help = Forked.cli(dir, "help", "doctor", "--help");
        assertEquals(0, help.exit(), help.toString());
        assertTrue(help.stdout().contains("Exit codes"), help.stdout());
    }

    @Test
    void checksTheHostTableAndCapNetRawForTheEthPath() throws Exception {
        String nic = ethernetInterface();
        assumeTrue(nic != null, "no Ethernet interface to name in a host table");
        String mac = Files.readString(Path.of("/sys/class/net", nic, "address")).trim();
        Path table = Files.writeString(dir.resolve("hosts"), "192.0.2.77 " + mac + " " + nic
                + "\n10.9.9.9 02:00:00:00:00:09\n");
        Forked.Result eth = Forked.cli(dir, "doctor-eth", "doctor", "--hosts", table.toString(), "10.9.9.9:80");
        assertTrue(eth.stdout().contains("ok    host table " + table + " parses: 2 host(s)"), eth.toString());
        assertTrue(eth.stdout().contains("this host is 192.0.2.77 on interface " + nic), eth.toString());
        assertTrue(eth.stdout().contains("interface " + nic + " MTU "), eth.toString());
        boolean raw = eth.stdout().contains("ok    CAP_NET_RAW held");
        assertTrue(eth.stdout().contains(raw ? "path  10.9.9.9:80 -> eth: " : "-> tcp: eth-no-cap-net-raw"),
                eth.toString());

        assumeTrue(raw && Files.isExecutable(Path.of("/usr/bin/setpriv")), "setpriv and CAP_NET_RAW to drop");
        List<String> command = new ArrayList<>(List.of("/usr/bin/setpriv", "--inh-caps=-all",
                "--bounding-set=-net_raw", Forked.JAVA.toString(), "-jar", Forked.agentJar().toString(), "doctor",
                "--hosts", table.toString(), "10.9.9.9:80"));
        try (Forked dropped = Forked.start(dir, "doctor-no-raw", command)) {
            Forked.Result r = dropped.result(Duration.ofSeconds(60));
            assertTrue(r.stdout().contains("FAIL  CAP_NET_RAW missing"), r.toString());
            assertTrue(r.stdout().contains("path  10.9.9.9:80 -> tcp: eth-no-cap-net-raw: "), r.toString());
            assertEquals(1, r.exit(), r.toString());
        }
    }

    /** An interface with an Ethernet address, or null. */
    private static String ethernetInterface() throws Exception {
        try (var all = Files.list(Path.of("/sys/class/net"))) {
            for (Path p : (Iterable<Path>) all::iterator) {
                Path file = p.resolve("address");
                String mac = Files.isReadable(file) ? Files.readString(file).trim() : "";
                if (mac.matches("([0-9a-f]{2}:){5}[0-9a-f]{2}") && !mac.equals("00:00:00:00:00:00")) {
                    return p.getFileName().toString();
                }
            }
        }
        return null;
    }

    private Forked.Result awaitOwner(String port, long pid) throws Exception {
        long deadline = System.nanoTime() + 15_000_000_000L;
        Forked.Result r;
        do {
            r = Forked.cli(dir, "doctor-owner", "doctor", "127.0.0.1:" + port);
        } while (!r.stdout().contains("pid " + pid) && System.nanoTime() - deadline < 0);
        return r;
    }

    /** A loopback port nothing listens on now (it was this JVM's for a moment). */
    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return s.getLocalPort();
        }
    }
}
