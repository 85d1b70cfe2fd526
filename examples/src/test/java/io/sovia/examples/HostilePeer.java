package io.sovia.examples;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A hostile local peer of a Sovia listener: a process of the same user that speaks the shm setup by hand, from the
 * formats' descriptions (ShmHello, ShmSegmentDescriptor, FrameRingDescriptor, FrameFlyweight) and without Sovia's
 * classes, as another program would, and then breaks the rules.
 *
 * <pre>  java HostilePeer SOCKET PORT MODE [COUNT]</pre>
 * SOCKET is the listener's UNIX socket, PORT its TCP port. Modes:
 * <ul>
 *   <li>{@code hellos-keep}, {@code hellos-close}: COUNT well-formed hellos whose TCP connect never comes, the
 *       setup connections kept open or closed at once;</li>
 *   <li>{@code hello-for}: one well-formed hello naming client port COUNT of 127.0.0.1, a live client's, whose
 *       TCP connect comes from that client and not from here;</li>
 *   <li>{@code unsealed}: a well-formed segment in a memory file that may still shrink;</li>
 *   <li>{@code plain-file}: a well-formed segment in a plain file;</li>
 *   <li>{@code min-length}: before the SYN, a record of length Integer.MIN_VALUE under a tail of 8;</li>
 *   <li>after a proper SYN and the server's SYN_ACK: {@code padding-loop} (padding that does not reach the ring's
 *       end), {@code zero-records} (a tail four rings ahead of the head, over zeros), {@code overflow} (a record
 *       length near Integer.MAX_VALUE), {@code past-end} (a frame running past the ring's end), {@code short-frame}
 *       (a frame shorter than its header), {@code bad-token} (DATA with a wrong token), {@code truncate} (shrinking
 *       the segment, which its seal must refuse).</li>
 * </ul>
 * Prints {@code READY} when done (and {@code TRUNCATE refused} or {@code TRUNCATE done}), then keeps every
 * connection open until killed, so only the server's own checks can end them.
 */
public final class HostilePeer {
    private static final int HELLO_MAGIC = 0x48564f53;
    private static final int HELLO_VERSION = 4;
    /** Bytes of a hello from an IPv4 client (ShmHello: magic, version, port, flag 0: a new connection, n, address). */
    private static final int HELLO_LENGTH = 18;
    private static final long SEGMENT_MAGIC = 0x4d48534149564f53L;
    private static final int SEGMENT_HEADER = 64;
    private static final int TRAILER = 256;
    private static final int HEAD = 0;
    private static final int TAIL = 64;
    /** The consumer's wake word (FrameRingDescriptor), a futex its blocked threads sleep on. */
    private static final int WAKE_WORD = 132;
    private static final long SYS_FUTEX = Platform.isARM() ? 98 : 202;
    private static final int FUTEX_WAKE = 1;
    private static final int FRAME_HEADER = 32;
    private static final byte SYN = 1;
    private static final byte SYN_ACK = 2;
    private static final byte DATA = 3;
    private static final int CAPACITY = 64 * 1024;
    private static final int SEALS = 0x1 | 0x2 | 0x4;

    /** The C library, through JNA's interface mapping. */
    public interface C extends Library {
        C LIB = Native.load("c", C.class);

        int memfd_create(String name, int flags);

        int fcntl(int fd, int cmd, int arg);

        int socket(int domain, int type, int protocol);

        int connect(int fd, Pointer address, int length);

        long sendmsg(int fd, Pointer message, int flags);

        long write(int fd, byte[] bytes, long length);

        int open(String path, int flags);

        int close(int fd);

        long syscall(long number, Pointer address, int op, int value, Pointer timeout);
    }

    private final Path socket;
    private final int port;
    private final List<Object> keep = new ArrayList<>();

    private HostilePeer(Path socket, int port) {
        this.socket = socket;
        this.port = port;
    }

    /** Starts a hostile peer JVM (plain JDK) and waits for its {@code READY}. */
    static ForkedJvm start(Path dir, String name, Path socket, int port, String mode, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of(socket.toString(), String.valueOf(port), mode));
        args.addAll(List.of(more));
        ForkedJvm peer = ForkedJvm.start(dir, name, ForkedJvm.Options.plain(), HostilePeer.class, args.toArray(String[]::new));
        peer.awaitLine("READY", Duration.ofSeconds(60));
        return peer;
    }

    public static void main(String[] args) throws Exception {
        HostilePeer peer = new HostilePeer(Path.of(args[0]), Integer.parseInt(args[1]));
        String mode = args[2];
        switch (mode) {
            case "hellos-keep", "hellos-close" -> peer.hellos(Integer.parseInt(args[3]), mode.endsWith("keep"));
            case "hello-for" -> peer.hello(Integer.parseInt(args[3]), peer.segment(true).fd);
            case "unsealed" -> peer.connect(peer.segment(false));
            case "plain-file" -> peer.connect(peer.plainFile());
            case "min-length" -> peer.minLengthBeforeSyn();
            default -> peer.afterHandshake(mode);
        }
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }

    /** Hellos for TCP connects from 127.0.0.1 that never come. */
    private void hellos(int count, boolean keepOpen) throws IOException {
        int first = belowEphemeralPorts(count);
        for (int i = 0; i < count; i++) {
            Segment s = segment(true);
            int unix = hello(first + i, s.fd);
            if (!keepOpen) {
                C.LIB.close(unix);
            }
            C.LIB.close(s.fd);
        }
    }

    /**
     * The first of {@code count} client ports just below the kernel's ephemeral range, which no connect of this host is
     * given: these hellos are to expire, not to meet a real client's hello for the same address (which the accept
     * then settles, see mode {@code hello-for}); at 40,000 and up, a test's real client fell among them about once
     * in a hundred runs of ShmHelloExpiryTest.
     */
    private static int belowEphemeralPorts(int count) throws IOException {
        String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
        return Math.max(1, Integer.parseInt(range.split("\\s+")[0]) - count);
    }

    private void minLengthBeforeSyn() throws IOException {
        Segment s = segment(true);
        ByteBuffer ring = s.clientToServer();
        ring.putInt(0, Integer.MIN_VALUE);
        ring.putLong(CAPACITY + TAIL, 8);
        connect(s);
    }

    /** A proper SYN, the server's SYN_ACK, then the damage {@code mode} names. */
    private void afterHandshake(String mode) throws Exception {
        Segment s = segment(true);
        int unix = connect(s);
        ByteBuffer out = s.clientToServer();
        ByteBuffer in = s.serverToClient();
        long tail = publish(out, 0, frame(SYN, 0, 100, 0, 8, 0x5eed), unix);
        awaitSynAck(in);
        long serverToken = in.getLong(4 + FRAME_HEADER);
        int ack = in.getInt(4 + 16) + 1; // the SYN_ACK's sequence number, taken
        switch (mode) {
            case "padding-loop" -> {
                out.putInt((int) tail, -8); // padding that ends 8 bytes later, not at the ring's end
                publishTail(out, tail + 8, unix);
            }
            case "zero-records" -> publishTail(out, tail + 4L * CAPACITY, unix);
            case "overflow" -> {
                out.putInt((int) tail, Integer.MAX_VALUE - 3);
                publishTail(out, tail + 64, unix);
            }
            case "past-end" -> {
                long at = CAPACITY - 64;
                out.putInt((int) at, 1024);
                publishTail(out, at + 1032, unix);
            }
            case "short-frame" -> publish(out, tail, new byte[4], unix);
            case "bad-token" -> publish(out, tail, frame(DATA, serverToken ^ 0x5a5a, 101, ack, 8, 0), unix);
            case "truncate" -> {
                try (FileChannel ch = FileChannel.open(Path.of("/proc/self/fd/" + s.fd), StandardOpenOption.WRITE)) {
                    ch.truncate(SEGMENT_HEADER);
                    System.out.println("TRUNCATE done");
                } catch (IOException refused) {
                    System.out.println("TRUNCATE refused: " + refused);
                }
                publish(out, tail, frame(DATA, serverToken, 101, ack, 8, 0), unix);
            }
            default -> throw new IllegalArgumentException("unknown mode " + mode);
        }
    }

    private static void awaitSynAck(ByteBuffer in) throws InterruptedException, IOException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (in.getLong(CAPACITY + TAIL) == 0) {
            if (System.nanoTime() > deadline) {
                throw new IOException("no SYN_ACK");
            }
            Thread.sleep(1);
        }
        if (in.get(4) != SYN_ACK) {
            throw new IOException("expected a SYN_ACK, got type " + in.get(4));
        }
    }

    /** A frame: header, then for SYN the opener's token, for DATA one byte. */
    private static byte[] frame(byte type, long token, int seq, int ack, int payload, long synToken) {
        ByteBuffer f = ByteBuffer.allocate(FRAME_HEADER + payload).order(ByteOrder.LITTLE_ENDIAN);
        f.put(type).put((byte) 0).putShort((short) 0).putInt(payload).putLong(token).putInt(seq).putInt(ack)
                .putLong(1 << 20);
        if (type == SYN) {
            f.putLong(synToken);
        }
        return f.array();
    }

    /** Writes one record at {@code tail}, publishes it and rings; the new tail. */
    private long publish(ByteBuffer ring, long tail, byte[] frame, int unix) throws IOException {
        int index = (int) (tail & (CAPACITY - 1));
        ring.putInt(index, frame.length);
        ring.put(index + 4, frame);
        long next = tail + ((4 + frame.length + 7) & -8);
        publishTail(ring, next, unix);
        return next;
    }

    /** Publishes up to {@code tail} and wakes the server both ways it may sleep: its doorbell and its wake word. */
    private void publishTail(ByteBuffer ring, long tail, int unix) throws IOException {
        ring.putLong(CAPACITY + TAIL, tail);
        check((int) C.LIB.write(unix, new byte[] {1}, 1), "write");
        ring.putInt(CAPACITY + WAKE_WORD, ring.getInt(CAPACITY + WAKE_WORD) + 1);
        C.LIB.syscall(SYS_FUTEX, Native.getDirectBufferPointer(ring).share(CAPACITY + WAKE_WORD), FUTEX_WAKE,
                Integer.MAX_VALUE, null);
    }

    /** Sends the hello with {@code segment}, then makes the TCP connect it announces; the UNIX socket. */
    private int connect(Segment segment) throws IOException {
        Socket tcp = new Socket();
        tcp.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        int unix = hello(tcp.getLocalPort(), segment.fd);
        tcp.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        keep.add(tcp);
        keep.add(segment);
        return unix;
    }

    /** Connects to the listener's UNIX socket and sends a hello for 127.0.0.1:{@code clientPort} with {@code fd}. */
    private int hello(int clientPort, int fd) throws IOException {
        int unix = check(C.LIB.socket(1 /* AF_UNIX */, 1 /* SOCK_STREAM */, 0), "socket");
        byte[] path = socket.toString().getBytes(StandardCharsets.UTF_8);
        try (Memory address = new Memory(110)) {
            address.clear();
            address.setShort(0, (short) 1);
            address.write(2, path, 0, path.length);
            check(C.LIB.connect(unix, address, 110), "connect");
        }
        ByteBuffer hello = ByteBuffer.allocate(HELLO_LENGTH).order(ByteOrder.LITTLE_ENDIAN)
                .putInt(HELLO_MAGIC).putInt(HELLO_VERSION).putInt(clientPort).put((byte) 0).put((byte) 4)
                .put(new byte[] {127, 0, 0, 1});
        // msghdr, iovec, cmsghdr with one descriptor, then the bytes (LP64 Linux)
        try (Memory m = new Memory(56 + 16 + 24 + HELLO_LENGTH)) {
            m.clear();
            m.setPointer(16, m.share(56));
            m.setLong(24, 1);
            m.setPointer(32, m.share(72));
            m.setLong(40, 24);
            m.setPointer(56, m.share(96));
            m.setLong(64, HELLO_LENGTH);
            m.setLong(72, 20);
            m.setInt(80, 1);
            m.setInt(84, 1);
            m.setInt(88, fd);
            m.write(96, hello.array(), 0, HELLO_LENGTH);
            check((int) C.LIB.sendmsg(unix, m, 0), "sendmsg");
        }
        return unix;
    }

    /** A well-formed segment in a memory file, sealed against shrinking or not. */
    private Segment segment(boolean sealed) throws IOException {
        int fd = check(C.LIB.memfd_create("hostile", 0x1 | 0x2), "memfd_create");
        Path file = Path.of("/proc/self/fd/" + fd);
        Segment s = format(file, fd);
        if (sealed) {
            check(C.LIB.fcntl(fd, 1033 /* F_ADD_SEALS */, SEALS), "fcntl(F_ADD_SEALS)");
        }
        return s;
    }

    /** A well-formed segment in a plain file of its own, unlinked once open. */
    private Segment plainFile() throws IOException {
        Path file = Files.createTempFile("hostile", ".seg");
        int fd = check(C.LIB.open(file.toString(), 02 /* O_RDWR */), "open");
        Files.delete(file);
        return format(Path.of("/proc/self/fd/" + fd), fd);
    }

    private Segment format(Path file, int fd) throws IOException {
        int length = SEGMENT_HEADER + 2 * (CAPACITY + TRAILER);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(length), 0);
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, length);
            map.order(ByteOrder.LITTLE_ENDIAN).putLong(0, SEGMENT_MAGIC).putInt(8, 1).putInt(12, CAPACITY);
            return new Segment(map, fd);
        }
    }

    private static int check(int result, String call) throws IOException {
        if (result < 0) {
            throw new IOException(call + " failed: errno " + Native.getLastError());
        }
        return result;
    }

    /** A mapped segment and the descriptor that names it. */
    private record Segment(MappedByteBuffer map, int fd) {
        ByteBuffer clientToServer() {
            return map.slice(SEGMENT_HEADER, CAPACITY + TRAILER).order(ByteOrder.LITTLE_ENDIAN);
        }

        ByteBuffer serverToClient() {
            return map.slice(SEGMENT_HEADER + CAPACITY + TRAILER, CAPACITY + TRAILER).order(ByteOrder.LITTLE_ENDIAN);
        }
    }
}
