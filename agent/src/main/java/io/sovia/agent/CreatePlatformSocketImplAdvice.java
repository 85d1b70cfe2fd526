package io.sovia.agent;

import net.bytebuddy.asm.Advice;

import java.net.SocketImpl;
import java.util.function.Function;

/**
 * Inlined into {@code SocketImpl.createPlatformSocketImpl(boolean)}: returns Sovia's impl when the hook
 * gives one. Inlined code runs as java.base and can name no Sovia class, so the factory comes in
 * through {@link Hook}, bound to a field of a holder class defined inside java.base.
 */
final class CreatePlatformSocketImplAdvice {
    private CreatePlatformSocketImplAdvice() {
    }

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    static SocketImpl enter(@Advice.Argument(0) boolean server, @Hook Function<Boolean, SocketImpl> factory) {
        return factory == null ? null : factory.apply(server);
    }

    @Advice.OnMethodExit
    static void exit(@Advice.Enter SocketImpl sovia, @Advice.Return(readOnly = false) SocketImpl returned) {
        if (sovia != null) {
            returned = sovia;
        }
    }
}
