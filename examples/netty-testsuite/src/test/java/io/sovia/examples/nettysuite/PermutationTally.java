package io.sovia.examples.nettysuite;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.slf4j.LoggerFactory;

/**
 * Which of Netty's permutations each test ran, and which one it failed on. Netty runs all permutations
 * (NIO and OIO server and client channels, times the allocators) inside one test method and logs
 * {@code Running: <test> i of n (<server bootstrap> + <client bootstrap>) with <allocator>} before each;
 * the first failing permutation ends the method. So a failed test failed on the last permutation it
 * started, and those before passed. One line per test goes to {@code <nts.report>/tests.tsv}:
 * status, class, test, permutations started, the last one (channels and allocator), first line of the failure.
 */
public final class PermutationTally implements TestExecutionListener {

    private static final List<String> STARTED = new ArrayList<>();
    private static final Pattern CHANNEL = Pattern.compile("(\\w+)Channel\\.class");
    private static final Pattern ALLOCATOR = Pattern.compile(" with (\\w+)$");
    private static final Pattern INDEX = Pattern.compile(" (\\d+) of (\\d+) ");

    static void attachToNettyLog() {
        Logger netty = (Logger) LoggerFactory.getLogger("io.netty.testsuite");
        netty.setLevel(Level.INFO);
        AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent event) {
                String message = event.getFormattedMessage();
                if (message != null && message.startsWith("Running: ")) {
                    synchronized (STARTED) {
                        STARTED.add(message);
                    }
                }
            }
        };
        appender.setContext(netty.getLoggerContext());
        appender.setName("permutation-tally");
        appender.start();
        netty.addAppender(appender);
    }

    /**
     * {@code NioServerSocket+OioSocket/PooledByteBufAllocator} from one {@code Running:} line. Tests of one
     * bootstrap (a server or a client alone) log only {@code i of n}: their permutation is the i-th of
     * {@code SocketTestPermutation.serverSocket()} or {@code clientSocket()}, NIO then OIO.
     */
    static String permutation(String running, String testClass) {
        List<String> channels = new ArrayList<>();
        Matcher channel = CHANNEL.matcher(running);
        while (channel.find()) {
            channels.add(channel.group(1));
        }
        Matcher index = INDEX.matcher(running);
        if (channels.isEmpty() && index.find()) {
            int i = Integer.parseInt(index.group(1));
            String kind = oneBootstrapKind(testClass);
            channels.add(kind != null && i <= 2 ? (i == 1 ? "Nio" : "Oio") + kind : "#" + i + "of" + index.group(2));
        }
        Matcher allocator = ALLOCATOR.matcher(running);
        return String.join("+", channels) + (allocator.find() ? "/" + allocator.group(1) : "");
    }

    /** {@code ServerSocket} or {@code Socket} for Netty's one-bootstrap test bases, else null. */
    private static String oneBootstrapKind(String testClass) {
        try {
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            Class<?> test = Class.forName(testClass, false, loader);
            if (Class.forName("io.netty.testsuite.transport.socket.AbstractServerSocketTest", false, loader)
                    .isAssignableFrom(test)) {
                return "ServerSocket";
            }
            if (Class.forName("io.netty.testsuite.transport.socket.AbstractClientSocketTest", false, loader)
                    .isAssignableFrom(test)) {
                return "Socket";
            }
        } catch (ClassNotFoundException | LinkageError e) {
            // not one of Netty's socket tests
        }
        return null;
    }

    @Override
    public void executionStarted(TestIdentifier test) {
        if (test.isTest()) {
            synchronized (STARTED) {
                STARTED.clear();
            }
        }
    }

    @Override
    public void executionSkipped(TestIdentifier test, String reason) {
        if (test.isTest()) {
            write(test, "SKIPPED", List.of(), reason);
        }
    }

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
        if (!test.isTest()) {
            return;
        }
        List<String> started;
        synchronized (STARTED) {
            started = new ArrayList<>(STARTED);
        }
        String failure = result.getThrowable().map(t -> t.toString()).orElse("");
        write(test, result.getStatus().name(), started, failure);
    }

    private static void write(TestIdentifier test, String status, List<String> started, String failure) {
        String report = System.getProperty("nts.report");
        if (report == null) {
            return;
        }
        String className = test.getSource().filter(MethodSource.class::isInstance)
                .map(s -> ((MethodSource) s).getClassName()).orElse("?");
        List<String> permutations = new ArrayList<>();
        for (String line : started) {
            permutations.add(permutation(line, className));
        }
        className = className.substring(className.lastIndexOf('.') + 1);
        String line = String.join("\t", status, className, clean(test.getDisplayName()),
                String.join(",", permutations), clean(failure)) + "\n";
        try {
            Path file = Path.of(report, "tests.tsv");
            Files.createDirectories(file.getParent());
            Files.writeString(file, line, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String clean(String text) {
        String first = text.lines().findFirst().orElse("");
        first = first.replace('\t', ' ');
        return first.length() > 300 ? first.substring(0, 300) + "..." : first;
    }
}
