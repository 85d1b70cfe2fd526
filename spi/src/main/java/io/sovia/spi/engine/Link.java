package io.sovia.spi.engine;

import java.nio.ByteBuffer;
import java.nio.channels.SelectableChannel;

/**
 * One end of a frame pipe between two sessions: the only thing a transport implements for the engine.
 *
 * <p>Threading: a link is used by one thread at a time, the one holding its session's lock, except
 * {@link #wakePeer()}, {@link #nudge()}, {@link #arm(int)} and {@link #isPeerAlive()}, which any thread
 * may call. Frames are delivered whole or not at all. A {@linkplain #isReliable() reliable} link also delivers every frame
 * exactly once and in order; an unreliable one may lose, duplicate or reorder them and the engine repairs
 * that.
 *
 * <p>Waking: a sleeping end {@linkplain #arm(int) arms} its doorbell, re-checks for frames, then
 * sleeps; a sender {@linkplain #wakePeer() wakes it} after committing frames, which costs something only when
 * the other end armed (SCILAN's interrupt flag).
 */
public interface Link {
    /** The largest frame, header included, {@link #claim(int)} accepts. */
    int maxFrameLength();

    /** Whether frames arrive exactly once and in order. */
    boolean isReliable();

    /**
     * The bytes of frames this link itself holds on their way to this end until they are read (a ring), or 0: a
     * receiver's window smaller than that would leave the ring part empty, so the session advertises at least this
     * much unless the app set SO_RCVBUF.
     */
    default int inboundCapacity() {
        return 0;
    }

    /**
     * Reserves room for a frame of exactly {@code length} bytes in {@link #sendBuffer()}.
     *
     * @return the frame's offset in the send buffer, or -1 when the link is full for now
     */
    int claim(int length);

    /** The buffer that claimed offsets point into; a claim may replace it, so ask again after each. */
    ByteBuffer sendBuffer();

    /** Publishes the frame claimed at {@code offset}. */
    void commit(int offset);

    /**
     * Gives up the frame claimed at {@code offset} unpublished: the peer never sees it and the next claim may take
     * its room. For a frame whose bytes could not all be had (a file that ended early).
     */
    void abandon(int offset);

    /**
     * Hands up to {@code limit} received frames to {@code handler}, each valid only during the call.
     *
     * @return the number of frames handled
     */
    int poll(FrameHandler handler, int limit);

    /**
     * Reliable links: whether the peer has taken every frame this end committed. A small write then has
     * nothing to be combined behind (Nagle's "all acknowledged", read from the link, so a reliable link
     * needs no ACK frames for it). Unreliable links may answer anything: the engine asks their
     * acknowledgements instead.
     */
    boolean peerCaughtUp();

    /** Whether a frame is waiting to be polled; cheap, for readiness checks. */
    boolean hasFrames();

    /** {@link #arm(int)}: wake this end through its {@link #doorbell()}, or however the link wakes it without one. */
    int ARM_DOORBELL = 1;
    /** {@link #arm(int)}: change and wake {@link #wakeWord()}. */
    int ARM_WORD = 2;

    /**
     * Asks the peer to wake this end in the ways of {@code how} ({@link #ARM_DOORBELL}, {@link #ARM_WORD}, both), or
     * stops asking (0). A link without a {@link #wakeWord()} wakes this end its own way for any of them.
     */
    void arm(int how);

    /** Wakes the peer if it armed, taking its arming (it arms again before it sleeps again): call after committing frames. */
    void wakePeer();

    /** Sets what runs on this end when the peer wakes it through an armed doorbell. */
    void onWake(Runnable wake);

    /**
     * Whether {@link #send(ByteBuffer, int, int)} sends a frame from the caller's memory. An engine that keeps its
     * frames until acknowledged then writes each once, into its own store, and sends it from there, instead of
     * writing it into {@link #sendBuffer()} and copying it into the store. Links that copy anyway say no.
     */
    default boolean sendsInPlace() {
        return false;
    }

    /**
     * Sends the frame of {@code length} bytes at {@code offset} of {@code frames}, a direct buffer: the link reads
     * it there when it sends, at the latest in {@link #flush()}, so what the caller changes in it before then goes
     * out too. Only where {@link #sendsInPlace()}; the caller holds no claim.
     */
    default void send(ByteBuffer frames, int offset, int length) {
        throw new UnsupportedOperationException("this link sends only frames claimed in its own buffer");
    }

    /**
     * Sends what was committed and not sent yet: a link may hold committed frames to send them together. The session
     * calls it before it lets go of its lock, which every commit happens under.
     */
    default void flush() {
    }

    /**
     * Makes the peer poll its session although it did not arm: what a writer blocked on credit does, so
     * a reader that makes no further call still answers its window probe (a kernel would, on its own).
     * Costs a wake-up each time, so only for waits that outlast a timer. A link whose peer always polls
     * needs nothing here.
     */
    default void nudge() {
    }

    /**
     * This end's writer waits for window credit: a hint the peer's engine reads on its next read
     * ({@link #takeCreditWanted()}), to announce its window at once rather than at half its buffer, as a kernel
     * announces the room an app's read made. Links without shared state ignore it.
     */
    default void creditWanted() {
    }

    /** Whether the peer's writer waits for credit (see {@link #creditWanted()}), taking the hint. */
    default boolean takeCreditWanted() {
        return false;
    }

    /**
     * Whether the peer's writer waits for credit now, leaving the hint for {@link #takeCreditWanted()}; ordered after
     * this end's frames committed before (a writer that asks later sees them). Links that cannot tell say yes.
     */
    default boolean peerWaitsForCredit() {
        return true;
    }

    /** Sets what runs on this end when the peer {@linkplain #nudge() nudges}; it must not block. */
    default void onNudge(Runnable poll) {
    }

    /**
     * A non-blocking kernel channel that turns readable when the peer rings this end, so a selector can
     * sleep in epoll on it beside its other channels (DESIGN section 3); null when there is none (the
     * jvm link wakes threads directly) or the peer is gone. Whoever finds it readable calls
     * {@link #doorbellReadable()}.
     */
    default SelectableChannel doorbell() {
        return null;
    }

    /**
     * The address of a 32-bit word in memory shared with the peer, which the peer changes and wakes as a futex when
     * this end {@linkplain #arm(int) armed} {@link #ARM_WORD}: a platform thread that waits for this link alone sleeps
     * there, one system call to sleep and one to wake it, against a poll, a read of the doorbell and a write to it.
     * 0 when there is none (only selectors could then sleep in the kernel, on {@link #doorbell()}).
     */
    default long wakeWord() {
        return 0;
    }

    /**
     * A descriptor shared by every end of this link's transport in this JVM that turns readable when frames wait for
     * any of them, given to one platform thread at a time to sleep on ({@code poll}) while it waits for this link, so
     * that the kernel wakes it directly instead of waking the transport's receiving thread, which then wakes it: one
     * wake-up instead of two, ~60 us each across cores here. While a thread has it, that thread takes the frames for
     * every end whenever it wakes ({@link #doorbellReadable()}), waking their sleepers, so the receiving thread need
     * not watch. -1 when there is none, or another thread has it; whoever got it gives it back with
     * {@link #releaseReceiveFd()} before it returns from its wait.
     */
    default int claimReceiveFd() {
        return -1;
    }

    /** Gives back the descriptor {@link #claimReceiveFd()} gave the calling thread. */
    default void releaseReceiveFd() {
    }

    /** A sleeper on {@link #wakeWord()} woke: answers what the peer asked meanwhile on a doorbell nobody reads. */
    default void wakeWordChanged() {
    }

    /**
     * Whether sleepers that do not watch {@link #doorbell()} themselves (a parked thread, a callback) are registered
     * and no selector that does: the transport's doorbell thread then has to take the rings for them, and otherwise
     * need not wake for them. Called with the session's waiters locked.
     */
    default void blindSleepers(boolean any) {
    }

    /**
     * Takes what was rung on {@link #doorbell()} (or what made {@link #claimReceiveFd()}'s descriptor readable) and
     * wakes this end's sleepers, as the ring would.
     * Returns false when the doorbell reached its end: the peer is gone ({@link #isPeerAlive()} false
     * from now on), and the caller stops watching it.
     */
    default boolean doorbellReadable() {
        return true;
    }

    /**
     * False once the peer is known to be gone (closed its end, or its process died). Every frame the
     * peer sent is visible to {@link #hasFrames()} once this has returned false, never before.
     */
    boolean isPeerAlive();

    /**
     * Counts in {@link EngineCounters} why the peer is gone without its FIN, once {@link #isPeerAlive()} is false:
     * for the stats, so that a reset nobody expected says whether the peer's process went or its link did.
     */
    default void countPeerLoss() {
        EngineCounters.PEERS_HUNG_UP.increment();
    }

    /** Releases this end; the peer sees {@link #isPeerAlive()} false. Idempotent. */
    void close();
}
