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
 * ({@link LiveFile}) when it changed, and removes it when nothing is left and at exit. It also registers the MBeans,
 * once the JVM has an MBean server: creating the platform one costs about 0.2 s of CPU and starts
 * java.util.logging, which an app may still have to configure, so a JVM that nobody watches over JMX pays nothing.
 * A JMX client that attaches (jconsole) creates it, and the beans are there within a second.
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
    /** Whether the files of JVMs that died without removing theirs (killed) were removed. Owned by the agent's thread. */
    private boolean staleRemoved;
    /** Whether the MBeans still wait for an MBean server. Owned by the agent's thread. */
    private boolean beansPending = SoviaConfig.jmx() && ModuleLayer.boot().findModule("java.management").isPresent();

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
            Lifecycle.start(publisher, new ParkingIdle(publisher::idleNanos));
            // after the agents stopped, so no last round writes the file again
            Lifecycle.onExit(ExitStage.STOP, publisher::remove);
        } catch (IOException | RuntimeException e) {
            SoviaLog.warn("sovia ss will not list this JVM", e);
        }
    }

    /** How long to sleep after a round: the interval, or a second while the MBeans wait, or until the exit. */
    private long idleNanos() {
        if (intervalMillis > 0) {
            return intervalMillis * 1_000_000;
        }
        return beansPending ? 1_000_000_000L : Long.MAX_VALUE;
    }

    @Override
    public int doWork() {
        if (beansPending && SoviaMBeans.serverExists()) {
            beansPending = false;
            SoviaMBeans.register();
        }
        if (intervalMillis > 0) {
            if (!staleRemoved) {
                staleRemoved = true;
                removeStale();
            }
            publish();
        }
        return 0;
    }

    /**
     * Removes what killed JVMs left in the directory, once per JVM, as the shm path removes their listener sockets:
     * files in /dev/shm outlive their processes, and a host where nobody runs {@code sovia ss} would keep them.
     */
    private void removeStale() {
        try {
            LiveFile.removeStale(dir);
        } catch (IOException | RuntimeException e) {
            SoviaLog.warnCounted("live-stale", "cannot remove the live files of JVMs that are gone", e);
        }
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
