package io.sovia.agent.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.sun.tools.attach.VirtualMachine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.openmbean.TabularData;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import java.nio.file.Path;
import java.util.List;

/**
 * The {@code io.sovia} MBeans of a server JVM under the agent, read over JMX from this JVM as jconsole would: the
 * Attach API starts the server's local management agent (which creates the MBean server the beans wait for), and a
 * JMX connector reads the beans.
 */
@Timeout(180)
class JmxIT {
    @TempDir
    Path dir;

    @Test
    void countsTheServersShmConnections() throws Exception {
        try (Forked server = Forked.app(dir, "server", List.of(), "server")) {
            String port = server.awaitPort();
            try (Forked client = Forked.app(dir, "client", List.of(), "client", port, "2")) {
                client.awaitLine("^LOCAL ", Forked.START);
                VirtualMachine vm = VirtualMachine.attach(String.valueOf(server.pid()));
                String address;
                try {
                    address = vm.startLocalManagementAgent();
                } finally {
                    vm.detach();
                }
                try (JMXConnector jmx = JMXConnectorFactory.connect(new JMXServiceURL(address))) {
                    MBeanServerConnection beans = jmx.getMBeanServerConnection();
                    ObjectName shm = new ObjectName("io.sovia:type=Path,name=shm");
                    // registered once the attach made the MBean server, within a second
                    awaitRegistered(beans, shm);
                    // at least the client's two; the JMX connection itself may ride on shm too
                    assertTrue((Long) beans.getAttribute(shm, "ConnectionsOpen") >= 2, server.report());
                    assertTrue((Long) beans.getAttribute(shm, "ConnectionsTotal") >= 2);
                    assertTrue((Long) beans.getAttribute(shm, "BytesReceived") >= 10);
                    assertEquals(-1L, beans.getAttribute(new ObjectName("io.sovia:type=Path,name=tcp"),
                            "ConnectionsOpen"));
                    ObjectName fallbacks = new ObjectName("io.sovia:type=Fallbacks");
                    assertTrue(beans.getAttribute(fallbacks, "ByReason") instanceof TabularData);
                    assertTrue((Long) beans.getAttribute(fallbacks, "Total") >= 0);
                    assertTrue((Long) beans.getAttribute(new ObjectName("io.sovia:type=Engine"), "Resets") >= 0);

                    client.close(); // killed: the server's ends are reset and closed
                    awaitOpenAtMost(beans, shm, 1);
                }
            }
        }
    }

    private static void awaitRegistered(MBeanServerConnection beans, ObjectName name) throws Exception {
        long deadline = System.nanoTime() + 15_000_000_000L;
        while (!beans.isRegistered(name)) {
            if (System.nanoTime() - deadline > 0) {
                fail(name + " was never registered; io.sovia has "
                        + beans.queryNames(new ObjectName("io.sovia:*"), null));
            }
            Thread.sleep(100);
        }
    }

    private static void awaitOpenAtMost(MBeanServerConnection beans, ObjectName path, long most) throws Exception {
        long deadline = System.nanoTime() + 15_000_000_000L;
        long open;
        while ((open = (Long) beans.getAttribute(path, "ConnectionsOpen")) > most) {
            if (System.nanoTime() - deadline > 0) {
                fail("still " + open + " open connections on " + path);
            }
            Thread.sleep(100);
        }
    }
}
