package io.sovia.spi.os;

import io.sovia.spi.config.SoviaLog;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.Configuration;
import java.lang.module.ModuleFinder;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.URLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.LinkOption;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.zip.CRC32;

/**
 * Where {@link NativeOs} comes from. JNA cannot be relocated (its native library binds to the class names
 * {@code com.sun.jna.*}), so the agent jar carries it as a nested jar, {@value #NESTED}, defined as the module
 * {@code com.sun.jna} in a module layer of Sovia's own, and Sovia's binding in a class loader that reads it: the
 * app's JNA, of any version or none, and ours never meet, and a library probing for {@code com.sun.jna.Native}
 * finds only the app's. A named module is also what JDK 22 and later can grant native access to without a
 * command-line flag, so JNA's {@code System.load} prints no warning the app never printed (the grant is for
 * that one module; unnamed modules can only be granted all together, which would silence the app's own
 * warnings too). Without the agent (unit tests) JNA is on the class path and used as it is. Loaded once; when
 * it cannot be, {@link #os()} says why and callers that need it decline their path.
 */
public final class NativeAccess {
    static final String NESTED = "/META-INF/sovia/jna.jar";
    private static final String BINDING_PACKAGE = "io.sovia.spi.os.jna.";
    private static final String IMPLEMENTATION = BINDING_PACKAGE + "JnaOs";
    private static final String JNA = "com.sun.jna";
    private static final Set<PosixFilePermission> PRIVATE = PosixFilePermissions.fromString("rwx------");

    private NativeAccess() {
    }

    /**
     * Loaded when first asked for: a field of NativeAccess itself was loaded by the class's initialiser, that is by
     * the agent's call of {@link #loadInBackground()} on the app's main thread, 150 ms before the app's main.
     */
    private static final class Loaded {
        private static final Object RESULT = load();
    }

    /** The native calls; an IOException (the reason, logged once by the caller's path) when unavailable. */
    public static NativeOs os() throws IOException {
        NativeOs os = osIfAvailable();
        if (os == null) {
            throw new IOException("native calls unavailable: " + Loaded.RESULT);
        }
        return os;
    }

    /**
     * Loads the native calls on a thread of their own, once, so the app's first listener or shm connect does not
     * wait for them (about 0.2 s cold: JNA's initialisation and class loading); a first use that comes sooner
     * waits for this load to finish, as it would have loaded them itself.
     *
     * <p>The JDK class that makes performance counters when the load's module layer first looks for modules
     * ({@code jdk.internal.module.ModulePath}, through {@code ModuleFinder.of}) is initialized on the calling thread
     * first: called from premain, before the VM has finished starting, a JVM crashed in HotSpot's
     * {@code PerfDataList::find_by_name} (from {@code Perf_CreateLong}) when this thread made ModulePath's counters
     * while the main thread was still completing the VM's start (CI on JDK 17.0.15, 2026-11-29, once in hundreds of
     * forked JVMs).
     */
    public static void loadInBackground() {
        try {
            ModuleFinder.of();
        } catch (Throwable t) {
            SoviaLog.warn("could not prepare the native calls' load; it goes on", t);
        }
        Thread t = new Thread(NativeAccess::available, "sovia-native-load");
        t.setDaemon(true);
        t.start();
    }

    /** The native calls, or null when they did not load. */
    public static NativeOs osIfAvailable() {
        return Loaded.RESULT instanceof NativeOs os ? os : null;
    }

    /** Whether the native calls loaded (the reason they did not was logged once). */
    public static boolean available() {
        return osIfAvailable() != null;
    }

    private static Object load() {
        try {
            URL nested = NativeAccess.class.getResource(NESTED);
            ClassLoader loader = nested == null ? NativeAccess.class.getClassLoader() : isolated(nested);
            return Class.forName(IMPLEMENTATION, true, loader).getConstructor().newInstance();
        } catch (Exception | LinkageError e) {
            // e.g. a noexec temporary directory, where JNA cannot load its library: everything uses TCP
            SoviaLog.warn("native calls unavailable, so shared memory is off and connections use TCP", e);
            return e.toString();
        }
    }

    /**
     * The nested jar as the module {@code com.sun.jna} in a layer of its own, and a loader that defines Sovia's
     * binding from Sovia's jar and takes JNA from that layer. The jar is copied once per user and version to a
     * private directory ({@link #copyOnce}), so concurrent JVMs share it and a crash leaves nothing new behind.
     */
    private static ClassLoader isolated(URL nested) throws IOException {
        int uid = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), "sovia-" + uid);
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            try {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PRIVATE));
            } catch (java.nio.file.FileAlreadyExistsException raced) {
                // another JVM of this user made it first
            }
        }
        // code is loaded from here: anyone else able to write it could choose what runs in this JVM
        if ((Integer) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS) != uid
                || !Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS).equals(PRIVATE)) {
            throw new IOException(dir + " is not a 0700 directory of uid " + uid);
        }
        Path copy = copyOnce(nested, dir);
        ModuleLayer boot = ModuleLayer.boot();
        Configuration configuration = boot.configuration().resolve(ModuleFinder.of(copy), ModuleFinder.of(), Set.of(JNA));
        ModuleLayer.Controller controller = ModuleLayer.defineModulesWithOneLoader(configuration, List.of(boot),
                NativeAccess.class.getClassLoader());
        Module jna = controller.layer().findModule(JNA).orElseThrow();
        enableNativeAccess(jna);
        URL self = NativeAccess.class.getProtectionDomain().getCodeSource().getLocation();
        return new Binding(self, jna.getClassLoader(), NativeAccess.class.getClassLoader());
    }

    /**
     * The nested jar's copy in {@code dir}, named by the CRC and size its entry records, so that a JVM finding it
     * there reads neither the nested jar nor the copy (hashing 2 MB in a JVM this young took tens of milliseconds of
     * the load); written under a temporary name and moved into place, so a copy of the right name is whole. Only
     * this user can write the directory.
     */
    private static Path copyOnce(URL nested, Path dir) throws IOException {
        URLConnection connection = nested.openConnection();
        JarEntry entry = connection instanceof JarURLConnection jar ? jar.getJarEntry() : null;
        byte[] bytes = null;
        long crc;
        long size;
        if (entry != null && entry.getCrc() != -1 && entry.getSize() != -1) {
            crc = entry.getCrc();
            size = entry.getSize();
        } else {
            bytes = read(connection);
            CRC32 sum = new CRC32();
            sum.update(bytes);
            crc = sum.getValue();
            size = bytes.length;
        }
        Path copy = dir.resolve("jna-" + Long.toHexString(crc) + "-" + size + ".jar");
        if (Files.isRegularFile(copy, LinkOption.NOFOLLOW_LINKS) && Files.size(copy) == size) {
            return copy;
        }
        if (bytes == null) {
            bytes = read(nested.openConnection());
        }
        Path tmp = Files.createTempFile(dir, "jna", ".tmp");
        Files.write(tmp, bytes);
        Files.move(tmp, copy, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return copy;
    }

    private static byte[] read(URLConnection connection) throws IOException {
        try (InputStream in = connection.getInputStream()) {
            return in.readAllBytes();
        }
    }

    /**
     * Grants native access to the layer's JNA module, JDK 22 and later, through the JDK's internal access (the
     * agent exports {@code jdk.internal.access} to Sovia): the public {@code ModuleLayer.Controller} grant is a
     * restricted method itself, so it would print the very warning it is meant to spare. Earlier JDKs have no
     * restricted methods and warn about nothing.
     */
    private static void enableNativeAccess(Module module) {
        try {
            Object access = Class.forName("jdk.internal.access.SharedSecrets").getMethod("getJavaLangAccess").invoke(null);
            Class.forName("jdk.internal.access.JavaLangAccess").getMethod("addEnableNativeAccess", Module.class)
                    .invoke(access, module);
        } catch (NoSuchMethodException before22) {
            // no restricted methods, no warning
        } catch (ReflectiveOperationException | RuntimeException e) {
            SoviaLog.debugOnce("native-access-grant", "cannot grant Sovia's JNA native access: " + e);
        }
    }

    /** Defines Sovia's binding itself, takes JNA from its layer, and asks its parent for everything else. */
    private static final class Binding extends URLClassLoader {
        static {
            registerAsParallelCapable();
        }

        private final ClassLoader jna;

        Binding(URL self, ClassLoader jna, ClassLoader parent) {
            super("sovia-native", new URL[] {self}, parent);
            this.jna = jna;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.startsWith("com.sun.jna.")) {
                return jna.loadClass(name);
            }
            if (!name.startsWith(BINDING_PACKAGE)) {
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
    }
}
