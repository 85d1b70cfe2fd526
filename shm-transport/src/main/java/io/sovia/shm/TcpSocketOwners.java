package io.sovia.shm;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Which process holds the client end of a local TCP connection, from {@code /proc}: the connection's socket inode in
 * {@code /proc/self/net/tcp} or {@code tcp6} (the client end is in this network namespace, as the connection is
 * local), then that inode among a process's {@code /proc/PID/fd} links. Only for the rare case it serves (two hellos
 * naming one client address), as it reads every connection of the host.
 *
 * <p>A line of those tables, after its slot number: {@code LOCAL REMOTE STATE TX:RX TIMER RETRANSMITS UID TIMEOUT
 * INODE ...}, addresses as {@code HEXADDR:HEXPORT} with the address in 32-bit words of the kernel's byte order.
 */
final class TcpSocketOwners {
    private static final Path PROC = Path.of("/proc");
    private static final int LOCAL = 1;
    private static final int REMOTE = 2;
    private static final int INODE = 9;

    private TcpSocketOwners() {
    }

    /**
     * The inode of the socket bound to {@code client} and connected to port {@code serverPort} of this host, or 0 if
     * there is none a descriptor holds (the client closed it, or it is in another namespace).
     */
    static long clientSocket(InetSocketAddress client, int serverPort) throws IOException {
        for (String table : List.of("net/tcp", "net/tcp6")) {
            Path file = PROC.resolve("self").resolve(table);
            if (!Files.exists(file)) {
                continue;
            }
            List<String> lines = Files.readAllLines(file);
            for (int i = 1; i < lines.size(); i++) {
                String[] f = lines.get(i).trim().split("\\s+");
                if (f.length > INODE && port(f[REMOTE]) == serverPort && port(f[LOCAL]) == client.getPort()
                        && address(f[LOCAL]).equals(client.getAddress())) {
                    long inode = Long.parseLong(f[INODE]);
                    if (inode != 0) {
                        return inode;
                    }
                }
            }
        }
        return 0;
    }

    /** Whether process {@code pid} has a descriptor on socket {@code inode}; false if its descriptors cannot be read. */
    static boolean holds(int pid, long inode) {
        String link = "socket:[" + inode + "]";
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(PROC.resolve(String.valueOf(pid)).resolve("fd"))) {
            for (Path fd : fds) {
                try {
                    if (Files.readSymbolicLink(fd).toString().equals(link)) {
                        return true;
                    }
                } catch (IOException closedMeanwhile) {
                    // the descriptor went while we looked: not the one
                }
            }
            return false;
        } catch (IOException | DirectoryIteratorException | SecurityException gone) {
            return false;
        }
    }

    private static int port(String endpoint) {
        return Integer.parseInt(endpoint.substring(endpoint.indexOf(':') + 1), 16);
    }

    /** An address of the tables: one (IPv4) or four 32-bit words, each printed as a number in the kernel's order. */
    static InetAddress address(String endpoint) throws UnknownHostException {
        String hex = endpoint.substring(0, endpoint.indexOf(':'));
        byte[] bytes = new byte[hex.length() / 2];
        boolean little = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
        for (int word = 0; word < bytes.length / 4; word++) {
            int v = Integer.parseUnsignedInt(hex.substring(word * 8, word * 8 + 8), 16);
            for (int b = 0; b < 4; b++) {
                int shift = little ? 8 * b : 8 * (3 - b);
                bytes[word * 4 + b] = (byte) (v >>> shift);
            }
        }
        // an IPv4-mapped IPv6 address comes back as the IPv4 address, as the accept reports it
        return InetAddress.getByAddress(bytes);
    }
}
