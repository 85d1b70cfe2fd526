package io.sovia.eth;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The layout of every frame the eth path sends: an Ethernet header with Sovia's EtherType, Sovia's header (an
 * ESP-style one: the connection's ports and the two ends' ids), then the payload, which for {@link #FRAME} is one
 * engine frame ({@code io.sovia.spi.engine.FrameFlyweight}: type, token, seq, ack, window, flags, data).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |                      destination MAC                          |  0
 * +                               +-------------------------------+
 * |                               |                               |  4
 * +-------------------------------+        source MAC             +
 * |                                                               |  8
 * +-------------------------------+-------------------------------+
 * |    EtherType 0x88B5 (BE)      |     kind      |    version    | 12
 * +-------------------------------+-------------------------------+
 * |        payload length         |   destination TCP port        | 16
 * +-------------------------------+-------------------------------+
 * |        source TCP port        |  liveness port (control, 0)   | 20
 * +-------------------------------+-------------------------------+
 * |  destination instance: the receiving JVM's random id (0: any) | 24
 * +---------------------------------------------------------------+
 * |            source instance: the sending JVM's id              | 28
 * +---------------------------------------------------------------+
 * |  destination link: the receiving end's id in its JVM (0: none)| 32
 * +---------------------------------------------------------------+
 * |             source link: the sending end's id                 | 36
 * +---------------------------------------------------------------+
 * |  payload: an engine frame (FRAME); the client's and the       | 40
 * |  server's IPv6 or IPv4-mapped address, 16 bytes each (HELLO)  |
 * </pre>
 * Sovia's fields are little endian, the EtherType big endian as on the wire. Frames shorter than Ethernet's
 * 60-byte minimum arrive padded: the payload length says where a frame ends. The receiving JVM's packet
 * sockets filter on kind and destination instance in the kernel ({@link EthFilters}), so a JVM sees only
 * frames meant for it. Control frames name the sending JVM's liveness port ({@link EthLiveness}); 0 in data frames
 * and from agents that have none.
 */
final class EthFrameDescriptor {
    /** IEEE 802 "local experimental" EtherType. */
    static final int ETHER_TYPE = 0x88B5;
    static final int VERSION = 1;

    static final int DESTINATION_MAC = 0;
    static final int SOURCE_MAC = 6;
    static final int ETHER_TYPE_OFFSET = 12;
    static final int KIND = 14;
    static final int VERSION_OFFSET = 15;
    static final int PAYLOAD_LENGTH = 16;
    static final int DESTINATION_PORT = 18;
    static final int SOURCE_PORT = 20;
    static final int LIVENESS_PORT = 22;
    static final int DESTINATION_INSTANCE = 24;
    static final int SOURCE_INSTANCE = 28;
    static final int DESTINATION_LINK = 32;
    static final int SOURCE_LINK = 36;
    /** Bytes before the payload, the 14-byte Ethernet header included. */
    static final int HEADER_LENGTH = 40;
    /** Bytes of the Ethernet header, which the interface's MTU does not count. */
    static final int ETHERNET_HEADER = 14;

    /** One engine frame for the destination link. */
    static final byte FRAME = 1;
    /** A client asks the listener on the destination port for a link; destination instance and link 0. */
    static final byte HELLO = 2;
    /** The listener's JVM answers a HELLO: its source link is the server's end. */
    static final byte HELLO_OK = 3;
    /** The sender's end polls its session although it did not arm (the engine's nudge). */
    static final byte NUDGE = 4;
    /** The sending JVM is alive; sent to every JVM it has links with, on a timer. */
    static final byte BEAT = 5;
    /** The destination link is gone (closed, or unknown to this JVM): its peer must stop waiting. */
    static final byte GONE = 6;

    /** A HELLO's payload: the client's address, then the server's, 16 bytes each. */
    static final int HELLO_PAYLOAD = 32;

    private EthFrameDescriptor() {
    }

    /** Writes the header of a frame with a {@code payloadLength}-byte payload into {@code b} at {@code at}. */
    static void header(ByteBuffer b, int at, long destinationMac, long sourceMac, byte kind, int payloadLength,
                       int destinationPort, int sourcePort, int destinationInstance, int sourceInstance,
                       int destinationLink, int sourceLink) {
        b.order(ByteOrder.LITTLE_ENDIAN);
        putMac(b, at + DESTINATION_MAC, destinationMac);
        putMac(b, at + SOURCE_MAC, sourceMac);
        b.putShort(at + ETHER_TYPE_OFFSET, Short.reverseBytes((short) ETHER_TYPE));
        b.put(at + KIND, kind);
        b.put(at + VERSION_OFFSET, (byte) VERSION);
        b.putShort(at + PAYLOAD_LENGTH, (short) payloadLength);
        b.putShort(at + DESTINATION_PORT, (short) destinationPort);
        b.putShort(at + SOURCE_PORT, (short) sourcePort);
        b.putShort(at + LIVENESS_PORT, (short) 0);
        b.putInt(at + DESTINATION_INSTANCE, destinationInstance);
        b.putInt(at + SOURCE_INSTANCE, sourceInstance);
        b.putInt(at + DESTINATION_LINK, destinationLink);
        b.putInt(at + SOURCE_LINK, sourceLink);
    }

    /** The frame's length on the wire for a payload of {@code payloadLength}, Ethernet's minimum of 60 applied. */
    static int wireLength(int payloadLength) {
        return Math.max(HEADER_LENGTH + payloadLength, 60);
    }

    static byte kind(ByteBuffer b, int frame) {
        return b.get(frame + KIND);
    }

    static int version(ByteBuffer b, int frame) {
        return b.get(frame + VERSION_OFFSET) & 0xFF;
    }

    static int payloadLength(ByteBuffer b, int frame) {
        return b.getShort(frame + PAYLOAD_LENGTH) & 0xFFFF;
    }

    static int destinationPort(ByteBuffer b, int frame) {
        return b.getShort(frame + DESTINATION_PORT) & 0xFFFF;
    }

    static int sourcePort(ByteBuffer b, int frame) {
        return b.getShort(frame + SOURCE_PORT) & 0xFFFF;
    }

    static int livenessPort(ByteBuffer b, int frame) {
        return b.getShort(frame + LIVENESS_PORT) & 0xFFFF;
    }

    /** Names the sending JVM's liveness port in a header {@link #header} wrote at 0 of {@code b}. */
    static void putLivenessPort(ByteBuffer b, int port) {
        b.putShort(LIVENESS_PORT, (short) port);
    }

    static int destinationInstance(ByteBuffer b, int frame) {
        return b.getInt(frame + DESTINATION_INSTANCE);
    }

    static int sourceInstance(ByteBuffer b, int frame) {
        return b.getInt(frame + SOURCE_INSTANCE);
    }

    static int destinationLink(ByteBuffer b, int frame) {
        return b.getInt(frame + DESTINATION_LINK);
    }

    static int sourceLink(ByteBuffer b, int frame) {
        return b.getInt(frame + SOURCE_LINK);
    }

    static long sourceMac(ByteBuffer b, int frame) {
        return mac(b, frame + SOURCE_MAC);
    }

    /** A MAC as the low 48 bits of a long, first byte highest. */
    static long mac(ByteBuffer b, int at) {
        long mac = 0;
        for (int i = 0; i < 6; i++) {
            mac = mac << 8 | (b.get(at + i) & 0xFF);
        }
        return mac;
    }

    static void putMac(ByteBuffer b, int at, long mac) {
        for (int i = 5; i >= 0; i--) {
            b.put(at + i, (byte) mac);
            mac >>>= 8;
        }
    }

    /** {@code aa:bb:cc:dd:ee:ff} as a long; IllegalArgumentException when it is not one. */
    static long parseMac(String text) {
        String[] parts = text.split(":");
        if (parts.length != 6) {
            throw new IllegalArgumentException("not a MAC address: " + text);
        }
        long mac = 0;
        for (String p : parts) {
            if (p.length() != 2 || Character.digit(p.charAt(0), 16) < 0 || Character.digit(p.charAt(1), 16) < 0) {
                throw new IllegalArgumentException("not a MAC address: " + text);
            }
            mac = mac << 8 | Integer.parseInt(p, 16);
        }
        return mac;
    }

    static String formatMac(long mac) {
        StringBuilder sb = new StringBuilder(17);
        for (int i = 5; i >= 0; i--) {
            sb.append(String.format("%02x", (mac >>> (8 * i)) & 0xFF)).append(i > 0 ? ":" : "");
        }
        return sb.toString();
    }
}
