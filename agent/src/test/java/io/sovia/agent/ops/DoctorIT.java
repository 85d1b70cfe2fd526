package io.sovia.agent.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** {@code sovia doctor}: its verdict toward a live agent listener and toward a port without one, its exit codes. */
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
