package io.sovia.examples;

import io.grpc.CallOptions;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.RMIServerSocketFactory;
import java.rmi.server.UnicastRemoteObject;
import java.util.Iterator;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * SOVIA's RPC experiment (its Figure 10): a null call, then calls with a string argument of 0 B to 4 KiB that the
 * server returns, timed one by one, in Java RMI and in gRPC (over grpc-netty-shaded, as apps use it).
 * <ul>
 *   <li>{@code RpcBench server rmi|grpc}: prints {@code PORT n}, serves until standard input ends;</li>
 *   <li>{@code RpcBench client rmi|grpc PORT CALLS}: a quarter of CALLS (at least 2,000) of each size untimed for
 *   the JIT, then
 *   CALLS of each size timed, printing {@code RESULT rpc=.. size=.. calls=.. mean_us=.. p50_us=.. p99_us=..}; each answer is checked
 *   against its argument, and a last line {@code RESULT rpc=.. verified=N} counts them. gRPC then also streams: one
 *   server-streaming call of CALLS/10 (at least 256) messages of 64 KiB, after one of a quarter as many untimed,
 *   printed as {@code RESULT rpc=grpc stream_MBps=..}.</li>
 * </ul>
 * Size {@code null} is the call without argument or result.
 */
public final class RpcBench {
    /** Argument sizes after the null call, SOVIA's range. */
    static final int[] SIZES = {0, 16, 64, 256, 1024, 4096};
    private static final String NAME = "rpc";
    private static final int STREAM_MESSAGE = 64 * 1024;

    /** RMI's remote interface; public because RMI builds the client's proxy from it. */
    public interface Rpc extends Remote {
        void nothing() throws RemoteException;

        String echo(String text) throws RemoteException;
    }

    private static final class RpcImpl implements Rpc {
        @Override
        public void nothing() {
        }

        @Override
        public String echo(String text) {
            return text;
        }
    }

    /** A call the client times: the argument size, or -1 for the null call. */
    @FunctionalInterface
    private interface Call {
        void invoke(int size, String argument) throws Exception;
    }

    private RpcBench() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("java.rmi.server.hostname", "127.0.0.1");
        if (args.length == 2 && args[0].equals("server") && isRpc(args[1])) {
            server(args[1]);
        } else if (args.length == 4 && args[0].equals("client") && isRpc(args[1])) {
            client(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]));
        } else {
            System.err.println("usage: RpcBench server rmi|grpc | client rmi|grpc PORT CALLS");
            System.exit(2);
        }
        System.exit(0);
    }

    private static boolean isRpc(String rpc) {
        return rpc.equals("rmi") || rpc.equals("grpc");
    }

    private static void server(String rpc) throws Exception {
        DemoSupport.Stop stop = rpc.equals("rmi") ? rmiServer() : grpcServer();
        System.in.transferTo(OutputStream.nullOutputStream());
        stop.run();
    }

    private static DemoSupport.Stop rmiServer() throws IOException {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        RMIServerSocketFactory loopback = p -> new ServerSocket(p, 50, InetAddress.getLoopbackAddress());
        Registry registry = LocateRegistry.createRegistry(port, null, loopback);
        Rpc impl = new RpcImpl();
        registry.rebind(NAME, UnicastRemoteObject.exportObject(impl, 0, null, loopback));
        printPort(port);
        return () -> {
            UnicastRemoteObject.unexportObject(impl, true);
            UnicastRemoteObject.unexportObject(registry, true);
        };
    }

    private static DemoSupport.Stop grpcServer() throws IOException {
        ServerServiceDefinition service = ServerServiceDefinition.builder(GrpcMethods.SERVICE)
                .addMethod(GrpcMethods.NOTHING, ServerCalls.asyncUnaryCall(RpcBench::echo))
                .addMethod(GrpcMethods.ECHO, ServerCalls.asyncUnaryCall(RpcBench::echo))
                .addMethod(GrpcMethods.STREAM, ServerCalls.asyncServerStreamingCall((request, response) -> {
                    long messages = ByteBuffer.wrap(request).getLong();
                    for (long i = 0; i < messages; i++) {
                        byte[] message = new byte[STREAM_MESSAGE];
                        ByteBuffer.wrap(message).putLong(i);
                        response.onNext(message);
                    }
                    response.onCompleted();
                }))
                .build();
        Server server = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
                .addService(service).build().start();
        printPort(server.getPort());
        return () -> {
            server.shutdown();
            if (!server.awaitTermination(10, TimeUnit.SECONDS)) {
                server.shutdownNow();
            }
        };
    }

    /** Both unary methods answer with what they got: the null call's empty message, or the argument. */
    private static void echo(byte[] request, StreamObserver<byte[]> response) {
        response.onNext(request);
        response.onCompleted();
    }

    private static void printPort(int port) {
        System.out.println("PORT " + port);
        System.out.flush();
    }

    private static void client(String rpc, int port, int calls) throws Exception {
        if (rpc.equals("rmi")) {
            Rpc remote = (Rpc) LocateRegistry.getRegistry("127.0.0.1", port).lookup(NAME);
            measure(rpc, calls, (size, argument) -> {
                if (size < 0) {
                    remote.nothing();
                } else {
                    check(argument, remote.echo(argument));
                }
            });
            return;
        }
        ManagedChannel channel = Grpc.newChannelBuilderForAddress("127.0.0.1", port,
                InsecureChannelCredentials.create()).build();
        try {
            byte[] none = new byte[0];
            measure(rpc, calls, (size, argument) -> {
                if (size < 0) {
                    ClientCalls.blockingUnaryCall(channel, GrpcMethods.NOTHING, CallOptions.DEFAULT, none);
                } else {
                    byte[] answer = ClientCalls.blockingUnaryCall(channel, GrpcMethods.ECHO, CallOptions.DEFAULT,
                            argument.getBytes(StandardCharsets.UTF_8));
                    check(argument, new String(answer, StandardCharsets.UTF_8));
                }
            });
            int messages = Math.max(256, calls / 10);
            stream(channel, messages / 4);
            long t0 = System.nanoTime();
            stream(channel, messages);
            System.out.printf(Locale.ROOT, "RESULT rpc=grpc stream_MBps=%.1f%n",
                    (double) messages * STREAM_MESSAGE / 1e6 / ((System.nanoTime() - t0) / 1e9));
        } finally {
            channel.shutdown();
            if (!channel.awaitTermination(10, TimeUnit.SECONDS)) {
                channel.shutdownNow();
            }
        }
    }

    /** Untimed calls per size before the timed ones: enough for the JIT to settle even in short runs. */
    private static int warmup(int calls) {
        return Math.max(calls / 4, 2000);
    }

    /** One server-streaming call of {@code messages} messages, each checked for its number and length. */
    private static void stream(ManagedChannel channel, long messages) {
        Iterator<byte[]> stream = ClientCalls.blockingServerStreamingCall(channel, GrpcMethods.STREAM,
                CallOptions.DEFAULT, ByteBuffer.allocate(8).putLong(messages).array());
        long received = 0;
        while (stream.hasNext()) {
            byte[] message = stream.next();
            if (message.length != STREAM_MESSAGE || ByteBuffer.wrap(message).getLong() != received) {
                throw new IllegalStateException("streamed message " + received + " came wrong");
            }
            received++;
        }
        if (received != messages) {
            throw new IllegalStateException("streamed " + received + " messages of " + messages);
        }
    }

    /** Warms every size up first (a quarter of CALLS each, untimed), so no size carries the JIT's work alone. */
    private static void measure(String rpc, int calls, Call call) throws Exception {
        long verified = 0;
        for (int s = -1; s < SIZES.length; s++) {
            int size = s < 0 ? -1 : SIZES[s];
            String argument = size < 0 ? null : argument(size);
            for (int i = 0; i < warmup(calls); i++) {
                call.invoke(size, argument);
            }
            verified += warmup(calls);
        }
        for (int s = -1; s < SIZES.length; s++) {
            int size = s < 0 ? -1 : SIZES[s];
            String argument = size < 0 ? null : argument(size);
            Histogram histogram = new Histogram(3);
            long total = 0;
            for (int i = 0; i < calls; i++) {
                long t0 = System.nanoTime();
                call.invoke(size, argument);
                long took = System.nanoTime() - t0;
                histogram.recordValue(took);
                total += took;
            }
            verified += calls;
            System.out.printf(Locale.ROOT, "RESULT rpc=%s size=%s calls=%d mean_us=%.1f p50_us=%.1f p99_us=%.1f%n",
                    rpc, size < 0 ? "null" : String.valueOf(size), calls, total / 1e3 / calls,
                    histogram.getValueAtPercentile(50) / 1e3, histogram.getValueAtPercentile(99) / 1e3);
        }
        System.out.println("RESULT rpc=" + rpc + " verified=" + verified);
    }

    /** A string of {@code size} ASCII characters (so as many UTF-8 bytes), different for each size. */
    private static String argument(int size) {
        StringBuilder text = new StringBuilder(size);
        for (int i = 0; i < size; i++) {
            text.append((char) ('a' + (i * 7 + size) % 26));
        }
        return text.toString();
    }

    private static void check(String argument, String answer) {
        if (!argument.equals(answer)) {
            throw new IllegalStateException("an echo of " + argument.length() + " characters came back as "
                    + (answer == null ? "null" : answer.length() + " different ones"));
        }
    }

    /** The gRPC service: both methods carry raw bytes. */
    private static final class GrpcMethods {
        static final String SERVICE = "demo.Rpc";
        static final MethodDescriptor<byte[], byte[]> NOTHING =
                GrpcBytes.method(SERVICE, "Nothing", MethodDescriptor.MethodType.UNARY);
        static final MethodDescriptor<byte[], byte[]> ECHO =
                GrpcBytes.method(SERVICE, "Echo", MethodDescriptor.MethodType.UNARY);
        static final MethodDescriptor<byte[], byte[]> STREAM =
                GrpcBytes.method(SERVICE, "Stream", MethodDescriptor.MethodType.SERVER_STREAMING);

        private GrpcMethods() {
        }
    }
}
