package io.sovia.agent;

import net.bytebuddy.asm.Advice;

import java.util.function.Function;

/**
 * Inlined into {@code FileChannelImpl.transferTo} and {@code transferFrom}: hands a transfer with a Sovia channel
 * at the other end to Sovia ({@code spi.nio.FileTransfers}), which returns the bytes moved, or null for the JDK to
 * carry on. The hook comes in through {@link Hook}, bound to a holder's field in {@code sun.nio.ch}.
 */
final class FileTransferAdvice {
    private FileTransferAdvice() {
    }

    /** {@code transferTo(long position, long count, WritableByteChannel target)}. */
    static final class To {
        private To() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
        static Object enter(@Advice.This Object file, @Advice.Argument(0) long position, @Advice.Argument(1) long count,
                            @Advice.Argument(2) Object target, @Hook Function<Object[], Object> hook) {
            return hook == null ? null : hook.apply(new Object[] {file, position, count, target, Boolean.TRUE});
        }
    }

    /** {@code transferFrom(ReadableByteChannel src, long position, long count)}. */
    static final class From {
        private From() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
        static Object enter(@Advice.This Object file, @Advice.Argument(0) Object source, @Advice.Argument(1) long position,
                            @Advice.Argument(2) long count, @Hook Function<Object[], Object> hook) {
            return hook == null ? null : hook.apply(new Object[] {file, position, count, source, Boolean.FALSE});
        }
    }

    /** The exit of both: what Sovia moved, if it took the transfer, is what the method returns. */
    static final class Moved {
        private Moved() {
        }

        @Advice.OnMethodExit
        static void exit(@Advice.Enter Object moved, @Advice.Return(readOnly = false) long returned) {
            if (moved != null) {
                returned = (Long) moved;
            }
        }
    }
}
