package io.sovia.spi.jfr;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** {@code io.sovia.ConnectionClose}: an accelerated connection ended, with the bytes it carried. */
@Name("io.sovia.ConnectionClose")
@Label("Sovia Connection Close")
@Category("Sovia")
@Description("An accelerated connection ended and released its link")
@StackTrace(false)
final class ConnectionCloseEvent extends ConnectionEvent {
    @Label("Bytes Sent")
    @DataAmount
    long bytesSent;
    @Label("Bytes Received")
    @DataAmount
    long bytesReceived;

    static void emit(String path, String local, String remote, long sent, long received) {
        ConnectionCloseEvent e = new ConnectionCloseEvent();
        if (e.shouldCommit()) {
            e.connection(path, local, remote);
            e.bytesSent = sent;
            e.bytesReceived = received;
            e.commit();
        }
    }
}
