package io.sovia.eth;

import io.sovia.spi.config.SoviaConfig;
import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.engine.Link;
import io.sovia.spi.lifecycle.ExitStage;
import io.sovia.spi.lifecycle.Lifecycle;
import io.sovia.spi.transport.LocalAddresses;
import io.sovia.spi.transport.PathKind;
import io.sovia.spi.transport.Transport;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The eth path: hosts of the cluster's host table ({@code sovia.hosts}), both under the agent, run the engine
 * over raw Ethernet frames (DESIGN section 6). Found by ServiceLoader.
 *
 * <p>A connect to a listed host sends a hello to the listener's port before its TCP setup; the JVM that listens
 * there accelerated answers with its end of the link, and the accept of the TCP connection claims it
 * ({@link EthListener}). No answer within {@code sovia.eth.connect.millis} (a host without the agent, a port
 * without an accelerated listener) sends the connect to TCP, and that destination stays on TCP for
 * {@code sovia.eth.verdict.millis}, unless its answer comes after all (a listener's JVM slow to answer, a loaded
 * host): then the next connect asks again. Without a usable table, interface or CAP_NET_RAW, every connect uses TCP, the
 * cause logged once and counted.
 */
public final class EthTransport implements Transport {
    /** Read at first use, not when ServiceLoader makes this (the JVM's first connect or listen may come later). */
    private volatile Optional<HostTable> table;
    /** The port, or the reason there is none; opened at the first listen or connect. */
    private volatile Object port;
    /** Destinations that did not answer, with when they may be asked again. */
    private final Map<InetSocketAddress, Long> verdicts = new ConcurrentHashMap<>();

    /** Called by ServiceLoader. */
    public EthTransport() {
    }

    /** The host table, or null when there is none or it is unusable (said once). */
    private HostTable table() {
        Optional<HostTable> t = table;
        if (t == null) {
            synchronized (this) {
                t = table;
                if (t == null) {
                    t = table = Optional.ofNullable(readTable());
                }
            }
        }
        return t.orElse(null);
    }

    private static HostTable readTable() {
        String file = SoviaConfig.hostsFile();
        if (file == null) {
            return null;
        }
        try {
            HostTable t = HostTable.read(Path.of(file));
            SoviaLog.info("eth: host table " + file + " lists " + t.size() + " hosts");
            return t;
        } catch (IOException | RuntimeException e) {
            SoviaLog.warn("eth: the host table " + file + " is unusable, so connects between hosts use TCP", e);
            return null;
        }
    }

    @Override
    public PathKind path() {
        return PathKind.ETH;
    }

    @Override
    public boolean reaches(InetSocketAddress remote) {
        HostTable t = table();
        return t != null && t.find(remote.getAddress()) != null && !LocalAddresses.isLocal(remote.getAddress());
    }

    @Override
    public Offer offer(InetSocketAddress local, InetSocketAddress remote) throws IOException {
        HostTable t = table();
        HostTable.Host host = t == null ? null : t.find(remote.getAddress());
        if (host == null) {
            throw new Declined(remote + " is not in the host table");
        }
        Long until = verdicts.get(remote);
        if (until != null) {
            if (System.nanoTime() - until < 0) {
                throw new Declined("eth-no-answer", "no accelerated listener answered at " + remote + " lately");
            }
            verdicts.remove(remote, until);
        }
        EthPort p = port();
        EthLink link = EthLink.client(p, host.mac(), local.getPort(), remote.getPort());
        if (!link.hello(p.self.ip(), remote.getAddress(), SoviaConfig.ethConnectNanos())) {
            link.close();
            verdicts.put(remote, System.nanoTime() + SoviaConfig.ethVerdictNanos());
            throw new Declined("eth-no-answer", "no accelerated listener answered at " + remote + " within "
                    + SoviaConfig.ethConnectNanos() / 1_000_000 + " ms");
        }
        return new EthOffer(link);
    }

    @Override
    public TransportListener listen(InetSocketAddress bound) {
        if (table() == null) {
            return null;
        }
        try {
            return EthListener.open(port(), bound);
        } catch (Declined unavailable) {
            return null;
        }
    }

    private EthPort port() throws Declined {
        Object p = port;
        if (p == null) {
            synchronized (this) {
                p = port;
                if (p == null) {
                    p = port = open();
                }
            }
        }
        if (p instanceof EthPort ethPort) {
            return ethPort;
        }
        String reason = (String) p;
        throw new Declined(reason.contains("CAP_NET_RAW") ? "eth-no-cap-net-raw" : "eth-unavailable", reason);
    }

    private Object open() {
        try {
            HostTable t = table();
            EthPort p = EthPort.open(t);
            p.lateAnswer = (host, serverPort) -> verdicts.keySet().removeIf(
                    to -> to.getPort() == serverPort && t.find(to.getAddress()) == host);
            p.receiver.start();
            Lifecycle.onExit(ExitStage.CLOSE, () -> p.listeners.values().forEach(EthListener::close));
            SoviaLog.info("eth: on " + p.nic.name() + " (MTU " + p.nic.mtu() + ") as " + p.self.ip().getHostAddress());
            return p;
        } catch (IOException | RuntimeException | LinkageError e) {
            SoviaLog.warn("eth: the raw Ethernet path is off, so connects between hosts use TCP: " + e.getMessage(), null);
            return String.valueOf(e.getMessage());
        }
    }

    /** A client's link between its answered hello and the end of its TCP setup. */
    private static final class EthOffer implements Offer {
        private final EthLink link;

        EthOffer(EthLink link) {
            this.link = link;
        }

        @Override
        public Link link() {
            return link;
        }

        @Override
        public AutoCloseable established() {
            return () -> { };
        }

        @Override
        public void cancel() {
            link.close();
        }
    }
}
