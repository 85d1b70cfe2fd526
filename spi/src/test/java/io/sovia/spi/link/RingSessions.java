package io.sovia.spi.link;

import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.engine.Session;

/**
 * A client and a server session over two fresh rings in this process, their handshake done; nobody is woken, so a
 * test drives both ends itself.
 */
record RingSessions(Session client, Session server) {
    static RingSessions connected(int ringCapacity) {
        FrameRing toServer = FrameRing.allocate(ringCapacity);
        FrameRing toClient = FrameRing.allocate(ringCapacity);
        Session client = new Session(new RingLink(toClient, toServer, () -> { }, () -> { }), SoviaConfig.session(),
                System::nanoTime);
        Session server = new Session(new RingLink(toServer, toClient, () -> { }, () -> { }), SoviaConfig.session(),
                System::nanoTime);
        client.connect();
        server.listen();
        server.poll();
        client.poll();
        return new RingSessions(client, server);
    }
}
