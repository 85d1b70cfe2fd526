package io.sovia.spi.nio;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.IllegalBlockingModeException;
import java.util.Objects;

/**
 * The output stream of a {@link SocketAdaptor}, and of {@code Channels.newOutputStream} over a Sovia channel
 * ({@link ChannelStreams}): writes everything, blocking, or throws.
 */
final class AdaptorOutputStream extends OutputStream {
    private final SoviaSocketChannel channel;

    AdaptorOutputStream(SoviaSocketChannel channel) {
        this.channel = channel;
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        if (!channel.isBlocking()) {
            throw new IllegalBlockingModeException();
        }
        ByteBuffer src = ByteBuffer.wrap(b, off, len);
        while (src.hasRemaining()) {
            channel.write(src);
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
