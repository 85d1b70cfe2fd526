package io.sovia.examples;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * A sink server that accepts late, as a busy accept loop does, and a client that writes at once: the client's
 * first bytes and its window probes reach the server before it took the connection.
 *
 * <pre>
 *   LateAcceptSink server CONNECTIONS DELAY_MS   prints PORT n, then READ n for each connection, then DONE
 *   LateAcceptSink client PORT CONNECTIONS BYTES connects, writes BYTES and closes, one connection after another
 * </pre>
 */
public final class LateAcceptSink {
    private LateAcceptSink() {
    }

    public static void main(String[] args) throws Exception {
        int connections = Integer.parseInt(args[args[0].equals("server") ? 1 : 2]);
        if (args[0].equals("server")) {
            try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
                System.out.println("PORT " + server.getLocalPort());
                System.out.flush();
                for (int i = 0; i < connections; i++) {
                    Thread.sleep(Long.parseLong(args[2]));
                    try (Socket s = server.accept(); InputStream in = s.getInputStream()) {
                        System.out.println("READ " + in.transferTo(OutputStream.nullOutputStream()));
                    }
                }
                System.out.println("DONE");
            }
        } else {
            byte[] bytes = new byte[Integer.parseInt(args[3])];
            for (int i = 0; i < connections; i++) {
                try (Socket s = new Socket(InetAddress.getLoopbackAddress(), Integer.parseInt(args[1]))) {
                    s.getOutputStream().write(bytes);
                }
            }
        }
    }
}
