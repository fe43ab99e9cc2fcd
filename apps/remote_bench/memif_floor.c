/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lca-memif-floor: the bare memif floor of lca-remote-bench --remote memif.
 * Two processes (this one forks the second), each an EAL of one lcore on
 * its CPU, with a memif pair between them as lca-remote-bench makes it
 * (this one the server, the second the client, DPDK's memif PMD in copy
 * mode), and nothing else: no actor, no credit, no acknowledgement, no
 * retransmission. The frames are laid out as lcactor's: 78 bytes of
 * headers (Ethernet, IPv4, UDP and the channel header's length), then one
 * record a message, a 16-byte header and the payload padded to 4 bytes, as
 * many as fit a frame of the same size (1514 bytes; 9014 with --jumbo), so
 * a frame carries exactly as many messages as lcactor's. For each message
 * size: one-way msg/s (the second process reads every record and counts;
 * an END frame asks for its count), after an untimed pass that warms both
 * ends, in passes of --msgs until they took 200 ms; and round trips one at
 * a time, a frame of one record each way (p50, p99, p99.9). Its lines are
 * lca-remote-bench's, and a "# floor-result" line per size says the same
 * for a program to read (rb_floor_prog.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "app_opt.h"
#include "rb_floor_prog.h"

#define PROG "lca-memif-floor"
#define BURST 32
#define N_MBUFS 8191
#define MTU 1500
#define JUMBO_MTU 9000
#define JUMBO_BUF 9216
/* lcactor's frame before its first record: Ethernet, IPv4 and UDP
 * (WIRE_OUTER_LEN) and its channel header (WIRE_HDR_LEN). */
#define FRAME_HDRS (14 + 20 + 8 + 36)
#define REC_HDR 16 /* lcactor's record header (struct wire_msg) */
/* The shortest one-way window, as lca-remote-bench's without --msgs. */
#define WINDOW_MIN_S 0.2

enum frame_kind { F_DATA = 1, F_END, F_END_ACK, F_PING, F_PONG, F_QUIT };

/* After the Ethernet header, in the bytes lcactor's IP, UDP and channel
 * headers take: what the frame is and how many records. */
struct frame_hdr {
	rte_be32_t kind;
	rte_be32_t n;
	rte_be64_t count; /* F_END_ACK: the records counted since the last END */
};
_Static_assert(RTE_ETHER_HDR_LEN + sizeof(struct frame_hdr) <= FRAME_HDRS,
	       "the floor's header within lcactor's");

/* A record's header, in wire order as lcactor's: the payload's length,
 * and what lcactor's carries besides (to, from, type), only written and
 * read here. */
struct rec_hdr {
	rte_be32_t to;
	rte_be32_t from;
	rte_be32_t type;
	rte_be16_t len;
	rte_be16_t flags;
};
_Static_assert(sizeof(struct rec_hdr) == REC_HDR, "a record header as lcactor's");

static struct floor_opts o = FLOOR_OPTS_DEFAULT;
static struct rte_mempool *pool;
static const uint16_t port;
static uint32_t frame_cap; /* bytes a frame may have */
static bool eal_is_up;
static pid_t child = -1;  /* this process's second one: gone, it stops waiting */
static pid_t parent = -1; /* in the second process: the first one */

/* --- Both processes: the EAL, the port, frames ------------------------- */

/* The EAL of one lcore on @p cpu with this run's memif end. */
static int
eal_up(bool server, int cpu, const char *sock)
{
	char lcores[32], prefix[64], vdev[256];
	char *argv[] = { PROG, "--lcores", lcores, "--no-huge", "-m", o.jumbo ? "512" : "256",
			 "--no-pci", "--no-shconf", "--no-telemetry", "--file-prefix", prefix,
			 "--log-level", "lib.*:error", "--vdev", vdev, NULL };
	int argc = (int)RTE_DIM(argv) - 1;

	snprintf(lcores, sizeof(lcores), "0@%d", cpu);
	snprintf(prefix, sizeof(prefix), "lmf%d%s", (int)getpid(), server ? "s" : "c");
	snprintf(vdev, sizeof(vdev), "net_memif0,role=%s,socket=%s,socket-abstract=no,id=0%s",
		 server ? "server" : "client", sock, o.jumbo ? ",bsize=" RTE_STR(JUMBO_BUF) : "");
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, PROG ": EAL (%s): %s\n", server ? "server" : "client",
			rte_strerror(rte_errno));
		return -ENODEV;
	}
	eal_is_up = true;
	return 0;
}

/* The port closed and the EAL's runtime folder gone: runs leave nothing. */
static void
eal_down(void)
{
	char dir[PATH_MAX];

	if (!eal_is_up)
		return;
	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	rte_eth_dev_stop(port);
	rte_eth_dev_close(port);
	rte_eal_cleanup();
	rmdir(dir);
	eal_is_up = false;
}

static int
port_up(void)
{
	struct rte_eth_conf ec = { 0 };
	uint16_t buf = o.jumbo ? JUMBO_BUF : RTE_MBUF_DEFAULT_DATAROOM;
	int ret;

	frame_cap = RTE_ETHER_HDR_LEN + (o.jumbo ? JUMBO_MTU : MTU);
	pool = rte_pktmbuf_pool_create("floor", N_MBUFS, 256, 0, RTE_PKTMBUF_HEADROOM + buf,
				       (int)rte_socket_id());
	if (pool == NULL || !rte_eth_dev_is_valid_port(port)) {
		fprintf(stderr, PROG ": %s\n", pool == NULL ? "no mbuf pool" : "no memif port");
		return -ENODEV;
	}
	ret = rte_eth_dev_configure(port, 1, 1, &ec);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(port, 0, 1024, (unsigned int)rte_socket_id(), NULL,
					     pool);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port, 0, 1024, (unsigned int)rte_socket_id(), NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(port);
	if (ret != 0)
		fprintf(stderr, PROG ": memif port: %s\n", rte_strerror(-ret));
	return ret;
}

static bool
link_is_up(void)
{
	struct rte_eth_link link;

	return rte_eth_link_get_nowait(port, &link) == 0 && link.link_status;
}

/* Whether the other process is still there: the driving one asks of its
 * child, the second one of its parent (it is re-parented when that dies). */
static bool
peer_alive(void)
{
	int status;

	if (child > 0)
		return waitpid(child, &status, WNOHANG) == 0;
	return getppid() == parent;
}

/* Until the memif is connected; false after --timeout or once the other
 * process is gone. */
static bool
link_wait(void)
{
	uint64_t limit = rte_get_timer_cycles() + o.timeout_s * rte_get_timer_hz();

	do {
		if (link_is_up())
			return true;
		if (!peer_alive()) {
			fprintf(stderr, PROG ": the other process ended before the link came up\n");
			return false;
		}
		rte_delay_ms(1);
	} while (rte_get_timer_cycles() < limit);
	fprintf(stderr, PROG ": the memif link did not come up within %u s\n", o.timeout_s);
	return false;
}

/* Whether to go on waiting past @p limit (TSC): false, after a line saying
 * why, when the time is up, the link went down or the other process left. */
static bool
still_there(uint64_t limit, const char *what)
{
	if (rte_rdtsc() <= limit && link_is_up())
		return true;
	if (link_is_up() && peer_alive())
		fprintf(stderr, PROG ": %s: nothing within %u s\n", what, o.timeout_s);
	else
		fprintf(stderr, PROG ": %s: the link went down\n", what);
	return false;
}

static uint64_t
deadline(void)
{
	return rte_rdtsc() + o.timeout_s * rte_get_tsc_hz();
}

static struct frame_hdr *
frame_of(struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod_offset(m, struct frame_hdr *, RTE_ETHER_HDR_LEN);
}

/* A frame of @p kind with its Ethernet header; records go after
 * FRAME_HDRS. */
static void
frame_start(struct rte_mbuf *m, enum frame_kind kind)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

	memset(eth, 0, sizeof(*eth));
	eth->ether_type = rte_cpu_to_be_16(0x88b5); /* IEEE local experimental */
	*frame_of(m) = (struct frame_hdr){ .kind = rte_cpu_to_be_32(kind) };
	m->data_len = m->pkt_len = FRAME_HDRS;
}

static inline uint32_t
rec_len(unsigned int size)
{
	return REC_HDR + ((size + 3u) & ~3u);
}

/* Append a record of @p size bytes from @p payload; @p n records so far. */
static inline void
rec_add(struct rte_mbuf *m, const uint8_t *payload, unsigned int size, uint32_t *n)
{
	uint8_t *at = rte_pktmbuf_mtod_offset(m, uint8_t *, m->data_len);
	struct rec_hdr h = {
		.to = rte_cpu_to_be_32(1), .from = rte_cpu_to_be_32(2),
		.type = rte_cpu_to_be_32(1), .len = rte_cpu_to_be_16((uint16_t)size),
	};

	memcpy(at, &h, sizeof(h));
	memcpy(at + sizeof(h), payload, size);
	m->data_len = (uint16_t)(m->data_len + rec_len(size));
	m->pkt_len = m->data_len;
	(*n)++;
}

/* Send all @p n frames, spinning while the ring is full; -EIO (the frames
 * not sent freed) after --timeout or once the link is down. */
static int
tx_all(struct rte_mbuf **m, uint16_t n)
{
	uint64_t limit = deadline();
	uint16_t done = 0;

	while (done < n) {
		uint16_t sent = rte_eth_tx_burst(port, 0, m + done, (uint16_t)(n - done));

		done = (uint16_t)(done + sent);
		if (sent == 0 && done < n && !still_there(limit, "sending")) {
			rte_pktmbuf_free_bulk(m + done, (unsigned int)(n - done));
			return -EIO;
		}
	}
	return 0;
}

static int
send_one(enum frame_kind kind, uint64_t count)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	if (m == NULL)
		return -ENOMEM;
	frame_start(m, kind);
	frame_of(m)->count = rte_cpu_to_be_64(count);
	return tx_all(&m, 1);
}

/* --- The second process: count, answer, echo ------------------------- */

/* Every record of a data frame read, as a sink reads its messages. */
static uint64_t
count_records(struct rte_mbuf *m)
{
	const uint8_t *at = rte_pktmbuf_mtod_offset(m, const uint8_t *, FRAME_HDRS);
	const uint8_t *end = rte_pktmbuf_mtod_offset(m, const uint8_t *, m->data_len);
	uint32_t n = rte_be_to_cpu_32(frame_of(m)->n), seen = 0;
	volatile uint8_t sink;

	for (uint32_t i = 0; i < n && at + REC_HDR <= end; i++) {
		struct rec_hdr h;
		uint16_t len;

		memcpy(&h, at, sizeof(h));
		len = rte_be_to_cpu_16(h.len);
		if (len > 0)
			sink = at[REC_HDR];
		at += rec_len(len);
		seen++;
	}
	(void)sink;
	return seen;
}

/* Until QUIT: 0; 1 when the link goes down or nothing comes for
 * --timeout (the driving process is gone). */
static int
serve(void)
{
	struct rte_mbuf *m[BURST];
	uint64_t count = 0, limit = deadline();

	for (;;) {
		uint16_t n = rte_eth_rx_burst(port, 0, m, BURST);

		if (n == 0) {
			if (!still_there(limit, "second process"))
				return 1;
			continue;
		}
		limit = deadline();
		for (uint16_t i = 0; i < n; i++) {
			struct frame_hdr *f = frame_of(m[i]);

			switch (rte_be_to_cpu_32(f->kind)) {
			case F_DATA:
				count += count_records(m[i]);
				rte_pktmbuf_free(m[i]);
				break;
			case F_PING:
				f->kind = rte_cpu_to_be_32(F_PONG);
				if (tx_all(&m[i], 1) != 0)
					goto gone;
				break;
			case F_END:
				rte_pktmbuf_free(m[i]);
				if (send_one(F_END_ACK, count) != 0)
					goto gone;
				count = 0;
				break;
			case F_QUIT:
				rte_pktmbuf_free_bulk(m + i, (unsigned int)(n - i));
				return 0;
			default:
				rte_pktmbuf_free(m[i]);
			}
			continue;
gone:
			rte_pktmbuf_free_bulk(m + i + 1, (unsigned int)(n - i - 1));
			return 1;
		}
	}
}

/* --- This process: drive ------------------------------------------- */

/* The next frame of @p kind; NULL after --timeout or once the link is
 * down. */
static struct rte_mbuf *
wait_frame(enum frame_kind kind)
{
	uint64_t limit = deadline();

	for (;;) {
		struct rte_mbuf *m;

		if (rte_eth_rx_burst(port, 0, &m, 1) == 1) {
			if (rte_be_to_cpu_32(frame_of(m)->kind) == kind)
				return m;
			rte_pktmbuf_free(m);
		} else if (!still_there(limit, "waiting for an answer")) {
			return NULL;
		}
	}
}

/* One pass: @p msgs records packed into frames as fast as the memif takes
 * them, then END; the count in its answer must be all of them. */
static int
pass(unsigned int size, uint64_t msgs, unsigned int per_frame)
{
	static uint8_t payload[FLOOR_MAX_SIZE];
	struct rte_mbuf *m[BURST], *ack;
	uint64_t left = msgs, counted;

	memset(payload, 0x5a, size);
	while (left > 0) {
		uint16_t n = BURST;

		if (rte_pktmbuf_alloc_bulk(pool, m, n) != 0) {
			fprintf(stderr, PROG ": no mbufs for a burst of frames\n");
			return -ENOMEM;
		}
		for (uint16_t i = 0; i < n; i++) {
			uint32_t recs = 0;

			frame_start(m[i], F_DATA);
			for (unsigned int k = 0; k < per_frame && left > 0; k++, left--)
				rec_add(m[i], payload, size, &recs);
			frame_of(m[i])->n = rte_cpu_to_be_32(recs);
			if (left == 0 && i + 1 < n) {
				rte_pktmbuf_free_bulk(m + i + 1, (unsigned int)(n - i - 1));
				n = (uint16_t)(i + 1);
			}
		}
		if (tx_all(m, n) != 0)
			return -EIO;
	}
	if (send_one(F_END, 0) != 0 || (ack = wait_frame(F_END_ACK)) == NULL)
		return -EIO;
	counted = rte_be_to_cpu_64(frame_of(ack)->count);
	rte_pktmbuf_free(ack);
	if (counted != msgs) {
		fprintf(stderr, PROG ": %u B: the second process counted %" PRIu64 " of %" PRIu64
			"\n", size, counted, msgs);
		return -EIO;
	}
	return 0;
}

/* One-way: an untimed pass, then passes of --msgs until they took
 * WINDOW_MIN_S. */
static int
one_way(unsigned int size, double *mps)
{
	unsigned int per_frame = (frame_cap - FRAME_HDRS) / rec_len(size), passes = 0;
	uint64_t t0, hz = rte_get_tsc_hz();
	double ms;
	int ret = pass(size, o.msgs, per_frame);

	t0 = rte_rdtsc();
	while (ret == 0 && (passes == 0 || rte_rdtsc() - t0 < WINDOW_MIN_S * (double)hz)) {
		ret = pass(size, o.msgs, per_frame);
		passes++;
	}
	if (ret != 0)
		return ret;
	ms = (double)(rte_rdtsc() - t0) * 1e3 / (double)hz;
	*mps = (double)o.msgs * passes / ms / 1e3;
	printf("  %4u B: %" PRIu64 " messages one way in %.1f ms (%u passes after one to warm "
	       "up): %.2f M msg/s (%u a frame); the second process counted %" PRIu64 "\n", size,
	       o.msgs * passes, ms, passes, *mps, per_frame, o.msgs * passes);
	return 0;
}

/* Round trips one at a time, a frame of one record each way. */
static int
round_trips(unsigned int size, uint64_t *rtt, double p[3])
{
	static uint8_t payload[FLOOR_MAX_SIZE];

	for (unsigned int i = 0; i < FLOOR_WARM_PINGS + o.pings; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		uint64_t t0 = rte_rdtsc();
		uint32_t recs = 0;

		if (m == NULL)
			return -ENOMEM;
		frame_start(m, F_PING);
		rec_add(m, payload, size, &recs);
		frame_of(m)->n = rte_cpu_to_be_32(recs);
		if (tx_all(&m, 1) != 0 || (m = wait_frame(F_PONG)) == NULL)
			return -EIO;
		if (i >= FLOOR_WARM_PINGS)
			rtt[i - FLOOR_WARM_PINGS] = rte_rdtsc() - t0;
		rte_pktmbuf_free(m);
	}
	floor_rtt_report(size, rtt, o.pings, 1e9 / (double)rte_get_tsc_hz(), p);
	return 0;
}

static int
drive(void)
{
	uint64_t *rtt = calloc(o.pings, sizeof(*rtt));
	int ret = rtt == NULL ? -ENOMEM : 0;

	for (unsigned int i = 0; ret == 0 && i < o.n_sizes; i++) {
		double mps = 0, p[3];

		if (FRAME_HDRS + rec_len(o.sizes[i]) > frame_cap) {
			fprintf(stderr, PROG ": a %u-byte message does not fit a frame\n",
				o.sizes[i]);
			ret = -EINVAL;
			break;
		}
		ret = one_way(o.sizes[i], &mps);
		if (ret == 0)
			ret = round_trips(o.sizes[i], rtt, p);
		if (ret == 0)
			floor_result_line(o.sizes[i], mps, p);
	}
	/* The second process stops at QUIT; over a dead link it stops on its
	 * own (serve()). */
	if (link_is_up())
		send_one(F_QUIT, 0);
	free(rtt);
	return ret;
}

static const struct app_opt options[] = {
	FLOOR_OPTIONS,
	{ "jumbo", 0, APP_OPT_FLAG, FLOOR_OPT_AT(jumbo),
	  .help = "memif buffers of 9216 bytes and frames of MTU 9000, as\n"
		  "lca-remote-bench --jumbo" },
	{ NULL },
};

static const struct app_opt_table table = {
	.prog = PROG, .opts = options, .synopsis = "[options]", .column = 17,
	.about = "The bare memif floor of lca-remote-bench --remote memif: two processes (this\n"
		 "one starts the second), each one DPDK lcore with an end of a memif pair, and\n"
		 "frames of records laid out as lcactor's, nothing else. It makes its own EAL\n"
		 "arguments (--no-huge, a socket under /tmp); it takes none.\n",
};

/* The @p k-th CPU this process may run on, for an unpinned run. */
static int
allowed_cpu(unsigned int k)
{
	cpu_set_t set;
	unsigned int seen = 0;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 0;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set) && seen++ == k % (unsigned int)CPU_COUNT(&set))
			return c;
	return 0;
}

/* --cpus that a thread may run on, or -EINVAL after a line: tried, as the
 * EAL will pin its lcore there (this process may itself be pinned
 * elsewhere, as lca-remote-bench's main lcore that starts it is). */
static int
cpus_check(void)
{
	cpu_set_t mine, one;
	int ret = 0;

	if (sched_getaffinity(0, sizeof(mine), &mine) != 0)
		return 0; /* the EAL will say */
	for (unsigned int k = 0; k < 2 && ret == 0; k++) {
		CPU_ZERO(&one);
		CPU_SET(o.cpu[k], &one);
		if (sched_setaffinity(0, sizeof(one), &one) != 0) {
			fprintf(stderr, PROG ": --cpus: cannot run on CPU %d: %s\n", o.cpu[k],
				strerror(errno));
			ret = -EINVAL;
		}
	}
	sched_setaffinity(0, sizeof(mine), &mine);
	return ret;
}

/* The second process: the client's EAL once the server's socket is there,
 * then answer until QUIT. It dies with this one. */
static int
second(int fd, const char *sock)
{
	char go;
	int ret;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
		return 1;
	if (read(fd, &go, 1) != 1)
		return 1;
	close(fd);
	ret = eal_up(false, o.cpu[1], sock);
	if (ret == 0)
		ret = port_up();
	if (ret == 0)
		ret = link_wait() ? serve() : 1;
	eal_down();
	return ret == 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	char sock[64];
	int fds[2], ret;

	ret = app_opt_parse(argc, argv, &table, &o, NULL);
	if (ret != 0)
		return ret > 0 ? 0 : 2;
	for (unsigned int k = 0; k < 2; k++)
		if (o.cpu[k] < 0)
			o.cpu[k] = allowed_cpu(k);
	if (cpus_check() != 0)
		return 2;
	parent = getpid();
	snprintf(sock, sizeof(sock), "/tmp/lca-memif-floor-%d.sock", (int)parent);
	unlink(sock); /* a killed run's, of a pid now reused */
	child = floor_fork(fds);
	if (child < 0) {
		fprintf(stderr, PROG ": cannot start the second process: %s\n", strerror(errno));
		return 1;
	}
	if (child == 0) {
		close(fds[1]);
		_exit(second(fds[0], sock));
	}
	close(fds[0]);
	ret = eal_up(true, o.cpu[0], sock);
	if (ret == 0)
		ret = port_up();
	if (ret == 0 && write(fds[1], "g", 1) != 1)
		ret = -EIO;
	close(fds[1]);
	if (ret == 0 && !link_wait())
		ret = -ETIMEDOUT;
	if (ret == 0) {
		printf("memif floor: DPDK's memif PMD between two processes, CPUs %d and %d, "
		       "frames of %u bytes laid out as lcactor's, nothing else\n", o.cpu[0],
		       o.cpu[1], frame_cap);
		ret = drive();
	}
	ret = floor_reap(PROG, "memif", child, ret);
	eal_down();
	unlink(sock);
	return ret == 0 ? 0 : 1;
}
