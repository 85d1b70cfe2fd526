package io.sovia.agent;

import net.bytebuddy.ByteBuddy;
import net.bytebuddy.description.modifier.FieldManifestation;
import net.bytebuddy.description.modifier.Ownership;
import net.bytebuddy.description.modifier.Visibility;
import net.bytebuddy.dynamic.scaffold.subclass.ConstructorStrategy;

import java.lang.invoke.MethodHandles;
import java.lang.reflect.Field;
import java.util.function.Function;

/**
 * Defines a class with one static {@code factory} field inside a package of java.base ({@code
 * java.net.SoviaSocketImplHook} beside {@code SocketImpl}, {@code sun.nio.ch.SoviaTransferHook} beside {@code
 * FileChannelImpl}), where advice inlined into that package's classes can read it.
 *
 * <p>Defined through a lookup in {@code java.net} rather than by appending a jar to the boot class
 * path: an appended boot path makes HotSpot turn off class-data sharing for app classes (and print a
 * warning), which would slow down the start of every app under the agent.
 */
final class HookHolder {
    private HookHolder() {
    }

    /**
     * Defines the holder {@code name} in the package of {@code neighbour} (which must be open to this module) and
     * returns its {@code factory} field, of type {@link Function}.
     */
    static Field define(Class<?> neighbour, String name) throws ReflectiveOperationException {
        byte[] bytes = new ByteBuddy()
                .subclass(Object.class, ConstructorStrategy.Default.NO_CONSTRUCTORS)
                .name(name)
                .defineField("factory", Function.class, Visibility.PUBLIC, Ownership.STATIC, FieldManifestation.VOLATILE)
                .make()
                .getBytes();
        Class<?> holder = MethodHandles.privateLookupIn(neighbour, MethodHandles.lookup()).defineClass(bytes);
        return holder.getField("factory");
    }
}
