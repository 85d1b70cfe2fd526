package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The seed papers' experiments as {@code examples/speed.sh} runs them, once each and small, under the agent in two
 * JVMs on this host: SOVIA's FTP transfers ({@link FtpBench}: uploads and downloads in passive and active mode, the
 * file checked by SHA-256) and its RPC calls ({@link RpcBench}: RMI, and gRPC with nothing on its command line to
 * keep it off Netty's native transport; every answer checked). Every connection must be on shm.
 */
class PapersDemoTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final Pattern TRANSFER = Pattern.compile("^RESULT mode=\\S+ op=\\S+ round=1 ", Pattern.MULTILINE);

    @TempDir
    Path dir;

    @Test
    @Timeout(240)
    void ftpTransfersOnShm() throws Exception {
        Path home = Files.createDirectories(dir.resolve("home"));
        Path file = dir.resolve("file.bin");
        DemoSupport.writePseudoRandomFile(file, 11, 5_000_000);
        try (ForkedJvm server = ForkedJvm.start(dir, "ftp-server", true, FtpBench.class, "server", home.toString());
                ForkedJvm client = ForkedJvm.start(dir, "ftp-client", true, FtpBench.class, "client",
                        String.valueOf(server.awaitPort(TIMEOUT)), file.toString(), "1")) {
            String out = client.awaitSuccess(TIMEOUT);
            assertTrue(out.contains("RESULT sha256=" + DemoSupport.sha256(file) + " verified"),
                    () -> "the retrieved copy differs from the file\n" + client.report());
            assertEquals(4, TRANSFER.matcher(out).results().count(), () -> "STOR and RETR, passive and active:\n" + out);
            server.closeStdin();
            server.awaitSuccess(TIMEOUT);
            // the control connection and one data connection per transfer, counted at each end
            assertAllShm(client, 5);
            assertAllShm(server, 5);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"rmi", "grpc"})
    @Timeout(240)
    void rpcCallsOnShm(String rpc) throws Exception {
        try (ForkedJvm server = ForkedJvm.start(dir, rpc + "-server", true, RpcBench.class, "server", rpc);
                ForkedJvm client = ForkedJvm.start(dir, rpc + "-client", true, RpcBench.class, "client", rpc,
                        String.valueOf(server.awaitPort(TIMEOUT)), "200")) {
            String out = client.awaitSuccess(TIMEOUT);
            // the null call and six sizes, each 2,000 untimed and 200 timed calls, every answer checked
            assertTrue(out.contains("RESULT rpc=" + rpc + " verified=" + 7 * 2_200), () -> out + client.report());
            assertEquals(7, Pattern.compile("^RESULT rpc=" + rpc + " size=", Pattern.MULTILINE).matcher(out)
                    .results().count(), out);
            if (rpc.equals("grpc")) {
                assertTrue(out.contains("RESULT rpc=grpc stream_MBps="), out);
            }
            server.closeStdin();
            server.awaitSuccess(TIMEOUT);
            assertAllShm(client, 1);
            assertAllShm(server, 1);
        }
    }

    private static void assertAllShm(ForkedJvm jvm, int atLeast) throws Exception {
        SoviaStats stats = SoviaStats.read(jvm.stats());
        assertTrue(stats.carried() >= atLeast, () -> "expected at least " + atLeast + " connections: " + stats.json());
        assertEquals(stats.carried(), stats.on("shm"), () -> "every connection belongs on shm: " + stats.json()
                + "\n" + jvm.report());
    }
}
