package io.sovia.spi.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What {@link FreeCores} counts as other processes' work on the CPUs this process may run on. */
@Timeout(10)
class FreeCoresTest {
    private static final long MILLIS = 1_000_000;

    @Test
    void aCoreKeptBusyByThisProcessAloneHasNoOtherWork() {
        assertEquals(0, FreeCores.othersTicks(200 * MILLIS, 1, 0, 20), "this process busy the whole 200 ms");
        assertEquals(0, FreeCores.othersTicks(200 * MILLIS, 1, 5, 15), "busy 150 ms of it, idle the rest");
        assertEquals(0, FreeCores.othersTicks(200 * MILLIS, 2, 20, 20), "two CPUs, each half busy with its work");
    }

    @Test
    void aProcessSharingTheCoreLeavesWorkThatIsNotThisProcesss() {
        assertEquals(10, FreeCores.othersTicks(200 * MILLIS, 1, 0, 10), "a CPU-bound neighbour took half the core");
        assertEquals(20, FreeCores.othersTicks(200 * MILLIS, 2, 0, 20), "one on each of two CPUs");
    }
}
