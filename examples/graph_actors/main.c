/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * graph_actors: stateful stages as actors inside an rte_graph pipeline.
 *
 * An l3fwd-graph-shaped program: each lcore walks its own graph
 * (rte_graph_walk()) in its own loop, and calls lca_runtime_poll() in the
 * same loop. The graph:
 *
 *   ex_rx (source: rte_eth_rx_burst(), each packet's flow picked and its
 *   lca_pkt_meta pointed at that flow's actor)
 *     -> lcactor_to_actors (lcactor's node: the packets go to their actors
 *        on the packet lane)
 *   ... the flow actors keep per-flow state (packets, bytes), then hand
 *       the packets back to their own lcore's graph (lca_graph_send()) ...
 *   lcactor_from_actors (lcactor's source node) -> ex_tx (rte_eth_tx_burst())
 *
 * Once --packets packets were taken and every one is out, the main lcore
 * stops the run and prints each flow actor's counts beside what the RX and
 * TX nodes saw: every packet taken went through a flow actor and out.
 *
 *   graph_actors -l 0-1 --no-huge --no-pci --in-memory \
 *                --vdev net_null0 -- --packets 1000000
 */
#define ALLOW_EXPERIMENTAL_API 1 /* rte_graph and lcactor's graph nodes are EXPERIMENTAL */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include <lca_actor.h>
#include <lca_eal.h>
#include <lca_graph.h>

#define N_FLOWS 4
#define BURST 32
/* Packets waiting for a flow actor above which RX takes none: the
 * back-pressure of a NIC queue, instead of drops at lcactor_to_actors. */
#define WATERMARK 512

struct flow_state { uint64_t packets, bytes; };

static lca_actor_id_t flows[N_FLOWS];
static uint64_t packets_wanted = 1000000;
static uint64_t rx_total, tx_total, tx_dropped;
static uint64_t graph_refused; /* freed by a flow actor: its lcore's graph queue was full */
static uint16_t queue_of[RTE_MAX_LCORE];
static bool rx_done[RTE_MAX_LCORE]; /* its RX node saw --packets reached */

/* A flow actor: its state is its own lcore's; the packets go on. */
static void
flow_packets(lca_actor_id_t self, void *state, struct rte_mbuf **pkts, uint16_t n)
{
	struct flow_state *f = state;
	int sent;

	(void)self;
	for (uint16_t i = 0; i < n; i++)
		f->bytes += rte_pktmbuf_pkt_len(pkts[i]);
	f->packets += n;
	sent = lca_graph_send(rte_lcore_id(), pkts, n);
	if (sent < 0)
		sent = 0;
	if (sent < n) { /* the graph's queue is full: freed here, counted */
		rte_pktmbuf_free_bulk(pkts + sent, n - (unsigned int)sent);
		__atomic_fetch_add(&graph_refused, n - (unsigned int)sent, __ATOMIC_RELAXED);
	}
}

static uint16_t
rx_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb)
{
	uint16_t q = queue_of[rte_lcore_id()];
	void **to = rte_node_next_stream_get(graph, node, 0, BURST);
	uint16_t n;

	(void)objs;
	(void)nb;
	if (__atomic_load_n(&rx_total, __ATOMIC_RELAXED) >= packets_wanted) {
		__atomic_store_n(&rx_done[rte_lcore_id()], true, __ATOMIC_RELEASE);
		return 0;
	}
	for (unsigned int f = 0; f < N_FLOWS; f++)
		if (lca_actor_backlog(flows[f]) > WATERMARK)
			return 0; /* the packets wait in the port's queue */
	n = rte_eth_rx_burst(0, q, (struct rte_mbuf **)to, BURST);
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = to[i];

		/* The flow: a real program hashes the 5-tuple; net_null's
		 * packets are all alike, so the RX count picks it. */
		lca_pkt_meta(m)->to = flows[(rx_total + i) / 8 % N_FLOWS];
	}
	__atomic_fetch_add(&rx_total, n, __ATOMIC_RELAXED);
	if (n > 0)
		rte_node_next_stream_put(graph, node, 0, n);
	return n;
}

static uint16_t
tx_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb)
{
	uint16_t sent = rte_eth_tx_burst(0, queue_of[rte_lcore_id()], (struct rte_mbuf **)objs, nb);

	(void)graph;
	(void)node;
	if (sent < nb) {
		rte_pktmbuf_free_bulk((struct rte_mbuf **)objs + sent, nb - sent);
		__atomic_fetch_add(&tx_dropped, nb - sent, __ATOMIC_RELAXED);
	}
	__atomic_fetch_add(&tx_total, nb, __ATOMIC_RELAXED);
	return nb;
}

static struct rte_node_register ex_rx = {
	.name = "ex_rx", .process = rx_process, .flags = RTE_NODE_SOURCE_F,
	.nb_edges = 1, .next_nodes = { LCA_GRAPH_NODE_TO_ACTORS },
};
static struct rte_node_register ex_tx = { .name = "ex_tx", .process = tx_process };
RTE_NODE_REGISTER(ex_rx);
RTE_NODE_REGISTER(ex_tx);

/* Every packet taken is out: each RX node stopped taking (so the RX
 * count is final) and TX has sent what RX took, but for what a full
 * graph queue refused (a lcore descheduled long enough, on a busy host). */
static bool
all_out(void)
{
	unsigned int lcore_id;

	RTE_LCORE_FOREACH(lcore_id)
		if (!__atomic_load_n(&rx_done[lcore_id], __ATOMIC_ACQUIRE))
			return false;
	return __atomic_load_n(&tx_total, __ATOMIC_RELAXED) +
		       __atomic_load_n(&graph_refused, __ATOMIC_RELAXED) ==
	       __atomic_load_n(&rx_total, __ATOMIC_RELAXED);
}

/* The application's loop on each lcore: its graph, then lcactor; the main
 * lcore ends the run once every packet is out. */
static int
lcore_loop(void *arg)
{
	bool is_main = rte_lcore_id() == rte_get_main_lcore();
	char name[RTE_GRAPH_NAMESIZE];
	struct rte_graph *g;

	(void)arg;
	snprintf(name, sizeof(name), "ex_graph_%u", rte_lcore_id());
	g = rte_graph_lookup(name);
	while (lca_runtime_poll() >= 0) {
		rte_graph_walk(g);
		if (is_main && all_out())
			lca_runtime_stop();
	}
	return 0;
}

static int
graphs_and_port_make(struct rte_mempool *pool)
{
	static const char *patterns[] = { "ex_rx", "ex_tx", LCA_GRAPH_NODE_TO_ACTORS,
					  LCA_GRAPH_NODE_FROM_ACTORS };
	struct rte_eth_conf conf = { 0 };
	uint16_t nq = (uint16_t)rte_lcore_count(), q = 0;
	unsigned int lcore_id;

	if (lca_graph_init(16384) < 0 || lca_graph_from_actors_next("ex_tx") < 0 ||
	    rte_eth_dev_configure(0, nq, nq, &conf) < 0)
		return -1;
	RTE_LCORE_FOREACH(lcore_id) {
		struct rte_graph_param prm = { .socket_id = (int)rte_lcore_to_socket_id(lcore_id),
					       .nb_node_patterns = RTE_DIM(patterns),
					       .node_patterns = patterns };
		char name[RTE_GRAPH_NAMESIZE];

		queue_of[lcore_id] = q;
		if (rte_eth_rx_queue_setup(0, q, 1024, rte_eth_dev_socket_id(0), NULL, pool) < 0 ||
		    rte_eth_tx_queue_setup(0, q, 1024, rte_eth_dev_socket_id(0), NULL) < 0)
			return -1;
		q++;
		snprintf(name, sizeof(name), "ex_graph_%u", lcore_id);
		if (rte_graph_create(name, &prm) == RTE_GRAPH_ID_INVALID)
			return -1;
	}
	return rte_eth_dev_start(0);
}

static int
flows_spawn(void)
{
	unsigned int lcore_id = rte_get_main_lcore();

	for (unsigned int i = 0; i < N_FLOWS; i++) {
		struct lca_actor_spec spec = { .on_packets = flow_packets,
					       .state_size = sizeof(struct flow_state),
					       .lcore = lcore_id, .throughput = BURST };

		if (lca_actor_spawn(&spec, &flows[i]) < 0)
			return -1;
		/* The flows spread over the lcores, as a real program's would. */
		lcore_id = rte_get_next_lcore(lcore_id, 0, 1);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct lca_graph_stats gs;
	uint64_t in_actors = 0;
	struct rte_mempool *pool;
	unsigned int lcore_id;
	int app_argc, ret;
	char **app_argv;
	char *end = NULL;
	bool help;

	if (lca_eal_init(argc, argv, &app_argc, &app_argv) < 0)
		return 1;
	if (app_argc == 3 && strcmp(app_argv[1], "--packets") == 0)
		packets_wanted = strtoull(app_argv[2], &end, 10);
	help = app_argc == 2 && (strcmp(app_argv[1], "--help") == 0 ||
				 strcmp(app_argv[1], "-h") == 0);
	if (help || (app_argc != 1 && (end == NULL || *end != '\0' || packets_wanted == 0))) {
		fprintf(help ? stdout : stderr, "usage: %s [EAL args] -- [--packets N]\n", argv[0]);
		return help ? 0 : 2;
	}
	if (rte_eth_dev_count_avail() < 1) {
		fprintf(stderr, "graph_actors: needs a port (--vdev net_null0)\n");
		return 2;
	}
	pool = rte_pktmbuf_pool_create("graph_actors", 16383, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       (int)rte_socket_id());
	if (pool == NULL || lca_runtime_init(NULL) < 0 || flows_spawn() < 0 ||
	    graphs_and_port_make(pool) < 0) {
		fprintf(stderr, "graph_actors: setup failed\n");
		return 1;
	}
	lca_runtime_start(60 * 1000);
	rte_eal_mp_remote_launch(lcore_loop, NULL, CALL_MAIN);
	rte_eal_mp_wait_lcore();
	ret = lca_runtime_end();
	for (unsigned int i = 0; i < N_FLOWS; i++) {
		struct flow_state *f = lca_actor_state(flows[i]);

		printf("flow %u (lcore %u): %" PRIu64 " packets, %" PRIu64 " bytes\n", i,
		       lca_actor_lcore(flows[i]), f->packets, f->bytes);
		in_actors += f->packets;
	}
	RTE_LCORE_FOREACH(lcore_id)
		if (lca_graph_stats_get(lcore_id, &gs) == 0)
			printf("lcore %u: to actors %" PRIu64 ", from actors %" PRIu64
			       ", dropped %" PRIu64 "\n", lcore_id, gs.to_actors, gs.from_actors,
			       gs.dropped_full + gs.dropped_no_actor + gs.dropped_edge);
	printf("rx %" PRIu64 ", through the flow actors %" PRIu64 ", tx %" PRIu64
	       " (%" PRIu64 " refused by the port, %" PRIu64 " by the graph's queue); run: %s\n",
	       rx_total, in_actors, tx_total, tx_dropped, graph_refused,
	       ret == 0 ? "every packet out" : "not stopped by the program");
	lca_runtime_cleanup();
	lca_graph_cleanup();
	rte_eth_dev_stop(0);
	lca_eal_cleanup();
	return ret == 0 && in_actors == rx_total ? 0 : 1;
}
