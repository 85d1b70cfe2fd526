package io.sovia.eth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The host table's format: what it takes, and a clear error naming the line for what it does not. */
@Timeout(10)
class HostTableTest {

    @Test
    void readsHostsWithCommentsBlankLinesAndOptionalInterfaces() throws IOException {
        HostTable t = HostTable.parse("hosts", List.of(
                "# the cluster",
                "",
                "10.0.0.1 02:00:00:00:00:01 eth0   # this one names its interface",
                "  10.0.0.2\t02:00:00:00:00:0A",
                "fd00::3 02:00:00:00:00:03"));
        assertEquals(3, t.size());
        HostTable.Host one = t.find(InetAddress.getByName("10.0.0.1"));
        assertEquals(0x020000000001L, one.mac());
        assertEquals("eth0", one.interfaceName());
        assertEquals("10.0.0.2", t.byMac(0x02000000000AL).ip().getHostAddress());
        assertNull(t.find(InetAddress.getByName("10.0.0.9")), "a host not listed is not in the cluster");
        assertTrue(t.find(InetAddress.getByName("fd00::3")) != null);
    }

    @Test
    void namesTheLineOfWhatItCannotTake() {
        assertError("hosts line 2: expected IP MAC [INTERFACE]", "10.0.0.1 02:00:00:00:00:01", "10.0.0.2");
        assertError("hosts line 1: not a MAC address: 02:00:00:00:01", "10.0.0.1 02:00:00:00:01");
        assertError("hosts line 1: not a MAC address: zz:00:00:00:00:01", "10.0.0.1 zz:00:00:00:00:01");
        assertError("hosts line 1: not an IP address: db.example", "db.example 02:00:00:00:00:01");
        assertError("hosts line 2: 10.0.0.1 is listed twice", "10.0.0.1 02:00:00:00:00:01", "10.0.0.1 02:00:00:00:00:02");
        assertError("hosts line 2: 02:00:00:00:00:01 is listed twice", "10.0.0.1 02:00:00:00:00:01",
                "10.0.0.2 02:00:00:00:00:01");
        assertError("hosts line 1: expected IP MAC [INTERFACE]", "10.0.0.1 02:00:00:00:00:01 eth0 extra");
    }

    @Test
    void macsRoundTrip() {
        long mac = EthFrameDescriptor.parseMac("8e:a0:5b:85:b4:5f");
        assertEquals("8e:a0:5b:85:b4:5f", EthFrameDescriptor.formatMac(mac));
    }

    private static void assertError(String expected, String... lines) {
        IOException e = assertThrows(IOException.class, () -> HostTable.parse("hosts", List.of(lines)));
        assertTrue(e.getMessage().startsWith(expected), () -> "got: " + e.getMessage());
    }
}
