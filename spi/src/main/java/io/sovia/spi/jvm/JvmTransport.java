package io.sovia.spi.jvm;

import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.engine.Link;
import io.sovia.spi.link.FrameRingDescriptor;
import io.sovia.spi.link.JvmLinks;
import io.sovia.spi.transport.PathKind;
import io.sovia.spi.transport.Transport;

import java.net.InetSocketAddress;

/** The jvm path: both ends in this JVM, a link of two rings in memory ({@link JvmRendezvous}). */
public final class JvmTransport implements Transport {
    /** Nothing but the link lives as long as a same-JVM connection. */
    private static final AutoCloseable NOTHING = () -> { };

    @Override
    public PathKind path() {
        return PathKind.JVM;
    }

    @Override
    public boolean reaches(InetSocketAddress remote) {
        return JvmRendezvous.hasListener(remote);
    }

    /** Creates the link pair and parks it for the accept; the client's SYN waits in its ring. */
    @Override
    public Offer offer(InetSocketAddress local, InetSocketAddress remote) {
        JvmLinks links = JvmLinks.pair(
                FrameRingDescriptor.configuredCapacity(SoviaConfig.JVM_RING, SoviaConfig.jvmRingCapacity()), remote);
        JvmRendezvous.offer(local, links);
        return new Offer() {
            @Override
            public Link link() {
                return links.client();
            }

            @Override
            public AutoCloseable established() {
                return NOTHING;
            }

            @Override
            public void cancel() {
                JvmRendezvous.withdraw(local, links);
                links.client().close();
            }
        };
    }

    @Override
    public TransportListener listen(InetSocketAddress bound) {
        JvmRendezvous.listening(bound);
        return new TransportListener() {
            @Override
            public Claimed claim(InetSocketAddress remote) {
                JvmLinks links = JvmRendezvous.claim(remote);
                return links == null ? null : new Claimed(links.server(), NOTHING);
            }

            @Override
            public void close() {
                JvmRendezvous.closed(bound);
            }
        };
    }
}
