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
