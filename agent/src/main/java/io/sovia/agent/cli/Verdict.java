package io.sovia.agent.cli;

import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.ops.LiveEntry;
import io.sovia.spi.ops.LiveFile;
import io.sovia.spi.os.NativeAccess;
import io.sovia.spi.route.Route;
import io.sovia.spi.route.Router;
import io.sovia.spi.transport.LocalAddresses;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Which path a connect to a destination would take, decided by the {@link Router} itself (the same transports
 * and {@code sovia.*} settings as a JVM under the agent), with the reason in words. A connect from the listener's
 * own JVM would take the jvm path, which no other process can see.
 *
 * @param path the path key
 * @param why  the reason, for a person
 */
record Verdict(String path, String why) {

    static Verdict of(InetSocketAddress to) throws IOException {
        Route route = Router.route(to);
        String owners = owners(to.getPort());
        return switch (route.path()) {
            case SHM -> new Verdict("shm", "a local address, and a Sovia listener takes shared-memory connects on port "
                    + to.getPort() + owners);
            case ETH -> DoctorCommand.hasNetRaw()
                    ? new Verdict("eth", to.getAddress().getHostAddress() + " is in the host table "
                    + SoviaConfig.hostsFile() + "; a JVM there must answer within sovia.eth.connect.millis, else TCP"
                    + " (eth-no-answer)")
                    : new Verdict("tcp", "eth-no-cap-net-raw: " + to.getAddress().getHostAddress() + " is in the host"
                    + " table, but this java may not open packet sockets");
            case JVM -> new Verdict("jvm", "a listener of this very JVM");
            case TCP -> new Verdict("tcp", tcpReason(route.reason(), to, owners));
        };
    }

    private static String tcpReason(String reason, InetSocketAddress to, String owners) {
        if ("disabled".equals(reason)) {
            return "disabled: sovia.paths excludes every path that reaches it";
        }
        if (!LocalAddresses.isLocal(to.getAddress())) {
            return reason + ": not a local address, and " + (SoviaConfig.hostsFile() == null ? "sovia.hosts is unset"
                    : "not in the host table " + SoviaConfig.hostsFile());
        }
        if (!NativeAccess.available()) {
            return reason + ": native calls do not load, so shared memory is off";
        }
        return reason + ": no JVM under the agent listens on port " + to.getPort() + " with shared memory"
                + (owners.isEmpty() ? " (no listener socket for it in " + directory() + ")"
                : owners + ", but no listener socket for it");
    }

    /** The live listeners on {@code port}, as {@code " (pid 123 listens at 0.0.0.0:5000 offering shm)"}. */
    private static String owners(int port) throws IOException {
        List<LiveEntry> listeners = LiveFile.read(LiveFile.directory(), null).stream()
                .filter(e -> e.listener() && e.local().endsWith(":" + port)).toList();
        return listeners.isEmpty() ? "" : listeners.stream()
                .map(e -> "pid " + e.pid() + " listens at " + e.local() + " offering " + e.path())
                .collect(Collectors.joining("; ", " (", ")"));
    }

    private static String directory() {
        try {
            return LiveFile.directory().toString();
        } catch (IOException e) {
            return "the per-user directory";
        }
    }
}
