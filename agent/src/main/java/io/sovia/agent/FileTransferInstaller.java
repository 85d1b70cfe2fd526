package io.sovia.agent;

import io.sovia.spi.nio.FileTransfers;
import net.bytebuddy.asm.Advice;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Field;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

/**
 * Routes {@code FileChannel.transferTo}/{@code transferFrom} with a Sovia channel at the other end through
 * {@link FileTransfers}: the JDK's zero-copy path stays on TCP (its own channel underneath), a session gets the
 * file mapped instead of copied through the heap. If the advice cannot be installed, transfers stay as the JDK
 * does them for channels it does not know, which is correct, only slower.
 */
final class FileTransferInstaller {
    private static final String FILE_CHANNEL = "sun.nio.ch.FileChannelImpl";

    private FileTransferInstaller() {
    }

    static void install(Instrumentation inst) throws Throwable {
        Field hook = HookHolder.define(Class.forName(FILE_CHANNEL), "sun.nio.ch.SoviaTransferHook");
        hook.set(null, new FileTransfers());
        Advice to = Advice.withCustomMapping().bind(Hook.class, hook)
                .to(FileTransferAdvice.To.class, FileTransferAdvice.Moved.class);
        Advice from = Advice.withCustomMapping().bind(Hook.class, hook)
                .to(FileTransferAdvice.From.class, FileTransferAdvice.Moved.class);
        try {
            JdkAdvice.install(inst, FILE_CHANNEL, to.on(named("transferTo").and(takesArguments(3))),
                    from.on(named("transferFrom").and(takesArguments(3))));
        } catch (RuntimeException | Error e) {
            hook.set(null, null);
            throw e;
        }
    }
}
