package io.sovia.spi.net;

import io.sovia.spi.backend.SessionBackend;

import java.lang.ref.Cleaner;

/**
 * Closes the session of a java.net socket the app dropped without closing, as the JDK's
 * {@code NioSocketImpl} closes the descriptor of one through a Cleaner: the peer then reads what was
 * written and end of stream, and the link, its segment and its buffers are released. Channels get no
 * such cleaning, on the JDK either.
 */
final class DroppedSockets {
    /** Created on the first session socket; its daemon thread runs only cleaning actions, which cannot throw. */
    private static final Cleaner CLEANER = Cleaner.create(r -> {
        Thread t = new Thread(r, "sovia-cleaner");
        t.setDaemon(true);
        return t;
    });

    private DroppedSockets() {
    }

    /**
     * Closes {@code session} once {@code socket} is unreachable. The returned handle closes it at once
     * instead, for an explicit close; either way it is closed once.
     */
    static Cleaner.Cleanable watch(Object socket, SessionBackend session) {
        return CLEANER.register(socket, session::close);
    }
}
