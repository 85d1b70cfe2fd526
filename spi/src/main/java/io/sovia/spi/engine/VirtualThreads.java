package io.sovia.spi.engine;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Tells virtual threads (JDK 21+) from platform threads without compiling against JDK 21: a blocked call on a
 * virtual thread must park rather than sleep in a kernel selector, and java.net ends it on an interrupt.
 */
public final class VirtualThreads {
    /** {@code Thread.isVirtual()}, or null before JDK 21, where every thread is a platform thread. */
    private static final MethodHandle IS_VIRTUAL = isVirtualHandle();

    private VirtualThreads() {
    }

    /** Whether the calling thread is a virtual thread. */
    public static boolean current() {
        if (IS_VIRTUAL == null) {
            return false;
        }
        try {
            return (boolean) IS_VIRTUAL.invokeExact(Thread.currentThread());
        } catch (Throwable t) {
            throw new IllegalStateException("Thread.isVirtual failed", t);
        }
    }

    private static MethodHandle isVirtualHandle() {
        try {
            return MethodHandles.publicLookup().findVirtual(Thread.class, "isVirtual",
                    MethodType.methodType(boolean.class));
        } catch (NoSuchMethodException | IllegalAccessException beforeJdk21) {
            return null;
        }
    }
}
