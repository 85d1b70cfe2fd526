package io.sovia.eth;

import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.engine.EngineCounters;
import io.sovia.spi.jdk.JdkNio;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.HashMap;
import java.util.Map;

/**
 * Tells a peer JVM that is paused (a long collection, SIGSTOP, a debugger at a breakpoint) from one that is gone, so a
 * pause costs no connection, as with TCP, while a killed JVM is still seen within a second. Each JVM listens on a
 * TCP port of its host-table address and names it in every control frame it sends; a peer silent for
 * {@code sovia.eth.dead.millis} gets a probe, a TCP connect to that port. A host's kernel completes the handshake
 * for a paused process's listener (its backlog, up to {@code somaxconn} probes), refuses it for a dead one's, and
 * says nothing when the host or the link is gone: accepted means alive, refused or no answer within another
 * {@code sovia.eth.dead.millis} means dead. A peer that names no port (an agent from before) is dead when silent.
 *
 * <p>Threading: the receiver thread's alone. Probes and the listener are the JDK's own channels, never Sovia's.
 */
final class EthLiveness {
    /** What a probe found. */
    enum Verdict { ALIVE, DEAD, PENDING }

    private record Probe(SocketChannel channel, long startedNanos) {
    }

    private final ServerSocketChannel listener;
    private final int port;
    private final long timeoutNanos;
    private final Map<EthPeer, Probe> probes = new HashMap<>();

    private EthLiveness(ServerSocketChannel listener, long timeoutNanos) throws IOException {
        this.listener = listener;
        this.port = ((InetSocketAddress) listener.getLocalAddress()).getPort();
        this.timeoutNanos = timeoutNanos;
    }

    /**
     * Listens on an ephemeral port of {@code self}, this host's address in the host table, or of every address when
     * the table names one this host does not have (said once: peers' probes then go wherever that address leads).
     */
    static EthLiveness open(InetAddress self, long timeoutNanos) throws IOException {
        ServerSocketChannel listener = JdkNio.provider().openServerSocketChannel();
        try {
            listener.configureBlocking(false);
            try {
                listener.bind(new InetSocketAddress(self, 0), Integer.MAX_VALUE); // the kernel caps it at somaxconn
            } catch (BindException notHere) {
                SoviaLog.warn("eth: this host's address in the host table, " + self.getHostAddress()
                        + ", is not one of its own; peers may take a paused JVM here for a dead one", null);
                listener.bind(new InetSocketAddress(0), Integer.MAX_VALUE);
            }
            return new EthLiveness(listener, timeoutNanos);
        } catch (IOException | RuntimeException e) {
            listener.close();
            throw e;
        }
    }

    /** The port this JVM names in its control frames. */
    int port() {
        return port;
    }

    int listenerFd() {
        return JdkNio.fd(listener);
    }

    /**
     * Takes every probe of a peer waiting in the listener's queue and closes it (its handshake was the answer). Not
     * with a reset: a prober that looks only after this (its receiver thread waiting for a core) would read the reset
     * from {@code finishConnect} and bury this live JVM. A FIN leaves its connect readable as done; the prober's own
     * close is the reset, so neither end keeps a TIME_WAIT entry.
     *
     * @return how many probes it took
     */
    int acceptAll() throws IOException {
        int taken = 0;
        SocketChannel probe;
        while ((probe = listener.accept()) != null) {
            probe.close();
            taken++;
        }
        return taken;
    }

    /**
     * A probe's verdict on {@code peer}, silent too long, at {@code ip}: a probe is started if none runs, and
     * {@code started} is told its descriptor (to watch for its end).
     */
    Verdict check(EthPeer peer, InetAddress ip, long now, ProbeWatch started) {
        if (peer.livenessPort == 0) {
            return Verdict.DEAD;
        }
        Probe probe = probes.get(peer);
        if (probe == null) {
            SocketChannel channel;
            try {
                channel = JdkNio.provider().openSocketChannel();
            } catch (IOException e) {
                // this JVM's trouble (out of descriptors), not the peer's: no verdict until the probe's time is up
                SoviaLog.warnCounted("eth-probe", "cannot open a liveness probe; a silent peer is buried in time", e);
                probes.put(peer, new Probe(null, now));
                return Verdict.PENDING;
            }
            EngineCounters.PROBES.increment();
            probe = new Probe(channel, now);
            probes.put(peer, probe);
            try {
                channel.configureBlocking(false);
                if (!channel.connect(new InetSocketAddress(ip, peer.livenessPort))) {
                    started.watch(JdkNio.fd(channel));
                    return Verdict.PENDING;
                }
            } catch (IOException e) {
                end(peer);
                return Verdict.DEAD; // refused at once, or no route to the host any more
            }
        }
        return finish(peer, probe, now);
    }

    /** Ends the probe of a peer heard from again (none running: nothing to do). */
    void end(EthPeer peer) {
        Probe probe = probes.remove(peer);
        if (probe != null && probe.channel() != null) {
            closeAbortively(probe.channel());
        }
    }

    private Verdict finish(EthPeer peer, Probe probe, long now) {
        Verdict verdict;
        try {
            verdict = probe.channel() != null && probe.channel().finishConnect() ? Verdict.ALIVE
                    : now - probe.startedNanos() > timeoutNanos ? Verdict.DEAD : Verdict.PENDING;
        } catch (IOException refused) {
            verdict = Verdict.DEAD;
        }
        if (verdict != Verdict.PENDING) {
            end(peer);
        }
        return verdict;
    }

    /**
     * Closes a probe with a reset, so neither end keeps a TIME_WAIT entry per probe: also one whose connect this end
     * never finished, since the kernel may have completed its handshake, and a plain close would send a FIN.
     */
    private static void closeAbortively(SocketChannel channel) {
        try {
            channel.setOption(StandardSocketOptions.SO_LINGER, 0);
        } catch (IOException notSet) {
            // a failed connect's socket: it has no connection to reset
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // a probe's end; nothing else to release
        }
    }

    /** Where a started probe's descriptor goes, to be watched until its connect ends. */
    @FunctionalInterface
    interface ProbeWatch {
        void watch(int fd);
    }
}
