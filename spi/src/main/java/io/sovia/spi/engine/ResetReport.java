package io.sovia.spi.engine;

import java.io.IOException;
import java.net.SocketException;

/**
 * How a connection's failure reaches the app's reads and writes. Most failures are reported for good. A peer's
 * reset is reported as Linux reports ECONNRESET: once, to whichever call comes first (the bytes that arrived before
 * it are read before it); reads then keep reporting it, as the JDK's sockets and channels remember it, but after a
 * write took it reads see end of stream; writes after it get "Broken pipe".
 *
 * <p>Guarded by the session's lock, like the {@link SessionMachine} that owns it.
 */
final class ResetReport {
    private boolean byPeer;
    private boolean reported;
    private boolean reportedByWrite;

    /** The failure about to be set is the peer's reset. */
    void peerReset() {
        byPeer = true;
    }

    /** A read found nothing more to read and the connection failed: end of stream, or {@code failure} thrown. */
    int onRead(IOException failure) throws IOException {
        if (byPeer) {
            if (reportedByWrite) {
                return -1;
            }
            reported = true;
        }
        throw failure;
    }

    /** A write on a failed connection: always throws, {@code failure} or "Broken pipe". */
    void onWrite(IOException failure) throws IOException {
        if (byPeer) {
            if (reported) {
                throw new SocketException("Broken pipe");
            }
            reported = true;
            reportedByWrite = true;
        }
        throw failure;
    }
}
