/*
 * ethbridge: a user-space Ethernet bridge between two interfaces, forwarding every frame (any EtherType: ARP, IPv4,
 * Sovia's 0x88B5, ...) with seeded, reproducible fault injection. Run it in the bridge namespace of netns.sh:
 *
 *   ip netns exec sovia-br ethbridge bra brb [--seed N] [--drop P] [--dup P] [--reorder P] [--corrupt P]
 *                                            [--only-ethertype 0x88B5] [--hold-us US]
 *
 * P are percentages per frame (0..100, decimals allowed). With --only-ethertype, only frames of that EtherType are
 * subject to faults; the others pass untouched and do not count as "next frame" for a held one. Each direction has
 * its own splitmix64 stream seeded from --seed and draws exactly three numbers per eligible frame (drop, dup,
 * reorder), so the fate of the k-th eligible frame of a direction depends only on the seed and k.
 *   drop     the frame is not sent
 *   dup      the frame is sent twice
 *   reorder  the frame is held back and sent right after the next eligible frame of its direction (or after
 *            --hold-us, default 1000, if none comes); at most one frame per direction is held
 *   corrupt  the frame is sent with one field damaged, the kinds taken in turn: "token" flips all bits of the u64 at
 *            offset 48 (the engine frame's token), "port" adds 1 to the u16 at 18 (destination port), "length" sets
 *            the u16 at 16 (payload length) to 0xFFFF (offsets from the Ethernet frame's start, little endian).
 *            Candidates are only Sovia FRAMEs (byte 14 == 1) of at least 80 bytes of the --only-ethertype EtherType,
 *            else of 0x88B5. They draw from a second stream per direction, one number per candidate, so the drop,
 *            dup and reorder fates above do not depend on --corrupt. A dropped frame is not corrupted; a dup'ed one
 *            is sent twice damaged.
 * Prints "ready" on stdout once both sockets are bound; on SIGINT/SIGTERM prints one line of counters per
 * direction to stderr and exits 0 (fwd: frames sent on, a dup counted once; txerr: failed sends; corrupt: frames
 * damaged, by kind).
 * Frames keep their offload state: the sockets use PACKET_VNET_HDR, so a frame whose checksum the sending veth
 * left to "hardware" (CHECKSUM_PARTIAL) or a TSO/GSO super-frame is re-sent as such, as a kernel bridge would.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define VH ((ssize_t) sizeof(struct virtio_net_hdr))
#define BUFSZ (65536 + 256)

struct dir {
    int in, out;
    const char *from, *to;
    uint64_t rng, crng;
    unsigned char *rx, *held;
    ssize_t held_len;
    int held_copies;
    int64_t held_at;
    unsigned long long fwd, drop, dup, reord, txerr, rxerr, corrupt, ck[3];
};

static volatile sig_atomic_t stop;
static double p_drop, p_dup, p_reorder, p_corrupt;
static long only_type = -1;
static int64_t hold_ns = 1000000;

static void on_signal(int sig) { (void) sig; stop = 1; }

static void die(const char *what, const char *arg) {
    fprintf(stderr, "ethbridge: %s %s: %s\n", what, arg ? arg : "", strerror(errno));
    exit(1);
}

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static uint64_t splitmix64(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static int chance(uint64_t *rng, double pct) { return (splitmix64(rng) >> 11) * 0x1.0p-53 * 100.0 < pct; }

static int open_if(const char *name) {
    int one = 1, sz = 4 << 20;
    unsigned idx = if_nametoindex(name);
    if (!idx) die("no interface", name);
    /* protocol 0: the socket sees nothing until bound to the one interface (no frames from others slip in) */
    int fd = socket(AF_PACKET, SOCK_RAW, 0);
    if (fd < 0) die("socket(AF_PACKET)", name);
    if (setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof one) < 0) die("PACKET_VNET_HDR", name);
    if (setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one) < 0)
        fprintf(stderr, "ethbridge: no PACKET_IGNORE_OUTGOING (%s), filtering on sll_pkttype\n", strerror(errno));
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof sz) < 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz);
    if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof sz) < 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz);
    struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL), .sll_ifindex = (int) idx};
    if (bind(fd, (struct sockaddr *) &sll, sizeof sll) < 0) die("bind", name);
    struct packet_mreq mr = {.mr_ifindex = (int) idx, .mr_type = PACKET_MR_PROMISC};
    if (setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof mr) < 0) die("PACKET_MR_PROMISC", name);
    return fd;
}

static void xmit(struct dir *d, const unsigned char *buf, ssize_t len, int copies) {
    for (int i = 0; i < copies; i++)
        if (send(d->out, buf, (size_t) len, 0) != len) d->txerr++;
    d->fwd++;
}

static void release(struct dir *d) {
    if (!d->held_len) return;
    xmit(d, d->held, d->held_len, d->held_copies);
    d->held_len = 0;
}

/* damages one field of a Sovia FRAME (see the top): token, destination port, payload length, in turn */
static void damage(struct dir *d, unsigned char *f) {
    int kind = (int) (d->corrupt++ % 3);
    d->ck[kind]++;
    if (kind == 0) {
        for (int i = 48; i < 56; i++) f[i] ^= 0xFF;
    } else if (kind == 1) {
        unsigned port = (unsigned) (f[18] | f[19] << 8) + 1;
        f[18] = (unsigned char) port, f[19] = (unsigned char) (port >> 8);
    } else {
        f[16] = f[17] = 0xFF;
    }
}

static void handle(struct dir *d, ssize_t len) {
    unsigned char *eth = d->rx + VH;
    int type = (eth[12] << 8) | eth[13];
    int corrupt = type == (only_type >= 0 ? only_type : 0x88B5) && eth[14] == 1 && len - VH >= 80
                  && chance(&d->crng, p_corrupt);
    if (only_type >= 0 && type != only_type) {
        xmit(d, d->rx, len, 1);
        return;
    }
    int drop = chance(&d->rng, p_drop), dup = chance(&d->rng, p_dup), reorder = chance(&d->rng, p_reorder);
    if (drop) {
        d->drop++;
    } else {
        if (corrupt) damage(d, eth);
        d->dup += dup;
        if (reorder && !d->held_len) {
            unsigned char *t = d->held;
            d->held = d->rx, d->rx = t;
            d->held_len = len, d->held_copies = 1 + dup, d->held_at = now_ns();
            d->reord++;
            return;
        }
        xmit(d, d->rx, len, 1 + dup);
    }
    release(d);
}

static void drain(struct dir *d) {
    for (int n = 0; n < 256 && !stop; n++) {
        struct sockaddr_ll from;
        socklen_t fl = sizeof from;
        ssize_t len = recvfrom(d->in, d->rx, BUFSZ, MSG_DONTWAIT | MSG_TRUNC, (struct sockaddr *) &from, &fl);
        if (len < 0) {
            if (errno == EAGAIN || errno == EINTR) return;
            if (d->rxerr++ == 0) fprintf(stderr, "ethbridge: recv on %s: %s\n", d->from, strerror(errno));
            continue;
        }
        if (from.sll_pkttype == PACKET_OUTGOING) continue;
        if (len > BUFSZ || len < VH + ETH_HLEN) { d->rxerr++; continue; }
        handle(d, len);
    }
}

static double pct(const char *opt, const char *v) {
    char *end;
    double p = strtod(v, &end);
    if (*end || p < 0 || p > 100) fprintf(stderr, "ethbridge: %s wants 0..100, got %s\n", opt, v), exit(2);
    return p;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: ethbridge IF1 IF2 [--seed N] [--drop P] [--dup P] [--reorder P] [--corrupt P] "
                        "[--only-ethertype 0xNNNN] [--hold-us US]\n");
        return 2;
    }
    uint64_t seed = 1;
    for (int i = 3; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) fprintf(stderr, "ethbridge: %s needs a value\n", o), exit(2);
        i++;
        if (!strcmp(o, "--seed")) seed = strtoull(v, NULL, 0);
        else if (!strcmp(o, "--drop")) p_drop = pct(o, v);
        else if (!strcmp(o, "--dup")) p_dup = pct(o, v);
        else if (!strcmp(o, "--reorder")) p_reorder = pct(o, v);
        else if (!strcmp(o, "--corrupt")) p_corrupt = pct(o, v);
        else if (!strcmp(o, "--only-ethertype")) only_type = strtol(v, NULL, 0) & 0xFFFF;
        else if (!strcmp(o, "--hold-us")) hold_ns = strtoll(v, NULL, 0) * 1000;
        else fprintf(stderr, "ethbridge: unknown option %s\n", o), exit(2);
    }

    struct sigaction sa = {.sa_handler = on_signal}; /* no SA_RESTART: ppoll returns EINTR */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    int fd[2] = {open_if(argv[1]), open_if(argv[2])};
    struct dir dirs[2];
    for (int k = 0; k < 2; k++) {
        struct dir *d = &dirs[k];
        memset(d, 0, sizeof *d);
        d->in = fd[k], d->out = fd[1 - k], d->from = argv[1 + k], d->to = argv[2 - k];
        d->rng = seed ^ (k ? 0xD1B54A32D192ED03ULL : 0);
        d->crng = d->rng ^ 0xA0761D6478BD642FULL;
        d->rx = malloc(BUFSZ), d->held = malloc(BUFSZ);
        if (!d->rx || !d->held) die("malloc", NULL);
    }
    printf("ready\n");
    fflush(stdout);

    struct pollfd pfd[2] = {{.fd = fd[0], .events = POLLIN}, {.fd = fd[1], .events = POLLIN}};
    while (!stop) {
        int64_t now = now_ns(), wait = -1;
        for (int k = 0; k < 2; k++)
            if (dirs[k].held_len) {
                int64_t left = dirs[k].held_at + hold_ns - now;
                if (left < 0) left = 0;
                if (wait < 0 || left < wait) wait = left;
            }
        struct timespec ts = {wait / 1000000000, wait % 1000000000};
        int n = ppoll(pfd, 2, wait < 0 ? NULL : &ts, NULL);
        if (n < 0 && errno != EINTR) die("ppoll", NULL);
        for (int k = 0; n > 0 && k < 2; k++)
            if (pfd[k].revents) drain(&dirs[k]);
        now = now_ns();
        for (int k = 0; k < 2; k++)
            if (dirs[k].held_len && now - dirs[k].held_at >= hold_ns) release(&dirs[k]);
    }
    for (int k = 0; k < 2; k++) release(&dirs[k]);

    for (int k = 0; k < 2; k++) {
        struct dir *d = &dirs[k];
        fprintf(stderr, "%s%s->%s fwd=%llu drop=%llu dup=%llu reord=%llu corrupt=%llu (token=%llu port=%llu "
                        "length=%llu) txerr=%llu rxerr=%llu", k ? " | " : "ethbridge: ", d->from, d->to, d->fwd,
                d->drop, d->dup, d->reord, d->corrupt, d->ck[0], d->ck[1], d->ck[2], d->txerr, d->rxerr);
    }
    fprintf(stderr, "\n");
    return 0;
}
