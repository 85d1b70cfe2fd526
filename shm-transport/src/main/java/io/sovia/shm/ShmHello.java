package io.sovia.shm;

import io.sovia.spi.jdk.JdkNio;
import io.sovia.spi.os.NativeAccess;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;

/**
 * What a client says on the listener's UNIX socket before its TCP setup: which TCP connection it will
 * make. The connection's {@link ShmSegment} travels with these bytes as an attached descriptor.
 *
 * <pre>
 *   0        4        8        12   13           13+n
 *   +--------+--------+--------+----+------------+
 *   | magic  |version | port   | n  |  address   |   + SCM_RIGHTS: the segment's descriptor
 *   +--------+--------+--------+----+------------+
 * </pre>
 * Little endian; magic is "SOVH"; n is 4 or 16.
 *
 * @param client the client's TCP address, by which the accept finds this hello
 */
record ShmHello(InetSocketAddress client) {
    static final int MAGIC = 0x48564f53;
    static final int VERSION = 2;
    /** The most bytes a hello takes: room to collect one without blocking. */
    static final int MAX_LENGTH = 13 + 16;

    /** Sends the hello with {@code segment}'s descriptor at once (it fits any socket buffer); false if it did not go. */
    boolean writeTo(SocketChannel channel, ShmSegment segment) throws IOException {
        byte[] address = client.getAddress().getAddress();
        ByteBuffer b = ByteBuffer.allocate(13 + address.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC).putInt(VERSION).putInt(client.getPort()).put((byte) address.length).put(address);
        return NativeAccess.os().sendWithDescriptor(JdkNio.fd(channel), b.array(), segment.fd()) == b.capacity();
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
        if (b.remaining() < 13) {
            return null;
        }
        if (b.getInt() != MAGIC || b.getInt() != VERSION) {
            throw new IOException("not a Sovia hello of version " + VERSION);
        }
        int port = b.getInt();
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
        return new ShmHello(new InetSocketAddress(InetAddress.getByAddress(address), port));
    }
}
