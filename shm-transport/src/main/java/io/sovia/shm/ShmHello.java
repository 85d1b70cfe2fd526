package io.sovia.shm;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * What a client says on the listener's UNIX socket before its TCP setup: which TCP connection it will
 * make and which segment to map.
 *
 * <pre>
 *   0        4        8        12   13         13+n      15+n
 *   +--------+--------+--------+----+----------+---------+-----------------+
 *   | magic  |version | port   | n  | address  |  m (u16)| segment name    |
 *   +--------+--------+--------+----+----------+---------+-----------------+
 * </pre>
 * Little endian; magic is "SOVH"; the segment is named only (it lies in the listener's directory), and
 * must look like one, so a hostile name cannot point elsewhere.
 *
 * @param client  the client's TCP address, by which the accept finds this hello
 * @param segment the segment's file name
 */
record ShmHello(InetSocketAddress client, String segment) {
    static final int MAGIC = 0x48564f53;
    static final int VERSION = 1;
    private static final Pattern SEGMENT = Pattern.compile("s-\\d{1,10}-\\d{1,19}\\.seg");

    /** Writes the hello at once (it fits any socket buffer); false if the channel would not take it. */
    boolean writeTo(SocketChannel channel) throws IOException {
        byte[] address = client.getAddress().getAddress();
        byte[] name = segment.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer b = ByteBuffer.allocate(15 + address.length + name.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC).putInt(VERSION).putInt(client.getPort()).put((byte) address.length).put(address)
                .putShort((short) name.length).put(name).flip();
        channel.write(b);
        return !b.hasRemaining();
    }

    /** The most bytes a hello takes: room to collect one without blocking. */
    static final int MAX_LENGTH = 15 + 16 + 64;

    /**
     * Parses the bytes collected so far ({@code bytes} in write mode).
     *
     * @return the hello, or null while it is incomplete
     * @throws IOException if the bytes cannot be a hello
     */
    static ShmHello parse(ByteBuffer bytes) throws IOException {
        ByteBuffer b = bytes.duplicate().flip().order(ByteOrder.LITTLE_ENDIAN);
        if (b.remaining() < 13) {
            return null;
        }
        if (b.getInt() != MAGIC || b.getInt() != VERSION) {
            throw new IOException("not a Sovia hello");
        }
        int port = b.getInt();
        int addressLength = b.get();
        if (addressLength != 4 && addressLength != 16) {
            throw new IOException("bad address length " + addressLength);
        }
        if (b.remaining() < addressLength + 2) {
            return null;
        }
        byte[] address = new byte[addressLength];
        b.get(address);
        int nameLength = b.getShort() & 0xffff;
        if (nameLength > 64) {
            throw new IOException("segment name too long");
        }
        if (b.remaining() < nameLength) {
            return null;
        }
        byte[] name = new byte[nameLength];
        b.get(name);
        String segment = new String(name, StandardCharsets.US_ASCII);
        if (!SEGMENT.matcher(segment).matches()) {
            throw new IOException("bad segment name " + segment);
        }
        return new ShmHello(new InetSocketAddress(InetAddress.getByAddress(address), port), segment);
    }
}
