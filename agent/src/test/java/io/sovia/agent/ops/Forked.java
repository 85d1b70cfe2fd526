package io.sovia.agent.ops;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A process the operability tests start: a {@link HoldApp} JVM under the agent, {@code java -jar sovia.jar ...}, or
 * {@code bin/sovia}. As the examples' {@code ForkedJvm}: stdout and stderr go to files (the child never blocks on a
 * full pipe, and both show in failures), every wait is bounded, and one that overstays is killed with its children.
 */
final class Forked implements AutoCloseable {
    private static final String AGENT_OPTION = "-javaagent:";
    /** Bound for a JVM to start under the agent and say it is ready, on a loaded two-core machine. */
    static final Duration START = Duration.ofSeconds(60);
    /** This test JVM's java, so a run on another JDK tests that JDK throughout. */
    static final Path JAVA = Path.of(System.getProperty("java.home"), "bin", "java");

    private final String name;
    private final List<String> command;
    private final Process process;
    private final Path stdout;
    private final Path stderr;

    private Forked(String name, List<String> command, Process process, Path stdout, Path stderr) {
        this.name = name;
        this.command = command;
        this.process = process;
        this.stdout = stdout;
        this.stderr = stderr;
    }

    /** Starts {@code command} with its output in {@code dir/name.out} and {@code .err}, without JAVA_TOOL_OPTIONS. */
    static Forked start(Path dir, String name, List<String> command) throws IOException {
        return start(dir, name, command, Map.of());
    }

    /** As {@link #start(Path, String, List)}, with {@code environment} added. */
    static Forked start(Path dir, String name, List<String> command, Map<String, String> environment)
            throws IOException {
        Path out = dir.resolve(name + ".out");
        Path err = dir.resolve(name + ".err");
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        // the command line is all the child's configuration; an agent from the environment would attach twice
        builder.environment().remove("JAVA_TOOL_OPTIONS");
        builder.environment().putAll(environment);
        return new Forked(name, command, builder.start(), out, err);
    }

    /** {@link HoldApp} with {@code args} in a JVM under the agent, with {@code flags} before the main class. */
    static Forked app(Path dir, String name, List<String> flags, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(JAVA.toString(), AGENT_OPTION + agentJar()));
        command.addAll(flags);
        command.addAll(List.of("-Xmx128m", "-XX:+UseSerialGC", "-cp", testClasses(), HoldApp.class.getName()));
        command.addAll(List.of(args));
        return start(dir, name, command);
    }

    /** {@code java -jar sovia.jar args}, run to its end; its exit code and output. */
    static Result cli(Path dir, String name, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(JAVA.toString(), "-jar", agentJar().toString()));
        command.addAll(List.of(args));
        try (Forked cli = start(dir, name, command)) {
            return cli.result(Duration.ofSeconds(60));
        }
    }

    /** What a command that ran to its end printed. */
    record Result(int exit, String stdout, String stderr) {
    }

    /** The agent jar of this test JVM's {@code -javaagent}, the one the build just made. */
    static Path agentJar() {
        return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(argument -> argument.startsWith(AGENT_OPTION))
                .map(argument -> argument.substring(AGENT_OPTION.length()).split("=", 2)[0])
                .map(Path::of)
                .filter(jar -> jar.getFileName().toString().equals("sovia.jar"))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("the test JVM runs without -javaagent:.../sovia.jar"));
    }

    /** Where {@link HoldApp} was loaded from; it needs nothing but the JDK. */
    static String testClasses() {
        try {
            return Path.of(HoldApp.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The result of a process that ran to its end within {@code timeout}. */
    Result result(Duration timeout) throws Exception {
        int exit = awaitExit(timeout);
        return new Result(exit, Files.readString(stdout), Files.readString(stderr));
    }

    long pid() {
        return process.pid();
    }

    /** Waits for a {@link HoldApp} server's {@code PORT n} line; returns n. */
    String awaitPort() throws Exception {
        return awaitLine("^PORT (\\d+)$", START).group(1);
    }

    /** Waits until a stdout line matches {@code line}; fails (after killing it) when it does not in time. */
    Matcher awaitLine(String line, Duration timeout) throws Exception {
        Pattern pattern = Pattern.compile(line, Pattern.MULTILINE);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() - deadline < 0) {
            Matcher m = pattern.matcher(Files.readString(stdout));
            if (m.find()) {
                return m;
            }
            if (!process.isAlive()) {
                m = pattern.matcher(Files.readString(stdout)); // it may have printed the line just before it ended
                return m.find() ? m : fail(name + " ended without printing a line like " + line + "\n" + report());
            }
            Thread.sleep(20);
        }
        close();
        return fail(name + " printed no line like " + line + " within " + timeout + "\n" + report());
    }

    /** Waits for the end within {@code timeout} (or kills it and fails); returns the exit status. */
    int awaitExit(Duration timeout) throws Exception {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            close();
            fail(name + " did not finish within " + timeout + "; killed it\n" + report());
        }
        return process.exitValue();
    }

    /** Ends its standard input, which tells a {@link HoldApp} to exit. */
    void closeStdin() throws IOException {
        process.getOutputStream().close();
    }

    /** The command line and everything it printed, for failure messages. */
    String report() {
        return "--- " + name + ": " + String.join(" ", command)
                + (process.isAlive() ? "" : "\n--- exit status " + process.exitValue())
                + "\n--- stdout:\n" + readQuietly(stdout) + "--- stderr:\n" + readQuietly(stderr);
    }

    private static String readQuietly(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "(unreadable: " + e + ")\n";
        }
    }

    /** Kills the process and its children if still running, e.g. when the test failed or timed out first. */
    @Override
    public void close() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // keep the interrupt, e.g. from the test's @Timeout
        }
    }
}
