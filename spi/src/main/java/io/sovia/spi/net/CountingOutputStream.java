package io.sovia.spi.net;

import io.sovia.spi.transport.PathKind;
import io.sovia.spi.stats.SoviaStats;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Counts bytes written to a java.net socket on TCP into the per-path stats (a session counts its own), without
 * FilterOutputStream's byte loop.
 */
final class CountingOutputStream extends FilterOutputStream {
    CountingOutputStream(OutputStream out) {
        super(out);
    }

    @Override
    public void write(int b) throws IOException {
        out.write(b);
        SoviaStats.sent(PathKind.TCP, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len);
        SoviaStats.sent(PathKind.TCP, len);
    }
}
