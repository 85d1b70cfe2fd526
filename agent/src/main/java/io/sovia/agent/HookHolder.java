package io.sovia.agent;

import net.bytebuddy.ByteBuddy;
import net.bytebuddy.description.modifier.FieldManifestation;
import net.bytebuddy.description.modifier.Ownership;
import net.bytebuddy.description.modifier.Visibility;
import net.bytebuddy.dynamic.scaffold.subclass.ConstructorStrategy;

import java.lang.invoke.MethodHandles;
import java.lang.reflect.Field;
import java.net.SocketImpl;
import java.util.function.Function;

/**
 * Defines {@code java.net.SoviaSocketImplHook}, a class with one static {@code factory} field, inside
 * java.base, where the advice inlined into {@code SocketImpl} can read it.
 *
 * <p>Defined through a lookup in {@code java.net} rather than by appending a jar to the boot class
 * path: an appended boot path makes HotSpot turn off class-data sharing for app classes (and print a
 * warning), which would slow down the start of every app under the agent.
 */
final class HookHolder {
    static final String NAME = "java.net.SoviaSocketImplHook";

    private HookHolder() {
    }

    /** Defines the holder (needs java.net opened to this module) and returns its {@code factory} field. */
    static Field define() throws ReflectiveOperationException {
        byte[] bytes = new ByteBuddy()
                .subclass(Object.class, ConstructorStrategy.Default.NO_CONSTRUCTORS)
                .name(NAME)
                .defineField("factory", Function.class, Visibility.PUBLIC, Ownership.STATIC, FieldManifestation.VOLATILE)
                .make()
                .getBytes();
        Class<?> holder = MethodHandles.privateLookupIn(SocketImpl.class, MethodHandles.lookup()).defineClass(bytes);
        return holder.getField("factory");
    }
}
