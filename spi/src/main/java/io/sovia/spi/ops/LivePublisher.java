package io.sovia.spi.ops;

import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.lifecycle.ExitStage;
import io.sovia.spi.lifecycle.Lifecycle;
import io.sovia.spi.lifecycle.ParkingIdle;
import org.agrona.concurrent.Agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The {@code sovia-live} thread: once a second ({@code sovia.live.millis}) it rewrites this JVM's live entry
 * ({@link LiveFile}) when it changed, and removes it when nothing is left and at exit. It also registers the
 * MBeans, on its first round: off the app's threads, and only once the app uses a Sovia socket, by when the app
 * has configured its logging (the platform MBean server starts java.util.logging).
 *
 * <p>Started by the first listener or connect; a JVM that makes none publishes nothing.
 */
final class LivePublisher implements Agent {
    private static final AtomicBoolean STARTED = new AtomicBoolean();

    private final Path dir;
    private final long pid = ProcessHandle.current().pid();
    private final long intervalMillis;
    /** The text last written; empty while no file is there. Owned by the agent's thread. */
    private String written = "";
    private boolean beansDone;

    private LivePublisher(Path dir, long intervalMillis) {
        this.dir = dir;
        this.intervalMillis = intervalMillis;
    }

    /** Starts the thread once per JVM, unless {@code sovia.live.millis=0} and {@code sovia.jmx=false}. Never throws. */
    static void ensureStarted() {
        if (STARTED.get() || !STARTED.compareAndSet(false, true)) {
            return;
        }
        long millis = SoviaConfig.liveMillis();
        if (millis == 0 && !SoviaConfig.jmx()) {
            return;
        }
        try {
            LivePublisher publisher = new LivePublisher(LiveFile.directory(), millis);
            long idleNanos = millis == 0 ? Long.MAX_VALUE : millis * 1_000_000;
            Lifecycle.start(publisher, new ParkingIdle(() -> idleNanos));
            // after the agents stopped, so no last round writes the file again
            Lifecycle.onExit(ExitStage.STOP, publisher::remove);
        } catch (IOException | RuntimeException e) {
            SoviaLog.warn("sovia ss will not list this JVM", e);
        }
    }

    @Override
    public int doWork() {
        if (!beansDone) {
            beansDone = true;
            if (SoviaConfig.jmx()) {
                SoviaMBeans.register();
            }
        }
        if (intervalMillis > 0) {
            publish();
        }
        return 0;
    }

    private void publish() {
        String text = LiveFile.format();
        boolean none = LiveRegistry.listeners().isEmpty() && LiveRegistry.connections().isEmpty();
        // a reader that took the file for a dead process's removed it: it comes back within a round
        if (text.equals(written) && (none || Files.exists(LiveFile.of(dir, pid)))) {
            return;
        }
        try {
            if (none) {
                LiveFile.remove(dir, pid);
            } else {
                LiveFile.write(dir, pid, text);
            }
            written = text;
        } catch (IOException | RuntimeException e) {
            // tried again next round, as the text still differs
            SoviaLog.warnCounted("live file", "cannot write " + LiveFile.of(dir, pid) + " for sovia ss", e);
        }
    }

    private void remove() {
        try {
            LiveFile.remove(dir, pid);
        } catch (IOException e) {
            SoviaLog.warn("cannot remove " + LiveFile.of(dir, pid) + "; the next sovia ss removes it", e);
        }
    }

    @Override
    public String roleName() {
        return "sovia-live";
    }
}
