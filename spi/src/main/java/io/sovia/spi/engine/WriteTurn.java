package io.sovia.spi.engine;

/**
 * One write at a time, as a channel's contract has it: a thread that starts a write while another's is in progress
 * waits until that one is complete. The thread whose blocking write took part of its bytes and goes on holds the
 * turn; other threads' writes take nothing until it ends, so its bytes stay together. The JDK holds a lock for the
 * whole call; here the turn is a field under the session's lock, which every write takes anyway, so a write that
 * completes at once pays nothing more.
 *
 * <p>Guarded by the session's lock.
 */
final class WriteTurn {
    private Thread holder;

    /** Whether the current thread may write now: nobody holds the turn, or it does. */
    boolean mayWrite() {
        return holder == null || holder == Thread.currentThread();
    }

    /**
     * After a write of the current thread: it holds the turn while its write {@code goesOn}, and gives it up
     * otherwise. Returns whether it gave up a turn it held, so that the caller wakes the writers waiting for it.
     */
    boolean after(boolean goesOn) {
        Thread me = Thread.currentThread();
        if (goesOn) {
            holder = me;
            return false;
        }
        if (holder == me) {
            holder = null;
            return true;
        }
        return false;
    }
}
