package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * What a selection does with keys that are ready: a select never sleeps while a registered channel is ready, even
 * when its key is already selected, and the {@code select(Consumer)} forms hand ready keys to the action without
 * touching the selected-key set, refusing a select from inside the action.
 */
class SelectorSemanticsIT extends SoviaTestBase {

    /** Long enough that a select returning well before it did not wait for it. */
    private static final long LONG_SELECT_MILLIS = 10_000;

    @TransportTest
    void selectReturnsAtOnceWhileASelectedSocketKeyStaysReady(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport); Selector selector = Selector.open()) {
            Io.writeFully(pair.accepted(), ByteBuffer.wrap(new byte[] {1}));
            SelectionKey key = register(pair.client(), selector, SelectionKey.OP_READ | SelectionKey.OP_WRITE);
            assertSelectDoesNotSleepWhileSelected(selector, key, SelectionKey.OP_READ | SelectionKey.OP_WRITE);
        }
    }

    @TransportTest
    void selectReturnsAtOnceWhileASelectedPassThroughKeyStaysReady(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport); Selector selector = Selector.open()) {
            Pipe pipe = Pipe.open();
            try (Pipe.SourceChannel source = pipe.source(); Pipe.SinkChannel sink = pipe.sink()) {
                // an idle socket channel beside it, so the selector has a connection of the transport to sleep on
                register(pair.client(), selector, SelectionKey.OP_READ);
                SelectionKey key = register(sink, selector, SelectionKey.OP_WRITE);
                assertSelectDoesNotSleepWhileSelected(selector, key, SelectionKey.OP_WRITE);
            }
        }
    }

    @TransportTest
    void selectActionGetsReadyKeysAndLeavesSelectedSetAlone(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport); Selector selector = Selector.open()) {
            SelectionKey key = register(pair.client(), selector, SelectionKey.OP_READ);
            List<Integer> seen = new ArrayList<>();
            Consumer<SelectionKey> action = k -> {
                assertEquals(key, k);
                seen.add(k.readyOps());
            };
            assertEquals(0, selector.selectNow(action), "nothing ready yet");
            assertEquals(List.of(), seen);

            Io.writeFully(pair.accepted(), ByteBuffer.wrap(new byte[] {1}));
            assertEquals(1, selector.select(action, LONG_SELECT_MILLIS));
            assertEquals(List.of(SelectionKey.OP_READ), seen, "the action runs once, with the key's ready ops");
            assertEquals(Set.of(), selector.selectedKeys(), "the action forms add nothing to the selected-key set");

            assertEquals(1, selector.selectNow(), "the byte is still unread: the key goes in the selected-key set");
            assertEquals(Set.of(key), selector.selectedKeys());
            seen.clear();
            assertEquals(1, selector.select(action));
            assertEquals(1, selector.selectNow(action));
            assertEquals(List.of(SelectionKey.OP_READ, SelectionKey.OP_READ), seen,
                    "a key already in the selected-key set still goes to the action");
            assertEquals(Set.of(key), selector.selectedKeys(), "and the selected-key set is kept as it was");

            assertThrows(NullPointerException.class, () -> selector.select((Consumer<SelectionKey>) null));
            assertThrows(IllegalArgumentException.class, () -> selector.select(action, -1));
        }
    }

    @TransportTest
    void selectFromInsideTheActionIsRefused(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport); Selector selector = Selector.open()) {
            SelectionKey key = register(pair.client(), selector, SelectionKey.OP_WRITE);
            List<Selection> reentries = List.of(selector::selectNow, () -> selector.select(1), selector::select,
                    () -> selector.selectNow(k -> { }), () -> selector.select(k -> { }, 1));
            List<Throwable> thrown = new ArrayList<>();
            int selected = selector.select(k -> {
                for (Selection reentry : reentries) {
                    thrown.add(assertThrows(IllegalStateException.class, reentry::run));
                }
            }, LONG_SELECT_MILLIS);
            assertEquals(1, selected);
            assertEquals(reentries.size(), thrown.size(), "every reentrant select throws");
            for (Throwable t : thrown) {
                assertInstanceOf(IllegalStateException.class, t);
                assertEquals("select in progress", t.getMessage());
            }
            assertEquals(1, selector.selectNow(), "the selector still works afterwards");
            assertEquals(Set.of(key), selector.selectedKeys());
        }
    }

    /** A selection call made from inside an action. */
    @FunctionalInterface
    private interface Selection {
        void run() throws IOException;
    }

    /**
     * Waits until {@code key} is selected with {@code ops}, then leaves it in the selected-key set: select() and
     * select(timeout) must return 0 at once (the key's readiness did not change, but the channel is ready), as the
     * JDK's level-triggered epoll does, and keep the key selected with its ready ops.
     */
    private static void assertSelectDoesNotSleepWhileSelected(Selector selector, SelectionKey key, int ops)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Io.WAIT_MILLIS);
        while (!selector.selectedKeys().contains(key) || key.readyOps() != ops) {
            assertTrue(System.nanoTime() < deadline, () -> "never selected with ops " + ops);
            selector.select(100);
        }
        long start = System.nanoTime();
        assertEquals(0, selector.select(LONG_SELECT_MILLIS), "select(timeout)");
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(took < LONG_SELECT_MILLIS / 4, () -> "select(timeout) slept " + took + " ms");
        // bounded by Async: a select() that sleeps is woken when the test closes the selector
        assertEquals(0, Async.start("select", selector::select).get(), "select()");
        assertEquals(Set.of(key), selector.selectedKeys());
        assertEquals(ops, key.readyOps());
    }

    /** Registers a channel in non-blocking mode. */
    private static SelectionKey register(SelectableChannel channel, Selector selector, int ops) throws IOException {
        channel.configureBlocking(false);
        return channel.register(selector, ops);
    }
}
