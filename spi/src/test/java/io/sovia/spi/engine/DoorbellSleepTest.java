package io.sovia.spi.engine;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.channels.Selector;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sleep selector of a thread that ended gives its descriptors back without another thread ever sleeping: a
 * thread-per-connection server whose threads all ended after a burst would otherwise keep two descriptors per thread
 * for good, and could stay out of descriptors.
 */
@Timeout(30)
class DoorbellSleepTest {
    @Test
    void theSelectorOfAThreadThatEndedIsClosed() throws Exception {
        AtomicReference<Selector> theirs = new AtomicReference<>();
        Thread t = new Thread(() -> theirs.set(DoorbellSleep.selector()));
        t.start();
        t.join();
        assertNotNull(theirs.get());
        assertTrue(theirs.get().isOpen());
        assertTrue(DoorbellSleep.releaseEnded() >= 1);
        assertFalse(theirs.get().isOpen(), "the ended thread's selector still holds its descriptors");

        Selector mine = DoorbellSleep.selector();
        DoorbellSleep.releaseEnded();
        assertTrue(mine.isOpen(), "a live thread's selector was closed");
        assertSame(mine, DoorbellSleep.selector());
    }
}
