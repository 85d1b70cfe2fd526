package io.sovia.spi.net;

import io.sovia.spi.backend.SocketBackend;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/** java.net streams over a session backend, with java.net's exceptions ("Socket closed") and SO_TIMEOUT. */
final class SessionStreams {
    private SessionStreams() {
    }

    /** {@code closed}: whether the socket was closed, which a session outlives while it hands over data. */
    static InputStream input(SocketBackend backend, IntSupplier timeout, BooleanSupplier closed) {
        return new InputStream() {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) > 0 ? one[0] & 0xff : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                Objects.checkFromIndexSize(off, len, b.length);
                if (len == 0) {
                    return 0;
                }
                try {
                    return backend.read(b, off, len, timeout.getAsInt());
                } catch (ClosedChannelException e) {
                    throw new SocketException("Socket closed");
                }
            }

            @Override
            public int available() throws IOException {
                if (closed.getAsBoolean()) {
                    throw new SocketException("Socket closed");
                }
                return backend.available();
            }
        };
    }

    static OutputStream output(SocketBackend backend) {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                Objects.checkFromIndexSize(off, len, b.length);
                try {
                    backend.write(ByteBuffer.wrap(b, off, len));
                } catch (ClosedChannelException e) {
                    throw new SocketException("Socket closed");
                }
            }
        };
    }
}
