package io.sovia.spi.nio;

import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;
import java.util.function.IntSupplier;

/**
 * The input stream of a {@link SocketAdaptor} (blocking reads that honour the adaptor's SO_TIMEOUT), and of
 * {@code Channels.newInputStream} over a Sovia channel ({@link ChannelStreams}: no timeout).
 */
final class AdaptorInputStream extends InputStream {
    private final SoviaSocketChannel channel;
    /** SO_TIMEOUT in milliseconds at each read; 0: none. */
    private final IntSupplier timeout;

    AdaptorInputStream(SoviaSocketChannel channel, IntSupplier timeout) {
        this.channel = channel;
        this.timeout = timeout;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n > 0 ? one[0] & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        return channel.read(b, off, len, timeout.getAsInt());
    }

    @Override
    public int available() throws IOException {
        return channel.available();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
