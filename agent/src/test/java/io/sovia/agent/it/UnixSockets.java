package io.sovia.agent.it;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/** A bound UNIX-domain server channel in a private temporary directory, removed again on close. */
final class UnixSockets implements AutoCloseable {

    private final Path directory;
    private final ServerSocketChannel server;

    UnixSockets() throws IOException {
        // Socket paths are limited to ~100 bytes, so keep them short, under the system temp directory.
        directory = Files.createTempDirectory("sovia");
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            server.bind(UnixDomainSocketAddress.of(directory.resolve("s")));
        } catch (IOException | RuntimeException e) {
            Io.closeAll(e, server);
            Files.deleteIfExists(directory);
            throw e;
        }
    }

    /** The listening channel, blocking until a caller changes that. */
    ServerSocketChannel server() {
        return server;
    }

    /** Where clients connect. */
    UnixDomainSocketAddress address() {
        return UnixDomainSocketAddress.of(directory.resolve("s"));
    }

    @Override
    public void close() throws IOException {
        try {
            server.close();
        } finally {
            Files.deleteIfExists(directory.resolve("s"));
            Files.deleteIfExists(directory);
        }
    }
}
