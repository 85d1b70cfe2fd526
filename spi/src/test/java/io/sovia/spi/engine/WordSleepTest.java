package io.sovia.spi.engine;

import io.sovia.spi.link.FrameRing;
import io.sovia.spi.link.RingLink;
import io.sovia.spi.os.NativeAccess;
import io.sovia.spi.os.NativeOs;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A thread's sleep on its link's wake word (a futex in the ring's trailer, here in this process's memory): woken by
 * the peer's commit when it armed for the word, also by one that came between its prepare and its sleep (the lost
 * wake-up an event count exists to prevent), by a wake-up of its own process, and never past its deadline; a peer
 * armed for the word alone gets no doorbell byte; a link whose end sleeps on doorbells still wakes a peer's word.
 * Sleeps that must be woken have a deadline of {@value #BOUND_SECONDS} s, so a lost wake-up fails the test instead of
 * hanging it (a thread in a futex call cannot be interrupted).
 */
@Timeout(30)
class WordSleepTest {
    private static final int CAPACITY = 4096;
    private static final long BOUND_SECONDS = 10;

    private final AtomicInteger aRung = new AtomicInteger();
    private final AtomicInteger aNudged = new AtomicInteger();
    private NativeOs os;

    @BeforeEach
    void nativeCalls() throws Exception {
        assumeTrue(NativeAccess.available(), "the native calls did not load here");
        os = NativeAccess.os();
        assumeTrue(os.hasFutex(), "no futex on this platform");
    }

    /** Ends {@code a} and {@code b} of one pipe; {@code b}'s wakes of {@code a}'s doorbell are counted. */
    private RingLink[] pair() {
        return pair(true);
    }

    /** The same, {@code b}'s threads sleeping on its word if {@code bSleepsOnWord}, {@code a}'s always. */
    private RingLink[] pair(boolean bSleepsOnWord) {
        FrameRing ab = FrameRing.allocate(CAPACITY);
        FrameRing ba = FrameRing.allocate(CAPACITY);
        RingLink a = new RingLink(ba, ab, () -> { }, () -> { }, null, os, true);
        RingLink b = new RingLink(ab, ba, aRung::incrementAndGet, aNudged::incrementAndGet, null, os, bSleepsOnWord);
        return new RingLink[] {a, b};
    }

    private static void send(RingLink from) {
        from.commit(from.claim(16));
        from.wakePeer();
    }

    @Test
    void aCommitBetweenThePrepareAndTheSleepIsNotLost() {
        RingLink[] link = pair();
        WordSleeper sleeper = WordSleeper.current();
        assertNotNull(sleeper);
        sleeper.prepare(link[0].wakeWord());
        link[0].arm(Link.ARM_WORD);
        send(link[1]);
        awaitWoken(sleeper); // at once, or never
        sleeper.finish();
        assertTrue(link[0].hasFrames());
        assertEquals(0, aRung.get(), "a peer armed for its word alone got a doorbell byte");
    }

    @Test
    void thePeersCommitWakesTheSleeper() throws Exception {
        RingLink[] link = pair();
        WordSleeper sleeper = WordSleeper.current();
        sleeper.prepare(link[0].wakeWord());
        link[0].arm(Link.ARM_WORD | Link.ARM_DOORBELL);
        Thread peer = later(() -> send(link[1]));
        awaitWoken(sleeper);
        sleeper.finish();
        peer.join();
        assertTrue(link[0].hasFrames());
        assertEquals(1, aRung.get(), "a peer armed for both was not rung on its doorbell too");
    }

    @Test
    void aWakeUpOfItsOwnProcessEndsTheSleepAndNoneReachesAFinishedOne() throws Exception {
        RingLink[] link = pair();
        WordSleeper sleeper = WordSleeper.current();
        sleeper.prepare(link[0].wakeWord());
        Thread waker = later(sleeper::wakeup);
        awaitWoken(sleeper);
        sleeper.finish();
        waker.join();

        sleeper.wakeup(); // finished: changes no word
        sleeper.prepare(link[0].wakeWord());
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
        sleeper.sleep(deadline);
        sleeper.finish();
        assertTrue(System.nanoTime() - deadline >= 0, "woke before its deadline with nothing to wake it");
    }

    @Test
    void aNudgeWakesAWordSleeperWithoutADoorbellByte() {
        RingLink[] link = pair();
        link[1].nudge();
        assertEquals(1, aNudged.get(), "a peer that did not arm gets its nudge on the doorbell");
        WordSleeper sleeper = WordSleeper.current();
        sleeper.prepare(link[0].wakeWord());
        link[0].arm(Link.ARM_WORD);
        link[1].nudge();
        awaitWoken(sleeper);
        sleeper.finish();
        assertEquals(1, aNudged.get(), "a peer asleep on its word alone got a doorbell byte nobody reads");
    }

    @Test
    void anEndThatSleepsOnDoorbellsStillWakesAPeersWord() {
        RingLink[] link = pair(false);
        assertEquals(0, link[1].wakeWord(), "configured for doorbells, yet offers its word to sleep on");
        long word = link[0].wakeWord();
        assertNotEquals(0, word);
        WordSleeper sleeper = WordSleeper.current();
        sleeper.prepare(word);
        link[0].arm(Link.ARM_WORD);
        send(link[1]);
        awaitWoken(sleeper);
        sleeper.finish();
        assertTrue(link[0].hasFrames());
    }

    /**
     * A blind sleeper (the service thread's credit waker) has the doorbell thread read the doorbell for it, unless a
     * word sleeper is registered too: that one wakes it once woken itself, and the peer rings no doorbell meanwhile
     * (it did, and every ring of an FTP transfer woke the doorbell thread as well). When the word sleeper leaves, the
     * doorbell is armed again for the blind one.
     */
    @Test
    void aWordSleeperStandsInForTheBlindOnesWhileItSleeps() {
        FrameRing ab = FrameRing.allocate(CAPACITY);
        FrameRing ba = FrameRing.allocate(CAPACITY);
        RingLink a = new RingLink(ba, ab, () -> { }, () -> { }, null, os, true);
        SessionWaiters waiters = new SessionWaiters(a);
        AtomicInteger ran = new AtomicInteger();
        Runnable creditWaker = ran::incrementAndGet;
        waiters.add(creditWaker);
        assertEquals(Link.ARM_DOORBELL, ba.armedHow());
        assertTrue(a.hasBlindSleepers());

        WordSleeper sleeper = WordSleeper.current();
        sleeper.prepare(a.wakeWord());
        waiters.add(sleeper);
        assertEquals(Link.ARM_WORD, ba.armedHow(), "the peer would ring the doorbell for a waker a word sleeper wakes");
        assertFalse(a.hasBlindSleepers(), "the doorbell thread would wake for the rings too");

        waiters.remove(sleeper);
        sleeper.finish();
        assertEquals(Link.ARM_DOORBELL, ba.armedHow(), "the waker left behind is armed for nothing it hears");
        assertTrue(a.hasBlindSleepers());
        waiters.wakeWordChanged();
        assertEquals(1, ran.get(), "the word sleeper that woke did not wake the waker");
    }

    /**
     * Two threads asleep on one session's word (a reader and a writer blocked at once): the one that woke wakes the
     * blind sleepers it stood in for, not the other, which the word wakes itself. Woken by the first, the second
     * would wake the first in turn when it left, and so on for as long as both stay blocked.
     */
    @Test
    void aWordSleeperThatWokeDoesNotWakeTheOthersOnTheWord() throws Exception {
        RingLink[] link = pair();
        long word = link[0].wakeWord();
        SessionWaiters waiters = new SessionWaiters(link[0]);
        WordSleeper[] writer = new WordSleeper[1];
        Thread other = new Thread(() -> {
            writer[0] = WordSleeper.current();
            writer[0].prepare(word);
        });
        other.start();
        other.join();
        waiters.add(writer[0]);
        WordSleeper reader = WordSleeper.current();
        reader.prepare(word);
        waiters.add(reader);

        int before = WordSleeper.valueOf(word);
        waiters.remove(reader);
        reader.finish();
        waiters.wakeWordChanged();
        assertEquals(before, WordSleeper.valueOf(word), "the reader that woke woke the writer too");
        waiters.remove(writer[0]);
        writer[0].finish();
    }

    /** Sleeps until woken, failing if the bound ran out instead. */
    private static void awaitWoken(WordSleeper sleeper) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        sleeper.sleep(deadline);
        assertTrue(deadline - System.nanoTime() > 0, "nothing woke the sleeper within " + BOUND_SECONDS + " s");
    }

    /** Runs {@code action} on a new thread after 20 ms, by when the caller sleeps. */
    private static Thread later(Runnable action) {
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            action.run();
        });
        t.start();
        return t;
    }
}
