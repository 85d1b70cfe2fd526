package io.sovia.examples;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A hostile local peer: leaves well-formed Sovia hellos at a listener's UNIX socket and never makes the TCP connect
 * they announce, as a process of the same user could. Written from the format's description (ShmHello), without
 * Sovia's classes, as another program would.
 *
 * <pre>  java HostileHellos SOCKET COUNT keep|close</pre>
 * {@code keep} holds the connections open until killed; {@code close} closes each after its hello. Prints
 * "READY" once all hellos are written.
 */
public final class HostileHellos {
    private static final int MAGIC = 0x48564f53;

    private HostileHellos() {
    }

    public static void main(String[] args) throws Exception {
        Path socket = Path.of(args[0]);
        int count = Integer.parseInt(args[1]);
        boolean keep = "keep".equals(args[2]);
        List<SocketChannel> open = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
            c.connect(UnixDomainSocketAddress.of(socket));
            c.write(hello(40_000 + i, "s-" + ProcessHandle.current().pid() + '-' + i + ".seg"));
            if (keep) {
                open.add(c);
            } else {
                c.close();
            }
        }
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }

    /** A hello for a TCP connection from 127.0.0.1:{@code port} that never comes, naming a segment that does not exist. */
    private static ByteBuffer hello(int port, String segment) {
        byte[] name = segment.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer b = ByteBuffer.allocate(15 + 4 + name.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC).putInt(1).putInt(port).put((byte) 4).put(new byte[] {127, 0, 0, 1})
                .putShort((short) name.length).put(name);
        return b.flip();
    }
}
