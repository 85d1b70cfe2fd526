package io.sovia.spi.engine;

import io.sovia.spi.config.SessionConfig;
import io.sovia.spi.lifecycle.Lifecycle;

import java.io.IOException;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * One connection of the SOVIA protocol over a {@link Link}: the engine's thread-safe face.
 *
 * <p>Every operation is non-blocking and runs on the calling thread (SOVIA's single-threaded lesson:
 * thread hand-offs cost more than the work). Each first polls the link, so whoever touches the session
 * moves it forward: the app's reader or writer, a selector, or the service thread for timers. Waiting
 * is the caller's business ({@link SessionWaiters}).
 *
 * <p>Flow control is by byte credit: every frame carries the absolute stream offset up to which its
 * receiver may send. Acknowledgements ride on every frame; a separate window update goes out as soon
 * as reads freed half the receive buffer. Small writes are combined while earlier frames are
 * outstanding (Nagle; off with TCP_NODELAY): on a reliable link until the peer has taken them off the
 * link, on an unreliable one until acknowledged. Only on an unreliable link is a separate ACK also sent
 * after {@code ackFrames} frames or {@code ackDelayNanos}, and sequenced frames are kept until
 * acknowledged and resent go-back-N on timeout.
 *
 * <p>The one state machine is the {@link SessionMachine}; it sends through a {@link SessionSender} and
 * receives through a {@link SessionReceiver}. This class adds the lock, ringing the peer after the lock
 * is left, and waking on credit.
 *
 * <p>Threading: all mutable state, here and in those three, is guarded by {@link #lock}.
 */
public final class Session {
    /** Set while this thread runs a credit waker, so wakers never nest (A pushes B pushes A ...). */
    private static final ThreadLocal<Boolean> IN_WAKER = new ThreadLocal<>();

    private final ReentrantLock lock = new ReentrantLock();
    private final Link link;
    private final SessionWaiters waiters;
    private final SessionMachine machine;
    /** Whose blocking write is in progress; under {@link #lock}. */
    private final WriteTurn turn = new WriteTurn();
    /** Told when a timer is set, so the service thread runs it; set once before the session is shared. */
    private volatile LongConsumer onTimer = by -> { };
    /**
     * The deadline the service thread will next visit this session for, 0 when it does not watch it:
     * a later timer needs no wake-up, the visit finds it. Guarded by {@link #lock}.
     */
    private long serviceDeadline;
    /**
     * A thread that found the lock taken left a visit (poll, timers, ring) to the holder: set before that thread
     * tries the lock once more, read by every holder after it lets go, so one of the two always visits. Before,
     * the service thread came back every 100 us while a writer held the lock, and a credit waker handed its
     * work to the service thread: 13,500 wake-ups a second on the writer's own core during an FTP upload.
     */
    private volatile boolean visitWanted;

    public Session(Link link, SessionConfig config, LongSupplier clock) {
        this.link = link;
        this.waiters = new SessionWaiters(link);
        this.machine = new SessionMachine(link, config, clock, waiters, this::timerSet, this::pushStalled);
        link.onWake(waiters::wakeAll);
        link.onNudge(this::nudged);
    }

    /**
     * The peer nudged (its writer waits for credit): the service thread polls this session, which
     * answers the peer's probe, whether or not this end's app makes a call.
     */
    private void nudged() {
        onTimer.accept(System.nanoTime());
    }

    /** Threads and selectors sleeping on this session. */
    public SessionWaiters waiters() {
        return waiters;
    }

    public Link link() {
        return link;
    }

    /**
     * Sets what has the service thread visit this session by the {@link System#nanoTime()} it is given: run under
     * the lock when a timer is set earlier than the next visit, and without it, for a visit now, when the peer
     * nudges, so it must neither block nor need the lock. A timer set before (a client's SYN, a server's SYN_ACK,
     * sent as the session is made) is passed on now: lost, it left a deadline the service was never told of, and
     * since later timers are passed on only when earlier than that one, an eth connection ran with no timer at all
     * (no retransmission, no delayed ACK, no Nagle timeout) and a stream's last small write waited for good.
     */
    public void onTimer(LongConsumer onTimer) {
        this.onTimer = onTimer;
        lock.lock();
        try {
            serviceDeadline = 0;
            if (machine.nextDeadline() != 0) {
                timerSet();
            }
        } finally {
            unlockAndRing();
        }
    }

    /**
     * The service thread's visit: runs due timers, then returns the next deadline, which the service
     * thread will visit again for (0: none, it stops watching until a timer is set). A session busy in
     * another thread is not waited for: that thread visits when it lets go, and tells the service of the next
     * deadline itself.
     */
    public long serviceVisit() {
        return lockOrLeaveVisit() ? visitLocked() : 0;
    }

    /**
     * Takes the lock if it is free; else leaves a visit to its holder ({@link #visitWanted}) and tries once more,
     * in case the holder let go before it could see the request. Returns whether this thread holds the lock.
     */
    private boolean lockOrLeaveVisit() {
        if (lock.tryLock()) {
            return true;
        }
        visitWanted = true;
        return lock.tryLock();
    }

    /** Under the lock, which it leaves: polls, runs due timers, wakes the sleepers; returns the next deadline. */
    private long visitLocked() {
        visitWanted = false;
        long next;
        try {
            machine.poll();
            next = machine.nextDeadline();
            serviceDeadline = next;
        } finally {
            unlockAndRing();
        }
        waiters.wakeAll();
        return next;
    }

    /** A visit someone left to this thread as it let go of the lock; the service learns the next deadline. */
    private void visitLeftOver() {
        if (lock.tryLock()) { // else the new holder visits when it lets go
            long next = visitLocked();
            if (next != 0) {
                onTimer.accept(next);
            }
        }
    }

    /** Client side: sends SYN. */
    public void connect() {
        lock.lock();
        try {
            machine.connect();
        } finally {
            unlockAndRing();
        }
    }

    /** Server side: waits for the SYN, which the next poll answers. */
    public void listen() {
        lock.lock();
        try {
            machine.listen();
        } finally {
            unlockAndRing();
        }
    }

    public void setNoDelay(boolean on) {
        lock.lock();
        try {
            machine.setNoDelay(on);
        } finally {
            unlockAndRing();
        }
    }

    /** Sends everything buffered now, ignoring combining (exit flush). */
    public void flush() {
        lock.lock();
        try {
            machine.flush();
        } finally {
            unlockAndRing();
        }
    }

    /** Processes arrived frames and due timers; returns whether any frame arrived. */
    public boolean poll() {
        lock.lock();
        boolean any;
        try {
            any = machine.poll();
        } finally {
            unlockAndRing();
        }
        // this thread (the service thread, for a timer) may have freed room or taken data that an app
        // thread sleeps on, and nobody else will ring for it
        waiters.wakeAll();
        return any;
    }

    /**
     * Reads what is buffered into {@code dst}: bytes read, 0 if none now, -1 at end of stream.
     *
     * @throws SocketException "Connection reset" after a reset or the peer's death
     */
    public int read(ByteBuffer dst) throws IOException {
        lockForApp();
        try {
            return machine.read(dst);
        } finally {
            unlockAndRing();
        }
    }

    /** As {@link #read(ByteBuffer)}, into an array (stream adaptors). */
    public int read(byte[] b, int off, int len) throws IOException {
        lockForApp();
        try {
            return machine.read(b, off, len);
        } finally {
            unlockAndRing();
        }
    }

    /** Bytes readable without waiting. */
    public int available() {
        lockForApp();
        try {
            return machine.available();
        } finally {
            unlockAndRing();
        }
    }

    /**
     * Accepts bytes from {@code src}: framed at once as far as credit and link allow, the rest buffered.
     *
     * @return bytes accepted, 0 when the send buffer is full
     * @throws SocketException after a reset, or "Broken pipe" once the peer is gone
     */
    public int write(ByteBuffer src) throws IOException {
        return write(src, false, false);
    }

    /**
     * A step of a blocking write, which goes on until {@code src}, and the buffers after it if {@code more}, are
     * taken: until then other threads' writes take nothing ({@link WriteTurn}). A step that throws ends the write.
     */
    public int writePart(ByteBuffer src, boolean more) throws IOException {
        return write(src, true, more);
    }

    /** A blocking write that ended early (its wait failed): other threads may write again. */
    public void endWrite() {
        lockForApp();
        unlockAfterWrite(false);
    }

    private int write(ByteBuffer src, boolean blocking, boolean more) throws IOException {
        lockForApp();
        boolean goesOn = false;
        try {
            if (!turn.mayWrite()) {
                return 0;
            }
            int n = machine.write(src);
            goesOn = blocking && (more || src.hasRemaining());
            return n;
        } finally {
            unlockAfterWrite(goesOn);
        }
    }

    /** Lets go of the lock after a write that {@code goesOn} or ended; wakes the writers waiting for its turn. */
    private void unlockAfterWrite(boolean goesOn) {
        boolean turnGiven = turn.after(goesOn);
        unlockAndRing();
        if (turnGiven) {
            waiters.wakeAll();
        }
    }

    /**
     * Accepts up to {@code count} bytes of {@code file} from {@code position}, read straight into the link's frames
     * as far as credit and link allow, the rest into the send buffer as far as it has room. A {@code blocking}
     * transfer that goes on holds the write turn, as {@link #writePart} does.
     *
     * @return bytes accepted, 0 when the send buffer is full, -1 when the file ends at {@code position}
     * @throws IOException as {@link #write}, or from reading the file
     */
    public long writeFile(FileChannel file, long position, long count, boolean blocking) throws IOException {
        lockForApp();
        boolean goesOn = false;
        try {
            if (!turn.mayWrite()) {
                return 0;
            }
            long n = machine.writeFile(file, position, count);
            goesOn = blocking && n >= 0 && n < count;
            return n;
        } finally {
            unlockAfterWrite(goesOn);
        }
    }

    /** SO_OOBINLINE: whether urgent bytes are read in the stream (else they are dropped). */
    public void setOobInline(boolean on) {
        lock.lock();
        try {
            machine.setOobInline(on);
        } finally {
            unlockAndRing();
        }
    }

    /** Sends TCP's urgent byte after everything written before; false when it cannot go yet (wait until writable). */
    public boolean sendUrgentData(int data) throws IOException {
        lockForApp();
        try {
            return machine.sendUrgentData(data);
        } finally {
            unlockAndRing();
        }
    }

    /** Sends FIN once everything written before has been framed. */
    public void shutdownOutput() {
        lock.lock();
        try {
            machine.shutdownOutput();
        } finally {
            unlockAndRing();
        }
    }

    /** Discards what arrives from now on; reads return end of stream, also those blocked now. */
    public void shutdownInput() {
        lock.lock();
        try {
            machine.shutdownInput();
        } finally {
            unlockAndRing();
        }
        waiters.wakeAll();
    }

    /**
     * The app closed: as TCP, unread data resets the connection; otherwise written data and FIN still go
     * out ({@link #isFinished()} tells when the link may be released).
     */
    public void close() {
        lock.lock();
        try {
            machine.close();
        } finally {
            unlockAndRing();
        }
    }

    /** Resets the connection (SO_LINGER 0): RST to the peer, everything buffered dropped. */
    public void abort() {
        lock.lock();
        try {
            machine.abort();
        } finally {
            unlockAndRing();
        }
    }

    /**
     * Closes the link of a {@linkplain #isFinished() finished} session under the session's lock, so no call that
     * holds it (the service thread's timers, a late poll) touches the link's buffers after: they may go on to carry
     * another connection.
     */
    public void closeLink() {
        lock.lock();
        try {
            machine.released();
            link.close();
        } finally {
            lock.unlock();
        }
    }

    /** Whether nothing more will happen on this session, so its link can be released. */
    public boolean isFinished() {
        lock.lock();
        try {
            return machine.isFinished();
        } finally {
            unlockAndRing();
        }
    }

    /**
     * Takes the lock for an app's call; once the JVM's exit closes connections after the app's hooks, the call waits
     * for the halt instead ({@link Lifecycle#awaitHaltOnceExiting()}), before the lock, which the exit takes.
     */
    private void lockForApp() {
        Lifecycle.awaitHaltOnceExiting();
        lock.lock();
    }

    /** Whether a read would not return 0 now. */
    public boolean isReadable() {
        lockForApp();
        try {
            return machine.isReadable();
        } finally {
            unlockAndRing();
        }
    }

    /** Whether a write would not return 0 now. */
    public boolean isWritable() {
        lockForApp();
        try {
            return turn.mayWrite() && machine.isWritable();
        } finally {
            unlockAndRing();
        }
    }

    /** Bytes the app wrote so far (taken by writes, framed or not), without taking the lock: a moment old at worst. */
    public long bytesWritten() {
        return machine.bytesWritten();
    }

    /** Bytes the app read so far, without taking the lock: a moment old at worst. */
    public long bytesRead() {
        return machine.bytesRead();
    }

    /** What the connection is doing now, without taking its lock: for listings, a moment old at worst. */
    public SessionActivity activity() {
        return machine.activity();
    }

    /** Whether the handshake completed. */
    public boolean isEstablished() {
        lock.lock();
        try {
            return machine.isEstablished();
        } finally {
            unlockAndRing();
        }
    }

    /** The earliest timer deadline in the clock's nanos, or 0 if no timer runs. */
    public long nextDeadline() {
        lock.lock();
        try {
            return machine.nextDeadline();
        } finally {
            unlockAndRing();
        }
    }

    /** Under the lock: tells the service thread of a timer earlier than its next visit here. */
    private void timerSet() {
        long deadline = machine.nextDeadline();
        if (serviceDeadline == 0 || deadline - serviceDeadline < 0) {
            serviceDeadline = deadline;
            onTimer.accept(deadline);
        }
    }

    /**
     * A credit waker: the ringing thread sends this session's stalled bytes itself (no thread hand-off),
     * unless someone holds the lock (the holder does it when it lets go) or this thread is already inside a
     * waker; then the service thread does it. A visit left by someone else is done in full afterwards, so the
     * service learns the next deadline.
     */
    private void pushStalled() {
        if (IN_WAKER.get() != null || lock.isHeldByCurrentThread()) {
            onTimer.accept(System.nanoTime());
            return;
        }
        if (!lockOrLeaveVisit()) {
            return;
        }
        boolean ring;
        try {
            machine.poll();
        } finally {
            ring = machine.takeRing();
            machine.flushLink();
            lock.unlock();
        }
        if (ring) {
            IN_WAKER.set(Boolean.TRUE);
            try {
                link.wakePeer();
            } finally {
                IN_WAKER.remove();
            }
        }
        if (visitWanted) {
            visitLeftOver();
        }
    }

    /**
     * Sends what the link holds, leaves the lock, then rings the peer once for everything committed meanwhile:
     * outside the lock, so a waker the ring runs may take this session's lock itself.
     */
    private void unlockAndRing() {
        boolean ring = machine.takeRing();
        machine.flushLink();
        lock.unlock();
        if (ring) {
            link.wakePeer();
        }
        if (visitWanted && !lock.isHeldByCurrentThread()) {
            visitLeftOver();
        }
    }

    @Override
    public String toString() {
        return machine.toString();
    }
}
