package io.sovia.eth;

/**
 * Another JVM this one has links with, known by its interface's MAC and its random instance id: a JVM that restarts
 * is a new peer. Beats keep it alive; one silent for {@code sovia.eth.dead.millis} is dead, and so are its links.
 */
final class EthPeer {
    final long mac;
    final int instance;
    /** When a frame of this peer's last reached the receiver; written by the receiver thread. */
    volatile long lastHeardNanos;
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
