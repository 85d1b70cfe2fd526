package io.sovia.spi.engine;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sleep selectors hold no descriptor longer than their owners need: that of a thread that ended gives its own back
 * without another thread ever sleeping (a thread-per-connection server whose threads all ended after a burst would
 * otherwise keep two descriptors per thread for good, and could stay out of descriptors), and a doorbell that stays
 * registered between sleeps closes when its owner closes it, whether the sleeping thread sleeps again or not.
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

    @Test
    void aDoorbellStaysRegisteredBetweenSleepsAndOnlyOneAtATime() throws Exception {
        Pipe a = nonBlockingPipe();
        Pipe b = nonBlockingPipe();
        Selector selector = DoorbellSleep.selector();
        try {
            SelectionKey first = DoorbellSleep.hold(selector, a.source());
            a.sink().write(ByteBuffer.wrap(new byte[] {1}));
            assertTrue(DoorbellSleep.sleep(selector, first, System.nanoTime() + 5_000_000_000L));
            assertSame(first, DoorbellSleep.hold(selector, a.source()), "registered again for the next sleep");

            SelectionKey other = DoorbellSleep.hold(selector, b.source());
            assertEquals(Set.of(other), selector.keys(), "the first doorbell is still watched");
            assertNull(a.source().keyFor(selector));
        } finally {
            closeAll(a, b);
        }
    }

    @Test
    void aClosedDoorbellLeavesTheSelectorOfAThreadThatSleepsNoMore() throws Exception {
        Pipe pipe = nonBlockingPipe();
        CountDownLatch slept = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Thread sleeper = new Thread(() -> {
            try {
                Selector selector = DoorbellSleep.selector();
                SelectionKey key = DoorbellSleep.hold(selector, pipe.source());
                DoorbellSleep.sleep(selector, key, System.nanoTime() + 1_000_000);
                slept.countDown();
                done.await();
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        sleeper.start();
        try {
            slept.await();
            long before = openDescriptors();
            pipe.source().close();
            DoorbellSleep.release(pipe.source());
            assertEquals(before - 1, openDescriptors(), "the closed doorbell's descriptor is still open");
        } finally {
            done.countDown();
            sleeper.join();
            closeAll(pipe);
        }
    }

    @Test
    void aDoorbellClosedUnderASleepingThreadWakesItAndCloses() throws Exception {
        Pipe pipe = nonBlockingPipe();
        AtomicReference<Boolean> rang = new AtomicReference<>();
        CountDownLatch registered = new CountDownLatch(1);
        Thread sleeper = new Thread(() -> {
            try {
                Selector selector = DoorbellSleep.selector();
                SelectionKey key = DoorbellSleep.hold(selector, pipe.source());
                registered.countDown();
                rang.set(DoorbellSleep.sleep(selector, key, 0));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        sleeper.start();
        try {
            registered.await();
            long before = openDescriptors();
            pipe.source().close();
            DoorbellSleep.release(pipe.source());
            sleeper.join(5_000);
            assertFalse(sleeper.isAlive(), "a thread asleep on a closed doorbell was not woken");
            assertEquals(false, rang.get());
            assertEquals(before - 1, openDescriptors(), "the closed doorbell's descriptor is still open");
        } finally {
            closeAll(pipe);
        }
    }

    private static Pipe nonBlockingPipe() throws IOException {
        Pipe pipe = Pipe.open();
        pipe.source().configureBlocking(false);
        return pipe;
    }

    private static void closeAll(Pipe... pipes) throws IOException {
        for (Pipe p : pipes) {
            p.source().close();
            p.sink().close();
        }
    }

    private static long openDescriptors() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }
}
