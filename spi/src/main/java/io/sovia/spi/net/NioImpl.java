package io.sovia.spi.net;

import io.sovia.spi.backend.SetupOptions;
import io.sovia.spi.config.BufferSizes;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.InetAddress;
import java.net.SocketAddress;
import java.net.SocketImpl;
import java.net.SocketOption;
import java.util.Set;

import static java.lang.invoke.MethodType.methodType;

/**
 * Calls into the JDK's own {@code sun.nio.ch.NioSocketImpl}, whose methods are protected.
 *
 * <p>Needs {@code java.net} and {@code sun.nio.ch} opened to this module (the agent does it). If they
 * are not, this class fails to initialise and {@link SoviaSocketImplFactory} hands out the JDK's
 * impls unchanged.
 */
final class NioImpl {
    private static final MethodHandle NEW;
    private static final MethodHandle CREATE;
    private static final MethodHandle CONNECT;
    private static final MethodHandle BIND;
    private static final MethodHandle LISTEN;
    private static final MethodHandle ACCEPT;
    private static final MethodHandle INPUT;
    private static final MethodHandle OUTPUT;
    private static final MethodHandle AVAILABLE;
    private static final MethodHandle CLOSE;
    private static final MethodHandle SHUTDOWN_INPUT;
    private static final MethodHandle SHUTDOWN_OUTPUT;
    private static final MethodHandle URGENT;
    private static final MethodHandle SET_INT_OPTION;
    private static final MethodHandle GET_INT_OPTION;
    private static final MethodHandle SET_OPTION;
    private static final MethodHandle GET_OPTION;
    private static final MethodHandle SUPPORTED_OPTIONS;
    private static final MethodHandle ADDRESS;
    private static final MethodHandle PORT;
    private static final MethodHandle LOCAL_PORT;
    private static final MethodHandle FD;

    static {
        try {
            Class<?> nioSocketImpl = Class.forName("sun.nio.ch.NioSocketImpl");
            MethodHandles.Lookup impl = MethodHandles.privateLookupIn(nioSocketImpl, MethodHandles.lookup());
            MethodHandles.Lookup base = MethodHandles.privateLookupIn(SocketImpl.class, MethodHandles.lookup());
            NEW = impl.findConstructor(nioSocketImpl, methodType(void.class, boolean.class))
                    .asType(methodType(SocketImpl.class, boolean.class));
            CREATE = virtual(base, "create", methodType(void.class, boolean.class));
            CONNECT = virtual(base, "connect", methodType(void.class, SocketAddress.class, int.class));
            BIND = virtual(base, "bind", methodType(void.class, InetAddress.class, int.class));
            LISTEN = virtual(base, "listen", methodType(void.class, int.class));
            ACCEPT = virtual(base, "accept", methodType(void.class, SocketImpl.class));
            INPUT = virtual(base, "getInputStream", methodType(InputStream.class));
            OUTPUT = virtual(base, "getOutputStream", methodType(OutputStream.class));
            AVAILABLE = virtual(base, "available", methodType(int.class));
            CLOSE = virtual(base, "close", methodType(void.class));
            SHUTDOWN_INPUT = virtual(base, "shutdownInput", methodType(void.class));
            SHUTDOWN_OUTPUT = virtual(base, "shutdownOutput", methodType(void.class));
            URGENT = virtual(base, "sendUrgentData", methodType(void.class, int.class));
            SET_INT_OPTION = virtual(base, "setOption", methodType(void.class, int.class, Object.class));
            GET_INT_OPTION = virtual(base, "getOption", methodType(Object.class, int.class));
            SET_OPTION = virtual(base, "setOption", methodType(void.class, SocketOption.class, Object.class));
            GET_OPTION = virtual(base, "getOption", methodType(Object.class, SocketOption.class));
            SUPPORTED_OPTIONS = virtual(base, "supportedOptions", methodType(Set.class));
            ADDRESS = virtual(base, "getInetAddress", methodType(InetAddress.class));
            PORT = virtual(base, "getPort", methodType(int.class));
            LOCAL_PORT = virtual(base, "getLocalPort", methodType(int.class));
            FD = virtual(base, "getFileDescriptor", methodType(java.io.FileDescriptor.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private NioImpl() {
    }

    private static MethodHandle virtual(MethodHandles.Lookup lookup, String name, MethodType type)
            throws ReflectiveOperationException {
        return lookup.findVirtual(SocketImpl.class, name, type);
    }

    /** Forces initialisation, so a missing export shows at install time, not on the first socket. */
    static void check() {
        // the static initialiser ran if this returns
    }

    static SocketImpl newImpl(boolean server) {
        try {
            return (SocketImpl) NEW.invokeExact(server);
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    static void create(SocketImpl impl, boolean stream) throws IOException {
        try {
            CREATE.invokeExact(impl, stream);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void connect(SocketImpl impl, SocketAddress remote, int timeout) throws IOException {
        try {
            CONNECT.invokeExact(impl, remote, timeout);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void bind(SocketImpl impl, InetAddress host, int port) throws IOException {
        try {
            BIND.invokeExact(impl, host, port);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void listen(SocketImpl impl, int backlog) throws IOException {
        try {
            LISTEN.invokeExact(impl, backlog);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void accept(SocketImpl impl, SocketImpl target) throws IOException {
        try {
            ACCEPT.invokeExact(impl, target);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static InputStream inputStream(SocketImpl impl) throws IOException {
        try {
            return (InputStream) INPUT.invokeExact(impl);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static OutputStream outputStream(SocketImpl impl) throws IOException {
        try {
            return (OutputStream) OUTPUT.invokeExact(impl);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int available(SocketImpl impl) throws IOException {
        try {
            return (int) AVAILABLE.invokeExact(impl);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void close(SocketImpl impl) throws IOException {
        try {
            CLOSE.invokeExact(impl);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void shutdownInput(SocketImpl impl) throws IOException {
        try {
            SHUTDOWN_INPUT.invokeExact(impl);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void shutdownOutput(SocketImpl impl) throws IOException {
        try {
            SHUTDOWN_OUTPUT.invokeExact(impl);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void sendUrgentData(SocketImpl impl, int data) throws IOException {
        try {
            URGENT.invokeExact(impl, data);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void setOption(SocketImpl impl, int id, Object value) throws java.net.SocketException {
        try {
            SET_INT_OPTION.invokeExact(impl, id, value);
        } catch (Throwable t) {
            throw rethrowSocket(t);
        }
    }

    static Object getOption(SocketImpl impl, int id) throws java.net.SocketException {
        try {
            return (Object) GET_INT_OPTION.invokeExact(impl, id);
        } catch (Throwable t) {
            throw rethrowSocket(t);
        }
    }

    static void setOption(SocketImpl impl, SocketOption<?> name, Object value) throws IOException {
        try {
            SET_OPTION.invokeExact(impl, name, value);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static Object getOption(SocketImpl impl, SocketOption<?> name) throws IOException {
        try {
            return (Object) GET_OPTION.invokeExact(impl, name);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    @SuppressWarnings("unchecked")
    static Set<SocketOption<?>> supportedOptions(SocketImpl impl) {
        try {
            return (Set<SocketOption<?>>) (Set<?>) SUPPORTED_OPTIONS.invokeExact(impl);
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    static InetAddress address(SocketImpl impl) {
        try {
            return (InetAddress) ADDRESS.invokeExact(impl);
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    static int port(SocketImpl impl) {
        try {
            return (int) PORT.invokeExact(impl);
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    static int localPort(SocketImpl impl) {
        try {
            return (int) LOCAL_PORT.invokeExact(impl);
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    static java.io.FileDescriptor fd(SocketImpl impl) {
        try {
            return (java.io.FileDescriptor) FD.invokeExact(impl);
        } catch (Throwable t) {
            throw unchecked(t);
        }
    }

    /**
     * The option values of {@code impl}, a setup socket in its java.net form, for a session taking over its
     * connection; those {@code setBy} (the options the app set on it or on its listener) knows are not asked for.
     */
    static SetupOptions setupOptions(SocketImpl impl, BufferSizes setBy) {
        return new SetupOptions() {
            @Override
            public Set<SocketOption<?>> supported() {
                return supportedOptions(impl);
            }

            @Override
            public Object get(SocketOption<?> option) throws IOException {
                Object known = setBy.knownValue(option);
                return known != null ? known : getOption(impl, option);
            }
        };
    }

    private static IOException rethrow(Throwable t) {
        if (t instanceof IOException) {
            return (IOException) t;
        }
        throw unchecked(t);
    }

    private static java.net.SocketException rethrowSocket(Throwable t) {
        if (t instanceof java.net.SocketException) {
            return (java.net.SocketException) t;
        }
        throw unchecked(t);
    }

    private static RuntimeException unchecked(Throwable t) {
        if (t instanceof RuntimeException) {
            return (RuntimeException) t;
        }
        if (t instanceof Error) {
            throw (Error) t;
        }
        return new IllegalStateException(t);
    }
}
