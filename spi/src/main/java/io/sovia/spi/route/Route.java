package io.sovia.spi.route;

import java.util.Objects;

/**
 * The Router's decision for one connect: the path and, when it is TCP, why no faster path was taken.
 *
 * @param path   the path chosen
 * @param reason for {@link Path#TCP}, the fallback reason as it appears in the stats file; null otherwise
 */
public record Route(Path path, String reason) {
    public Route {
        Objects.requireNonNull(path, "path");
    }
}
