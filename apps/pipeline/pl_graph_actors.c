/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --engine graph-actors: the graph engine (pl_graph.c) with its stateful
 * stage, the count by key, moved into actors through lcactor's graph nodes
 * (actors/graph/lca_graph.h). Each lcore walks its own graph in its own
 * loop, beside lca_runtime_poll():
 *
 *   pl_rxa (source: the lcore's RX queues) -> pl_classify (parse; each
 *   packet's lca_pkt_meta pointed at its partition's worker actor;
 *   malformed -> pl_drop) -> lcactor_to_actors
 *   ... the worker actors (lcactor's engine's, pl_port_lca.c) count in the
 *       partition's store and hand the packets to their own lcore's graph
 *       (lca_graph_send()) ...
 *   lcactor_from_actors -> pl_tx
 *
 * So it differs from graph by the hand-offs to and from actors only, and
 * from lcactor by the graph's dispatch in place of lcactor's RX hooks.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "lca_actor.h"
#include "lca_graph.h"
#include "pl_port.h"
#include "pl_stages.h"

#define APP "lca-pipeline"

enum { CLS_NEXT_ACTORS, CLS_NEXT_DROP };

struct ga_lcore {
	struct rte_graph *graph;
	struct rxq_state *mine[PL_MAX_PORTS];
	unsigned int n_mine;
	unsigned int left; /* its RX queues not done */
	bool rx_over;      /* every queue of its done: its produced is final */
	uint64_t now;
} __rte_cache_aligned;

static struct ga_lcore gla[RTE_MAX_LCORE];
static rte_graph_t ga_ids[RTE_MAX_LCORE];
static bool ga_made[RTE_MAX_LCORE];
static bool graph_nodes_up;

static uint16_t
rxa_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb)
{
	unsigned int me = rte_lcore_id();
	struct ga_lcore *g = &gla[me];
	struct pl_fig *f = &pl.lc[me].f;
	uint16_t total = 0;

	(void)objs;
	(void)nb;
	for (unsigned int i = 0; i < g->n_mine; i++) {
		void **to = rte_node_next_stream_get(graph, node, 0, PL_MAX_BURST);
		bool ended;
		unsigned int n = pl_port_rx(g->mine[i], g->now, f, (struct rte_mbuf **)to, &ended);

		g->left -= ended;
		if (n == 0)
			continue;
		rte_node_next_stream_put(graph, node, 0, (uint16_t)n);
		total += (uint16_t)n;
	}
	return total;
}

static uint16_t
classify_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb)
{
	unsigned int me = rte_lcore_id();
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	const int off = lca_pkt_meta_offset;
	unsigned int bad = 0;

	for (uint16_t i = 0; i < nb; i++) {
		uint32_t key;

		if (likely(parse(pkts[i], &key))) {
			uint32_t p = pp.conf->partition_rxq ? local_part_of(key, me) : part_of(key);

			pkts[i]->hash.usr = key;
			lca_pkt_meta_at(pkts[i], off)->to = pl_port_lca_worker(p);
			rte_node_enqueue_x1(graph, node, CLS_NEXT_ACTORS, pkts[i]);
		} else {
			rte_node_enqueue_x1(graph, node, CLS_NEXT_DROP, pkts[i]);
			bad++;
		}
	}
	if (bad)
		fig_add(&pl.lc[me].f.malformed, bad);
	return nb;
}

static struct rte_node_register rxa_node = {
	.name = "pl_rxa",
	.process = rxa_process,
	.flags = RTE_NODE_SOURCE_F,
	.nb_edges = 1,
	.next_nodes = { "pl_classify" },
};

static struct rte_node_register classify_node = {
	.name = "pl_classify",
	.process = classify_process,
	.nb_edges = 2,
	.next_nodes = { [CLS_NEXT_ACTORS] = LCA_GRAPH_NODE_TO_ACTORS,
			[CLS_NEXT_DROP] = "pl_drop" },
};

RTE_NODE_REGISTER(rxa_node);
RTE_NODE_REGISTER(classify_node);

int
pl_graph_actors_setup(void)
{
	static const char *patterns[] = { "pl_rxa", "pl_classify", LCA_GRAPH_NODE_TO_ACTORS,
					  LCA_GRAPH_NODE_FROM_ACTORS, "pl_tx", "pl_drop" };
	int ret = lca_graph_init(0);

	if (ret == 0) {
		graph_nodes_up = true;
		ret = lca_graph_from_actors_next("pl_tx");
	}
	for (unsigned int i = 0; i < pl.n_lcores && ret == 0; i++) {
		unsigned int lc = pl.lcores[i];
		struct rte_graph_param prm = {
			.socket_id = (int)rte_lcore_to_socket_id(lc),
			.nb_node_patterns = RTE_DIM(patterns),
			.node_patterns = patterns,
		};
		char name[RTE_GRAPH_NAMESIZE];

		snprintf(name, sizeof(name), "pl_ga%u", lc);
		ga_ids[lc] = rte_graph_create(name, &prm);
		if (ga_ids[lc] == RTE_GRAPH_ID_INVALID) {
			ret = -rte_errno ? -rte_errno : -EINVAL;
			break;
		}
		ga_made[lc] = true;
		gla[lc].graph = rte_graph_lookup(name);
		gla[lc].n_mine = pl_port_rxqs_of(lc, gla[lc].mine);
	}
	if (ret < 0)
		fprintf(stderr, APP ": --engine graph-actors: cannot make the graphs: %s\n",
			strerror(-ret));
	return ret;
}

/* Every packet taken is counted or dropped, and every counted one sent or
 * refused: the run may stop. */
static bool
all_through(void)
{
	for (unsigned int i = 0; i < pl.n_lcores; i++)
		if (!__atomic_load_n(&gla[pl.lcores[i]].rx_over, __ATOMIC_ACQUIRE))
			return false;
	if (pl_port_sum_fig(offsetof(struct pl_fig, processed)) +
		    pl_port_sum_fig(offsetof(struct pl_fig, malformed)) !=
	    pl_port_sum_fig(offsetof(struct pl_fig, produced)))
		return false;
	return pp.conf->sink != PL_SINK_TX ||
	       pl_port_sum_fig(offsetof(struct pl_fig, forwarded)) +
			       pl_port_sum_fig(offsetof(struct pl_fig, sink_refused)) ==
		       pl_port_sum_fig(offsetof(struct pl_fig, processed));
}

int
pl_graph_actors_loop(void)
{
	unsigned int me = rte_lcore_id();
	struct ga_lcore *g = &gla[me];
	struct pl_fig *f = &pl.lc[me].f;
	bool is_main = me == rte_get_main_lcore();
	int ret = 0;

	g->left = g->n_mine;
	__atomic_store_n(&g->rx_over, g->left == 0, __ATOMIC_RELEASE);
	for (;;) {
		uint64_t now = rte_rdtsc();

		if ((ret = pl_loop_tick(f, me, now)) != 0)
			break;
		g->now = now;
		rte_graph_walk(g->graph);
		pl_port_tx_flush(me);
		if (g->left == 0 && !g->rx_over)
			__atomic_store_n(&g->rx_over, true, __ATOMIC_RELEASE);
		/* lcactor's work in the same loop: the workers run here. */
		if (lca_runtime_poll() < 0)
			break;
		if (is_main && all_through())
			lca_runtime_stop();
	}
	pl_port_tx_flush(me);
	return ret;
}

void
pl_graph_actors_teardown(void)
{
	for (unsigned int lc = 0; lc < RTE_MAX_LCORE; lc++)
		if (ga_made[lc]) {
			rte_graph_destroy(ga_ids[lc]);
			ga_made[lc] = false;
		}
	if (graph_nodes_up) {
		lca_graph_cleanup();
		graph_nodes_up = false;
	}
}
