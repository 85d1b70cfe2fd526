package io.sovia.spi.nio;

import java.nio.channels.SelectableChannel;

/**
 * A JDK channel (DatagramChannel, Pipe, UNIX-domain) registered in a Sovia selector: it is polled as
 * itself. The JDK keeps its blocking rules for it, so no key bookkeeping is needed beyond the key.
 */
final class PassThrough implements Pollable {
    private final SelectableChannel channel;
    private final ChannelKeys keys = new ChannelKeys();

    PassThrough(SelectableChannel channel) {
        this.channel = channel;
    }

    @Override
    public SelectableChannel pollChannel() {
        return channel;
    }

    @Override
    public ChannelKeys selectorKeys() {
        return keys;
    }

    @Override
    public int readyOps(int interestOps) {
        return 0;
    }

    @Override
    public void armSelector(Object sleeper, boolean arm) {
        // readiness comes from the kernel
    }
}
