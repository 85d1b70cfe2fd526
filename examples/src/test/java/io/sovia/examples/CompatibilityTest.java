package io.sovia.examples;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs each unmodified demo app without and with the Sovia agent (see {@link CompatCheck}): in one
 * JVM (the jvm path), in two (shm), and in one with {@code sovia.paths=tcp} (Sovia's sockets over the
 * JDK's TCP). The minimums are connections, which a JVM with both ends counts twice. Where an app's
 * count is fixed they are exact; where HTTP pooling makes it vary they are more than half of what the
 * app opens in a run (from the statistics files), so they stay green across runs yet fail when most
 * connections bypass Sovia.
 *
 * <p>Needs {@code agent/target/sovia.jar}. From the root: {@code mvn -B -pl examples
 * -Dsovia.examples.standalone test} (the property lets Maven 3 build this module alone, see the
 * pom); add {@code -Dsovia.examples.plainOnly=true} to check only the apps and the harness.
 */
class CompatibilityTest {

    /** Per forked JVM; each test's {@code @Timeout} covers all of its JVMs with room to spare. */
    private static final Duration JVM_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration FTP_TIMEOUT = Duration.ofSeconds(100);

    /** An echo connection and a FileRegion (transferTo) connection. */
    private static final int NETTY_CONNECTIONS = 2;
    /**
     * Usually 9: HttpClient opens one per request in flight (8) and keeps them, HttpURLConnection
     * one; HttpClient may reuse a connection that came free before a request of its batch went out.
     */
    private static final int WIREMOCK_CONNECTIONS = 5;
    /** Usually 5: HttpClient with 4 requests in flight, HttpURLConnection one (as for WireMock). */
    private static final int JDK_HTTP_CONNECTIONS = 3;
    /** The control connection, then a data connection for each STOR and RETR in both modes. */
    private static final int FTP_CONNECTIONS = 5;
    /** One to the registry (its lookup and list), one to the exported object. */
    private static final int RMI_CONNECTIONS = 2;
    /** The client's one channel, on which every call and stream runs. */
    private static final int GRPC_CONNECTIONS = 1;
    /** The echo connection, made by the app's own SocketImpl over a SocketChannel. */
    private static final int FACTORY_CONNECTIONS = 1;

    @TempDir
    Path dir;

    @Test
    @Timeout(150)
    void nettyEcho() throws Exception {
        CompatCheck.oneJvm(dir, NettyEchoApp.class, JVM_TIMEOUT, NETTY_CONNECTIONS);
    }

    @Test
    @Timeout(300)
    void nettyEchoInTwoJvms() throws Exception {
        CompatCheck.twoJvms(dir, NettyEchoApp.class, JVM_TIMEOUT, NETTY_CONNECTIONS);
    }

    @Test
    @Timeout(150)
    void nettyEchoOnTcpPath() throws Exception {
        CompatCheck.oneJvmOnTcpPath(dir, NettyEchoApp.class, JVM_TIMEOUT, NETTY_CONNECTIONS);
    }

    @Test
    @Timeout(150)
    void wireMock() throws Exception {
        CompatCheck.oneJvm(dir, WireMockApp.class, JVM_TIMEOUT, WIREMOCK_CONNECTIONS);
    }

    @Test
    @Timeout(300)
    void wireMockInTwoJvms() throws Exception {
        CompatCheck.twoJvms(dir, WireMockApp.class, JVM_TIMEOUT, WIREMOCK_CONNECTIONS);
    }

    @Test
    @Timeout(150)
    void wireMockOnTcpPath() throws Exception {
        CompatCheck.oneJvmOnTcpPath(dir, WireMockApp.class, JVM_TIMEOUT, WIREMOCK_CONNECTIONS);
    }

    @Test
    @Timeout(150)
    void jdkHttpServer() throws Exception {
        CompatCheck.oneJvm(dir, JdkHttpServerApp.class, JVM_TIMEOUT, JDK_HTTP_CONNECTIONS);
    }

    @Test
    @Timeout(300)
    void jdkHttpServerInTwoJvms() throws Exception {
        CompatCheck.twoJvms(dir, JdkHttpServerApp.class, JVM_TIMEOUT, JDK_HTTP_CONNECTIONS);
    }

    @Test
    @Timeout(150)
    void jdkHttpServerOnTcpPath() throws Exception {
        CompatCheck.oneJvmOnTcpPath(dir, JdkHttpServerApp.class, JVM_TIMEOUT, JDK_HTTP_CONNECTIONS);
    }

    @Test
    @Timeout(240)
    void ftpActiveAndPassive() throws Exception {
        CompatCheck.oneJvm(dir, FtpApp.class, FTP_TIMEOUT, FTP_CONNECTIONS);
    }

    /** In active mode the server connects back to the client's listener: shm both ways. */
    @Test
    @Timeout(480)
    void ftpActiveAndPassiveInTwoJvms() throws Exception {
        CompatCheck.twoJvms(dir, FtpApp.class, FTP_TIMEOUT, FTP_CONNECTIONS);
    }

    @Test
    @Timeout(240)
    void ftpActiveAndPassiveOnTcpPath() throws Exception {
        CompatCheck.oneJvmOnTcpPath(dir, FtpApp.class, FTP_TIMEOUT, FTP_CONNECTIONS);
    }

    @Test
    @Timeout(150)
    void rmi() throws Exception {
        CompatCheck.oneJvm(dir, RmiApp.class, JVM_TIMEOUT, RMI_CONNECTIONS);
    }

    @Test
    @Timeout(300)
    void rmiInTwoJvms() throws Exception {
        CompatCheck.twoJvms(dir, RmiApp.class, JVM_TIMEOUT, RMI_CONNECTIONS);
    }

    @Test
    @Timeout(150)
    void rmiOnTcpPath() throws Exception {
        CompatCheck.oneJvmOnTcpPath(dir, RmiApp.class, JVM_TIMEOUT, RMI_CONNECTIONS);
    }

    /** gRPC would take Netty's native epoll transport; with nothing on its command line it runs on Sovia. */
    @Test
    @Timeout(150)
    void grpc() throws Exception {
        CompatCheck.oneJvm(dir, GrpcApp.class, JVM_TIMEOUT, GRPC_CONNECTIONS);
    }

    @Test
    @Timeout(300)
    void grpcInTwoJvms() throws Exception {
        CompatCheck.twoJvms(dir, GrpcApp.class, JVM_TIMEOUT, GRPC_CONNECTIONS);
    }

    /** The control: with Netty left alone, gRPC's connections are native epoll ones, past Sovia. */
    @Test
    @Timeout(150)
    void grpcWithNettyNativeKept() throws Exception {
        assumeNativeEpoll();
        CompatCheck.oneJvmUncarried(dir, GrpcApp.class, JVM_TIMEOUT, "-Dsovia.netty.native=keep");
    }

    /** An app that creates its epoll event loops itself still starts and works (on plain TCP, as without Sovia). */
    @Test
    @Timeout(150)
    void grpcInsistingOnEpoll() throws Exception {
        assumeNativeEpoll();
        CompatCheck.oneJvmUncarried(dir, GrpcApp.class, JVM_TIMEOUT, "-Dgrpcapp.epoll=true");
    }

    /** Where grpc-netty-shaded's epoll cannot load (another OS, a noexec temporary directory), gRPC uses NIO anyway. */
    private static void assumeNativeEpoll() {
        Assumptions.assumeTrue(io.grpc.netty.shaded.io.netty.channel.epoll.Epoll.isAvailable(),
                "grpc-netty-shaded's native epoll does not load here");
    }

    @Test
    @Timeout(150)
    void appSocketImplFactory() throws Exception {
        CompatCheck.oneJvm(dir, FactoryApp.class, JVM_TIMEOUT, FACTORY_CONNECTIONS);
    }

    @Test
    @Timeout(300)
    void appSocketImplFactoryInTwoJvms() throws Exception {
        CompatCheck.twoJvms(dir, FactoryApp.class, JVM_TIMEOUT, FACTORY_CONNECTIONS);
    }

    @Test
    @Timeout(150)
    void appSocketImplFactoryOnTcpPath() throws Exception {
        CompatCheck.oneJvmOnTcpPath(dir, FactoryApp.class, JVM_TIMEOUT, FACTORY_CONNECTIONS);
    }
}
