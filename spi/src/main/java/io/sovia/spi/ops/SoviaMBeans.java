package io.sovia.spi.ops;

import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.engine.EngineCounters;
import io.sovia.spi.stats.SoviaStats;
import io.sovia.spi.transport.PathKind;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.Map;

/**
 * Sovia's counters as MXBeans in the platform MBean server, readable with jconsole or any JMX client:
 * {@code io.sovia:type=Path,name=<path>} per path, {@code io.sovia:type=Fallbacks} and
 * {@code io.sovia:type=Engine}, registered once the JVM has an MBean server ({@link LivePublisher}). Each getter
 * reads the live counters; nothing is copied.
 */
public final class SoviaMBeans {
    /** The JMX domain of every Sovia MBean. */
    public static final String DOMAIN = "io.sovia";

    private SoviaMBeans() {
    }

    /** One path's connections and bytes. */
    public interface PathMXBean {
        /** Connections open now; -1 on tcp, whose connections Sovia does not follow. */
        long getConnectionsOpen();

        /** Connections established so far by connect or accept. */
        long getConnectionsTotal();

        long getBytesSent();

        long getBytesReceived();
    }

    /** Connects that went to TCP, by the reason the stats file counts them under. */
    public interface FallbacksMXBean {
        Map<String, Long> getByReason();

        long getTotal();
    }

    /** What the engine repaired or refused, all paths together (it does not know its path). */
    public interface EngineMXBean {
        long getResets();

        long getRetransmits();

        long getOutOfOrder();

        long getBadTokens();

        long getProtocolErrors();
    }

    private record PathBean(PathKind path) implements PathMXBean {
        @Override
        public long getConnectionsOpen() {
            return path == PathKind.TCP ? -1 : LiveRegistry.open(path);
        }

        @Override
        public long getConnectionsTotal() {
            return SoviaStats.connections(path);
        }

        @Override
        public long getBytesSent() {
            return SoviaStats.bytesSent(path);
        }

        @Override
        public long getBytesReceived() {
            return SoviaStats.bytesReceived(path);
        }
    }

    private static final class FallbacksBean implements FallbacksMXBean {
        @Override
        public Map<String, Long> getByReason() {
            return SoviaStats.fallbacks();
        }

        @Override
        public long getTotal() {
            return SoviaStats.fallbacks().values().stream().mapToLong(Long::longValue).sum();
        }
    }

    private static final class EngineBean implements EngineMXBean {
        @Override
        public long getResets() {
            return EngineCounters.RESETS.sum();
        }

        @Override
        public long getRetransmits() {
            return EngineCounters.RETRANSMITS.sum();
        }

        @Override
        public long getOutOfOrder() {
            return EngineCounters.OUT_OF_ORDER.sum();
        }

        @Override
        public long getBadTokens() {
            return EngineCounters.BAD_TOKENS.sum();
        }

        @Override
        public long getProtocolErrors() {
            return EngineCounters.PROTOCOL_ERRORS.sum();
        }
    }

    /**
     * Whether this JVM has an MBean server yet (the platform one is created by the first JMX client or the app's
     * own use of JMX); looking does not create one.
     */
    static boolean serverExists() {
        try {
            return !MBeanServerFactory.findMBeanServer(null).isEmpty();
        } catch (SecurityException denied) {
            return false;
        }
    }

    /** Registers every bean; a failure (no java.management, a name taken) is one log line, never the app's. */
    static void register() {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            for (PathKind path : PathKind.values()) {
                server.registerMBean(new PathBean(path), new ObjectName(DOMAIN + ":type=Path,name=" + path.key()));
            }
            server.registerMBean(new FallbacksBean(), new ObjectName(DOMAIN + ":type=Fallbacks"));
            server.registerMBean(new EngineBean(), new ObjectName(DOMAIN + ":type=Engine"));
        } catch (JMException | RuntimeException | LinkageError e) {
            SoviaLog.warn("no io.sovia MBeans in this JVM; the stats file and sovia ss still work", e);
        }
    }
}
