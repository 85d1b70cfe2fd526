package io.sovia.spi.engine;

import io.sovia.spi.jdk.JdkNio;
import io.sovia.spi.os.NativeOs;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectableChannel;

/**
 * One platform thread's way to sleep on a doorbell ({@link DoorbellSleep}): a {@code poll} on the doorbell's
 * descriptor and on an eventfd of the thread's own, which {@link #wakeup()} signals. Nothing is registered between
 * sleeps, so a sleep is one system call and a closed doorbell is held by nobody; the eventfd is the only descriptor
 * the thread keeps.
 *
 * <p>{@link #sleep} and {@link #forget()} are the owning thread's; {@link #wakeup()} is anyone's, and
 * {@link #close()} the registry's once the thread ended.
 */
final class DoorbellSleeper {
    private final NativeOs os;
    /** The eventfd; written and read only under this object's monitor while {@link #closed} is false. */
    private final int wakeFd;
    /**
     * Under this object's monitor: whether the eventfd holds a wake-up not yet taken, so that a sleep with none pays
     * no read and repeated wake-ups one write (the JDK's selectors do the same).
     */
    private boolean signalled;
    /** Under this object's monitor: a closed eventfd's number may already be another file's. */
    private boolean closed;

    DoorbellSleeper(NativeOs os) throws IOException {
        this.os = os;
        this.wakeFd = os.eventfdCreate();
    }

    /** Ends the owner's current or next sleep; any thread, never blocks. */
    synchronized void wakeup() {
        if (!signalled && !closed) {
            signalled = true;
            os.eventfdSignal(wakeFd);
        }
    }

    /**
     * Sleeps until the doorbell rings, a {@link #wakeup()}, a signal or the deadline.
     *
     * @param deadline {@link System#nanoTime()} deadline, or 0 for none
     * @return whether the doorbell rang (the caller takes the bytes, see {@link Link#doorbellReadable()})
     * @throws ClosedChannelException if the doorbell is closed (the connection ended)
     */
    boolean sleep(SelectableChannel doorbell, long deadline) throws IOException {
        if (!doorbell.isOpen()) {
            throw new ClosedChannelException();
        }
        return sleep(JdkNio.fd(doorbell), deadline);
    }

    /**
     * As {@link #sleep(SelectableChannel, long)}, on a descriptor that is not a channel's
     * ({@link Link#claimReceiveFd()}).
     */
    boolean sleep(int fd, long deadline) throws IOException {
        int timeout = -1;
        if (deadline != 0) {
            long millis = (deadline - System.nanoTime() + 999_999) / 1_000_000;
            timeout = (int) Math.min(Integer.MAX_VALUE, Math.max(1, millis));
        }
        int ready = os.pollReadable(fd, wakeFd, timeout);
        if ((ready & NativeOs.POLL_SECOND) != 0) {
            forget();
        }
        return (ready & NativeOs.POLL_FIRST) != 0;
    }

    /**
     * Takes wake-ups meant for an earlier sleep; call before registering as a waiter, never between that and
     * {@link #sleep}, or a wake-up for this sleep would be lost.
     */
    synchronized void forget() {
        if (signalled && !closed) {
            signalled = false;
            os.eventfdClear(wakeFd);
        }
    }

    /** Closes the eventfd; later wake-ups do nothing. */
    synchronized void close() {
        if (!closed) {
            closed = true;
            os.closeFd(wakeFd);
        }
    }

    synchronized boolean isOpen() {
        return !closed;
    }
}
