package io.sovia.eth;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What the eth path would make of a host table on this host, for {@code sovia doctor}: whether the file parses,
 * which line is this host, and whether its interface is there, up, and with which MTU. The same code reads the
 * table as the transport does, so the answer cannot drift from what a connect would meet.
 */
public final class EthDiagnosis {
    /** One finding: {@code ok} false means the eth path cannot work as configured. */
    public record Finding(boolean ok, String text) {
    }

    private EthDiagnosis() {
    }

    /** The findings for the host table {@code file}. */
    public static List<Finding> check(Path file) {
        List<Finding> findings = new ArrayList<>();
        HostTable table;
        try {
            table = HostTable.read(file);
        } catch (IOException e) {
            findings.add(new Finding(false, "host table " + file + " is unusable: " + e.getMessage()));
            return findings;
        }
        findings.add(new Finding(true, "host table " + file + " parses: " + table.size() + " host(s)"));
        try {
            HostTable.Self self = table.self();
            EthInterface nic = self.nic();
            findings.add(new Finding(true, "this host is " + self.host().ip().getHostAddress() + " on interface "
                    + nic.name()));
            findings.add(new Finding(nic.up(), "interface " + nic.name() + (nic.up() ? " is up" : " is down")));
            findings.add(new Finding(true, "interface " + nic.name() + " MTU " + nic.mtu()
                    + (nic.mtu() >= 9000 ? "" : " (frames carry at most this; 9000 streams faster)")));
        } catch (IOException e) {
            findings.add(new Finding(false, e.getMessage()));
        }
        return findings;
    }
}
