package io.sovia.eth;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * A network interface of this host as the kernel describes it in {@code /sys/class/net}.
 *
 * @param name  its name
 * @param index its ifindex, which packet sockets bind to
 * @param mac   its hardware address (see {@link EthFrameDescriptor#mac})
 * @param mtu   the largest payload of a frame it sends, Ethernet header excluded
 * @param up    whether it is up (operstate up, or unknown as for veth peers that report it so)
 */
record EthInterface(String name, int index, long mac, int mtu, boolean up) {
    private static final Path SYS = Path.of("/sys/class/net");

    /** The interface called {@code name}; IOException naming it when there is none. */
    static EthInterface named(String name) throws IOException {
        Path dir = SYS.resolve(name);
        if (name.contains("/") || !Files.isDirectory(dir)) {
            throw new IOException("no network interface " + name);
        }
        String state = read(dir, "operstate");
        return new EthInterface(name, Integer.parseInt(read(dir, "ifindex")),
                EthFrameDescriptor.parseMac(read(dir, "address")), Integer.parseInt(read(dir, "mtu")),
                state.equals("up") || state.equals("unknown"));
    }

    /** The interface whose address is {@code mac}, or null. */
    static EthInterface withMac(long mac) throws IOException {
        try (Stream<Path> all = Files.list(SYS)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                try {
                    EthInterface nic = named(p.getFileName().toString());
                    if (nic.mac == mac) {
                        return nic;
                    }
                } catch (IOException | IllegalArgumentException notEthernet) {
                    // an interface without an Ethernet address (a tunnel, lo's zeros parse but never match)
                }
            }
        }
        return null;
    }

    private static String read(Path dir, String file) throws IOException {
        return Files.readString(dir.resolve(file)).trim();
    }
}
