package io.sovia.spi.link;

import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.engine.EngineCounters;
import io.sovia.spi.engine.FrameHandler;
import io.sovia.spi.engine.Link;
import io.sovia.spi.os.NativeOs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SelectableChannel;

/**
 * A reliable link over two frame rings: this end produces into {@code out} and consumes {@code in}.
 * Shared by the jvm link (rings in process memory) and the shm link (rings in a shared segment); they
 * differ only in how the peer is woken, which is the {@code waker} (and the {@code nudger}), and in the shm link's
 * wake words: a futex in each ring's trailer, which a platform thread waiting for this link alone sleeps on
 * ({@link #wakeWord()}), one system call to sleep and one to wake it instead of a doorbell's three (poll, read, write).
 *
 * <p>Once closed, a link writes to neither ring and takes nothing from them: the shm path may hand both rings to
 * the next connection once both ends closed, so a late call of the old session (a timer, a sleeper arming) must not
 * reach them.
 */
public final class RingLink implements Link {
    /** {@link #peerCaughtUp()} reads the clock at each of a hold's first looks, then at fewer and fewer. */
    private static final int EXACT_LOOKS = 64;
    /** The doorbell byte that wakes a sleeping peer (a "ring" here is only ever a frame buffer). */
    public static final byte WAKE = 1;
    /** The doorbell byte of a {@linkplain #nudge() nudge}. */
    public static final byte NUDGE = 2;

    private final FrameRing in;
    private final FrameRing out;
    private final Runnable waker;
    /** Readable when rung (shm: the UNIX socket, non-blocking); null when waking needs no kernel channel. */
    private final SelectableChannel doorbell;
    /** Makes the peer poll although it did not arm. */
    private final Runnable nudger;
    /** Wakes the peer's wake word when it asks; null when there are none (the jvm link, no futex here). */
    private final NativeOs words;
    /** Whether this end's blocked threads sleep on its wake word. */
    private final boolean sleepsOnWord;
    /** Set once by the session before the link is shared. */
    private volatile Runnable wake = () -> { };
    private volatile Runnable nudged = () -> { };
    /** See {@link #blindSleepers(boolean)}; written under the session's waiters lock. */
    private volatile boolean blindSleepers;
    /** Told when {@link #blindSleepers} changes: whoever watches the doorbell for this link. */
    private volatile Runnable blindSleepersChanged = () -> { };
    private volatile boolean closed;
    /** Set by whoever watches the peer's process (shm: the UNIX socket's end of stream). */
    private volatile boolean peerDead;
    /** Set once the link's doorbell channel may carry another connection's bytes; under this. */
    private boolean doorbellDetached;
    /**
     * What {@link #drainDoorbell} reads into, made at its first call; guarded by this link's monitor. Direct: a heap
     * buffer made each time went through the JDK's temporary direct buffer on every drain.
     */
    private ByteBuffer drained;
    /** Whether the corrupt ring was logged; by the polling thread, under the session's lock. */
    private boolean corruptionReported;
    /**
     * The {@link System#nanoTime()} this end last woke its sleeping peer for frames, 0 once the peer sent a frame
     * since ({@link #peerCaughtUp()}): written by the ringing thread after it let go of the session's lock, and
     * by the polling thread under it.
     */
    private volatile long rangAt;
    /**
     * How long after a ring a peer that sent nothing back counts as not caught up: half the combining span, so that
     * a writer still writing frames what it held before the combining timer fires, and the service thread, which
     * frames it otherwise, wakes only for a writer that stopped (at the full span, 4,500 such wake-ups a second).
     */
    private final long holdNanos = SoviaConfig.nagleNanos() / 2;
    /**
     * The {@link #rangAt} whose hold {@link #holdLooks} counts the looks at, the look that reads the clock next, and
     * the ring whose hold has ended; by the session's lock holder.
     */
    private long lookedAt;
    private int holdLooks;
    private int clockLook;
    private long heldOut;

    /**
     * @param waker wakes the peer; called only when the peer armed its doorbell
     * @param nudger runs the peer's {@link #nudged()}
     */
    public RingLink(FrameRing in, FrameRing out, Runnable waker, Runnable nudger) {
        this(in, out, waker, nudger, null, null, false);
    }

    /**
     * @param waker   wakes the peer; called only when the peer armed its doorbell
     * @param nudger   makes the peer poll: runs its {@link #nudged()}, directly or through the doorbell
     * @param doorbell a non-blocking channel that the peer's waker makes readable, or null
     * @param words    the futex calls for the rings' wake words, which the peer's process must see too; or null.
     *                 A peer that sleeps on its word is woken there even where this end's threads sleep otherwise.
     * @param sleepOnWord whether this end's blocked threads sleep on its wake word (given {@code words})
     */
    public RingLink(FrameRing in, FrameRing out, Runnable waker, Runnable nudger, SelectableChannel doorbell,
            NativeOs words, boolean sleepOnWord) {
        if (doorbell != null && !(doorbell instanceof ReadableByteChannel)) {
            throw new IllegalArgumentException("a doorbell must be readable: " + doorbell);
        }
        this.in = in;
        this.out = out;
        this.waker = waker;
        this.nudger = nudger;
        this.doorbell = doorbell;
        this.words = words != null && words.hasFutex() ? words : null;
        this.sleepsOnWord = this.words != null && sleepOnWord;
    }

    @Override
    public int maxFrameLength() {
        return out.maxFrameLength();
    }

    @Override
    public int inboundCapacity() {
        return in.capacity();
    }

    @Override
    public boolean isReliable() {
        return true;
    }

    /** A closed link's rings may already carry the next connection (shm keeps them), so nothing goes in. */
    @Override
    public int claim(int length) {
        return closed ? -1 : out.claim(length);
    }

    @Override
    public ByteBuffer sendBuffer() {
        return out.buffer();
    }

    @Override
    public void commit(int offset) {
        out.commit();
    }

    @Override
    public void abandon(int offset) {
        out.abandon();
    }

    /** A closed link's rings may already carry the next connection (shm keeps them), so nothing comes out. */
    @Override
    public int poll(FrameHandler handler, int limit) {
        if (closed) {
            return 0;
        }
        int frames = in.poll(handler, limit);
        if (frames > 0 && rangAt != 0) {
            rangAt = 0;
        }
        if (frames > 0 && in.takeSpaceWanted()) {
            // the producer waits for room: as it armed, or on the doorbell if it did not (a writer between tries)
            int how = out.takeArmed();
            wake(how == 0 ? ARM_DOORBELL : how);
        }
        if (in.isCorrupt() && !corruptionReported) {
            corruptionReported = true;
            EngineCounters.PROTOCOL_ERRORS.increment();
            SoviaLog.warnCounted("corrupt-ring", "the peer of a " + (doorbell == null ? "jvm" : "shm")
                    + " connection wrote a malformed frame ring; the connection is reset", null);
        }
        return frames;
    }

    /**
     * Whether the peer took every frame, and, if this end had to wake it for them, it sent something back since or
     * half the combining span passed: a peer woken on this core runs at once, takes the frame and sleeps again, and
     * counting it caught up right away made a stream of small writes wake it every 4 KiB or so (40,000 times a
     * second, each preempting the writer; TCP's reader was woken 440 times a second for the same stream, its
     * sender combining into full segments while the receiver delays its ACK). A peer that answers (request and
     * response) counts as caught up as before.
     */
    @Override
    public boolean peerCaughtUp() {
        if (!out.isDrained()) {
            return false;
        }
        long rang = rangAt;
        if (rang == 0 || rang == heldOut) {
            return true;
        }
        if (rang != lookedAt) {
            lookedAt = rang;
            holdLooks = 0;
            clockLook = 0;
        }
        if (++holdLooks > EXACT_LOOKS && holdLooks < clockLook) {
            return false;
        }
        long held = Math.max(System.nanoTime() - rang, 0);
        if (held < holdNanos) {
            // past the first looks, the clock next about halfway to the hold's end at the pace of the looks so far, a
            // few reads more a hold: a writer of small pieces looks at every write, a thousand times a hold, and a clock
            // read at each was a fifth of its time. A writer that pauses past the first looks ends its hold late, at
            // the combining timer at worst
            long perLook = Math.max(held / holdLooks, 1);
            clockLook = holdLooks + 1 + (int) ((holdNanos - held) / perLook / 2);
            return false;
        }
        heldOut = rang;
        return true;
    }

    @Override
    public boolean hasFrames() {
        return in.hasFrames();
    }

    /** The bits of {@code how} are the ring's ({@link FrameRingDescriptor#ARMED_DOORBELL}, {@code ARMED_WORD}). */
    @Override
    public void arm(int how) {
        if (!closed) {
            in.armed(how);
        }
    }

    @Override
    public void wakePeer() {
        if (!closed) {
            int how = out.takeArmed();
            if (how != 0) {
                EngineCounters.DOORBELLS.increment();
                rangAt = System.nanoTime();
                wake(how);
            }
        }
    }

    /** Wakes the peer in the ways of {@code how}: its doorbell, its wake word. */
    private void wake(int how) {
        if ((how & ARM_DOORBELL) != 0) {
            waker.run();
        }
        if ((how & ARM_WORD) != 0 && words != null) {
            out.bumpWakeWord();
            words.futexWake(out.wakeWordAddress());
        }
    }

    @Override
    public long wakeWord() {
        return !sleepsOnWord || closed ? 0 : in.wakeWordAddress();
    }

    @Override
    public void wakeWordChanged() {
        pollIfWanted();
    }

    @Override
    public void blindSleepers(boolean any) {
        if (blindSleepers != any) {
            blindSleepers = any;
            blindSleepersChanged.run();
        }
    }

    /** Whether only sleepers that cannot watch {@link #doorbell()} themselves sleep on this end. */
    public boolean hasBlindSleepers() {
        return blindSleepers;
    }

    /** Sets what runs when {@link #hasBlindSleepers()} changes; set once, by whoever watches the doorbell. */
    public void onBlindSleepersChanged(Runnable changed) {
        this.blindSleepersChanged = changed;
    }

    @Override
    public void onWake(Runnable wake) {
        this.wake = wake;
    }

    /**
     * The request is also left in the ring, for a peer JVM where nobody reads the doorbell now: its doorbell
     * thread looks for requests now and then ({@link #pollIfWanted()}). A peer whose sleepers all sleep on its wake
     * word gets no doorbell byte, which none of them would read; that word wakes them.
     */
    @Override
    public void nudge() {
        if (closed) {
            return;
        }
        out.wantPoll();
        int how = words == null ? 0 : out.armedHow();
        if (how != ARM_WORD) {
            nudger.run();
        }
        wake(how & ARM_WORD);
    }

    @Override
    public void creditWanted() {
        if (!closed) {
            out.wantCredit();
        }
    }

    @Override
    public boolean takeCreditWanted() {
        return !closed && in.takeCreditWanted();
    }

    @Override
    public boolean peerWaitsForCredit() {
        return in.creditWanted();
    }

    @Override
    public void onNudge(Runnable poll) {
        this.nudged = poll;
    }

    /** What the peer's nudger calls: this end's session gets polled, and sleepers woken. */
    public void nudged() {
        if (!closed) {
            in.takePollWanted();
        }
        nudged.run();
        wake();
    }

    /** Answers a {@linkplain #nudge() nudge} whose doorbell byte nobody read; cheap when there is none. */
    public void pollIfWanted() {
        if (!closed && in.takePollWanted()) {
            nudged.run();
            wake();
        }
    }

    @Override
    public SelectableChannel doorbell() {
        return peerDead || closed ? null : doorbell;
    }

    /**
     * Takes the bytes rung on the doorbell, waking nobody: for whoever watches the doorbell channel
     * (the doorbell thread, a selector, a sleeping thread; any of them may take the same bytes, and
     * either waking this end is enough). A {@link #NUDGE} byte among them has the session polled.
     * Returns false once the doorbell has ended (the peer is gone).
     */
    public synchronized boolean drainDoorbell() {
        if (doorbellDetached) {
            return true;
        }
        if (drained == null) {
            drained = ByteBuffer.allocateDirect(64);
        }
        ByteBuffer bytes = drained;
        boolean nudge = false;
        try {
            int n;
            do {
                bytes.clear();
                n = ((ReadableByteChannel) doorbell).read(bytes);
                for (int i = 0; i < n && !nudge; i++) {
                    nudge = bytes.get(i) == NUDGE;
                }
            } while (n == bytes.capacity()); // a short read took all there was
            return n >= 0;
        } catch (IOException gone) {
            return false;
        } finally {
            if (nudge) {
                in.takePollWanted();
                nudged.run();
            }
        }
    }

    @Override
    public boolean doorbellReadable() {
        boolean open = drainDoorbell();
        if (!open) {
            // the end of the doorbell is the peer's end: every sleeper must see it now, not spin on a
            // readable end of stream until the doorbell thread (which also cleans up) gets to it
            peerDead = true;
        }
        wake();
        return open;
    }

    /**
     * The closed link's doorbell channel goes on to carry the next connection (shm keeps it): no late drain here
     * (a selector still holding the channel, say) may take that connection's bytes from now on. Whether this end
     * may hand its rings on: false if the peer wrote a corrupt ring.
     */
    public synchronized boolean detachDoorbell() {
        doorbellDetached = true;
        return !in.isCorrupt();
    }

    /** Runs this end's wake action: what the peer's waker calls. */
    public void wake() {
        wake.run();
    }

    /** Whether the peer closed its end in order (as against dying, or not having closed). */
    public boolean peerClosed() {
        return in.isProducerClosed() || out.isConsumerClosed();
    }

    @Override
    public boolean isPeerAlive() {
        return !peerDead && !in.isCorrupt() && !in.isProducerClosed() && !out.isConsumerClosed();
    }

    /** A corrupt ring is counted as a protocol error where it is found ({@link #poll}). */
    @Override
    public void countPeerLoss() {
        if (peerDead) {
            EngineCounters.PEERS_HUNG_UP.increment();
        } else if (!in.isCorrupt()) {
            EngineCounters.PEERS_RELEASED.increment();
        }
    }

    /** The peer's process is gone without closing its end: wake this end so it notices. */
    public void peerDied() {
        peerDead = true;
        wake();
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            out.producerClosed();
            in.consumerClosed();
            // a peer asleep waiting for us must learn that we are gone; one that sleeps is armed, and one that
            // closed already may have closed the doorbell too, where a ring would only raise a SIGPIPE
            wake(out.takeArmed());
        }
    }
}
