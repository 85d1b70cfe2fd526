package io.sovia.shm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The owner of a local connection's client socket, found in /proc, on real sockets: this process holds the one it
 * opened, another process does not, and once closed nobody does.
 */
@Timeout(30)
class TcpSocketOwnersTest {
    private static final int SELF = (int) ProcessHandle.current().pid();

    @Test
    void findsTheProcessHoldingTheClientEndOfALoopbackConnection() throws Exception {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        try (ServerSocket server = new ServerSocket(0, 50, loopback)) {
            Socket client = new Socket(loopback, server.getLocalPort());
            try (Socket accepted = server.accept()) {
                InetSocketAddress from = (InetSocketAddress) accepted.getRemoteSocketAddress();
                long inode = TcpSocketOwners.clientSocket(from, server.getLocalPort());
                assertNotEquals(0, inode, "the client end of " + from);
                assertTrue(TcpSocketOwners.holds(SELF, inode));
                Process other = new ProcessBuilder("sleep", "20").start();
                try {
                    assertFalse(TcpSocketOwners.holds((int) other.pid(), inode));
                } finally {
                    other.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
                client.close();
                assertEquals(0, TcpSocketOwners.clientSocket(from, server.getLocalPort()), "closed: held by nobody");
            }
        }
    }

    @Test
    void aProcessThatIsGoneHoldsNothing() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor(10, TimeUnit.SECONDS);
        assertFalse(TcpSocketOwners.holds((int) gone.pid(), 1));
    }

    @Test
    void readsTheTablesAddressesInTheKernelsByteOrder() throws Exception {
        assumeTrue(ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN, "the figures are those of a little-endian kernel");
        assertEquals(InetAddress.getByName("127.0.0.1"), TcpSocketOwners.address("0100007F:1F90"));
        assertEquals(InetAddress.getByName("10.1.2.3"), TcpSocketOwners.address("0302010A:0050"));
        assertEquals(InetAddress.getByName("::1"), TcpSocketOwners.address("00000000000000000000000001000000:0050"));
        assertEquals(InetAddress.getByName("127.0.0.1"),
                TcpSocketOwners.address("0000000000000000FFFF00000100007F:0050"), "IPv4-mapped, as the accept says");
    }
}
