package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent makes the JDK print nothing the app would not print: on JDK 22 and later, without
 * {@code --enable-native-access}, an shm connection (whose segment handover loads Sovia's JNA) prints no
 * restricted-method warning, at either end; nor does an eth connection between two hosts (packet sockets, their
 * receive ring), which once used Agrona's buffers and so {@code sun.misc.Unsafe}, warned about from JDK 24 on.
 */
class JdkWarningsTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void anShmConnectionPrintsNoJdkWarning() throws Exception {
        Optional<Path> jdk = Jdks.atLeast(22);
        Assumptions.assumeTrue(jdk.isPresent(), "no JDK 22+ here");
        try (ForkedJvm server = ForkedJvm.start(dir, "server", options("server", jdk.get()), ManyEchoApp.class, "server")) {
            int port = server.awaitPort(Duration.ofSeconds(60));
            try (ForkedJvm client = ForkedJvm.start(dir, "client", options("client", jdk.get()), ManyEchoApp.class,
                    "client", String.valueOf(port), "1", "1000")) {
                client.awaitResult(Duration.ofSeconds(60));
                client.awaitExit(Duration.ofSeconds(30));
                ShmChecks.assertAllOn("shm", client, 1);
                for (ForkedJvm jvm : new ForkedJvm[] {client, server}) {
                    assertFalse(jvm.stderr().contains("WARNING"), jvm.report());
                }
            }
        }
    }

    @Test
    @Timeout(150)
    void anEthConnectionPrintsNoJdkWarning() throws Exception {
        Optional<Path> jdk = Jdks.atLeast(24);
        Assumptions.assumeTrue(jdk.isPresent(), "no JDK 24+ here");
        try (EthNamespaces hosts = EthNamespaces.direct(dir, "svwarn", 1500);
             ForkedJvm server = ForkedJvm.start(dir, "server", eth(hosts, "b", "server", jdk.get()),
                     DuplexStreamApp.class, "server", "nio")) {
            int port = server.awaitPort(Duration.ofSeconds(60));
            try (ForkedJvm client = ForkedJvm.start(dir, "client", eth(hosts, "a", "client", jdk.get()),
                    DuplexStreamApp.class, "client", String.valueOf(port), "nio", "1000000", "1", "2", "65536")) {
                client.awaitResult(Duration.ofSeconds(60));
                server.awaitResult(Duration.ofSeconds(60));
                client.awaitExit(Duration.ofSeconds(30));
                assertEquals(1, SoviaStats.read(client.stats()).on("eth"), client::report);
                for (ForkedJvm jvm : new ForkedJvm[] {client, server}) {
                    assertFalse(jvm.stderr().contains("WARNING"), jvm.report());
                }
            }
        }
    }

    private ForkedJvm.Options eth(EthNamespaces hosts, String host, String name, Path jdk) {
        return options(name, jdk).withFlag("-Dsovia.hosts=" + hosts.hosts()).withFlag(EthNamespaces.PATIENT_CONNECT)
                .withFlag("-Ddemo.host=" + EthNamespaces.SERVER_IP).withPrefix(hosts.in(host));
    }

    private ForkedJvm.Options options(String name, Path jdk) {
        return ForkedJvm.Options.agent(dir.resolve(name + ".json")).withJavaHome(jdk).withJdkWarnings();
    }
}
