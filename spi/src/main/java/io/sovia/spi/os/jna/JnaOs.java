package io.sovia.spi.os.jna;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;
import io.sovia.spi.os.NativeOs;
import io.sovia.spi.os.PacketOs;

import java.io.IOException;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * {@link NativeOs} through JNA direct mapping (a plain JNI call, the cheapest JNA has). Loaded only by
 * {@link io.sovia.spi.os.NativeAccess}, in a class loader of its own when the agent jar carries JNA.
 */
public final class JnaOs implements NativeOs {
    private static final int F_ADD_SEALS = 1033;
    private static final int F_GET_SEALS = 1034;
    private static final int O_RDWR = 02;
    private static final int O_NOCTTY = 0400;
    private static final int O_CLOEXEC = 02000000;

    private static final int MADV_REMOVE = 9;
    private static final int EINTR = 4;
    private static final int ENOENT = 2;
    private static final int EAGAIN = 11;
    private static final int ECONNRESET = 104;
    private static final int EPOLL_CLOEXEC = 02000000;
    private static final int EFD_NONBLOCK = 04000;
    private static final int EFD_CLOEXEC = 02000000;
    /** struct pollfd { int fd; short events; short revents; }, and the events that end a wait for reading. */
    private static final int POLLFD = 8;
    private static final int POLLFD_EVENTS = 4;
    private static final int POLLFD_REVENTS = 6;
    private static final short POLLIN = 0x001;
    private static final int POLLNVAL = 0x020;
    /**
     * struct epoll_event { uint32_t events; uint64_t data; }: packed on x86-64 (data at 4, 12 bytes), naturally
     * aligned elsewhere (data at 8, 16 bytes).
     */
    private static final boolean EPOLL_PACKED = Platform.isIntel() && Platform.is64Bit();
    private static final int EPOLL_DATA = EPOLL_PACKED ? 4 : 8;
    private static final int EPOLL_EVENT = EPOLL_PACKED ? 12 : 16;
    /** futex(2) through syscall(2) (glibc has no wrapper): its number, or -1 where not known. */
    private static final long SYS_FUTEX = Platform.is64Bit() ? Platform.isIntel() ? 202 : Platform.isARM() ? 98 : -1 : -1;
    private static final int FUTEX_WAIT = 0;
    private static final int FUTEX_WAKE = 1;
    /** futex_waitv(2): the same number on every architecture; a waiter is { u64 val; u64 uaddr; u32 flags; u32 }. */
    private static final long SYS_FUTEX_WAITV = 449;
    private static final int FUTEX_WAITER = 24;
    private static final int FUTEX2_SIZE_U32 = 0x02;
    private static final int CLOCK_MONOTONIC = 1;
    private static final int ENOSYS = 38;
    /** A futex_waitv's waiters, then its struct timespec, one block per thread. */
    private static final ThreadLocal<Memory> WAITERS =
            ThreadLocal.withInitial(() -> new Memory((long) FUTEX_WAIT_ANY_MAX * FUTEX_WAITER + 16));
    /** A timed futex wait's struct timespec { long tv_sec; long tv_nsec; }, one per thread. */
    private static final ThreadLocal<Memory> TIMESPEC = ThreadLocal.withInitial(() -> new Memory(16));
    private static final int SOL_SOCKET = 1;
    private static final int SCM_RIGHTS = 1;
    private static final int SO_PEERCRED = 17;
    private static final int MSG_CTRUNC = 0x8;
    private static final int MSG_DONTWAIT = 0x40;
    private static final int MSG_NOSIGNAL = 0x4000;
    private static final int MSG_CMSG_CLOEXEC = 0x40000000;

    /*
     * struct msghdr on LP64 Linux, then one struct iovec, the control buffer and the data, in one block:
     *
     *   0 msg_name   8 msg_namelen  16 msg_iov  24 msg_iovlen  32 msg_control  40 msg_controllen  48 msg_flags
     *  56 iov_base  64 iov_len
     *  72 control: cmsghdr { 0 cmsg_len (size_t)  8 cmsg_level  12 cmsg_type  16 data (ints) }, 8-aligned
     */
    private static final int MSG_IOV = 16;
    private static final int MSG_IOVLEN = 24;
    private static final int MSG_CONTROL = 32;
    private static final int MSG_CONTROLLEN = 40;
    private static final int MSG_FLAGS = 48;
    private static final int IOVEC = 56;
    private static final int CONTROL = 72;
    private static final int CMSG_HEADER = 16;

    static {
        Native.register(JnaOs.class, NativeLibrary.getInstance("c"));
    }

    /** After the registration above, which the probe's call needs. */
    private static final boolean FUTEX_WAITV = SYS_FUTEX > 0 && probeFutexWaitv();

    private static native int memfd_create(String name, int flags) throws LastErrorException;

    private static native int fcntl(int fd, int cmd, int arg) throws LastErrorException;

    private static native int ftruncate(int fd, long length) throws LastErrorException;

    private static native int madvise(Pointer address, long length, int advice) throws LastErrorException;

    private static native int open(String path, int flags) throws LastErrorException;

    private static native int close(int fd);

    private static native int epoll_create1(int flags) throws LastErrorException;

    private static native int epoll_ctl(int epfd, int op, int fd, byte[] event) throws LastErrorException;

    private static native int epoll_wait(int epfd, byte[] events, int maxEvents, int timeout)
            throws LastErrorException;

    private static native int eventfd(int initial, int flags) throws LastErrorException;

    private static native int poll(byte[] fds, long count, int timeout) throws LastErrorException;

    private static native int getsockopt(int fd, int level, int name, int[] value, int[] length)
            throws LastErrorException;

    private static native long read(int fd, long[] buffer, long count);

    private static native long write(int fd, long[] buffer, long count);

    private static native long syscall(long number, long address, long op, long value, long timeout, long address2,
            long value3);

    /**
     * The same with three arguments, for a futex wake, which reads no others: JNA converts each argument at every
     * call, and a wake is on every message to a sleeping reader.
     */
    private static native long syscall(long number, long address, long op, long value);

    /** The same, for a call whose error number matters (slower: a failure throws). */
    private static native long syscall(long number, long a1, long a2, long a3, long a4, long a5)
            throws LastErrorException;

    private static native long sendmsg(int fd, Pointer msg, int flags) throws LastErrorException;

    private static native long recvmsg(int fd, Pointer msg, int flags) throws LastErrorException;

    @Override
    public ByteBuffer allocate(int length, int zeroFrom) {
        long address = Native.malloc(length);
        if (address == 0) {
            return null;
        }
        Pointer memory = new Pointer(address);
        memory.setMemory(zeroFrom, length - zeroFrom, (byte) 0);
        // a plain JNI direct buffer: no cleaner, and its duplicates and slices hold it, so freeing with it is safe
        ByteBuffer buffer = memory.getByteBuffer(0, length);
        MemoryCleaner.CLEANER.register(buffer, () -> Native.free(address));
        return buffer;
    }

    /** Frees {@link #allocate}'s memory; made with the first allocation. */
    private static final class MemoryCleaner {
        static final Cleaner CLEANER = Cleaner.create(r -> {
            Thread t = new Thread(r, "sovia-memory-cleaner");
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public int memfdCreate(String name) throws IOException {
        try {
            return memfd_create(name, MEMFD_FLAGS);
        } catch (LastErrorException e) {
            throw failed("memfd_create", e);
        }
    }

    @Override
    public void setLength(int fd, long length) throws IOException {
        try {
            ftruncate(fd, length);
        } catch (LastErrorException e) {
            throw failed("ftruncate", e);
        }
    }

    @Override
    public void discard(long address, long length) throws IOException {
        try {
            madvise(new Pointer(address), length, MADV_REMOVE);
        } catch (LastErrorException e) {
            throw failed("madvise(MADV_REMOVE)", e);
        }
    }

    @Override
    public void addSeals(int fd, int seals) throws IOException {
        try {
            fcntl(fd, F_ADD_SEALS, seals);
        } catch (LastErrorException e) {
            throw failed("fcntl(F_ADD_SEALS)", e);
        }
    }

    @Override
    public int seals(int fd) throws IOException {
        try {
            return fcntl(fd, F_GET_SEALS, 0);
        } catch (LastErrorException e) {
            throw failed("fcntl(F_GET_SEALS)", e);
        }
    }

    @Override
    public int openReadWrite(String path) throws IOException {
        try {
            return open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
        } catch (LastErrorException e) {
            throw failed("open " + path, e);
        }
    }

    @Override
    public int epollCreate() throws IOException {
        try {
            return epoll_create1(EPOLL_CLOEXEC);
        } catch (LastErrorException e) {
            throw failed("epoll_create1", e);
        }
    }

    @Override
    public void epollControl(int epfd, int op, int fd, int events, long data) throws IOException {
        try {
            epoll_ctl(epfd, op, fd, epollEvent(events, data));
        } catch (LastErrorException e) {
            throw failed("epoll_ctl", e);
        }
    }

    @Override
    public void epollSet(int epfd, int fd, int events, long data) throws IOException {
        byte[] event = epollEvent(events, data);
        try {
            epoll_ctl(epfd, EPOLL_CTL_MOD, fd, event);
        } catch (LastErrorException e) {
            if (e.getErrorCode() != ENOENT) {
                throw failed("epoll_ctl(EPOLL_CTL_MOD)", e);
            }
            epollControl(epfd, EPOLL_CTL_ADD, fd, events, data);
        }
    }

    /** A struct epoll_event. */
    private static byte[] epollEvent(int events, long data) {
        byte[] event = new byte[EPOLL_EVENT];
        ByteBuffer.wrap(event).order(ByteOrder.nativeOrder()).putInt(0, events).putLong(EPOLL_DATA, data);
        return event;
    }

    @Override
    public int epollWait(int epfd, long[] data, int[] events, int timeoutMillis) throws IOException {
        byte[] ready = new byte[data.length * EPOLL_EVENT];
        int n;
        try {
            n = epoll_wait(epfd, ready, data.length, timeoutMillis);
        } catch (LastErrorException e) {
            if (e.getErrorCode() == EINTR) {
                return 0;
            }
            throw failed("epoll_wait", e);
        }
        ByteBuffer b = ByteBuffer.wrap(ready).order(ByteOrder.nativeOrder());
        for (int i = 0; i < n; i++) {
            events[i] = b.getInt(i * EPOLL_EVENT);
            data[i] = b.getLong(i * EPOLL_EVENT + EPOLL_DATA);
        }
        return n;
    }

    @Override
    public int eventfdCreate() throws IOException {
        try {
            return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        } catch (LastErrorException e) {
            throw failed("eventfd", e);
        }
    }

    @Override
    public void eventfdSignal(int fd) {
        write(fd, new long[] {1}, Long.BYTES);
    }

    @Override
    public void eventfdClear(int fd) {
        read(fd, new long[1], Long.BYTES);
    }

    @Override
    public int pollReadable(int first, int second, int timeoutMillis) throws IOException {
        ByteBuffer fds = ByteBuffer.allocate(2 * POLLFD).order(ByteOrder.nativeOrder());
        fds.putInt(0, first).putShort(POLLFD_EVENTS, POLLIN);
        fds.putInt(POLLFD, second).putShort(POLLFD + POLLFD_EVENTS, POLLIN);
        int n;
        try {
            n = poll(fds.array(), 2, timeoutMillis);
        } catch (LastErrorException e) {
            if (e.getErrorCode() == EINTR) {
                return 0;
            }
            throw failed("poll", e);
        }
        if (n == 0) {
            return 0;
        }
        short firstEvents = fds.getShort(POLLFD_REVENTS);
        if ((firstEvents & POLLNVAL) != 0) {
            throw new java.nio.channels.ClosedChannelException();
        }
        return (firstEvents != 0 ? POLL_FIRST : 0) | (fds.getShort(POLLFD + POLLFD_REVENTS) != 0 ? POLL_SECOND : 0);
    }

    @Override
    public boolean hasFutex() {
        return SYS_FUTEX > 0;
    }

    @Override
    public void futexWait(long address, int expected, long timeoutNanos) {
        long timespec = timeoutNanos > 0 ? timespec(TIMESPEC.get(), 0, timeoutNanos) : 0;
        syscall(SYS_FUTEX, address, FUTEX_WAIT, expected, timespec, 0, 0);
    }

    @Override
    public void futexWake(long address) {
        syscall(SYS_FUTEX, address, FUTEX_WAKE, Integer.MAX_VALUE);
    }

    /** Whether the kernel knows futex_waitv: asked with no waiters, it says EINVAL, and ENOSYS if it does not. */
    private static boolean probeFutexWaitv() {
        try {
            syscall(SYS_FUTEX_WAITV, 0, 0, 0, 0, 0);
            return true;
        } catch (LastErrorException e) {
            return e.getErrorCode() != ENOSYS;
        }
    }

    @Override
    public boolean hasFutexWaitAny() {
        return FUTEX_WAITV;
    }

    @Override
    public void futexWaitAny(long[] addresses, int[] expected, int count, long deadline) {
        Memory m = WAITERS.get();
        for (int i = 0; i < count; i++) {
            long w = (long) i * FUTEX_WAITER;
            m.setLong(w, expected[i] & 0xFFFF_FFFFL);
            m.setLong(w + 8, addresses[i]);
            m.setInt(w + 16, FUTEX2_SIZE_U32);
            m.setInt(w + 20, 0);
        }
        long timespec = deadline != 0 ? timespec(m, (long) FUTEX_WAIT_ANY_MAX * FUTEX_WAITER, deadline) : 0;
        syscall(SYS_FUTEX_WAITV, Pointer.nativeValue(m), count, 0, timespec, CLOCK_MONOTONIC, 0);
    }

    /** Writes {@code nanos} as a struct timespec at {@code offset} in {@code m}; its address. */
    private static long timespec(Memory m, long offset, long nanos) {
        m.setLong(offset, nanos / 1_000_000_000L);
        m.setLong(offset + 8, nanos % 1_000_000_000L);
        return Pointer.nativeValue(m) + offset;
    }

    @Override
    public int peerUid(int socket) throws IOException {
        return peerCredentials(socket)[1];
    }

    @Override
    public int peerPid(int socket) throws IOException {
        return peerCredentials(socket)[0];
    }

    /** {@code struct ucred { pid_t pid; uid_t uid; gid_t gid; }} of the peer of UNIX socket {@code socket}. */
    private int[] peerCredentials(int socket) throws IOException {
        int[] credentials = new int[3];
        try {
            getsockopt(socket, SOL_SOCKET, SO_PEERCRED, credentials, new int[] {credentials.length * Integer.BYTES});
        } catch (LastErrorException e) {
            throw failed("getsockopt(SO_PEERCRED)", e);
        }
        return credentials;
    }

    @Override
    public void closeFd(int fd) {
        close(fd);
    }

    @Override
    public PacketOs packets() {
        return Packets.OS;
    }

    /** Registered when first used: a JVM without the raw Ethernet path never binds those calls. */
    private static final class Packets {
        static final PacketOs OS = new JnaPacketOs();
    }

    @Override
    public int sendWithDescriptor(int socket, byte[] bytes, int fd) throws IOException {
        int controlLength = controlSpace(1);
        try (Memory m = message(bytes.length, controlLength)) {
            m.write(CONTROL + controlLength, bytes, 0, bytes.length);
            m.setLong(CONTROL, CMSG_HEADER + 4);
            m.setInt(CONTROL + 8, SOL_SOCKET);
            m.setInt(CONTROL + 12, SCM_RIGHTS);
            m.setInt(CONTROL + CMSG_HEADER, fd);
            return (int) sendmsg(socket, m, MSG_DONTWAIT | MSG_NOSIGNAL);
        } catch (LastErrorException e) {
            if (e.getErrorCode() == EAGAIN) {
                return 0;
            }
            throw failed("sendmsg", e);
        }
    }

    @Override
    public int receiveWithDescriptors(int socket, byte[] into, int offset, int length, int[] fds) throws IOException {
        java.util.Arrays.fill(fds, -1);
        int controlLength = controlSpace(fds.length);
        try (Memory m = message(length, controlLength)) {
            long n;
            try {
                n = recvmsg(socket, m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
            } catch (LastErrorException e) {
                if (e.getErrorCode() == EAGAIN) {
                    return 0;
                }
                if (e.getErrorCode() == ECONNRESET) {
                    // the peer closed with bytes of ours unread (doorbell bytes on a kept socket): its end, as EOF is
                    return -1;
                }
                throw failed("recvmsg", e);
            }
            int received = collect(m, m.getLong(MSG_CONTROLLEN), fds);
            if (received > fds.length) {
                closeAll(fds);
                throw new IOException(received + " descriptors where at most " + fds.length + " were expected");
            }
            if ((m.getInt(MSG_FLAGS) & MSG_CTRUNC) != 0) {
                // the kernel drops what it cannot install, above all when this process is out of descriptors
                closeAll(fds);
                throw new IOException("an attached descriptor was lost (out of descriptors?)");
            }
            m.read(CONTROL + controlLength, into, offset, (int) n);
            return n == 0 ? -1 : (int) n;
        }
    }

    /** Takes the SCM_RIGHTS descriptors of every control message; returns how many there were in all. */
    private int collect(Memory m, long controlLength, int[] fds) {
        int count = 0;
        long end = CONTROL + Math.min(controlLength, m.size() - CONTROL);
        for (long at = CONTROL; at + CMSG_HEADER <= end; ) {
            long length = m.getLong(at);
            if (length < CMSG_HEADER || at + length > end) {
                break;
            }
            if (m.getInt(at + 8) == SOL_SOCKET && m.getInt(at + 12) == SCM_RIGHTS) {
                for (long d = at + CMSG_HEADER; d + 4 <= at + length; d += 4, count++) {
                    int fd = m.getInt(d);
                    if (count < fds.length) {
                        fds[count] = fd;
                    } else {
                        closeFd(fd);
                    }
                }
            }
            at += (length + 7) & -8L;
        }
        return count;
    }

    private void closeAll(int[] fds) {
        for (int i = 0; i < fds.length; i++) {
            if (fds[i] >= 0) {
                closeFd(fds[i]);
                fds[i] = -1;
            }
        }
    }

    /** A zeroed message header with one iovec over a data area of {@code length} after the control buffer. */
    private static Memory message(int length, int controlLength) {
        Memory m = new Memory(CONTROL + controlLength + Math.max(length, 1));
        m.clear();
        m.setPointer(MSG_IOV, m.share(IOVEC));
        m.setLong(MSG_IOVLEN, 1);
        m.setPointer(MSG_CONTROL, m.share(CONTROL));
        m.setLong(MSG_CONTROLLEN, controlLength);
        m.setPointer(IOVEC, m.share(CONTROL + controlLength));
        m.setLong(IOVEC + 8, length);
        return m;
    }

    /** CMSG_SPACE for {@code count} descriptors. */
    private static int controlSpace(int count) {
        return CMSG_HEADER + ((4 * count + 7) & -8);
    }

    private static IOException failed(String call, LastErrorException e) {
        return new IOException(call + ": errno " + e.getErrorCode(), e);
    }
}
