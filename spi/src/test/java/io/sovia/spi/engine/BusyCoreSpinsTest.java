package io.sovia.spi.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.BitSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class BusyCoreSpinsTest {

    @Test
    void yieldsUntilFourInARowDidNotPayOffThenOnlyProbes() {
        BusyCoreSpins spins = new BusyCoreSpins();
        for (int i = 0; i < 4; i++) {
            assertTrue(spins.mayTry(), "yield " + i + " may still be tried");
            spins.ended(false, 0);
        }
        int tries = 0;
        for (int i = 0; i < 4096; i++) {
            if (spins.mayTry()) {
                tries++;
            }
        }
        assertEquals(4, tries, "after four failures only every 1024th wait probes");
    }

    @Test
    void aYieldThatPaysOffResumesYielding() {
        BusyCoreSpins spins = new BusyCoreSpins();
        for (int i = 0; i < 4; i++) {
            spins.ended(false, 0);
        }
        assertFalse(spins.mayTry());
        spins.ended(true, 5_000);
        assertTrue(spins.mayTry());
    }

    @Test
    void anAnswerAfterAnotherThreadsTimeSliceDoesNotPayOff() {
        BusyCoreSpins spins = new BusyCoreSpins();
        for (int i = 0; i < 4; i++) {
            spins.ended(true, 4_000_000);
        }
        assertFalse(spins.mayTry(), "an answer after 4 ms came through another thread's time slice, not a yield");
    }

    @Test
    void yieldForReturnsOnceReadyAndStopsAfterAFewYields() {
        BusyCoreSpins spins = new BusyCoreSpins(() -> 0);
        AtomicInteger checks = new AtomicInteger();
        assertTrue(spins.yieldFor(() -> checks.incrementAndGet() == 2));
        assertEquals(2, checks.get());
        checks.set(0);
        assertFalse(spins.yieldFor(() -> {
            checks.incrementAndGet();
            return false;
        }));
        assertEquals(4, checks.get(), "yields a few times, not for a whole budget");
    }

    @Test
    void yieldForStopsOnceTheYieldsTakeLongerThanAPeersTurn() {
        long[] now = {0};
        BusyCoreSpins spins = new BusyCoreSpins(() -> now[0]);
        AtomicInteger checks = new AtomicInteger();
        assertFalse(spins.yieldFor(() -> {
            checks.incrementAndGet();
            now[0] += BusyCoreSpins.PAID_OFF_NANOS;
            return false;
        }));
        assertEquals(1, checks.get(), "a yield that took another thread's time slice is not repeated");
    }

    @Test
    void readsKernelCpuLists() {
        BitSet cpus = FreeCores.cpuList("0-3,8,10-11");
        assertEquals("{0, 1, 2, 3, 8, 10, 11}", cpus.toString());
        assertEquals("{1}", FreeCores.cpuList("1").toString());
    }

    @Test
    void readsIdleTicksOfProcStatLines() {
        assertEquals(105_637 + 31, FreeCores.idleTicksOf("cpu0 4705 0 2187 105637 31 0 45 0 0 0"));
        assertEquals(7 + 0, FreeCores.idleTicksOf("cpu12  1 2 3 7 0 0 0 0 0 0"));
        assertThrows(NumberFormatException.class, () -> FreeCores.idleTicksOf("cpu1 1 2 3"));
    }

    @Test
    void findsThisProcessCpus() {
        BitSet cpus = FreeCores.allowedCpus();
        assertTrue(cpus.cardinality() >= Runtime.getRuntime().availableProcessors(),
                "the affinity list of /proc/self/status names at least the CPUs the JVM counts (fewer under a"
                        + " CPU quota): " + cpus);
    }
}
