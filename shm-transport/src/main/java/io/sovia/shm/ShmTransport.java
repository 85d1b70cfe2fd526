package io.sovia.shm;

import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.engine.Link;
import io.sovia.spi.lifecycle.ExitStage;
import io.sovia.spi.lifecycle.Lifecycle;
import io.sovia.spi.link.FrameRingDescriptor;
import io.sovia.spi.link.RingLink;
import io.sovia.spi.jdk.JdkNio;
import io.sovia.spi.os.NativeAccess;
import io.sovia.spi.transport.LocalAddresses;
import io.sovia.spi.transport.PathKind;
import io.sovia.spi.transport.Transport;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;

/**
 * The shm path: both ends on this host under the agent, the engine over rings in a shared segment
 * (DESIGN section 4). Found by ServiceLoader.
 *
 * <p>A connect to an address a local Sovia listener owns (its UNIX socket is in this user's
 * directory) creates the segment, connects that socket, sends a {@link ShmHello} and then makes the
 * usual TCP setup; the accept that takes the TCP connection claims it ({@link ShmListener}). The UNIX
 * socket then rings doorbells and tells each side when the other process dies. Once both ends closed, both keep
 * the socket and segment for the client's next connect to that listener ({@link ShmChannelPool}), which then only
 * sends its hello on it.
 */
public final class ShmTransport implements Transport {

    private final ShmDirectory directory;
    /** {@link SoviaConfig#SHM_SLEEP}, read once: an invalid value turns the transport off, as the log then says. */
    private final boolean sleepOnWords;

    /**
     * Called by ServiceLoader; clears what crashed processes of this user left behind, now and again
     * when this JVM exits (a survivor of a killed peer thus removes the peer's listener socket).
     */
    public ShmTransport() throws IOException {
        this.sleepOnWords = SoviaConfig.shmSleepsOnWords();
        this.directory = new ShmDirectory(java.nio.file.Path.of(SoviaConfig.shmRoot()));
        directory.removeLeftovers();
        Lifecycle.onExit(ExitStage.CLOSE, this::exit);
    }

    /**
     * The JVM exits, its connections handed over: listeners the app left open close, then whatever
     * dead processes left. A segment offered to a server that has not accepted yet travels in its listener's
     * queue as a descriptor, so that server may still accept after this client exited, as with TCP.
     */
    private void exit() {
        ShmListener.closeAll();
        ShmChannelPool.KEPT.closeAll();
        directory.removeLeftovers();
    }

    @Override
    public PathKind path() {
        return PathKind.SHM;
    }

    @Override
    public boolean reaches(InetSocketAddress remote) {
        return LocalAddresses.isLocal(remote.getAddress()) && directory.listenerFor(remote) != null
                && NativeAccess.available();
    }

    @Override
    public Offer offer(InetSocketAddress local, InetSocketAddress remote) throws IOException {
        ShmDirectory.ListenerSocket listener = directory.listenerFor(remote);
        if (listener == null) {
            throw new Declined("no shm listener for " + remote);
        }
        java.nio.file.Path socket = listener.path();
        ShmChannelPool.Kept kept;
        while ((kept = ShmChannelPool.KEPT.take(listener)) != null) {
            if (new ShmHello(local, true).writeTo(kept.unix())) {
                return offer(kept.unix(), kept.registration(), kept.segment(), listener);
            }
            ShmChannelPool.close(kept);
        }
        SocketChannel unix = JdkNio.provider().openSocketChannel(StandardProtocolFamily.UNIX);
        try {
            unix.configureBlocking(false);
            try {
                if (!unix.connect(UnixDomainSocketAddress.of(socket))) {
                    throw new Declined("the listener's queue is full"); // it accepts nothing: never wait for it
                }
            } catch (java.net.ConnectException refused) {
                // the listener died without removing its socket: remove it, and this connect uses TCP
                Files.deleteIfExists(socket);
                throw new Declined("the listener is gone");
            } catch (Declined declined) {
                throw declined;
            } catch (IOException busy) {
                // a full queue or a passing error: the listener may well be alive, so leave its socket
                throw new Declined("the listener's socket is busy: " + busy.getMessage());
            }
            ShmSegment segment = ShmSegment.create(
                    FrameRingDescriptor.configuredCapacity(SoviaConfig.SHM_RING, SoviaConfig.shmRingCapacity()));
            try {
                if (!new ShmHello(local, false).writeTo(unix, segment)) {
                    throw new Declined("the listener's socket would not take the hello");
                }
            } finally {
                // once sent, the descriptor travels with the hello: this one is not needed either way
                segment.close();
            }
            return offer(unix, null, segment, listener);
        } catch (IOException | RuntimeException e) {
            closeQuietly(unix);
            throw e;
        }
    }

    /** An offer over {@code unix}, with its registration if it carried a connection before (else null). */
    private ShmOffer offer(SocketChannel unix, ShmDoorbells.Registration registration, ShmSegment segment,
            ShmDirectory.ListenerSocket listener) throws IOException {
        return new ShmOffer(unix, registration, segment,
                link(segment.serverToClient(), segment.clientToServer(), unix, sleepOnWords), listener);
    }

    @Override
    public TransportListener listen(InetSocketAddress bound) throws IOException {
        // without the native calls no segment can be taken: offering none, local clients use TCP
        return NativeAccess.available() ? ShmListener.open(directory, bound, sleepOnWords) : null;
    }

    /**
     * A link over two rings of a segment, whose doorbell is a byte on {@code unix}; its blocked threads sleep on its
     * wake word if {@code sleepOnWords}.
     */
    static RingLink link(io.sovia.spi.link.FrameRing in, io.sovia.spi.link.FrameRing out, SocketChannel unix,
            boolean sleepOnWords) throws IOException {
        return new RingLink(in, out, () -> send(unix, RingLink.WAKE), () -> send(unix, RingLink.NUDGE), unix,
                NativeAccess.os(), sleepOnWords);
    }

    private static void send(SocketChannel unix, byte doorbellByte) {
        try {
            unix.write(ByteBuffer.wrap(new byte[] {doorbellByte}));
        } catch (IOException gone) {
            // the peer is gone; the doorbell thread reports it
        }
    }

    static void closeQuietly(SocketChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // nothing more to release
            }
        }
    }

    static void deleteQuietly(java.nio.file.Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // the next start of a Sovia JVM removes it
        }
    }

    /** A connect between its hello and the end of its TCP setup. */
    private static final class ShmOffer implements Offer {
        private final SocketChannel unix;
        /** The kept socket's registration with the doorbell agent; null for a new socket. */
        private final ShmDoorbells.Registration registration;
        private final ShmSegment segment;
        private final RingLink link;
        private final ShmDirectory.ListenerSocket listener;

        ShmOffer(SocketChannel unix, ShmDoorbells.Registration registration, ShmSegment segment, RingLink link,
                ShmDirectory.ListenerSocket listener) {
            this.unix = unix;
            this.registration = registration;
            this.segment = segment;
            this.link = link;
            this.listener = listener;
        }

        @Override
        public Link link() {
            return link;
        }

        @Override
        public AutoCloseable established() throws IOException {
            // a killed server cannot remove its listener's socket; the client that saw it die does
            return ShmDoorbells.get().watch(unix, registration, link, segment, () -> {
                if (!ShmDirectory.accepting(listener.path())) {
                    deleteQuietly(listener.path());
                }
            }, (channel, kept, keptSegment) -> ShmChannelPool.KEPT.give(listener, channel, kept, keptSegment));
        }

        @Override
        public void cancel() {
            link.close();
            if (registration != null) {
                registration.release();
            }
            closeQuietly(unix);
            segment.release(false);
        }
    }
}
