package io.sovia.spi.nio;

import java.nio.channels.SelectableChannel;

/**
 * How {@link SoviaSelector} learns readiness of one registered channel: which JDK channel to put in
 * its inner JDK selector, and the keys registered for the channel (so going blocking can drop them).
 */
interface Pollable {
    /** The JDK channel to register in the inner selector now; may change when a backend is swapped. */
    SelectableChannel pollChannel();

    /** The Sovia keys registered for this channel, across selectors. */
    ChannelKeys selectorKeys();

    /** When {@link #pollChannel()} is null: which of {@code interestOps} are ready now. */
    int readyOps(int interestOps);

    /**
     * When {@link #pollChannel()} is null: registers or removes a sleeper to wake on readiness changes: the
     * Sovia selector's inner one, never the Sovia selector, since a readiness change is no app wakeup and must not
     * end a select when the key is not ready for its interest; it also sleeps on {@link #doorbell()}. Or the
     * selecting thread's {@link io.sovia.spi.engine.WordSleeper}, when the selector sleeps on wake words.
     */
    void armSelector(Object sleeper, boolean arm);

    /** When {@link #pollChannel()} is null: the word a selector may sleep on for this channel, or 0. */
    default long wakeWord() {
        return 0;
    }

    /** A selector asleep on {@link #wakeWord()} woke: answer what the peer asked on an unread doorbell. */
    default void wakeWordChanged() {
    }

    /**
     * When {@link #pollChannel()} is null: a kernel channel, readable when the peer rings, for the
     * selector to sleep on in its inner selector; null if none.
     */
    default SelectableChannel doorbell() {
        return null;
    }

    /** The {@link #doorbell()} was found readable: take the ring; false once the doorbell has ended. */
    default boolean doorbellRung() {
        return true;
    }
}
