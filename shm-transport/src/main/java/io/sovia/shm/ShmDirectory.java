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
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

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

    /** {@link #directoryStamp()} when the directory changed too recently for what was found in it to be kept. */
    private static final long UNSETTLED = Long.MIN_VALUE;
    private static final long SETTLED_NANOS = 50_000_000L;
    private static final int MAX_FOUND = 1024;

    private final Path dir;
    /**
     * What {@link #listenerFor} found at each socket path (null: no socket) and under which directory stamp: while the
     * directory is unchanged, a lookup costs one {@code stat} of the directory instead of one per path, and a path
     * that is not there (the exact address, for a listener bound to the wildcard one) no exception. Each connect
     * looks twice (the route, then the offer). Any thread; a stale entry only ever meets a newer stamp.
     */
    private final Map<Path, Found> found = new ConcurrentHashMap<>();

    private record Found(long stamp, ListenerSocket socket) {
    }

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

    /**
     * A listener's UNIX socket as found now: its path, and which file it is. A listener that closes and another that
     * binds the same address make two files at one path; a connection kept for the first ({@link ShmChannelPool})
     * must not be offered to the second, whose accept would find no hello for it.
     *
     * @param file the file's key and modification time (the bind), equal only for the same socket file
     */
    record ListenerSocket(Path path, java.util.List<Object> file) {
    }

    /** The socket of the listener that would take a connect to {@code remote}, or null if none. */
    ListenerSocket listenerFor(InetSocketAddress remote) {
        long stamp = directoryStamp();
        ListenerSocket exact = socketAt(listenerSocket(remote.getPort(), remote.getAddress()), stamp);
        return exact != null ? exact
                : socketAt(dir.resolve(listenerPrefix(remote.getPort()) + ANY + ".sock"), stamp);
    }

    /** What was found at {@code path} under the directory's modification time {@code stamp}, found again if unknown. */
    private ListenerSocket socketAt(Path path, long stamp) {
        Found known = found.get(path);
        if (known != null && known.stamp() == stamp && stamp != UNSETTLED) {
            return known.socket();
        }
        ListenerSocket socket = socketAt(path);
        if (stamp != UNSETTLED) {
            if (found.size() >= MAX_FOUND) {
                found.clear(); // an app that connects to ever new ports: what it found long ago is stale anyway
            }
            found.put(path, new Found(stamp, socket));
        }
        return socket;
    }

    /**
     * The directory's modification time, or {@link #UNSETTLED} when it changed too recently to be trusted: the kernel
     * stamps a change with a clock that ticks every few milliseconds, so a second change within the tick of the first
     * would leave the stamp as it was. Once the stamp is {@link #SETTLED_NANOS} old, any later change moves it.
     */
    private long directoryStamp() {
        try {
            long modified = Files.getLastModifiedTime(dir).to(TimeUnit.NANOSECONDS);
            Instant now = Instant.now();
            long nowNanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
            return nowNanos - modified > SETTLED_NANOS ? modified : UNSETTLED;
        } catch (IOException e) {
            return UNSETTLED;
        }
    }

    private static ListenerSocket socketAt(Path path) {
        try {
            BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class);
            return new ListenerSocket(path, java.util.List.of(a.fileKey(), a.lastModifiedTime()));
        } catch (IOException absent) {
            return null;
        }
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
