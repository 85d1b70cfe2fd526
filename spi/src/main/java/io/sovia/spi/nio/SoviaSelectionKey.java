package io.sovia.spi.nio;

import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.spi.AbstractSelectionKey;

/**
 * A registration of one channel with one {@link SoviaSelector}.
 *
 * <p>Behind it, the selector keeps an inner key in its JDK selector for the channel's current
 * {@link Pollable#pollChannel() poll channel}; the inner key's attachment is this key.
 */
final class SoviaSelectionKey extends AbstractSelectionKey {
    private final SoviaSelector selector;
    private final SelectableChannel channel;
    private final Pollable pollable;

    /** Written by any thread through {@link #interestOps(int)}, applied by the selector thread. */
    private volatile int interestOps;
    /** Owned by the selector thread, read by the app after select returns (the JDK's rule). */
    private volatile int readyOps;
    /** Owned by the selector thread; read by app threads only to cancel it. */
    private volatile SelectionKey innerKey;
    /** Set when queued for the selector thread to apply {@link #interestOps}, so it is queued once. */
    private volatile boolean updateQueued;

    SoviaSelectionKey(SoviaSelector selector, SelectableChannel channel, Pollable pollable) {
        this.selector = selector;
        this.channel = channel;
        this.pollable = pollable;
    }

    @Override
    public SelectableChannel channel() {
        return channel;
    }

    @Override
    public Selector selector() {
        return selector;
    }

    Pollable pollable() {
        return pollable;
    }

    @Override
    public int interestOps() {
        ensureValid();
        return interestOps;
    }

    @Override
    public SelectionKey interestOps(int ops) {
        ensureValid();
        if ((ops & ~channel.validOps()) != 0) {
            throw new IllegalArgumentException("Invalid interest ops: " + ops);
        }
        interestOps = ops;
        selector.queueUpdate(this);
        return this;
    }

    @Override
    public int readyOps() {
        ensureValid();
        return readyOps;
    }

    void readyOps(int ops) {
        readyOps = ops;
    }

    int rawInterestOps() {
        return interestOps;
    }

    SelectionKey innerKey() {
        return innerKey;
    }

    void innerKey(SelectionKey key) {
        innerKey = key;
    }

    /** The channel's poll source changed: the selector must look at this key again, now. */
    void reapply() {
        selector.queueUpdate(this);
        selector.wakeup();
    }

    boolean markQueued() {
        if (updateQueued) {
            return false;
        }
        updateQueued = true;
        return true;
    }

    void clearQueued() {
        updateQueued = false;
    }

    private void ensureValid() {
        if (!isValid()) {
            throw new CancelledKeyException();
        }
    }
}
