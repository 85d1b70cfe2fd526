package io.sovia.spi.config;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Sovia's log: one line per event on stderr, prefixed {@code [sovia]}, quiet unless something degrades.
 *
 * <p>Deliberately not System.Logger or java.util.logging: the agent runs before the app configures
 * logging and must not initialise the app's logging backend early (that would change the app's
 * behaviour), and a fallback line must reach the user even when the app silences its own logs.
 */
public final class SoviaLog {
    private static final int OFF = 0;
    private static final int WARN = 1;
    private static final int INFO = 2;
    private static final int DEBUG = 3;

    private static final Set<String> ONCE = ConcurrentHashMap.newKeySet();
    private static final Map<String, AtomicLong> REPEATS = new ConcurrentHashMap<>();

    private SoviaLog() {
    }

    private static int level() {
        switch (SoviaConfig.logLevel()) {
            case "off": return OFF;
            case "info": return INFO;
            case "debug": return DEBUG;
            default: return WARN;
        }
    }

    /** Something degraded to the plain JDK; always worth one line. */
    public static void warn(String message, Throwable cause) {
        if (level() >= WARN) {
            System.err.println("[sovia] WARN " + message + (cause == null ? "" : ": " + cause));
        }
    }

    /** As {@link #warn}, once per distinct {@code key} for the life of the JVM: for failures that repeat per connect. */
    public static void warnOnce(String key, String message, Throwable cause) {
        if (ONCE.add("warn:" + key)) {
            warn(message, cause);
        }
    }

    /**
     * As {@link #warn}, for a cause that may repeat without bound (a hostile or broken peer, an exhausted
     * resource): the first time, then at the 10th, 100th, 1000th... time with the count, so the log says how
     * often without growing with it.
     */
    public static void warnCounted(String key, String message, Throwable cause) {
        long n = REPEATS.computeIfAbsent(key, k -> new AtomicLong()).incrementAndGet();
        if (n == 1) {
            warn(message, cause);
        } else if (isPowerOfTen(n)) {
            warn(message + " (" + n + " times so far)", cause);
        }
    }

    private static boolean isPowerOfTen(long n) {
        while (n % 10 == 0) {
            n /= 10;
        }
        return n == 1;
    }

    /** Start-up facts. */
    public static void info(String message) {
        if (level() >= INFO) {
            System.err.println("[sovia] INFO " + message);
        }
    }

    /** Logs {@code message} at debug level once per distinct {@code key} for the life of the JVM. */
    public static void debugOnce(String key, String message) {
        if (level() >= DEBUG && ONCE.add(key)) {
            System.err.println("[sovia] DEBUG " + message);
        }
    }
}
