/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lca-memif-floor: the bare memif floor of lca-remote-bench --remote memif.
 * Two processes (this one forks the second), each an EAL of one lcore on
 * its CPU, with a memif pair between them as lca-remote-bench makes it
 * (this one the server, the second the client, DPDK's memif PMD in copy
 * mode), and nothing else: no actor, no credit, no acknowledgement, no
 * retransmission. The frames carry what lcactor's carry, packed the same
 * way: one record a message, a 16-byte header and the payload, as many as
 * fit a frame of the same size (1514 bytes; 9014 with --jumbo). For each
 * message size: one-way msg/s (the second process reads every record and
 * counts; an END frame asks for its count) and round trips one at a time,
 * a frame of one record each way (p50, p99, p99.9). Its lines are
 * lca-remote-bench's, and a "# floor-result" line per size says the same
 * for a program to read (rb_floor_prog.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "lca_opt.h"
#include "rb_floor_prog.h"

#define PROG "lca-memif-floor"
#define BURST 32
#define N_MBUFS 8191
#define MTU 1500
#define JUMBO_MTU 9000
#define JUMBO_BUF 9216
#define REC_HDR 16 /* lcactor's record header (struct wire_msg) */

enum frame_kind { F_DATA = 1, F_END, F_END_ACK, F_PING, F_PONG, F_QUIT };

/* After the Ethernet header: what the frame is and how many records. */
struct frame_hdr {
	uint32_t kind;
	uint32_t n;
	uint64_t count; /* F_END_ACK: the records counted since the last END */
};

/* A record's header: the payload's length, and what a record header
 * carries besides (lcactor's: to, from, type), here only written and read. */
struct rec_hdr {
	uint32_t len;
	uint32_t to;
	uint64_t tag;
};
_Static_assert(sizeof(struct rec_hdr) == REC_HDR, "a record header as lcactor's");

#define FRAME_OFF (RTE_ETHER_HDR_LEN + sizeof(struct frame_hdr))

static struct floor_opts o = FLOOR_OPTS_DEFAULT;
static struct rte_mempool *pool;
static const uint16_t port;
static uint32_t frame_cap; /* bytes a frame may have */

/* --- Both processes: the EAL, the port, frames ------------------------- */

/* The EAL of one lcore on @p cpu with this run's memif end. */
static int
eal_up(bool server, int cpu, const char *sock)
{
	char lcores[32], prefix[64], vdev[256];
	char *argv[] = { PROG, "--lcores", lcores, "--no-huge", "-m", o.jumbo ? "512" : "256",
			 "--no-pci", "--no-shconf", "--file-prefix", prefix, "--log-level",
			 "lib.*:error", "--vdev", vdev, NULL };
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
	return 0;
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

/* Until the memif is connected; false after --timeout. */
static bool
link_wait(void)
{
	uint64_t limit = rte_get_timer_cycles() + o.timeout_s * rte_get_timer_hz();
	struct rte_eth_link link;

	do {
		if (rte_eth_link_get_nowait(port, &link) == 0 && link.link_status)
			return true;
		rte_delay_ms(1);
	} while (rte_get_timer_cycles() < limit);
	fprintf(stderr, PROG ": the memif link did not come up within %u s\n", o.timeout_s);
	return false;
}

static struct frame_hdr *
frame_of(struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod_offset(m, struct frame_hdr *, RTE_ETHER_HDR_LEN);
}

/* A frame of @p kind with its Ethernet header; records go after. */
static void
frame_start(struct rte_mbuf *m, enum frame_kind kind)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

	memset(eth, 0, sizeof(*eth));
	eth->ether_type = rte_cpu_to_be_16(0x88b5); /* IEEE local experimental */
	*frame_of(m) = (struct frame_hdr){ .kind = kind };
	m->data_len = m->pkt_len = FRAME_OFF;
}

/* Append a record of @p size bytes from @p payload. */
static inline void
rec_add(struct rte_mbuf *m, const uint8_t *payload, unsigned int size)
{
	uint8_t *at = rte_pktmbuf_mtod_offset(m, uint8_t *, m->data_len);
	struct rec_hdr h = { .len = size, .to = 1, .tag = 0 };

	memcpy(at, &h, sizeof(h));
	memcpy(at + sizeof(h), payload, size);
	m->data_len = (uint16_t)(m->data_len + sizeof(h) + size);
	m->pkt_len = m->data_len;
	frame_of(m)->n++;
}

/* Send all @p n frames, spinning while the ring is full. */
static void
tx_all(struct rte_mbuf **m, uint16_t n)
{
	uint16_t done = 0;

	while (done < n)
		done += rte_eth_tx_burst(port, 0, m + done, (uint16_t)(n - done));
}

static int
send_one(enum frame_kind kind, uint64_t count)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	if (m == NULL)
		return -ENOMEM;
	frame_start(m, kind);
	frame_of(m)->count = count;
	tx_all(&m, 1);
	return 0;
}

/* --- The second process: count, answer, echo ------------------------- */

/* Every record of a data frame read, as a sink reads its messages. */
static uint64_t
count_records(struct rte_mbuf *m)
{
	const uint8_t *at = rte_pktmbuf_mtod_offset(m, const uint8_t *, FRAME_OFF);
	const uint8_t *end = rte_pktmbuf_mtod_offset(m, const uint8_t *, m->data_len);
	uint32_t n = frame_of(m)->n, seen = 0;
	volatile uint8_t sink;

	for (uint32_t i = 0; i < n && at + REC_HDR <= end; i++) {
		struct rec_hdr h;

		memcpy(&h, at, sizeof(h));
		if (h.len > 0)
			sink = at[REC_HDR];
		at += REC_HDR + h.len;
		seen++;
	}
	(void)sink;
	return seen;
}

static int
serve(void)
{
	struct rte_mbuf *m[BURST];
	uint64_t count = 0;

	for (;;) {
		uint16_t n = rte_eth_rx_burst(port, 0, m, BURST);

		for (uint16_t i = 0; i < n; i++) {
			struct frame_hdr *f = frame_of(m[i]);

			switch (f->kind) {
			case F_DATA:
				count += count_records(m[i]);
				rte_pktmbuf_free(m[i]);
				break;
			case F_PING:
				f->kind = F_PONG;
				tx_all(&m[i], 1);
				break;
			case F_END:
				rte_pktmbuf_free(m[i]);
				if (send_one(F_END_ACK, count) != 0)
					return 1;
				count = 0;
				break;
			case F_QUIT:
				rte_pktmbuf_free_bulk(m + i, (unsigned int)(n - i));
				return 0;
			default:
				rte_pktmbuf_free(m[i]);
			}
		}
	}
}

/* --- This process: drive ------------------------------------------- */

/* The next frame of @p kind; false after --timeout. */
static struct rte_mbuf *
wait_frame(enum frame_kind kind)
{
	uint64_t limit = rte_rdtsc() + o.timeout_s * rte_get_tsc_hz();

	for (;;) {
		struct rte_mbuf *m;

		if (rte_eth_rx_burst(port, 0, &m, 1) == 1) {
			if (frame_of(m)->kind == kind)
				return m;
			rte_pktmbuf_free(m);
		} else if (rte_rdtsc() > limit) {
			fprintf(stderr, PROG ": no answer within %u s\n", o.timeout_s);
			return NULL;
		}
	}
}

/* One-way: --msgs records packed into frames as fast as the memif takes
 * them, then END; the count in its answer must be all of them. */
static int
one_way(unsigned int size, double *mps)
{
	static uint8_t payload[FLOOR_MAX_SIZE];
	unsigned int per_frame = (frame_cap - FRAME_OFF) / (REC_HDR + size);
	uint64_t left = o.msgs, t0 = rte_rdtsc(), counted;
	struct rte_mbuf *m[BURST], *ack;
	double ms;

	memset(payload, 0x5a, size);
	while (left > 0) {
		uint16_t n = BURST;

		if (rte_pktmbuf_alloc_bulk(pool, m, n) != 0)
			return -ENOMEM;
		for (uint16_t i = 0; i < n; i++) {
			frame_start(m[i], F_DATA);
			for (unsigned int k = 0; k < per_frame && left > 0; k++, left--)
				rec_add(m[i], payload, size);
			if (left == 0 && i + 1 < n) {
				rte_pktmbuf_free_bulk(m + i + 1, (unsigned int)(n - i - 1));
				n = (uint16_t)(i + 1);
			}
		}
		tx_all(m, n);
	}
	if (send_one(F_END, 0) != 0 || (ack = wait_frame(F_END_ACK)) == NULL)
		return -EIO;
	ms = (double)(rte_rdtsc() - t0) * 1e3 / (double)rte_get_tsc_hz();
	counted = frame_of(ack)->count;
	rte_pktmbuf_free(ack);
	*mps = (double)o.msgs / ms / 1e3;
	printf("  %4u B: %" PRIu64 " messages one way in %.1f ms: %.2f M msg/s (%u a frame); "
	       "the second process counted %" PRIu64 "\n", size, o.msgs, ms, *mps, per_frame,
	       counted);
	return counted == o.msgs ? 0 : -EIO;
}

/* Round trips one at a time, a frame of one record each way. */
static int
round_trips(unsigned int size, uint64_t *rtt, double p[3])
{
	static uint8_t payload[FLOOR_MAX_SIZE];

	for (unsigned int i = 0; i < FLOOR_WARM_PINGS + o.pings; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		uint64_t t0 = rte_rdtsc();

		if (m == NULL)
			return -ENOMEM;
		frame_start(m, F_PING);
		rec_add(m, payload, size);
		tx_all(&m, 1);
		if ((m = wait_frame(F_PONG)) == NULL)
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

		if (REC_HDR + o.sizes[i] > frame_cap - FRAME_OFF) {
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
	send_one(F_QUIT, 0);
	free(rtt);
	return ret;
}

static const struct lca_opt options[] = {
	FLOOR_OPTIONS,
	{ "jumbo", 0, LCA_OPT_FLAG, FLOOR_OPT_AT(jumbo),
	  .help = "memif buffers of 9216 bytes and frames of MTU 9000, as\n"
		  "lca-remote-bench --jumbo" },
	{ NULL },
};

static const struct lca_opt_table table = {
	.prog = PROG, .opts = options, .synopsis = "[options]", .column = 17,
	.about = "The bare memif floor of lca-remote-bench --remote memif: two processes (this\n"
		 "one starts the second), each one DPDK lcore with an end of a memif pair, and\n"
		 "frames of records packed as lcactor packs them, nothing else. It makes its own\n"
		 "EAL arguments (--no-huge, a socket under /tmp); it takes none.\n",
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

int
main(int argc, char **argv)
{
	char sock[64], go;
	int fds[2], ret;
	pid_t child;

	ret = lca_opt_parse(argc, argv, &table, &o, NULL);
	if (ret != 0)
		return ret > 0 ? 0 : 2;
	for (unsigned int k = 0; k < 2; k++)
		if (o.cpu[k] < 0)
			o.cpu[k] = allowed_cpu(k);
	snprintf(sock, sizeof(sock), "/tmp/lca-memif-floor-%d.sock", (int)getpid());
	child = floor_fork(fds);
	if (child < 0)
		return 1;
	if (child == 0) {
		/* The client's EAL once the server's socket is there. */
		close(fds[1]);
		if (read(fds[0], &go, 1) != 1)
			_exit(1);
		ret = eal_up(false, o.cpu[1], sock);
		if (ret == 0)
			ret = port_up();
		if (ret == 0)
			ret = link_wait() ? serve() : 1;
		_exit(ret == 0 ? 0 : 1);
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
		       "frames of %u bytes packed with 16-byte records, nothing else\n", o.cpu[0],
		       o.cpu[1], frame_cap);
		ret = drive();
	}
	ret = floor_reap(PROG, "memif", child, ret);
	rte_eth_dev_stop(port);
	rte_eth_dev_close(port);
	rte_eal_cleanup();
	unlink(sock);
	return ret == 0 ? 0 : 1;
}
