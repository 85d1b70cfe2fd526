package io.sovia.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A connect finds the listener socket that is in the directory now, although lookups keep what they found while the
 * directory is unchanged: one that appeared, vanished or was replaced since the last lookup, however long the
 * directory had been unchanged before, is seen at the next lookup; an exact address wins over the wildcard.
 */
class ShmDirectoryTest {
    /** Longer than the time after a change during which the directory's stamp is not trusted. */
    private static final long SETTLE_MILLIS = 120;
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @TempDir
    Path root;

    @Test
    @Timeout(20)
    void listenersThatComeAndGoAreSeenAtTheNextLookup() throws Exception {
        ShmDirectory directory = new ShmDirectory(root);
        InetSocketAddress remote = new InetSocketAddress(LOOPBACK, 40123);
        Path wildcard = directory.listenerSocket(new InetSocketAddress(40123));
        Path exact = directory.listenerSocket(remote);
        Thread.sleep(SETTLE_MILLIS);
        assertNull(directory.listenerFor(remote), "nothing listens yet");
        assertNull(directory.listenerFor(remote), "nothing listens yet, asked again");

        try (ServerSocketChannel any = listen(wildcard)) {
            assertEquals(wildcard, found(directory, remote), "a wildcard listener that appeared");
            Thread.sleep(SETTLE_MILLIS);
            ShmDirectory.ListenerSocket first = directory.listenerFor(remote);
            assertEquals(first, directory.listenerFor(remote), "the same listener while nothing changed");

            try (ServerSocketChannel specific = listen(exact)) {
                assertEquals(exact, found(directory, remote), "the exact address wins once it listens");
                Thread.sleep(SETTLE_MILLIS);
                assertEquals(exact, found(directory, remote), "and still after the directory settled");
            }
            Files.delete(exact);
            assertEquals(wildcard, found(directory, remote), "the wildcard again once the exact one is gone");
        }
        Files.delete(wildcard);
        assertNull(directory.listenerFor(remote), "a listener that went is not found");

        Thread.sleep(SETTLE_MILLIS);
        ShmDirectory.ListenerSocket before;
        try (ServerSocketChannel any = listen(wildcard)) {
            before = directory.listenerFor(remote);
            Thread.sleep(SETTLE_MILLIS);
        }
        Files.delete(wildcard);
        try (ServerSocketChannel again = listen(wildcard)) {
            ShmDirectory.ListenerSocket after = directory.listenerFor(remote);
            assertEquals(wildcard, after.path());
            assertNotEquals(before, after, "a listener bound again at the same path is another listener");
        }
        Files.delete(wildcard);
    }

    private static Path found(ShmDirectory directory, InetSocketAddress remote) {
        ShmDirectory.ListenerSocket socket = directory.listenerFor(remote);
        return socket == null ? null : socket.path();
    }

    private static ServerSocketChannel listen(Path path) throws Exception {
        ServerSocketChannel channel = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        channel.bind(UnixDomainSocketAddress.of(path));
        return channel;
    }
}
