package io.sovia.agent;

import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.config.SoviaLog;

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
    /** The availability checks' classes (internal names), matched by suffix so relocated copies are steered too. */
    private static final String[] CHECKS = {
        "io/netty/channel/epoll/Epoll",
        "io/netty/channel/uring/IoUring",
        "io/netty/incubator/channel/uring/IOUring",
    };

    private NettyNativeInstaller() {
    }

    /** Has {@code isAvailable()} of those classes answer false from now on, before its body runs. */
    static void install(PatchTransformer patches) {
        for (String check : CHECKS) {
            patches.add(EntryPatch.answering(check, "isAvailable", "()Z", false),
                    className -> SoviaLog.info(className + ".isAvailable() answers false under the agent, so Netty "
                            + "code that asks uses its NIO transport, which Sovia accelerates ("
                            + SoviaConfig.NETTY_NATIVE + "=keep leaves it alone)"),
                    (className, cause) -> SoviaLog.warnOnce("netty-native " + className, className
                            + " keeps its native transport: cannot steer it", cause));
        }
    }
}
