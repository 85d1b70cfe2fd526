package io.sovia.spi.transport;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Whether an address belongs to this host; answers are cached, since interfaces rarely change. */
public final class LocalAddresses {
    private static final Map<InetAddress, Boolean> LOCAL = new ConcurrentHashMap<>();

    private LocalAddresses() {
    }

    /** True for loopback, wildcard and the addresses of this host's interfaces. */
    public static boolean isLocal(InetAddress address) {
        if (address.isLoopbackAddress() || address.isAnyLocalAddress()) {
            return true;
        }
        return LOCAL.computeIfAbsent(address, a -> {
            try {
                return NetworkInterface.getByInetAddress(a) != null;
            } catch (SocketException e) {
                return false;
            }
        });
    }
}
