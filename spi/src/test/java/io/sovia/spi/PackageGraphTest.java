package io.sovia.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The packages of spi form no cycle, so each layer can be read, tested and replaced on its own (the
 * transport SPI above all: a transport depends on spi, never the other way). Read from the sources:
 * every reference to another spi package, imported or fully qualified.
 */
@Timeout(30)
class PackageGraphTest {
    private static final Path SOURCES = Path.of("src/main/java/io/sovia/spi");
    private static final Pattern REFERENCE = Pattern.compile("io\\.sovia\\.spi\\.([a-z]+)\\.[A-Z]");

    @Test
    void packagesFormNoCycle() throws IOException {
        Map<String, Set<String>> uses = graph();
        assertFalse(uses.isEmpty(), "no sources found under " + SOURCES.toAbsolutePath());
        List<String> cycle = new ArrayList<>();
        for (String start : uses.keySet()) {
            if (findCycle(uses, start, new ArrayList<>(), cycle)) {
                break;
            }
        }
        assertEquals(List.of(), cycle, "package cycle in " + uses);
    }

    private static Map<String, Set<String>> graph() throws IOException {
        Map<String, Set<String>> uses = new TreeMap<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".java"))::iterator) {
                String from = SOURCES.relativize(file.getParent()).toString().replace('/', '.');
                Set<String> targets = uses.computeIfAbsent(from, p -> new TreeSet<>());
                Matcher m = REFERENCE.matcher(Files.readString(file));
                while (m.find()) {
                    if (!m.group(1).equals(from)) {
                        targets.add(m.group(1));
                    }
                }
            }
        }
        return uses;
    }

    private static boolean findCycle(Map<String, Set<String>> uses, String at, List<String> trail, List<String> cycle) {
        int seen = trail.indexOf(at);
        if (seen >= 0) {
            cycle.addAll(trail.subList(seen, trail.size()));
            cycle.add(at);
            return true;
        }
        trail.add(at);
        for (String next : uses.getOrDefault(at, Set.of())) {
            if (findCycle(uses, next, trail, cycle)) {
                return true;
            }
        }
        trail.remove(trail.size() - 1);
        return false;
    }
}
