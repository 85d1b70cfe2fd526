package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.IllegalBlockingModeException;

/**
 * The streams of {@code Channels.newInputStream}/{@code newOutputStream} over a socket channel behave as the JDK's:
 * bytes both ways, single bytes, end of stream after the peer's shutdown, IllegalBlockingModeException on a
 * non-blocking channel, closing a stream closes the channel. Under the agent they are Sovia's own (no monitor per
 * call), which the last scenario checks.
 */
class ChannelStreamsIT extends SoviaTestBase {

    @TransportTest
    void streamsCarryBytesBothWaysAndEndAtThePeersShutdown(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport)) {
            OutputStream out = Channels.newOutputStream(pair.client());
            InputStream in = Channels.newInputStream(pair.accepted());
            byte[] data = Io.pattern(0, 100_000);
            out.write(7);
            out.write(data, 0, data.length);
            out.write(data, 10, 0);
            assertEquals(7, in.read());
            assertArrayEquals(data, Io.readFully(in, data.length));
            assertEquals(0, in.read(new byte[10], 0, 0));

            Channels.newOutputStream(pair.accepted()).write(data, 5, 300);
            assertArrayEquals(java.util.Arrays.copyOfRange(data, 5, 305),
                    Io.readFully(Channels.newInputStream(pair.client()), 300));

            pair.client().shutdownOutput();
            assertEquals(-1, in.read());
            assertEquals(-1, in.read(new byte[10]));
            assertThrows(IndexOutOfBoundsException.class, () -> out.write(data, 99_999, 2));
        }
    }

    @TransportTest
    void aNonBlockingChannelsStreamsThrow(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport)) {
            pair.client().configureBlocking(false);
            OutputStream out = Channels.newOutputStream(pair.client());
            InputStream in = Channels.newInputStream(pair.client());
            assertThrows(IllegalBlockingModeException.class, () -> out.write(new byte[10]));
            assertThrows(IllegalBlockingModeException.class, () -> in.read(new byte[10]));
            pair.client().configureBlocking(true);
            out.write(new byte[10]);
            assertEquals(10, Io.readFully(pair.accepted(), 10).length);
        }
    }

    @TransportTest
    void closingAStreamClosesItsChannel(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport)) {
            Channels.newInputStream(pair.client()).close();
            assertFalse(pair.client().isOpen());
            assertThrows(ClosedChannelException.class, () -> pair.client().write(ByteBuffer.allocate(1)));
            Channels.newOutputStream(pair.accepted()).close();
            assertFalse(pair.accepted().isOpen());
        }
    }

    @TransportTest
    void underTheAgentTheStreamsAreSoviasOwn(Transport transport) throws Exception {
        try (NioPair pair = NioPair.open(transport)) {
            String output = Channels.newOutputStream(pair.client()).getClass().getName();
            String input = Channels.newInputStream(pair.client()).getClass().getName();
            if (Boolean.getBoolean("sovia.it.plain")) {
                assertFalse(output.startsWith("io.sovia") || input.startsWith("io.sovia"), output + ", " + input);
            } else {
                assertTrue(output.startsWith("io.sovia") && input.startsWith("io.sovia"), output + ", " + input);
            }
        }
    }
}
