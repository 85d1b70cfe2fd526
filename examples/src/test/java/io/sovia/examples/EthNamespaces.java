package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Two hosts for the eth path's tests: network namespaces {@code PREFIX-a} (10.77.0.1) and {@code PREFIX-b}
 * (10.77.0.2), joined by one veth pair or through a third namespace where a user-space bridge forwards frames
 * and injects faults (eth-transport/scripts/netns.sh, ethbridge.c), with the host table both JVMs read. Made by the
 * test that uses them and removed by {@link #close()}; a machine that cannot make namespaces skips the test, saying
 * why. Each test class uses its own prefix, so a crashed run's leftovers never meet the next one.
 */
final class EthNamespaces implements AutoCloseable {
    static final String SERVER_IP = "10.77.0.2";
    /**
     * For tests that count a connection on eth: a server JVM just started on a loaded machine may answer a client's
     * first hello after the default 50 ms, and that connect would then rightly use TCP.
     */
    static final String PATIENT_CONNECT = "-Dsovia.eth.connect.millis=2000";
    private static final Path ROOT = Path.of(System.getProperty("basedir", System.getProperty("user.dir")))
            .toAbsolutePath().resolve("..").normalize();
    private static final Path SCRIPTS = ROOT.resolve("eth-transport/scripts");
    private static final Path NATIVE = ROOT.resolve("eth-transport/target/native");
    private static final int SKIP = 77;

    private final String prefix;
    private final Path hosts;
    private Process bridge;
    /** Where the bridge writes its counters when it stops: destroying a process closes its pipes. */
    private Path bridgeErr;

    private EthNamespaces(String prefix, Path hosts) {
        this.prefix = prefix;
        this.hosts = hosts;
    }

    /** Hosts joined by one veth pair of the given MTU. */
    static EthNamespaces direct(Path dir, String prefix, int mtu) throws Exception {
        return up(dir, prefix, "up-direct", mtu);
    }

    /** Hosts joined through a bridge namespace; {@link #startBridge} forwards between them. */
    static EthNamespaces bridged(Path dir, String prefix) throws Exception {
        return up(dir, prefix, "up-bridged", 1500);
    }

    private static EthNamespaces up(Path dir, String prefix, String how, int mtu) throws Exception {
        Path hosts = dir.resolve("hosts");
        Result r = run(Map.of("SOVIA_NS_PREFIX", prefix, "SOVIA_HOSTS_OUT", hosts.toString()),
                "bash", SCRIPTS.resolve("netns.sh").toString(), how, String.valueOf(mtu));
        Assumptions.assumeTrue(r.status != SKIP, () -> "network namespaces cannot be made here: " + r.output);
        EthNamespaces ns = new EthNamespaces(prefix, hosts);
        if (r.status != 0) {
            ns.close();
            throw new IOException("netns.sh " + how + " failed (" + r.status + "): " + r.output);
        }
        return ns;
    }

    /** The host table file both JVMs get as {@code sovia.hosts}. */
    Path hosts() {
        return hosts;
    }

    /** The command prefix that runs a process in host {@code host} ({@code a} or {@code b}). */
    List<String> in(String host) {
        return List.of("ip", "netns", "exec", prefix + "-" + host);
    }

    /** Runs a command in host {@code host}; fails the test when it fails. */
    void exec(String host, String... command) throws Exception {
        List<String> all = new ArrayList<>(in(host));
        all.addAll(List.of(command));
        Result r = run(Map.of(), all.toArray(String[]::new));
        assertEquals(0, r.status, () -> String.join(" ", all) + ": " + r.output);
    }

    /** Starts the user-space bridge with these fault options; returns once it forwards. */
    void startBridge(String... faults) throws Exception {
        Result built = run(Map.of(), "bash", SCRIPTS.resolve("build-native.sh").toString(), NATIVE.toString());
        Assumptions.assumeTrue(built.status != SKIP, () -> "no C compiler for the bridge: " + built.output);
        assertEquals(0, built.status, built.output);
        List<String> command = new ArrayList<>(in("br"));
        command.addAll(List.of(NATIVE.resolve("ethbridge").toString(), "bra", "brb"));
        command.addAll(List.of(faults));
        bridgeErr = hosts.resolveSibling("bridge.err");
        bridge = new ProcessBuilder(command).redirectError(bridgeErr.toFile()).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(bridge.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        if (!"ready".equals(line)) {
            throw new IOException("the bridge did not start: " + line + " " + Files.readString(bridgeErr));
        }
    }

    /** Stops the bridge; returns its counters (forwarded, dropped, duplicated, reordered, corrupted per direction). */
    String stopBridge() throws Exception {
        bridge.destroy();
        if (!bridge.waitFor(10, TimeUnit.SECONDS)) {
            bridge.destroyForcibly();
        }
        bridge = null;
        return Files.readString(bridgeErr).trim();
    }

    @Override
    public void close() throws Exception {
        if (bridge != null) {
            bridge.destroyForcibly();
        }
        run(Map.of("SOVIA_NS_PREFIX", prefix), "bash", SCRIPTS.resolve("netns.sh").toString(), "down");
    }

    private record Result(int status, String output) {
    }

    private static Result run(Map<String, String> environment, String... command) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(environment);
        Process p = builder.start();
        byte[] output = p.getInputStream().readAllBytes();
        if (!p.waitFor(Duration.ofSeconds(60).toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + " did not finish");
        }
        return new Result(p.exitValue(), new String(output, StandardCharsets.UTF_8).trim());
    }
}
