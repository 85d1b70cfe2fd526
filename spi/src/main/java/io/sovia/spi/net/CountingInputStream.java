package io.sovia.spi.net;

import io.sovia.spi.transport.PathKind;
import io.sovia.spi.stats.SoviaStats;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/** Counts bytes read from a java.net socket on TCP into the per-path stats (a session counts its own). */
final class CountingInputStream extends FilterInputStream {
    CountingInputStream(InputStream in) {
        super(in);
    }

    @Override
    public int read() throws IOException {
        int b = in.read();
        if (b >= 0) {
            SoviaStats.received(PathKind.TCP, 1);
        }
        return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        int n = in.read(b, off, len);
        SoviaStats.received(PathKind.TCP, n);
        return n;
    }
}
