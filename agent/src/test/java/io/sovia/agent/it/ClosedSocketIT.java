package io.sovia.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * What a connected socket's accessors answer once it is closed, for java.net sockets and for channel adaptors, on
 * both ends. The table holds what the JDK (17 and 25) answers; {@code -Dsovia.it.plain=true} checks it there.
 */
class ClosedSocketIT extends SoviaTestBase {

    private static final InetAddress ANY = new InetSocketAddress(0).getAddress();

    /** The rows: each accessor with the JDK's answer after close for a java.net socket and for an adaptor. */
    private static final List<Row> ROWS = List.of(
            new Row("getLocalAddress", (s, in) -> s.getLocalAddress(), open -> ANY, open -> ANY),
            new Row("getLocalPort", (s, in) -> s.getLocalPort(), open -> open.local().getPort(),
                    open -> open.local().getPort()),
            new Row("getLocalSocketAddress", (s, in) -> s.getLocalSocketAddress(),
                    open -> new InetSocketAddress(ANY, open.local().getPort()), Open::local),
            new Row("getInetAddress", (s, in) -> s.getInetAddress(), open -> open.remote().getAddress(),
                    open -> open.remote().getAddress()),
            new Row("getPort", (s, in) -> s.getPort(), open -> open.remote().getPort(),
                    open -> open.remote().getPort()),
            new Row("getRemoteSocketAddress", (s, in) -> s.getRemoteSocketAddress(), Open::remote, Open::remote),
            new Row("isBound", (s, in) -> s.isBound(), open -> true, open -> true),
            new Row("isConnected", (s, in) -> s.isConnected(), open -> true, open -> false),
            new Row("isClosed", (s, in) -> s.isClosed(), open -> true, open -> true),
            new Row("isInputShutdown", (s, in) -> s.isInputShutdown(), open -> false, open -> false),
            new Row("isOutputShutdown", (s, in) -> s.isOutputShutdown(), open -> false, open -> false),
            new Row("getInputStream", (s, in) -> s.getInputStream(),
                    open -> threw(SocketException.class, "Socket is closed"),
                    open -> threw(SocketException.class, "Socket is closed")),
            new Row("available", (s, in) -> in.available(),
                    open -> threw(SocketException.class, "Socket closed"),
                    open -> threw(ClosedChannelException.class, null)),
            new Row("read", (s, in) -> in.read(),
                    open -> threw(SocketException.class, "Socket closed"),
                    open -> threw(ClosedChannelException.class, null)));

    @TransportTest
    void accessorsAfterCloseAnswerAsTheJdk(Transport transport) throws Exception {
        try (SocketPair net = SocketPair.open(transport); NioPair nio = NioPair.open(transport)) {
            List<String> mismatches = new ArrayList<>();
            checkAfterClose("java.net client", net.client(), openSocket(net.client()), mismatches);
            checkAfterClose("java.net accepted", net.accepted(), openSocket(net.accepted()), mismatches);
            // an adaptor is not asked before close, so nothing it remembers can come from an earlier call
            checkAfterClose("adaptor client", nio.client().socket(), openChannel(nio.client()), mismatches);
            checkAfterClose("adaptor accepted", nio.accepted().socket(), openChannel(nio.accepted()), mismatches);
            assertEquals(List.of(), mismatches);
        }
    }

    private static Open openSocket(Socket socket) throws Exception {
        return new Open((InetSocketAddress) socket.getLocalSocketAddress(),
                (InetSocketAddress) socket.getRemoteSocketAddress(), socket.getInputStream(), false);
    }

    private static Open openChannel(SocketChannel channel) throws Exception {
        return new Open((InetSocketAddress) channel.getLocalAddress(), (InetSocketAddress) channel.getRemoteAddress(),
                channel.socket().getInputStream(), true);
    }

    /** Closes {@code socket}, then compares every row's answer with the JDK's. */
    private static void checkAfterClose(String what, Socket socket, Open open, List<String> mismatches)
            throws Exception {
        socket.close();
        for (Row row : ROWS) {
            Object expected = (open.adaptor() ? row.adaptor() : row.javaNet()).apply(open);
            Object actual = answer(row.accessor(), socket, open.in());
            if (!Objects.equals(expected, actual)) {
                mismatches.add(what + " " + row.name() + ": JDK " + expected + ", got " + actual);
            }
        }
    }

    private static Object answer(Accessor accessor, Socket socket, InputStream in) {
        try {
            Object value = accessor.get(socket, in);
            // a stream has no useful equality: only whether one was returned matters
            return value instanceof InputStream ? "a stream" : value;
        } catch (Exception e) {
            return threw(e.getClass(), e.getMessage());
        }
    }

    private static String threw(Class<?> type, String message) {
        return "threw " + type.getName() + ": " + message;
    }

    /** One call on a closed socket or on the input stream it handed out while open. */
    @FunctionalInterface
    private interface Accessor {
        Object get(Socket socket, InputStream in) throws Exception;
    }

    /** An accessor with the JDK's answers after close, computed from what the socket was while open. */
    private record Row(String name, Accessor accessor, Function<Open, Object> javaNet, Function<Open, Object> adaptor) {
    }

    /** What a socket was while open, taken without asking an adaptor, and its input stream. */
    private record Open(InetSocketAddress local, InetSocketAddress remote, InputStream in, boolean adaptor) {
    }
}
