package io.sovia.spi.config;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code sovia.paths}: a comma-separated list, blanks and case ignored, read at each call. */
@Timeout(10)
class PathAllowedTest {
    @AfterEach
    void clear() {
        System.clearProperty(SoviaConfig.PATHS);
    }

    @Test
    void everyPathIsAllowedByDefault() {
        assertPaths(null, List.of("jvm", "shm", "eth", "tcp"), List.of("rdma"));
    }

    @Test
    void aListAllowsItsPathsOnly() {
        assertPaths(" SHM ,tcp", List.of("shm", "tcp"), List.of("jvm", "sh", ""));
    }

    @Test
    void emptyEntriesNameNoPathAndAnEmptyListAllowsNone() {
        assertPaths("jvm,,eth,", List.of("jvm", "eth"), List.of("shm"));
        assertPaths("", List.of(), List.of("tcp"));
    }

    /** With {@code sovia.paths} at {@code paths} (null: unset), {@code allowed} are allowed, {@code refused} not. */
    private static void assertPaths(String paths, List<String> allowed, List<String> refused) {
        if (paths == null) {
            System.clearProperty(SoviaConfig.PATHS);
        } else {
            System.setProperty(SoviaConfig.PATHS, paths);
        }
        String setting = "sovia.paths=" + paths;
        allowed.forEach(path -> assertTrue(SoviaConfig.pathAllowed(path), setting + " allows " + path));
        refused.forEach(path -> assertFalse(SoviaConfig.pathAllowed(path), setting + " refuses " + path));
    }
}
