package io.sovia.spi.os;

import io.sovia.spi.config.SoviaLog;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Where {@link NativeOs} comes from. JNA cannot be relocated (its native library binds to the class names
 * {@code com.sun.jna.*}), so the agent jar carries it as a nested jar, {@value #NESTED}, loaded child-first by
 * a class loader of Sovia's own: the app's JNA, of any version or none, and ours never meet, and a library
 * probing for {@code com.sun.jna.Native} finds only the app's. Without the agent (unit tests) JNA is on the
 * class path and used as it is. Loaded once; when it cannot be, {@link #os()} says why and callers that need
 * it decline their path.
 */
public final class NativeAccess {
    static final String NESTED = "/META-INF/sovia/jna.jar";
    private static final String IMPLEMENTATION = "io.sovia.spi.os.jna.JnaOs";

    private static final Object RESULT = load();

    private NativeAccess() {
    }

    /** The native calls; an IOException (the reason, logged once by the caller's path) when unavailable. */
    public static NativeOs os() throws IOException {
        if (RESULT instanceof NativeOs os) {
            return os;
        }
        throw new IOException("native calls unavailable: " + RESULT);
    }

    private static Object load() {
        try {
            URL nested = NativeAccess.class.getResource(NESTED);
            ClassLoader loader = nested == null ? NativeAccess.class.getClassLoader() : isolated(nested);
            enableNativeAccess(loader);
            return Class.forName(IMPLEMENTATION, true, loader).getConstructor().newInstance();
        } catch (Exception | LinkageError e) {
            SoviaLog.debugOnce("native-access", "cannot load native calls: " + e);
            return e.toString();
        }
    }

    /**
     * A loader that defines JNA and Sovia's JNA binding itself from the nested jar and Sovia's own jar, and
     * asks its parent for everything else. The nested jar is copied once per user and content to a private
     * directory, so concurrent JVMs share it and a crash leaves nothing new behind.
     */
    private static ClassLoader isolated(URL nested) throws IOException {
        Path dir = Path.of(System.getProperty("java.io.tmpdir"),
                "sovia-" + Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        if (!Files.isDirectory(dir)) {
            try {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (java.nio.file.FileAlreadyExistsException raced) {
                // another JVM of this user made it first
            }
        }
        byte[] jar;
        try (InputStream in = nested.openStream()) {
            jar = in.readAllBytes();
        }
        Path copy = dir.resolve("jna-" + Integer.toHexString(java.util.Arrays.hashCode(jar)) + "-" + jar.length + ".jar");
        if (!Files.isRegularFile(copy) || Files.size(copy) != jar.length) {
            Path tmp = Files.createTempFile(dir, "jna", ".tmp");
            Files.write(tmp, jar);
            Files.move(tmp, copy, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        URL self = NativeAccess.class.getProtectionDomain().getCodeSource().getLocation();
        return new ChildFirst(new URL[] {copy.toUri().toURL(), self}, NativeAccess.class.getClassLoader());
    }

    /**
     * On JDK 22 and later, JNA's {@code System.load} is a restricted method: without this the JVM prints a
     * warning the app never printed. The agent exports {@code jdk.internal.access} to Sovia; without it
     * (or on JDK 17 to 21, which have no such call) nothing happens.
     */
    private static void enableNativeAccess(ClassLoader loader) {
        try {
            Object access = Class.forName("jdk.internal.access.SharedSecrets").getMethod("getJavaLangAccess").invoke(null);
            Method enable = Class.forName("jdk.internal.access.JavaLangAccess")
                    .getMethod("addEnableNativeAccess", Module.class);
            enable.invoke(access, loader.getUnnamedModule());
        } catch (ReflectiveOperationException | RuntimeException | LinkageError absent) {
            SoviaLog.debugOnce("native-access-flag", "cannot mark Sovia's JNA as native: " + absent);
        }
    }

    /** Child-first for JNA and its binding, parent-first for the rest. */
    private static final class ChildFirst extends URLClassLoader {
        static {
            registerAsParallelCapable();
        }

        ChildFirst(URL[] urls, ClassLoader parent) {
            super("sovia-native", urls, parent);
        }

        private static boolean own(String name) {
            return name.startsWith("com.sun.jna.") || name.startsWith("io.sovia.spi.os.jna.")
                    || name.startsWith("com/sun/jna/");
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!own(name)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    c = findClass(name);
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }

        @Override
        public URL getResource(String name) {
            URL own = own(name) ? findResource(name) : null;
            return own != null ? own : super.getResource(name);
        }
    }
}
