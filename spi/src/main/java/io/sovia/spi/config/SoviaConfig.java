package io.sovia.spi.config;

import java.util.Locale;

/**
 * Every {@code sovia.*} property, its default and its meaning, in one place.
 *
 * <p>Properties are read from system properties; the agent copies its own arguments
 * ({@code -javaagent:sovia.jar=stats=/tmp/s.json,log=debug}) into system properties with the
 * {@code sovia.} prefix before anything reads them, so both spellings mean the same.
 *
 * <table>
 *   <caption>Properties</caption>
 *   <tr><th>property</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@code sovia.stats}</td><td>(unset)</td><td>file to which a JSON summary of connections
 *       per path, fallback reasons and bytes per path is written at JVM exit</td></tr>
 *   <tr><td>{@code sovia.log}</td><td>{@code warn}</td><td>Sovia's own log level on stderr:
 *       {@code off}, {@code warn}, {@code info} or {@code debug} (one line per fallback reason)</td></tr>
 *   <tr><td>{@code sovia.enabled}</td><td>{@code true}</td><td>{@code false} makes the agent leave the JVM
 *       entirely on the plain JDK</td></tr>
 *   <tr><td>{@code sovia.javanet}</td><td>{@code advice}</td><td>how {@code java.net.Socket}/{@code ServerSocket}
 *       reach Sovia: {@code advice} (instrument {@code SocketImpl.createPlatformSocketImpl}; falls back to
 *       {@code factory} if that fails), {@code factory} ({@code Socket.setSocketImplFactory}, after which the app
 *       cannot set its own) or {@code off} (java.net stays on the plain JDK)</td></tr>
 *   <tr><td>{@code sovia.netty.native}</td><td>{@code steer}</td><td>Netty's native transports (epoll, io_uring;
 *       also relocated copies such as grpc-netty-shaded's) open their sockets without any SelectorProvider, so
 *       nothing on them can be accelerated. {@code steer} answers their availability checks
 *       ({@code Epoll.isAvailable()}, {@code IoUring.isAvailable()}) with false, so Netty code that asks, gRPC
 *       among it, picks its NIO transport; code that creates a native event loop unconditionally still gets one
 *       (plain TCP). {@code keep} leaves Netty alone</td></tr>
 *   <tr><td>{@code sovia.jit.boundary}</td><td>{@code true}</td><td>adds a compiler directive (the JDK's
 *       {@code Compiler.directives_add}) so that C2 does not inline Sovia's code into the app's methods: it then
 *       compiles the engine once per entry point instead of into every caller (3.8-5.6 s of C2 CPU per JVM in an
 *       FTP run's first ten seconds, 2.9-3.6 s with it). Skipped where the JVM has directives of its own; {@code false}
 *       leaves the JIT alone</td></tr>
 *   <tr><td>{@code sovia.paths}</td><td>{@code jvm,shm,eth,tcp}</td><td>the paths connects may take, read at each
 *       connect; {@code tcp} alone turns acceleration off for new connections</td></tr>
 *   <tr><td>{@code sovia.spin.micros}</td><td>{@code 50}</td><td>how long a blocked call or a selector spins
 *       before it sleeps. A wake-up across cores costs ~60 us on this VM, so 50 us covers a
 *       request/response turn without paying it. With one CPU it only yields, which hands the core to
 *       the peer faster than a futex sleep and wake.</td></tr>
 *   <tr><td>{@code sovia.spin.busy}</td><td>{@code sleep}</td><td>what a spinning wait does once another thread
 *       wants its core: {@code sleep} skips spins while no core was free lately (looked at every 50 ms: the
 *       CPUs' idle time in /proc/stat plus the time waits spun without a yield giving their core away came to
 *       under 5% of a core), and ends one whose yield gave its core away for over 20 us;
 *       {@code spin} spins on regardless, for cores set aside for the app. With a
 *       CPU-bound process on each core a spinner keeps its peer from running for whole time slices: 64-byte
 *       round trips took 2.5 ms against TCP's 0.1 ms.</td></tr>
 *   <tr><td>{@code sovia.rcvbuf}</td><td>{@code 1048576}</td><td>bytes a session buffers for reading: the
 *       window it advertises. Measured in one JVM, 64 KiB writes: 256 KiB gave 2.9-4.6 GB/s, 1 MiB
 *       5.0-5.4 GB/s, 2 MiB 6.6 GB/s with a 4 MiB ring; 1 MiB keeps a connection near 4 MiB of memory. On shm
 *       (and jvm) the window is at least the ring the frames wait in, unless the app set SO_RCVBUF: the ring holds
 *       them, not this buffer.</td></tr>
 *   <tr><td>{@code sovia.sndbuf}</td><td>{@code 131072}</td><td>bytes a session accepts beyond the window</td></tr>
 *   <tr><td>{@code sovia.ack.frames}</td><td>{@code 4}</td><td>t: on links that can lose frames, ACK after
 *       this many. Reliable links (jvm, shm) send none per frame: the sender keeps nothing for
 *       retransmission and its combining watches the peer take frames off the ring, so only window
 *       updates (half the buffer read) go back. SOVIA's 16 was measured against 4 when every link still
 *       acknowledged frames (one JVM, 64 KiB writes, two runs each): 4 kept the writer's credit flowing,
 *       5.5 against 4.2 GB/s across cores, no difference on one core. No lossy link exists yet to
 *       measure it on; the raw Ethernet path must re-measure it.</td></tr>
 *   <tr><td>{@code sovia.ack.delay.micros}</td><td>{@code 1000}</td><td>else ACK after this long; reads that
 *       free half the buffer ACK at once, so this only matters for lost frames and idle peers</td></tr>
 *   <tr><td>{@code sovia.nagle.micros}</td><td>{@code 200}</td><td>a combined small write waits this long,
 *       at most twice that when the service agent comes by late (SOVIA used 100 ms; a read or close flushes it at
 *       once anyway); also how long the agent keeps looking after a round that found no timer</td></tr>
 *   <tr><td>{@code sovia.nagle.small}</td><td>{@code 2048}</td><td>writes below this size are combined (SOVIA)</td></tr>
 *   <tr><td>{@code sovia.window.frames}</td><td>{@code 256}</td><td>w on unreliable links: frames in flight.
 *       SOVIA's 32 would cap a connection far below its byte window: 32 standard 1500-byte frames are
 *       48 KB in flight, a 50 us round trip's worth at under 8 Gb/s. 256 frames of 4 KiB cover the
 *       default 1 MiB window, so on a lossy link credit, not w, limits a stream. Each lossy session
 *       keeps w frames for retransmission.</td></tr>
 *   <tr><td>{@code sovia.rto.min.micros}, {@code .max.micros}, {@code .initial.micros}</td>
 *       <td>{@code 1000}, {@code 500000}, {@code 20000}</td><td>retransmission timeout clamps (ESP). On
 *       reliable links min and max bound the persist timer instead: a writer blocked on credit that
 *       long probes the window and makes the peer poll (a reader that makes no further call cannot
 *       send its update otherwise), doubling the wait each time.</td></tr>
 *   <tr><td>{@code sovia.retransmits}</td><td>{@code 130}</td><td>rounds without progress before a peer is dead:
 *       about a minute once the timeout reached {@code rto.max}. A peer that died is found sooner, by its
 *       liveness (eth: a refused or unanswered probe) or its socket (shm); this bound is for a peer that lives
 *       yet takes no frame. It was 12 (about 2 s): a peer JVM paused longer (a collection, SIGSTOP, a debugger)
 *       lost its connections, which TCP keeps for many minutes. A connection the app closed gives up after at
 *       most 12, as before (TCP, too, retries orphans less).</td></tr>
 *   <tr><td>{@code sovia.exit.linger.millis}</td><td>{@code 30000}</td><td>at exit, how long the JVM waits for
 *       its connections to hand over what apps wrote before exiting (a kernel keeps sending for a dead
 *       process; Sovia's peer can only read what reached the shared ring). Ends early once all is
 *       handed over or the peers are gone.</td></tr>
 *   <tr><td>{@code sovia.jvm.ring}</td><td>{@code 1048576}</td><td>bytes per direction of a same-JVM link ring;
 *       a frame is at most a quarter of it</td></tr>
 *   <tr><td>{@code sovia.shm.ring}</td><td>{@code 4194304}</td><td>bytes per direction of a shared segment's
 *       ring (power of two, at least 1024). Each connection may hold twice this in shared memory (counted
 *       against the cgroup, not /dev/shm), but pages are allocated as they are touched and a connection of small
 *       messages keeps to the first pages, so only streams fill it; freed when both ends have closed. Streams on
 *       one core (writer and reader taking turns), 1 MiB against 4 MiB with the window at the ring's size: 4 KiB
 *       writes 2.2x against 5.8x TCP's rate, 64 KiB 2.5x against 4.8x, 1 MiB 1.8x against 3.9x; across cores
 *       4 KiB writes 1.6-11.6 GB/s (bimodal) against 11.4-13.2.</td></tr>
 *   <tr><td>{@code sovia.shm.hello.ttl.millis}</td><td>{@code 60000}</td><td>how long a listener keeps a
 *       client's hello whose TCP connection it has not accepted: a client that vanished without connecting
 *       would otherwise pin a descriptor (its UNIX socket) for good. As long as a TCP connect retries its SYN;
 *       an app that accepts a connection later than that gets it on TCP, and its client a reset</td></tr>
 *   <tr><td>{@code sovia.shm.keep}</td><td>{@code 8}</td><td>closed connections per listener whose UNIX socket
 *       and segment both ends keep for the next connect to that listener, for at most
 *       {@code sovia.shm.keep.millis}: it then costs a hello on the kept socket instead of a new socket, segment,
 *       mapping and descriptor hand-over on each side (sequential connects took 532 us, 3.6x TCP's, with none
 *       kept). Each kept connection holds a descriptor in both processes and the pages its rings touched;
 *       {@code 0} keeps none</td></tr>
 *   <tr><td>{@code sovia.shm.keep.millis}</td><td>{@code 10000}</td><td>how long a kept connection waits
 *       for the next connect before its socket closes and its memory is freed</td></tr>
 *   <tr><td>{@code sovia.shm.root}</td><td>{@code /dev/shm}</td><td>where the per-user directory
 *       {@code sovia-<uid>} lives</td></tr>
 *   <tr><td>{@code sovia.live.millis}</td><td>{@code 1000}</td><td>how often a JVM with Sovia listeners or
 *       connections rewrites its entry for {@code sovia ss} ({@code ss-<pid>.tsv} in the per-user directory, only
 *       when something changed; removed at exit). A listing is at most this old; {@code 0} publishes nothing, and
 *       {@code ss} and {@code doctor} then do not see this JVM</td></tr>
 *   <tr><td>{@code sovia.jmx}</td><td>{@code true}</td><td>registers the MBeans under {@code io.sovia} (per path,
 *       fallbacks, engine) once the JVM has an MBean server (a JMX client such as jconsole that attaches creates
 *       it, as does an app that uses JMX), looked for every second once the JVM uses a Sovia socket. Creating the
 *       platform MBean server costs about 0.2 s of CPU and starts java.util.logging, so Sovia never creates it.
 *       {@code false} registers none</td></tr>
 *   <tr><td>{@code sovia.hosts}</td><td>(unset)</td><td>the host table of the raw Ethernet path: a file with one
 *       line per cluster host, {@code IP MAC [INTERFACE]}, {@code #} comments, the same file on every host. Unset,
 *       the eth path is off; connects to hosts not listed use TCP</td></tr>
 *   <tr><td>{@code sovia.eth.connect.millis}</td><td>{@code 50}</td><td>how long a connect to a listed host waits
 *       for the answer of an accelerated listener (its hello is sent again after 5 ms, then after twice as long
 *       each time up to 40 ms) before it uses TCP; once more for every ten connects of the JVM waiting at once,
 *       since a listener answers them in turn. A LAN answers in well under a millisecond; a host with no agent or
 *       no accelerated listener on that port never answers, so this is what its first connect loses</td></tr>
 *   <tr><td>{@code sovia.eth.verdict.millis}</td><td>{@code 30000}</td><td>how long a destination that did not
 *       answer keeps using TCP before the eth path asks again</td></tr>
 *   <tr><td>{@code sovia.eth.dead.millis}</td><td>{@code 500}</td><td>a peer JVM silent this long (each JVM
 *       sends a beat every 100 ms to every JVM it has connections with) gets a probe, a TCP connect to the port it
 *       named: refused, or unanswered for as long again, it is dead and its connections end with a reset, as a
 *       killed process's would over TCP; answered (a JVM paused by a collection or a debugger) it is not</td></tr>
 *   <tr><td>{@code sovia.eth.ring}</td><td>{@code 4194304}</td><td>bytes of the packet socket's receive ring
 *       (PACKET_MMAP): frames that arrive while nobody reads wait there, and past it are lost (and
 *       retransmitted)</td></tr>
 * </table>
 */
public final class SoviaConfig {
    /** Prefix of every Sovia property. */
    public static final String PREFIX = "sovia.";

    /** Stats file written at exit; unset means none. */
    public static final String STATS = PREFIX + "stats";
    /** Log level: off, warn, info, debug. */
    public static final String LOG = PREFIX + "log";
    /** Master switch read by the agent. */
    public static final String ENABLED = PREFIX + "enabled";

    /** How java.net sockets are routed: advice, factory or off. */
    public static final String JAVANET = PREFIX + "javanet";

    /** Whether to keep C2 from inlining Sovia into the app's methods. */
    public static final String JIT_BOUNDARY = PREFIX + "jit.boundary";
    /** Whether Netty's native transports are steered to NIO: steer or keep. */
    public static final String NETTY_NATIVE = PREFIX + "netty.native";
    /** Paths connects may take. */
    public static final String PATHS = PREFIX + "paths";
    /** Spin budget before sleeping. */
    public static final String SPIN_MICROS = PREFIX + "spin.micros";
    /** What a spin does when its core is wanted: sleep (default) or spin. */
    public static final String SPIN_BUSY = PREFIX + "spin.busy";
    /** Bytes per direction of a same-JVM ring. */
    public static final String JVM_RING = PREFIX + "jvm.ring";
    /** Bytes per direction of a shared segment's ring. */
    public static final String SHM_RING = PREFIX + "shm.ring";
    /** What a blocked call on an shm connection sleeps on: word (its ring's futex, default) or doorbell. */
    public static final String SHM_SLEEP = PREFIX + "shm.sleep";
    /** Where the per-user shm directory lives. */
    public static final String SHM_ROOT = PREFIX + "shm.root";

    static final String LOG_DEFAULT = "warn";
    static final String JAVANET_DEFAULT = "advice";

    private SoviaConfig() {
    }

    /** The stats file path, or null when no stats are wanted. */
    public static String statsFile() {
        String file = System.getProperty(STATS);
        return file == null || file.isBlank() ? null : file;
    }

    /** Whether Sovia should install itself at all. */
    public static boolean enabled() {
        return !"false".equalsIgnoreCase(System.getProperty(ENABLED, "true").trim());
    }

    /** The configured java.net routing, lower case; see {@link #JAVANET}. */
    public static String javaNet() {
        return System.getProperty(JAVANET, JAVANET_DEFAULT).trim().toLowerCase(Locale.ROOT);
    }

    /** Whether connects may take {@code path} ({@code jvm}, {@code shm}, {@code eth}); read at each connect. */
    public static boolean pathAllowed(String path) {
        String paths = System.getProperty(PATHS, "jvm,shm,eth,tcp");
        // no String.split: at every connect it became hot enough for C2, 0.2 s of compiling in a fresh JVM
        for (int from = 0; from <= paths.length(); ) {
            int comma = paths.indexOf(',', from);
            int to = comma < 0 ? paths.length() : comma;
            if (paths.substring(from, to).trim().equalsIgnoreCase(path)) {
                return true;
            }
            from = to + 1;
        }
        return false;
    }

    /** Whether the agent adds its compiler directive ({@link #JIT_BOUNDARY}). */
    public static boolean jitBoundary() {
        return !"false".equalsIgnoreCase(System.getProperty(JIT_BOUNDARY, "true").trim());
    }

    /** Spin budget in nanoseconds (on one CPU the "spin" only yields, see {@code SpinThenSleep}). */
    public static long spinNanos() {
        return Long.getLong(SPIN_MICROS, 50) * 1000;
    }

    /** Whether a spin ends once another thread wants its core ({@link #SPIN_BUSY} is not {@code spin}). */
    public static boolean spinYieldsToBusyCores() {
        return !"spin".equalsIgnoreCase(System.getProperty(SPIN_BUSY, "sleep").trim());
    }

    /**
     * Whether the agent answers Netty's native-transport availability checks with false ({@link #NETTY_NATIVE}).
     *
     * @throws IllegalArgumentException for a value other than steer or keep
     */
    public static boolean steerNettyNative() {
        String value = System.getProperty(NETTY_NATIVE, "steer").trim();
        if (!"steer".equalsIgnoreCase(value) && !"keep".equalsIgnoreCase(value)) {
            throw new IllegalArgumentException(NETTY_NATIVE + "=" + value + ": expected steer or keep");
        }
        return "steer".equalsIgnoreCase(value);
    }

    /**
     * Whether blocked calls on shm connections sleep on their rings' wake words ({@link #SHM_SLEEP}); read once, when
     * the shm transport loads (an invalid value turns it off).
     *
     * @throws IllegalArgumentException for a value other than word or doorbell
     */
    public static boolean shmSleepsOnWords() {
        String value = System.getProperty(SHM_SLEEP, "word").trim();
        if (!"word".equalsIgnoreCase(value) && !"doorbell".equalsIgnoreCase(value)) {
            throw new IllegalArgumentException(SHM_SLEEP + "=" + value + ": expected word or doorbell");
        }
        return "word".equalsIgnoreCase(value);
    }

    /** How long a JVM's exit waits for its connections to hand over what apps wrote. */
    public static long exitLingerNanos() {
        return Long.getLong(PREFIX + "exit.linger.millis", 30_000) * 1_000_000;
    }

    /** Ring bytes per direction of a same-JVM link. */
    public static int jvmRingCapacity() {
        return ringCapacity(JVM_RING, 1024 * 1024);
    }

    /** How long a listener keeps a hello whose TCP connection it has not accepted. */
    public static long shmHelloTtlNanos() {
        return Math.max(1, Long.getLong(PREFIX + "shm.hello.ttl.millis", 60_000)) * 1_000_000;
    }

    /** Closed shm connections kept per listener for the next connect; 0 keeps none. */
    public static int shmKeep() {
        return Math.max(0, Integer.getInteger(PREFIX + "shm.keep", 8));
    }

    /** How long a kept shm connection waits for the next connect. */
    public static long shmKeepNanos() {
        return Math.max(0, Long.getLong(PREFIX + "shm.keep.millis", 10_000)) * 1_000_000;
    }

    public static String shmRoot() {
        return System.getProperty(SHM_ROOT, "/dev/shm");
    }

    public static int shmRingCapacity() {
        return ringCapacity(SHM_RING, 4 * 1024 * 1024);
    }

    /** As configured; the ring format checks it where a ring is made, naming the property. */
    private static int ringCapacity(String property, int defaultCapacity) {
        return Integer.getInteger(property, defaultCapacity);
    }

    /**
     * The engine parameters, from {@code sovia.*} properties.
     *
     * @throws IllegalArgumentException naming the properties, when their values make no valid engine
     */
    public static SessionConfig session() {
        try {
            return engineSettings();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid engine settings (sovia.rcvbuf and sovia.sndbuf at least 1024, "
                    + "the others positive, sovia.rto.min.micros <= sovia.rto.max.micros): " + e.getMessage(), e);
        }
    }

    /** {@code sovia.nagle.micros} in nanoseconds: how long a combined small write waits at most. */
    public static long nagleNanos() {
        return Long.getLong(PREFIX + "nagle.micros", 200) * 1000;
    }

    private static SessionConfig engineSettings() {
        return new SessionConfig(
                Integer.getInteger(PREFIX + "rcvbuf", 1024 * 1024),
                Integer.getInteger(PREFIX + "sndbuf", 128 * 1024),
                Integer.getInteger(PREFIX + "ack.frames", 4),
                Long.getLong(PREFIX + "ack.delay.micros", 1000) * 1000,
                nagleNanos(),
                Integer.getInteger(PREFIX + "nagle.small", 2048),
                Integer.getInteger(PREFIX + "window.frames", 256),
                Long.getLong(PREFIX + "rto.min.micros", 1000) * 1000,
                Long.getLong(PREFIX + "rto.max.micros", 500_000) * 1000,
                Long.getLong(PREFIX + "rto.initial.micros", 20_000) * 1000,
                Integer.getInteger(PREFIX + "retransmits", 130));
    }

    /** How often the live entry is rewritten, in milliseconds; 0 when none is published ({@code sovia.live.millis}). */
    public static long liveMillis() {
        return Math.max(0, Long.getLong(PREFIX + "live.millis", 1000));
    }

    /** Whether the {@code io.sovia} MBeans are registered ({@code sovia.jmx}). */
    public static boolean jmx() {
        return !"false".equalsIgnoreCase(System.getProperty(PREFIX + "jmx", "true").trim());
    }

    /** The host table file of the eth path, or null when none is set. */
    public static String hostsFile() {
        String file = System.getProperty(PREFIX + "hosts");
        return file == null || file.isBlank() ? null : file;
    }

    /** How long a connect waits for an accelerated listener's answer over eth. */
    public static long ethConnectNanos() {
        return Math.max(1, Long.getLong(PREFIX + "eth.connect.millis", 50)) * 1_000_000;
    }

    /** How long an unanswered destination stays on TCP. */
    public static long ethVerdictNanos() {
        return Math.max(0, Long.getLong(PREFIX + "eth.verdict.millis", 30_000)) * 1_000_000;
    }

    /** How long a silent peer JVM lives. */
    public static long ethDeadNanos() {
        return Math.max(200, Long.getLong(PREFIX + "eth.dead.millis", 500)) * 1_000_000;
    }

    /** Bytes of the eth path's receive ring. */
    public static int ethRingBytes() {
        return Integer.getInteger(PREFIX + "eth.ring", 4 * 1024 * 1024);
    }

    /** The configured log level, lower case. */
    public static String logLevel() {
        return System.getProperty(LOG, LOG_DEFAULT).trim().toLowerCase(Locale.ROOT);
    }
}
