package io.sovia.examples;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.RMIServerSocketFactory;
import java.rmi.server.UnicastRemoteObject;
import java.util.Arrays;

/**
 * Java RMI: a registry and a remote {@link Calculator} listening on 127.0.0.1; the client finds it
 * through {@code LocateRegistry.getRegistry(port)} and makes 200 small calls and one with a 1 MiB
 * argument and result. Usage: {@code RmiApp [both | server | client <port>]}.
 */
public final class RmiApp {

    /** The remote interface; public because RMI builds the client's proxy from it. */
    public interface Calculator extends Remote {
        long add(long a, long b) throws RemoteException;

        String greet(String name) throws RemoteException;

        byte[] reverse(byte[] data) throws RemoteException;
    }

    private static final class CalculatorImpl implements Calculator {
        @Override
        public long add(long a, long b) {
            return a + b;
        }

        @Override
        public String greet(String name) {
            return "Hello, " + name;
        }

        @Override
        public byte[] reverse(byte[] data) {
            byte[] reversed = new byte[data.length];
            for (int i = 0; i < data.length; i++) {
                reversed[i] = data[data.length - 1 - i];
            }
            return reversed;
        }
    }

    /** Listens on 127.0.0.1 only (RMI's default is every interface). */
    private record LoopbackSockets() implements RMIServerSocketFactory {
        @Override
        public ServerSocket createServerSocket(int port) throws IOException {
            return new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
        }
    }

    private static final String NAME = "calculator";
    private static final int CALLS = 200;

    private RmiApp() {
    }

    public static void main(String[] args) {
        System.setProperty("java.rmi.server.hostname", "127.0.0.1"); // the address the stubs carry
        System.setProperty("sun.rmi.transport.tcp.responseTimeout", "30000"); // no call waits forever
        DemoSupport.run(args, RmiApp::startServer, RmiApp::runClient);
    }

    private static DemoSupport.Server startServer() throws IOException {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort(); // createRegistry(0) would not tell which port it took
        }
        Registry registry = LocateRegistry.createRegistry(port, null, new LoopbackSockets());
        Calculator calculator = new CalculatorImpl();
        registry.rebind(NAME, UnicastRemoteObject.exportObject(calculator, 0, null, new LoopbackSockets()));
        return new DemoSupport.Server(port, () -> {
            UnicastRemoteObject.unexportObject(calculator, true);
            UnicastRemoteObject.unexportObject(registry, true);
        });
    }

    private static String runClient(int port) throws Exception {
        Registry registry = LocateRegistry.getRegistry("127.0.0.1", port);
        Calculator calculator = (Calculator) registry.lookup(NAME);
        long sum = 0;
        for (int i = 0; i < CALLS; i++) {
            sum = calculator.add(sum, i);
        }
        String greeting = calculator.greet("Sovia");
        byte[] data = DemoSupport.pseudoRandomBytes(5, 1 << 20);
        byte[] reversed = calculator.reverse(data);
        for (int i = 0; i < data.length; i++) {
            if (reversed[i] != data[data.length - 1 - i]) {
                throw new IllegalStateException("reverse differs at " + i);
            }
        }
        return "names=" + Arrays.toString(registry.list()) + " sum=" + sum + " greeting=" + greeting
                + " reversed=" + reversed.length + " sha256=" + DemoSupport.sha256(reversed);
    }
}
