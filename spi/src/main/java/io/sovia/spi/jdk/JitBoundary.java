package io.sovia.spi.jdk;

import io.sovia.spi.config.SoviaLog;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Keeps HotSpot's C2 from compiling the engine into every method that calls it, through a compiler directive (JEP
 * 165's Compiler Control, the {@code Compiler.directives_add} diagnostic command, run in-process): no method inlines
 * the engine's entry points ({@code Session}'s methods, and {@code SpinThenSleep.await}, the wait, with the sleep
 * behind it), so each compiles once, as a method of its own. Speed only: where the directive cannot be added
 * nothing else changes.
 *
 * <p>Why: every app method that calls a socket stream or channel ({@code BufferedInputStream.read},
 * {@code Channels}' streams, a selector loop) had the engine's whole read or write path inlined into it, up to C2's
 * budget, and compiled it again for each: C2 spent 3.8-5.6 s of CPU per JVM in the first ten seconds of an FTP
 * transfer under the agent, against 1.0-1.1 s without it, on the cores the transfer needed. A boundary around all
 * of Sovia (no app method inlining any Sovia method) took that to 1.9 s but made 64-byte round trips 1.2 us
 * slower (2.9 against 1.7 us); the boundary at the engine's entry costs nothing measurable there.
 *
 * <p>A JVM that already has directives of its own (its {@code -XX:CompilerDirectivesFile}) is left alone: ours would
 * sit above them and hide theirs for every method.
 */
public final class JitBoundary {
    /**
     * Methods no C2 compilation inlines. The engine's entry points ({@code Session}), and the sleep path behind the
     * wait (a call costs nothing beside a sleep), keep the engine out of the app's methods. The rest keep one
     * compilation from taking in a whole tree that C2 also compiles on its own, at a cost that grows faster than the
     * tree: {@code SessionMachine}'s entries were compiled twice, inside {@code Session}'s and alone (7 KB of
     * bytecode each for a write); a selector's round took in the key scans, the interest updates and the word sleep
     * (5 KB, 0.9 s of C2 per JVM, against 0.13 s with these boundaries); and an accept took in the listener's claim,
     * the hello's parsing and the session's construction (10 KB, 1 s), and with those kept apart, the session's
     * settings, which a connect reads from eleven properties (8 KB, 0.8 s). Each of these runs once per call of the
     * app, so a call more costs nanoseconds.
     */
    private static final List<String> NOT_INLINED = List.of(
            "io/sovia/spi/engine/Session.*",
            "io/sovia/spi/engine/SpinThenSleep.await",
            "io/sovia/spi/engine/DoorbellSleeper.*",
            "io/sovia/spi/engine/SessionWaiters.*",
            "io/sovia/spi/engine/SessionMachine.write",
            "io/sovia/spi/engine/SessionMachine.read",
            "io/sovia/spi/engine/SessionMachine.isReadable",
            "io/sovia/spi/nio/SoviaSelector.processUpdates",
            "io/sovia/spi/nio/SoviaSelector.processDeregistrations",
            "io/sovia/spi/nio/SoviaSelector.scanUserKeys",
            "io/sovia/spi/nio/SoviaSelector.armUserKeys",
            "io/sovia/spi/nio/SoviaSelector.spinForReadiness",
            "io/sovia/spi/nio/WordSelect.prepare",
            "io/sovia/spi/nio/WordSelect.sleep",
            "io/sovia/spi/route/Listeners.claim",
            "io/sovia/spi/route/Upgrade.*",
            "io/sovia/spi/backend/Sessions.*",
            "io/sovia/spi/config/SoviaConfig.*",
            "io/sovia/shm/ShmListener.claim",
            "io/sovia/shm/ShmIdleChannels.read",
            "io/sovia/shm/ShmTransport.offer");
    private static final String DIRECTIVES = "[ { match: \"*.*\", c2: { inline: [\n    \"-"
            + String.join("\",\n    \"-", NOT_INLINED) + "\" ] } } ]\n";
    private static final String MBEAN = "com.sun.management.internal.DiagnosticCommandImpl";
    private static final String PROVIDER = "com.sun.management.internal.PlatformMBeanProviderImpl";

    private JitBoundary() {
    }

    /** The methods the directive keeps from being inlined, as {@code package/Class.method} ({@code *}: all). */
    public static List<String> notInlined() {
        return NOT_INLINED;
    }

    /** Adds the directive on a thread of its own (the diagnostic command's setup takes a few milliseconds). */
    public static void installInBackground() {
        Thread t = new Thread(JitBoundary::install, "sovia-jit-boundary");
        t.setDaemon(true);
        t.start();
    }

    private static void install() {
        Path file = null;
        try {
            // its class initialiser loads the native library the command runs through
            Class.forName(PROVIDER, true, ClassLoader.getPlatformClassLoader());
            Method get = Class.forName(MBEAN).getDeclaredMethod("getDiagnosticCommandMBean");
            get.setAccessible(true);
            Object mbean = get.invoke(null);
            Method invoke = mbean.getClass().getMethod("invoke", String.class, Object[].class, String[].class);
            String[] signature = {String[].class.getName()};
            String existing = (String) invoke.invoke(mbean, "compilerDirectivesPrint", new Object[] {new String[0]},
                    signature);
            if (existing.split("Directive:", -1).length > 2) {
                SoviaLog.info("the JVM has compiler directives of its own; the JIT may inline Sovia into the app");
                return;
            }
            file = Files.createTempFile("sovia-jit", ".json");
            Files.writeString(file, DIRECTIVES, StandardCharsets.US_ASCII);
            String added = (String) invoke.invoke(mbean, "compilerDirectivesAdd",
                    new Object[] {new String[] {file.toString()}}, signature);
            SoviaLog.debugOnce("jit-boundary", "compiler directive: " + added.trim());
        } catch (Throwable t) {
            Throwable cause = t instanceof InvocationTargetException && t.getCause() != null ? t.getCause() : t;
            SoviaLog.info("no compiler directive (" + cause + "); the JIT may inline Sovia into the app");
        } finally {
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (Exception ignored) {
                    // a temporary file of a few bytes left behind
                }
            }
        }
    }
}
