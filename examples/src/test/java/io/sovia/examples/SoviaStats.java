package io.sovia.examples;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The parts of the agent's {@code -Dsovia.stats} file that the tests check, read with two regular
 * expressions: the file is flat, {@code {"connections": {"jvm": n, "shm": n, "eth": n, "tcp": n},
 * "fallbacks": {"<reason>": n}, ...}}.
 */
record SoviaStats(Map<String, Long> connections, Map<String, Long> fallbacks, String json) {

    private static final Pattern COUNT = Pattern.compile("\"([^\"]+)\"\\s*:\\s*(\\d+)");

    static SoviaStats read(Path file) throws IOException {
        String json = Files.readString(file);
        return new SoviaStats(counts(json, "connections"), counts(json, "fallbacks"), json);
    }

    /** The {@code "name": n} pairs of the object {@code "key": {...}}; empty if there is none. */
    private static Map<String, Long> counts(String json, String key) {
        Map<String, Long> counts = new TreeMap<>();
        Matcher object = Pattern.compile("\"" + key + "\"\\s*:\\s*\\{([^}]*)}").matcher(json);
        if (object.find()) {
            Matcher count = COUNT.matcher(object.group(1));
            while (count.find()) {
                counts.put(count.group(1), Long.parseLong(count.group(2)));
            }
        }
        return counts;
    }

    /** Any other flat object of counts, such as {@code bytesSent}; empty if there is none. */
    Map<String, Long> section(String key) {
        return counts(json, key);
    }

    /** Connections on {@code path} ({@code jvm}, {@code shm}, {@code eth}, {@code tcp}); 0 if not listed. */
    long on(String path) {
        return connections.getOrDefault(path, 0L);
    }

    /** Connections Sovia carried, over any of its transports. */
    long carried() {
        return connections.entrySet().stream()
                .filter(e -> e.getKey().matches("jvm|shm|eth|tcp"))
                .mapToLong(Map.Entry::getValue)
                .sum();
    }
}
