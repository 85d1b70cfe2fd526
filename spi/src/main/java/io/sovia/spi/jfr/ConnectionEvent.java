package io.sovia.spi.jfr;

import jdk.jfr.Label;

/** What the events of one connection share: its path and addresses. */
abstract class ConnectionEvent extends jdk.jfr.Event {
    @Label("Path")
    String path;
    @Label("Local Address")
    String local;
    @Label("Remote Address")
    String remote;

    final void connection(String path, String local, String remote) {
        this.path = path;
        this.local = local;
        this.remote = remote;
    }
}
