package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Pipe;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Channels Sovia does not accelerate (datagrams, pipes, UNIX-domain sockets) share one selector with socket
 * channels and still get their readiness events.
 */
class PassThroughSelectIT extends SoviaTestBase {

    @TransportTest
    void passThroughChannelsSelectBesideSocketChannels(Transport transport) throws IOException {
        try (NioPair tcp = NioPair.open(transport);
                DatagramChannel receiver = DatagramChannel.open();
                DatagramChannel sender = DatagramChannel.open();
                UnixSockets unix = new UnixSockets();
                SocketChannel unixClient = SocketChannel.open(StandardProtocolFamily.UNIX);
                Selector selector = Selector.open()) {
            Pipe pipe = Pipe.open();
            try (Pipe.SourceChannel source = pipe.source(); Pipe.SinkChannel sink = pipe.sink()) {
                receiver.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                Map<SelectionKey, Integer> expected = new HashMap<>();
                expected.put(register(tcp.client(), selector, SelectionKey.OP_READ), SelectionKey.OP_READ);
                expected.put(register(receiver, selector, SelectionKey.OP_READ), SelectionKey.OP_READ);
                expected.put(register(source, selector, SelectionKey.OP_READ), SelectionKey.OP_READ);
                expected.put(register(sink, selector, SelectionKey.OP_WRITE), SelectionKey.OP_WRITE);
                SelectionKey acceptKey = register(unix.server(), selector, SelectionKey.OP_ACCEPT);
                expected.put(acceptKey, SelectionKey.OP_ACCEPT);

                unixClient.connect(unix.address());
                Io.writeFully(tcp.accepted(), ByteBuffer.wrap(new byte[] {1}));
                sender.send(ByteBuffer.wrap(new byte[] {2}), receiver.getLocalAddress());
                Io.writeFully(sink, ByteBuffer.wrap(new byte[] {3}));
                awaitAll(selector, expected);

                try (SocketChannel unixAccepted = unix.server().accept()) {
                    acceptKey.cancel();
                    SelectionKey unixKey = register(unixAccepted, selector, SelectionKey.OP_READ);
                    Io.writeFully(unixClient, ByteBuffer.wrap(new byte[] {4}));
                    assertEquals(4, Io.readOne(selector, unixKey), "the accepted UNIX channel reports reads too");
                }
            }
        }
    }

    /** Registers a channel in non-blocking mode. */
    private static SelectionKey register(SelectableChannel channel, Selector selector, int ops) throws IOException {
        channel.configureBlocking(false);
        return channel.register(selector, ops);
    }

    /** Selects until every key has been selected with its expected ready ops, failing after {@link Io#WAIT_MILLIS}. */
    private static void awaitAll(Selector selector, Map<SelectionKey, Integer> expected) throws IOException {
        long deadline = System.currentTimeMillis() + Io.WAIT_MILLIS;
        Map<SelectionKey, Integer> missing = new HashMap<>(expected);
        while (!missing.isEmpty() && System.currentTimeMillis() < deadline) {
            selector.select(Math.max(1, deadline - System.currentTimeMillis()));
            List<SelectionKey> ready = new ArrayList<>(selector.selectedKeys());
            selector.selectedKeys().clear();
            for (SelectionKey key : ready) {
                missing.computeIfPresent(key, (k, ops) -> (key.readyOps() & ops) == ops ? null : ops);
            }
        }
        assertTrue(missing.isEmpty(), () -> "never ready: " + describe(missing.keySet()));
    }

    private static List<String> describe(Iterable<SelectionKey> keys) {
        List<String> names = new ArrayList<>();
        keys.forEach(key -> names.add(key.channel().getClass().getSimpleName()));
        return names;
    }
}
