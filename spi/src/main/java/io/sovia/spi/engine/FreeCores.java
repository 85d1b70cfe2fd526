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
 * <p>Waits look at most every {@value #LOOK_MILLIS} ms at the kernel's CPU pressure ({@code /proc/pressure/cpu}: the
 * time some runnable thread waited for a CPU) and skip their spin while, since the previous look, threads waited for
 * a CPU more than {@value #BUSY_PERCENT}% of the time: cores are then not free. Where the kernel has no pressure
 * information, they look at its runnable threads instead (the fourth field of {@code /proc/loadavg}, the looking
 * thread one of them) and skip their spin while two looks in a row found more of them than cores; that snapshot
 * also counts a compiler or GC thread passing by, which made a reader streaming across two otherwise idle cores
 * sleep at most of its waits, and so its writer ring at most of its writes. A spin whose yield gave its core away
 * ({@link SpinYield}) ends on its own.
 */
public final class FreeCores {
    private static final long LOOK_MILLIS = 10;
    private static final long LOOK_NANOS = LOOK_MILLIS * 1_000_000;
    private static final int BUSY_PERCENT = 20;
    private static final Path PRESSURE = Path.of("/proc/pressure/cpu");
    private static final Path LOADAVG = Path.of("/proc/loadavg");
    private static final Path ONLINE = Path.of("/sys/devices/system/cpu/online");
    private static final int CORES = onlineCores();
    private static final boolean HAS_PRESSURE = pressureMicros() >= 0;

    /** The {@link System#nanoTime()} of the next look; whoever moves it on looks. */
    private static final AtomicLong NEXT_LOOK = new AtomicLong(System.nanoTime());
    /** Written by the looking thread only: the previous look's time and CPU pressure total (us). */
    private static long lastLookNanos = System.nanoTime();
    private static long lastPressureMicros = HAS_PRESSURE ? pressureMicros() : 0;
    /** Whether the last look found more runnable threads than cores (without pressure information). */
    private static boolean lastLookOver;
    private static volatile boolean busy;

    private FreeCores() {
    }

    /** Whether a wait starting now may spin. */
    public static boolean spinAllowed() {
        long now = System.nanoTime();
        long next = NEXT_LOOK.get();
        if (now - next >= 0 && NEXT_LOOK.compareAndSet(next, now + LOOK_NANOS)) {
            busy = HAS_PRESSURE ? pressed(now) : overLoaded();
        }
        if (busy) {
            EngineCounters.SPINS_SKIPPED.increment();
            return false;
        }
        return true;
    }

    /** Whether threads waited for a CPU more than the busy share of the time since the previous look. */
    private static boolean pressed(long now) {
        long pressure = pressureMicros();
        long waited = pressure - lastPressureMicros;
        long elapsedMicros = Math.max(1, (now - lastLookNanos) / 1000);
        lastPressureMicros = pressure;
        lastLookNanos = now;
        return pressure < 0 || waited * 100 > elapsedMicros * BUSY_PERCENT;
    }

    private static boolean overLoaded() {
        boolean over = runnableThreads() > CORES;
        boolean both = over && lastLookOver;
        lastLookOver = over;
        return both;
    }

    /** The "some" total of /proc/pressure/cpu in microseconds; -1 if unknown. */
    private static long pressureMicros() {
        try {
            String text = Files.readString(PRESSURE, StandardCharsets.US_ASCII);
            int at = text.indexOf("total=");
            int end = text.indexOf('\n', at);
            return Long.parseLong(text.substring(at + 6, end < 0 ? text.length() : end).trim());
        } catch (IOException | RuntimeException e) {
            return -1;
        }
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
