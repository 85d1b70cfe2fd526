package io.sovia.examples;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A launcher that starts a child JVM (as build tools and app servers do) and talks to it: it listens
 * on 127.0.0.1, starts {@code java [CHILD_JVM_FLAGS] -cp <its own class path> DuplexStreamApp client}
 * against that port, serves the child's duplex stream ({@link DuplexStreamApp}) and waits for it. The
 * child inherits the environment, so {@code JAVA_TOOL_OPTIONS} reaches it.
 *
 * <pre>
 *   ParentChildApp BYTES [CHILD_JVM_FLAG ...]
 * </pre>
 * Prints {@code PORT n}, the child's lines prefixed {@code CHILD }, then its own {@code RESULT}, which must equal the
 * child's. Plain JDK only.
 */
public final class ParentChildApp {
    private ParentChildApp() {
    }

    public static void main(String[] args) throws Exception {
        long bytes = Long.parseLong(args[0]);
        try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            System.out.println("PORT " + listener.getLocalPort());
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(Arrays.asList(args).subList(1, args.length));
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), DuplexStreamApp.class.getName(),
                    "client", String.valueOf(listener.getLocalPort()), "nio", String.valueOf(bytes), "31", "32",
                    String.valueOf(256 * 1024)));
            System.out.println("CHILD-COMMAND " + String.join(" ", command));
            Process child = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            System.out.println("CHILD-PID " + child.pid());
            Thread relay = new Thread(() -> {
                try (BufferedReader lines = new BufferedReader(
                        new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line; (line = lines.readLine()) != null; ) {
                        System.out.println("CHILD " + line);
                    }
                } catch (Exception e) {
                    e.printStackTrace();
                }
            }, "relay");
            relay.start();
            try (Socket socket = listener.accept()) {
                DuplexStreamApp.serve(socket);
            } finally {
                int status = child.waitFor();
                relay.join();
                System.out.println("CHILD-EXIT " + status);
                if (status != 0) {
                    System.exit(1);
                }
            }
        }
    }
}
