package io.sovia.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.stream.Stream;

/**
 * What the shared-memory tests check again and again: which path a JVM's connections took (its
 * statistics file), and which files of given processes and listeners are in this user's
 * {@code /dev/shm/sovia-<uid>/} directory.
 */
final class ShmChecks {
    /** The directory of this user's Sovia JVMs (the shm transport's default root is /dev/shm). */
    static final Path DIR = Path.of("/dev/shm", "sovia-" + uid());

    private ShmChecks() {
    }

    static int uid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException e) {
            throw new IllegalStateException("no /proc/self: not Linux?", e);
        }
    }

    /** Reads the statistics the agent wrote at the JVM's exit, which must exist. */
    static SoviaStats stats(ForkedJvm jvm) throws IOException {
        assertTrue(jvm.stats() != null && Files.isRegularFile(jvm.stats()),
                () -> "no statistics file " + jvm.stats() + "\n" + jvm.report());
        SoviaStats stats = SoviaStats.read(jvm.stats());
        System.out.println(jvm.stats().getFileName() + ": connections " + stats.connections()
                + ", fallbacks " + stats.fallbacks() + ", bytesSent " + stats.section("bytesSent")
                + ", bytesReceived " + stats.section("bytesReceived"));
        return stats;
    }

    /** Exactly {@code connections} connections, every one on {@code path}. */
    static SoviaStats assertAllOn(String path, ForkedJvm jvm, long connections) throws IOException {
        SoviaStats stats = stats(jvm);
        assertEquals(connections, stats.on(path), () -> "expected " + connections + " connections on " + path
                + ": " + stats.json() + "\n" + jvm.report());
        assertEquals(connections, stats.carried(), () -> "expected every connection on " + path + ": "
                + stats.json() + "\n" + jvm.report());
        return stats;
    }

    /**
     * The files in {@link #DIR} that belong to these processes (segments {@code s-<pid>-*.seg}, which agents
     * before sealed memory files made) or
     * listener ports (sockets {@code l-<port>-*.sock}).
     */
    static List<String> filesOf(Collection<Long> pids, Collection<Integer> ports) throws IOException {
        if (!Files.isDirectory(DIR)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(DIR)) {
            return files.map(f -> f.getFileName().toString())
                    .filter(name -> pids.stream().anyMatch(pid -> name.startsWith("s-" + pid + "-"))
                            || ports.stream().anyMatch(port -> name.startsWith("l-" + port + "-")))
                    .sorted()
                    .toList();
        }
    }

    /** Deletes what {@link #filesOf} finds, so a failed check leaves nothing behind either. */
    static void removeFilesOf(Collection<Long> pids, Collection<Integer> ports) throws IOException {
        for (String name : filesOf(pids, ports)) {
            Files.deleteIfExists(DIR.resolve(name));
        }
    }

    /** The listener socket(s) of {@code port}, to show the shm path was offered at all. */
    static List<Path> listenerSockets(int port) throws IOException {
        return listenerSockets(DIR, port);
    }

    /** The same in the user directory {@code dir} (for tests that give the JVMs a root of their own). */
    static List<Path> listenerSockets(Path dir, int port) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().startsWith("l-" + port + "-")).toList();
        }
    }
}
