package io.sovia.agent;

import io.sovia.spi.nio.FileTransfers;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Field;

/**
 * Routes {@code FileChannel.transferTo}/{@code transferFrom} with a Sovia channel at the other end through
 * {@link FileTransfers}: the JDK's zero-copy path stays on TCP (its own channel underneath), a session reads the
 * file straight into its frames instead of through the heap. If the patch cannot be applied, transfers stay as the JDK
 * does them for channels it does not know, which is correct, only slower.
 */
final class FileTransferInstaller {
    private static final String FILE_CHANNEL = "sun.nio.ch.FileChannelImpl";
    private static final String HOLDER = "sun.nio.ch.SoviaTransferHook";

    private FileTransferInstaller() {
    }

    static void install(Instrumentation inst, PatchTransformer patches) throws Throwable {
        Class<?> fileChannel = Class.forName(FILE_CHANNEL);
        Field hook = HookHolder.define(fileChannel, HOLDER);
        hook.set(null, new FileTransfers());
        String owner = HookHolder.internalName(FILE_CHANNEL);
        String holder = HookHolder.internalName(HOLDER);
        try {
            patches.patchLoaded(inst, fileChannel,
                    EntryPatch.hooked(owner, "transferTo", "(JJLjava/nio/channels/WritableByteChannel;)J", holder),
                    EntryPatch.hooked(owner, "transferFrom", "(Ljava/nio/channels/ReadableByteChannel;JJ)J", holder));
        } catch (Throwable t) {
            hook.set(null, null);
            throw t;
        }
    }
}
