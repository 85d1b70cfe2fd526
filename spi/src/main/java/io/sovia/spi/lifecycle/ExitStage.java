package io.sovia.spi.lifecycle;

/**
 * The steps of Sovia's one exit sequence, in the order they run. The sequence starts once every
 * application shutdown hook has finished, so what an app writes from its own hook still goes out.
 */
public enum ExitStage {
    /** Open connections are closed as the kernel would close a dying process's sockets, and handed over. */
    FLUSH,
    /** Transports release what they own outside the process: listener sockets, spare segments. */
    CLOSE,
    /** The JVM-wide agents stop, last started first. */
    STOP,
    /** What Sovia did is reported (the stats file), now that no connection changes it. */
    REPORT
}
