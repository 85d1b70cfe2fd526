package io.sovia.agent;

import io.sovia.spi.nio.ChannelStreams;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Field;
import java.nio.channels.Channels;

/**
 * Has {@code Channels.newInputStream} and {@code newOutputStream} return {@link ChannelStreams}' streams for a Sovia
 * channel. If the patch cannot be applied, those streams stay the JDK's, which are correct, only slower.
 */
final class ChannelStreamsInstaller {
    private static final String CHANNELS = "java/nio/channels/Channels";

    private ChannelStreamsInstaller() {
    }

    static void install(Instrumentation inst, PatchTransformer patches) throws Throwable {
        Field input = HookHolder.define(Channels.class, "java.nio.channels.SoviaInputStreamHook");
        Field output = HookHolder.define(Channels.class, "java.nio.channels.SoviaOutputStreamHook");
        input.set(null, ChannelStreams.INPUT);
        output.set(null, ChannelStreams.OUTPUT);
        try {
            patches.patchLoaded(inst, Channels.class,
                    EntryPatch.hooked(CHANNELS, "newInputStream",
                            "(Ljava/nio/channels/ReadableByteChannel;)Ljava/io/InputStream;",
                            HookHolder.internalName(input.getDeclaringClass().getName())),
                    EntryPatch.hooked(CHANNELS, "newOutputStream",
                            "(Ljava/nio/channels/WritableByteChannel;)Ljava/io/OutputStream;",
                            HookHolder.internalName(output.getDeclaringClass().getName())));
        } catch (Throwable t) {
            input.set(null, null);
            output.set(null, null);
            throw t;
        }
    }
}
