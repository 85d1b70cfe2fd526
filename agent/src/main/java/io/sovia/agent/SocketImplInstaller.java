package io.sovia.agent;

import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.net.SoviaSocketImplFactory;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketImpl;
import java.util.function.Function;

/**
 * Routes {@code java.net.Socket} and {@code ServerSocket} through Sovia's SocketImpl.
 *
 * <p>First choice: a patch of {@code SocketImpl.createPlatformSocketImpl}, which keeps SOCKS proxies
 * working and leaves {@code Socket.setSocketImplFactory} free for the app. Only if that cannot be
 * installed are the JDK's global factories used, which an app can then no longer set itself.
 */
final class SocketImplInstaller {
    private static final String HOLDER = "java.net.SoviaSocketImplHook";

    private SocketImplInstaller() {
    }

    /** Installs what {@code mode} ({@code sovia.javanet}) asks for; returns a description of it. */
    static String install(Instrumentation inst, PatchTransformer patches, String mode) throws Throwable {
        switch (mode) {
            case "off":
                return "nothing: " + SoviaConfig.JAVANET + "=off";
            case "factory":
                SoviaSocketImplFactory.check();
                installFactories(new SoviaSocketImplFactory());
                return "SocketImpl factories";
            case "advice":
                SoviaSocketImplFactory.check();
                return installPatchOrFactories(inst, patches, new SoviaSocketImplFactory());
            default:
                throw new IllegalArgumentException(SoviaConfig.JAVANET + "=" + mode + " is not advice, factory or off");
        }
    }

    private static String installPatchOrFactories(Instrumentation inst, PatchTransformer patches,
                                                  SoviaSocketImplFactory factory) throws Throwable {
        Field hook = null;
        try {
            hook = HookHolder.define(SocketImpl.class, HOLDER);
            hook.set(null, (Function<Object[], Object>) call -> factory.apply((Boolean) call[0]));
            patches.patchLoaded(inst, SocketImpl.class, EntryPatch.hooked("java/net/SocketImpl",
                    "createPlatformSocketImpl", "(Z)Ljava/net/SocketImpl;", HookHolder.internalName(HOLDER)));
            verify();
            SoviaSocketImplFactory.platformHooked(true);
            return "a patch of SocketImpl.createPlatformSocketImpl";
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

    /** Proves the patch is live by asking the JDK for a platform impl, as Socket does. */
    private static void verify() throws Throwable {
        Method create = SocketImpl.class.getDeclaredMethod("createPlatformSocketImpl", boolean.class);
        create.setAccessible(true);
        Object impl = create.invoke(null, false);
        if (!impl.getClass().getName().startsWith("io.sovia.")) {
            throw new IllegalStateException("patch not applied: the JDK still creates " + impl.getClass().getName());
        }
    }

    @SuppressWarnings("deprecation")
    private static void installFactories(SoviaSocketImplFactory factory) throws Exception {
        Socket.setSocketImplFactory(() -> factory.apply(false));
        ServerSocket.setSocketFactory(() -> factory.apply(true));
    }
}
