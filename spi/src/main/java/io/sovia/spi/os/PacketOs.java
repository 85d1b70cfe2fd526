package io.sovia.spi.os;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The Linux calls the raw Ethernet path needs (AF_PACKET sockets, a PACKET_MMAP receive ring, a classic BPF
 * filter), which the JDK lacks. Obtained from {@link NativeOs#packets()}; every method may be called from any
 * thread. Buffers passed in must be direct.
 */
public interface PacketOs {
    /**
     * A non-blocking, close-on-exec {@code AF_PACKET}/{@code SOCK_RAW} socket that receives nothing until
     * {@link #bind}: set its ring and filter first, so no frame arrives unfiltered.
     *
     * @throws IOException with errno 1 (EPERM) without CAP_NET_RAW
     */
    int open() throws IOException;

    /** Leaves out the frames this host sends ({@code PACKET_IGNORE_OUTGOING}); false where the kernel lacks it. */
    boolean ignoreOutgoing(int fd);

    /**
     * Attaches a classic BPF program ({@code SO_ATTACH_FILTER}); each instruction packed as
     * {@code code << 48 | jt << 40 | jf << 32 | k}.
     */
    void attachFilter(int fd, long[] program) throws IOException;

    /**
     * A {@code TPACKET_V2} receive ring ({@code PACKET_RX_RING}) of {@code frames} slots of {@code frameSize}
     * bytes, mapped: the returned buffer spans it, slot i at {@code i * frameSize}. Release it with {@link #unmap}.
     */
    ByteBuffer rxRing(int fd, int frameSize, int frames) throws IOException;

    /** Unmaps a ring {@link #rxRing} returned. */
    void unmap(ByteBuffer ring);

    /** Binds the socket to frames of {@code etherType} on interface {@code ifindex}. */
    void bind(int fd, int ifindex, int etherType) throws IOException;

    /**
     * Sends the whole frame (link header included) of {@code length} bytes at {@code offset} of {@code buffer}.
     *
     * @return false when the socket's buffer is full (the frame is not sent)
     * @throws IOException when the interface went down or away
     */
    boolean send(int fd, ByteBuffer buffer, int offset, int length) throws IOException;

    /**
     * Sends the first {@code count} frames of {@code vector} ({@link MessageVectorDescriptor}) in one system call.
     *
     * @return how many went, in order; fewer than {@code count} (0 included) when the socket's buffer filled
     * @throws IOException when the interface went down or away
     */
    int sendMany(int fd, ByteBuffer vector, int count) throws IOException;

    /**
     * Receives one frame into {@code buffer} at {@code offset}, at most {@code length} bytes.
     *
     * @return its length, or -1 when none is waiting
     */
    int receive(int fd, ByteBuffer buffer, int offset, int length) throws IOException;

    /**
     * Takes the socket's pending error ({@code SO_ERROR}, which clears it): a packet socket gets one when its
     * interface goes down or away, and reports it to epoll until taken.
     *
     * @return the errno, or 0 for none
     */
    int takeError(int fd) throws IOException;

    /**
     * The frames the kernel dropped for this socket since the last call ({@code PACKET_STATISTICS}, which
     * resets the count): those that found its receive ring or buffer full.
     */
    long drops(int fd) throws IOException;
}
