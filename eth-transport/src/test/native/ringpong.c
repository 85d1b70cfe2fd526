/*
 * ringpong: the raw floor for Sovia's Ethernet transport, a ping-pong of EtherType 0x88B5 frames. Each side
 * receives through a PACKET_MMAP TPACKET_V2 RX ring that it busy-polls (tp_status, no syscall) and sends with
 * send() on its bound AF_PACKET socket.
 *
 *   ringpong server IFNAME                                   echo every 0x88B5 frame back to its source MAC
 *   ringpong client IFNAME PEER_MAC [--count N] [--size S]   N timed pings (default 100000) of S-byte frames
 *                                                            (default 64, 14-byte header included, FCS not)
 *   ringpong sink IFNAME                                     count every 0x88B5 frame from another MAC
 *   ringpong blast IFNAME PEER_MAC [--size S] [--seconds T] [--batch B]
 *                                                            send S-byte frames (default: the MTU's) for T
 *                                                            seconds (default 3), B per sendmmsg (default 32)
 *
 * sink and blast measure the floor of one-way streaming: raw frames with no protocol, no copy into an app's
 * buffer and no flow control, as fast as the kernel takes them. blast prints "sent_mib_s=.. frames=..", sink,
 * when it ends, "mib_s=.. frames=.. drops=.." over the time from its first frame to its last, and the frames the
 * kernel dropped because its ring was full (PACKET_STATISTICS); MiB/s count whole frames, header included.
 *
 * The client first sends N/10 untimed warm-up pings, then prints one line:
 *   rtt_us_mean=.. p50=.. p99=.. min=.. max=.. n=.. size=.. lost=..
 * A ping without a reply within --timeout-ms (default 1000) counts as lost. The server prints "ready" on stdout
 * once its ring is bound, and its count of echoed frames on stderr when it ends. Both end cleanly (exit 0) on
 * SIGTERM/SIGINT. Frames of other EtherTypes are not delivered (the socket is bound to 0x88B5) and are skipped.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define ETHERTYPE 0x88B5
#define MAGIC 0x53565250u /* "SVRP" */

struct ring {
    int fd, mtu;
    unsigned char mac[6], *map;
    unsigned frame_size, frame_nr, idx;
};

struct ping { uint32_t magic; uint64_t seq; } __attribute__((packed));

static volatile sig_atomic_t stop;

static void on_signal(int sig) { (void) sig; stop = 1; }

static void die(const char *what) {
    fprintf(stderr, "ringpong: %s: %s\n", what, strerror(errno));
    exit(1);
}

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static void ring_open(struct ring *r, const char *ifname) {
    struct ifreq ifr;
    memset(r, 0, sizeof *r);
    if (strlen(ifname) >= IFNAMSIZ) errno = ENAMETOOLONG, die(ifname);
    r->fd = socket(AF_PACKET, SOCK_RAW, 0); /* protocol 0: nothing arrives before bind() */
    if (r->fd < 0) die("socket(AF_PACKET)");
    memset(&ifr, 0, sizeof ifr);
    strcpy(ifr.ifr_name, ifname);
    if (ioctl(r->fd, SIOCGIFINDEX, &ifr) < 0) die(ifname);
    int ifindex = ifr.ifr_ifindex;
    if (ioctl(r->fd, SIOCGIFHWADDR, &ifr) < 0) die("SIOCGIFHWADDR");
    memcpy(r->mac, ifr.ifr_hwaddr.sa_data, 6);
    if (ioctl(r->fd, SIOCGIFMTU, &ifr) < 0) die("SIOCGIFMTU");
    r->mtu = ifr.ifr_mtu;

    int v = TPACKET_V2, one = 1;
    if (setsockopt(r->fd, SOL_PACKET, PACKET_VERSION, &v, sizeof v) < 0) die("PACKET_VERSION");
    /* a slot holds the tpacket2 header, padding and the largest frame the MTU allows (+4 for a VLAN tag) */
    r->frame_size = 2048;
    while (r->frame_size < (unsigned) r->mtu + ETH_HLEN + 4 + 128) r->frame_size *= 2;
    unsigned block = r->frame_size > 65536 ? r->frame_size : 65536, blocks = (4u << 20) / block;
    if (blocks < 4) blocks = 4;
    struct tpacket_req req = {.tp_block_size = block, .tp_block_nr = blocks, .tp_frame_size = r->frame_size,
                              .tp_frame_nr = blocks * (block / r->frame_size)};
    if (setsockopt(r->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof req) < 0) die("PACKET_RX_RING");
    r->frame_nr = req.tp_frame_nr;
    r->map = mmap(NULL, (size_t) block * blocks, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd, 0);
    if (r->map == MAP_FAILED) die("mmap(RX ring)");
    if (setsockopt(r->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one) < 0)
        fprintf(stderr, "ringpong: no PACKET_IGNORE_OUTGOING (%s)\n", strerror(errno));
    setsockopt(r->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof one);
    struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_protocol = htons(ETHERTYPE), .sll_ifindex = ifindex};
    if (bind(r->fd, (struct sockaddr *) &sll, sizeof sll) < 0) die("bind");
}

/* the next filled slot, or NULL; blocks are contiguous and a multiple of the slot size, so slot i is at i*size */
static inline struct tpacket2_hdr *ring_peek(struct ring *r) {
    struct tpacket2_hdr *h = (struct tpacket2_hdr *) (r->map + (size_t) r->idx * r->frame_size);
    return __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER ? h : NULL;
}

static inline void ring_next(struct ring *r, struct tpacket2_hdr *h) {
    __atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
    if (++r->idx == r->frame_nr) r->idx = 0;
}

/* the frame in slot h if it is a whole 0x88B5 frame, else NULL */
static inline unsigned char *frame_of(struct tpacket2_hdr *h) {
    unsigned char *f = (unsigned char *) h + h->tp_mac;
    if (h->tp_snaplen != h->tp_len || h->tp_len < ETH_HLEN || ((f[12] << 8) | f[13]) != ETHERTYPE) return NULL;
    return f;
}

/* aa:bb:cc:dd:ee:ff into mac; 0, with the reason on stderr, if it is not one */
static int parse_mac(const char *text, unsigned char mac[6]) {
    if (sscanf(text, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1], &mac[2], &mac[3], &mac[4], &mac[5]) == 6)
        return 1;
    fprintf(stderr, "ringpong: bad MAC %s\n", text);
    return 0;
}

/* the Ethernet header of a 0x88B5 frame from r's interface to dst */
static void put_header(unsigned char *frame, const unsigned char dst[6], const struct ring *r) {
    memcpy(frame, dst, 6);
    memcpy(frame + 6, r->mac, 6);
    frame[12] = ETHERTYPE >> 8, frame[13] = ETHERTYPE & 0xFF;
}

static void xsend(struct ring *r, const void *buf, size_t len) {
    while (send(r->fd, buf, len, 0) < 0) {
        if (errno == EINTR && stop) return;
        if (errno != ENOBUFS && errno != EAGAIN && errno != EINTR) die("send");
    }
}

/* opens the ring and tells whoever waits for it ("ready" on stdout) */
static void ring_ready(struct ring *r, const char *ifname) {
    ring_open(r, ifname);
    printf("ready\n");
    fflush(stdout);
}

static int server(const char *ifname) {
    struct ring r;
    ring_ready(&r, ifname);
    unsigned long long echoed = 0, skipped = 0;
    while (!stop) {
        struct tpacket2_hdr *h = ring_peek(&r);
        if (!h) { relax(); continue; }
        unsigned char *f = frame_of(h);
        if (f && memcmp(f + 6, r.mac, 6)) {
            memcpy(f, f + 6, 6); /* back to the sender, from us */
            memcpy(f + 6, r.mac, 6);
            xsend(&r, f, h->tp_len);
            echoed++;
        } else {
            skipped++;
        }
        ring_next(&r, h);
    }
    fprintf(stderr, "ringpong server: echoed=%llu skipped=%llu\n", echoed, skipped);
    return 0;
}

static int sink(const char *ifname) {
    struct ring r;
    ring_ready(&r, ifname);
    unsigned long long frames = 0, bytes = 0;
    int64_t first = 0, last = 0;
    while (!stop) {
        struct tpacket2_hdr *h = ring_peek(&r);
        if (!h) { relax(); continue; }
        unsigned char *f = frame_of(h);
        if (f && memcmp(f + 6, r.mac, 6)) {
            last = now_ns();
            if (!frames++) first = last;
            bytes += h->tp_len;
        }
        ring_next(&r, h);
    }
    struct tpacket_stats st;
    socklen_t len = sizeof st;
    if (getsockopt(r.fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) < 0) die("PACKET_STATISTICS");
    double secs = (last - first) / 1e9;
    printf("mib_s=%.1f frames=%llu drops=%u\n", secs > 0 ? bytes / secs / 1048576.0 : 0.0, frames, st.tp_drops);
    fflush(stdout);
    return 0;
}

static int blast(const char *ifname, const char *peer, long size, long seconds, long batch) {
    unsigned char dst[6];
    if (!parse_mac(peer, dst)) return 2;
    struct ring r;
    ring_open(&r, ifname);
    if (size <= 0) size = r.mtu + ETH_HLEN;
    if (size < ETH_HLEN + 8 || size > r.mtu + ETH_HLEN || batch < 1 || batch > 1024) {
        fprintf(stderr, "ringpong: --size %ld outside %d..%d or --batch %ld outside 1..1024\n", size, ETH_HLEN + 8,
                r.mtu + ETH_HLEN, batch);
        return 2;
    }
    unsigned char *frame = calloc(1, (size_t) size);
    struct mmsghdr *msgs = calloc((size_t) batch, sizeof *msgs);
    struct iovec iov = {.iov_base = frame, .iov_len = (size_t) size};
    if (!frame || !msgs) die("malloc");
    put_header(frame, dst, &r);
    for (long i = 0; i < batch; i++) {
        msgs[i].msg_hdr.msg_iov = &iov;
        msgs[i].msg_hdr.msg_iovlen = 1;
    }
    unsigned long long frames = 0;
    int64_t start = now_ns(), end = start + seconds * 1000000000LL, t = start;
    while (!stop && (t = now_ns()) < end) {
        int n = sendmmsg(r.fd, msgs, (unsigned) batch, 0);
        if (n < 0) {
            if (errno != ENOBUFS && errno != EAGAIN && errno != EINTR) die("sendmmsg");
            continue;
        }
        frames += (unsigned) n;
    }
    double secs = (t - start) / 1e9;
    printf("sent_mib_s=%.1f frames=%llu size=%ld batch=%ld\n", frames * (double) size / secs / 1048576.0, frames,
           size, batch);
    fflush(stdout);
    return 0;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
    return (x > y) - (x < y);
}

static double pctl(const int64_t *v, long n, double p) { /* nearest rank, microseconds */
    long k = (long) (p / 100.0 * (double) n + 0.999999999) - 1;
    return v[k < 0 ? 0 : k >= n ? n - 1 : k] / 1000.0;
}

static int client(const char *ifname, const char *peer, long count, long size, long timeout_ms) {
    unsigned char dst[6];
    if (!parse_mac(peer, dst)) return 2;
    struct ring r;
    ring_open(&r, ifname);
    long min = ETH_HLEN + (long) sizeof(struct ping);
    if (size < min || size > r.mtu + ETH_HLEN) {
        fprintf(stderr, "ringpong: --size %ld outside %ld..%d (MTU %d + 14)\n", size, min, r.mtu + ETH_HLEN, r.mtu);
        return 2;
    }
    unsigned char *frame = calloc(1, (size_t) size);
    int64_t *rtt = malloc(sizeof *rtt * (size_t) (count > 0 ? count : 1));
    if (!frame || !rtt) die("malloc");
    put_header(frame, dst, &r);
    struct ping *pp = (struct ping *) (frame + ETH_HLEN);
    pp->magic = MAGIC;

    long warm = count / 10, n = 0, lost = 0;
    int64_t timeout = timeout_ms * 1000000LL;
    for (long i = 0; i < warm + count && !stop; i++) {
        pp->seq = (uint64_t) i;
        int64_t t0 = now_ns(), t1 = 0;
        xsend(&r, frame, (size_t) size);
        for (unsigned spins = 0; !t1 && !stop;) {
            struct tpacket2_hdr *h = ring_peek(&r);
            if (!h) {
                relax();
                if (++spins % 4096 == 0 && now_ns() - t0 > timeout) break;
                continue;
            }
            unsigned char *f = frame_of(h);
            if (f && h->tp_len >= (unsigned) min) {
                struct ping *q = (struct ping *) (f + ETH_HLEN);
                if (q->magic == MAGIC && q->seq == (uint64_t) i) t1 = now_ns();
            }
            ring_next(&r, h);
        }
        if (!t1) {
            if (!stop) lost++;
        } else if (i >= warm) {
            rtt[n++] = t1 - t0;
        }
    }
    if (n == 0) {
        fprintf(stderr, "ringpong: no replies from %s on %s (server running? lost=%ld)\n", peer, ifname, lost);
        return 1;
    }
    qsort(rtt, (size_t) n, sizeof *rtt, cmp_i64);
    double sum = 0;
    for (long i = 0; i < n; i++) sum += (double) rtt[i];
    printf("rtt_us_mean=%.2f p50=%.2f p99=%.2f min=%.2f max=%.2f n=%ld size=%ld lost=%ld\n", sum / n / 1000.0,
           pctl(rtt, n, 50), pctl(rtt, n, 99), rtt[0] / 1000.0, rtt[n - 1] / 1000.0, n, size, lost);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv) {
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (argc == 3 && !strcmp(argv[1], "server")) return server(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "sink")) return sink(argv[2]);
    if (argc >= 4 && !strcmp(argv[1], "blast")) {
        long size = 0, seconds = 3, batch = 32;
        for (int i = 4; i < argc; i += 2) {
            if (i + 1 >= argc) goto usage;
            long v = strtol(argv[i + 1], NULL, 0);
            if (!strcmp(argv[i], "--size")) size = v;
            else if (!strcmp(argv[i], "--seconds") && v > 0) seconds = v;
            else if (!strcmp(argv[i], "--batch")) batch = v;
            else goto usage;
        }
        return blast(argv[2], argv[3], size, seconds, batch);
    }
    if (argc >= 4 && !strcmp(argv[1], "client")) {
        long count = 100000, size = 64, timeout_ms = 1000;
        for (int i = 4; i < argc; i += 2) {
            if (i + 1 >= argc) goto usage;
            long v = strtol(argv[i + 1], NULL, 0);
            if (!strcmp(argv[i], "--count") && v > 0) count = v;
            else if (!strcmp(argv[i], "--size")) size = v;
            else if (!strcmp(argv[i], "--timeout-ms") && v > 0) timeout_ms = v;
            else goto usage;
        }
        return client(argv[2], argv[3], count, size, timeout_ms);
    }
usage:
    fprintf(stderr, "usage: ringpong server IFNAME\n"
                    "       ringpong client IFNAME PEER_MAC [--count N] [--size S] [--timeout-ms MS]\n"
                    "       ringpong sink IFNAME\n"
                    "       ringpong blast IFNAME PEER_MAC [--size S] [--seconds T] [--batch B]\n");
    return 2;
}
