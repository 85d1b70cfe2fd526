package io.sovia.spi.route;

import io.sovia.spi.transport.PathKind;
import io.sovia.spi.transport.Transport;

import java.util.Objects;

/**
 * The Router's decision for one connect.
 *
 * @param path      the path chosen
 * @param reason    for {@link PathKind#TCP}, the fallback reason as it appears in the stats file; else null
 * @param transport the transport of an accelerated path; null for TCP
 */
public record Route(PathKind path, String reason, Transport transport) {
    public Route {
        Objects.requireNonNull(path, "path");
    }

    /** The TCP route for {@code reason}. */
    public static Route tcp(String reason) {
        return new Route(PathKind.TCP, reason, null);
    }
}
