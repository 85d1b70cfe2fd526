package io.sovia.eth;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The cluster: which hosts the eth path reaches, read from the {@code sovia.hosts} file. One line per host,
 * {@code IP MAC [INTERFACE]}, {@code #} starts a comment; the interface is that host's own interface on the
 * segment (this host uses the one named on its own line, or the one with its MAC). The same file serves every
 * host: each finds itself by a MAC of its own.
 */
final class HostTable {
    /** One cluster host. */
    record Host(InetAddress ip, long mac, String interfaceName) {
    }

    private final Map<InetAddress, Host> byIp;
    private final Map<Long, Host> byMac;

    private HostTable(Map<InetAddress, Host> byIp, Map<Long, Host> byMac) {
        this.byIp = byIp;
        this.byMac = byMac;
    }

    /** Reads {@code file}; IOException naming the file and line of anything it cannot take. */
    static HostTable read(Path file) throws IOException {
        return parse(file.toString(), Files.readAllLines(file));
    }

    static HostTable parse(String source, List<String> lines) throws IOException {
        Map<InetAddress, Host> byIp = new HashMap<>();
        Map<Long, Host> byMac = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            int hash = line.indexOf('#');
            String[] fields = (hash >= 0 ? line.substring(0, hash) : line).trim().split("\\s+");
            if (fields.length == 1 && fields[0].isEmpty()) {
                continue;
            }
            String where = source + " line " + (i + 1) + ": ";
            if (fields.length < 2 || fields.length > 3) {
                throw new IOException(where + "expected IP MAC [INTERFACE], got: " + line.trim());
            }
            Host host;
            try {
                host = new Host(literal(fields[0]), EthFrameDescriptor.parseMac(fields[1]),
                        fields.length == 3 ? fields[2] : null);
            } catch (IllegalArgumentException | UnknownHostException e) {
                throw new IOException(where + e.getMessage(), e);
            }
            if (byIp.putIfAbsent(host.ip(), host) != null) {
                throw new IOException(where + host.ip().getHostAddress() + " is listed twice");
            }
            if (byMac.putIfAbsent(host.mac(), host) != null) {
                throw new IOException(where + fields[1] + " is listed twice");
            }
        }
        return new HostTable(Map.copyOf(byIp), Map.copyOf(byMac));
    }

    /** An IP literal, never a name: a lookup per line could hang the JVM's start on DNS. */
    private static InetAddress literal(String text) throws UnknownHostException {
        if (!text.matches("[0-9a-fA-F:.]+") || !(text.contains(".") || text.contains(":"))) {
            throw new UnknownHostException("not an IP address: " + text);
        }
        return InetAddress.getByName(text);
    }

    /** The host at {@code ip}, or null when it is not in the cluster. */
    Host find(InetAddress ip) {
        return byIp.get(ip);
    }

    /** The host whose interface has {@code mac}, or null. */
    Host byMac(long mac) {
        return byMac.get(mac);
    }

    /** This host's line and its interface, found by a MAC of one of its interfaces; IOException if none. */
    Self self() throws IOException {
        for (Host h : byMac.values()) {
            EthInterface nic = h.interfaceName() != null ? namedOrNull(h.interfaceName()) : EthInterface.withMac(h.mac());
            if (nic != null && nic.mac() == h.mac()) {
                return new Self(h, nic);
            }
        }
        throw new IOException("this host is not in the host table (no interface has a MAC listed there)");
    }

    private static EthInterface namedOrNull(String name) {
        try {
            return EthInterface.named(name);
        } catch (IOException | IllegalArgumentException notHere) {
            return null;
        }
    }

    /** This host's entry and the interface it reaches the cluster through. */
    record Self(Host host, EthInterface nic) {
    }

    int size() {
        return byIp.size();
    }
}
