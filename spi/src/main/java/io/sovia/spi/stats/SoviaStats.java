package io.sovia.spi.stats;

import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.transport.PathKind;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Process-wide counters: connections per path, fallback reasons, bytes per path.
 *
 * <p>Counters are {@link LongAdder}s so the data path pays an uncontended add, never a lock.
 */
public final class SoviaStats {
    private static final PathKind[] PATHS = PathKind.values();
    private static final LongAdder[] CONNECTIONS = adders();
    private static final LongAdder[] BYTES_SENT = adders();
    private static final LongAdder[] BYTES_RECEIVED = adders();
    private static final Map<String, LongAdder> FALLBACKS = new ConcurrentHashMap<>();
    private static final Map<String, LongAdder> REFUSED = new ConcurrentHashMap<>();
    private static final Map<String, LongAdder> DROPPED = new ConcurrentHashMap<>();

    private SoviaStats() {
    }

    private static LongAdder[] adders() {
        LongAdder[] a = new LongAdder[PATHS.length];
        for (int i = 0; i < a.length; i++) {
            a[i] = new LongAdder();
        }
        return a;
    }

    /** A connection was established by connect() or accept() on {@code path}. */
    public static void connection(PathKind path) {
        CONNECTIONS[path.ordinal()].increment();
    }

    /** A connect went to TCP for {@code reason}. */
    public static void fallback(String reason) {
        FALLBACKS.computeIfAbsent(reason, r -> new LongAdder()).increment();
        SoviaLog.debugOnce("fallback " + reason, "connects use TCP for this reason (counted in the stats): " + reason);
    }

    /** A peer's connection setup was refused (malformed, hostile, or its resources unusable), by what. */
    public static void refused(String what) {
        REFUSED.computeIfAbsent(what, r -> new LongAdder()).increment();
    }

    /**
     * A lossy path dropped a frame that failed its checks (a stranger's, a stale connection's, a damaged one), by
     * reason; the hot path counts rather than throws.
     */
    public static void dropped(String reason) {
        dropped(reason, 1);
    }

    /** {@code n} frames dropped for {@code reason}. */
    public static void dropped(String reason, long n) {
        if (n > 0) {
            DROPPED.computeIfAbsent(reason, r -> new LongAdder()).add(n);
        }
    }

    /** Frames dropped so far for {@code reason}. */
    public static long droppedCount(String reason) {
        LongAdder a = DROPPED.get(reason);
        return a == null ? 0 : a.sum();
    }

    /** {@code n} bytes left this process on {@code path}. */
    public static void sent(PathKind path, long n) {
        if (n > 0) {
            BYTES_SENT[path.ordinal()].add(n);
        }
    }

    /** {@code n} bytes arrived on {@code path}. */
    public static void received(PathKind path, long n) {
        if (n > 0) {
            BYTES_RECEIVED[path.ordinal()].add(n);
        }
    }

    /** Connections made so far on {@code path}. */
    public static long connections(PathKind path) {
        return CONNECTIONS[path.ordinal()].sum();
    }

    /** Bytes sent so far on {@code path}. */
    public static long bytesSent(PathKind path) {
        return BYTES_SENT[path.ordinal()].sum();
    }

    /** Bytes received so far on {@code path}. */
    public static long bytesReceived(PathKind path) {
        return BYTES_RECEIVED[path.ordinal()].sum();
    }

    /** Connects that went to TCP so far, by reason. */
    public static Map<String, Long> fallbacks() {
        Map<String, Long> counts = new TreeMap<>();
        FALLBACKS.forEach((reason, n) -> counts.put(reason, n.sum()));
        return counts;
    }

    /** The counters as one JSON object (see the README for the fields). */
    public static String toJson() {
        StringBuilder sb = new StringBuilder(256).append('{');
        perPath(sb, "connections", CONNECTIONS).append(", ");
        byReason(sb, "fallbacks", FALLBACKS).append(", ");
        byReason(sb, "refused", REFUSED).append(", ");
        byReason(sb, "dropped", DROPPED).append(", ");
        perPath(sb, "bytesSent", BYTES_SENT).append(", ");
        perPath(sb, "bytesReceived", BYTES_RECEIVED);
        sb.append(", \"engine\": ").append(io.sovia.spi.engine.EngineCounters.toJson());
        return sb.append("}\n").toString();
    }

    private static StringBuilder byReason(StringBuilder sb, String name, Map<String, LongAdder> counts) {
        sb.append('"').append(name).append("\": {");
        String sep = "";
        for (Map.Entry<String, LongAdder> e : new TreeMap<>(counts).entrySet()) {
            sb.append(sep).append('"').append(escape(e.getKey())).append("\": ").append(e.getValue().sum());
            sep = ", ";
        }
        return sb.append('}');
    }

    private static StringBuilder perPath(StringBuilder sb, String name, LongAdder[] values) {
        sb.append('"').append(name).append("\": {");
        for (PathKind p : PATHS) {
            sb.append(p.ordinal() == 0 ? "" : ", ").append('"').append(p.key()).append("\": ").append(values[p.ordinal()].sum());
        }
        return sb.append('}');
    }

    /** {@code s} as the inside of a JSON string. */
    public static String escape(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
