package io.sovia.agent.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.InterruptedIOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link RelayPeer} process, driven from the test JVM through its line protocol. The process gets this JVM's
 * agent jar but neither its agent options nor its {@code sovia.*} properties, so Sovia runs there with its defaults.
 * It is stopped when this JVM exits; should this JVM die without that, its stdin ends, which stops it too.
 */
final class Relay {

    /** Bound for the relay JVM to start and install the agent, on a loaded two-core machine. */
    private static final long START_MILLIS = 30_000;
    /** Bound for the relay to close what it holds and exit once its stdin ends, and then for a forced exit. */
    private static final long EXIT_MILLIS = 5_000;
    private static final String AGENT_OPTION = "-javaagent:";

    private final Process process;
    private final Writer requests;
    private final BlockingQueue<String> replies = new LinkedBlockingQueue<>();
    /** Where the relay listens. */
    private final InetAddress listenAt;

    private Relay(Process process, InetAddress listenAt) {
        this.process = process;
        requests = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.US_ASCII);
        this.listenAt = listenAt;
        Thread reader = new Thread(this::readReplies, "relay-replies");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts a relay on this host, on the loopback, and waits until it serves requests. */
    static Relay start() throws IOException {
        InetAddress loopback = InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
        return start(List.of(), List.of(), loopback, loopback);
    }

    /**
     * Starts a relay and waits until it serves requests.
     *
     * @param prefix    words before the java command (ip netns exec NS: another host)
     * @param flags     JVM flags beyond the agent
     * @param listenAt  where the relay listens
     * @param serversAt where it finds the test JVM's servers
     */
    static Relay start(List<String> prefix, List<String> flags, InetAddress listenAt, InetAddress serversAt)
            throws IOException {
        List<String> command = new ArrayList<>(prefix);
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add(agentOption());
        // kept shm connections live as long in the relay as in the test JVM, which waits them out (FdLeakIT)
        command.add("-Dsovia.shm.keep.millis=" + Io.SHM_KEEP_MILLIS);
        command.addAll(flags);
        // The relay only moves test traffic: keep it from competing with the test JVM for memory and cores.
        command.addAll(List.of("-Xmx128m", "-XX:+UseSerialGC", "-cp", classPath(), RelayPeer.class.getName(),
                listenAt.getHostAddress(), serversAt.getHostAddress()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
        // The command line is all the relay's configuration; an agent from the environment would attach twice.
        builder.environment().remove("JAVA_TOOL_OPTIONS");
        Relay relay = new Relay(builder.start(), listenAt);
        Runtime.getRuntime().addShutdownHook(new Thread(relay::stop, "relay-stop"));
        try {
            String first = relay.nextReply(START_MILLIS);
            if (!"ready".equals(first)) {
                throw new IOException("relay started with " + first + " instead of ready");
            }
            return relay;
        } catch (IOException e) {
            relay.stop();
            throw e;
        }
    }

    /** Whether the process still runs. */
    boolean isAlive() {
        return process.isAlive();
    }

    /** Makes the relay listen on a new port and relay its connections to {@code port} of the test JVM's servers. */
    InetSocketAddress forward(int port) throws IOException {
        return new InetSocketAddress(listenAt, Integer.parseInt(request("forward " + port)));
    }

    /** Closes the relay's listener on {@code listenPort}. */
    void unforward(int listenPort) throws IOException {
        request("unforward " + listenPort);
    }

    /** Waits until every connection the relay relayed so far is closed. */
    void awaitIdle() throws IOException {
        request("idle");
    }

    /** An address where nothing listens, last held by a listener of the relay. */
    InetSocketAddress refusedAddress() throws IOException {
        return new InetSocketAddress(listenAt, Integer.parseInt(request("refused")));
    }

    /** Ends the relay: first by ending its stdin, then, if it does not exit in time, by killing it. */
    void stop() {
        try {
            requests.close();
        } catch (IOException gone) {
            // The relay has exited already, which the wait below sees at once.
        }
        try {
            if (!process.waitFor(EXIT_MILLIS, TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(EXIT_MILLIS, TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Sends a request and returns its reply without the {@code ok}. A relay that does not answer in time is
     * stopped: its late reply would otherwise be taken for the next request's.
     */
    private synchronized String request(String request) throws IOException {
        requests.write(request + "\n");
        requests.flush();
        String reply;
        try {
            reply = nextReply(Io.WAIT_MILLIS);
        } catch (IOException e) {
            stop();
            throw new IOException("relay request " + request + ": " + e.getMessage(), e);
        }
        if (reply.equals("ok")) {
            return "";
        }
        if (reply.startsWith("ok ")) {
            return reply.substring("ok ".length());
        }
        throw new IOException("relay request " + request + ": " + reply);
    }

    private String nextReply(long timeoutMillis) throws IOException {
        try {
            String reply = replies.poll(timeoutMillis, TimeUnit.MILLISECONDS);
            if (reply == null) {
                throw new IOException("no reply within " + timeoutMillis + " ms");
            }
            return reply;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted waiting for the relay");
        }
    }

    private void readReplies() {
        try (BufferedReader lines = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                replies.add(line);
            }
        } catch (IOException e) {
            // The output ends either way; the line below tells a waiting request.
        }
        replies.add("error the relay's output ended");
    }

    /** The test JVM's own {@code -javaagent} jar, without its options (a stats file, say, is this JVM's). */
    private static String agentOption() {
        return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(argument -> argument.startsWith(AGENT_OPTION))
                .map(argument -> argument.substring(AGENT_OPTION.length()).split("=", 2)[0])
                .filter(jar -> Path.of(jar).getFileName().toString().equals("sovia.jar"))
                .findFirst()
                .map(jar -> AGENT_OPTION + jar)
                .orElseThrow(() -> new IllegalStateException(
                        "the test JVM runs without -javaagent:.../sovia.jar, which its relay JVM needs too"));
    }

    /** Where this JVM loaded the relay's classes from; they need nothing but the JDK. */
    private static String classPath() {
        try {
            return Path.of(RelayPeer.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
