package io.sovia.shm;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.sovia.spi.os.NativeAccess;
import io.sovia.spi.os.NativeOs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Coverage-guided fuzzing (Jazzer) of what a local peer hands a listener: the hello's bytes, and the memory file
 * it attaches as the segment (any size, header and seals). Parsing returns a hello, null (incomplete) or an
 * IOException; mapping returns a segment whose rings can be built and polled, or an IOException; anything else
 * is a finding. The normal build fuzzes for a bounded time ({@code JAZZER_FUZZ=1}, the {@code fuzz} execution)
 * and otherwise replays the corpus in {@code src/test/resources/io/sovia/shm/HelloAndSegmentFuzzTestInputs}.
 */
class HelloAndSegmentFuzzTest {
    private static final int SEALS = NativeOs.F_SEAL_SHRINK | NativeOs.F_SEAL_GROW | NativeOs.F_SEAL_SEAL;

    @FuzzTest(maxDuration = "20s")
    void aPeersHelloAndSegmentNeverBreakTheListener(FuzzedDataProvider data) throws IOException {
        int helloLength = data.consumeInt(0, ShmHello.MAX_LENGTH);
        boolean sealed = data.consumeInt(0, 7) != 0;
        int capacity = 1 << data.consumeInt(10, 14);
        int size = switch (data.consumeInt(0, 3)) {
            case 0 -> ShmSegmentDescriptor.totalLength(capacity);
            case 1 -> ShmSegmentDescriptor.totalLength(capacity) + data.consumeInt(-64, 64);
            default -> data.consumeInt(0, 1 << 16);
        };
        boolean validHeader = data.consumeBoolean();
        byte[] hello = data.consumeBytes(helloLength);
        try {
            ShmHello.parse(hello, hello.length);
        } catch (IOException refused) {
            // what a listener does with bytes that are no hello
        }
        byte[] contents = data.consumeRemainingAsBytes();
        NativeOs os = NativeAccess.os();
        int fd = os.memfdCreate("fuzz");
        try (FileChannel ch = FileChannel.open(Path.of("/proc/self/fd/" + fd), StandardOpenOption.WRITE)) {
            ch.truncate(Math.max(size, 0));
            ByteBuffer header = ByteBuffer.wrap(contents, 0, Math.min(contents.length, Math.max(size, 0)));
            ch.write(header, 0);
            if (validHeader && size >= ShmSegmentDescriptor.HEADER_LENGTH) {
                ByteBuffer h = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN)
                        .putLong(ShmSegmentDescriptor.MAGIC).putInt(ShmSegmentDescriptor.VERSION).putInt(capacity).flip();
                ch.write(h, 0);
            }
            if (sealed) {
                os.addSeals(fd, SEALS);
            }
        } catch (IOException | RuntimeException e) {
            os.closeFd(fd);
            throw e;
        }
        ShmSegment segment;
        try {
            segment = ShmSegment.open(fd);
        } catch (IOException refused) {
            return;
        }
        segment.clientToServer().poll((buffer, offset, length) -> true, 16);
        segment.serverToClient().poll((buffer, offset, length) -> true, 16);
    }
}
