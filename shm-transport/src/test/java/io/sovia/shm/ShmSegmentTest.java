package io.sovia.shm;

import io.sovia.spi.jdk.JdkNio;
import io.sovia.spi.os.NativeAccess;
import io.sovia.spi.os.NativeOs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A segment crosses from client to server as a sealed memory file attached to the hello, and nothing a peer
 * hands over in its place is mapped: a file that can shrink (any plain file, an unsealed memfd) is refused
 * before the mapping, so no peer can make a mapped page vanish (SIGBUS).
 */
@Timeout(30)
class ShmSegmentTest {
    private final Path dir = Path.of(System.getProperty("java.io.tmpdir"), "sovia-segment-test-" + ProcessHandle.current().pid());

    @AfterEach
    void clean() throws IOException {
        if (Files.isDirectory(dir)) {
            try (var files = Files.list(dir)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    Files.delete(f);
                }
            }
            Files.delete(dir);
        }
    }

    @Test
    void aHelloCarriesItsSegmentAndTheServerMapsTheSameMemory() throws IOException {
        InetSocketAddress client = new InetSocketAddress(InetAddress.getLoopbackAddress(), 40123);
        try (ServerSocketChannel server = unixServer(); SocketChannel c = connect(server); SocketChannel s = server.accept();
             ShmSegment mine = ShmSegment.create(4096)) {
            assertTrue(new ShmHello(client, false).writeTo(c, mine));
            byte[] bytes = new byte[ShmHello.MAX_LENGTH];
            int[] fds = new int[1];
            int n = NativeAccess.os().receiveWithDescriptors(JdkNio.fd(s), bytes, 0, bytes.length, fds);
            assertEquals(client, ShmHello.parse(bytes, n).client());
            assertTrue(fds[0] >= 0, "no descriptor came with the hello");
            ShmSegment theirs = ShmSegment.open(fds[0]);
            io.sovia.spi.link.FrameRing out = mine.clientToServer();
            out.claim(8);
            out.commit();
            assertTrue(theirs.clientToServer().hasFrames(), "the server's mapping is not the client's memory");
        }
    }

    @Test
    void theCreatorCannotShrinkItsSegment() throws IOException {
        try (ShmSegment segment = ShmSegment.create(4096);
             FileChannel ch = FileChannel.open(Path.of("/proc/self/fd/" + segment.fd()), StandardOpenOption.WRITE)) {
            assertThrows(IOException.class, () -> ch.truncate(100));
        }
    }

    @Test
    void aSegmentThatCouldShrinkIsNeverMapped() throws IOException {
        NativeOs os = NativeAccess.os();
        Files.createDirectories(dir);
        Path plain = Files.write(dir.resolve("plain.seg"), new byte[ShmSegmentDescriptor.totalLength(4096)]);
        IOException e = assertThrows(IOException.class, () -> ShmSegment.open(os.openReadWrite(plain.toString())));
        assertTrue(e.getMessage().contains("F_GET_SEALS") || e.getMessage().contains("sealed"), e.getMessage());

        int unsealed = os.memfdCreate("unsealed");
        try (FileChannel ch = FileChannel.open(Path.of("/proc/self/fd/" + unsealed), StandardOpenOption.WRITE)) {
            ch.truncate(ShmSegmentDescriptor.totalLength(4096));
            ch.write(java.nio.ByteBuffer.allocate(ShmSegmentDescriptor.totalLength(4096)), 0);
        }
        e = assertThrows(IOException.class, () -> ShmSegment.open(unsealed));
        assertTrue(e.getMessage().contains("sealed"), e.getMessage());
    }

    @Test
    void aSecondDescriptorOrTooManyAreClosedAndRefused() throws IOException {
        NativeOs os = NativeAccess.os();
        try (ServerSocketChannel server = unixServer(); SocketChannel c = connect(server); SocketChannel s = server.accept();
             ShmSegment one = ShmSegment.create(4096); ShmSegment two = ShmSegment.create(4096)) {
            os.sendWithDescriptor(JdkNio.fd(c), new byte[] {1}, one.fd());
            os.sendWithDescriptor(JdkNio.fd(c), new byte[] {2}, two.fd());
            byte[] bytes = new byte[1];
            int[] fds = new int[1];
            assertEquals(1, os.receiveWithDescriptors(JdkNio.fd(s), bytes, 0, 1, fds));
            assertArrayEquals(new byte[] {1}, bytes);
            assertTrue(fds[0] >= 0);
            os.closeFd(fds[0]);
            assertEquals(1, os.receiveWithDescriptors(JdkNio.fd(s), bytes, 0, 1, fds));
            assertTrue(fds[0] >= 0);
            os.closeFd(fds[0]);
            assertEquals(0, os.receiveWithDescriptors(JdkNio.fd(s), bytes, 0, 1, fds), "nothing more is ready");
            c.close();
            assertEquals(-1, os.receiveWithDescriptors(JdkNio.fd(s), bytes, 0, 1, fds), "end of stream");
        }
    }

    /**
     * A peer that closes with our bytes unread resets the socket (a client exiting with doorbell bytes unread on a
     * kept socket): that is its end, as end of stream is, not a failure to count.
     */
    @Test
    void aResetByThePeerIsItsEnd() throws IOException {
        NativeOs os = NativeAccess.os();
        try (ServerSocketChannel server = unixServer(); SocketChannel c = connect(server); SocketChannel s = server.accept()) {
            s.configureBlocking(false);
            s.write(java.nio.ByteBuffer.wrap(new byte[] {1}));
            c.close();
            assertEquals(-1, os.receiveWithDescriptors(JdkNio.fd(s), new byte[1], 0, 1, new int[1]));
        }
    }

    private ServerSocketChannel unixServer() throws IOException {
        Files.createDirectories(dir);
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(dir.resolve("l.sock")));
        return server;
    }

    private static SocketChannel connect(ServerSocketChannel server) throws IOException {
        SocketChannel c = SocketChannel.open(server.getLocalAddress());
        c.configureBlocking(false);
        return c;
    }
}
