package io.sovia.spi.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** {@code io.sovia.ConnectionOpen}: a connection began on an accelerated path (connect or accept). */
@Name("io.sovia.ConnectionOpen")
@Label("Sovia Connection Open")
@Category("Sovia")
@Description("A connection began on an accelerated path")
@StackTrace(false)
final class ConnectionOpenEvent extends ConnectionEvent {
    static void emit(String path, String local, String remote) {
        ConnectionOpenEvent e = new ConnectionOpenEvent();
        if (e.shouldCommit()) {
            e.connection(path, local, remote);
            e.commit();
        }
    }
}
