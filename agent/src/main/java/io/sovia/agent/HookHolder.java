package io.sovia.agent;

import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.Opcodes;

import java.lang.invoke.MethodHandles;
import java.lang.reflect.Field;
import java.util.function.Function;

/**
 * Defines a class with one static {@code factory} field inside a package of java.base ({@code
 * java.net.SoviaSocketImplHook} beside {@code SocketImpl}, {@code sun.nio.ch.SoviaTransferHook} beside {@code
 * FileChannelImpl}), where code patched into that package's classes ({@link EntryPatch#hooked}) can read it.
 *
 * <p>Defined through a lookup in the package rather than by appending a jar to the boot class path: an appended
 * boot path makes HotSpot turn off class-data sharing for app classes (and print a warning), which would slow down
 * the start of every app under the agent.
 */
final class HookHolder {
    private HookHolder() {
    }

    /**
     * Defines the holder {@code name} in the package of {@code neighbour} (which must be open to this module) and
     * returns its {@code factory} field, a volatile {@link Function}.
     */
    static Field define(Class<?> neighbour, String name) throws ReflectiveOperationException {
        ClassWriter writer = new ClassWriter(0);
        writer.visit(Opcodes.V11, Opcodes.ACC_PUBLIC | Opcodes.ACC_FINAL | Opcodes.ACC_SUPER, internalName(name),
                null, "java/lang/Object", null);
        writer.visitField(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC | Opcodes.ACC_VOLATILE, "factory",
                "Ljava/util/function/Function;", null, null).visitEnd();
        writer.visitEnd();
        Class<?> holder = MethodHandles.privateLookupIn(neighbour, MethodHandles.lookup()).defineClass(writer.toByteArray());
        return holder.getField("factory");
    }

    /** The internal form of the class name {@code name} (a holder's, a patched class's), as patches name classes. */
    static String internalName(String name) {
        return name.replace('.', '/');
    }
}
