package io.sovia.agent.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * {@code sovia ss} against two live JVMs under the agent: a server, and a client holding two shm connections to
 * it. They appear with their path, ports and pids; killed, the client and its connections disappear.
 */
@Timeout(180)
class SsIT {
    /** One entry of {@code ss --json}, which prints each on a line of its own. */
    static final Pattern ENTRY = Pattern.compile("\\{\"pid\": (\\d+), \"kind\": \"(\\w+)\", \"path\": \"([^\"]*)\","
            + " \"local\": \"([^\"]*)\", \"remote\": (?:null|\"([^\"]*)\"), \"state\": \"([^\"]*)\"");
    /** Entries are republished every second; a killed peer's connections end at once. */
    private static final long LISTING_MILLIS = 15_000;

    record Entry(long pid, String kind, String path, String local, String remote, String state) {
        int localPort() {
            return Integer.parseInt(local.substring(local.lastIndexOf(':') + 1));
        }
    }

    @TempDir
    Path dir;

    @Test
    void listsLiveConnectionsAndForgetsAStoppedProcess() throws Exception {
        try (Forked server = Forked.app(dir, "server", List.of(), "server")) {
            String port = server.awaitPort();
            Set<Integer> clientPorts;
            long clientPid;
            try (Forked client = Forked.app(dir, "client", List.of(), "client", port, "2")) {
                clientPid = client.pid();
                String[] locals = client.awaitLine("^LOCAL (.*)$", Forked.START).group(1).split(",");
                clientPorts = List.of(locals).stream()
                        .map(Integer::valueOf).collect(Collectors.toSet());

                // the entries are a snapshot republished every second: the first listing can still show the
                // connects in progress (syn-sent), taken before the client printed its ports
                List<Entry> mine = awaitListing(clientPid, e -> e.size() == 2
                        && e.stream().allMatch(entry -> entry.state().equals("established")));
                for (Entry e : mine) {
                    assertEquals("connection", e.kind(), e.toString());
                    assertEquals("shm", e.path(), e.toString());
                    assertTrue(e.remote().endsWith(":" + port), e.toString());
                }
                assertEquals(clientPorts, mine.stream().map(Entry::localPort).collect(Collectors.toSet()));

                List<Entry> served = awaitListing(server.pid(), e -> e.size() == 3);
                assertEquals(1, served.stream().filter(e -> e.kind().equals("listener")
                        && e.local().endsWith(":" + port) && e.path().contains("shm")).count(), served.toString());
                assertEquals(clientPorts, served.stream().filter(e -> e.kind().equals("connection"))
                        .map(e -> Integer.parseInt(e.remote().substring(e.remote().lastIndexOf(':') + 1)))
                        .collect(Collectors.toSet()), served.toString());

                Forked.Result text = Forked.cli(dir, "ss-text", "ss");
                assertEquals(0, text.exit(), text.toString());
                assertTrue(text.stdout().startsWith("PID "), text.stdout());
                assertTrue(text.stdout().contains(clientPid + " "), text.stdout());
            } // killed: no exit step removes its file, the next reader does

            assertEquals(1, Forked.cli(dir, "ss-gone", "ss", "-p", String.valueOf(clientPid)).exit());
            awaitListing(server.pid(), e -> e.size() == 1 && e.get(0).kind().equals("listener"));
            try (var files = Files.list(Path.of("/dev/shm/sovia-" + Files.getAttribute(Path.of("/proc/self"),
                    "unix:uid")))) {
                assertFalse(files.anyMatch(f -> f.getFileName().toString().equals("ss-" + clientPid + ".tsv")));
            }
            server.closeStdin();
            assertEquals(0, server.awaitExit(Duration.ofSeconds(30)), server.report());
        }
    }

    /** Runs {@code ss --json -p pid} until its entries satisfy {@code wanted}; fails after {@link #LISTING_MILLIS}. */
    private List<Entry> awaitListing(long pid, Predicate<List<Entry>> wanted) throws Exception {
        long deadline = System.nanoTime() + LISTING_MILLIS * 1_000_000;
        Forked.Result last;
        List<Entry> entries;
        do {
            last = Forked.cli(dir, "ss-json", "ss", "--json", "-p", String.valueOf(pid));
            entries = parse(last.stdout());
            if (wanted.test(entries)) {
                assertEquals(entries.isEmpty() ? 1 : 0, last.exit(), last.toString());
                entries.forEach(e -> assertEquals(pid, e.pid()));
                return entries;
            }
            Thread.sleep(200);
        } while (System.nanoTime() - deadline < 0);
        return fail("ss -p " + pid + " never listed what was expected; last: " + last);
    }

    static List<Entry> parse(String json) {
        return ENTRY.matcher(json).results().map(m -> new Entry(Long.parseLong(m.group(1)), m.group(2), m.group(3),
                m.group(4), m.group(5), m.group(6))).toList();
    }
}
