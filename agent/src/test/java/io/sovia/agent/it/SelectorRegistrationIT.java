package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/** How channels move between selectors and blocking mode, and a channel registered with two selectors. */
class SelectorRegistrationIT extends SoviaTestBase {
    private static final long QUIET_SELECT_MILLIS = 500;

    /** The pattern of the JDK's HttpServer: leave the selector for a blocking exchange, then come back to it. */
    @TransportTest
    void cancelThenBlockingThenRegisterAgain(Transport transport) throws IOException {
        try (NioPair pair = NioPair.open(transport); Selector selector = Selector.open()) {
            SocketChannel channel = pair.accepted();
            SocketChannel peer = pair.client();
            channel.configureBlocking(false);
            SelectionKey first = channel.register(selector, SelectionKey.OP_READ);
            peer.write(ByteBuffer.wrap(new byte[] {1}));
            assertEquals(1, Io.readOne(selector, first));

            first.cancel();
            // A cancelled key no longer counts for blocking mode, even before a select has deregistered it.
            channel.configureBlocking(true);
            Io.assertTalks(channel, peer);

            channel.configureBlocking(false);
            assertThrows(CancelledKeyException.class, () -> channel.register(selector, SelectionKey.OP_READ),
                    "the cancelled key stays registered until the next selection operation");
            selector.selectNow();
            assertNull(channel.keyFor(selector));
            SelectionKey second = channel.register(selector, SelectionKey.OP_READ);
            assertNotSame(first, second);
            assertTrue(second.isValid());
            peer.write(ByteBuffer.wrap(new byte[] {2}));
            assertEquals(2, Io.readOne(selector, second));
            peer.write(ByteBuffer.wrap(new byte[] {3}));
            assertEquals(3, Io.readOne(selector, second), "readiness keeps being reported");
        }
    }

    @TransportTest
    void oneChannelInTwoSelectors(Transport transport) throws IOException {
        try (NioPair pair = NioPair.open(transport);
                Selector readSelector = Selector.open();
                Selector writeSelector = Selector.open()) {
            SocketChannel channel = pair.client();
            channel.configureBlocking(false);
            SelectionKey readKey = channel.register(readSelector, SelectionKey.OP_READ);
            SelectionKey writeKey = channel.register(writeSelector, SelectionKey.OP_WRITE);
            assertNotSame(readKey, writeKey);
            assertSame(readKey, channel.keyFor(readSelector));
            assertSame(writeKey, channel.keyFor(writeSelector));
            assertSame(readSelector, readKey.selector());
            assertSame(writeSelector, writeKey.selector());
            assertSame(channel, readKey.channel());
            assertSame(channel, writeKey.channel());

            Io.writeFully(pair.accepted(), ByteBuffer.wrap(new byte[] {4}));
            Io.awaitReady(readSelector, readKey, SelectionKey.OP_READ);
            Io.awaitReady(writeSelector, writeKey, SelectionKey.OP_WRITE);
            assertEquals(SelectionKey.OP_READ, readKey.readyOps(), "each key reports only its own interest");
            assertEquals(SelectionKey.OP_WRITE, writeKey.readyOps());

            readKey.cancel();
            readSelector.selectNow();
            assertFalse(readKey.isValid());
            assertNull(channel.keyFor(readSelector));
            assertTrue(writeKey.isValid(), "cancelling in one selector leaves the other alone");
            assertTrue(channel.isRegistered());
            writeKey.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
            Io.awaitReady(writeSelector, writeKey, SelectionKey.OP_READ);
            ByteBuffer one = ByteBuffer.allocate(1);
            assertEquals(1, channel.read(one));
            assertArrayEquals(new byte[] {4}, one.array());
        }
    }

    /**
     * Interest set while another thread selects counts from the next selection at the latest (the JDK applies it
     * there, without waking the running one), and then for a channel that was already readable.
     */
    @TransportTest
    void interestSetDuringSelectCountsFromTheNextSelection(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport); Selector selector = Selector.open()) {
            SocketChannel channel = pair.accepted();
            channel.configureBlocking(false);
            SelectionKey key = channel.register(selector, 0);
            pair.client().write(ByteBuffer.wrap(new byte[] {7}));
            Async<Integer> selecting = Async.start("selector", () -> selector.select(Io.WAIT_MILLIS));
            selecting.awaitBlockedIn("select");
            key.interestOps(SelectionKey.OP_READ);
            selector.wakeup();
            selecting.get();
            if (!key.isReadable()) {
                assertEquals(1, selector.select(Io.WAIT_MILLIS), "the next selection applies the new interest");
            }
            assertTrue(key.isReadable());
            assertEquals(7, Io.readOne(selector, key));
        }
    }

    /**
     * Data arriving for a key that has no read interest does not end a select, as the kernel's epoll does not
     * report it: the select runs to its timeout. (On a user-level connection the data rings a doorbell the select
     * sleeps on; that alone must not make it return.)
     */
    @TransportTest
    void dataWithoutInterestDoesNotEndASelect(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport); Selector selector = Selector.open()) {
            SocketChannel channel = pair.accepted();
            channel.configureBlocking(false);
            channel.register(selector, 0);
            Async<Long> selecting = Async.start("selector", () -> {
                long start = System.nanoTime();
                assertEquals(0, selector.select(QUIET_SELECT_MILLIS));
                return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            });
            selecting.awaitBlockedIn("select");
            pair.client().write(ByteBuffer.wrap(new byte[] {7}));
            long took = selecting.get();
            assertTrue(took >= QUIET_SELECT_MILLIS - 10, () -> "select(" + QUIET_SELECT_MILLIS + ") returned after "
                    + took + " ms for data on a key without read interest");
        }
    }
}
