package io.sovia.spi.engine;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Whether a waiting thread may spin: only while a core is free. A spinner on a core that another runnable thread
 * wants only delays it (with a CPU-bound process on each core, a yield hands the core away for a whole time slice,
 * milliseconds), and it spends the scheduler's credit that would let its wake-up preempt such a process, as TCP's
 * sleepers do: 64-byte round trips took 2.3 ms against TCP's 0.1 ms while spinning, 0.6 ms sleeping. Even a spin
 * whose yields look free builds up that debt under such a process (2.9 ms round trips when spins were let through
 * until a yield gave the core away).
 *
 * <p>Waits look at most every {@value #LOOK_MILLIS} ms at the free CPU time since the previous look: the time the
 * CPUs this process may run on were idle ({@code /proc/stat}, {@code /proc/self/status}) plus the time waits of
 * this process spun without their yields giving the core away ({@link #spun}); a spinner keeps its core from idling, yet the core is there for
 * whoever wants it. They spin while that came to at least {@value #FREE_PERCENT}% of one core. This replaced the
 * kernel's CPU pressure ({@code /proc/pressure/cpu}), which is the whole system's: an FTP upload across two cores
 * kept its writer's core full (the writer, and compiler threads waiting behind it), so the reader on the other, idle
 * core slept at every wait and its writer rang at every write, 0.5-0.6x TCP's rate (spinning: 1.0-1.2x). A spin
 * whose yield gave its core away ({@link SpinYield}) ends on its own.
 */
public final class FreeCores {
    private static final long LOOK_MILLIS = 50;
    private static final long LOOK_NANOS = LOOK_MILLIS * 1_000_000;
    private static final int FREE_PERCENT = 5;
    private static final Path STAT = Path.of("/proc/stat");
    private static final Path SELF_STATUS = Path.of("/proc/self/status");
    private static final String CPUS_ALLOWED = "Cpus_allowed_list:";
    /** Kernel clock ticks per second, in which /proc/stat counts: USER_HZ, 100 on every Linux architecture Sovia runs on. */
    private static final long TICK_NANOS = 10_000_000;
    /**
     * Looks that reuse the affinity read at the first of them: it rarely changes, and reading /proc/self/status (some
     * fifty lines the kernel formats at each read) was half of a look's cost.
     */
    private static final int AFFINITY_LOOKS = 20;

    /** The {@link System#nanoTime()} of the next look; whoever moves it on looks. */
    private static final AtomicLong NEXT_LOOK = new AtomicLong(System.nanoTime());
    /** Nanoseconds spun without contention, by any thread, since the process started. */
    private static final LongAdder SPUN = new LongAdder();
    /** Written by the looking thread only: the CPUs this process may run on (null: unknown), and looks since read. */
    private static BitSet allowed = allowedCpus();
    private static int affinityAge;
    /** Written by the looking thread only: the previous look's time, idle ticks and spin total. */
    private static long lastLookNanos = System.nanoTime();
    private static long[] lastIdleTicks = idleTicks();
    private static long lastSpun;
    private static volatile boolean busy;
    private static volatile boolean idleElsewhere;

    private FreeCores() {
    }

    /** Whether a wait starting now may spin. */
    public static boolean spinAllowed() {
        long now = System.nanoTime();
        long next = NEXT_LOOK.get();
        if (now - next >= 0 && NEXT_LOOK.compareAndSet(next, now + LOOK_NANOS)) {
            busy = !free(now);
        }
        if (busy) {
            EngineCounters.SPINS_SKIPPED.increment();
            return false;
        }
        return true;
    }

    /** A wait spun {@code nanos} and no yield of it gave the core away: the core was free for that long. */
    public static void spun(long nanos) {
        SPUN.add(nanos);
    }

    /**
     * Whether this process's CPUs were idle, or spun on without contention, for the free share of a core since the
     * previous look; notes whether other CPUs were idle as long.
     */
    private static boolean free(long now) {
        long[] idle = idleTicks();
        long spun = SPUN.sum();
        long elapsed = Math.max(1, now - lastLookNanos);
        boolean free = true;
        boolean elsewhere = false;
        if (idle != null && lastIdleTicks != null) {
            long freeNanos = (idle[0] - lastIdleTicks[0]) * TICK_NANOS + (spun - lastSpun);
            free = freeNanos * 100 >= elapsed * FREE_PERCENT;
            elsewhere = (idle[1] - lastIdleTicks[1]) * TICK_NANOS * 100 >= elapsed * FREE_PERCENT;
        }
        lastIdleTicks = idle;
        lastSpun = spun;
        lastLookNanos = now;
        idleElsewhere = elsewhere;
        return free;
    }

    /**
     * Whether, at the last look that found this process's CPUs busy, a CPU it may not run on was idle: what keeps its
     * own busy is then its own threads or a neighbour pinned beside it, not the machine's load
     * ({@link BusyCoreSpins}).
     */
    public static boolean idleElsewhere() {
        return idleElsewhere;
    }

    /**
     * Idle and I/O wait ticks of the CPUs this process may run on and of the others (the "cpuN" lines of
     * /proc/stat); null if unknown, which counts as free. Another CPU's idle time is no use to a spinner that cannot
     * go there: two processes pinned to one core beside an idle one spun, and a gRPC stream between them ran at 0.3x
     * TCP's rate.
     */
    private static long[] idleTicks() {
        if (++affinityAge >= AFFINITY_LOOKS) {
            affinityAge = 0;
            allowed = allowedCpus();
        }
        try (BufferedReader in = Files.newBufferedReader(STAT, StandardCharsets.US_ASCII)) {
            in.readLine(); // all CPUs together
            long[] idle = new long[2];
            for (String line = in.readLine(); line != null && line.startsWith("cpu"); line = in.readLine()) {
                idle[isAllowed(line) ? 0 : 1] += idleTicksOf(line);
            }
            return idle;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static boolean isAllowed(String cpuLine) {
        BitSet cpus = allowed;
        return cpus == null || cpus.get((int) field(cpuLine, 0));
    }

    /**
     * Idle plus I/O wait ticks of a "cpuN user nice system idle iowait ..." line: parsed in place, as a regex split
     * of every line at every look kept the JIT compiling this code for seconds, beside the app.
     */
    static long idleTicksOf(String cpuLine) {
        return field(cpuLine, 4) + field(cpuLine, 5);
    }

    /** The number in field {@code index} of a /proc/stat CPU line: 0 is N of "cpuN", then the tick counts. */
    private static long field(String line, int index) {
        int at = 3; // past "cpu"
        for (int f = 0; f < index; f++) {
            while (at < line.length() && line.charAt(at) != ' ') {
                at++;
            }
            while (at < line.length() && line.charAt(at) == ' ') {
                at++;
            }
        }
        long value = 0;
        int digits = 0;
        for (; at < line.length() && line.charAt(at) >= '0' && line.charAt(at) <= '9'; at++, digits++) {
            value = value * 10 + (line.charAt(at) - '0');
        }
        if (digits == 0) {
            throw new NumberFormatException("no field " + index + " in " + line);
        }
        return value;
    }

    /** The CPUs in this process's affinity ({@code Cpus_allowed_list} of /proc/self/status), or null if unknown. */
    static BitSet allowedCpus() {
        try (BufferedReader in = Files.newBufferedReader(SELF_STATUS, StandardCharsets.US_ASCII)) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.startsWith(CPUS_ALLOWED)) {
                    return cpuList(line.substring(CPUS_ALLOWED.length()).trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            // unknown: every CPU counts
        }
        return null;
    }

    /** A kernel CPU list such as {@code 0-3,8,10-11}. */
    static BitSet cpuList(String list) {
        BitSet cpus = new BitSet();
        for (String range : list.split(",")) {
            int dash = range.indexOf('-');
            int from = Integer.parseInt(range.substring(0, dash < 0 ? range.length() : dash).trim());
            int to = dash < 0 ? from : Integer.parseInt(range.substring(dash + 1).trim());
            cpus.set(from, to + 1);
        }
        return cpus;
    }
}
