package io.sovia.shm;

import io.sovia.spi.jdk.JdkNio;
import io.sovia.spi.os.NativeAccess;

import java.io.IOException;
import java.nio.channels.SocketChannel;

/**
 * A {@link ShmHello} still arriving on a UNIX socket: its bytes and descriptor so far, collected without blocking.
 * Owned by the listener's lock.
 */
final class PartialHello {
    private final byte[] bytes = new byte[ShmHello.MAX_LENGTH];
    private final int[] received = new int[1];
    private final long since = System.nanoTime();
    private int length;
    /** The descriptor that came with the bytes, or -1; whoever takes the hello closes it. */
    private int segment = -1;

    /**
     * Reads what is there, dropping doorbell bytes ahead of the hello; false at end of stream. Reads until the socket
     * is empty or the buffer holds a whole hello: a kept socket may carry more doorbell bytes of its previous
     * connection than the buffer holds, and the rest of the hello behind them would otherwise wait for the next look,
     * after the accept of its TCP connection has passed it by.
     */
    boolean read(SocketChannel ch) throws IOException {
        int room;
        int n;
        do {
            room = bytes.length - length;
            n = NativeAccess.os().receiveWithDescriptors(JdkNio.fd(ch), bytes, length, room, received);
            if (received[0] >= 0) {
                if (segment >= 0) {
                    NativeAccess.os().closeFd(received[0]);
                    throw new IOException("a second descriptor");
                }
                segment = received[0];
            }
            length += Math.max(n, 0);
            skipDoorbellBytes();
        } while (n == room && length < bytes.length);
        return n >= 0;
    }

    private void skipDoorbellBytes() {
        int skip = 0;
        while (skip < length && ShmHello.isDoorbellByte(bytes[skip])) {
            skip++;
        }
        if (skip > 0) {
            System.arraycopy(bytes, skip, bytes, 0, length - skip);
            length -= skip;
        }
    }

    /** The hello, once complete; null before. */
    ShmHello hello() throws IOException {
        return ShmHello.parse(bytes, length);
    }

    boolean isEmpty() {
        return length == 0 && segment < 0;
    }

    /** The descriptor received, or -1. */
    int segment() {
        return segment;
    }

    long since() {
        return since;
    }
}
