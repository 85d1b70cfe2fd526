package io.sovia.spi.backend;

import io.sovia.spi.config.BufferSizes;
import io.sovia.spi.config.SessionConfig;
import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.engine.Link;
import io.sovia.spi.engine.Session;
import io.sovia.spi.transport.PathKind;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.function.LongSupplier;

/**
 * The one place where the engine is built above a transport's {@link Link}, whatever the transport:
 * the client's and the server's {@link Session} and the {@link SessionBackend} a socket runs on.
 */
public final class Sessions {
    /**
     * One clock object for every session: each {@code System::nanoTime} written out is a class of its own, and
     * engine code that met two of them (a JVM that both connects and accepts) was compiled again for each.
     */
    private static final LongSupplier CLOCK = System::nanoTime;

    private Sessions() {
    }

    /**
     * The client's session on an offered link: its SYN, and early data after it, go into the link at
     * once, to be taken when the server claims the link.
     *
     * @throws IllegalArgumentException when the {@code sovia.*} engine settings are invalid
     */
    public static Session client(Link link, BufferSizes sizes) {
        Session session = new Session(link, config(link, sizes), CLOCK);
        session.connect();
        return session;
    }

    /** The server's session on a claimed link: answers the client's SYN, which is already there. */
    public static Session server(Link link, BufferSizes sizes) {
        Session session = new Session(link, config(link, sizes), CLOCK);
        session.listen();
        session.poll();
        return session;
    }

    /**
     * The engine's settings with the buffers the app set, else a window of at least what the link holds on its way
     * here: on shm the ring (4 MiB) bounds what is in flight, and a window of 1 MiB left three quarters of it unused,
     * a writer and a reader on one core taking turns four times as often (64 KiB writes at 2.5x TCP's rate, 4.8x with
     * the window at the ring's size).
     */
    private static SessionConfig config(Link link, BufferSizes sizes) {
        SessionConfig config = SoviaConfig.session();
        int inbound = link.inboundCapacity();
        if (inbound > config.receiveBuffer()) {
            config = config.withBuffers(inbound, config.sendBuffer());
        }
        return sizes.applyTo(config);
    }

    /**
     * The socket's side of a connected session.
     *
     * @param lifetime      what lives as long as the connection (the TCP setup socket, the transport's
     *                      handle), closed after the link
     * @param options       the setup socket's options, which the session keeps
     * @param interruptible whether blocking calls end when the thread is interrupted (NIO channels)
     */
    public static SessionBackend backend(Session session, PathKind path, InetSocketAddress local,
                                         InetSocketAddress remote, AutoCloseable lifetime,
                                         SetupOptions options, boolean interruptible) throws IOException {
        return new SessionBackend(session, path, local, remote, lifetime, options, interruptible);
    }
}
