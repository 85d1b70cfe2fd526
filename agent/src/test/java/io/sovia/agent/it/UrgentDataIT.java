package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.net.Socket;

/**
 * {@code Socket.sendUrgentData} as TCP gives it: with SO_OOBINLINE on at the reader the urgent byte arrives in the
 * stream, in order; off (the default), it never does, since Java has no call that reads out-of-band data.
 */
class UrgentDataIT extends SoviaTestBase {

    @TransportTest
    void urgentByteArrivesInlineWhenTheReaderAsks(Transport transport) throws IOException {
        assumeNotRelayed(transport);
        try (SocketPair pair = SocketPair.open(transport)) {
            pair.accepted().setOOBInline(true);
            assertTrue(pair.accepted().getOOBInline());
            Socket client = pair.client();
            client.getOutputStream().write(1);
            client.sendUrgentData(2);
            client.getOutputStream().write(3);
            assertArrayEquals(new byte[] {1, 2, 3}, Io.readFully(pair.accepted().getInputStream(), 3));
        }
    }

    @TransportTest
    void urgentByteIsDroppedWithoutOobInline(Transport transport) throws IOException {
        assumeNotRelayed(transport);
        try (SocketPair pair = SocketPair.open(transport)) {
            assertFalse(pair.accepted().getOOBInline());
            Socket client = pair.client();
            client.getOutputStream().write(1);
            client.sendUrgentData(2);
            client.getOutputStream().write(3);
            assertArrayEquals(new byte[] {1, 3}, Io.readFully(pair.accepted().getInputStream(), 2));
        }
    }

    /** Through a channel's socket adaptor, on both ends. */
    @TransportTest
    void adaptorsSendAndInlineUrgentData(Transport transport) throws IOException {
        assumeNotRelayed(transport);
        try (NioPair pair = NioPair.open(transport)) {
            pair.accepted().socket().setOOBInline(true);
            pair.client().socket().getOutputStream().write(1);
            pair.client().socket().sendUrgentData(2);
            assertArrayEquals(new byte[] {1, 2}, Io.readFully(pair.accepted(), 2));
        }
    }

    /** A relay passes bytes, not urgency: its own reading socket decides what becomes of the urgent byte. */
    private static void assumeNotRelayed(Transport transport) {
        assumeFalse(transport instanceof RelayedTransport, "urgent data does not cross a relay");
    }
}
