package io.sovia.spi.ops;

/**
 * One line of a JVM's live entry: a listener or a connection on an accelerated path.
 *
 * @param pid         the JVM's process id
 * @param listener    a listener (its {@code remote} is {@code -}, its counters 0) rather than a connection
 * @param path        the path key ({@code shm}); for a listener every path it takes, comma-separated
 * @param local       local address, {@code host:port} ({@code [v6]:port})
 * @param remote      remote address, or {@code -}
 * @param state       {@code listen}, or the connection's state (see {@code SessionActivity})
 * @param sent        bytes sent
 * @param received    bytes read by the app
 * @param sendQueue   bytes written that wait for the peer's window
 * @param recvQueue   bytes arrived and not yet read
 * @param sinceMillis when it began, epoch milliseconds
 */
public record LiveEntry(long pid, boolean listener, String path, String local, String remote, String state,
                        long sent, long received, long sendQueue, long recvQueue, long sinceMillis) {
}
