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
 *   LateAcceptSink holder PORT BYTES             connects, prints CONNECTED and its port, writes BYTES, shuts its
 *                                                output and holds the connection until the server closes it
 * </pre>
 * A DELAY_MS of -1 waits for the end of standard input instead.
 */
public final class LateAcceptSink {
    private LateAcceptSink() {
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("holder")) {
            hold(Integer.parseInt(args[1]), Integer.parseInt(args[2]));
            return;
        }
        int connections = Integer.parseInt(args[args[0].equals("server") ? 1 : 2]);
        if (args[0].equals("server")) {
            try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
                System.out.println("PORT " + server.getLocalPort());
                System.out.flush();
                for (int i = 0; i < connections; i++) {
                    long delay = Long.parseLong(args[2]);
                    if (delay < 0) {
                        System.in.transferTo(OutputStream.nullOutputStream());
                    } else {
                        Thread.sleep(delay);
                    }
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

    private static void hold(int port, int bytes) throws Exception {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            System.out.println("CONNECTED " + s.getLocalPort());
            System.out.flush();
            s.getOutputStream().write(new byte[bytes]);
            s.shutdownOutput();
            System.out.println("CLOSED BY SERVER after " + s.getInputStream().transferTo(OutputStream.nullOutputStream()));
        }
    }
}
