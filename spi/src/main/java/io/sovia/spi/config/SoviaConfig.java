package io.sovia.spi.config;

import java.util.Locale;

/**
 * Every {@code sovia.*} property, its default and its meaning, in one place.
 *
 * <p>Properties are read from system properties; the agent copies its own arguments
 * ({@code -javaagent:sovia.jar=stats=/tmp/s.json,log=debug}) into system properties with the
 * {@code sovia.} prefix before anything reads them, so both spellings mean the same.
 *
 * <table>
 *   <caption>Properties</caption>
 *   <tr><th>property</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@code sovia.stats}</td><td>(unset)</td><td>file to which a JSON summary of connections
 *       per path, fallback reasons and bytes per path is written at JVM exit</td></tr>
 *   <tr><td>{@code sovia.log}</td><td>{@code warn}</td><td>Sovia's own log level on stderr:
 *       {@code off}, {@code warn}, {@code info} or {@code debug} (one line per fallback reason)</td></tr>
 *   <tr><td>{@code sovia.enabled}</td><td>{@code true}</td><td>{@code false} makes the agent leave the JVM
 *       entirely on the plain JDK</td></tr>
 *   <tr><td>{@code sovia.javanet}</td><td>{@code advice}</td><td>how {@code java.net.Socket}/{@code ServerSocket}
 *       reach Sovia: {@code advice} (instrument {@code SocketImpl.createPlatformSocketImpl}; falls back to
 *       {@code factory} if that fails), {@code factory} ({@code Socket.setSocketImplFactory}, after which the app
 *       cannot set its own) or {@code off} (java.net stays on the plain JDK)</td></tr>
 * </table>
 */
public final class SoviaConfig {
    /** Prefix of every Sovia property. */
    public static final String PREFIX = "sovia.";

    /** Stats file written at exit; unset means none. */
    public static final String STATS = PREFIX + "stats";
    /** Log level: off, warn, info, debug. */
    public static final String LOG = PREFIX + "log";
    /** Master switch read by the agent. */
    public static final String ENABLED = PREFIX + "enabled";

    /** How java.net sockets are routed: advice, factory or off. */
    public static final String JAVANET = PREFIX + "javanet";

    static final String LOG_DEFAULT = "warn";
    static final String JAVANET_DEFAULT = "advice";

    private SoviaConfig() {
    }

    /** The stats file path, or null when no stats are wanted. */
    public static String statsFile() {
        String file = System.getProperty(STATS);
        return file == null || file.isBlank() ? null : file;
    }

    /** Whether Sovia should install itself at all. */
    public static boolean enabled() {
        return !"false".equalsIgnoreCase(System.getProperty(ENABLED, "true").trim());
    }

    /** The configured java.net routing, lower case; see {@link #JAVANET}. */
    public static String javaNet() {
        return System.getProperty(JAVANET, JAVANET_DEFAULT).trim().toLowerCase(Locale.ROOT);
    }

    /** The configured log level, lower case. */
    public static String logLevel() {
        return System.getProperty(LOG, LOG_DEFAULT).trim().toLowerCase(Locale.ROOT);
    }
}
