package io.sovia.agent.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The {@code io.sovia.*} JFR events of a JVM under the agent that records with the JDK's default settings. */
@Timeout(180)
class JfrIT {
    @TempDir
    Path dir;

    @Test
    void recordsOpenCloseFallbackAndReset() throws Exception {
        Path recording = dir.resolve("events.jfr");
        try (Forked app = Forked.app(dir, "events",
                List.of("-XX:StartFlightRecording=filename=" + recording + ",dumponexit=true"), "events")) {
            assertEquals(0, app.awaitExit(Duration.ofSeconds(90)), app.report());
        }
        Map<String, List<RecordedEvent>> events = RecordingFile.readAllEvents(recording).stream()
                .filter(e -> e.getEventType().getName().startsWith("io.sovia."))
                .collect(Collectors.groupingBy(e -> e.getEventType().getName()));

        List<RecordedEvent> opened = events.getOrDefault("io.sovia.ConnectionOpen", List.of());
        // two connections on the jvm path, each opened at both ends
        assertEquals(4, opened.stream().filter(e -> "jvm".equals(e.getString("path"))).count(), events.toString());
        assertTrue(events.getOrDefault("io.sovia.ConnectionClose", List.of()).stream()
                .anyMatch(e -> e.getLong("bytesSent") == 3 || e.getLong("bytesReceived") == 3), events.toString());
        assertTrue(events.getOrDefault("io.sovia.Fallback", List.of()).stream()
                .anyMatch(e -> "disabled".equals(e.getString("reason"))), events.toString());
        assertTrue(!events.getOrDefault("io.sovia.Reset", List.of()).isEmpty(), events.toString());
        assertEquals("Sovia", opened.get(0).getEventType().getCategoryNames().get(0));
    }
}
