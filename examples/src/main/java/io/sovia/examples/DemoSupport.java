package io.sovia.examples;


import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The plumbing every demo shares: the role argument, the {@code PORT}/{@code RESULT} output
 * protocol, reproducible test data and SHA-256 helpers. Plain JDK only, like the demos.
 */
final class DemoSupport {

    /** Stops a server and removes whatever it created. */
    @FunctionalInterface
    interface Stop {
        void run() throws Exception;
    }

    /** A running server: the port it listens on and how to stop it. */
    record Server(int port, Stop stop) {
    }

    /** Starts a server on 127.0.0.1 and an ephemeral port. */
    @FunctionalInterface
    interface ServerStarter {
        Server start() throws Exception;
    }

    /** Runs the client workload against a server port; returns the text of the RESULT line. */
    @FunctionalInterface
    interface Client {
        String run(int port) throws Exception;
    }

    private static final int CHUNK = 64 * 1024;

    private DemoSupport() {
    }

    /**
     * The address servers bind to and clients connect to: loopback, or the system property {@code demo.host} (an IP
     * literal or name), for demos between hosts ({@code 0.0.0.0} makes a server listen on every address).
     */
    static InetAddress host() throws UnknownHostException {
        String host = System.getProperty("demo.host");
        return host == null || host.isBlank() ? InetAddress.getLoopbackAddress() : InetAddress.getByName(host);
    }

    /**
     * Runs a demo in the role that {@code args[0]} names: {@code both} (server and client in this
     * JVM), {@code server} (prints {@code PORT n}, serves until standard input reaches end of file)
     * or {@code client <port>}. Always ends the JVM through {@link System#exit} so shutdown hooks run
     * and lingering non-daemon threads of the frameworks cannot keep it alive; status 1 on failure.
     */
    static void run(String[] args, ServerStarter servers, Client client) {
        String role = args.length == 0 ? "both" : args[0];
        int status = 1;
        try {
            switch (role) {
                case "both" -> {
                    Server server = servers.start();
                    try {
                        System.out.println("RESULT " + client.run(server.port()));
                    } finally {
                        server.stop().run();
                    }
                }
                case "server" -> {
                    Server server = servers.start();
                    try {
                        System.out.println("PORT " + server.port());
                        System.out.flush();
                        // The launcher closes our stdin once its client is done (or when it dies).
                        System.in.transferTo(OutputStream.nullOutputStream());
                    } finally {
                        server.stop().run();
                    }
                }
                case "client" -> {
                    if (args.length < 2) {
                        throw new IllegalArgumentException("usage: client <port>");
                    }
                    System.out.println("RESULT " + client.run(Integer.parseInt(args[1])));
                }
                default -> throw new IllegalArgumentException("role must be both, server or client <port>: " + role);
            }
            status = 0;
        } catch (Throwable t) {
            t.printStackTrace();
        }
        System.out.flush();
        System.exit(status);
    }

    /** Feeds {@code size} reproducible pseudo-random bytes for {@code seed} to {@code sink}, in chunks. */
    static void pseudoRandom(long seed, long size, Consumer<byte[]> sink) {
        SplittableRandom random = new SplittableRandom(seed);
        byte[] chunk = new byte[CHUNK];
        for (long left = size; left > 0; left -= CHUNK) {
            random.nextBytes(chunk);
            sink.accept(left >= CHUNK ? chunk : Arrays.copyOf(chunk, (int) left));
        }
    }

    static byte[] pseudoRandomBytes(long seed, int size) {
        byte[] all = new byte[size];
        int[] at = {0};
        pseudoRandom(seed, size, chunk -> {
            System.arraycopy(chunk, 0, all, at[0], chunk.length);
            at[0] += chunk.length;
        });
        return all;
    }

    static void writePseudoRandomFile(Path file, long seed, long size) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            pseudoRandom(seed, size, chunk -> {
                try {
                    out.write(chunk);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }

    static String sha256OfPseudoRandom(long seed, long size) {
        MessageDigest digest = sha256();
        pseudoRandom(seed, size, digest::update);
        return hex(digest);
    }

    static String sha256(byte[] data) {
        MessageDigest digest = sha256();
        digest.update(data);
        return hex(digest);
    }

    static String sha256(Path file) throws IOException {
        MessageDigest digest = sha256();
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buffer = new byte[CHUNK];
            for (int n; (n = in.read(buffer)) >= 0; ) {
                digest.update(buffer, 0, n);
            }
        }
        return hex(digest);
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    static String hex(MessageDigest digest) {
        return HexFormat.of().formatHex(digest.digest());
    }

    /** Deletes a directory tree; the demos call it on every temp directory they create. */
    static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
