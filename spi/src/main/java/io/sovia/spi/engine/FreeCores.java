package io.sovia.spi.engine;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Whether a waiting thread may spin: only while a core is free. A spinner on a core that another runnable thread
 * wants only delays it (with a CPU-bound process on each core, a yield hands the core away for a whole time slice,
 * milliseconds), while a sleeper woken by the kernel preempts such a process at once, as TCP's does. So once a spin
 * sees contention ({@link SpinYield}), every wait in this JVM sleeps at once until a look at the system's runnable
 * threads ({@code /proc/loadavg}) finds no more of them than cores.
 */
public final class FreeCores {
    /** How long waits skip their spin after contention was seen, before the runnable threads are counted again. */
    private static final long RECHECK_NANOS = 10_000_000;
    private static final Path LOADAVG = Path.of("/proc/loadavg");
    private static final Path ONLINE = Path.of("/sys/devices/system/cpu/online");
    private static final int CORES = onlineCores();

    /** 0 while cores are free; else the {@link System#nanoTime()} at which to count runnable threads again. */
    private static final AtomicLong RECHECK_AT = new AtomicLong();

    private FreeCores() {
    }

    /** Whether a wait starting now may spin. */
    public static boolean spinAllowed() {
        long at = RECHECK_AT.get();
        if (at == 0) {
            return true;
        }
        long now = System.nanoTime();
        if (now - at < 0 || !RECHECK_AT.compareAndSet(at, now + RECHECK_NANOS)) {
            EngineCounters.SPINS_SKIPPED.increment();
            return false;
        }
        // this thread is one of the runnable ones it counts
        if (runnableThreads() <= CORES) {
            RECHECK_AT.compareAndSet(now + RECHECK_NANOS, 0);
            return true;
        }
        EngineCounters.SPINS_SKIPPED.increment();
        return false;
    }

    /** A spin found its core wanted by another thread: waits sleep at once for a while. */
    static void contended() {
        RECHECK_AT.set(System.nanoTime() + RECHECK_NANOS);
    }

    /** The system's runnable threads now, the numerator of /proc/loadavg's fourth field; MAX_VALUE if unknown. */
    private static int runnableThreads() {
        try {
            String[] fields = Files.readString(LOADAVG, StandardCharsets.US_ASCII).split(" ");
            return Integer.parseInt(fields[3].substring(0, fields[3].indexOf('/')));
        } catch (IOException | RuntimeException e) {
            return Integer.MAX_VALUE;
        }
    }

    /** Online cores system-wide ("0-3,5" ranges), not this process's affinity: loadavg counts all of them. */
    private static int onlineCores() {
        try {
            int cores = 0;
            for (String range : Files.readString(ONLINE, StandardCharsets.US_ASCII).trim().split(",")) {
                int dash = range.indexOf('-');
                cores += dash < 0 ? 1
                        : Integer.parseInt(range.substring(dash + 1)) - Integer.parseInt(range.substring(0, dash)) + 1;
            }
            return cores;
        } catch (IOException | RuntimeException e) {
            return Runtime.getRuntime().availableProcessors();
        }
    }
}
