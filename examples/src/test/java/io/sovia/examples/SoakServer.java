package io.sovia.examples;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;

/**
 * The soak's server: a one-thread selector echo server that also tells what it holds. Plain JDK only.
 *
 * <pre>  java SoakServer</pre>
 * Prints {@code PORT n}; then, for each line {@code stats} on standard input, collects garbage (mappings and
 * direct buffers go with their owners) and prints {@code STATS fds=.. threads=.. direct=.. mapped=.. open=..};
 * ends when standard input ends.
 */
public final class SoakServer {
    private SoakServer() {
    }

    public static void main(String[] args) throws Exception {
        try (Selector selector = Selector.open(); ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
            listener.configureBlocking(false);
            listener.register(selector, SelectionKey.OP_ACCEPT);
            System.out.println("PORT " + ((InetSocketAddress) listener.getLocalAddress()).getPort());
            System.out.flush();
            Thread commands = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in))) {
                    for (String line; (line = in.readLine()) != null; ) {
                        if (line.equals("stats")) {
                            System.out.println(stats(selector.keys().size() - 1));
                            System.out.flush();
                        }
                    }
                } catch (IOException ignored) {
                    // ended either way
                }
                selector.wakeup();
                try {
                    selector.close();
                } catch (IOException ignored) {
                    // closing
                }
            }, "commands");
            commands.setDaemon(true);
            commands.start();
            while (selector.isOpen()) {
                try {
                    selector.select(1000);
                } catch (java.nio.channels.ClosedSelectorException closed) {
                    break;
                }
                serve(selector, listener);
            }
        }
    }

    private static void serve(Selector selector, ServerSocketChannel listener) {
        Iterator<SelectionKey> it;
        try {
            it = selector.selectedKeys().iterator();
        } catch (java.nio.channels.ClosedSelectorException closed) {
            return;
        }
        while (it.hasNext()) {
            SelectionKey key = it.next();
            it.remove();
            try {
                if (key.isAcceptable()) {
                    SocketChannel c;
                    while ((c = listener.accept()) != null) {
                        c.configureBlocking(false);
                        c.register(selector, SelectionKey.OP_READ, ByteBuffer.allocate(32 * 1024));
                    }
                    continue;
                }
                SocketChannel c = (SocketChannel) key.channel();
                ByteBuffer b = (ByteBuffer) key.attachment();
                try {
                    if (key.isWritable()) {
                        c.write(b);
                    } else if (key.isReadable() && c.read(b) < 0) {
                        c.close();
                        continue;
                    }
                    b.flip();
                    c.write(b);
                    b.compact();
                    key.interestOps(b.position() > 0 ? SelectionKey.OP_WRITE : SelectionKey.OP_READ);
                } catch (IOException reset) {
                    c.close();
                }
            } catch (IOException | java.nio.channels.CancelledKeyException e) {
                key.cancel();
            }
        }
    }

    private static String stats(int open) throws IOException {
        System.gc();
        try {
            Thread.sleep(200); // cleaners run on their own thread
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        System.gc();
        long direct = 0;
        long mapped = 0;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                direct = pool.getMemoryUsed();
            } else if (pool.getName().equals("mapped")) {
                mapped = pool.getMemoryUsed();
            }
        }
        long fds;
        try (var list = Files.list(Path.of("/proc/self/fd"))) {
            fds = list.count();
        }
        return "STATS fds=" + fds + " threads=" + Thread.activeCount() + " direct=" + direct + " mapped=" + mapped
                + " open=" + open;
    }
}
