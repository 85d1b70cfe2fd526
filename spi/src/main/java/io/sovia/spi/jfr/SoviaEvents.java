package io.sovia.spi.jfr;

/**
 * Sovia's JFR events ({@code io.sovia.*}, category "Sovia"), committed only while a recording enables them, so
 * they cost a flag check when none runs. They are emitted where connections open, close, fall back to TCP or
 * reset, never on the data path.
 *
 * <p>The event classes are touched only once JFR is initialised (a recording started, at launch or later by
 * {@code jcmd}): the first event class loaded in a JVM without JFR initialises it, about 0.3 s on the first
 * connection's thread. A runtime without the {@code jdk.jfr} module (a jlink image) never loads them.
 */
public final class SoviaEvents {
    private static final boolean AVAILABLE = ModuleLayer.boot().findModule("jdk.jfr").isPresent();

    private SoviaEvents() {
    }

    /** Whether JFR runs in this JVM; a static read once its class is loaded. */
    private static boolean recording() {
        return AVAILABLE && jdk.jfr.FlightRecorder.isInitialized();
    }

    /** A connection began on an accelerated {@code path}. */
    public static void opened(String path, String local, String remote) {
        if (recording()) {
            ConnectionOpenEvent.emit(path, local, remote);
        }
    }

    /** An accelerated connection ended (its link released), with what it carried. */
    public static void closed(String path, String local, String remote, long sent, long received) {
        if (recording()) {
            ConnectionCloseEvent.emit(path, local, remote, sent, received);
        }
    }

    /** A connect to {@code remote} went to TCP for {@code reason} (the stats file's fallback key). */
    public static void fallback(String reason, String remote) {
        if (recording()) {
            FallbackEvent.emit(reason, remote);
        }
    }

    /** A connection was reset, or its peer declared dead, for {@code reason}. */
    public static void reset(String reason) {
        if (recording()) {
            ResetEvent.emit(reason);
        }
    }
}
