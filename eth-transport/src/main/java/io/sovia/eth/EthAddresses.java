package io.sovia.eth;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;

/** IP addresses in the 16 bytes a HELLO gives each: IPv6 as is, IPv4 mapped ({@code ::ffff:a.b.c.d}). */
final class EthAddresses {
    private EthAddresses() {
    }

    static byte[] bytes16(InetAddress address) {
        byte[] raw = address.getAddress();
        if (address instanceof Inet4Address) {
            byte[] mapped = new byte[16];
            mapped[10] = (byte) 0xFF;
            mapped[11] = (byte) 0xFF;
            System.arraycopy(raw, 0, mapped, 12, 4);
            return mapped;
        }
        return raw;
    }

    /** The address in the 16 bytes at {@code at} of {@code b}; an IPv4-mapped one comes back as IPv4. */
    static InetAddress read(ByteBuffer b, int at) {
        byte[] raw = new byte[16];
        b.get(at, raw);
        try {
            return InetAddress.getByAddress(raw); // the JDK turns a mapped address into an Inet4Address
        } catch (UnknownHostException impossible) {
            throw new IllegalStateException(impossible);
        }
    }
}
