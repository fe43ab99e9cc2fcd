/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * packet_pipeline: packets through actors on the packet lane, from one
 * port to another, every packet accounted for.
 *
 * lcactor's port (lca_port_start()) polls port 0's RX queue from the
 * main lcore's loop; its classifier picks each packet's actor. The
 * packets travel as mbuf pointers, with no envelope around them:
 *
 *   port 0 RX -> stage 1: a "count" actor on each lcore (on_packets:
 *   counts packets and bytes in its own state) -> lca_send_packets() ->
 *   stage 2: the "tx" actor on the main lcore -> lca_port_tx_burst() ->
 *   port 1 TX
 *
 * Once --packets packets were taken, the classifier turns RX off
 * (lca_port_rx_enable()); the main lcore runs the loops in 10 ms slices
 * until every packet taken has left port 1, then prints each stage's
 * counts and the port counters, which add up exactly.
 *
 * Two null ports (net_null makes packets on RX and frees them on TX)
 * stand for NICs:
 *   packet_pipeline -l 0-1 --no-huge --no-pci --in-memory \
 *                   --vdev net_null0 --vdev net_null1 -- --packets 100000
 */
#define ALLOW_EXPERIMENTAL_API 1 /* the port calls are EXPERIMENTAL */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include <lca_actor.h>
#include <lca_eal.h>
#include <lca_port.h>

#define N_COUNTERS 2
#define RUN_LIMIT_MS 30000

struct counter_state { uint64_t packets, bytes, refused; };
struct tx_state { uint64_t packets, refused; };

static lca_actor_id_t counters[N_COUNTERS], tx_stage;
static struct lca_port *rx_port, *tx_port;
static uint64_t packets_wanted = 100000;
static uint64_t rx_taken; /* by the classifier, on the RX queue's lcore */

/* Port 0's classifier, on its RX lcore, a burst at a time. A real one
 * hashes a flow key (pkts[i]->hash.rss); net_null's packets carry none,
 * so they alternate between the counters. */
static void
classify(struct rte_mbuf **pkts, lca_actor_id_t *to, unsigned int n, void *arg)
{
	(void)pkts;
	(void)arg;
	for (unsigned int i = 0; i < n; i++)
		to[i] = counters[(rx_taken + i) % N_COUNTERS];
	rx_taken += n;
	if (rx_taken >= packets_wanted)
		lca_port_rx_enable(rx_port, -1, false); /* no more from the next poll */
}

/* Stage 1: count, then pass the burst on to stage 2, on the lane. */
static void
count_packets(lca_actor_id_t self, void *state, struct rte_mbuf **pkts, uint16_t n)
{
	struct counter_state *c = state;
	int sent;

	(void)self;
	for (uint16_t i = 0; i < n; i++)
		c->bytes += rte_pktmbuf_pkt_len(pkts[i]);
	c->packets += n;
	sent = lca_send_packets(tx_stage, pkts, n);
	if (sent < 0)
		sent = 0;
	if (sent < n) { /* no room on the lane: the rest are still ours */
		rte_pktmbuf_free_bulk(pkts + sent, n - (unsigned int)sent);
		c->refused += n - (unsigned int)sent;
	}
}

/* Stage 2: into this lcore's TX queue of port 1 (flushed at the end of
 * the loop's iteration). */
static void
tx_packets(lca_actor_id_t self, void *state, struct rte_mbuf **pkts, uint16_t n)
{
	struct tx_state *t = state;

	(void)self;
	t->packets += n;
	if (lca_port_tx_burst(tx_port, pkts, n) < 0) { /* no TX queue here */
		rte_pktmbuf_free_bulk(pkts, n);
		t->refused += n;
	}
}

static int
spawn_packet_actor(lca_packet_handler_fn fn, size_t state, unsigned int lcore,
		   lca_actor_id_t *id)
{
	struct lca_actor_spec spec = { .on_packets = fn, .state_size = state, .lcore = lcore,
				       .packet_queue_size = 4096 };

	return lca_actor_spawn(&spec, id);
}

static int
pipeline_start(void)
{
	unsigned int lcore = rte_get_main_lcore();
	struct lca_port_conf rx = { .port_id = 0, .n_rxq = 1, .classify = classify };
	struct lca_port_conf tx = { .port_id = 1, .tx_only = true };
	int ret = spawn_packet_actor(tx_packets, sizeof(struct tx_state), lcore, &tx_stage);

	for (unsigned int i = 0; i < N_COUNTERS && ret == 0; i++) {
		ret = spawn_packet_actor(count_packets, sizeof(struct counter_state), lcore,
					 &counters[i]);
		lcore = rte_get_next_lcore(lcore, 0, 1); /* the next lcore, round */
	}
	if (ret == 0)
		ret = lca_port_start(&rx, &rx_port);
	if (ret == 0)
		ret = lca_port_start(&tx, &tx_port);
	return ret;
}

/* Whether every packet port 0 took has left through port 1 (or was
 * counted as refused), read while the loops are stopped. */
static bool
drained(const struct lca_port_stats *in, const struct lca_port_stats *out)
{
	const struct tx_state *t = lca_actor_state(tx_stage);
	uint64_t counted = 0, refused = 0;

	for (unsigned int i = 0; i < N_COUNTERS; i++) {
		const struct counter_state *c = lca_actor_state(counters[i]);

		counted += c->packets;
		refused += c->refused;
	}
	return rx_taken >= packets_wanted && in->held == 0 && counted == in->delivered &&
	       t->packets + refused == counted && out->tx + out->tx_dropped + t->refused ==
	       t->packets;
}

static int
report(const struct lca_port_stats *in, const struct lca_port_stats *out)
{
	const struct tx_state *t = lca_actor_state(tx_stage);
	uint64_t refused = t->refused, lost;

	printf("port 0: rx %" PRIu64 " = delivered %" PRIu64 " + dropped %" PRIu64
	       " + held %" PRIu64 "\n", in->rx, in->delivered,
	       in->dropped_policy + in->dropped_dest, in->held);
	for (unsigned int i = 0; i < N_COUNTERS; i++) {
		const struct counter_state *c = lca_actor_state(counters[i]);

		printf("stage 1, counter %u (lcore %d): %" PRIu64 " packets, %" PRIu64
		       " bytes, %" PRIu64 " refused by the lane\n", i,
		       lca_actor_lcore(counters[i]), c->packets, c->bytes, c->refused);
		refused += c->refused;
	}
	printf("stage 2, tx (lcore %d): %" PRIu64 " packets, %" PRIu64 " without a TX queue\n",
	       lca_actor_lcore(tx_stage), t->packets, t->refused);
	printf("port 1: tx %" PRIu64 ", tx_dropped %" PRIu64 "\n", out->tx, out->tx_dropped);
	lost = in->rx - out->tx - out->tx_dropped - refused - in->dropped_policy -
	       in->dropped_dest;
	printf("%s: rx %" PRIu64 " = tx %" PRIu64 " + dropped %" PRIu64 "\n",
	       lost == 0 ? "every packet accounted for" : "PACKETS UNACCOUNTED FOR", in->rx,
	       out->tx, in->rx - out->tx);
	return lost == 0 ? 0 : -EIO;
}

static int
parse_args(int argc, char **argv)
{
	char *end;

	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
		return 0;
	if (argc == 3 && strcmp(argv[1], "--packets") == 0) {
		packets_wanted = strtoull(argv[2], &end, 10);
		if (*end == '\0' && argv[2][0] != '-' && packets_wanted > 0)
			return 1;
		fprintf(stderr, "packet_pipeline: --packets %s: give a positive number\n",
			argv[2]);
		return -1;
	}
	if (argc == 1)
		return 1;
	fprintf(stderr, "packet_pipeline: unknown argument '%s'\n", argv[1]);
	return -1;
}

int
main(int argc, char **argv)
{
	struct lca_port_stats in = { 0 }, out = { 0 };
	int app_argc, ret;
	char **app_argv;

	if (lca_eal_init(argc, argv, &app_argc, &app_argv) < 0)
		return 1;
	if ((ret = parse_args(app_argc, app_argv)) <= 0) {
		fprintf(ret == 0 ? stdout : stderr, "usage: %s [EAL args] -- [--packets N]\n",
			argv[0]);
		lca_eal_cleanup();
		return ret == 0 ? 0 : 2;
	}
	if (rte_eth_dev_count_avail() < 2) {
		fprintf(stderr, "packet_pipeline: needs two ports, e.g. --vdev net_null0 "
			"--vdev net_null1\n");
		lca_eal_cleanup();
		return 2;
	}
	ret = lca_runtime_init(NULL);
	if (ret == 0)
		ret = pipeline_start();
	for (unsigned int ms = 0; ret == 0 && ms < RUN_LIMIT_MS; ms += 10) {
		ret = lca_runtime_run(10);
		if (ret == -ETIMEDOUT) /* the slice ended: look, then on */
			ret = 0;
		lca_port_stats_get(rx_port, &in);
		lca_port_stats_get(tx_port, &out);
		if (ret == 0 && drained(&in, &out))
			break;
	}
	if (ret == 0)
		ret = report(&in, &out);
	else
		fprintf(stderr, "packet_pipeline: %s\n", strerror(-ret));
	lca_port_stop(rx_port);
	lca_port_stop(tx_port);
	lca_runtime_cleanup();
	lca_eal_cleanup();
	return ret == 0 ? 0 : 1;
}
