package io.sovia.spi.engine;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Whether a waiting thread may spin: only while a core is free. A spinner on a core that another runnable thread
 * wants only delays it (with a CPU-bound process on each core, a yield hands the core away for a whole time slice,
 * milliseconds), and it spends the scheduler's credit that would let its wake-up preempt such a process, as TCP's
 * sleepers do: 64-byte round trips took 2.3 ms against TCP's 0.1 ms while spinning, 0.6 ms sleeping.
 *
 * <p>Waits look at most every {@value #LOOK_MILLIS} ms at the system's runnable threads (the fourth field of
 * {@code /proc/loadavg}; the looking thread is one of them) and skip their spin while two looks in a row found more
 * of them than cores: one look alone also catches a compiler or GC thread passing by while this thread and its peer
 * spin on the two cores of this machine, the case spinning is for. A spin whose yield gave its core away
 * ({@link SpinYield}) ends on its own; making every wait sleep until the next look for it cost a tenth of the
 * spins of a ping-pong across two otherwise idle cores.
 */
public final class FreeCores {
    private static final long LOOK_MILLIS = 10;
    private static final long LOOK_NANOS = LOOK_MILLIS * 1_000_000;
    private static final Path LOADAVG = Path.of("/proc/loadavg");
    private static final Path ONLINE = Path.of("/sys/devices/system/cpu/online");
    private static final int CORES = onlineCores();

    /** The {@link System#nanoTime()} of the next look; whoever moves it on looks. */
    private static final AtomicLong NEXT_LOOK = new AtomicLong(System.nanoTime());
    /** Whether the last look found more runnable threads than cores; written by the looking thread only. */
    private static boolean lastLookOver;
    private static volatile boolean busy;

    private FreeCores() {
    }

    /** Whether a wait starting now may spin. */
    public static boolean spinAllowed() {
        long now = System.nanoTime();
        long next = NEXT_LOOK.get();
        if (now - next >= 0 && NEXT_LOOK.compareAndSet(next, now + LOOK_NANOS)) {
            boolean over = runnableThreads() > CORES;
            busy = over && lastLookOver;
            lastLookOver = over;
        }
        if (busy) {
            EngineCounters.SPINS_SKIPPED.increment();
            return false;
        }
        return true;
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
