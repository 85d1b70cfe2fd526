package io.sovia.eth;

/**
 * Another JVM this one has links with, known by its interface's MAC and its random instance id: a JVM that restarts
 * is a new peer. Beats keep it alive; one silent for {@code sovia.eth.dead.millis} is probed ({@link EthLiveness})
 * and, when the probe says so, dead, and so are its links.
 */
final class EthPeer {
    final long mac;
    final int instance;
    /** When a frame of this peer's last reached the receiver; written by the receiver thread. */
    volatile long lastHeardNanos;
    /** The TCP port its JVM answers probes on, from its last control frame; 0 for none. The receiver thread's. */
    int livenessPort;
    /** Set once, by the receiver thread. */
    volatile boolean dead;
    /** Links of this JVM with this peer; guarded by the port's peer table. */
    int links;

    EthPeer(long mac, int instance, long now) {
        this.mac = mac;
        this.instance = instance;
        this.lastHeardNanos = now;
    }
}
