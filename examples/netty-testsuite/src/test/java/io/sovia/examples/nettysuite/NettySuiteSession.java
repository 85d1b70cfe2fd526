package io.sovia.examples.nettysuite;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Prepares a test JVM that runs Netty's testsuite, before any Netty class is loaded:
 * <ul>
 * <li>removes the agent's stats file ({@code -Dsovia.stats}) left by an earlier build, so the file the
 * path check reads is this run's;</li>
 * <li>points {@code io.netty.testsuite.badHost/badPort} (read once, when {@code SocketTestPermutation} is
 * initialised) at a loopback listener whose accept queue is full: Linux drops SYNs to it, so a connect
 * times out as Netty's default bad host (198.51.100.254, a documentation address) would make it, without
 * sending a packet off this machine. The listener and its fillers are the JDK's own channels
 * ({@code sun.nio.ch.DefaultSelectorProvider}), not Sovia's: to Sovia it is a foreign TCP host;</li>
 * <li>hooks {@link PermutationTally} into Netty's log, which names each permutation it starts, and
 * removes its file of an earlier build.</li>
 * </ul>
 * Registered in {@code META-INF/services}; does nothing but the first point outside a Netty run
 * ({@code -Dnts.report} unset).
 */
public final class NettySuiteSession implements LauncherSessionListener {

    /** Held for the JVM's life: closing them would empty the queue. */
    private static final List<java.nio.channels.Channel> BLACKHOLE = new ArrayList<>();

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        try {
            String stats = System.getProperty("sovia.stats");
            if (stats != null) {
                Files.deleteIfExists(Path.of(stats));
            }
            String report = System.getProperty("nts.report");
            if (report == null) {
                return;
            }
            Files.deleteIfExists(Path.of(report, "tests.tsv"));
            if (System.getProperty("io.netty.testsuite.badHost") == null) {
                InetSocketAddress blackhole = blackhole();
                System.setProperty("io.netty.testsuite.badHost", blackhole.getAddress().getHostAddress());
                System.setProperty("io.netty.testsuite.badPort", Integer.toString(blackhole.getPort()));
            }
            PermutationTally.attachToNettyLog();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A loopback address whose listener takes no more connections: SYNs to it are dropped. */
    static synchronized InetSocketAddress blackhole() throws IOException {
        SelectorProvider jdk = sun.nio.ch.DefaultSelectorProvider.get();
        ServerSocketChannel server = jdk.openServerSocketChannel();
        BLACKHOLE.add(server);
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1);
        InetSocketAddress address = (InetSocketAddress) server.getLocalAddress();
        for (int i = 0; i < 64; i++) {
            SocketChannel filler = jdk.openSocketChannel();
            BLACKHOLE.add(filler);
            filler.configureBlocking(false);
            if (filler.connect(address)) {
                continue;
            }
            long deadline = System.nanoTime() + 300_000_000L;
            while (!filler.finishConnect() && System.nanoTime() < deadline) {
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException(e);
                }
            }
            if (!filler.isConnected()) {
                return address; // this one's SYN was dropped: the queue is full
            }
        }
        throw new IOException("the accept queue of " + address + " did not fill: no host to time out on");
    }
}
