package io.sovia.agent;

import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.jdk.JdkNio;
import io.sovia.spi.jdk.JitBoundary;
import io.sovia.spi.nio.SoviaSelectorProvider;
import io.sovia.spi.os.NativeAccess;
import io.sovia.spi.stats.StatsFileWriter;

import java.lang.instrument.Instrumentation;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code -javaagent:sovia.jar[=key=value,...]}: installs Sovia before the app runs.
 *
 * <p>Agent arguments are {@code sovia.*} properties without the prefix ({@code stats=/tmp/s.json}); they
 * override {@code -Dsovia.*}. premain never throws: any failure leaves the JVM (or the part that failed)
 * on the plain JDK with one log line.
 */
public final class SoviaAgent {
    private static final String PROVIDER_PROPERTY = "java.nio.channels.spi.SelectorProvider";
    /** Set by the first premain of this JVM. */
    private static final AtomicBoolean PREMAIN_RAN = new AtomicBoolean();

    private SoviaAgent() {
    }

    /** Entry point named by the jar's {@code Premain-Class}. */
    public static void premain(String args, Instrumentation inst) {
        if (!PREMAIN_RAN.compareAndSet(false, true)) {
            // e.g. -javaagent both in JAVA_TOOL_OPTIONS and on the command line: the class is loaded once,
            // and a second install would stack a SocketImpl factory on the advice and break apps' own
            SoviaLog.warn("already installed in this JVM; the agent given again (" + args + ") is ignored", null);
            return;
        }
        PatchTransformer patches;
        try {
            applyArguments(args);
            if (!SoviaConfig.enabled()) {
                SoviaLog.info("disabled by " + SoviaConfig.ENABLED + "=false");
                return;
            }
            openJavaBase(inst);
            StatsFileWriter.installIfConfigured();
            initializeBeforeTransformers();
            patches = PatchTransformer.install(inst);
        } catch (Throwable t) {
            SoviaLog.warn("Sovia is off for this JVM, which runs on the plain JDK", t);
            return;
        }
        installProvider();
        installSocketImpl(inst, patches);
        installFileTransfers(inst, patches);
        installChannelStreams(inst, patches);
        installNettySteering(patches);
        if (SoviaConfig.pathAllowed("shm")) {
            NativeAccess.loadInBackground();
        }
        if (SoviaConfig.jitBoundary()) {
            JitBoundary.installInBackground();
        }
    }

    /** Parses {@code key=value,...} into {@code sovia.key} system properties. */
    static void applyArguments(String args) {
        if (args == null || args.isBlank()) {
            return;
        }
        for (String pair : args.split(",")) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("agent argument '" + pair + "' is not key=value");
            }
            String key = pair.substring(0, eq).trim();
            String name = key.startsWith(SoviaConfig.PREFIX) ? key : SoviaConfig.PREFIX + key;
            System.setProperty(name, pair.substring(eq + 1).trim());
        }
    }

    /**
     * The SPI implements and calls JDK internals; export and open them to the agent's module
     * ({@code jdk.internal.access} for the exit sequence's place after the app's shutdown hooks,
     * {@code jdk.internal.misc} for the rings' ordered stores, {@code jdk.management}'s diagnostic command for the
     * compiler directive).
     */
    private static void openJavaBase(Instrumentation inst) {
        Module base = Object.class.getModule();
        Set<Module> sovia = Set.of(SoviaAgent.class.getModule());
        inst.redefineModule(base, Set.of(),
                Map.of("sun.nio.ch", sovia, "sun.net", sovia, "jdk.internal.access", sovia, "jdk.internal.misc", sovia),
                Map.of("java.net", sovia, "java.nio.channels", sovia, "sun.nio.ch", sovia),
                Set.of(), Map.of());
        // the diagnostic command that adds the compiler directive (JitBoundary); absent from trimmed runtimes
        ModuleLayer.boot().findModule("jdk.management").ifPresent(management -> inst.redefineModule(management,
                Set.of(), Map.of(), Map.of("com.sun.management.internal", sovia), Set.of(), Map.of()));
    }

    /**
     * Initializes {@code ThreadLocalRandom} before the transformer is installed. Code that a transformer runs while a
     * class loads must not be what initializes a class that class's initializer needs, or that initializer fails with
     * a {@code ClassCircularityError} and the class stays broken for the whole JVM (JDK-8164165): Byte Buddy's
     * transformer, used before, took a lock in a {@code ConcurrentHashMap} for every class loaded, which under
     * contention initializes {@code ThreadLocalRandom}, and an unmodified HttpClient app died with "Could not
     * initialize class java.util.concurrent.ThreadLocalRandom" in a CI run on JDK 25. The patch transformer only
     * compares names for other classes, but logs when it steers Netty; APM agents initialize it first too.
     */
    private static void initializeBeforeTransformers() {
        ThreadLocalRandom.current().nextInt();
    }

    private static void installProvider() {
        try {
            String existing = System.getProperty(PROVIDER_PROPERTY);
            if (existing != null) {
                SoviaLog.warn("NIO stays on the app's own provider " + existing + ", not Sovia's", null);
                return;
            }
            JdkNio.provider();
            System.setProperty(PROVIDER_PROPERTY, SoviaSelectorProvider.class.getName());
        } catch (Throwable t) {
            SoviaLog.warn("NIO stays on the plain JDK", t);
        }
    }

    private static void installFileTransfers(Instrumentation inst, PatchTransformer patches) {
        try {
            FileTransferInstaller.install(inst, patches);
        } catch (Throwable t) {
            SoviaLog.warn("FileChannel transfers to and from Sovia channels go through the heap, as the JDK does "
                    + "them for channels it does not know", t);
        }
    }

    private static void installChannelStreams(Instrumentation inst, PatchTransformer patches) {
        try {
            ChannelStreamsInstaller.install(inst, patches);
        } catch (Throwable t) {
            SoviaLog.warn("Channels' streams over Sovia channels stay the JDK's, which lock twice per call", t);
        }
    }

    private static void installNettySteering(PatchTransformer patches) {
        try {
            if (SoviaConfig.steerNettyNative()) {
                NettyNativeInstaller.install(patches);
            }
        } catch (Throwable t) {
            SoviaLog.warn("Netty's native transports stay available: connections on them are not accelerated", t);
        }
    }

    private static void installSocketImpl(Instrumentation inst, PatchTransformer patches) {
        try {
            SoviaLog.info("java.net routed through " + SocketImplInstaller.install(inst, patches,
                    SoviaConfig.javaNet()));
        } catch (Throwable t) {
            SoviaLog.warn("java.net sockets stay on the plain JDK", t);
        }
    }
}
