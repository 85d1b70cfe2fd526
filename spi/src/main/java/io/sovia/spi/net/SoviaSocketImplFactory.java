package io.sovia.spi.net;

import io.sovia.spi.config.SoviaLog;

import java.net.SocketImpl;
import java.util.function.Function;

/**
 * Makes the impls the agent's hook returns from {@code SocketImpl.createPlatformSocketImpl}.
 *
 * <p>Never throws: returning null tells the hook to let the JDK create its own impl, which is what
 * happens for every socket after the first internal failure (logged once).
 */
public final class SoviaSocketImplFactory implements Function<Boolean, SocketImpl> {
    /**
     * Whether {@code SocketImpl.createPlatformSocketImpl} itself returns Sovia's impls. Only then does
     * {@code ServerSocket.accept} accept into a Sovia impl that can take over a same-JVM connection, so
     * only then do java.net listeners offer themselves for jvm connects.
     */
    private static volatile boolean platformHooked;
    private volatile boolean disabled;

    /** Set by the agent once its patch of createPlatformSocketImpl is verified. */
    public static void platformHooked(boolean hooked) {
        platformHooked = hooked;
    }

    static boolean isPlatformHooked() {
        return platformHooked;
    }

    /**
     * Checks that the JDK internals this factory needs are reachable.
     *
     * @throws Throwable anything that makes the factory unusable, for the installer to log
     */
    public static void check() throws Throwable {
        NioImpl.check();
    }

    @Override
    public SocketImpl apply(Boolean server) {
        if (disabled) {
            return null;
        }
        try {
            return new SoviaSocketImpl(server);
        } catch (Throwable t) {
            disabled = true;
            SoviaLog.warn("java.net sockets fall back to the plain JDK for the rest of this JVM", t);
            return null;
        }
    }
}
