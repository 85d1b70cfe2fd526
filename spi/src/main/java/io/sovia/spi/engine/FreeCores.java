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
 *
 * <p>A core kept busy by this process alone has room too: nobody else waits for it, and a spin there takes time
 * only from this process's own threads, to which its yields give way. So waits also spin while, over the last
 * {@value #OWN_LOOKS} looks, the CPUs this process may run on were busy with other processes' work for less than
 * {@value #OTHERS_TICKS} ticks: their busy time less this process's CPU time ({@code /proc/self/stat}). A reader
 * that copied a 64 KiB stream on its own core found that core idle less than 5% of the time, slept at every wait
 * and left its writer spinning until the wake-up came: 20-24 GB/s across cores; spinning, 27-28.
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
    /** Looks over which the other processes' share of this process's CPUs is taken: ticks are 10 ms. */
    private static final int OWN_LOOKS = 4;
    /** Ticks of other processes' work on this process's CPUs, over {@link #OWN_LOOKS} looks, that still leave room. */
    private static final long OTHERS_TICKS = 2;
    private static final Path SELF_STAT = Path.of("/proc/self/stat");

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
    /**
     * Written by the looking thread only: at each of the last {@link #OWN_LOOKS} looks, its time, the allowed CPUs'
     * idle ticks and this process's CPU ticks (-1: unknown), oldest first.
     */
    private static final long[][] OWN_HISTORY = new long[OWN_LOOKS][];
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
     * previous look, or busy with this process's work alone lately; notes whether other CPUs were idle as long.
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
        boolean ownWorkOnly = idle != null && busyOnlyWithOwnWork(now, idle[0]);
        return free || ownWorkOnly;
    }

    /**
     * Notes this look and says whether, since the oldest look kept, the allowed CPUs were busy with other processes'
     * work for less than {@link #OTHERS_TICKS} ticks.
     */
    private static boolean busyOnlyWithOwnWork(long now, long idleTicks) {
        long[] oldest = OWN_HISTORY[0];
        System.arraycopy(OWN_HISTORY, 1, OWN_HISTORY, 0, OWN_LOOKS - 1);
        long own = ownTicks();
        BitSet cpus = allowed;
        OWN_HISTORY[OWN_LOOKS - 1] = new long[] {now, idleTicks, own};
        if (oldest == null || own < 0 || oldest[2] < 0 || cpus == null) {
            return false;
        }
        return othersTicks(now - oldest[0], cpus.cardinality(), idleTicks - oldest[1], own - oldest[2])
                < OTHERS_TICKS;
    }

    /** Ticks the allowed CPUs worked for other processes over {@code elapsedNanos}: busy time less this process's. */
    static long othersTicks(long elapsedNanos, int cpus, long idleTicks, long ownTicks) {
        return elapsedNanos * cpus / TICK_NANOS - idleTicks - ownTicks;
    }

    /** This process's user and system CPU time in ticks ({@code /proc/self/stat}), or -1 if unknown. */
    private static long ownTicks() {
        try {
            String stat = Files.readString(SELF_STAT, StandardCharsets.US_ASCII);
            // the command name, in parentheses, may hold spaces: fields count from the last ')'
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
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
