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
final class ConnectionCloseEvent extends jdk.jfr.Event {
    @Label("Path")
    String path;
    @Label("Local Address")
    String local;
    @Label("Remote Address")
    String remote;
    @Label("Bytes Sent")
    @DataAmount
    long bytesSent;
    @Label("Bytes Received")
    @DataAmount
    long bytesReceived;

    static void emit(String path, String local, String remote, long sent, long received) {
        ConnectionCloseEvent e = new ConnectionCloseEvent();
        if (e.shouldCommit()) {
            e.path = path;
            e.local = local;
            e.remote = remote;
            e.bytesSent = sent;
            e.bytesReceived = received;
            e.commit();
        }
    }
}
