package io.sovia.spi.config;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

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
        for (String path : new String[] {"jvm", "shm", "eth", "tcp"}) {
            assertTrue(SoviaConfig.pathAllowed(path), path);
        }
        assertFalse(SoviaConfig.pathAllowed("rdma"));
    }

    @Test
    void aListAllowsItsPathsOnly() {
        System.setProperty(SoviaConfig.PATHS, " SHM ,tcp");
        assertTrue(SoviaConfig.pathAllowed("shm"));
        assertTrue(SoviaConfig.pathAllowed("tcp"));
        assertFalse(SoviaConfig.pathAllowed("jvm"));
        assertFalse(SoviaConfig.pathAllowed("sh"));
        assertFalse(SoviaConfig.pathAllowed(""));
    }

    @Test
    void emptyEntriesAreSkippedAndAnEmptyListAllowsNothing() {
        System.setProperty(SoviaConfig.PATHS, "jvm,,eth,");
        assertTrue(SoviaConfig.pathAllowed("jvm"));
        assertTrue(SoviaConfig.pathAllowed("eth"));
        assertFalse(SoviaConfig.pathAllowed("shm"));
        System.setProperty(SoviaConfig.PATHS, "");
        assertFalse(SoviaConfig.pathAllowed("tcp"));
    }
}
