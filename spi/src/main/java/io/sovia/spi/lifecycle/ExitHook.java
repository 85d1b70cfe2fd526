package io.sovia.spi.lifecycle;

import io.sovia.spi.config.SoviaLog;

import java.lang.reflect.Method;

/**
 * Runs Sovia's exit sequence after every application shutdown hook. {@code Runtime.addShutdownHook}
 * hooks all run at once, in no order, so a Sovia hook there would close connections that an app's hook
 * is still writing to. The JDK itself runs a few "system" hooks in slot order, the application hooks
 * being slot 1 (joined before slot 2 starts); {@code JavaLangAccess.registerShutdownHook} takes a free
 * slot after it (JDK 17 to 25; the agent exports {@code jdk.internal.access} to Sovia). Where that is not
 * reachable (Sovia without its agent, as in unit tests) an ordinary shutdown hook runs the sequence.
 */
final class ExitHook {
    /** Slots 0 to 2 are the JDK's (console, application hooks, delete-on-exit); the JDK has ten. */
    private static final int FIRST_SLOT = 3;
    private static final int LAST_SLOT = 9;

    private ExitHook() {
    }

    /** Whether {@code sequence} runs after every application hook (in a JDK slot), not alongside them. */
    static boolean install(Runnable sequence) {
        try {
            Object access = Class.forName("jdk.internal.access.SharedSecrets")
                    .getMethod("getJavaLangAccess").invoke(null);
            Method register = Class.forName("jdk.internal.access.JavaLangAccess")
                    .getMethod("registerShutdownHook", int.class, boolean.class, Runnable.class);
            for (int slot = LAST_SLOT; slot >= FIRST_SLOT; slot--) {
                try {
                    // true: also when the first connection is made by an app's own shutdown hook
                    register.invoke(access, slot, true, sequence);
                    return true;
                } catch (java.lang.reflect.InvocationTargetException taken) {
                    // slot in use (InternalError) or already run (IllegalStateException): try the next
                }
            }
            SoviaLog.warn("no free JDK shutdown slot; Sovia closes connections alongside the app's hooks", null);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            SoviaLog.debugOnce("exit-hook", "JDK shutdown slots unreachable (" + e
                    + "); Sovia closes connections alongside the app's hooks");
        }
        Runtime.getRuntime().addShutdownHook(new Thread(sequence, "sovia-exit"));
        return false;
    }
}
