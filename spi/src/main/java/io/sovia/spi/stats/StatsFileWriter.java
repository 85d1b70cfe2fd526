package io.sovia.spi.stats;

import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.lifecycle.ExitStage;
import io.sovia.spi.lifecycle.Lifecycle;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;

/** Writes {@link SoviaStats#toJson()} to {@code sovia.stats} when the JVM exits, after the last connection closed. */
public final class StatsFileWriter {
    private StatsFileWriter() {
    }

    /** Adds the write to the exit sequence if {@code sovia.stats} is set. Never throws. */
    public static void installIfConfigured() {
        String file = SoviaConfig.statsFile();
        if (file == null) {
            return;
        }
        try {
            Lifecycle.onExit(ExitStage.REPORT, () -> write(java.nio.file.Path.of(file)));
        } catch (RuntimeException e) {
            SoviaLog.warn("cannot register the stats writer for " + file, e);
        }
    }

    /** Writes the stats atomically, so a reader never sees half a file. */
    static void write(java.nio.file.Path file) {
        try {
            java.nio.file.Path dir = file.toAbsolutePath().getParent();
            java.nio.file.Path tmp = Files.createTempFile(dir, ".sovia-stats", ".tmp");
            Files.writeString(tmp, SoviaStats.toJson(), StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            SoviaLog.warn("cannot write stats to " + file, e);
        }
    }
}
