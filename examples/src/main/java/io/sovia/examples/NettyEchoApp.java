package io.sovia.examples;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.LineBasedFrameDecoder;
import io.netty.handler.codec.string.StringDecoder;
import io.netty.handler.codec.string.StringEncoder;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Netty 4.1 on the NIO transport: a line echo of 1000 messages over one connection,
 * then, over a second one, an 8 MiB file that the server sends as a {@link DefaultFileRegion}
 * (zero-copy {@code FileChannel.transferTo}) and the client checks by SHA-256.
 * Usage: {@code NettyEchoApp [both | server | client <port>]}.
 */
public final class NettyEchoApp {

    private static final int MESSAGES = 1000;
    private static final long FILE_SIZE = 8L << 20;
    private static final long FILE_SEED = 8;
    private static final String FILE_REQUEST = "FILE";
    private static final int MAX_LINE = 4096;
    private static final long TIMEOUT_SECONDS = 30;

    private NettyEchoApp() {
    }

    public static void main(String[] args) {
        DemoSupport.run(args, NettyEchoApp::startServer, NettyEchoApp::runClient);
    }

    private static DemoSupport.Server startServer() throws Exception {
        Path file = Files.createTempFile("netty-demo", ".bin");
        DemoSupport.writePseudoRandomFile(file, FILE_SEED, FILE_SIZE);
        EventLoopGroup boss = new NioEventLoopGroup(1);
        EventLoopGroup workers = new NioEventLoopGroup(2);
        DemoSupport.Stop stop = () -> {
            boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).sync();
            workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).sync();
            Files.deleteIfExists(file);
        };
        try {
            Channel listener = new ServerBootstrap()
                    .group(boss, workers)
                    .channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new LineBasedFrameDecoder(MAX_LINE), new StringDecoder(UTF_8),
                                    new StringEncoder(UTF_8), new ServerHandler(file));
                        }
                    })
                    .bind(InetAddress.getLoopbackAddress(), 0).sync().channel();
            return new DemoSupport.Server(((InetSocketAddress) listener.localAddress()).getPort(), stop);
        } catch (Exception e) {
            stop.run();
            throw e;
        }
    }

    /** Echoes every line, except that the line {@value #FILE_REQUEST} is answered with the file. */
    private static final class ServerHandler extends SimpleChannelInboundHandler<String> {
        private final Path file;

        ServerHandler(Path file) {
            this.file = file;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, String line) {
            if (FILE_REQUEST.equals(line)) {
                ctx.writeAndFlush(new DefaultFileRegion(file.toFile(), 0, FILE_SIZE))
                        .addListener(ChannelFutureListener.CLOSE);
            } else {
                ctx.write(line + "\n");
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush(); // one flush per read batch, so the echo is pipelined like a real server's
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            cause.printStackTrace();
            ctx.close();
        }
    }

    private static String runClient(int port) throws Exception {
        EventLoopGroup group = new NioEventLoopGroup(1);
        try {
            return echo(group, port) + " " + fetchFile(group, port);
        } finally {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).sync();
        }
    }

    private static String echo(EventLoopGroup group, int port) throws Exception {
        List<String> received = new ArrayList<>();
        CompletableFuture<Void> allEchoed = new CompletableFuture<>();
        Channel channel = new Bootstrap()
                .group(group)
                .channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new LineBasedFrameDecoder(MAX_LINE), new StringDecoder(UTF_8),
                                new StringEncoder(UTF_8), new SimpleChannelInboundHandler<String>() {
                                    @Override
                                    protected void channelRead0(ChannelHandlerContext ctx, String line) {
                                        received.add(line);
                                        if (received.size() == MESSAGES) {
                                            allEchoed.complete(null);
                                        }
                                    }

                                    @Override
                                    public void channelInactive(ChannelHandlerContext ctx) {
                                        allEchoed.completeExceptionally(
                                                new IOException("closed after " + received.size() + " echoes"));
                                    }

                                    @Override
                                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                        allEchoed.completeExceptionally(cause);
                                    }
                                });
                    }
                })
                .connect(InetAddress.getLoopbackAddress(), port).sync().channel();
        for (int i = 0; i < MESSAGES; i++) {
            channel.write(message(i) + "\n");
        }
        channel.flush();
        allEchoed.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        channel.close().sync();
        for (int i = 0; i < MESSAGES; i++) {
            if (!received.get(i).equals(message(i))) {
                throw new IllegalStateException("echo " + i + " differs: " + received.get(i));
            }
        }
        return "echo=" + received.size() + "/" + MESSAGES;
    }

    /** Messages of 10 to about 1500 bytes, so that some span several reads. */
    private static String message(int i) {
        StringBuilder text = new StringBuilder("msg " + i + " ");
        for (int k = 0; k < (i * 37) % 1500; k++) {
            text.append((char) ('a' + (i + k) % 26));
        }
        return text.toString();
    }

    private static String fetchFile(EventLoopGroup group, int port) throws Exception {
        MessageDigest digest = DemoSupport.sha256();
        long[] bytes = {0};
        CompletableFuture<Void> closed = new CompletableFuture<>();
        new Bootstrap()
                .group(group)
                .channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new StringEncoder(UTF_8), new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelActive(ChannelHandlerContext ctx) {
                                ctx.writeAndFlush(FILE_REQUEST + "\n");
                            }

                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                ByteBuf buf = (ByteBuf) msg;
                                try {
                                    bytes[0] += buf.readableBytes();
                                    for (ByteBuffer part : buf.nioBuffers()) {
                                        digest.update(part);
                                    }
                                } finally {
                                    buf.release();
                                }
                            }

                            @Override
                            public void channelInactive(ChannelHandlerContext ctx) {
                                closed.complete(null); // the server closes once the whole file is sent
                            }

                            @Override
                            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                closed.completeExceptionally(cause);
                            }
                        });
                    }
                })
                .connect(InetAddress.getLoopbackAddress(), port).sync();
        closed.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        String sha = DemoSupport.hex(digest);
        if (bytes[0] != FILE_SIZE || !sha.equals(DemoSupport.sha256OfPseudoRandom(FILE_SEED, FILE_SIZE))) {
            throw new IllegalStateException("file differs: " + bytes[0] + " bytes, sha256 " + sha);
        }
        return "file=" + bytes[0] + " sha256=" + sha;
    }
}
