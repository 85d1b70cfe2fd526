package io.sovia.agent.ops;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Prints whether {@code ThreadLocalRandom} was initialized before this main began (the class literal does not
 * initialize it). Needs {@code --add-exports java.base/jdk.internal.misc=ALL-UNNAMED}.
 */
public final class InitProbe {
    private InitProbe() {
    }

    public static void main(String[] args) throws ReflectiveOperationException {
        Class<?> unsafe = Class.forName("jdk.internal.misc.Unsafe");
        Object u = unsafe.getMethod("getUnsafe").invoke(null);
        boolean pending = (boolean) unsafe.getMethod("shouldBeInitialized", Class.class).invoke(u, ThreadLocalRandom.class);
        System.out.println("ThreadLocalRandom initialized=" + !pending);
    }
}
