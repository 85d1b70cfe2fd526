package io.sovia.agent;

import io.sovia.spi.config.SoviaLog;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The agent's one class file transformer: applies the {@link EntryPatch}es to their classes, when those load and
 * whenever they are retransformed (so another agent that retransforms a patched JDK class later keeps the patch in).
 * Every other class costs a few string comparisons of its name.
 */
final class PatchTransformer implements ClassFileTransformer {
    private final List<Registered> patches = new CopyOnWriteArrayList<>();

    /** A patch and who hears of it being applied to a class ({@code onPatched}) or failing ({@code onFailed}). */
    private record Registered(EntryPatch patch, Consumer<String> onPatched, Failed onFailed) {
    }

    /** Hears of a patch that could not be applied to the class {@code className}. */
    interface Failed {
        void failed(String className, Throwable cause);
    }

    /** Installs the transformer; patches may be added after. */
    static PatchTransformer install(Instrumentation inst) {
        PatchTransformer t = new PatchTransformer();
        inst.addTransformer(t, true);
        return t;
    }

    /** Applies {@code patch} to classes that load from now on; see {@link #patchLoaded} for a loaded one. */
    void add(EntryPatch patch, Consumer<String> onPatched, Failed onFailed) {
        patches.add(new Registered(patch, onPatched, onFailed));
    }

    /**
     * Applies {@code patch} to the loaded class {@code type} now, and at its every retransformation from now on.
     *
     * @throws Throwable what kept a patch from applying (the class stays as it was)
     */
    void patchLoaded(Instrumentation inst, Class<?> type, EntryPatch... patch) throws Throwable {
        if (!inst.isModifiableClass(type)) {
            throw new UnmodifiableClassException(type.getName());
        }
        Throwable[] failure = {null};
        AtomicBoolean installing = new AtomicBoolean(true); // later retransformations may run on other threads
        List<Registered> added = new ArrayList<>();
        for (EntryPatch p : patch) {
            added.add(new Registered(p, className -> { }, (className, cause) -> {
                if (installing.get()) {
                    failure[0] = cause;
                } else {
                    SoviaLog.warnOnce("patch " + p.target(), className + " lost Sovia's patch of " + p.target()
                            + " when retransformed again", cause);
                }
            }));
        }
        patches.addAll(added);
        try {
            inst.retransformClasses(type);
        } catch (Throwable t) {
            failure[0] = t;
        }
        installing.set(false);
        if (failure[0] != null) {
            patches.removeAll(added);
            try {
                inst.retransformClasses(type); // back to the class as it was, without a patch that did apply
            } catch (Throwable t) {
                failure[0].addSuppressed(t);
            }
            throw failure[0];
        }
    }

    @Override
    public byte[] transform(Module module, ClassLoader loader, String className, Class<?> classBeingRedefined,
                            ProtectionDomain domain, byte[] classFile) {
        if (className == null) {
            return null;
        }
        byte[] patched = null;
        for (Registered r : patches) {
            if (!r.patch().matches(className)) {
                continue;
            }
            try {
                patched = r.patch().apply(patched == null ? classFile : patched);
                r.onPatched().accept(className.replace('/', '.'));
            } catch (Throwable t) {
                // a class left as it was works as on the plain JDK; the rest of its patches still apply
                reportFailure(r, className, t);
            }
        }
        return patched;
    }

    private static void reportFailure(Registered r, String className, Throwable cause) {
        try {
            r.onFailed().failed(className.replace('/', '.'), cause);
        } catch (Throwable t) {
            SoviaLog.warnOnce("patch " + r.patch().target(), "cannot patch " + r.patch().target(), cause);
        }
    }
}
