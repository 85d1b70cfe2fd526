package io.sovia.agent.it;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * A second host for the {@code eth} transport: a network namespace joined to this JVM's own by a veth pair
 * (eth-transport/scripts/netns.sh up-root), made before any test runs, when the JVM has a host table
 * ({@code -Dsovia.hosts=FILE}, which the build passes to the conformance run and this writes), and removed at the
 * end. The relay JVM runs in that namespace, so both connections of a scenario cross hosts over raw Ethernet. Where
 * namespaces cannot be made the eth runs are skipped, saying why.
 */
public final class EthHosts implements LauncherSessionListener {
    /** This JVM's address on the veth pair, where the eth transport's servers listen. */
    static final InetAddress SERVERS = address(10, 77, 9, 1);
    /** The relay's host. */
    static final InetAddress RELAY = address(10, 77, 9, 2);
    private static final String PREFIX = "sovia-it";
    private static final Path NETNS = Path.of(System.getProperty("basedir", System.getProperty("user.dir")))
            .toAbsolutePath().resolve("../eth-transport/scripts/netns.sh").normalize();

    /** Why there is no second host, or null when it is up. */
    private static volatile String unavailable = "the conformance run was started without -Dsovia.hosts";

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        String hosts = System.getProperty("sovia.hosts");
        if (hosts == null || Boolean.getBoolean("sovia.it.plain")) {
            return;
        }
        try {
            String output = netns("up-root", hosts);
            unavailable = null;
            System.out.println("eth hosts: " + output.trim());
        } catch (IOException e) {
            unavailable = e.getMessage();
        }
    }

    @Override
    public void launcherSessionClosed(LauncherSession session) {
        if (unavailable == null) {
            try {
                netns("down", null);
            } catch (IOException e) {
                System.err.println("eth hosts: " + e.getMessage());
            }
        }
    }

    /** Starts the relay JVM on the second host; skips the test when there is none. */
    static Relay startRelay() throws IOException {
        String why = unavailable;
        Assumptions.assumeTrue(why == null, () -> "no second host for the eth path: " + why);
        return Relay.start(List.of("ip", "netns", "exec", PREFIX + "-a"),
                List.of("-Dsovia.hosts=" + System.getProperty("sovia.hosts")), RELAY, SERVERS);
    }

    private static String netns(String command, String hostsOut) throws IOException {
        ProcessBuilder builder = new ProcessBuilder("bash", NETNS.toString(), command).redirectErrorStream(true);
        builder.environment().put("SOVIA_NS_PREFIX", PREFIX);
        if (hostsOut != null) {
            builder.environment().put("SOVIA_HOSTS_OUT", hostsOut);
        }
        Process p = builder.start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("netns.sh " + command + " did not finish");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        if (p.exitValue() != 0) {
            throw new IOException("netns.sh " + command + " exited with " + p.exitValue() + ": " + output.trim());
        }
        return output;
    }

    private static InetAddress address(int a, int b, int c, int d) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d});
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
