package io.sovia.agent.it;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.junit.jupiter.api.Assumptions;

/**
 * Virtual threads for the scenarios, reached through method handles: the tests compile at source level 17, and on
 * JDK 17 the scenarios that need them are skipped.
 */
final class VirtualThreads {
    /** {@code Thread.ofVirtual()}, {@code OfVirtual.name(String)}, {@code Builder.unstarted(Runnable)}; null before JDK 21. */
    private static final MethodHandle[] BUILDER = builderHandles();

    private VirtualThreads() {
    }

    /** Skips the calling scenario, saying why, when this JDK has no virtual threads. */
    static void assumeAvailable() {
        Assumptions.assumeTrue(BUILDER != null, () -> "virtual threads need JDK 21+; this JVM is "
                + Runtime.version() + ", so the virtual-thread scenarios are skipped");
    }

    /** A new, unstarted virtual thread named {@code name} running {@code body}. */
    static Thread unstarted(String name, Runnable body) {
        assumeAvailable();
        try {
            Object builder = BUILDER[0].invoke();
            builder = BUILDER[1].invoke(builder, name);
            return (Thread) BUILDER[2].invoke(builder, body);
        } catch (Throwable t) {
            throw new IllegalStateException("cannot create a virtual thread", t);
        }
    }

    /**
     * The most carrier threads the virtual-thread scheduler may use in this JVM: its {@code maxPoolSize} (the pool
     * adds carriers beyond its parallelism only up to that, when one is blocked). The agent module's failsafe
     * configuration sets both small, so a few blocked virtual threads could take every carrier.
     */
    static int maxCarriers() {
        int parallelism = Integer.getInteger("jdk.virtualThreadScheduler.parallelism",
                Runtime.getRuntime().availableProcessors());
        return Integer.getInteger("jdk.virtualThreadScheduler.maxPoolSize", Math.max(parallelism, 256));
    }

    private static MethodHandle[] builderHandles() {
        if (Runtime.version().feature() < 21) {
            return null;
        }
        try {
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            Class<?> builder = Class.forName("java.lang.Thread$Builder");
            Class<?> ofVirtual = Class.forName("java.lang.Thread$Builder$OfVirtual");
            return new MethodHandle[] {
                lookup.findStatic(Thread.class, "ofVirtual", MethodType.methodType(ofVirtual))
                        .asType(MethodType.methodType(Object.class)),
                lookup.findVirtual(ofVirtual, "name", MethodType.methodType(ofVirtual, String.class))
                        .asType(MethodType.methodType(Object.class, Object.class, String.class)),
                lookup.findVirtual(builder, "unstarted", MethodType.methodType(Thread.class, Runnable.class))
                        .asType(MethodType.methodType(Thread.class, Object.class, Runnable.class))};
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("JDK " + Runtime.version() + " lacks the virtual-thread API", e);
        }
    }
}
