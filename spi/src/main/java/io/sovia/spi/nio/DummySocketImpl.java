package io.sovia.spi.nio;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.SocketAddress;
import java.net.SocketImpl;

/**
 * The impl handed to {@code Socket}/{@code ServerSocket} superclass constructors by the adaptors, which
 * override every public method and never reach it. Each method fails loudly in case one is missed.
 */
final class DummySocketImpl extends SocketImpl {
    private static UnsupportedOperationException unsupported() {
        return new UnsupportedOperationException("Sovia socket adaptor does not use its SocketImpl");
    }

    @Override
    protected void create(boolean stream) {
        throw unsupported();
    }

    @Override
    protected void connect(String host, int port) {
        throw unsupported();
    }

    @Override
    protected void connect(InetAddress address, int port) {
        throw unsupported();
    }

    @Override
    protected void connect(SocketAddress address, int timeout) {
        throw unsupported();
    }

    @Override
    protected void bind(InetAddress host, int port) {
        throw unsupported();
    }

    @Override
    protected void listen(int backlog) {
        throw unsupported();
    }

    @Override
    protected void accept(SocketImpl s) {
        throw unsupported();
    }

    @Override
    protected InputStream getInputStream() {
        throw unsupported();
    }

    @Override
    protected OutputStream getOutputStream() {
        throw unsupported();
    }

    @Override
    protected int available() {
        throw unsupported();
    }

    @Override
    protected void close() {
        throw unsupported();
    }

    @Override
    protected void sendUrgentData(int data) {
        throw unsupported();
    }

    @Override
    public void setOption(int optID, Object value) {
        throw unsupported();
    }

    @Override
    public Object getOption(int optID) {
        throw unsupported();
    }
}
