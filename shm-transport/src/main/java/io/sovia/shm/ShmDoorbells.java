package io.sovia.shm;

import io.sovia.spi.config.SoviaLog;
import io.sovia.spi.link.RingLink;
import io.sovia.spi.nio.SoviaSelectorProvider;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Iterator;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The per-JVM doorbell thread: one JDK selector over the UNIX socket of every shared-memory
 * connection. A byte on it means "the peer published frames while you slept": the link's session wakes
 * its sleepers. End of stream or an error means the peer process is gone: the link is marked dead at
 * once, which the survivor's next call reports as "Connection reset".
 */
final class ShmDoorbells {
    private static volatile ShmDoorbells instance;

    private final Selector selector;
    private final Queue<Map.Entry<SocketChannel, RingLink>> added = new ConcurrentLinkedQueue<>();
    private final ByteBuffer scratch = ByteBuffer.allocateDirect(256);

    private ShmDoorbells() throws IOException {
        this.selector = SoviaSelectorProvider.jdk().openSelector();
        Thread t = new Thread(this::run, "sovia-doorbells");
        t.setDaemon(true);
        t.start();
    }

    static ShmDoorbells get() throws IOException {
        ShmDoorbells d = instance;
        if (d == null) {
            synchronized (ShmDoorbells.class) {
                d = instance;
                if (d == null) {
                    d = new ShmDoorbells();
                    instance = d;
                }
            }
        }
        return d;
    }

    /** Watches {@code channel} (made non-blocking here) for {@code link}. */
    void watch(SocketChannel channel, RingLink link) throws IOException {
        channel.configureBlocking(false);
        added.add(Map.entry(channel, link));
        selector.wakeup();
    }

    /** Closes a watched channel; the selector is woken so the descriptor is released now. */
    void close(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing is all that was wanted
        }
        selector.wakeup();
    }

    private void run() {
        while (true) {
            try {
                selector.select();
                Map.Entry<SocketChannel, RingLink> e;
                while ((e = added.poll()) != null) {
                    if (e.getKey().isOpen()) {
                        e.getKey().register(selector, SelectionKey.OP_READ, e.getValue());
                    }
                }
                for (Iterator<SelectionKey> it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                    SelectionKey key = it.next();
                    it.remove();
                    ring(key);
                }
            } catch (IOException | RuntimeException e) {
                SoviaLog.warn("doorbell thread survived an error", e);
            }
        }
    }

    private void ring(SelectionKey key) {
        RingLink link = (RingLink) key.attachment();
        boolean alive;
        try {
            int n;
            do {
                scratch.clear();
                n = ((SocketChannel) key.channel()).read(scratch);
            } while (n > 0);
            alive = n == 0;
        } catch (IOException e) {
            alive = false;
        }
        if (alive) {
            link.wake();
        } else {
            key.cancel();
            link.peerDied();
        }
    }
}
