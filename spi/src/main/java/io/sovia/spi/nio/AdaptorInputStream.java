package io.sovia.spi.nio;

import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;

/** The input stream of a {@link SocketAdaptor}: blocking reads that honour the adaptor's SO_TIMEOUT. */
final class AdaptorInputStream extends InputStream {
    private final SoviaSocketChannel channel;
    private final SocketAdaptor socket;

    AdaptorInputStream(SoviaSocketChannel channel, SocketAdaptor socket) {
        this.channel = channel;
        this.socket = socket;
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
        return channel.read(b, off, len, socket.timeout());
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
