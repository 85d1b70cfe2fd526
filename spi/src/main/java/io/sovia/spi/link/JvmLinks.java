package io.sovia.spi.link;

import java.net.InetSocketAddress;

/** The two ends of a same-JVM link: rings in process memory, waking by a direct call. */
public final class JvmLinks {
    private final RingLink client;
    private final RingLink server;
    private final InetSocketAddress serverAddress;

    private JvmLinks(int ringCapacity, InetSocketAddress serverAddress) {
        this.serverAddress = serverAddress;
        FrameRing toServer = FrameRing.allocate(ringCapacity);
        FrameRing toClient = FrameRing.allocate(ringCapacity);
        RingLink[] ends = new RingLink[2];
        ends[0] = new RingLink(toClient, toServer, () -> ends[1].wake(), () -> ends[1].nudged());
        ends[1] = new RingLink(toServer, toClient, () -> ends[0].wake(), () -> ends[0].nudged());
        this.client = ends[0];
        this.server = ends[1];
    }

    /** A connected pair with {@code ringCapacity} bytes per direction, for a connect to {@code serverAddress}. */
    public static JvmLinks pair(int ringCapacity, InetSocketAddress serverAddress) {
        return new JvmLinks(ringCapacity, serverAddress);
    }

    /** Where the client connected to. */
    public InetSocketAddress serverAddress() {
        return serverAddress;
    }

    public RingLink client() {
        return client;
    }

    public RingLink server() {
        return server;
    }
}
