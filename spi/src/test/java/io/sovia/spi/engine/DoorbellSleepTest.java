package io.sovia.spi.engine;

import io.sovia.spi.jdk.JdkNio;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.Pipe;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A thread's doorbell sleep: woken by its doorbell, by a wake-up (also one given before it slept), not by wake-ups
 * it forgot, and never past its deadline; the eventfd of a thread that ended goes back without another thread ever
 * sleeping (a thread-per-connection server whose threads all ended after a burst would otherwise keep one descriptor
 * per thread for good, and could stay out of descriptors).
 */
@Timeout(30)
class DoorbellSleepTest {
    private static final long FOREVER = 0;

    @Test
    void theSleeperOfAThreadThatEndedIsClosed() throws Exception {
        AtomicReference<DoorbellSleeper> theirs = new AtomicReference<>();
        Thread t = new Thread(() -> theirs.set(DoorbellSleep.sleeper()));
        t.start();
        t.join();
        assertNotNull(theirs.get());
        assertTrue(theirs.get().isOpen());
        assertTrue(DoorbellSleep.releaseEnded() >= 1);
        assertFalse(theirs.get().isOpen(), "the ended thread's eventfd is still open");
        theirs.get().wakeup(); // a waker late for an ended thread writes nothing anywhere

        DoorbellSleeper mine = DoorbellSleep.sleeper();
        DoorbellSleep.releaseEnded();
        assertTrue(mine.isOpen(), "a live thread's sleeper was closed");
        assertSame(mine, DoorbellSleep.sleeper());
    }

    @Test
    void aRingOrAWakeUpEndsTheSleepAndAForgottenWakeUpDoesNot() throws Exception {
        DoorbellSleeper sleeper = DoorbellSleep.sleeper();
        Pipe pipe = JdkNio.provider().openPipe();
        try {
            pipe.source().configureBlocking(false);

            pipe.sink().write(ByteBuffer.wrap(new byte[] {1}));
            assertTrue(sleeper.sleep(pipe.source(), FOREVER), "a rung doorbell did not say so");
            pipe.source().read(ByteBuffer.allocate(8));

            sleeper.wakeup();
            sleeper.wakeup();
            assertFalse(sleeper.sleep(pipe.source(), FOREVER), "a wake-up given before the sleep was lost");
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
            assertFalse(sleeper.sleep(pipe.source(), deadline), "the wake-up was taken twice");
            assertTrue(System.nanoTime() - deadline >= 0, "woke before its deadline with nothing to wake it");

            sleeper.wakeup();
            sleeper.forget();
            deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
            sleeper.sleep(pipe.source(), deadline);
            assertTrue(System.nanoTime() - deadline >= 0, "a forgotten wake-up ended a later sleep");

            CountDownLatch asleep = new CountDownLatch(1);
            Thread waker = new Thread(() -> {
                try {
                    asleep.await();
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                sleeper.wakeup();
            });
            waker.start();
            asleep.countDown();
            assertFalse(sleeper.sleep(pipe.source(), FOREVER));
            waker.join();
        } finally {
            pipe.sink().close();
            pipe.source().close();
        }
        assertThrows(ClosedChannelException.class, () -> sleeper.sleep(pipe.source(), FOREVER));
    }

    @Test
    void thePeersEndOfTheDoorbellEndsTheSleep() throws Exception {
        DoorbellSleeper sleeper = DoorbellSleep.sleeper();
        Pipe pipe = JdkNio.provider().openPipe();
        pipe.source().configureBlocking(false);
        Thread closer = new Thread(() -> {
            try {
                Thread.sleep(20);
                pipe.sink().close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        closer.start();
        try {
            assertTrue(sleeper.sleep(pipe.source(), FOREVER), "a doorbell whose writer closed did not wake the sleeper");
        } finally {
            closer.join();
            pipe.source().close();
        }
    }
}
