package io.sovia.shm;

import io.sovia.spi.jdk.JdkNio;
import io.sovia.spi.link.RingLink;
import io.sovia.spi.os.NativeAccess;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;

/**
 * What a client says on a UNIX socket to the listener before its TCP setup: which TCP connection it will make, and
 * over which segment. A new connection's {@link ShmSegment} travels with these bytes as an attached descriptor, on
 * a socket just connected to the listener's; a {@linkplain #reused() reused} one is the segment of the socket's
 * previous connection, which both ends kept ({@link ShmChannelPool}), and no descriptor comes.
 *
 * <pre>
 *   0        4        8        12   13   14           14+n
 *   +--------+--------+--------+----+----+------------+
 *   | magic  |version | port   |flag| n  |  address   |   + SCM_RIGHTS: the segment's descriptor, unless reused
 *   +--------+--------+--------+----+----+------------+
 * </pre>
 * Little endian; magic is "SOVH"; flag 1: reused; n is 4 or 16. On a kept socket, doorbell bytes of its previous
 * connection may come first ({@link RingLink#WAKE}, {@link RingLink#NUDGE}, never the magic's first byte); the
 * reader skips them ({@link #isDoorbellByte}).
 *
 * @param client the client's TCP address, by which the accept finds this hello
 * @param reused whether the connection runs on the socket's previous segment, its rings reset by the client
 */
record ShmHello(InetSocketAddress client, boolean reused) {
    static final int MAGIC = 0x48564f53;
    static final int VERSION = 4;
    private static final int HEADER = 14;
    private static final byte REUSED = 1;
    /** The most bytes a hello takes: room to collect one without blocking. */
    static final int MAX_LENGTH = HEADER + 16;

    /** Sends the hello with {@code segment}'s descriptor at once (it fits any socket buffer); false if it did not go. */
    boolean writeTo(SocketChannel channel, ShmSegment segment) throws IOException {
        byte[] b = bytes();
        return NativeAccess.os().sendWithDescriptor(JdkNio.fd(channel), b, segment.fd()) == b.length;
    }

    /** Sends a reused connection's hello at once; false if it did not go. */
    boolean writeTo(SocketChannel channel) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(bytes());
        return channel.write(b) == b.capacity();
    }

    private byte[] bytes() {
        byte[] address = client.getAddress().getAddress();
        ByteBuffer b = ByteBuffer.allocate(HEADER + address.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC).putInt(VERSION).putInt(client.getPort()).put(reused ? REUSED : 0)
                .put((byte) address.length).put(address);
        return b.array();
    }

    /** Whether {@code b}, met before a hello, is a doorbell byte of the socket's previous connection. */
    static boolean isDoorbellByte(byte b) {
        return b == RingLink.WAKE || b == RingLink.NUDGE;
    }

    /**
     * Parses {@code length} bytes collected so far. Doorbell bytes the client rang before the accept may follow;
     * they are dropped, which costs nothing since a claimed connection is polled at once.
     *
     * @return the hello, or null while it is incomplete
     * @throws IOException if the bytes cannot be a hello
     */
    static ShmHello parse(byte[] bytes, int length) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(bytes, 0, length).order(ByteOrder.LITTLE_ENDIAN);
        if (b.remaining() < HEADER) {
            return null;
        }
        if (b.getInt() != MAGIC || b.getInt() != VERSION) {
            throw new IOException("not a Sovia hello of version " + VERSION);
        }
        int port = b.getInt();
        int flag = b.get();
        if (flag != 0 && flag != REUSED) {
            throw new IOException("bad flag " + flag);
        }
        int addressLength = b.get();
        if (addressLength != 4 && addressLength != 16) {
            throw new IOException("bad address length " + addressLength);
        }
        if (port < 0 || port > 0xffff) {
            throw new IOException("bad port " + port);
        }
        if (b.remaining() < addressLength) {
            return null;
        }
        byte[] address = new byte[addressLength];
        b.get(address);
        return new ShmHello(new InetSocketAddress(InetAddress.getByAddress(address), port), flag == REUSED);
    }
}
