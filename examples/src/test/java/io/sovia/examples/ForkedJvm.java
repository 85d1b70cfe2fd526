package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * One demo app in a JVM of its own, started the way a user would start it: plain, or with the Sovia
 * agent attached. Its stdout and stderr go to files, so the child can never block on a full pipe and
 * both can be shown when something fails; a JVM that overstays its time is killed with its children.
 */
final class ForkedJvm implements AutoCloseable {

    /** The examples module: surefire runs the tests there and also says so in {@code basedir}. */
    private static final Path MODULE_DIR =
            Path.of(System.getProperty("basedir", System.getProperty("user.dir"))).toAbsolutePath();
    private static final Path BUILT_AGENT_JAR = MODULE_DIR.resolve("../agent/target/sovia.jar").normalize();
    private static final Path AGENT_TARGET = BUILT_AGENT_JAR.getParent();
    /** {@code -Dsovia.examples.agentJar=...} runs the tests against a copy (one a rebuild cannot change midway). */
    private static final Path AGENT_JAR = System.getProperty("sovia.examples.agentJar", "").isEmpty()
            ? BUILT_AGENT_JAR : Path.of(System.getProperty("sovia.examples.agentJar")).toAbsolutePath().normalize();
    private static final Pattern PORT_LINE = Pattern.compile("(?m)^PORT (\\d+)$");
    private static final Pattern RESULT_LINE = Pattern.compile("(?m)^RESULT .*$");
    private static final Pattern TIMING_LINE = Pattern.compile("(?m)^TIMING .*$");
    /** The JVMs started and not yet killed or closed: a failure report shows the others' threads too. */
    private static final Set<ForkedJvm> LIVE = ConcurrentHashMap.newKeySet();

    private final String name;
    private final List<String> command;
    private final Process process;
    private final Path stdout;
    private final Path stderr;
    private final Path stats;
    private final long startNanos = System.nanoTime();

    private ForkedJvm(String name, List<String> command, Process process, Path stdout, Path stderr, Path stats) {
        this.name = name;
        this.command = command;
        this.process = process;
        this.stdout = stdout;
        this.stderr = stderr;
        this.stats = stats;
        LIVE.add(this);
    }

    /**
     * Starts {@code app} with {@code args}; its files are {@code dir/name.out}, {@code .err} and, with
     * the agent, {@code .stats.json}.
     */
    static ForkedJvm start(Path dir, String name, boolean withAgent, Class<?> app, String... args)
            throws IOException {
        Path stats = withAgent ? dir.resolve(name + ".stats.json") : null;
        List<String> flags = withAgent ? agentFlags("", "-Dsovia.stats=" + stats) : List.of();
        return start(dir, name, flags, stats, app, args);
    }

    /**
     * The flags that attach the agent with {@code agentArguments} (empty for none) plus {@code extra}.
     */
    static List<String> agentFlags(String agentArguments, String... extra) {
        if (!Files.isRegularFile(AGENT_JAR)) {
            fail("The Sovia agent is not built: " + AGENT_JAR + " is missing (mvn -pl agent -am package)."
                    + " -Dsovia.examples.plainOnly=true runs only the halves without the agent.");
        }
        List<String> flags = new ArrayList<>();
        flags.add("-javaagent:" + AGENT_JAR + (agentArguments.isEmpty() ? "" : "=" + agentArguments));
        flags.addAll(Arrays.asList(extra));
        return flags;
    }

    /** Starts {@code app} with the given JVM flags; {@code stats} is where they make the agent write. */
    static ForkedJvm start(Path dir, String name, List<String> jvmFlags, Path stats, Class<?> app, String... args)
            throws IOException {
        return start(dir, name, Options.flags(jvmFlags, stats), app, args);
    }

    /**
     * How to start a JVM beyond its flags: a command that runs {@code java} (such as {@code setpriv ...}),
     * extra environment variables, another class path, another working directory.
     *
     * @param prefix      words before the {@code java} command
     * @param jvmFlags    flags between {@code java} and the main class
     * @param environment added to (or, with a null value, removed from) this JVM's environment
     * @param classpath   the class path, or null for this JVM's own without the agent
     * @param workDir     the working directory, or null for this JVM's
     * @param stats       the agent's statistics file, or null
     * @param javaHome    the JDK to run, or null for this JVM's
     * @param jdkWarnings whether the JDK 22+ warnings about native access and sun.misc.Unsafe are left on
     */
    record Options(List<String> prefix, List<String> jvmFlags, Map<String, String> environment, String classpath,
            Path workDir, Path stats, Path javaHome, boolean jdkWarnings) {

        static Options flags(List<String> jvmFlags, Path stats) {
            return new Options(List.of(), jvmFlags, Map.of(), null, null, stats, null, false);
        }

        /** With the agent on the command line, writing its statistics to {@code stats}. */
        static Options agent(Path stats, String... extraFlags) {
            List<String> flags = new ArrayList<>(agentFlags("", "-Dsovia.stats=" + stats));
            flags.addAll(Arrays.asList(extraFlags));
            return flags(flags, stats);
        }

        static Options plain() {
            return flags(List.of(), null);
        }

        Options withPrefix(List<String> words) {
            return new Options(words, jvmFlags, environment, classpath, workDir, stats, javaHome, jdkWarnings);
        }

        Options withEnvironment(Map<String, String> variables) {
            return new Options(prefix, jvmFlags, variables, classpath, workDir, stats, javaHome, jdkWarnings);
        }

        Options withClasspath(String path) {
            return new Options(prefix, jvmFlags, environment, path, workDir, stats, javaHome, jdkWarnings);
        }

        Options withWorkDir(Path dir) {
            return new Options(prefix, jvmFlags, environment, classpath, dir, stats, javaHome, jdkWarnings);
        }

        /** Runs the JDK at {@code home} instead of this JVM's. */
        Options withJavaHome(Path home) {
            return new Options(prefix, jvmFlags, environment, classpath, workDir, stats, home, jdkWarnings);
        }

        /** Leaves the JDK's own warnings on, to see what the agent alone makes the JDK print. */
        Options withJdkWarnings() {
            return new Options(prefix, jvmFlags, environment, classpath, workDir, stats, javaHome, true);
        }

        Options withStats(Path file) {
            return new Options(prefix, jvmFlags, environment, classpath, workDir, file, javaHome, jdkWarnings);
        }

        /** With {@code flag} after the others (a later {@code -D} of the same name wins). */
        Options withFlag(String flag) {
            List<String> flags = new ArrayList<>(jvmFlags);
            flags.add(flag);
            return new Options(prefix, flags, environment, classpath, workDir, stats, javaHome, jdkWarnings);
        }
    }

    /** Starts {@code app} as {@code options} say. */
    static ForkedJvm start(Path dir, String name, Options options, Class<?> app, String... args) throws IOException {
        List<String> command = new ArrayList<>(options.prefix());
        Path javaHome = options.javaHome() != null ? options.javaHome() : Path.of(System.getProperty("java.home"));
        command.add(javaHome.resolve("bin").resolve("java").toString());
        command.add("-cp");
        command.add(options.classpath() != null ? options.classpath() : appClasspath());
        // Both only silence warnings of JDK 22+/24+ about native access and sun.misc.Unsafe, which the
        // agent's libraries (and Netty) use; given to the plain run too so the runs differ by the agent alone.
        int feature = options.jdkWarnings() ? 0 : Jdks.feature(javaHome);
        if (feature >= 22) {
            command.add("--enable-native-access=ALL-UNNAMED");
        }
        if (feature >= 24) {
            command.add("--sun-misc-unsafe-memory-access=allow");
        }
        command.addAll(options.jvmFlags());
        command.add(app.getName());
        command.addAll(Arrays.asList(args));
        Path out = dir.resolve(name + ".out");
        Path err = dir.resolve(name + ".err");
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile());
        options.environment().forEach((variable, value) -> {
            if (value == null) {
                builder.environment().remove(variable);
            } else {
                builder.environment().put(variable, value);
            }
        });
        if (options.workDir() != null) {
            builder.directory(options.workDir().toFile());
        }
        List<String> brief = new ArrayList<>(command);
        int cp = brief.indexOf("-cp") + 1;
        String[] entries = brief.get(cp).split(File.pathSeparator);
        if (entries.length > 2) {
            brief.set(cp, entries[0] + File.pathSeparator + "...(" + (entries.length - 1) + " more)");
        }
        String shown = (options.environment().isEmpty() ? "" : options.environment() + " ") + String.join(" ", brief);
        return new ForkedJvm(app.getSimpleName() + " " + name, List.of(shown), builder.start(), out, err, options.stats());
    }

    /** The agent jar the tests attach. */
    static Path agentJar() {
        return AGENT_JAR;
    }

    /**
     * This test JVM's classpath without the agent: the agent module is a dependency only to order
     * the reactor, and the app must see Sovia only through {@code -javaagent}.
     */
    private static String appClasspath() {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !isAgent(Path.of(entry).toAbsolutePath().normalize()))
                .collect(Collectors.joining(File.pathSeparator));
    }

    private static boolean isAgent(Path entry) {
        String file = entry.getFileName() == null ? "" : entry.getFileName().toString();
        return entry.equals(AGENT_JAR) || entry.equals(BUILT_AGENT_JAR) || entry.startsWith(AGENT_TARGET)
                || file.startsWith("sovia-agent");
    }

    /** The agent's statistics file, or null for a plain JVM. */
    Path stats() {
        return stats;
    }

    /** The process, e.g. to kill it or for its pid. */
    Process process() {
        return process;
    }

    long pid() {
        return process.pid();
    }

    /** The descriptors the process holds now. */
    long descriptors() throws IOException {
        try (var fds = Files.list(Path.of("/proc/" + pid() + "/fd"))) {
            return fds.count();
        }
    }

    /** Waits until the process holds at most {@code limit} descriptors, at most {@code timeout}; the last count. */
    long awaitDescriptorsAtMost(long limit, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        long now;
        while ((now = descriptors()) > limit && System.nanoTime() - deadline < 0) {
            Thread.sleep(200);
        }
        return now;
    }

    /** Everything the JVM printed on stdout so far. */
    String stdout() throws IOException {
        return Files.readString(stdout);
    }

    /** Prints the app's {@code TIMING} lines, prefixed with {@code role}, for the test report. */
    void printTimings(String role) throws IOException {
        Matcher m = TIMING_LINE.matcher(stdout());
        while (m.find()) {
            System.out.println(role + " " + m.group());
        }
    }

    /** Waits until a stdout line matches {@code line} (multiline mode, so ^ and $ are a line's ends). */
    Matcher awaitLine(String line, Duration timeout) throws Exception {
        Pattern pattern = Pattern.compile(line, Pattern.MULTILINE);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Matcher m = pattern.matcher(Files.readString(stdout));
            if (m.find()) {
                return m;
            }
            if (!process.isAlive()) {
                // it may have printed the line just before it ended
                m = pattern.matcher(Files.readString(stdout));
                if (m.find()) {
                    return m;
                }
                return fail(name + " ended without printing a line like " + line + "\n" + report());
            }
            Thread.sleep(10);
        }
        return killAndFail(name + " printed no line like " + line + " within " + timeout);
    }

    /** Waits for the end within {@code timeout} (or kills it and fails); returns the exit status. */
    int awaitExit(Duration timeout) throws Exception {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            killAndFail(name + " did not finish within " + timeout + "; killed it");
        }
        return process.exitValue();
    }

    /** Waits for the {@code PORT n} line of a server role. */
    int awaitPort(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Matcher port = PORT_LINE.matcher(Files.readString(stdout));
            if (port.find()) {
                return Integer.parseInt(port.group(1));
            }
            if (!process.isAlive()) {
                fail(name + " ended before announcing its port\n" + report());
            }
            Thread.sleep(50);
        }
        return killAndFail(name + " announced no port within " + timeout);
    }

    /** Closing a server role's standard input tells it to stop. */
    void closeStdin() throws IOException {
        process.getOutputStream().close();
    }

    /** Waits for the end, which must be exit status 0 within {@code timeout}; returns stdout. */
    String awaitSuccess(Duration timeout) throws Exception {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            killAndFail(name + " did not finish within " + timeout + "; killed it");
        }
        assertEquals(0, process.exitValue(), () -> name + " failed\n" + report() + othersReport(false));
        System.out.printf("%s: %.1f s%n", name, (System.nanoTime() - startNanos) / 1e9);
        return Files.readString(stdout);
    }

    /** Everything the JVM printed on stderr so far. */
    String stderr() throws IOException {
        return Files.readString(stderr);
    }

    /** Waits for a successful end and returns the one {@code RESULT} line the app printed. */
    String awaitResult(Duration timeout) throws Exception {
        List<String> results = RESULT_LINE.matcher(awaitSuccess(timeout)).results()
                .map(MatchResult::group).toList();
        if (results.size() != 1) {
            fail(name + " printed " + results.size() + " RESULT lines, not 1\n" + report());
        }
        return results.get(0);
    }

    /** The command line and everything the JVM printed, for failure messages. */
    String report() {
        return "--- " + name + ": " + String.join(" ", command)
                + (process.isAlive() ? "" : "\n--- exit status " + process.exitValue())
                + "\n--- stdout:\n" + readQuietly(stdout)
                + "--- stderr:\n" + readQuietly(stderr)
                + (stats != null && Files.exists(stats) ? "--- stats (at its exit):\n" + readQuietly(stats) : "");
    }

    private static String readQuietly(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "(unreadable: " + e + ")\n";
        }
    }

    /** SIGQUIT: the JVM's thread dump (on its stdout) shows in its report where it hangs. */
    private void dumpThreads() {
        try {
            Process quit = new ProcessBuilder("kill", "-QUIT", String.valueOf(process.pid()))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            quit.waitFor(5, TimeUnit.SECONDS);
            Thread.sleep(1000);
        } catch (IOException e) {
            // no kill command: the report just has no thread dump
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * For a JVM that overstayed: fails with {@code what}, its report and those of the test's other JVMs still running,
     * each with a thread dump taken before this one is killed.
     */
    private <T> T killAndFail(String what) {
        String others = othersReport(true);
        dumpThreads();
        kill();
        return fail(what + "\n" + report() + others);
    }

    /**
     * The reports of the test's other JVMs still running, with their thread dumps if {@code dumps}: where a JVM
     * overstays or fails, its peer's threads or log usually say why (a server that refused the connection's path).
     */
    private String othersReport(boolean dumps) {
        StringBuilder others = new StringBuilder();
        for (ForkedJvm other : LIVE) {
            if (other != this && other.process.isAlive()) {
                if (dumps) {
                    other.dumpThreads();
                }
                others.append('\n').append(other.report());
            }
        }
        return others.toString();
    }

    private void kill() {
        LIVE.remove(this);
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // keep the interrupt, e.g. from the test's @Timeout
        }
    }

    /** Kills the JVM if it is still running, e.g. when the test failed or timed out first. */
    @Override
    public void close() {
        LIVE.remove(this);
        if (process.isAlive()) {
            kill();
        }
    }
}
