package io.sovia.agent;

import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.Label;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.Type;

import java.util.ArrayList;
import java.util.List;

/**
 * Code put at the start of one method of one class: it computes an answer, and when the answer is not null the
 * method returns it (unboxed to the method's return type) without running its body; otherwise the body runs as
 * before. Written with the ASM that Byte Buddy carries, and nothing else of Byte Buddy: its agent builder and
 * advice loaded 1,090 classes in every JVM's premain (0.44 s, and 0.7 s of JIT compilation beside the app's first
 * second), and stayed on every later class load.
 *
 * <p>The answer is either a constant ({@link #answering}) or what a hook returns ({@link #hooked}): a
 * {@code Function<Object[], Object>} read from a static field of a holder class in the patched class's package
 * (see {@link HookHolder}), called with the receiver (instance methods) and the arguments, boxed, in order. The
 * patched class names no Sovia class, so it links inside java.base.
 *
 * <p>Frames: the class is read with its frames expanded and written with them as given, plus one at the start of
 * the body (the method's entry frame with the answer on the stack), so nothing is computed and no class is loaded
 * while a class is being transformed.
 */
final class EntryPatch {
    private static final String FUNCTION = "java/util/function/Function";
    private static final String FIELD = "factory";

    /** The class's internal name: all of it for a hooked patch, its end for an answering one. */
    private final String className;
    private final String method;
    private final String descriptor;
    /** The holder's internal name, or null when the answer is {@link #constant}. */
    private final String holder;
    private final boolean constant;

    private EntryPatch(String className, String method, String descriptor, String holder, boolean constant) {
        this.className = className;
        this.method = method;
        this.descriptor = descriptor;
        this.holder = holder;
        this.constant = constant;
    }

    /**
     * {@code className.method} (internal names, {@code descriptor} exact) answers what the hook in {@code holder}'s
     * static {@code factory} field returns, when the field is set and the hook returns non-null.
     */
    static EntryPatch hooked(String className, String method, String descriptor, String holder) {
        return new EntryPatch(className, method, descriptor, holder, false);
    }

    /**
     * Every class whose internal name is {@code classSuffix} or ends with {@code "/" + classSuffix} (relocated
     * copies) answers {@code answer} from its boolean method {@code method}.
     */
    static EntryPatch answering(String classSuffix, String method, String descriptor, boolean answer) {
        if (!Type.getReturnType(descriptor).equals(Type.BOOLEAN_TYPE)) {
            throw new IllegalArgumentException(method + descriptor + " does not return a boolean");
        }
        return new EntryPatch(classSuffix, method, descriptor, null, answer);
    }

    /** Whether this patch is for the class of that internal name. */
    boolean matches(String name) {
        if (holder != null) {
            return name.equals(className);
        }
        return name.endsWith(className)
                && (name.length() == className.length() || name.charAt(name.length() - className.length() - 1) == '/');
    }

    /** Who the patch is for, for log lines. */
    String target() {
        return className.replace('/', '.') + "." + method;
    }

    /**
     * The class file with the patch applied.
     *
     * @throws IllegalStateException if the class has no such method, or has it abstract or native
     */
    byte[] apply(byte[] classFile) {
        ClassReader reader = new ClassReader(classFile);
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        boolean[] patched = {false};
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String desc, String signature,
                                             String[] exceptions) {
                MethodVisitor mv = super.visitMethod(access, name, desc, signature, exceptions);
                if (!name.equals(method) || !desc.equals(descriptor)
                        || (access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0) {
                    return mv;
                }
                patched[0] = true;
                boolean isStatic = (access & Opcodes.ACC_STATIC) != 0;
                String owner = reader.getClassName();
                return new MethodVisitor(Opcodes.ASM9, mv) {
                    @Override
                    public void visitCode() {
                        super.visitCode();
                        prologue(mv, owner, isStatic);
                    }
                };
            }
        }, ClassReader.EXPAND_FRAMES);
        if (!patched[0]) {
            throw new IllegalStateException(reader.getClassName() + " has no method " + method + descriptor);
        }
        return writer.toByteArray();
    }

    private void prologue(MethodVisitor mv, String owner, boolean isStatic) {
        Label absent = new Label();
        if (holder == null) {
            mv.visitFieldInsn(Opcodes.GETSTATIC, "java/lang/Boolean", constant ? "TRUE" : "FALSE",
                    "Ljava/lang/Boolean;");
        } else {
            mv.visitFieldInsn(Opcodes.GETSTATIC, holder, FIELD, "L" + FUNCTION + ";");
            mv.visitInsn(Opcodes.DUP);
            mv.visitJumpInsn(Opcodes.IFNULL, absent);
            pushCall(mv, isStatic);
            mv.visitMethodInsn(Opcodes.INVOKEINTERFACE, FUNCTION, "apply", "(Ljava/lang/Object;)Ljava/lang/Object;",
                    true);
        }
        mv.visitInsn(Opcodes.DUP);
        mv.visitJumpInsn(Opcodes.IFNULL, absent);
        returnAnswer(mv);
        mv.visitLabel(absent);
        Object[] locals = entryLocals(owner, isStatic);
        mv.visitFrame(Opcodes.F_NEW, locals.length, locals, 1, new Object[] {"java/lang/Object"});
        mv.visitInsn(Opcodes.POP);
    }

    /** {@code new Object[] {this, boxed arguments...}} on the stack. */
    private void pushCall(MethodVisitor mv, boolean isStatic) {
        Type[] arguments = Type.getArgumentTypes(descriptor);
        int receiver = isStatic ? 0 : 1;
        push(mv, receiver + arguments.length);
        mv.visitTypeInsn(Opcodes.ANEWARRAY, "java/lang/Object");
        int slot = 0;
        if (!isStatic) {
            mv.visitInsn(Opcodes.DUP);
            push(mv, 0);
            mv.visitVarInsn(Opcodes.ALOAD, 0);
            mv.visitInsn(Opcodes.AASTORE);
            slot = 1;
        }
        for (int i = 0; i < arguments.length; i++) {
            Type t = arguments[i];
            mv.visitInsn(Opcodes.DUP);
            push(mv, receiver + i);
            mv.visitVarInsn(t.getOpcode(Opcodes.ILOAD), slot);
            box(mv, t);
            mv.visitInsn(Opcodes.AASTORE);
            slot += t.getSize();
        }
    }

    private void returnAnswer(MethodVisitor mv) {
        Type returned = Type.getReturnType(descriptor);
        switch (returned.getSort()) {
            case Type.OBJECT, Type.ARRAY -> mv.visitTypeInsn(Opcodes.CHECKCAST, returned.getInternalName());
            case Type.VOID -> mv.visitInsn(Opcodes.POP);
            default -> {
                String wrapper = wrapper(returned);
                mv.visitTypeInsn(Opcodes.CHECKCAST, wrapper);
                mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, wrapper, returned.getClassName() + "Value",
                        "()" + returned.getDescriptor(), false);
            }
        }
        mv.visitInsn(returned.getOpcode(Opcodes.IRETURN));
    }

    private Object[] entryLocals(String owner, boolean isStatic) {
        List<Object> locals = new ArrayList<>();
        if (!isStatic) {
            locals.add(owner);
        }
        for (Type t : Type.getArgumentTypes(descriptor)) {
            locals.add(switch (t.getSort()) {
                case Type.BOOLEAN, Type.BYTE, Type.CHAR, Type.SHORT, Type.INT -> Opcodes.INTEGER;
                case Type.LONG -> Opcodes.LONG;
                case Type.FLOAT -> Opcodes.FLOAT;
                case Type.DOUBLE -> Opcodes.DOUBLE;
                default -> t.getInternalName();
            });
        }
        return locals.toArray();
    }

    private static void box(MethodVisitor mv, Type t) {
        if (t.getSort() == Type.OBJECT || t.getSort() == Type.ARRAY) {
            return;
        }
        String wrapper = wrapper(t);
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, wrapper, "valueOf", "(" + t.getDescriptor() + ")L" + wrapper + ";",
                false);
    }

    private static String wrapper(Type primitive) {
        return switch (primitive.getSort()) {
            case Type.BOOLEAN -> "java/lang/Boolean";
            case Type.BYTE -> "java/lang/Byte";
            case Type.CHAR -> "java/lang/Character";
            case Type.SHORT -> "java/lang/Short";
            case Type.INT -> "java/lang/Integer";
            case Type.LONG -> "java/lang/Long";
            case Type.FLOAT -> "java/lang/Float";
            case Type.DOUBLE -> "java/lang/Double";
            default -> throw new IllegalArgumentException(primitive + " is not primitive");
        };
    }

    private static void push(MethodVisitor mv, int value) {
        if (value <= 5) {
            mv.visitInsn(Opcodes.ICONST_0 + value);
        } else {
            mv.visitIntInsn(Opcodes.BIPUSH, value);
        }
    }
}
