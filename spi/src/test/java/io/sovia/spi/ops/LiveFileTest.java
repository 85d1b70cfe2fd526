package io.sovia.spi.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * The live files between a JVM and {@code sovia ss}: what a reader takes from them, the files of dead processes it
 * removes (also a reused pid's), the lines it skips, and the directory a writer refuses.
 */
@Timeout(30)
class LiveFileTest {
    private static final long SELF = ProcessHandle.current().pid();

    @TempDir
    Path root;

    private Path ownDirectory() throws IOException {
        return Files.createDirectory(root.resolve("sovia-test"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }

    @Test
    void readsTheEntriesOfLiveProcessesAndRemovesTheFilesOfDeadOnes() throws IOException {
        Path dir = ownDirectory();
        LiveFile.write(dir, SELF, LiveFile.HEADER + "\n"
                + "L\tjvm,shm\t127.0.0.1:5000\t-\tlisten\t0\t0\t0\t0\t1000\n"
                + "C\tshm\t127.0.0.1:5000\t127.0.0.1:40000\testablished\t5\t7\t1\t2\t2000\n"
                + "C\tshm\tdamaged\n");
        long dead = deadPid();
        LiveFile.write(dir, dead, LiveFile.HEADER);

        try (var files = Files.list(dir)) {
            assertEquals(2, files.count(), "a temporary file was left");
        }
        List<LiveEntry> entries = LiveFile.read(dir, null);
        assertEquals(List.of(
                new LiveEntry(SELF, true, "jvm,shm", "127.0.0.1:5000", "-", "listen", 0, 0, 0, 0, 1000),
                new LiveEntry(SELF, false, "shm", "127.0.0.1:5000", "127.0.0.1:40000", "established", 5, 7, 1, 2, 2000)),
                entries);
        assertFalse(Files.exists(LiveFile.of(dir, dead)), "a dead process's file stays");
        // as if a process before this one had this pid, and died without removing its file
        Files.setLastModifiedTime(LiveFile.of(dir, SELF), FileTime.from(
                ProcessHandle.current().info().startInstant().orElseThrow().minusSeconds(60)));
        assertEquals(List.of(), LiveFile.read(dir, null));
        assertFalse(Files.exists(LiveFile.of(dir, SELF)), "the file of a reused pid stays");
        assertEquals(List.of(), LiveFile.read(dir, SELF + 1));
        assertEquals(List.of(), LiveFile.read(root.resolve("missing"), null));
    }

    @Test
    void removesTheFilesKilledProcessesLeftAndKeepsTheLiving() throws IOException {
        Path dir = ownDirectory();
        LiveFile.write(dir, SELF, LiveFile.HEADER);
        LiveFile.write(dir, deadPid(), LiveFile.HEADER);
        LiveFile.removeStale(dir);
        assertTrue(Files.exists(LiveFile.of(dir, SELF)), "a live process's file went");
        assertFalse(Files.exists(LiveFile.of(dir, deadPid())), "a dead process's file stays");
        LiveFile.removeStale(root.resolve("missing"));
    }

    /** A JVM killed between writing its file and renaming it left the half-written file behind. */
    @Test
    void removesTheFilesKilledWritersLeftHalfWrittenAndKeepsTheLiving() throws IOException {
        Path dir = ownDirectory();
        Path mine = LiveFile.tempFile(dir, SELF);
        Path killed = LiveFile.tempFile(dir, deadPid());
        LiveFile.removeStale(dir);
        assertTrue(Files.exists(mine), "a live writer's file went");
        assertFalse(Files.exists(killed), "a killed writer's file stays");
        assertEquals(List.of(), LiveFile.read(dir, null), "a file being written was read");
    }

    @Test
    void refusesToWriteIntoADirectoryOthersMayRead() throws IOException {
        Path open = Files.createDirectory(root.resolve("sovia-open"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        assertThrows(IOException.class, () -> LiveFile.write(open, SELF, LiveFile.HEADER));
        Path made = root.resolve("sovia-new");
        LiveFile.write(made, SELF, LiveFile.HEADER);
        assertTrue(Files.getPosixFilePermissions(made).equals(PosixFilePermissions.fromString("rwx------")));
    }

    /** A pid no process has: past the kernel's largest (pid_max is at most 2^22). */
    private static long deadPid() {
        return (1L << 22) + 1;
    }
}
