package io.sovia.examples;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Holds many idle connections: opens CONNECTIONS to an echo server, sends SIZE bytes on each and reads the echo
 * back ROUNDS times, then prints {@code HELD} and waits for a line on standard input; closes them all, prints
 * {@code CLOSED} and waits for standard input to end. Plain JDK only.
 *
 * <pre>  java IdleClient PORT CONNECTIONS ROUNDS SIZE</pre>
 */
public final class IdleClient {
    private IdleClient() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int connections = Integer.parseInt(args[1]);
        int rounds = Integer.parseInt(args[2]);
        byte[] message = new byte[Integer.parseInt(args[3])];
        Arrays.fill(message, (byte) 'x');
        List<Socket> sockets = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
            sockets.add(s);
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            for (int round = 0; round < rounds; round++) {
                out.write(message);
                byte[] echo = in.readNBytes(message.length);
                if (!Arrays.equals(message, echo)) {
                    throw new IllegalStateException("connection " + i + " echoed something else");
                }
            }
        }
        System.out.println("HELD " + sockets.size());
        System.out.flush();
        System.in.read();
        for (Socket s : sockets) {
            s.close();
        }
        System.out.println("CLOSED");
        System.out.flush();
        while (System.in.read() >= 0) {
            // until the test is done
        }
    }
}
