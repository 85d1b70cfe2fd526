package io.sovia.spi.jfr;

/**
 * Sovia's JFR events ({@code io.sovia.*}, category "Sovia"), committed only while a recording enables them, so
 * they cost a flag check when none runs. They are emitted where connections open, close, fall back to TCP or
 * reset, never on the data path.
 *
 * <p>A runtime without the {@code jdk.jfr} module (a jlink image) gets none: the event classes are touched only
 * after that check, so they are never loaded there.
 */
public final class SoviaEvents {
    private static final boolean AVAILABLE = ModuleLayer.boot().findModule("jdk.jfr").isPresent();

    private SoviaEvents() {
    }

    /** A connection began on an accelerated {@code path}. */
    public static void opened(String path, String local, String remote) {
        if (AVAILABLE) {
            ConnectionOpenEvent.emit(path, local, remote);
        }
    }

    /** An accelerated connection ended (its link released), with what it carried. */
    public static void closed(String path, String local, String remote, long sent, long received) {
        if (AVAILABLE) {
            ConnectionCloseEvent.emit(path, local, remote, sent, received);
        }
    }

    /** A connect to {@code remote} went to TCP for {@code reason} (the stats file's fallback key). */
    public static void fallback(String reason, String remote) {
        if (AVAILABLE) {
            FallbackEvent.emit(reason, remote);
        }
    }

    /** A connection was reset, or its peer declared dead, for {@code reason}. */
    public static void reset(String reason) {
        if (AVAILABLE) {
            ResetEvent.emit(reason);
        }
    }
}
