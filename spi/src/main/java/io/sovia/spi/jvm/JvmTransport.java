package io.sovia.spi.jvm;

import io.sovia.spi.backend.SessionBackend;
import io.sovia.spi.link.JvmLinks;
import io.sovia.spi.route.Path;
import io.sovia.spi.route.Transport;

import java.net.InetSocketAddress;
import java.net.SocketOption;
import java.util.Map;
import java.util.concurrent.Callable;

/** The jvm path: both ends in this JVM, the engine over rings in memory. */
public final class JvmTransport implements Transport {
    @Override
    public Path path() {
        return Path.JVM;
    }

    @Override
    public boolean reaches(InetSocketAddress remote) {
        return JvmRendezvous.hasListener(remote);
    }

    @Override
    public PendingConnect offer(InetSocketAddress local, InetSocketAddress remote) {
        return JvmConnect.offer(local, remote);
    }

    @Override
    public TransportListener listen(InetSocketAddress bound) {
        JvmRendezvous.listening(bound);
        return new TransportListener() {
            @Override
            public SessionBackend claim(InetSocketAddress remote, InetSocketAddress local,
                                        Callable<Map<SocketOption<?>, Object>> options, boolean interruptible)
                    throws Exception {
                JvmLinks links = JvmRendezvous.claim(remote);
                return links == null ? null : JvmConnect.accept(links, local, remote, options.call(), interruptible);
            }

            @Override
            public void close() {
                JvmRendezvous.closed(bound);
            }
        };
    }
}
