package io.sovia.spi.nio;

import java.nio.channels.SelectionKey;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Sovia selection keys of one channel, one per selector it is registered with.
 *
 * <p>{@code AbstractSelectableChannel} keeps its keys private, but a channel going blocking must cancel
 * the inner JDK keys behind them at once: the JDK refuses {@code configureBlocking(true)} on a channel
 * with a valid key (the JDK HttpServer does {@code key.cancel(); ch.configureBlocking(true)}).
 */
final class ChannelKeys {
    /** Added by a registering app thread, removed by the selector thread; hence concurrent. */
    private final Set<SoviaSelectionKey> keys = ConcurrentHashMap.newKeySet();

    void add(SoviaSelectionKey key) {
        keys.add(key);
    }

    void remove(SoviaSelectionKey key) {
        keys.remove(key);
    }

    /** The channel's poll source changed (it moved onto a session): each selector re-examines its key. */
    void backendChanged() {
        for (SoviaSelectionKey key : keys) {
            if (key.isValid()) {
                key.reapply();
            }
        }
    }

    /**
     * Cancels the inner JDK keys of every cancelled Sovia key, so the inner channel may go blocking.
     * Called with the channel's blocking lock held, which the selector also holds while registering.
     */
    void cancelInnerKeysOfCancelled() {
        for (SoviaSelectionKey key : keys) {
            if (!key.isValid()) {
                SelectionKey inner = key.innerKey();
                if (inner != null) {
                    inner.cancel();
                }
            }
        }
    }
}
