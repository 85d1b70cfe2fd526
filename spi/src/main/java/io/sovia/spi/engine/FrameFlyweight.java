package io.sovia.spi.engine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The engine's frame: one fixed header, then an optional payload. The one place that knows the layout;
 * a flyweight over any buffer, so the data path makes no object per frame.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------+---------------+-------------------------------+
 * |     type      |     flags     |            reserved           |  0
 * +---------------+---------------+-------------------------------+
 * |                        payload length                         |  4
 * +---------------------------------------------------------------+
 * |               token of the receiving end (0 in SYN)           |  8
 * |                                                               |
 * +---------------------------------------------------------------+
 * |    sequence number (SYN, SYN_ACK, DATA and FIN consume one)   | 16
 * +---------------------------------------------------------------+
 * |       ack: the next sequence number the sender expects        | 20
 * +---------------------------------------------------------------+
 * |     window edge: the receiver of this frame may send data     | 24
 * |          up to this absolute byte offset of the stream        |
 * +---------------------------------------------------------------+
 * |   payload: data (DATA), the sender's token (SYN, SYN_ACK),    | 32
 * |   or which frames past a gap the sender holds (ACK with GAP)  |
 * </pre>
 * Little endian. Every frame carries ack and window edge, so acknowledgements ride on data.
 *
 * <p>The payload of an ACK flagged {@link #FLAG_GAP} (lossy links) is a bitmap, TCP's SACK as one bit per frame:
 * bit i (byte i / 8, bit i % 8 counting from the least significant) is set when the sender of the ACK holds frame
 * {@code ack + 1 + i}. It spans the receiver's window, at most {@value #SACK_MAX_BITS} frames.
 * <pre>
 *   ack = n     byte 0: bit 0 = frame n+1, bit 1 = frame n+2, ... bit 7 = frame n+8;  byte 1: frames n+9..n+16 ...
 * </pre>
 */
public final class FrameFlyweight {
    /** Bytes before the payload. */
    public static final int HEADER_LENGTH = 32;
    /** The most frames past a gap an ACK's bitmap tells of: 128 bytes, which fits the smallest frame. */
    public static final int SACK_MAX_BITS = 1024;

    /** Opens a connection; payload: the opener's token. */
    public static final byte SYN = 1;
    /** Accepts a connection; payload: the accepter's token. */
    public static final byte SYN_ACK = 2;
    /** Carries stream bytes. */
    public static final byte DATA = 3;
    /** Carries only ack and window edge. */
    public static final byte ACK = 4;
    /** The sender will send no more data. */
    public static final byte FIN = 5;
    /** Confirms a FIN. */
    public static final byte FIN_ACK = 6;
    /** Aborts the connection. */
    public static final byte RST = 7;

    /** On an ACK: the receiver must answer with an ACK (a window probe). */
    public static final byte FLAG_PROBE = 1;
    /** On a one-byte DATA: TCP's urgent byte, which the receiver reads inline with SO_OOBINLINE, else drops. */
    public static final byte FLAG_URGENT = 2;
    /**
     * On any frame over a lossy link: its sender keeps frames beyond a gap at its ack (it got them out of order), so
     * the frame at the ack was lost and should be sent again (SACK's one bit: where the first gap is).
     */
    public static final byte FLAG_GAP = 4;

    private static final int TYPE = 0;
    private static final int FLAGS = 1;
    private static final int LENGTH = 4;
    private static final int TOKEN = 8;
    private static final int SEQ = 16;
    private static final int ACK_SEQ = 20;
    private static final int WINDOW = 24;

    private ByteBuffer buffer;
    private int offset;

    /** Points this flyweight at a frame starting at {@code offset}; the buffer's order becomes little endian. */
    public FrameFlyweight wrap(ByteBuffer buffer, int offset) {
        this.buffer = buffer.order(ByteOrder.LITTLE_ENDIAN);
        this.offset = offset;
        return this;
    }

    /** Writes a whole header. */
    public FrameFlyweight header(byte type, byte flags, int payloadLength, long token, int seq, int ack, long window) {
        buffer.put(offset + TYPE, type);
        buffer.put(offset + FLAGS, flags);
        buffer.putShort(offset + 2, (short) 0);
        buffer.putInt(offset + LENGTH, payloadLength);
        buffer.putLong(offset + TOKEN, token);
        buffer.putInt(offset + SEQ, seq);
        buffer.putInt(offset + ACK_SEQ, ack);
        buffer.putLong(offset + WINDOW, window);
        return this;
    }

    public byte type() {
        return buffer.get(offset + TYPE);
    }

    public byte flags() {
        return buffer.get(offset + FLAGS);
    }

    public int payloadLength() {
        return buffer.getInt(offset + LENGTH);
    }

    public long token() {
        return buffer.getLong(offset + TOKEN);
    }

    public int seq() {
        return buffer.getInt(offset + SEQ);
    }

    public int ack() {
        return buffer.getInt(offset + ACK_SEQ);
    }

    public long window() {
        return buffer.getLong(offset + WINDOW);
    }

    /** Rewrites ack and window edge, as a retransmission must. */
    public void ackAndWindow(int ack, long window) {
        buffer.putInt(offset + ACK_SEQ, ack);
        buffer.putLong(offset + WINDOW, window);
    }

    /** Sets or clears {@link #FLAG_GAP}, leaving the other flags, for a frame resent with a fresh ack. */
    public void gap(boolean gap) {
        byte flags = buffer.get(offset + FLAGS);
        buffer.put(offset + FLAGS, (byte) (gap ? flags | FLAG_GAP : flags & ~FLAG_GAP));
    }

    /** Absolute index of the payload in the buffer. */
    public int payloadOffset() {
        return offset + HEADER_LENGTH;
    }

    /** The token carried as payload by SYN and SYN_ACK. */
    public long payloadToken() {
        return buffer.getLong(offset + HEADER_LENGTH);
    }

    public void payloadToken(long token) {
        buffer.putLong(offset + HEADER_LENGTH, token);
    }

    /** Whether a frame of this type takes a sequence number and must be delivered reliably. */
    public static boolean isSequenced(byte type) {
        return type == SYN || type == SYN_ACK || type == DATA || type == FIN;
    }

    /** Whether an ACK's bitmap of {@code length} bytes at {@code at} says frame {@code ack + 1 + i} is held. */
    public static boolean sackHolds(ByteBuffer buffer, int at, int length, int i) {
        return i < length * 8 && (buffer.get(at + (i >>> 3)) & (1 << (i & 7))) != 0;
    }

    /** Marks frame {@code ack + 1 + i} held in an ACK's bitmap at {@code at} (zeroed first: all not held). */
    public static void sackHold(ByteBuffer buffer, int at, int i) {
        int b = at + (i >>> 3);
        buffer.put(b, (byte) (buffer.get(b) | (1 << (i & 7))));
    }

    /** A readable name for logs and test failures. */
    public static String typeName(byte type) {
        switch (type) {
            case SYN: return "SYN";
            case SYN_ACK: return "SYN_ACK";
            case DATA: return "DATA";
            case ACK: return "ACK";
            case FIN: return "FIN";
            case FIN_ACK: return "FIN_ACK";
            case RST: return "RST";
            default: return "UNKNOWN(" + type + ")";
        }
    }
}
