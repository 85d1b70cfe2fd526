package io.sovia.spi.stats;

import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.transport.PathKind;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToLongFunction;

/**
 * Process-wide counters: connections per path, fallback reasons, bytes per path.
 *
 * <p>Counters are {@link LongAdder}s so the data path pays an uncontended add, never a lock. Bytes of an engine
 * session are not added per call: the session counts them under the lock it holds anyway ({@link OwnCounts}),
 * and they are read from it until it ends. An add per 64-byte write was 7% of the writer's time.
 */
public final class SoviaStats {
    private static final PathKind[] PATHS = PathKind.values();
    private static final LongAdder[] CONNECTIONS = adders();
    private static final LongAdder[] BYTES_SENT = adders();
    private static final LongAdder[] BYTES_RECEIVED = adders();
    private static final Map<String, LongAdder> FALLBACKS = new ConcurrentHashMap<>();
    private static final Map<String, LongAdder> REFUSED = new ConcurrentHashMap<>();
    private static final Map<String, LongAdder> DROPPED = new ConcurrentHashMap<>();
    private static final Set<OwnCounts> COUNTING = ConcurrentHashMap.newKeySet();

    /** A connection that counts its own bytes: read while it lasts, added to the per-path counters when it ends. */
    public interface OwnCounts {
        PathKind path();

        /** Bytes the app wrote so far; read from any thread, a moment old at worst. */
        long bytesWritten();

        /** Bytes the app read so far; read from any thread, a moment old at worst. */
        long bytesRead();
    }

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

    /** From now on, {@code c}'s bytes count in its path's until {@link #ended}. */
    public static void counting(OwnCounts c) {
        COUNTING.add(c);
    }

    /** {@code c} takes no more bytes: what it counted moves into the counters. Idempotent. */
    public static void ended(OwnCounts c) {
        if (COUNTING.remove(c)) {
            sent(c.path(), c.bytesWritten());
            received(c.path(), c.bytesRead());
        }
    }

    /** Connections made so far on {@code path}. */
    public static long connections(PathKind path) {
        return CONNECTIONS[path.ordinal()].sum();
    }

    /** Bytes sent so far on {@code path}. */
    public static long bytesSent(PathKind path) {
        return bytes(BYTES_SENT, path, OwnCounts::bytesWritten);
    }

    /** Bytes received so far on {@code path}. */
    public static long bytesReceived(PathKind path) {
        return bytes(BYTES_RECEIVED, path, OwnCounts::bytesRead);
    }

    /** What {@code counted} holds for {@code path}, plus what its live connections counted themselves. */
    private static long bytes(LongAdder[] counted, PathKind path, ToLongFunction<OwnCounts> live) {
        long n = counted[path.ordinal()].sum();
        for (OwnCounts c : COUNTING) {
            n += c.path() == path ? live.applyAsLong(c) : 0;
        }
        return n;
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
        perPath(sb, "connections", SoviaStats::connections).append(", ");
        byReason(sb, "fallbacks", FALLBACKS).append(", ");
        byReason(sb, "refused", REFUSED).append(", ");
        byReason(sb, "dropped", DROPPED).append(", ");
        perPath(sb, "bytesSent", SoviaStats::bytesSent).append(", ");
        perPath(sb, "bytesReceived", SoviaStats::bytesReceived);
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

    private static StringBuilder perPath(StringBuilder sb, String name, ToLongFunction<PathKind> values) {
        sb.append('"').append(name).append("\": {");
        for (PathKind p : PATHS) {
            sb.append(p.ordinal() == 0 ? "" : ", ").append('"').append(p.key()).append("\": ").append(values.applyAsLong(p));
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
