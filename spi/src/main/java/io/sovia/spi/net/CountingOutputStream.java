package io.sovia.spi.net;

import io.sovia.spi.transport.PathKind;
import io.sovia.spi.stats.SoviaStats;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/** Counts bytes written to a java.net socket into the per-path stats, without FilterOutputStream's byte loop. */
final class CountingOutputStream extends FilterOutputStream {
    private final PathKind path;

    CountingOutputStream(OutputStream out, PathKind path) {
        super(out);
        this.path = path;
    }

    @Override
    public void write(int b) throws IOException {
        out.write(b);
        SoviaStats.sent(path, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len);
        SoviaStats.sent(path, len);
    }
}
