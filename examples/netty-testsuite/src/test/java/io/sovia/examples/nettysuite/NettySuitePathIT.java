package io.sovia.examples.nettysuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Runs after Netty's testsuite ran under the agent with {@code sovia.paths=jvm,tcp} and with
 * {@code shm,tcp}: checks from each run's stats file that its connections really took that path, and
 * writes {@code target/nts/summary.txt} (also printed): per run the test counts, per class and per
 * permutation, the agent's connection counts, and every test that failed under the agent.
 */
class NettySuitePathIT {

    static final Path DIR = Path.of(System.getProperty("nts.dir", "target/nts"));
    static final List<String> RUNS = List.of("plain", "jvm", "shm");
    private static final Pattern COUNT = Pattern.compile("\"([^\"]+)\"\\s*:\\s*(\\d+)");

    /** One line of {@code tests.tsv}. */
    record Row(String status, String className, String test, List<String> permutations, String failure) {
        static Row parse(String line) {
            String[] f = line.split("\t", -1);
            List<String> permutations = f[3].isEmpty() ? List.of() : List.of(f[3].split(","));
            return new Row(f[0], f[1], f[2], permutations, f.length > 4 ? f[4] : "");
        }

        String key() {
            return className + "." + test;
        }

        boolean failed() {
            return status.equals("FAILED");
        }

        boolean skipped() {
            return status.equals("ABORTED") || status.equals("SKIPPED");
        }
    }

    @BeforeAll
    static void summarize() throws IOException {
        StringBuilder out = new StringBuilder();
        Map<String, List<Row>> rows = new LinkedHashMap<>();
        for (String run : RUNS) {
            Path tsv = DIR.resolve(run).resolve("tests.tsv");
            Path summary = DIR.resolve(run).resolve("summary.xml");
            if (!Files.exists(summary)) {
                continue;
            }
            List<Row> list = new ArrayList<>();
            if (Files.exists(tsv)) {
                for (String line : Files.readAllLines(tsv)) {
                    list.add(Row.parse(line));
                }
            }
            rows.put(run, list);
            String xml = Files.readString(summary);
            out.append(String.format("%-6s tests %s, failures %s, errors %s, skipped %s%s%n", run,
                    tag(xml, "completed"), tag(xml, "failures"), tag(xml, "errors"), tag(xml, "skipped"),
                    "true".equals(attr(xml, "timeout")) ? "  (TIMED OUT: fork killed)" : ""));
            Path stats = DIR.resolve(run).resolve("stats.json");
            if (Files.exists(stats)) {
                String json = Files.readString(stats);
                out.append("       agent connections ").append(counts(json, "connections"))
                        .append(" fallbacks ").append(counts(json, "fallbacks"))
                        .append(" engine ").append(counts(json, "engine")).append('\n');
            } else if (!run.equals("plain")) {
                out.append("       agent stats file missing: ").append(stats).append('\n');
            }
        }
        out.append('\n').append(perClass(rows)).append('\n').append(perPermutation(rows)).append('\n');
        out.append(failures(rows));
        Files.createDirectories(DIR);
        Files.writeString(DIR.resolve("summary.txt"), out);
        System.out.print(out);
    }

    /** pass/fail/skip per test class, one column per run. */
    private static String perClass(Map<String, List<Row>> rows) {
        Set<String> classes = new TreeSet<>();
        rows.values().forEach(l -> l.forEach(r -> classes.add(r.className())));
        StringBuilder out = new StringBuilder(String.format("%-40s", "class (pass/fail/skip)"));
        rows.keySet().forEach(run -> out.append(String.format("%14s", run)));
        out.append('\n');
        for (String c : classes) {
            out.append(String.format("%-40s", c));
            for (List<Row> list : rows.values()) {
                int[] n = new int[3];
                list.stream().filter(r -> r.className().equals(c))
                        .forEach(r -> n[r.failed() ? 1 : r.skipped() ? 2 : 0]++);
                out.append(String.format("%14s", n[0] + "/" + n[1] + "/" + n[2]));
            }
            out.append('\n');
        }
        return out.toString();
    }

    /**
     * Permutation runs (server+client channels, all allocators) per run: passed/failed. A failed test
     * failed on the last permutation it started; Netty does not start the ones after it (not counted).
     */
    private static String perPermutation(Map<String, List<Row>> rows) {
        Map<String, Map<String, int[]>> table = new TreeMap<>();
        rows.forEach((run, list) -> {
            for (Row r : list) {
                for (int i = 0; i < r.permutations().size(); i++) {
                    String channels = r.permutations().get(i).replaceAll("/.*", "");
                    int[] n = table.computeIfAbsent(channels, k -> new TreeMap<>()).computeIfAbsent(run, k -> new int[2]);
                    n[r.failed() && i == r.permutations().size() - 1 ? 1 : 0]++;
                }
            }
        });
        StringBuilder out = new StringBuilder(String.format("%-40s", "permutation runs (pass/fail)"));
        rows.keySet().forEach(run -> out.append(String.format("%14s", run)));
        out.append('\n');
        table.forEach((channels, byRun) -> {
            out.append(String.format("%-40s", channels));
            for (String run : rows.keySet()) {
                int[] n = byRun.getOrDefault(run, new int[2]);
                out.append(String.format("%14s", n[0] + "/" + n[1]));
            }
            out.append('\n');
        });
        return out.toString();
    }

    /** Every failed test of every run, marked when it also failed on the plain JDK. */
    private static String failures(Map<String, List<Row>> rows) {
        Set<String> plainFailed = new TreeSet<>();
        rows.getOrDefault("plain", List.of()).stream().filter(Row::failed).forEach(r -> plainFailed.add(r.key()));
        StringBuilder out = new StringBuilder();
        rows.forEach((run, list) -> list.stream().filter(Row::failed).forEach(r -> out.append(String.format(
                "FAILED %-5s %s [%s]%s%n       %s%n", run, r.key(),
                r.permutations().isEmpty() ? "no permutation started" : r.permutations().get(r.permutations().size() - 1),
                !run.equals("plain") && plainFailed.contains(r.key()) ? " (fails on plain JDK too)" : "",
                r.failure()))));
        return out.length() == 0 ? "no failed tests\n" : out.toString();
    }

    @Test
    void jvmRunTookTheJvmPath() throws IOException {
        checkPath("jvm", "shm");
    }

    @Test
    void shmRunTookTheShmPath() throws IOException {
        checkPath("shm", "jvm");
    }

    /**
     * Netty's clients connect to its own servers in the same JVM, so nearly every connection must take
     * {@code path}; TCP only carries the few to addresses no Sovia listener owns (a refused port).
     */
    private static void checkPath(String path, String other) throws IOException {
        Path stats = DIR.resolve(path).resolve("stats.json");
        assertTrue(Files.exists(stats), "no " + stats + ": the " + path
                + " run's JVM did not exit normally or ran without the agent");
        String json = Files.readString(stats);
        Map<String, Long> connections = counts(json, "connections");
        long on = connections.getOrDefault(path, 0L);
        long tcp = connections.getOrDefault("tcp", 0L);
        assertTrue(on > 0, "no connection took " + path + ": " + json);
        assertEquals(0L, connections.getOrDefault(other, 0L), other + " is not in sovia.paths: " + json);
        assertEquals(0L, connections.getOrDefault("eth", 0L), json);
        assertTrue(on >= 10 * tcp, "most connections should take " + path + ", not tcp: " + json);
    }

    static Map<String, Long> counts(String json, String key) {
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

    private static String tag(String xml, String name) {
        Matcher m = Pattern.compile("<" + name + ">([^<]*)</" + name + ">").matcher(xml);
        return m.find() ? m.group(1) : "?";
    }

    private static String attr(String xml, String name) {
        Matcher m = Pattern.compile(name + "=\"([^\"]*)\"").matcher(xml);
        return m.find() ? m.group(1) : "";
    }
}
