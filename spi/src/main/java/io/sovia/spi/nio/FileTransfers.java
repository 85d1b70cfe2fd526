package io.sovia.spi.nio;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.function.Function;

/**
 * {@code FileChannel.transferTo} and {@code transferFrom} with a Sovia channel at the other end, called by the
 * agent's patch at the start of the JDK's own methods. The JDK moves file bytes without a copy only to and from
 * its own channel classes and copies through a heap array for any other, a Sovia channel included, even on TCP:
 * here a channel on TCP hands the transfer to its JDK channel (sendfile), and one on a session maps the file
 * ({@code SocketBackend.sendFile}). Anything else, including arguments the JDK would refuse, is left to the JDK.
 *
 * <p>The call is the JDK method's receiver and arguments: {@code {file, position, count, target}} for
 * {@code transferTo}, {@code {file, source, position, count}} for {@code transferFrom}; the result is the bytes
 * moved, or null for the JDK to carry on.
 */
public final class FileTransfers implements Function<Object[], Object> {
    @Override
    public Object apply(Object[] call) {
        FileChannel file = (FileChannel) call[0];
        boolean sending = call[1] instanceof Long;
        long position = (Long) call[sending ? 1 : 2];
        long count = (Long) call[sending ? 2 : 3];
        if (!(call[sending ? 3 : 1] instanceof SoviaSocketChannel channel) || position < 0 || count < 0
                || !file.isOpen() || !channel.isOpen()) {
            return null;
        }
        try {
            return sending ? channel.sendFile(file, position, count) : channel.receiveFile(file, position, count);
        } catch (IOException e) {
            throw FileTransfers.<RuntimeException>unchecked(e);
        }
    }

    /** Rethrows a checked exception unchanged: the patch runs inside methods that declare IOException. */
    @SuppressWarnings("unchecked")
    private static <T extends Throwable> T unchecked(Throwable t) throws T {
        throw (T) t;
    }
}
