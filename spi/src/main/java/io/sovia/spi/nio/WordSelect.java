package io.sovia.spi.nio;

import io.sovia.spi.engine.VirtualThreads;
import io.sovia.spi.engine.WordSleeper;
import io.sovia.spi.jdk.JdkNio;
import io.sovia.spi.os.NativeOs;

import java.nio.ByteBuffer;
import java.util.Set;

/**
 * How a {@link SoviaSelector} whose keys are all connections with wake words (shm) sleeps: on their rings' words
 * and a word of its own at once ({@code futex_waitv}), so a peer wakes it with one {@code futex} call, where epoll on
 * their doorbell sockets took the peer's write, the selector's {@code epoll_wait} and the read that drained the
 * byte. A selector with any other key (a listener, a TCP channel), or selecting on a virtual thread, sleeps in its
 * inner JDK selector as before: a futex cannot be waited on beside a descriptor.
 *
 * <p>The words' values are read before the keys are armed and scanned, and the sleep ends as soon as any of them
 * differs (an event count, see {@link WordSleeper}): a commit between the scan and the sleep is never lost. The
 * selector's own word is the one its thread's {@link WordSleeper} is prepared with: {@link #wakeup()}, and every
 * session's wake-up of its sleepers (close, a peer's death), change it.
 *
 * <p>The selecting thread's, except {@link #wakeup()}.
 */
final class WordSelect {
    /** The selector's own word; the buffer keeps its memory. */
    private final ByteBuffer own = ByteBuffer.allocateDirect(Long.BYTES);
    private final long ownAddress = JdkNio.address(own);
    /** The keys' words and their values before arming, with room for the own word after them. */
    private final long[] words = new long[NativeOs.FUTEX_WAIT_ANY_MAX];
    private final int[] seen = new int[NativeOs.FUTEX_WAIT_ANY_MAX];
    private int count;
    /** The selecting thread's sleeper from {@link #prepare} to {@link #finish}; null outside. */
    private volatile WordSleeper sleeping;

    /**
     * Starts a sleep on words if every one of the selector's {@code allKeys} keys is among {@code userKeys} and has a
     * wake word (and they are fewer than the kernel's limit): reads their values, which must come before the keys
     * are armed. Returns the sleeper to arm the keys with, or null to sleep in the inner selector.
     */
    WordSleeper prepare(Set<SoviaSelectionKey> userKeys, int allKeys) {
        // a virtual thread in a futex call would hold its carrier, and the scheduler adds none for a native call
        if (allKeys == 0 || userKeys.size() != allKeys || allKeys >= NativeOs.FUTEX_WAIT_ANY_MAX
                || VirtualThreads.current()) {
            return null;
        }
        WordSleeper sleeper = WordSleeper.current();
        if (sleeper == null || !sleeper.sleepsOnMany()) {
            return null;
        }
        int n = 0;
        for (SoviaSelectionKey key : userKeys) {
            long word = key.pollable().wakeWord();
            if (word == 0) {
                return null;
            }
            words[n] = word;
            seen[n] = WordSleeper.valueOf(word);
            n++;
        }
        count = n;
        sleeper.prepare(ownAddress);
        sleeping = sleeper;
        return sleeper;
    }

    /** Sleeps until a word changes, a signal, or {@code timeoutMillis} (0: no limit). */
    void sleep(long timeoutMillis) {
        long deadline = timeoutMillis > 0 ? System.nanoTime() + timeoutMillis * 1_000_000 : 0;
        sleeping.sleepOnAny(words, seen, count, deadline);
    }

    /** Ends the sleep {@link #prepare} started. */
    void finish(WordSleeper sleeper) {
        sleeping = null;
        sleeper.finish();
    }

    /** Ends the current or the prepared sleep; any thread. */
    void wakeup() {
        WordSleeper sleeper = sleeping;
        if (sleeper != null) {
            sleeper.wakeup();
        }
    }
}
