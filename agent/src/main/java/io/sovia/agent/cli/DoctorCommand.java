package io.sovia.agent.cli;

import io.sovia.eth.EthDiagnosis;
import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.ops.LiveFile;
import io.sovia.spi.os.NativeAccess;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.zip.ZipFile;

/**
 * {@code sovia doctor [HOST:PORT]}: checks what each path needs on this host and, for a destination, which path
 * a connect from a JVM with the same {@code sovia.*} settings would take, and why. Each line starts with
 * {@code ok}, {@code FAIL} or {@code info}.
 */
@Command(name = "doctor", mixinStandardHelpOptions = true,
        description = "Checks what Sovia's paths need on this host (/dev/shm, native calls, CAP_NET_RAW, the host"
                + " table, the JDK, Netty's native transports) and which path a connect to HOST:PORT would take, and"
                + " why. Give the app's sovia.* settings as -D before -jar, or --hosts.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:every check passed and HOST:PORT (if given) would be accelerated",
            "1:a check failed, or HOST:PORT would use TCP", "2:bad usage"})
final class DoctorCommand implements Callable<Integer> {
    /** CAP_NET_RAW's bit in the capability sets of {@code /proc/self/status}. */
    private static final int CAP_NET_RAW = 13;
    private static final String[] NETTY_NATIVE = {"channel/epoll/Epoll.class", "channel/uring/IoUring.class",
        "channel/uring/IOUring.class"};

    @Spec
    private CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "HOST:PORT",
            description = "a destination: which path would a connect take?")
    private String destination;

    @Option(names = "--hosts", paramLabel = "FILE", description = "the eth path's host table (default: sovia.hosts)")
    private Path hosts;

    @Option(names = "--classpath", paramLabel = "CP", description = "the app's class path, searched for Netty's"
            + " native transports")
    private String classpath;

    private boolean failed;

    @Override
    public Integer call() throws IOException {
        InetSocketAddress target = destination == null ? null : parse(destination);
        if (hosts != null) {
            System.setProperty(SoviaConfig.PREFIX + "hosts", hosts.toString()); // the eth path reads it from there
        }
        checkJdk();
        checkSharedMemory();
        checkEth();
        if (classpath != null) {
            checkNetty();
        }
        if (target != null) {
            Verdict verdict = Verdict.of(target);
            System.out.println("path  " + destination + " -> " + verdict.path() + ": " + verdict.why());
            failed |= verdict.path().equals("tcp");
        }
        return failed ? 1 : 0;
    }

    private InetSocketAddress parse(String text) {
        int colon = text.lastIndexOf(':');
        String host = colon > 0 ? text.substring(0, colon) : "";
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        try {
            int port = Integer.parseInt(text.substring(colon + 1));
            if (host.isEmpty() || port < 1 || port > 65535) {
                throw new NumberFormatException();
            }
            return new InetSocketAddress(InetAddress.getByName(host), port);
        } catch (NumberFormatException e) {
            throw new ParameterException(spec.commandLine(), "expected HOST:PORT, got " + text);
        } catch (UnknownHostException e) {
            throw new ParameterException(spec.commandLine(), "unknown host in " + text);
        }
    }

    private void report(boolean ok, String text) {
        System.out.println((ok ? "ok    " : "FAIL  ") + text);
        failed |= !ok;
    }

    private static void info(String text) {
        System.out.println("info  " + text);
    }

    private void checkJdk() {
        Runtime.Version v = Runtime.version();
        report(v.feature() >= 17, "JDK " + v + " at " + System.getProperty("java.home") + " (Sovia needs 17 or later)");
    }

    private void checkSharedMemory() throws IOException {
        if (!SoviaConfig.pathAllowed("shm")) {
            info("sovia.paths leaves out shm: no shared-memory connections");
            return;
        }
        Path root = Path.of(SoviaConfig.shmRoot());
        if (!Files.isDirectory(root)) {
            report(false, root + " does not exist (sovia.shm.root): no shared-memory connections");
            return;
        }
        FileStore store = Files.getFileStore(root);
        long free = store.getUsableSpace();
        // segments are memory files counted against the cgroup; the directory holds sockets and ss files only
        report(free > 0, root + ": " + free / (1024 * 1024) + " MiB free of " + store.getTotalSpace() / (1024 * 1024)
                + " MiB");
        Path dir = LiveFile.directory();
        if (!Files.isDirectory(dir)) {
            info(dir + " does not exist yet: the first JVM under the agent makes it (0700)");
        } else {
            int uid = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            int owner = (Integer) Files.getAttribute(dir, "unix:uid");
            String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(dir));
            report(owner == uid && mode.equals("rwx------"), dir + ": " + mode + ", owner uid " + owner
                    + (owner == uid && mode.equals("rwx------") ? "" : " (must be rwx------ and uid " + uid
                    + ", else shared memory is off)"));
        }
        report(NativeAccess.available(), "native calls (JNA, nested in sovia.jar) "
                + (NativeAccess.available() ? "load" : "do not load: shared memory is off (a noexec java.io.tmpdir?)"));
    }

    private void checkEth() throws IOException {
        String table = SoviaConfig.hostsFile();
        boolean raw = hasNetRaw();
        String cap = "CAP_NET_RAW " + (raw ? "held" : "missing") + " by " + System.getProperty("java.home")
                + "/bin/java" + (raw ? "" : " (root, or setcap cap_net_raw+ep on it)");
        if (table == null) {
            info("sovia.hosts unset: the eth path is off");
            info(cap);
            return;
        }
        report(raw, cap);
        for (EthDiagnosis.Finding f : EthDiagnosis.check(Path.of(table))) {
            report(f.ok(), f.text());
        }
    }

    /** Whether this process holds CAP_NET_RAW: bit 13 of CapEff, as the kernel checks for an AF_PACKET socket. */
    static boolean hasNetRaw() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("CapEff:")) {
                return (Long.parseUnsignedLong(line.substring("CapEff:".length()).trim(), 16) >>> CAP_NET_RAW & 1) == 1;
            }
        }
        return false;
    }

    private void checkNetty() {
        for (String entry : classpath.split(File.pathSeparator)) {
            if (!entry.isEmpty() && hasNettyNative(Path.of(entry))) {
                info("Netty native transport in " + entry + ": " + (SoviaConfig.steerNettyNative()
                        ? "its availability checks answer false under the agent, so Netty code that asks takes NIO"
                        + " (accelerated); code that creates epoll/io_uring loops itself stays on plain TCP"
                        : "sovia.netty.native=keep: connections on it are plain TCP"));
            }
        }
    }

    private static boolean hasNettyNative(Path entry) {
        if (Files.isDirectory(entry)) {
            for (String suffix : NETTY_NATIVE) {
                if (Files.exists(entry.resolve("io/netty/" + suffix))) {
                    return true;
                }
            }
            return false;
        }
        try (ZipFile jar = new ZipFile(entry.toFile())) {
            // relocated copies (grpc-netty-shaded) keep the suffix
            return jar.stream().anyMatch(e -> List.of(NETTY_NATIVE).stream().anyMatch(e.getName()::endsWith));
        } catch (IOException notAJar) {
            return false;
        }
    }
}
