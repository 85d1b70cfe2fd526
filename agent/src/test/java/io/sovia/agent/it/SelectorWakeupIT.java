package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Selector.wakeup, interrupt and close against a selector that has an idle connection registered, so a select
 * would otherwise block.
 */
class SelectorWakeupIT extends SoviaTestBase {

    /** Long enough that returning well before it can only be a wakeup, never the timeout. */
    private static final long LONG_SELECT_MILLIS = 10_000;
    private static final int WAKEUP_ROUNDS = 20_000;
    /** Twice the default spin budget, so wakeups land in the spin, at its end and in the sleep after it. */
    private static final long WAKEUP_SPREAD_NANOS = 100_000;

    @TransportTest
    void wakeupBeforeSelectMakesOnlyTheNextSelectReturn(Transport transport) throws IOException {
        try (NioPair pair = NioPair.open(transport); Selector selector = idleSelector(pair)) {
            selector.wakeup();
            selector.wakeup();
            assertEquals(0, selectTimed(selector, LONG_SELECT_MILLIS, 0, LONG_SELECT_MILLIS / 2));
            // Two wakeups between selects count as one: this select must run to its timeout.
            assertEquals(0, selectTimed(selector, 200, 100, Long.MAX_VALUE));
        }
    }

    @TransportTest
    void selectNowClearsPendingWakeup(Transport transport) throws IOException {
        try (NioPair pair = NioPair.open(transport); Selector selector = idleSelector(pair)) {
            selector.wakeup();
            assertEquals(0, selector.selectNow());
            assertEquals(0, selectTimed(selector, 200, 100, Long.MAX_VALUE));
        }
    }

    @TransportTest
    void wakeupDuringSelect(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport); Selector selector = idleSelector(pair)) {
            Async<Integer> selecting = Async.start("selecting", () -> selector.select());
            selecting.awaitBlockedIn("select");
            selector.wakeup();
            assertEquals(0, selecting.get());
        }
    }

    @TransportTest
    void interruptDuringSelect(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport); Selector selector = idleSelector(pair)) {
            Async<Boolean> selecting = Async.start("selecting", () -> {
                selector.select();
                return Thread.currentThread().isInterrupted();
            });
            selecting.awaitBlockedIn("select").thread().interrupt();
            assertTrue(selecting.get(), "select returns with the interrupt status set");
            assertTrue(selector.isOpen(), "an interrupt does not close a selector");
            assertTrue(pair.client().isOpen(), "nor its channels");
        }
    }

    @TransportTest
    void interruptBeforeSelect(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport); Selector selector = idleSelector(pair)) {
            Async<Boolean> selecting = Async.start("selecting", () -> {
                Thread.currentThread().interrupt();
                selector.select();
                return Thread.currentThread().isInterrupted();
            });
            assertTrue(selecting.get(), "select returns with the interrupt status set");
            assertTrue(selector.isOpen());
        }
    }

    @TransportTest
    void closeDuringSelect(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport)) {
            Selector selector = idleSelector(pair);
            try {
                SelectionKey key = pair.client().keyFor(selector);
                Async<Integer> selecting = Async.start("selecting", () -> selector.select());
                selecting.awaitBlockedIn("select");
                selector.close();
                assertEquals(0, selecting.get(), "close wakes the select, which returns normally");
                assertFalse(selector.isOpen());
                assertFalse(key.isValid());
                assertFalse(pair.client().isRegistered(), "closing a selector deregisters its channels");
                assertTrue(pair.client().isOpen());
                assertThrows(ClosedSelectorException.class, selector::selectNow);
                pair.client().configureBlocking(true);
                Io.assertTalks(pair.client(), pair.accepted());
            } finally {
                selector.close();
            }
        }
    }

    /**
     * Wakeups at every moment of a selection, with a kernel channel registered beside the connection: a user-level
     * key makes each select spin for the spin budget (polling the kernel keys too) before it sleeps, and a wakeup
     * landing in any step of that must still end the select. A lost one leaves the select asleep for good.
     */
    @TransportTest
    void wakeupsAtAnyMomentOfASelectionAreNeverLost(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport); Selector selector = idleSelector(pair);
                DatagramChannel kernel = DatagramChannel.open()) {
            kernel.configureBlocking(false);
            kernel.register(selector, SelectionKey.OP_READ);
            AtomicLong selections = new AtomicLong();
            AtomicBoolean stop = new AtomicBoolean();
            Async<Void> selecting = Async.start("selecting", () -> {
                while (!stop.get()) {
                    selector.select();
                    selections.incrementAndGet();
                }
                return null;
            });
            SplittableRandom random = new SplittableRandom(42);
            for (int i = 0; i < WAKEUP_ROUNDS; i++) {
                long before = selections.get();
                LockSupport.parkNanos(random.nextLong(WAKEUP_SPREAD_NANOS));
                selector.wakeup();
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Io.WAIT_MILLIS);
                while (selections.get() == before) {
                    assertTrue(System.nanoTime() - deadline < 0, "wakeup " + i + " was lost: select sleeps on");
                    Thread.onSpinWait();
                }
            }
            stop.set(true);
            selector.wakeup();
            selecting.get();
        }
    }

    /** A selector with the pair's client registered for reads that never come. */
    private static Selector idleSelector(NioPair pair) throws IOException {
        Selector selector = Selector.open();
        try {
            pair.client().configureBlocking(false);
            pair.client().register(selector, SelectionKey.OP_READ);
            return selector;
        } catch (IOException | RuntimeException e) {
            Io.closeAll(e, selector);
            throw e;
        }
    }

    /** Runs {@code select(timeout)} and checks how long it took, in milliseconds. */
    private static int selectTimed(Selector selector, long timeout, long atLeast, long below) throws IOException {
        long start = System.nanoTime();
        int selected = selector.select(timeout);
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(took >= atLeast && took < below,
                () -> "select(" + timeout + ") took " + took + " ms, expected [" + atLeast + ", " + below + ")");
        return selected;
    }
}
