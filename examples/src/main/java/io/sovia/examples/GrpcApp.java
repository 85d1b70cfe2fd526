package io.sovia.examples;

import io.grpc.CallOptions;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollSocketChannel;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;

/**
 * gRPC over grpc-netty-shaded, as apps write it: {@code Grpc.newServerBuilderForPort} and
 * {@code Grpc.newChannelBuilderForAddress}, which take Netty's native epoll transport wherever it loads (Linux),
 * and with it sockets no SelectorProvider sees. The client makes 200 unary calls of 0 B to 4 KiB (the server
 * reverses the bytes), one of 1 MiB, and a server-streaming call of 64 messages of 64 KiB. With
 * {@code -Dgrpcapp.epoll=true} both ends insist on epoll (their own {@code EpollEventLoopGroup} and channel
 * classes), as tuned deployments do. Usage: {@code GrpcApp [both | server | client <port>]}.
 */
public final class GrpcApp {
    private static final String SERVICE = "demo.Bytes";
    private static final MethodDescriptor<byte[], byte[]> REVERSE =
            GrpcBytes.method(SERVICE, "Reverse", MethodDescriptor.MethodType.UNARY);
    private static final MethodDescriptor<byte[], byte[]> STREAM =
            GrpcBytes.method(SERVICE, "Stream", MethodDescriptor.MethodType.SERVER_STREAMING);
    private static final int CALLS = 200;
    private static final int STREAM_MESSAGES = 64;
    private static final int STREAM_MESSAGE = 64 * 1024;
    private static final boolean EPOLL = Boolean.getBoolean("grpcapp.epoll");

    private GrpcApp() {
    }

    public static void main(String[] args) {
        DemoSupport.run(args, GrpcApp::startServer, GrpcApp::runClient);
    }

    private static DemoSupport.Server startServer() throws IOException {
        ServerServiceDefinition service = ServerServiceDefinition.builder(SERVICE)
                .addMethod(REVERSE, ServerCalls.asyncUnaryCall(GrpcApp::reverse))
                .addMethod(STREAM, ServerCalls.asyncServerStreamingCall(GrpcApp::stream))
                .build();
        ServerBuilder<?> builder;
        EventLoopGroup group = null;
        if (EPOLL) {
            group = new EpollEventLoopGroup(2);
            builder = NettyServerBuilder.forAddress(new InetSocketAddress(DemoSupport.host(), 0))
                    .channelType(EpollServerSocketChannel.class).bossEventLoopGroup(group).workerEventLoopGroup(group);
        } else {
            builder = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create());
        }
        Server server = builder.addService(service).build().start();
        EventLoopGroup owned = group;
        return new DemoSupport.Server(server.getPort(), () -> {
            server.shutdown();
            if (!server.awaitTermination(10, TimeUnit.SECONDS)) {
                server.shutdownNow();
            }
            if (owned != null) {
                owned.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            }
        });
    }

    private static void reverse(byte[] request, StreamObserver<byte[]> response) {
        byte[] reversed = new byte[request.length];
        for (int i = 0; i < request.length; i++) {
            reversed[i] = request[request.length - 1 - i];
        }
        response.onNext(reversed);
        response.onCompleted();
    }

    /** Sends the messages of the seed the request names, one pseudo-random 64 KiB message at a time. */
    private static void stream(byte[] request, StreamObserver<byte[]> response) {
        long seed = request.length;
        for (int i = 0; i < STREAM_MESSAGES; i++) {
            response.onNext(DemoSupport.pseudoRandomBytes(seed + i, STREAM_MESSAGE));
        }
        response.onCompleted();
    }

    private static String runClient(int port) throws Exception {
        ManagedChannel channel;
        EventLoopGroup group = null;
        String host = DemoSupport.host().getHostAddress();
        if (EPOLL) {
            group = new EpollEventLoopGroup(1);
            channel = NettyChannelBuilder.forAddress(host, port).usePlaintext()
                    .channelType(EpollSocketChannel.class).eventLoopGroup(group).build();
        } else {
            channel = Grpc.newChannelBuilderForAddress(host, port, InsecureChannelCredentials.create()).build();
        }
        try {
            MessageDigest unary = DemoSupport.sha256();
            for (int i = 0; i < CALLS; i++) {
                byte[] data = DemoSupport.pseudoRandomBytes(i, i * 4096 / (CALLS - 1));
                byte[] reversed = ClientCalls.blockingUnaryCall(channel, REVERSE, CallOptions.DEFAULT, data);
                checkReversed(data, reversed);
                unary.update(reversed);
            }
            byte[] large = DemoSupport.pseudoRandomBytes(CALLS, 1 << 20);
            checkReversed(large, ClientCalls.blockingUnaryCall(channel, REVERSE,
                    CallOptions.DEFAULT.withMaxInboundMessageSize(2 << 20), large));
            MessageDigest streamed = DemoSupport.sha256();
            Iterator<byte[]> messages = ClientCalls.blockingServerStreamingCall(channel, STREAM,
                    CallOptions.DEFAULT, new byte[7]);
            int count = 0;
            while (messages.hasNext()) {
                streamed.update(messages.next());
                count++;
            }
            return "unary=" + CALLS + " sha256=" + DemoSupport.hex(unary) + " large=" + large.length
                    + " streamed=" + count + " sha256=" + DemoSupport.hex(streamed);
        } finally {
            channel.shutdown();
            if (!channel.awaitTermination(10, TimeUnit.SECONDS)) {
                channel.shutdownNow();
            }
            if (group != null) {
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            }
        }
    }

    private static void checkReversed(byte[] data, byte[] reversed) {
        if (reversed.length != data.length) {
            throw new IllegalStateException("reversed " + reversed.length + " bytes of " + data.length);
        }
        for (int i = 0; i < data.length; i++) {
            if (reversed[i] != data[data.length - 1 - i]) {
                throw new IllegalStateException("reverse differs at " + i + " of " + data.length);
            }
        }
    }
}
