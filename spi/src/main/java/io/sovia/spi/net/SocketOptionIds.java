package io.sovia.spi.net;

import java.net.SocketOption;
import java.net.SocketOptions;
import java.net.StandardSocketOptions;

/** Maps the legacy integer option ids of {@link SocketOptions} onto {@link SocketOption}s. */
final class SocketOptionIds {
    private SocketOptionIds() {
    }

    /** The SocketOption for {@code id}, or null for ids handled elsewhere (SO_TIMEOUT, SO_BINDADDR). */
    static SocketOption<?> option(int id) {
        switch (id) {
            case SocketOptions.TCP_NODELAY: return StandardSocketOptions.TCP_NODELAY;
            case SocketOptions.SO_REUSEADDR: return StandardSocketOptions.SO_REUSEADDR;
            case SocketOptions.SO_REUSEPORT: return StandardSocketOptions.SO_REUSEPORT;
            case SocketOptions.SO_LINGER: return StandardSocketOptions.SO_LINGER;
            case SocketOptions.SO_SNDBUF: return StandardSocketOptions.SO_SNDBUF;
            case SocketOptions.SO_RCVBUF: return StandardSocketOptions.SO_RCVBUF;
            case SocketOptions.SO_KEEPALIVE: return StandardSocketOptions.SO_KEEPALIVE;
            case SocketOptions.IP_TOS: return StandardSocketOptions.IP_TOS;
            default: return null;
        }
    }

    /** A legacy value for the option: SO_LINGER off is {@code Boolean.FALSE} there, -1 in SocketOption. */
    static Object toOption(int id, Object value) {
        if (id == SocketOptions.SO_LINGER) {
            return value instanceof Integer ? value : Integer.valueOf(-1);
        }
        return value;
    }

    /** The legacy form of an option value read back. */
    static Object fromOption(int id, Object value) {
        if (id == SocketOptions.SO_LINGER && value instanceof Integer && (Integer) value < 0) {
            return Boolean.FALSE;
        }
        return value;
    }
}
