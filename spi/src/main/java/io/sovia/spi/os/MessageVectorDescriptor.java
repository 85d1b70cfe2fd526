package io.sovia.spi.os;

import io.sovia.spi.jdk.JdkNio;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The argument of {@code sendmmsg(2)} ({@link PacketOs#sendMany}): an array of {@code struct mmsghdr}, each naming
 * one frame through one or two {@code struct iovec} (a frame in one piece, or its link header and, elsewhere, the
 * engine frame after it), in one direct buffer so the frames of a batch go in one system call. The layout is LP64
 * Linux's (x86-64 and aarch64 alike), native byte order; the iovecs follow the headers, two per message, and each
 * header points at its own.
 *
 * <pre>
 *  struct mmsghdr i, at i * 64:
 *  +0  msg_name       8   0 (the socket is bound: no address)
 *  +8  msg_namelen    4   0, then 4 bytes of padding
 *  +16 msg_iov        8   address of message i's first iovec
 *  +24 msg_iovlen     8   1 or 2
 *  +32 msg_control    8   0
 *  +40 msg_controllen 8   0
 *  +48 msg_flags      4   0, then 4 bytes of padding
 *  +56 msg_len        4   set by the kernel: bytes sent; then 4 bytes of padding
 *  struct iovec j of message i, at count * 64 + i * 32 + j * 16:
 *  +0  iov_base       8   the piece's address
 *  +8  iov_len        8   the piece's length
 * </pre>
 */
public final class MessageVectorDescriptor {
    /** Bytes of one {@code struct mmsghdr}. */
    public static final int MESSAGE_LENGTH = 64;
    /** Bytes of one {@code struct iovec}. */
    public static final int IOVEC_LENGTH = 16;
    private static final int IOVECS = 2;
    private static final int MSG_IOV = 16;
    private static final int MSG_IOVLEN = 24;
    private static final int IOV_BASE = 0;
    private static final int IOV_LEN = 8;

    private MessageVectorDescriptor() {
    }

    /** A zeroed vector of {@code count} messages, each with its iovecs linked in. */
    public static ByteBuffer allocate(int count) {
        ByteBuffer v = ByteBuffer.allocateDirect(count * (MESSAGE_LENGTH + IOVECS * IOVEC_LENGTH))
                .order(ByteOrder.nativeOrder());
        long iovecs = JdkNio.address(v) + (long) count * MESSAGE_LENGTH;
        for (int i = 0; i < count; i++) {
            v.putLong(i * MESSAGE_LENGTH + MSG_IOV, iovecs + (long) i * IOVECS * IOVEC_LENGTH);
            v.putLong(i * MESSAGE_LENGTH + MSG_IOVLEN, 1);
        }
        return v;
    }

    /** How many messages {@code vector} holds. */
    public static int capacity(ByteBuffer vector) {
        return vector.capacity() / (MESSAGE_LENGTH + IOVECS * IOVEC_LENGTH);
    }

    /** How many pieces message {@code i} has. */
    public static int pieces(ByteBuffer vector, int i) {
        return (int) vector.getLong(i * MESSAGE_LENGTH + MSG_IOVLEN);
    }

    /** The address of piece {@code j} of message {@code i}. */
    public static long address(ByteBuffer vector, int i, int j) {
        return vector.getLong(iovec(vector, i, j) + IOV_BASE);
    }

    /** The length of piece {@code j} of message {@code i}. */
    public static int length(ByteBuffer vector, int i, int j) {
        return (int) vector.getLong(iovec(vector, i, j) + IOV_LEN);
    }

    /** Points message {@code i} at {@code length} bytes at native {@code address}. */
    public static void frame(ByteBuffer vector, int i, long address, int length) {
        piece(vector, i, 0, address, length);
        vector.putLong(i * MESSAGE_LENGTH + MSG_IOVLEN, 1);
    }

    /** Points message {@code i} at {@code headLength} bytes at {@code head}, then {@code bodyLength} at {@code body}. */
    public static void frame(ByteBuffer vector, int i, long head, int headLength, long body, int bodyLength) {
        piece(vector, i, 0, head, headLength);
        piece(vector, i, 1, body, bodyLength);
        vector.putLong(i * MESSAGE_LENGTH + MSG_IOVLEN, 2);
    }

    private static void piece(ByteBuffer vector, int i, int j, long address, int length) {
        int iovec = iovec(vector, i, j);
        vector.putLong(iovec + IOV_BASE, address);
        vector.putLong(iovec + IOV_LEN, length);
    }

    private static int iovec(ByteBuffer vector, int i, int j) {
        return capacity(vector) * MESSAGE_LENGTH + (i * IOVECS + j) * IOVEC_LENGTH;
    }
}
