package io.sovia.examples;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs each unmodified demo app without and with the Sovia agent (see {@link CompatCheck}). The
 * connection minimums count only what each app surely opens; pooling may open more.
 *
 * <p>Needs {@code agent/target/sovia.jar}. From the root: {@code mvn -B -pl examples
 * -Dsovia.examples.standalone test} (the property lets Maven 3 build this module alone, see the
 * pom); add {@code -Dsovia.examples.plainOnly=true} to check only the apps and the harness.
 */
class CompatibilityTest {

    /** Per forked JVM; each test's {@code @Timeout} covers all of its JVMs with room to spare. */
    private static final Duration JVM_TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    /** An echo connection and a FileRegion (transferTo) connection. */
    @Test
    @Timeout(150)
    void nettyEcho() throws Exception {
        CompatCheck.oneJvm(dir, NettyEchoApp.class, JVM_TIMEOUT, 2);
    }

    @Test
    @Timeout(300)
    void nettyEchoInTwoJvms() throws Exception {
        CompatCheck.twoJvms(dir, NettyEchoApp.class, JVM_TIMEOUT, 2);
    }

    /** At least one connection from each of the two HTTP clients. */
    @Test
    @Timeout(150)
    void wireMock() throws Exception {
        CompatCheck.oneJvm(dir, WireMockApp.class, JVM_TIMEOUT, 2);
    }

    @Test
    @Timeout(300)
    void wireMockInTwoJvms() throws Exception {
        CompatCheck.twoJvms(dir, WireMockApp.class, JVM_TIMEOUT, 2);
    }

    /** At least one connection from each of the two HTTP clients. */
    @Test
    @Timeout(150)
    void jdkHttpServer() throws Exception {
        CompatCheck.oneJvm(dir, JdkHttpServerApp.class, JVM_TIMEOUT, 2);
    }

    @Test
    @Timeout(300)
    void jdkHttpServerInTwoJvms() throws Exception {
        CompatCheck.twoJvms(dir, JdkHttpServerApp.class, JVM_TIMEOUT, 2);
    }

    /** The control connection, then a data connection for each STOR and RETR in both modes. */
    @Test
    @Timeout(240)
    void ftpActiveAndPassive() throws Exception {
        CompatCheck.oneJvm(dir, FtpApp.class, Duration.ofSeconds(100), 5);
    }

    /** In active mode the server connects back to the client's listener: shm both ways. */
    @Test
    @Timeout(480)
    void ftpActiveAndPassiveInTwoJvms() throws Exception {
        CompatCheck.twoJvms(dir, FtpApp.class, Duration.ofSeconds(100), 5);
    }

    /** One connection to the registry, one to the exported object. */
    @Test
    @Timeout(150)
    void rmi() throws Exception {
        CompatCheck.oneJvm(dir, RmiApp.class, JVM_TIMEOUT, 2);
    }

    @Test
    @Timeout(300)
    void rmiInTwoJvms() throws Exception {
        CompatCheck.twoJvms(dir, RmiApp.class, JVM_TIMEOUT, 2);
    }

    /** The echo connection, made by the app's own SocketImpl over a SocketChannel. */
    @Test
    @Timeout(150)
    void appSocketImplFactory() throws Exception {
        CompatCheck.oneJvm(dir, FactoryApp.class, JVM_TIMEOUT, 1);
    }

    @Test
    @Timeout(300)
    void appSocketImplFactoryInTwoJvms() throws Exception {
        CompatCheck.twoJvms(dir, FactoryApp.class, JVM_TIMEOUT, 1);
    }
}
