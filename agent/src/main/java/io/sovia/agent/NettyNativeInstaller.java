package io.sovia.agent;

import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.config.SoviaLog;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.utility.JavaModule;

import java.lang.instrument.Instrumentation;

import static net.bytebuddy.matcher.ElementMatchers.isStatic;
import static net.bytebuddy.matcher.ElementMatchers.nameEndsWith;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.none;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

/**
 * Steers Netty to its NIO transport ({@code sovia.netty.native=steer}): Netty's epoll and io_uring transports
 * make their sockets in native code, past every SelectorProvider, and Netty code that can choose (gRPC's among
 * it) takes them whenever {@code Epoll.isAvailable()} says yes. That check, in Netty's own classes and in
 * relocated copies ({@code io.grpc.netty.shaded.io.netty...}), answers no under the agent.
 *
 * <p>Netty's documented switch, {@code io.netty.transport.noNative}, would do the same for code that asks, but
 * it also makes {@code new EpollEventLoopGroup()} throw for code that does not ask: an app that always uses epoll
 * would no longer start. The answer alone leaves such an app on epoll and plain TCP, as without the agent.
 */
final class NettyNativeInstaller {
    /** The availability checks' classes, matched by name suffix so relocated copies are steered too. */
    private static final String[] CHECKS = {
        "io.netty.channel.epoll.Epoll",
        "io.netty.channel.uring.IoUring",
        "io.netty.incubator.channel.uring.IOUring",
    };

    private NettyNativeInstaller() {
    }

    static void install(Instrumentation inst) {
        new AgentBuilder.Default()
                .disableClassFormatChanges()
                .with(AgentBuilder.InitializationStrategy.NoOp.INSTANCE)
                .with(AgentBuilder.TypeStrategy.Default.REDEFINE)
                .with(new Steered())
                // matched by name only, which costs no parse of the classes the app loads
                .ignore(none())
                .type(nameEndsWith(CHECKS[0]).or(nameEndsWith(CHECKS[1])).or(nameEndsWith(CHECKS[2])))
                .transform(NettyNativeInstaller::steer)
                .installOn(inst);
    }

    private static DynamicType.Builder<?> steer(DynamicType.Builder<?> builder, TypeDescription type,
                                                ClassLoader loader, JavaModule module,
                                                java.security.ProtectionDomain domain) {
        return builder.visit(Advice.to(Unavailable.class)
                .on(named("isAvailable").and(isStatic()).and(takesArguments(0)).and(returns(boolean.class))));
    }

    /** Inlined at the end of {@code isAvailable()}: no native transport. Refers to nothing outside the JDK. */
    static final class Unavailable {
        private Unavailable() {
        }

        @Advice.OnMethodExit
        static void exit(@Advice.Return(readOnly = false) boolean available) {
            available = false;
        }
    }

    /** Says, per class, that it was steered, or why it could not be. */
    private static final class Steered extends AgentBuilder.Listener.Adapter {
        @Override
        public void onTransformation(TypeDescription type, ClassLoader loader, JavaModule module, boolean loaded,
                                     DynamicType dynamicType) {
            SoviaLog.info(type.getName() + ".isAvailable() answers false under the agent, so Netty code that asks "
                    + "uses its NIO transport, which Sovia accelerates (" + SoviaConfig.NETTY_NATIVE
                    + "=keep leaves it alone)");
        }

        @Override
        public void onError(String typeName, ClassLoader loader, JavaModule module, boolean loaded, Throwable error) {
            SoviaLog.warnOnce("netty-native " + typeName, typeName + " keeps its native transport: cannot steer it", error);
        }
    }
}
