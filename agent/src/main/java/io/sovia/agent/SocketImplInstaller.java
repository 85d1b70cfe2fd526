package io.sovia.agent;

import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.net.SoviaSocketImplFactory;
import net.bytebuddy.asm.Advice;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketImpl;

import static net.bytebuddy.matcher.ElementMatchers.named;

/**
 * Routes {@code java.net.Socket} and {@code ServerSocket} through Sovia's SocketImpl.
 *
 * <p>First choice: advice on {@code SocketImpl.createPlatformSocketImpl}, which keeps SOCKS proxies
 * working and leaves {@code Socket.setSocketImplFactory} free for the app. Only if that cannot be
 * installed are the JDK's global factories used, which an app can then no longer set itself.
 */
final class SocketImplInstaller {
    private SocketImplInstaller() {
    }

    /** Installs what {@code mode} ({@code sovia.javanet}) asks for; returns a description of it. */
    static String install(Instrumentation inst, String mode) throws Throwable {
        switch (mode) {
            case "off":
                return "nothing: " + SoviaConfig.JAVANET + "=off";
            case "factory":
                SoviaSocketImplFactory.check();
                installFactories(new SoviaSocketImplFactory());
                return "SocketImpl factories";
            case "advice":
                SoviaSocketImplFactory.check();
                return installAdviceOrFactories(inst, new SoviaSocketImplFactory());
            default:
                throw new IllegalArgumentException(SoviaConfig.JAVANET + "=" + mode + " is not advice, factory or off");
        }
    }

    private static String installAdviceOrFactories(Instrumentation inst, SoviaSocketImplFactory factory)
            throws Throwable {
        Field hook = null;
        try {
            hook = HookHolder.define(SocketImpl.class, "java.net.SoviaSocketImplHook");
            hook.set(null, factory);
            installAdvice(inst, hook);
            SoviaSocketImplFactory.platformHooked(true);
            return "SocketImpl advice";
        } catch (Throwable t) {
            if (hook != null) {
                hook.set(null, null);
            }
            try {
                installFactories(factory);
            } catch (Throwable f) {
                // one line for both failures: the caller logs this one
                f.addSuppressed(t);
                throw f;
            }
            SoviaLog.warn("cannot instrument SocketImpl.createPlatformSocketImpl; using Socket.setSocketImplFactory, "
                    + "so an app's own call to it will now fail", t);
            return "SocketImpl factories";
        }
    }

    private static void installAdvice(Instrumentation inst, Field hook) throws Throwable {
        Advice advice = Advice.withCustomMapping().bind(Hook.class, hook).to(CreatePlatformSocketImplAdvice.class);
        JdkAdvice.install(inst, "java.net.SocketImpl", advice.on(named("createPlatformSocketImpl")));
        verify();
    }

    /** Proves the advice is live by asking the JDK for a platform impl, as Socket does. */
    private static void verify() throws Throwable {
        Method create = SocketImpl.class.getDeclaredMethod("createPlatformSocketImpl", boolean.class);
        create.setAccessible(true);
        Object impl = create.invoke(null, false);
        if (!impl.getClass().getName().startsWith("io.sovia.")) {
            throw new IllegalStateException("advice not applied: the JDK still creates " + impl.getClass().getName());
        }
    }

    @SuppressWarnings("deprecation")
    private static void installFactories(SoviaSocketImplFactory factory) throws Exception {
        Socket.setSocketImplFactory(() -> factory.apply(false));
        ServerSocket.setSocketFactory(() -> factory.apply(true));
    }
}
