package io.sovia.spi.engine;

import java.util.concurrent.atomic.LongAdder;

/**
 * Process-wide engine counters. The data path counts anomalies here instead of throwing; they appear in
 * the stats file under {@code "engine"}.
 */
public final class EngineCounters {
    /** Sequenced frames sent again after a timeout. */
    public static final LongAdder RETRANSMITS = new LongAdder();
    /** Frames dropped because they were duplicates or out of order. */
    public static final LongAdder OUT_OF_ORDER = new LongAdder();
    /** Frames dropped because they carried the wrong connection token. */
    public static final LongAdder BAD_TOKENS = new LongAdder();
    /** Frames dropped as malformed or breaking the protocol (e.g. data beyond the window). */
    public static final LongAdder PROTOCOL_ERRORS = new LongAdder();
    /** Connections reset by either end or declared dead. */
    public static final LongAdder RESETS = new LongAdder();
    /**
     * Connections reset because their peer went without a FIN: its process went away (on shm, the end of its doorbell
     * socket; on eth, its beats stopped and the probe found nobody).
     */
    public static final LongAdder PEERS_HUNG_UP = new LongAdder();
    /** Connections reset because their peer let go of its link (its rings closed) without a FIN. */
    public static final LongAdder PEERS_RELEASED = new LongAdder();
    /** Connections whose peer went after its FIN while this end's written bytes were still unsent: dropped. */
    public static final LongAdder UNSENT_DROPPED = new LongAdder();
    /** Doorbells rung: the peer had armed and was woken (on shm, one byte on the UNIX socket). */
    public static final LongAdder DOORBELLS = new LongAdder();
    /** Times a waiting thread spun through its budget and went to sleep until rung. */
    public static final LongAdder SLEEPS = new LongAdder();
    /** Of the {@link #SLEEPS}, those on a link's wake word (a futex in an shm ring) rather than a doorbell or a park. */
    public static final LongAdder WORD_SLEEPS = new LongAdder();
    /** Of the {@link #SLEEPS}, those on the transport's shared receive descriptor ({@link Link#claimReceiveFd()}). */
    public static final LongAdder RECEIVE_FD_SLEEPS = new LongAdder();
    /** Spins ended because a yield ran another thread for long: the core was not free. */
    public static final LongAdder CONTENDED_SPINS = new LongAdder();
    /** Waits that slept without spinning because cores were busy ({@link FreeCores}). */
    public static final LongAdder SPINS_SKIPPED = new LongAdder();

    /**
     * Liveness probes of peer JVMs gone silent on the eth path (a TCP connect to the port the peer named): each is a
     * peer whose beats did not come for {@code sovia.eth.dead.millis}, paused or gone.
     */
    public static final LongAdder PROBES = new LongAdder();

    /** Times a thread that handed the service agent a timer or a close unparked it (its own timers do not count). */
    public static final LongAdder SERVICE_WAKEUPS = new LongAdder();

    private EngineCounters() {
    }

    /** The counters as a JSON object. */
    public static String toJson() {
        return "{\"retransmits\": " + RETRANSMITS.sum() + ", \"outOfOrder\": " + OUT_OF_ORDER.sum()
                + ", \"badTokens\": " + BAD_TOKENS.sum() + ", \"protocolErrors\": " + PROTOCOL_ERRORS.sum()
                + ", \"resets\": " + RESETS.sum() + ", \"peersHungUp\": " + PEERS_HUNG_UP.sum()
                + ", \"peersReleased\": " + PEERS_RELEASED.sum() + ", \"unsentDropped\": " + UNSENT_DROPPED.sum()
                + ", \"doorbells\": " + DOORBELLS.sum()
                + ", \"sleeps\": " + SLEEPS.sum() + ", \"wordSleeps\": " + WORD_SLEEPS.sum()
                + ", \"receiveFdSleeps\": " + RECEIVE_FD_SLEEPS.sum()
                + ", \"contendedSpins\": " + CONTENDED_SPINS.sum()
                + ", \"spinsSkipped\": " + SPINS_SKIPPED.sum() + ", \"serviceWakeups\": " + SERVICE_WAKEUPS.sum()
                + ", \"probes\": " + PROBES.sum()
                + "}";
    }
}
