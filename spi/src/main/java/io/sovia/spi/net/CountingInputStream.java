package io.sovia.spi.net;

import io.sovia.spi.transport.PathKind;
import io.sovia.spi.stats.SoviaStats;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/** Counts bytes read from a java.net socket into the per-path stats. */
final class CountingInputStream extends FilterInputStream {
    private final PathKind path;

    CountingInputStream(InputStream in, PathKind path) {
        super(in);
        this.path = path;
    }

    @Override
    public int read() throws IOException {
        int b = in.read();
        if (b >= 0) {
            SoviaStats.received(path, 1);
        }
        return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        int n = in.read(b, off, len);
        SoviaStats.received(path, n);
        return n;
    }
}
