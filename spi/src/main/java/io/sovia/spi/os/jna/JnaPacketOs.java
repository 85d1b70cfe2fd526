package io.sovia.spi.os.jna;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import io.sovia.spi.jdk.JdkNio;
import io.sovia.spi.os.MessageVectorDescriptor;
import io.sovia.spi.os.PacketOs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * {@link PacketOs} through JNA direct mapping. The per-frame calls ({@code send}, {@code recv}) take the buffer's
 * address as a plain integer and report errors through their result, so the data path makes no object and throws
 * nothing for a full buffer; the setup calls use JNA's usual conveniences.
 */
final class JnaPacketOs implements PacketOs {
    private static final int AF_PACKET = 17;
    private static final int SOCK_RAW = 3;
    private static final int SOCK_NONBLOCK = 04000;
    private static final int SOCK_CLOEXEC = 02000000;
    private static final int SOL_SOCKET = 1;
    private static final int SO_ERROR = 4;
    private static final int SO_ATTACH_FILTER = 26;
    private static final int SOL_PACKET = 263;
    private static final int PACKET_RX_RING = 5;
    private static final int PACKET_VERSION = 10;
    private static final int PACKET_IGNORE_OUTGOING = 23;
    private static final int PACKET_STATISTICS = 6;
    private static final int TPACKET_V2 = 1;
    private static final int PROT_READ_WRITE = 3;
    private static final int MAP_SHARED = 1;
    private static final int MSG_DONTWAIT = 0x40;
    private static final int MSG_NOSIGNAL = 0x4000;
    private static final int EAGAIN = 11;
    private static final int ENOBUFS = 105;
    private static final int EINTR = 4;
    /** The ring's block: the kernel hands out whole blocks, each holding whole slots. */
    private static final int BLOCK = 1 << 16;

    static {
        Native.register(JnaPacketOs.class, NativeLibrary.getInstance("c"));
    }

    private static native int socket(int domain, int type, int protocol) throws LastErrorException;

    private static native int setsockopt(int fd, int level, int name, Pointer value, int length) throws LastErrorException;

    private static native int bind(int fd, Pointer address, int length) throws LastErrorException;

    private static native int getsockopt(int fd, int level, int name, Pointer value, Pointer length)
            throws LastErrorException;

    private static native long mmap(long address, long length, int prot, int flags, int fd, long offset);

    private static native int munmap(long address, long length);

    private static native long send(int fd, long buffer, long length, int flags);

    private static native long recv(int fd, long buffer, long length, int flags);

    private static native int sendmmsg(int fd, long vector, int count, int flags);

    @Override
    public int open() throws IOException {
        try {
            return socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        } catch (LastErrorException e) {
            throw failed("socket(AF_PACKET, SOCK_RAW)", e.getErrorCode());
        }
    }

    @Override
    public boolean ignoreOutgoing(int fd) {
        try {
            setInt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, 1);
            return true;
        } catch (LastErrorException e) {
            return false;
        }
    }

    @Override
    public void attachFilter(int fd, long[] program) throws IOException {
        try (Memory code = new Memory(8L * program.length); Memory prog = new Memory(16)) {
            for (int i = 0; i < program.length; i++) {
                long insn = program[i];
                code.setShort(8L * i, (short) (insn >>> 48));
                code.setByte(8L * i + 2, (byte) (insn >>> 40));
                code.setByte(8L * i + 3, (byte) (insn >>> 32));
                code.setInt(8L * i + 4, (int) insn);
            }
            prog.clear();
            prog.setShort(0, (short) program.length);
            prog.setPointer(8, code);
            setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, prog, 16);
        } catch (LastErrorException e) {
            throw failed("setsockopt(SO_ATTACH_FILTER)", e.getErrorCode());
        }
    }

    @Override
    public ByteBuffer rxRing(int fd, int frameSize, int frames) throws IOException {
        if (Integer.bitCount(frameSize) != 1 || frameSize < 256 || frameSize > BLOCK || frames % (BLOCK / frameSize) != 0) {
            throw new IllegalArgumentException("frame size " + frameSize + " and count " + frames + " do not fill whole blocks");
        }
        long length = (long) frameSize * frames;
        try {
            setInt(fd, SOL_PACKET, PACKET_VERSION, TPACKET_V2);
            try (Memory request = new Memory(16)) { // struct tpacket_req
                request.setInt(0, BLOCK);
                request.setInt(4, (int) (length / BLOCK));
                request.setInt(8, frameSize);
                request.setInt(12, frames);
                setsockopt(fd, SOL_PACKET, PACKET_RX_RING, request, 16);
            }
        } catch (LastErrorException e) {
            throw failed("setsockopt(PACKET_RX_RING)", e.getErrorCode());
        }
        long address = mmap(0, length, PROT_READ_WRITE, MAP_SHARED, fd, 0);
        if (address == -1) {
            throw failed("mmap of the receive ring", Native.getLastError());
        }
        return new Pointer(address).getByteBuffer(0, length).order(ByteOrder.nativeOrder());
    }

    @Override
    public void unmap(ByteBuffer ring) {
        munmap(JdkNio.address(ring), ring.capacity());
    }

    @Override
    public void bind(int fd, int ifindex, int etherType) throws IOException {
        try (Memory address = new Memory(20)) { // struct sockaddr_ll
            address.clear();
            address.setShort(0, (short) AF_PACKET);
            address.setShort(2, Short.reverseBytes((short) etherType)); // network order
            address.setInt(4, ifindex);
            bind(fd, address, 20);
        } catch (LastErrorException e) {
            throw failed("bind to interface " + ifindex, e.getErrorCode());
        }
    }

    @Override
    public boolean send(int fd, ByteBuffer buffer, int offset, int length) throws IOException {
        while (true) {
            if (send(fd, JdkNio.address(buffer) + offset, length, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0) {
                return true;
            }
            int errno = Native.getLastError();
            if (errno == EAGAIN || errno == ENOBUFS) {
                return false;
            }
            if (errno != EINTR) {
                throw failed("send", errno);
            }
        }
    }

    @Override
    public int sendMany(int fd, ByteBuffer vector, int count) throws IOException {
        long address = JdkNio.address(vector);
        int sent = 0;
        while (sent < count) {
            int n = sendmmsg(fd, address + (long) sent * MessageVectorDescriptor.MESSAGE_LENGTH, count - sent,
                    MSG_DONTWAIT | MSG_NOSIGNAL);
            if (n > 0) {
                sent += n;
                continue;
            }
            int errno = Native.getLastError();
            if (errno == EAGAIN || errno == ENOBUFS) {
                return sent;
            }
            if (errno != EINTR) {
                throw failed("sendmmsg", errno);
            }
        }
        return sent;
    }

    @Override
    public int receive(int fd, ByteBuffer buffer, int offset, int length) throws IOException {
        while (true) {
            long n = recv(fd, JdkNio.address(buffer) + offset, length, MSG_DONTWAIT);
            if (n >= 0) {
                return (int) n;
            }
            int errno = Native.getLastError();
            if (errno == EAGAIN) {
                return -1;
            }
            if (errno != EINTR) {
                throw failed("recv", errno);
            }
        }
    }

    @Override
    public long drops(int fd) throws IOException {
        try (Memory stats = new Memory(8); Memory length = new Memory(4)) { // struct tpacket_stats { packets, drops }
            length.setInt(0, 8);
            getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, stats, length);
            return stats.getInt(4) & 0xFFFFFFFFL;
        } catch (LastErrorException e) {
            throw failed("getsockopt(PACKET_STATISTICS)", e.getErrorCode());
        }
    }

    @Override
    public int takeError(int fd) throws IOException {
        try (Memory error = new Memory(4); Memory length = new Memory(4)) {
            length.setInt(0, 4);
            getsockopt(fd, SOL_SOCKET, SO_ERROR, error, length);
            return error.getInt(0);
        } catch (LastErrorException e) {
            throw failed("getsockopt(SO_ERROR)", e.getErrorCode());
        }
    }

    private static void setInt(int fd, int level, int name, int value) {
        try (Memory m = new Memory(4)) {
            m.setInt(0, value);
            setsockopt(fd, level, name, m, 4);
        }
    }

    private static IOException failed(String call, int errno) {
        return new IOException(call + ": errno " + errno + (errno == 1 ? " (no CAP_NET_RAW)" : ""));
    }
}
