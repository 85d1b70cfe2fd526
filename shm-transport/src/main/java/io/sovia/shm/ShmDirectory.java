package io.sovia.shm;

import io.sovia.spi.config.SoviaLog;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Set;

/**
 * The per-user directory under /dev/shm (0700) where this user's Sovia JVMs meet: a UNIX socket per
 * listener ({@code l-<port>-v<hello version>-<address>.sock}). Segments have no name here (see {@link ShmSegment}). Another
 * user's processes use their own directory, so they never find these and connect over TCP.
 */
final class ShmDirectory {
    static final Set<PosixFilePermission> DIRECTORY = EnumSet.of(PosixFilePermission.OWNER_READ,
            PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);
    static final Set<PosixFilePermission> FILE = EnumSet.of(PosixFilePermission.OWNER_READ,
            PosixFilePermission.OWNER_WRITE);
    private static final String ANY = "any";

    private final Path dir;

    ShmDirectory(Path root) throws IOException {
        int uid = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        this.dir = root.resolve("sovia-" + uid);
        if (!Files.isDirectory(dir)) {
            try {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(DIRECTORY));
            } catch (java.nio.file.FileAlreadyExistsException raced) {
                // another JVM of this user made it first
            }
        }
        int owner = (Integer) Files.getAttribute(dir, "unix:uid");
        if (owner != uid || !Files.getPosixFilePermissions(dir).equals(DIRECTORY)) {
            throw new IOException(dir + " is not a 0700 directory of uid " + uid + "; shared memory is off");
        }
    }

    Path path() {
        return dir;
    }

    /** The UNIX socket of a listener bound at {@code bound}. */
    Path listenerSocket(InetSocketAddress bound) {
        return listenerSocket(bound.getPort(), bound.getAddress());
    }

    private Path listenerSocket(int port, InetAddress address) {
        String host = address.isAnyLocalAddress() ? ANY : HexFormat.of().formatHex(address.getAddress());
        return dir.resolve(listenerPrefix(port) + host + ".sock");
    }

    /**
     * The start of a listener socket's name: the hello's version is part of it, so an agent of another version
     * finds no listener and connects over TCP instead of being refused.
     */
    private static String listenerPrefix(int port) {
        return "l-" + port + "-v" + ShmHello.VERSION + '-';
    }

    /** The socket of the listener that would take a connect to {@code remote}, or null if none. */
    Path listenerFor(InetSocketAddress remote) {
        Path exact = listenerSocket(remote.getPort(), remote.getAddress());
        if (Files.exists(exact)) {
            return exact;
        }
        Path any = dir.resolve(listenerPrefix(remote.getPort()) + ANY + ".sock");
        return Files.exists(any) ? any : null;
    }

    /**
     * Removes what dead processes left: listener sockets nobody accepts on. Never throws.
     */
    void removeLeftovers() {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                if (name.startsWith("l-") && !accepting(f)) {
                    Files.deleteIfExists(f);
                }
            }
        } catch (IOException | RuntimeException e) {
            SoviaLog.warn("cannot clean " + dir, e);
        }
    }

    /**
     * Whether a live listener owns {@code socket}: only a refused connect means a dead one. The probe
     * never blocks, since an idle listener's full queue would otherwise hang the caller.
     */
    static boolean accepting(Path socket) {
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            probe.configureBlocking(false);
            probe.connect(UnixDomainSocketAddress.of(socket));
            return true;
        } catch (java.net.ConnectException | java.nio.file.NoSuchFileException e) {
            return false;
        } catch (IOException e) {
            return !(e.getMessage() != null && e.getMessage().contains("No such file"));
        }
    }

}
