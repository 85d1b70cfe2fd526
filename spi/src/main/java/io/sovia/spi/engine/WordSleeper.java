package io.sovia.spi.engine;

import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.os.NativeAccess;
import io.sovia.spi.os.NativeOs;
import jdk.internal.misc.Unsafe;

import java.io.IOException;

/**
 * One platform thread's way to sleep on a link's wake word ({@link Link#wakeWord()}), a futex in memory shared with
 * the peer: the peer wakes it with one {@code futex} call where a doorbell took a write, and the sleeper's own
 * {@code futex} call replaces a {@code poll} and the read that drained the doorbell. On one core shared by many
 * threads that was the difference between slower and faster than TCP, which also takes two calls a message.
 *
 * <p>An event count: {@link #prepare} reads the word before the caller arms the link and looks for work, and
 * {@link #sleep} sleeps only while the word still holds that value, so a wake-up between the look and the sleep
 * (which changes the word) is never lost. Wake-ups from this process ({@link #wakeup()}: close, the doorbell thread,
 * another sleeper that took the doorbell) change the word the same way.
 *
 * <p>A selector whose keys all have wake words sleeps on all of them at once and on a word of its own, which its
 * wake-ups change ({@link #sleepOnAny}, {@code futex_waitv}); it reads their values before it arms, as
 * {@link #prepare} does.
 *
 * <p>{@link #prepare}, the sleeps and {@link #finish} are the owning thread's; {@link #wakeup()} is anyone's.
 * The word's memory stays mapped while the thread is between {@code prepare} and {@code finish}: the waiting thread
 * holds its link. Outside that span nobody here touches the word.
 */
public final class WordSleeper {
    private static final Unsafe UNSAFE = Unsafe.getUnsafe();
    private static final ThreadLocal<WordSleeper> MINE = new ThreadLocal<>();

    private final NativeOs os;
    /** The word this thread is about to sleep or sleeps on, 0 outside a sleep; under this object's monitor. */
    private long word;
    /** The word's value when prepared; the owner's. */
    private int seen;

    private WordSleeper(NativeOs os) {
        this.os = os;
    }

    /** This thread's sleeper; null if the native calls cannot be had (then the caller sleeps another way). */
    public static WordSleeper current() {
        WordSleeper s = MINE.get();
        if (s == null) {
            try {
                s = new WordSleeper(NativeAccess.os());
            } catch (IOException | RuntimeException e) {
                SoviaLog.debugOnce("word-sleep", "blocked calls sleep on doorbells instead of wake words: " + e);
                return null;
            }
            MINE.set(s);
        }
        return s;
    }

    /** Starts a sleep on the word at {@code address}: call before arming the link and looking for work. */
    public synchronized void prepare(long address) {
        word = address;
        seen = UNSAFE.getIntVolatile(null, address);
    }

    /**
     * Sleeps until the word changes from its prepared value, a signal or the deadline; at once if it changed already.
     *
     * @param deadline {@link System#nanoTime()} deadline, or 0 for none
     */
    void sleep(long deadline) {
        long address;
        synchronized (this) {
            address = word;
        }
        long timeout = deadline == 0 ? 0 : deadline - System.nanoTime();
        if (address != 0 && (deadline == 0 || timeout > 0)) {
            os.futexWait(address, seen, timeout);
        }
    }

    /**
     * Sleeps until the prepared word or one of the first {@code count} words at {@code others} changes from its value
     * in {@code seen} (read before arming, see {@link #valueOf}), a signal or the deadline. {@code others} and
     * {@code seen} have room for one more, this sleeper's own word; {@code count} is below
     * {@link NativeOs#FUTEX_WAIT_ANY_MAX}.
     *
     * @param deadline {@link System#nanoTime()} deadline, or 0 for none
     */
    public void sleepOnAny(long[] others, int[] seen, int count, long deadline) {
        synchronized (this) {
            others[count] = word;
        }
        seen[count] = this.seen;
        if (others[count] != 0 && (deadline == 0 || deadline - System.nanoTime() > 0)) {
            os.futexWaitAny(others, seen, count + 1, deadline);
        }
    }

    /** Whether {@link #sleepOnAny} works here. */
    public boolean sleepsOnMany() {
        return os.hasFutexWaitAny();
    }

    /** The value of the word at {@code address} now, for an event count. */
    public static int valueOf(long address) {
        return UNSAFE.getIntVolatile(null, address);
    }

    /** Ends the sleep: later wake-ups do not touch the word, whose memory may go once the link does. */
    public synchronized void finish() {
        word = 0;
    }

    /** Ends the owner's current sleep, or the one it prepared; any thread, never blocks. */
    public synchronized void wakeup() {
        if (word != 0) {
            UNSAFE.getAndAddInt(null, word, 1);
            os.futexWake(word);
        }
    }
}
