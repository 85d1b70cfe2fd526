package io.sovia.spi.ops;

import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.engine.SessionActivity;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The live entries of this user's JVMs: one file per JVM, {@code ss-<pid>.tsv} in the per-user directory
 * ({@code <sovia.shm.root>/sovia-<uid>}, 0700), written by {@link LivePublisher} and read by {@code sovia ss} and
 * {@code sovia doctor}. Tab-separated lines, not JSON: the file is private to the writer and reader in this
 * class, which needs no parser; {@code ss --json} is the stable form for scripts.
 *
 * <p>A file whose process is gone (killed, so its exit step never ran), or whose pid now names a process that
 * started after it was written, is removed by the next reader.
 */
public final class LiveFile {
    /** The first line; a file of another format version is skipped, its own ss reads it. */
    static final String HEADER = "sovia-live 1";
    private static final String PREFIX = "ss-";
    private static final String SUFFIX = ".tsv";
    /** A file being written: {@code .ss-PID-RANDOM.tmp}, renamed to the real one when complete. */
    private static final String TEMP_PREFIX = ".ss-";
    private static final String TEMP_SUFFIX = ".tmp";
    private static final String NONE = "-";
    private static final int FIELDS = 10;
    /**
     * How much earlier than a process's start its file may seem written and still be its own: the JDK derives the
     * start from the boot time, which the kernel gives in whole seconds and moves when the clock is set.
     */
    private static final Duration START_SKEW = Duration.ofSeconds(5);
    private static final Set<PosixFilePermission> OWNER_ONLY = EnumSet.of(PosixFilePermission.OWNER_READ,
            PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);

    private LiveFile() {
    }

    /** This user's directory under {@code sovia.shm.root}, the one the shm path also keeps its sockets in. */
    public static Path directory() throws IOException {
        return Path.of(SoviaConfig.shmRoot()).resolve("sovia-" + uid());
    }

    private static int uid() throws IOException {
        return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    }

    /** {@code host:port}, IPv6 hosts in brackets; {@code -} for none. */
    static String address(InetSocketAddress a) {
        if (a == null) {
            return NONE;
        }
        String host = a.getAddress() == null ? a.getHostString() : a.getAddress().getHostAddress();
        return (a.getAddress() instanceof Inet6Address ? "[" + host + "]" : host) + ":" + a.getPort();
    }

    /** This JVM's entries as the file's text. */
    static String format() {
        StringBuilder sb = new StringBuilder(256).append(HEADER).append('\n');
        for (LiveRegistry.Listener l : LiveRegistry.listeners()) {
            String paths = l.paths.stream().map(p -> p.key()).collect(Collectors.joining(","));
            line(sb, "L", paths, address(l.bound), NONE, "listen", 0, 0, 0, 0, l.sinceMillis);
        }
        for (LiveRegistry.Connection c : LiveRegistry.connections()) {
            SessionActivity a = c.session.activity();
            line(sb, "C", c.path.key(), address(c.local), address(c.remote), c.state(a), a.sent(), a.received(),
                    a.sendQueue(), a.recvQueue(), c.sinceMillis);
        }
        return sb.toString();
    }

    private static void line(StringBuilder sb, String kind, String path, String local, String remote, String state,
                             long sent, long received, long sendQueue, long recvQueue, long since) {
        sb.append(kind).append('\t').append(path).append('\t').append(local).append('\t').append(remote)
                .append('\t').append(state).append('\t').append(sent).append('\t').append(received).append('\t')
                .append(sendQueue).append('\t').append(recvQueue).append('\t').append(since).append('\n');
    }

    /** The file of process {@code pid}. */
    static Path of(Path dir, long pid) {
        return dir.resolve(PREFIX + pid + SUFFIX);
    }

    /** Writes {@code text} as {@code pid}'s file, atomically, so a reader never sees half of it. */
    static void write(Path dir, long pid, String text) throws IOException {
        ensureOwnDirectory(dir);
        Path tmp = tempFile(dir, pid);
        try {
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            Files.move(tmp, of(dir, pid), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** A new file for {@code pid} to write before renaming it; one a killed writer left is removed as stale. */
    static Path tempFile(Path dir, long pid) throws IOException {
        return Files.createTempFile(dir, TEMP_PREFIX + pid + "-", TEMP_SUFFIX);
    }

    /**
     * Makes the directory if it is missing; refuses one that is not this user's alone (made by someone else before
     * this user's first JVM), which would show this user's connections to others. The shm path refuses it too.
     */
    private static void ensureOwnDirectory(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            try {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            } catch (java.nio.file.FileAlreadyExistsException raced) {
                // another JVM of this user made it first
            }
        }
        int uid = uid();
        int owner = (Integer) Files.getAttribute(dir, "unix:uid");
        if (owner != uid || !Files.getPosixFilePermissions(dir).equals(OWNER_ONLY)) {
            throw new IOException(dir + " is not a 0700 directory of uid " + uid);
        }
    }

    /**
     * The entries of every live JVM of this user, or only of {@code pid} when it is not null, ordered by pid;
     * removes the files of processes that are gone. A missing directory means none.
     */
    public static List<LiveEntry> read(Path dir, Long pid) throws IOException {
        List<LiveEntry> entries = new ArrayList<>();
        forEachLive(dir, (owner, file) -> {
            if (pid == null || owner == pid) {
                parse(owner, file, entries);
            }
        });
        entries.sort(Comparator.comparingLong(LiveEntry::pid));
        return entries;
    }

    /** Removes the files of processes that are gone. A missing directory has none. */
    public static void removeStale(Path dir) throws IOException {
        forEachLive(dir, (owner, file) -> { });
    }

    /** What {@link #forEachLive} hands each file of a live process. */
    private interface LiveFileAction {
        void accept(long pid, Path file) throws IOException;
    }

    /**
     * Runs {@code action} on each file of a live process; removes the files of processes that are gone, and the
     * files they were writing when killed.
     */
    private static void forEachLive(Path dir, LiveFileAction action) throws IOException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        String glob = "{" + PREFIX + "*" + SUFFIX + "," + TEMP_PREFIX + "*" + TEMP_SUFFIX + "}";
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, glob)) {
            for (Path file : files) {
                String name = file.getFileName().toString();
                boolean temp = name.startsWith(TEMP_PREFIX);
                int end = temp ? name.indexOf('-', TEMP_PREFIX.length()) : name.length() - SUFFIX.length();
                long owner;
                try {
                    owner = Long.parseLong(name.substring(temp ? TEMP_PREFIX.length() : PREFIX.length(), end));
                } catch (NumberFormatException | IndexOutOfBoundsException notOurs) {
                    continue;
                }
                if (!writtenByLiveProcess(owner, file)) {
                    Files.deleteIfExists(file);
                } else if (!temp) {
                    action.accept(owner, file);
                }
            }
        }
    }

    /**
     * Whether process {@code pid} lives and wrote {@code file}: a pid the kernel gave again after the writer died
     * belongs to a process that started after the file's last write (by more than {@link #START_SKEW}).
     */
    private static boolean writtenByLiveProcess(long pid, Path file) throws IOException {
        Optional<ProcessHandle> process = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
        if (process.isEmpty()) {
            return false;
        }
        Optional<Instant> started = process.get().info().startInstant();
        try {
            return started.isEmpty()
                    || !Files.getLastModifiedTime(file).toInstant().isBefore(started.get().minus(START_SKEW));
        } catch (NoSuchFileException exited) {
            return false;
        }
    }

    private static void parse(long pid, Path file, List<LiveEntry> into) throws IOException {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException exited) {
            return;
        }
        if (lines.isEmpty() || !lines.get(0).equals(HEADER)) {
            return; // another version's file: its own ss reads it
        }
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split("\t");
            if (f.length != FIELDS) {
                continue;
            }
            try {
                into.add(new LiveEntry(pid, f[0].equals("L"), f[1], f[2], f[3], f[4], Long.parseLong(f[5]),
                        Long.parseLong(f[6]), Long.parseLong(f[7]), Long.parseLong(f[8]), Long.parseLong(f[9])));
            } catch (NumberFormatException damaged) {
                // a line no writer of this version makes: skip it rather than the whole listing
            }
        }
    }

    /** Removes {@code pid}'s file. */
    static void remove(Path dir, long pid) throws IOException {
        Files.deleteIfExists(of(dir, pid));
    }
}
