package io.sovia.spi.nio;

import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.engine.FreeCores;
import io.sovia.spi.engine.BusyCoreSpins;
import io.sovia.spi.engine.EngineCounters;
import io.sovia.spi.engine.SpinYield;
import io.sovia.spi.engine.WordSleeper;

import java.io.IOException;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.IllegalSelectorException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.spi.AbstractSelectableChannel;
import java.nio.channels.spi.AbstractSelector;
import java.nio.channels.spi.SelectorProvider;
import java.util.Collections;
import java.util.HashSet;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

/**
 * A selector over Sovia's channels and the JDK's pass-through channels (DESIGN section 3).
 *
 * <p>It owns one JDK selector. Each Sovia key has an inner key there for the channel's poll channel, so a
 * select sleeps in epoll on everything at once; or, when every key is an shm connection, on their rings' wake
 * words ({@link WordSelect}). As in the JDK, registration and interest changes from
 * other threads take effect at the next selection operation; they are queued and applied by the
 * selecting thread, which is the only thread that touches inner registrations.
 *
 * <p>Order inside one selection matters: cancelled Sovia keys are deregistered before the inner select,
 * so when the inner selector then drops the inner key of a closed pass-through channel, the channel is
 * no longer registered anywhere and the JDK closes its descriptor (otherwise it would leak). A channel
 * closed during a select may lose its inner key first; then this selector closes the descriptor itself.
 */
final class SoviaSelector extends AbstractSelector {
    private final Selector inner;
    private final SelectorProvider jdkProvider;

    /** Every valid key; added by registering threads, removed by the selecting thread. */
    private final Set<SelectionKey> keys = ConcurrentHashMap.newKeySet();
    private final Set<SelectionKey> publicKeys = Collections.unmodifiableSet(keys);
    /** Guarded by {@code this} during selection, by the app otherwise (the JDK's rule). */
    private final Set<SelectionKey> selectedKeys = new HashSet<>();
    private final Set<SelectionKey> publicSelectedKeys = new UngrowableSet<>(selectedKeys);
    private final Queue<SoviaSelectionKey> updates = new ConcurrentLinkedQueue<>();
    /** Keys whose readiness is known at user level (no kernel channel); selecting thread only. */
    private final Set<SoviaSelectionKey> userKeys = new HashSet<>();
    private final long spinNanos = SoviaConfig.spinNanos();
    private final boolean yieldToBusyCores = SoviaConfig.spinYieldsToBusyCores();
    /** Selecting thread only. */
    private final BusyCoreSpins busyCoreSpins = new BusyCoreSpins();
    /**
     * Set by {@link #wakeup()} before it wakes the inner selector, cleared when a selection ends. Needed
     * because the selectNow calls a selection makes on the inner selector (flushing an update, spinning)
     * swallow the inner part of a wakeup.
     */
    private volatile boolean wakeupPending;
    /** Sleeps on the keys' wake words when all have one. */
    private final WordSelect wordSelect = new WordSelect();
    /**
     * Whether an inner key was cancelled since the inner selector last selected: a sleep on words, which skips the
     * inner selector, flushes them first, so the JDK closes closed channels' descriptors. Selecting thread only.
     */
    private boolean innerCancelled;
    /** What the current selection found ready; selecting thread only. */
    private final ReadyKeys ready = new ReadyKeys(this, selectedKeys);
    /** Set while a selection runs, so a select from inside a {@code select(Consumer)} action is refused. */
    private boolean inSelect;

    SoviaSelector(SelectorProvider provider, SelectorProvider jdkProvider) throws IOException {
        super(provider);
        this.jdkProvider = jdkProvider;
        this.inner = jdkProvider.openSelector();
    }

    @Override
    protected SelectionKey register(AbstractSelectableChannel ch, int ops, Object att) {
        Pollable pollable = pollableOf(ch);
        ensureOpen();
        SoviaSelectionKey key = new SoviaSelectionKey(this, ch, pollable);
        key.attach(att);
        keys.add(key);
        pollable.selectorKeys().add(key);
        key.interestOps(ops);
        return key;
    }

    private Pollable pollableOf(AbstractSelectableChannel ch) {
        if (ch instanceof Pollable) {
            return (Pollable) ch;
        }
        if (ch.provider() == jdkProvider) {
            return new PassThrough(ch);
        }
        throw new IllegalSelectorException();
    }

    void queueUpdate(SoviaSelectionKey key) {
        if (key.markQueued()) {
            updates.add(key);
        }
    }

    @Override
    public Set<SelectionKey> keys() {
        ensureOpen();
        return publicKeys;
    }

    @Override
    public Set<SelectionKey> selectedKeys() {
        ensureOpen();
        return publicSelectedKeys;
    }

    @Override
    public int selectNow() throws IOException {
        return lockAndDoSelect(null, -1L);
    }

    @Override
    public int select(long timeout) throws IOException {
        return lockAndDoSelect(null, checkTimeout(timeout));
    }

    @Override
    public int select() throws IOException {
        return lockAndDoSelect(null, 0L);
    }

    @Override
    public int selectNow(Consumer<SelectionKey> action) throws IOException {
        return lockAndDoSelect(Objects.requireNonNull(action), -1L);
    }

    @Override
    public int select(Consumer<SelectionKey> action, long timeout) throws IOException {
        Objects.requireNonNull(action);
        return lockAndDoSelect(action, checkTimeout(timeout));
    }

    @Override
    public int select(Consumer<SelectionKey> action) throws IOException {
        return lockAndDoSelect(Objects.requireNonNull(action), 0L);
    }

    private static long checkTimeout(long timeout) {
        if (timeout < 0) {
            throw new IllegalArgumentException("Negative timeout");
        }
        return timeout;
    }

    /**
     * {@code action}: null selects into the selected-key set; {@code timeout}: -1 polls, 0 waits without
     * limit, otherwise milliseconds.
     */
    private int lockAndDoSelect(Consumer<SelectionKey> action, long timeout) throws IOException {
        synchronized (this) {
            ensureOpen();
            // the monitors are reentrant, so only this flag stops an action from selecting (the JDK's check)
            if (inSelect) {
                throw new IllegalStateException("select in progress");
            }
            inSelect = true;
            try {
                synchronized (publicSelectedKeys) {
                    return doSelect(action, timeout);
                }
            } finally {
                ready.clear();
                inSelect = false;
            }
        }
    }

    /**
     * One selection: rounds of {@link #selectRound} until one ends it. A round can wake for nothing the app asked
     * for (a doorbell rung for a key that is not ready for its interest, such as bytes rung before the app set
     * it); the JDK's select would not have returned then, so another round sleeps for what is left of the timeout.
     */
    private int doSelect(Consumer<SelectionKey> action, long timeout) throws IOException {
        long deadline = timeout > 0 ? System.nanoTime() + timeout * 1_000_000 : 0;
        long roundTimeout = timeout;
        while (!selectRound(roundTimeout)) {
            if (deadline != 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                roundTimeout = Math.max(1, (left + 999_999) / 1_000_000);
            }
        }
        processDeregistrations();
        wakeupPending = false;
        return ready.deliver(action);
    }

    /**
     * One round. With user-level keys: scan them; if none is ready (selected already or not, see
     * {@link ReadyKeys}), spin (scanning, and polling the kernel too) for the spin budget; then arm their
     * doorbells, scan once more, and sleep in the inner selector, where their doorbell channels wake it
     * directly (a link without one wakes the inner selector, armed with it); or, when every key has a wake word,
     * arm those and sleep on them ({@link WordSelect}). Returns whether the selection is over:
     * a key is ready, it polled, a wakeup or an interrupt came; a timeout is for the caller to see.
     *
     * <p>A round that ends without sleeping polls the inner selector only for kernel keys or to flush cancelled
     * ones: with user-level keys alone it has nothing to report (a doorbell rung for a sleep that is over is taken
     * by the next sleep, which then ends at once, and so is an inner wake-up the round did not take), and the poll
     * was a system call a round, a sixth of a selector loop's time in 64 B round trips on shm.
     */
    private boolean selectRound(long timeout) throws IOException {
        processDeregistrations();
        processUpdates();
        boolean poll = timeout < 0;
        boolean armed = false;
        WordSleeper onWords = null;
        if (!userKeys.isEmpty()) {
            scanUserKeys();
            long spinStart = System.nanoTime();
            poll |= ready.any() || spinForReadiness(timeout, spinStart);
            if (!poll && timeout > 0) {
                // the spin took part of the timeout; what is left, rounded up, goes to the kernel (0 would
                // mean no limit there)
                timeout = Math.max(1, timeout - (System.nanoTime() - spinStart) / 1_000_000);
            }
            if (!poll) {
                onWords = wordSelect.prepare(userKeys, keys.size());
                armUserKeys(onWords != null ? onWords : inner, true);
                armed = true;
                scanUserKeys();
                poll = ready.any();
            }
        }
        // checked after the last internal selectNow (flushing an update, spinning), which may have swallowed the
        // inner selector's part of a wakeup: the flag is set before that part, so it shows every wakeup
        poll |= wakeupPending;
        begin();
        try {
            if (poll) {
                if (innerCancelled || userKeys.size() < keys.size()) {
                    inner.selectNow(this::onInnerReady);
                    innerCancelled = false;
                }
            } else if (onWords != null) {
                if (innerCancelled) {
                    // a doorbell found rung here wakes this sleep through the sessions' wake-up
                    inner.selectNow(this::onInnerReady);
                    innerCancelled = false;
                }
                EngineCounters.SLEEPS.increment();
                EngineCounters.WORD_SLEEPS.increment();
                wordSelect.sleep(timeout);
            } else {
                if (armed) {
                    EngineCounters.SLEEPS.increment();
                }
                inner.select(this::onInnerReady, timeout);
                innerCancelled = false;
            }
        } finally {
            end();
            if (armed) {
                armUserKeys(onWords != null ? onWords : inner, false);
                if (onWords != null) {
                    wordSelect.finish(onWords);
                    for (SoviaSelectionKey key : userKeys) {
                        key.pollable().wakeWordChanged();
                    }
                }
                scanUserKeys();
            }
        }
        return poll || ready.any() || wakeupPending || Thread.currentThread().isInterrupted();
    }

    /**
     * Spins for the budget, or the select's timeout if shorter, until a key is ready, a wakeup or an
     * interrupt; returns whether to stop waiting.
     */
    private boolean spinForReadiness(long timeout, long start) throws IOException {
        if (timeout < 0 || spinNanos == 0) {
            return timeout < 0;
        }
        boolean kernelKeys = userKeys.size() < keys.size();
        if (yieldToBusyCores && !FreeCores.spinAllowed()) {
            if (!FreeCores.idleElsewhere() || !busyCoreSpins.mayTry()) {
                return false;
            }
            IOException[] failed = new IOException[1];
            boolean came = busyCoreSpins.yieldFor(() -> {
                try {
                    if (kernelKeys) {
                        inner.selectNow(this::onInnerReady);
                    }
                } catch (IOException e) {
                    failed[0] = e;
                    return true;
                }
                scanUserKeys();
                return ready.any() || wakeupPending || Thread.currentThread().isInterrupted();
            });
            if (failed[0] != null) {
                throw failed[0];
            }
            return came;
        }
        boolean timesOut = timeout > 0 && timeout * 1_000_000 <= spinNanos;
        long end = start + (timesOut ? timeout * 1_000_000 : spinNanos);
        SpinYield idle = new SpinYield();
        for (long now = start; now - end < 0; now = System.nanoTime()) {
            if (wakeupPending || Thread.currentThread().isInterrupted()) {
                return true;
            }
            if (kernelKeys) {
                inner.selectNow(this::onInnerReady);
            }
            scanUserKeys();
            if (ready.any()) {
                FreeCores.spun(now - start);
                return true;
            }
            if (yieldToBusyCores && idle.contended()) {
                idle.giveUp();
                return false;
            }
            idle.idleAt(now);
        }
        FreeCores.spun(end - start);
        return timesOut;
    }

    private void scanUserKeys() {
        for (SoviaSelectionKey key : userKeys) {
            if (key.isValid()) {
                int interest = key.rawInterestOps();
                if (interest != 0) {
                    ready.add(key, key.pollable().readyOps(interest));
                }
            }
        }
    }

    private void armUserKeys(Object sleeper, boolean arm) {
        for (SoviaSelectionKey key : userKeys) {
            key.pollable().armSelector(sleeper, arm);
        }
    }

    private void onInnerReady(SelectionKey innerKey) {
        Object attachment = innerKey.attachment();
        if (attachment instanceof Doorbell doorbell) {
            // awake already: disarmed first, so the ring's wake-up does not wake this selector again;
            // the key itself is scanned once the selection is over
            Pollable pollable = doorbell.key().pollable();
            pollable.armSelector(inner, false);
            if (!pollable.doorbellRung()) {
                innerKey.cancel();
            }
            return;
        }
        SoviaSelectionKey key = (SoviaSelectionKey) attachment;
        if (key == null || !key.isValid()) {
            return;
        }
        int readyOps;
        try {
            readyOps = innerKey.readyOps();
        } catch (CancelledKeyException closed) {
            // another thread closed the channel since the check above: nothing to report for it
            return;
        }
        ready.add(key, readyOps & key.rawInterestOps());
    }

    /** Deregisters cancelled keys and cancels their inner keys, which the next inner select drops. */
    private void processDeregistrations() {
        Set<SelectionKey> cancelled = cancelledKeys();
        synchronized (cancelled) {
            if (cancelled.isEmpty()) {
                return;
            }
            for (SelectionKey k : cancelled) {
                SoviaSelectionKey key = (SoviaSelectionKey) k;
                SelectionKey innerKey = key.innerKey();
                if (innerKey != null) {
                    innerKey.cancel();
                    innerCancelled = true;
                }
                keys.remove(key);
                selectedKeys.remove(key);
                userKeys.remove(key);
                key.pollable().selectorKeys().remove(key);
                deregister(key);
                killIfClosed(key);
            }
            cancelled.clear();
        }
    }

    /**
     * The JDK closes a closed channel's descriptor only when the channel leaves its last selector, and
     * checks that in its own selectors only. When the inner selector dropped a pass-through channel's
     * inner key before this key (the channel closed during a select), nobody else would close it.
     */
    private static void killIfClosed(SoviaSelectionKey key) {
        SelectableChannel ch = key.channel();
        if (key.pollable() instanceof PassThrough && !ch.isOpen() && !ch.isRegistered()) {
            try {
                ((sun.nio.ch.SelChImpl) ch).kill();
            } catch (IOException e) {
                SoviaLog.warn("cannot release the descriptor of a closed " + ch.getClass().getSimpleName(), e);
            }
        }
    }

    /** Applies queued registrations and interest changes. */
    private void processUpdates() throws IOException {
        SoviaSelectionKey key;
        while ((key = updates.poll()) != null) {
            key.clearQueued();
            applyInterest(key);
        }
    }

    private void applyInterest(SoviaSelectionKey key) throws IOException {
        SelectableChannel ch = key.channel();
        // The blocking lock orders this against configureBlocking(true), which cancels inner keys.
        synchronized (ch.blockingLock()) {
            if (!key.isValid() || ch.isBlocking()) {
                return;
            }
            SelectableChannel target = key.pollable().pollChannel();
            boolean user = target == null;
            if (user) {
                userKeys.add(key);
                // a user-level key sleeps on its doorbell, if it has one, beside the kernel channels
                target = key.pollable().doorbell();
            } else {
                userKeys.remove(key);
            }
            int ops = user ? SelectionKey.OP_READ : key.rawInterestOps();
            SelectionKey innerKey = key.innerKey();
            if (innerKey != null && innerKey.isValid() && innerKey.channel() == target) {
                innerKey.interestOps(ops);
                return;
            }
            if (innerKey != null) {
                innerKey.cancel();
                innerCancelled = true;
                key.innerKey(null);
            }
            if (target == null) {
                return;
            }
            SelectionKey stale = target.keyFor(inner);
            if (stale != null && !stale.isValid()) {
                // A cancelled inner key stays attached to its channel until the inner selector flushes it.
                inner.selectNow(k -> { });
            }
            try {
                key.innerKey(target.register(inner, ops, user ? new Doorbell(key) : key));
            } catch (ClosedChannelException | CancelledKeyException | IllegalBlockingModeException e) {
                // the channel closed (or its backend changed mode) since the key was queued: the key is
                // dead; a closed doorbell only means the peer is gone, which the key's scan will show
                if (!user) {
                    key.cancel();
                }
            }
        }
    }

    /** The attachment of a user-level key's inner key, whose channel is the doorbell. */
    private record Doorbell(SoviaSelectionKey key) {
    }

    @Override
    public Selector wakeup() {
        wakeupPending = true;
        inner.wakeup();
        wordSelect.wakeup();
        return this;
    }

    @Override
    protected void implCloseSelector() throws IOException {
        wakeup();
        synchronized (this) {
            synchronized (publicSelectedKeys) {
                for (SelectionKey k : keys) {
                    k.cancel();
                }
                processDeregistrations();
                inner.close();
            }
        }
    }

    private void ensureOpen() {
        if (!isOpen()) {
            throw new ClosedSelectorException();
        }
    }
}
