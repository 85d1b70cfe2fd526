package io.sovia.spi.jdk;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.channels.SelectableChannel;

/**
 * An epoll instance through the JDK's own binding ({@code sun.nio.ch.EPoll}), for a watcher that needs an event
 * mask the JDK's selectors never ask for: {@link #RDHUP} without {@link #IN} learns that a peer closed or died
 * without waking for the bytes it sends. Linux only; needs {@code sun.nio.ch} opened to Sovia (the agent does it).
 *
 * <p>Threading: {@link #add}, {@link #modify} and {@link #remove} may be called by any thread, also while another
 * waits; {@link #await} and the event accessors belong to the one waiting thread.
 */
public final class JdkEpoll implements AutoCloseable {
    /** The Linux event bits (epoll(7)). */
    public static final int IN = 0x001;
    public static final int RDHUP = 0x2000;

    private static final int CTL_ADD = 1;
    private static final int CTL_DEL = 2;
    private static final int CTL_MOD = 3;
    private static final int EEXIST = 17;

    private static final MethodHandle CREATE;
    private static final MethodHandle CTL;
    private static final MethodHandle WAIT;
    private static final MethodHandle ALLOCATE;
    private static final MethodHandle FREE;
    private static final MethodHandle EVENT;
    private static final MethodHandle DESCRIPTOR;
    private static final MethodHandle CLOSE_FD;

    static {
        try {
            Class<?> epoll = Class.forName("sun.nio.ch.EPoll");
            MethodHandles.Lookup l = MethodHandles.privateLookupIn(epoll, MethodHandles.lookup());
            CREATE = l.findStatic(epoll, "create", MethodType.methodType(int.class));
            CTL = l.findStatic(epoll, "ctl", MethodType.methodType(int.class, int.class, int.class, int.class, int.class));
            WAIT = l.findStatic(epoll, "wait", MethodType.methodType(int.class, int.class, long.class, int.class, int.class));
            ALLOCATE = l.findStatic(epoll, "allocatePollArray", MethodType.methodType(long.class, int.class));
            FREE = l.findStatic(epoll, "freePollArray", MethodType.methodType(void.class, long.class));
            EVENT = l.findStatic(epoll, "getEvent", MethodType.methodType(long.class, long.class, int.class));
            DESCRIPTOR = l.findStatic(epoll, "getDescriptor", MethodType.methodType(int.class, long.class));
            CLOSE_FD = closeFd();
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** {@code closeIntFD}: on UnixFileDispatcherImpl since JDK 22, on FileDispatcherImpl before. */
    private static MethodHandle closeFd() throws ReflectiveOperationException {
        ReflectiveOperationException missing = null;
        for (String name : new String[] {"sun.nio.ch.UnixFileDispatcherImpl", "sun.nio.ch.FileDispatcherImpl"}) {
            try {
                Class<?> c = Class.forName(name);
                return MethodHandles.privateLookupIn(c, MethodHandles.lookup())
                        .findStatic(c, "closeIntFD", MethodType.methodType(void.class, int.class));
            } catch (ReflectiveOperationException e) {
                missing = e;
            }
        }
        throw missing;
    }

    private final int epfd;
    private final int capacity;
    /** The native event array; the waiting thread's. */
    private final long events;

    /** @param capacity how many events one {@link #await} returns at most */
    public JdkEpoll(int capacity) throws IOException {
        this.capacity = capacity;
        try {
            this.epfd = (int) CREATE.invokeExact();
            this.events = (long) ALLOCATE.invokeExact(capacity);
        } catch (Throwable t) {
            throw Failures.io(t);
        }
    }

    /** The descriptor of a JDK channel (the JDK's own classes only). */
    public static int fd(SelectableChannel channel) {
        return ((sun.nio.ch.SelChImpl) channel).getFDVal();
    }

    /**
     * Watches {@code fd} for {@code events}, or changes what it is watched for if it is already watched; its events
     * report the descriptor.
     */
    public void add(int fd, int events) throws IOException {
        int errno = ctl(CTL_ADD, fd, events);
        if (errno == EEXIST) {
            errno = ctl(CTL_MOD, fd, events);
        }
        if (errno != 0) {
            throw new IOException("epoll_ctl(ADD, " + fd + ") failed: errno " + errno);
        }
    }

    /** Changes what {@code fd} is watched for; false if it is not watched (closed, say). */
    public boolean modify(int fd, int events) {
        return ctl(CTL_MOD, fd, events) == 0;
    }

    /** Stops watching {@code fd}; closing it does the same. */
    public void remove(int fd) {
        ctl(CTL_DEL, fd, 0);
    }

    private int ctl(int op, int fd, int events) {
        try {
            return (int) CTL.invokeExact(epfd, op, fd, events);
        } catch (Throwable t) {
            throw new java.io.UncheckedIOException(Failures.io(t));
        }
    }

    /**
     * Waits until a watched descriptor has an event, or {@code timeoutMillis} (-1: no limit) passed.
     *
     * @return how many events {@link #descriptor} now reports; 0 on timeout or a signal
     */
    public int await(int timeoutMillis) throws IOException {
        try {
            return Math.max(0, (int) WAIT.invokeExact(epfd, events, capacity, timeoutMillis));
        } catch (Throwable t) {
            throw Failures.io(t);
        }
    }

    /** The descriptor of event {@code i} of the last {@link #await}. */
    public int descriptor(int i) {
        try {
            return (int) DESCRIPTOR.invokeExact((long) EVENT.invokeExact(events, i));
        } catch (Throwable t) {
            throw new java.io.UncheckedIOException(Failures.io(t));
        }
    }

    /** Closes the epoll instance; only once no thread waits in it. */
    @Override
    public void close() throws IOException {
        try {
            FREE.invokeExact(events);
            CLOSE_FD.invokeExact(epfd);
        } catch (Throwable t) {
            throw Failures.io(t);
        }
    }
}
