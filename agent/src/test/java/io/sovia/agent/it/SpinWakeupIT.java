package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sovia.spi.engine.EngineCounters;
import io.sovia.spi.transport.PathKind;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A thread waiting on a user-level connection (jvm, shm, shm-2jvm) first spins for Sovia's spin budget
 * ({@code sovia.spin.micros}, read as each selector and connection is created) before it sleeps. Wakeup, interrupt and
 * arriving data must end that spin as they end a sleep. The budget here is {@value #SPIN_MICROS} microseconds, so a
 * wait that ends well before it ({@value #WOKEN_WITHIN_MILLIS} ms, a wide margin for a busy machine) was ended by the
 * event, not by running out of spin. Over tcp nothing spins, and the scenarios check the plain kernel wait.
 */
class SpinWakeupIT extends SoviaTestBase {

    private static final String SPIN_PROPERTY = "sovia.spin.micros";
    private static final String BUSY_PROPERTY = "sovia.spin.busy";
    private static final long SPIN_MICROS = 10_000_000;
    private static final long WOKEN_WITHIN_MILLIS = 3_000;

    /** Opens a selector or connection; what the spin budget applies to. */
    @FunctionalInterface
    private interface Opener<T> {
        T open() throws IOException;
    }

    /** What a select on another thread returned, how long it took and whether the thread was interrupted after. */
    private record Selected(int keys, long millis, boolean interrupted) {
    }

    @TransportTest
    void wakeupEndsSelectSpin(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport); Selector selector = withLongSpin(Selector::open)) {
            register(pair.client(), selector);
            Async<Selected> selecting = startSelect(selector);
            assertSpinningSelect(transport, selecting.awaitBlockedIn("select").thread());
            selector.wakeup();
            Selected selected = selecting.get();
            assertEquals(0, selected.keys());
            assertEndedEarly("select after wakeup", selected.millis());
        }
    }

    @TransportTest
    void interruptEndsSelectSpin(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport); Selector selector = withLongSpin(Selector::open)) {
            register(pair.client(), selector);
            Async<Selected> selecting = startSelect(selector);
            assertSpinningSelect(transport, selecting.awaitBlockedIn("select").thread());
            selecting.thread().interrupt();
            Selected selected = selecting.get();
            assertTrue(selected.interrupted(), "select returns with the interrupt status set");
            assertEndedEarly("select after interrupt", selected.millis());
            assertTrue(selector.isOpen(), "an interrupt does not close a selector");
            assertTrue(pair.client().isOpen(), "nor its channels");
        }
    }

    @TransportTest
    void dataEndsSelectSpin(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport); Selector selector = withLongSpin(Selector::open)) {
            SelectionKey key = register(pair.client(), selector);
            Async<Selected> selecting = startSelect(selector);
            assertSpinningSelect(transport, selecting.awaitBlockedIn("select").thread());
            Io.writeFully(pair.accepted(), ByteBuffer.wrap(new byte[] {7}));
            Selected selected = selecting.get();
            assertEquals(1, selected.keys());
            assertTrue(selector.selectedKeys().contains(key) && key.isReadable());
            assertEndedEarly("select after data", selected.millis());
        }
    }

    /** A select's own timeout bounds its wait, the spin included: a budget is no licence to overrun it. */
    @TransportTest
    void selectTimeoutEndsSpin(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport); Selector selector = withLongSpin(Selector::open)) {
            register(pair.client(), selector);
            long start = System.nanoTime();
            assertEquals(0, selector.select(200));
            assertEndedEarly("select(200)", millisSince(start));
        }
    }

    @TransportTest
    void interruptEndsReadSpin(Transport transport) throws Exception {
        try (NioPair pair = withLongSpin(() -> NioPair.open(transport))) {
            SocketChannel client = pair.client();
            long sleeps = EngineCounters.SLEEPS.sum();
            Async<Long> reader = Async.start("reader", () -> {
                long start = System.nanoTime();
                assertTrue(AsyncCloseIT.readExpectingInterrupt(client), "the reader keeps its interrupt status");
                return millisSince(start);
            });
            reader.awaitBlockedIn("read").thread().interrupt();
            assertEndedEarly("read after interrupt", reader.get());
            assertNoSleep(transport, sleeps, "interrupted");
            assertFalse(client.isOpen());
            assertEquals(-1, pair.accepted().read(ByteBuffer.allocate(1)), "the peer sees EOF");
        }
    }

    @TransportTest
    void dataEndsReadSpin(Transport transport) throws Exception {
        try (NioPair pair = withLongSpin(() -> NioPair.open(transport))) {
            SocketChannel client = pair.client();
            long sleeps = EngineCounters.SLEEPS.sum();
            Async<Long> reader = Async.start("reader", () -> {
                long start = System.nanoTime();
                assertEquals(42, Io.readFully(client, 1)[0]);
                return millisSince(start);
            });
            reader.awaitBlockedIn("read");
            Io.writeFully(pair.accepted(), ByteBuffer.wrap(new byte[] {42}));
            assertEndedEarly("read after data", reader.get());
            assertNoSleep(transport, sleeps, "given data");
        }
    }

    /**
     * Runs {@code opener} with a spin budget of {@value #SPIN_MICROS} microseconds that other threads wanting the core
     * do not cut short ({@code sovia.spin.busy=spin}: the test's own threads share two cores with it); only what it
     * creates gets that budget, so the properties are restored at once.
     */
    private static <T> T withLongSpin(Opener<T> opener) throws IOException {
        Map<String, String> before = new HashMap<>();
        Map<String, String> longSpin = Map.of(SPIN_PROPERTY, Long.toString(SPIN_MICROS), BUSY_PROPERTY, "spin");
        longSpin.forEach((key, value) -> before.put(key, System.setProperty(key, value)));
        try {
            return opener.open();
        } finally {
            before.forEach((key, value) -> {
                if (value == null) {
                    System.clearProperty(key);
                } else {
                    System.setProperty(key, value);
                }
            });
        }
    }

    private static SelectionKey register(SocketChannel channel, Selector selector) throws IOException {
        channel.configureBlocking(false);
        return channel.register(selector, SelectionKey.OP_READ);
    }

    private static Async<Selected> startSelect(Selector selector) {
        return Async.start("selecting", () -> {
            long start = System.nanoTime();
            int keys = selector.select();
            return new Selected(keys, millisSince(start), Thread.currentThread().isInterrupted());
        });
    }

    /** Whether Sovia's engine carries the transport's connections, so waits on them spin first. */
    private static boolean spins(Transport transport) {
        return !Boolean.getBoolean("sovia.it.plain") && transport.path() != PathKind.TCP;
    }

    /**
     * Checks that the test reached the spin, not the sleep after it: a selector sleeps in the JDK selector inside
     * it, while its spin polls Sovia's own connections.
     */
    private static void assertSpinningSelect(Transport transport, Thread selecting) {
        if (spins(transport)) {
            StackTraceElement[] stack = selecting.getStackTrace();
            assertTrue(Arrays.stream(stack).noneMatch(frame -> frame.getClassName().startsWith("sun.nio.ch.")),
                    () -> "with a " + SPIN_MICROS + "-microsecond budget the select should still spin, but it sleeps"
                            + " in: " + Arrays.toString(stack));
        }
    }

    /** Checks that no thread of this JVM gave up spinning and slept meanwhile (the reader was the only waiter). */
    private static void assertNoSleep(Transport transport, long sleepsBefore, String what) {
        if (spins(transport)) {
            assertEquals(sleepsBefore, EngineCounters.SLEEPS.sum(),
                    "with a " + SPIN_MICROS + "-microsecond budget the reader should still spin when " + what);
        }
    }

    private static void assertEndedEarly(String what, long millis) {
        assertTrue(millis < WOKEN_WITHIN_MILLIS, () -> what + " took " + millis + " ms: the spin of "
                + SPIN_MICROS / 1000 + " ms ran on instead of ending");
    }

    private static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }
}
