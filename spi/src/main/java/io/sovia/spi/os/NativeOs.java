package io.sovia.spi.os;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The few Linux calls the JDK does not offer: sealed memory files (shm segments a peer cannot shrink under
 * us) and, for the eth path, raw sockets. Obtained through {@link NativeAccess#os()}; every method throws an
 * IOException naming the call and errno when the kernel refuses.
 */
public interface NativeOs {
    /** {@code MFD_CLOEXEC | MFD_ALLOW_SEALING}. */
    int MEMFD_FLAGS = 0x0001 | 0x0002;
    /** Seals (fcntl.h): the file may not shrink, grow, or take or lose seals. */
    int F_SEAL_SEAL = 0x0001;
    int F_SEAL_SHRINK = 0x0002;
    int F_SEAL_GROW = 0x0004;

    /**
     * {@code length} bytes of this process's memory as a direct buffer, freed once the buffer is unreachable (as
     * {@code ByteBuffer.allocateDirect}'s), but only bytes {@code zeroFrom} to {@code length} zeroed: allocateDirect
     * zeroes them all, which touches every page, and a connection's rings that small messages keep to their first
     * pages cost two whole megabytes of page faults and zeroing per connect (the jvm path: 70% of a connection
     * churn's CPU). Fresh pages arrive zeroed from the kernel when first touched; reused ones hold old bytes, which
     * a ring reads only where it wrote first.
     *
     * @return the buffer, or null when {@code malloc} has no memory to give
     */
    ByteBuffer allocate(int length, int zeroFrom);

    /** An anonymous memory file that can be sealed ({@code memfd_create}); its descriptor. */
    int memfdCreate(String name) throws IOException;

    /** Sets the file's length ({@code ftruncate}); pages are allocated when first touched. */
    void setLength(int fd, long length) throws IOException;

    /**
     * Frees the memory behind {@code length} bytes of a shared mapping at {@code address} ({@code madvise
     * MADV_REMOVE}, page-aligned): every process mapping it reads zeros there from now on, and a write allocates
     * afresh. Never faults.
     */
    void discard(long address, long length) throws IOException;

    /** Adds {@code seals} ({@code fcntl(F_ADD_SEALS)}). */
    void addSeals(int fd, int seals) throws IOException;

    /** The file's seals ({@code fcntl(F_GET_SEALS)}); an IOException for a file that cannot carry any. */
    int seals(int fd) throws IOException;

    /** Opens {@code path} read-write, close-on-exec, never as the controlling terminal. */
    int openReadWrite(String path) throws IOException;

    /**
     * Sends {@code bytes} on the stream socket {@code socket} with the descriptor {@code fd} attached
     * ({@code SCM_RIGHTS}), without blocking; returns the bytes sent, 0 if the socket would block.
     */
    int sendWithDescriptor(int socket, byte[] bytes, int fd) throws IOException;

    /**
     * Receives up to {@code length} bytes from the non-blocking stream socket {@code socket} into {@code into},
     * and the descriptors attached to them into {@code fds} (the rest of it set to -1); received descriptors are
     * close-on-exec and the caller's to close. Returns the bytes read, 0 if none are ready, -1 at end of stream or
     * when the peer reset the connection (it closed with our bytes unread); an IOException, every received descriptor
     * closed, if more came than {@code fds} holds or the kernel dropped one (it drops what it cannot install, as when
     * this process is out of descriptors).
     */
    int receiveWithDescriptors(int socket, byte[] into, int offset, int length, int[] fds) throws IOException;

    /** epoll_ctl operations. */
    int EPOLL_CTL_ADD = 1;
    int EPOLL_CTL_DEL = 2;
    int EPOLL_CTL_MOD = 3;
    /** epoll event bits: readable, error, hang-up, peer shut its writing down. */
    int EPOLLIN = 0x001;
    int EPOLLOUT = 0x004;
    int EPOLLERR = 0x008;
    int EPOLLHUP = 0x010;
    int EPOLLRDHUP = 0x2000;
    /** Reports one event, then nothing until the entry is modified again. */
    int EPOLLONESHOT = 1 << 30;

    /** A new epoll instance, close-on-exec; its descriptor. */
    int epollCreate() throws IOException;

    /**
     * {@code epoll_ctl(epfd, op, fd, {events, data})}: any thread may call it while another waits on {@code epfd},
     * and it takes effect for that wait at once.
     */
    void epollControl(int epfd, int op, int fd, int events, long data) throws IOException;

    /**
     * Sets {@code fd}'s entry in {@code epfd} to {@code {events, data}}, adding it if {@code fd} has none (a file
     * that closed left the set by itself, so a number reused since names no entry).
     */
    void epollSet(int epfd, int fd, int events, long data) throws IOException;

    /**
     * Waits up to {@code timeoutMillis} (-1: no limit) for events on {@code epfd}; fills {@code data} and
     * {@code events} with up to {@code data.length} of them and returns how many (0 on timeout or a signal).
     */
    int epollWait(int epfd, long[] data, int[] events, int timeoutMillis) throws IOException;

    /** A non-blocking, close-on-exec eventfd, for waking an {@link #epollWait}. */
    int eventfdCreate() throws IOException;

    /** Makes the eventfd readable; never blocks, never throws. */
    void eventfdSignal(int fd);

    /** Takes what was signalled on the eventfd, if anything; never blocks, never throws. */
    void eventfdClear(int fd);

    /** What {@link #pollReadable} found: the first descriptor, the second. */
    int POLL_FIRST = 1;
    int POLL_SECOND = 2;

    /**
     * Waits up to {@code timeoutMillis} (-1: no limit) until {@code first} or {@code second} is readable, hung up or
     * in error ({@code poll}); returns which of them as {@link #POLL_FIRST} and {@link #POLL_SECOND} bits, 0 on
     * timeout or a signal. Nothing is registered anywhere: a descriptor closed meanwhile is simply not watched next
     * time.
     *
     * @throws java.nio.channels.ClosedChannelException if {@code first} is not an open descriptor
     */
    int pollReadable(int first, int second, int timeoutMillis) throws IOException;

    /**
     * Whether {@link #futexWait} and {@link #futexWake} work here: Linux on x86-64 or aarch64, where the system call's
     * number is known.
     */
    boolean hasFutex();

    /**
     * Sleeps while the 32-bit word at {@code address} holds {@code expected}, until a {@link #futexWake} of it, a
     * signal or {@code timeoutNanos} (0: no limit); a word that already changed returns at once. The futex is shared
     * (not {@code FUTEX_PRIVATE}), so the word may be in memory shared with another process. Never throws: the caller
     * looks at what it waits for either way.
     */
    void futexWait(long address, int expected, long timeoutNanos);

    /** Wakes every thread in {@link #futexWait} on the word at {@code address}, in any process; never throws. */
    void futexWake(long address);

    /** The most words {@link #futexWaitAny} takes (the kernel's limit). */
    int FUTEX_WAIT_ANY_MAX = 128;

    /**
     * Whether {@link #futexWaitAny} works here: {@code futex_waitv}, Linux 5.16 and later, asked once.
     */
    boolean hasFutexWaitAny();

    /**
     * Sleeps while each of the first {@code count} 32-bit words at {@code addresses} holds its {@code expected}
     * value, until a {@link #futexWake} of any, a signal or {@code deadline} ({@link System#nanoTime()}, which is
     * CLOCK_MONOTONIC here; 0: no limit); a word that already changed returns at once. Shared futexes, as
     * {@link #futexWait}'s. Never throws.
     */
    void futexWaitAny(long[] addresses, int[] expected, int count, long deadline);

    /**
     * The user id of the process at the other end of the connected UNIX socket {@code socket} ({@code SO_PEERCRED}):
     * a number, where the JDK's option resolves user and group names, reading the user database at each call.
     */
    int peerUid(int socket) throws IOException;

    /**
     * The id of the process that connected the UNIX socket at the other end of {@code socket} ({@code SO_PEERCRED}),
     * as it was at connect time.
     */
    int peerPid(int socket) throws IOException;

    /** Closes a descriptor this interface returned; never throws. */
    void closeFd(int fd);

    /** The raw Ethernet calls, loaded with these. */
    PacketOs packets();
}
