package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sovia.spi.transport.PathKind;
import io.sovia.spi.stats.SoviaStats;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import org.junit.jupiter.api.BeforeAll;

/**
 * Base of every conformance test. It fails the class up front unless Sovia's implementations are installed, so a
 * scenario can never pass on the plain JDK because the agent was missing. {@code -Dsovia.it.plain=true} skips the
 * check, to run the scenarios on the plain JDK and so check the scenarios themselves.
 */
public abstract class SoviaTestBase {

    /** True when the suite deliberately runs without Sovia. */
    private static final boolean PLAIN = Boolean.getBoolean("sovia.it.plain");

    @BeforeAll
    static void requireSovia() throws IOException {
        if (PLAIN) {
            return;
        }
        assertSovia("SelectorProvider.provider()", SelectorProvider.provider());
        assertJavaNetCounted();
        try (Selector selector = Selector.open();
                SocketChannel channel = SocketChannel.open();
                ServerSocketChannel server = ServerSocketChannel.open()) {
            assertSovia("Selector.open()", selector);
            assertSovia("SocketChannel.open()", channel);
            assertSovia("SocketChannel.open().socket()", channel.socket());
            assertSovia("ServerSocketChannel.open()", server);
            assertSovia("ServerSocketChannel.open().socket()", server.socket());
        }
    }

    /** java.net.Socket's impl is private, but Sovia's impl counts each connect and accept in its stats. */
    private static void assertJavaNetCounted() throws IOException {
        long before = carried();
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                Socket client = new Socket(server.getInetAddress(), server.getLocalPort());
                Socket accepted = server.accept()) {
            assertEquals(before + 2, carried(),
                    "java.net connect and accept must go through Sovia's SocketImpl, which counts them");
        }
    }

    /** Connections Sovia counted on any path. */
    private static long carried() {
        long total = 0;
        for (PathKind path : PathKind.values()) {
            total += SoviaStats.connections(path);
        }
        return total;
    }

    private static void assertSovia(String what, Object actual) {
        String type = actual.getClass().getName();
        assertTrue(type.startsWith("io.sovia."), () -> what + " is " + type
                + ", not Sovia's: attach -javaagent:sovia.jar, or pass -Dsovia.it.plain=true to test the plain JDK");
    }
}
