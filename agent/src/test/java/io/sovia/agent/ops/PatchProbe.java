package io.sovia.agent.ops;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketImpl;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Runs through the JDK methods the agent patches: a java.net socket's platform impl (behind its SOCKS impl; needs
 * {@code --add-opens java.base/java.net=ALL-UNNAMED}), {@code transferTo} and
 * {@code transferFrom} with a connected channel, {@code Channels}' streams over it; prints the impl's class, the bytes
 * each transfer moved and the channel's class (Sovia's when the agent runs), the streams' classes and what they
 * carried.
 */
public final class PatchProbe {
    private static final int SENT = 100_000;
    private static final int RECEIVED = 5_000;

    private PatchProbe() {
    }

    public static void main(String[] args) throws Exception {
        try (Socket socket = new Socket()) {
            java.lang.reflect.Method impl = Socket.class.getDeclaredMethod("getImpl");
            impl.setAccessible(true);
            SocketImpl socks = (SocketImpl) impl.invoke(socket);
            java.lang.reflect.Method delegate = socks.getClass().getSuperclass().getDeclaredMethod("delegate");
            delegate.setAccessible(true);
            System.out.println("impl " + delegate.invoke(socks).getClass().getName());
        } catch (ReflectiveOperationException e) {
            System.out.println("impl unknown: " + e);
        }
        Path file = Files.createTempFile("patch-probe", ".bin");
        Path copy = Files.createTempFile("patch-probe", ".copy");
        try (ServerSocketChannel listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
             SocketChannel client = SocketChannel.open(listener.getLocalAddress());
             SocketChannel server = listener.accept();
             FileChannel in = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.READ);
             FileChannel out = FileChannel.open(copy, StandardOpenOption.WRITE)) {
            in.write(ByteBuffer.allocate(SENT));
            long sent = in.transferTo(0, SENT, client);
            ByteBuffer sink = ByteBuffer.allocate(SENT);
            while (sink.hasRemaining()) {
                server.read(sink);
            }
            client.write(ByteBuffer.allocate(RECEIVED));
            long received = out.transferFrom(server, 0, RECEIVED);
            System.out.println("channel " + client.getClass().getName() + " transferTo " + sent + " transferFrom "
                    + received);
            java.io.OutputStream stream = Channels.newOutputStream(client);
            stream.write(new byte[] {1, 2, 3});
            byte[] three = Channels.newInputStream(server).readNBytes(3);
            System.out.println("streams " + stream.getClass().getName() + " " + Channels.newInputStream(server)
                    .getClass().getName() + " carried " + java.util.Arrays.toString(three));
        } finally {
            Files.delete(file);
            Files.delete(copy);
        }
    }
}
