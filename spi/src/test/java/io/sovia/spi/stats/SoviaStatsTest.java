package io.sovia.spi.stats;

import io.sovia.spi.transport.PathKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(10)
class SoviaStatsTest {
    private static long field(String json, String section, String key) {
        Matcher m = Pattern.compile("\"" + section + "\": \\{[^}]*\"" + Pattern.quote(key) + "\": (\\d+)").matcher(json);
        assertTrue(m.find(), () -> section + "." + key + " missing in " + json);
        return Long.parseLong(m.group(1));
    }

    @Test
    void countsAppearInTheJsonPerPathAndReason() {
        String before = SoviaStats.toJson();
        long tcp = field(before, "connections", "tcp");
        SoviaStats.connection(PathKind.TCP);
        SoviaStats.connection(PathKind.TCP);
        SoviaStats.fallback("weird \"reason\"");
        SoviaStats.sent(PathKind.TCP, 100);
        SoviaStats.received(PathKind.TCP, -1);
        String after = SoviaStats.toJson();

        assertEquals(tcp + 2, field(after, "connections", "tcp"));
        for (String path : new String[] {"jvm", "shm", "eth"}) {
            assertEquals(field(before, "connections", path), field(after, "connections", path));
        }
        assertEquals(1, field(after, "fallbacks", "weird \\\"reason\\\""));
        assertEquals(field(before, "bytesSent", "tcp") + 100, field(after, "bytesSent", "tcp"));
        assertEquals(field(before, "bytesReceived", "tcp"), field(after, "bytesReceived", "tcp"), "EOF is not a byte");
    }

    /** A session's bytes count in its path's while it lasts, read from it, and stay counted once it ended. */
    @Test
    void aConnectionsOwnCountsAreReadWhileItLastsAndKeptOnceItEnded() {
        long sent = SoviaStats.bytesSent(PathKind.JVM);
        long received = SoviaStats.bytesReceived(PathKind.JVM);
        long[] counts = new long[2];
        SoviaStats.OwnCounts session = new SoviaStats.OwnCounts() {
            @Override
            public PathKind path() {
                return PathKind.JVM;
            }

            @Override
            public long bytesWritten() {
                return counts[0];
            }

            @Override
            public long bytesRead() {
                return counts[1];
            }
        };
        SoviaStats.counting(session);
        counts[0] = 64;
        counts[1] = 5;
        assertEquals(sent + 64, SoviaStats.bytesSent(PathKind.JVM));
        assertEquals(received + 5, SoviaStats.bytesReceived(PathKind.JVM));
        counts[0] = 128;
        assertEquals(sent + 128, field(SoviaStats.toJson(), "bytesSent", "jvm"));
        assertEquals(field(SoviaStats.toJson(), "bytesSent", "shm"), SoviaStats.bytesSent(PathKind.SHM), "other paths");
        SoviaStats.ended(session);
        SoviaStats.ended(session);
        counts[0] = 1_000;
        assertEquals(sent + 128, SoviaStats.bytesSent(PathKind.JVM), "counted once, as it was when it ended");
        assertEquals(received + 5, SoviaStats.bytesReceived(PathKind.JVM));
    }

    @Test
    void writerReplacesTheFileWhole(@TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path file = dir.resolve("stats.json");
        Files.writeString(file, "old content that is longer than nothing");
        StatsFileWriter.write(file);
        String json = Files.readString(file);
        assertTrue(json.startsWith("{\"connections\": {\"jvm\": "), json);
        assertTrue(json.endsWith("}\n"), json);
        try (var entries = Files.list(dir)) {
            assertEquals(1, entries.count(), "no temp file left behind");
        }
    }
}
