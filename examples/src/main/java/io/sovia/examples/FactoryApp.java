package io.sovia.examples;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketImplFactory;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An app that brings its own socket implementation: it installs its own factory with
 * {@code Socket.setSocketImplFactory} and {@code ServerSocket.setSocketFactory} (allowed once per
 * JVM, so this fails if anything else got there first), whose impls ({@link ChannelSocketImpl}) run
 * on java.nio channels, then runs a length-prefixed echo of 200 messages over java.net sockets made
 * through that factory. Usage: {@code FactoryApp [both | server | client <port>]}.
 */
public final class FactoryApp {

    private static final int MESSAGES = 200;
    private static final int TIMEOUT_MILLIS = 30_000;
    private static final AtomicInteger CONNECTS = new AtomicInteger();
    private static boolean factoriesInstalled;

    private FactoryApp() {
    }

    public static void main(String[] args) {
        DemoSupport.run(args, FactoryApp::startServer, FactoryApp::runClient);
    }

    /** Installs the factories before the first socket; both roles run in one JVM in {@code both} mode. */
    private static synchronized void installFactories() throws IOException {
        if (!factoriesInstalled) {
            SocketImplFactory factory = () -> new ChannelSocketImpl(CONNECTS);
            Socket.setSocketImplFactory(factory);
            ServerSocket.setSocketFactory(factory);
            factoriesInstalled = true;
        }
    }

    private static DemoSupport.Server startServer() throws IOException {
        installFactories();
        ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> {
            try {
                while (true) {
                    Socket accepted = listener.accept();
                    new Thread(() -> echo(accepted), "echo-" + accepted.getPort()).start();
                }
            } catch (SocketException closed) {
                // the server was stopped
            } catch (IOException e) {
                e.printStackTrace();
            }
        }, "echo-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
        return new DemoSupport.Server(listener.getLocalPort(), listener::close);
    }

    private static void echo(Socket socket) {
        try (socket) {
            socket.setTcpNoDelay(true); // length and body are two writes: don't let Nagle hold the body
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
            while (true) {
                byte[] message = new byte[in.readInt()];
                in.readFully(message);
                out.writeInt(message.length);
                out.write(message);
                out.flush();
            }
        } catch (EOFException done) {
            // the client closed its end
        } catch (IOException e) {
            e.printStackTrace();
        }
    }

    private static String runClient(int port) throws IOException {
        installFactories();
        MessageDigest digest = DemoSupport.sha256();
        long bytes = 0;
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), TIMEOUT_MILLIS);
            socket.setSoTimeout(TIMEOUT_MILLIS);
            socket.setTcpNoDelay(true);
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
            for (int i = 0; i < MESSAGES; i++) {
                byte[] message = DemoSupport.pseudoRandomBytes(i, 1 + (i * 331) % 20_000);
                out.writeInt(message.length);
                out.write(message);
                out.flush();
                byte[] echoed = new byte[in.readInt()];
                in.readFully(echoed);
                if (!Arrays.equals(message, echoed)) {
                    throw new IOException("echo " + i + " differs");
                }
                digest.update(echoed);
                bytes += echoed.length;
            }
        }
        // connects counts the connections our factory's impls made: 1 unless the factory was bypassed
        return "factory=" + ChannelSocketImpl.class.getSimpleName() + " connects=" + CONNECTS.get()
                + " echo=" + MESSAGES + "/" + MESSAGES + " bytes=" + bytes + " sha256=" + DemoSupport.hex(digest);
    }
}
