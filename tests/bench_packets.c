/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_packets: one pipeline, RX (net_null) -> parse + count -> TX, three
 * ways, for packets/s and instructions per packet (no test: figures only):
 *
 *   lane      the RX hook sends to a packet actor (on_packets) on the last
 *             lcore on the packet lane; it transmits with lca_port_tx_burst();
 *   envelope  the RX hook wraps packets into envelopes for a batch actor,
 *             which sends them to its lcore's TX actor (the path before
 *             the lane);
 *   plain     no actors: rte_eth_rx_burst() on lcore 0, an SPSC rte_ring to
 *             the last lcore, rte_eth_tx_burst() there, as a DPDK user
 *             writes it.
 *
 * With -l 0-1 the stages are on two lcores, with -l 0 on one (plain then
 * goes through its ring on the same lcore). --mode all runs the three in
 * turn, --rounds times (ABAB, same minute), and prints each round and the
 * median ratios to plain. Under callgrind, each measured window is between
 * CALLGRIND_ZERO_STATS and CALLGRIND_DUMP_STATS, so a dump's total over
 * --packets is instructions per packet (both lcores' threads, spinning
 * included: run one --mode at a time there). --sleepy makes every stage
 * sleep 50 us when it finds nothing to do (the runtime's LCA_IDLE_SLEEP
 * after one empty loop; usleep() in the plain loops): under callgrind,
 * whose threads take turns, the counts are then the packets' work rather
 * than how long one side spun while the other had the CPU.
 *
 *   bench_packets -l 0-1 --no-huge --no-pci --in-memory --file-prefix b \
 *       --vdev net_null0 -- --mode all --packets 4000000 --rounds 3
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(s) ((void)(s))
#endif

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_port.h"

#define BURST 32
#define RING_SIZE 4096
#define MODES 3
#define SLEEP_US 50

static bool sleepy;

static const char *const mode_names[MODES] = { "lane", "envelope", "plain" };

/* The stage's state: what parse + count sees, and when to stop. */
struct stage {
	uint64_t got;
	uint64_t expect;
	uint64_t by_type[4];
	uint64_t not_sent;
	struct lca_port *port;
	lca_actor_id_t tx;
};

static inline void
parse_count(struct stage *s, struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

	s->by_type[eh->ether_type & 3]++;
}

static void
lane_stage(lca_actor_id_t self, void *state, struct rte_mbuf **pkts, uint16_t n)
{
	struct stage *s = state;

	(void)self;
	for (uint16_t i = 0; i < n; i++)
		parse_count(s, pkts[i]);
	lca_port_tx_burst(s->port, pkts, n);
	s->got += n;
	if (s->got >= s->expect)
		lca_runtime_stop();
}

static void
envelope_stage(lca_actor_id_t self, void *state, struct lca_msg **msgs, unsigned int n)
{
	struct stage *s = state;
	unsigned int sent;
	int err;

	(void)self;
	for (unsigned int i = 0; i < n; i++)
		parse_count(s, msgs[i]->ptr);
	sent = lca_send_burst(s->tx, msgs, n, &err);
	if (sent < n) {
		s->not_sent += n - sent;
		lca_msg_free_bulk(msgs + sent, n - sent);
	}
	s->got += n;
	if (s->got >= s->expect)
		lca_runtime_stop();
}

static unsigned int
last_lcore(void)
{
	unsigned int l, last = rte_get_main_lcore();

	RTE_LCORE_FOREACH(l)
		last = l;
	return last;
}

/* One run of the lane or the envelope path. @return seconds. */
static double
run_actors(uint16_t pid, bool lane, uint64_t packets)
{
	unsigned int w = last_lcore();
	struct stage st = { .expect = packets };
	struct lca_actor_spec spec = {
		.state_size = sizeof(st), .lcore = w, .throughput = BURST, .name = "stage",
	};
	struct lca_port_conf pc = {
		.port_id = pid, .n_rxq = 1, .rx_lcores = (const unsigned int[]){ 0 },
		.n_rx_lcores = 1, .burst = BURST, .keep_open = true,
	};
	struct lca_port *port;
	struct stage *s;
	uint64_t t0, t1;
	int ret;

	if (lane)
		spec.on_packets = lane_stage;
	else
		spec.batch_handler = envelope_stage;
	if (lca_actor_spawn(&spec, &pc.dest) < 0 || lca_port_start(&pc, &port) < 0) {
		fprintf(stderr, "bench_packets: no stage or no port\n");
		exit(1);
	}
	s = lca_actor_state(pc.dest);
	*s = st;
	s->port = port;
	s->tx = lca_port_tx_actor(port, w);
	CALLGRIND_ZERO_STATS;
	t0 = rte_rdtsc();
	ret = lca_runtime_run(0);
	t1 = rte_rdtsc();
	CALLGRIND_DUMP_STATS_AT(mode_names[lane ? 0 : 1]);
	if (ret < 0 && ret != -EINTR)
		fprintf(stderr, "bench_packets: run: %s\n", strerror(-ret));
	if (s->not_sent > 0)
		fprintf(stderr, "bench_packets: %lu packets the TX actor refused\n",
			(unsigned long)s->not_sent);
	lca_port_stop(port);
	lca_actor_stop(pc.dest);
	return (double)(t1 - t0) / (double)rte_get_tsc_hz();
}

struct plain {
	uint16_t pid;
	uint16_t txq;
	struct rte_ring *ring;
	struct stage st;
	volatile bool done;
};

/* The plain pipeline's second stage: ring -> parse + count -> TX. */
static inline unsigned int
plain_tx_step(struct plain *p)
{
	struct rte_mbuf *pkts[BURST];
	unsigned int n = rte_ring_sc_dequeue_burst(p->ring, (void **)pkts, BURST, NULL);
	uint16_t sent;

	if (n == 0)
		return 0;
	for (unsigned int i = 0; i < n; i++)
		parse_count(&p->st, pkts[i]);
	sent = rte_eth_tx_burst(p->pid, p->txq, pkts, (uint16_t)n);
	if (sent < n) {
		p->st.not_sent += n - sent;
		rte_pktmbuf_free_bulk(pkts + sent, n - sent);
	}
	p->st.got += n;
	return n;
}

static int
plain_worker(void *arg)
{
	struct plain *p = arg;

	while (p->st.got < p->st.expect)
		if (plain_tx_step(p) == 0 && sleepy)
			usleep(SLEEP_US);
	__atomic_store_n(&p->done, true, __ATOMIC_RELEASE);
	return 0;
}

/* The plain pipeline: RX on the main lcore into the ring, the second stage
 * on the last lcore (or on this one, between RX bursts). @return seconds. */
static double
run_plain(uint16_t pid, uint64_t packets)
{
	unsigned int w = last_lcore();
	struct lca_port_conf pc = {
		.port_id = pid, .n_rxq = 1, .rx_lcores = (const unsigned int[]){ 0 },
		.n_rx_lcores = 1, .burst = BURST, .keep_open = true, .dest = 0,
	};
	static struct plain p;
	struct rte_mbuf *pkts[BURST];
	struct lca_port *port;
	unsigned int n = 0, head = 0, k;
	uint64_t t0, t1;

	/* The port's queues and pool, none of its hooks: the loops do not run. */
	if (lca_port_start(&pc, &port) < 0) {
		fprintf(stderr, "bench_packets: no port\n");
		exit(1);
	}
	p = (struct plain){ .pid = pid, .txq = (uint16_t)(w == rte_get_main_lcore() ? 0 : 1),
			    .st = { .expect = packets } };
	p.ring = rte_ring_create("bench_plain", RING_SIZE, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (p.ring == NULL)
		exit(1);
	CALLGRIND_ZERO_STATS;
	t0 = rte_rdtsc();
	if (w != rte_get_main_lcore())
		rte_eal_remote_launch(plain_worker, &p, w);
	while (!__atomic_load_n(&p.done, __ATOMIC_ACQUIRE)) {
		if (head == n) {
			n = rte_eth_rx_burst(pid, 0, pkts, BURST);
			head = 0;
		}
		k = rte_ring_sp_enqueue_burst(p.ring, (void **)pkts + head, n - head, NULL);
		head += k;
		if (k == 0 && sleepy && w != rte_get_main_lcore())
			usleep(SLEEP_US);
		if (w == rte_get_main_lcore()) {
			plain_tx_step(&p);
			if (p.st.got >= p.st.expect)
				p.done = true;
		}
	}
	if (w != rte_get_main_lcore())
		rte_eal_wait_lcore(w);
	t1 = rte_rdtsc();
	CALLGRIND_DUMP_STATS_AT("plain");
	rte_pktmbuf_free_bulk(pkts + head, n - head);
	while ((n = rte_ring_sc_dequeue_burst(p.ring, (void **)pkts, BURST, NULL)) > 0)
		rte_pktmbuf_free_bulk(pkts, n);
	rte_ring_free(p.ring);
	lca_port_stop(port);
	return (double)(t1 - t0) / (double)rte_get_tsc_hz();
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int
usage(void)
{
	fprintf(stderr, "usage: bench_packets [EAL args] --vdev net_null0 -- "
		"[--mode lane|envelope|plain|all] [--packets N] [--rounds R] [--sleepy]\n");
	return 2;
}

static double
run_mode(int mode, uint16_t pid, uint64_t packets)
{
	return mode == 2 ? run_plain(pid, packets) : run_actors(pid, mode == 0, packets);
}

int
main(int argc, char **argv)
{
	int app_argc, ret = lca_eal_init(argc, argv, &app_argc, &argv), mode = -1;
	uint64_t packets = 4000000;
	unsigned int rounds = 3;
	double ratios[2][64];
	uint16_t pid;

	if (ret < 0)
		return 2;
	argc = app_argc;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc) {
			i++;
			for (int m = 0; m < MODES; m++)
				if (strcmp(argv[i], mode_names[m]) == 0)
					mode = m;
			if (mode < 0 && strcmp(argv[i], "all") != 0)
				return usage();
		} else if (strcmp(argv[i], "--packets") == 0 && i + 1 < argc) {
			packets = strtoull(argv[++i], NULL, 10);
		} else if (strcmp(argv[i], "--sleepy") == 0) {
			sleepy = true;
		} else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
			rounds = (unsigned int)strtoul(argv[++i], NULL, 10);
		} else {
			return usage();
		}
	}
	if (packets == 0 || rounds == 0 || rounds > RTE_DIM(ratios[0]))
		return usage();
	if (lca_port_count() == 0 || lca_port_parse_id("0", &pid) < 0) {
		fprintf(stderr, "bench_packets: no port 0 (--vdev net_null0)\n");
		return 2;
	}
	{
		struct lca_runtime_conf rc = { .idle = LCA_IDLE_SLEEP, .idle_sleep_after = 1,
					       .idle_sleep_us = SLEEP_US };

		if (lca_runtime_init(sleepy ? &rc : NULL) < 0)
			return 1;
	}
	printf("bench_packets: %u lcore(s), %lu packets a run, %s\n", rte_lcore_count(),
	       (unsigned long)packets, "figures on a busy machine are noisy");
	for (unsigned int r = 0; r < (mode < 0 ? rounds : 1); r++) {
		double mpps[MODES];

		for (int m = 0; m < MODES; m++) {
			if (mode >= 0 && m != mode)
				continue;
			mpps[m] = (double)packets / run_mode(m, pid, packets) / 1e6;
			printf("round %u %-8s %.2f M pkt/s\n", r, mode_names[m], mpps[m]);
		}
		if (mode < 0) {
			ratios[0][r] = mpps[0] / mpps[2];
			ratios[1][r] = mpps[1] / mpps[2];
			printf("round %u lane/plain %.2f envelope/plain %.2f lane/envelope %.2f\n", r,
			       ratios[0][r], ratios[1][r], mpps[0] / mpps[1]);
		}
	}
	if (mode < 0) {
		qsort(ratios[0], rounds, sizeof(double), cmp_double);
		qsort(ratios[1], rounds, sizeof(double), cmp_double);
		printf("median lane/plain %.2f (%.2f-%.2f), envelope/plain %.2f (%.2f-%.2f)\n",
		       ratios[0][rounds / 2], ratios[0][0], ratios[0][rounds - 1],
		       ratios[1][rounds / 2], ratios[1][0], ratios[1][rounds - 1]);
	}
	lca_runtime_cleanup();
	lca_eal_cleanup();
	return 0;
}
