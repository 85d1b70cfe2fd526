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

    void writeTo(SocketChannel channel) throws IOException {
        byte[] address = client.getAddress().getAddress();
        byte[] name = segment.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer b = ByteBuffer.allocate(15 + address.length + name.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC).putInt(VERSION).putInt(client.getPort()).put((byte) address.length).put(address)
                .putShort((short) name.length).put(name).flip();
        while (b.hasRemaining()) {
            channel.write(b);
        }
    }

    /** Reads one hello from a blocking channel; throws on anything malformed. */
    static ShmHello readFrom(SocketChannel channel) throws IOException {
        ByteBuffer head = read(channel, 13);
        if (head.getInt() != MAGIC || head.getInt() != VERSION) {
            throw new IOException("not a Sovia hello");
        }
        int port = head.getInt();
        int addressLength = head.get();
        if (addressLength != 4 && addressLength != 16) {
            throw new IOException("bad address length " + addressLength);
        }
        byte[] address = new byte[addressLength];
        read(channel, addressLength).get(address);
        int nameLength = read(channel, 2).getShort() & 0xffff;
        if (nameLength > 64) {
            throw new IOException("segment name too long");
        }
        byte[] name = new byte[nameLength];
        read(channel, nameLength).get(name);
        String segment = new String(name, StandardCharsets.US_ASCII);
        if (!SEGMENT.matcher(segment).matches()) {
            throw new IOException("bad segment name " + segment);
        }
        return new ShmHello(new InetSocketAddress(InetAddress.getByAddress(address), port), segment);
    }

    private static ByteBuffer read(SocketChannel channel, int n) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
        while (b.hasRemaining()) {
            if (channel.read(b) < 0) {
                throw new IOException("hello cut short");
            }
        }
        return b.flip();
    }
}
