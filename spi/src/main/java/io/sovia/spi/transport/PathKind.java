package io.sovia.spi.transport;

import java.util.Locale;

/** The ways a connection can be carried, fastest first. */
public enum PathKind {
    /** Both ends in this JVM: memory hand-off. */
    JVM,
    /** Both ends on this host under the agent: shared-memory rings. */
    SHM,
    /** A cluster host under the agent: Sovia's protocol in raw Ethernet frames. */
    ETH,
    /** Anyone else: the JDK's own TCP. */
    TCP;

    /** The name used in the stats file. */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }
}
