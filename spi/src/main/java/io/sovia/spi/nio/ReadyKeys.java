package io.sovia.spi.nio;

import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The keys one selection of a {@link SoviaSelector} found ready, gathered until the selection ends and
 * then handed over once, as the JDK's selectors do after their single epoll pass.
 *
 * <p>Gathered first because one selection may see a key several times (a spin scans user-level keys over
 * and over, the kernel's answer comes on top). Whether anything is ready is what ends the selection's
 * wait, whether or not the key is already in the selected-key set: a level-triggered epoll does not sleep
 * while a registered channel is ready, so the JDK's {@code select()} returns 0 at once then.
 *
 * <p>Selecting thread only.
 */
final class ReadyKeys {
    private final Selector selector;
    private final Set<SelectionKey> selectedKeys;
    private final Map<SoviaSelectionKey, Integer> found = new LinkedHashMap<>();

    ReadyKeys(Selector selector, Set<SelectionKey> selectedKeys) {
        this.selector = selector;
        this.selectedKeys = selectedKeys;
    }

    /** Notes that {@code ready} (already limited to the key's interest) are ready on the key's channel. */
    void add(SoviaSelectionKey key, int ready) {
        if (ready != 0) {
            found.merge(key, ready, (a, b) -> a | b);
        }
    }

    /** Whether the selection found any key ready, selected before or not. */
    boolean any() {
        return !found.isEmpty();
    }

    /** Forgets what was found; a selection that failed half-way must not leave stale readiness behind. */
    void clear() {
        found.clear();
    }

    /**
     * Hands every key still valid to {@code action}, or when it is null into the selected-key set;
     * returns how many keys were updated, the select's result.
     *
     * <p>Into the set by the JDK's rule: a key not yet selected gets exactly its ready ops; a selected one
     * accumulates them and counts only if it gained some. An action gets each key with its ready ops set
     * to what is ready now, selected or not, and the set is left alone (the JDK's
     * {@code select(Consumer)}); as there, an action that closes the selector ends the selection.
     */
    int deliver(Consumer<SelectionKey> action) {
        int updated = 0;
        for (Map.Entry<SoviaSelectionKey, Integer> entry : found.entrySet()) {
            SoviaSelectionKey key = entry.getKey();
            if (key.isValid() && (action != null ? run(action, key, entry.getValue())
                    : select(key, entry.getValue()))) {
                updated++;
            }
        }
        return updated;
    }

    private boolean run(Consumer<SelectionKey> action, SoviaSelectionKey key, int ready) {
        key.readyOps(ready);
        action.accept(key);
        if (!selector.isOpen()) {
            throw new ClosedSelectorException();
        }
        return true;
    }

    private boolean select(SoviaSelectionKey key, int ready) {
        if (selectedKeys.contains(key)) {
            int before = key.readyOps();
            key.readyOps(before | ready);
            return (before | ready) != before;
        }
        key.readyOps(ready);
        selectedKeys.add(key);
        return true;
    }
}
