package io.sovia.agent;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The agent's entry patches, applied to a class loaded with full bytecode verification (as the JDK's own classes
 * are not): the hook's non-null answer is returned unboxed, a null one or an unset hook runs the body as before, the
 * hook sees the receiver and the arguments, and a constant answer replaces a boolean check.
 */
@Timeout(30)
class EntryPatchTest {
    private static final String TARGET = "io/sovia/agent/PatchTarget";
    private static final Field HOOK;

    static {
        try {
            HOOK = HookHolder.define(EntryPatchTest.class, "io.sovia.agent.TestHookHolder");
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final List<Object[]> calls = new ArrayList<>();

    @AfterEach
    void unset() throws Exception {
        HOOK.set(null, null);
    }

    @Test
    void aStaticMethodAnswersWhatTheHookReturnsAndRunsItsBodyOtherwise() throws Exception {
        Class<?> patched = load(EntryPatch.hooked(TARGET, "make", "(Z)Ljava/lang/String;", holder()));
        Method make = patched.getMethod("make", boolean.class);
        assertEquals("jdk-server", make.invoke(null, true), "an unset hook changed the method");

        hook(call -> (Boolean) call[0] ? "sovia-server" : null);
        assertEquals("sovia-server", make.invoke(null, true));
        assertEquals("jdk-client", make.invoke(null, false), "a null answer did not run the body");
        assertArrayEquals(new Object[] {Boolean.FALSE}, calls.get(1));
    }

    @Test
    void anInstanceMethodPassesItsReceiverAndBoxedArgumentsAndUnboxesTheAnswer() throws Exception {
        Class<?> patched = load(EntryPatch.hooked(TARGET, "move", "(JJLjava/lang/Object;)J", holder()));
        Object target = patched.getConstructor().newInstance();
        Method move = patched.getMethod("move", long.class, long.class, Object.class);
        Object channel = new Object();

        hook(call -> call[3] == channel ? 42L : null);
        assertEquals(42L, move.invoke(target, 5L, 7L, channel));
        assertEquals(12L, move.invoke(target, 5L, 7L, "other"), "a null answer did not run the body");
        Object[] first = calls.get(0);
        assertSame(target, first[0]);
        assertArrayEquals(new Object[] {5L, 7L, channel}, new Object[] {first[1], first[2], first[3]});
    }

    @Test
    void aConstantAnswerReplacesABooleanCheckInRelocatedCopiesToo() throws Exception {
        EntryPatch steer = EntryPatch.answering("io/sovia/agent/PatchTarget", "isAvailable", "()Z", false);
        Class<?> patched = load(steer);
        assertFalse((Boolean) patched.getMethod("isAvailable").invoke(null));

        assertTrue(steer.matches("io/grpc/netty/shaded/io/sovia/agent/PatchTarget"));
        assertFalse(steer.matches("io/sovia/agent/XPatchTarget"));
        assertFalse(steer.matches("io/sovia/agent/PatchTarget$Inner"));
        assertThrows(IllegalArgumentException.class, () -> EntryPatch.answering(TARGET, "make", "(Z)Ljava/lang/String;",
                false));
    }

    @Test
    void aMissingMethodIsAnErrorNotASilentNoOp() throws Exception {
        EntryPatch wrong = EntryPatch.hooked(TARGET, "make", "(I)Ljava/lang/String;", holder());
        assertThrows(IllegalStateException.class, () -> wrong.apply(classFile()));
    }

    private void hook(Function<Object[], Object> answer) throws Exception {
        HOOK.set(null, (Function<Object[], Object>) call -> {
            calls.add(call);
            return answer.apply(call);
        });
    }

    private static String holder() {
        return HookHolder.internalName("io.sovia.agent.TestHookHolder");
    }

    private static byte[] classFile() throws IOException {
        try (InputStream in = PatchTarget.class.getResourceAsStream("PatchTarget.class")) {
            return in.readAllBytes();
        }
    }

    /** The patched class in a loader of its own, which verifies it; the holder comes from the test's loader. */
    private static Class<?> load(EntryPatch patch) throws IOException {
        byte[] bytes = patch.apply(classFile());
        ClassLoader loader = new ClassLoader(EntryPatchTest.class.getClassLoader()) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (name.equals(PatchTarget.class.getName())) {
                    synchronized (getClassLoadingLock(name)) {
                        Class<?> c = findLoadedClass(name);
                        return c != null ? c : defineClass(name, bytes, 0, bytes.length);
                    }
                }
                return super.loadClass(name, resolve);
            }
        };
        try {
            return Class.forName(PatchTarget.class.getName(), true, loader);
        } catch (ClassNotFoundException e) {
            throw new IOException(e);
        }
    }
}
