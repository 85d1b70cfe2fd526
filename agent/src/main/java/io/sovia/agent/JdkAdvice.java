package io.sovia.agent;

import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.dynamic.DynamicType;

import java.lang.instrument.Instrumentation;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.none;

/**
 * Installs advice into an already loaded JDK class by retransformation, no class format change, failing fast: how
 * the agent hooks {@code SocketImpl} and {@code FileChannelImpl}.
 */
final class JdkAdvice {
    private JdkAdvice() {
    }

    /** Applies {@code advice} (each from {@code Advice.on(...)}) to the JDK class {@code typeName}. */
    static void install(Instrumentation inst, String typeName, AsmVisitorWrapper... advice) {
        new AgentBuilder.Default()
                .disableClassFormatChanges()
                .with(AgentBuilder.InitializationStrategy.NoOp.INSTANCE)
                .with(AgentBuilder.TypeStrategy.Default.REDEFINE)
                .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
                .with(AgentBuilder.RedefinitionStrategy.Listener.ErrorEscalating.FAIL_FAST)
                .ignore(none())
                .type(named(typeName))
                .transform((builder, type, loader, module, domain) -> visitAll(builder, advice))
                .installOn(inst);
    }

    private static DynamicType.Builder<?> visitAll(DynamicType.Builder<?> builder, AsmVisitorWrapper[] advice) {
        DynamicType.Builder<?> visited = builder;
        for (AsmVisitorWrapper a : advice) {
            visited = visited.visit(a);
        }
        return visited;
    }
}
