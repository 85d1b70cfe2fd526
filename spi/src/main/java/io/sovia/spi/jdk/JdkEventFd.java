package io.sovia.spi.jdk;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * An eventfd through the JDK's own binding ({@code sun.nio.ch.EventFD}, what the JDK's epoll selector wakes itself
 * with): one descriptor that any thread makes readable, to wake a thread waiting in a {@link JdkEpoll}. Linux only;
 * needs {@code sun.nio.ch} opened to Sovia (the agent does it).
 */
public final class JdkEventFd implements AutoCloseable {
    private static final MethodHandle NEW;
    private static final MethodHandle EFD;
    private static final MethodHandle SET;
    private static final MethodHandle RESET;
    private static final MethodHandle CLOSE;

    static {
        try {
            Class<?> c = Class.forName("sun.nio.ch.EventFD");
            MethodHandles.Lookup l = MethodHandles.privateLookupIn(c, MethodHandles.lookup());
            NEW = l.findConstructor(c, MethodType.methodType(void.class));
            EFD = l.findVirtual(c, "efd", MethodType.methodType(int.class));
            SET = l.findVirtual(c, "set", MethodType.methodType(void.class));
            RESET = l.findVirtual(c, "reset", MethodType.methodType(void.class));
            CLOSE = l.findVirtual(c, "close", MethodType.methodType(void.class));
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Object eventFd;
    private final int fd;

    public JdkEventFd() throws IOException {
        try {
            this.eventFd = NEW.invoke();
            this.fd = (int) EFD.invoke(eventFd);
            // reset() reads until there is nothing left, which on a blocking descriptor never ends
            sun.nio.ch.IOUtil.configureBlocking(sun.nio.ch.IOUtil.newFD(fd), false);
        } catch (Throwable t) {
            throw Failures.io(t);
        }
    }

    /** The descriptor, to watch for {@link JdkEpoll#IN}. */
    public int fd() {
        return fd;
    }

    /** Makes the descriptor readable until {@link #reset()}. */
    public void set() throws IOException {
        call(SET);
    }

    /** Makes the descriptor unreadable again. */
    public void reset() throws IOException {
        call(RESET);
    }

    @Override
    public void close() throws IOException {
        call(CLOSE);
    }

    private void call(MethodHandle handle) throws IOException {
        try {
            handle.invoke(eventFd);
        } catch (Throwable t) {
            throw Failures.io(t);
        }
    }
}
