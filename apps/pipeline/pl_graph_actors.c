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

static struct pl_graph_lcore gla[RTE_MAX_LCORE];
static bool rx_over[RTE_MAX_LCORE]; /* every RX queue of its done: its produced is final */
static rte_graph_t ga_ids[RTE_MAX_LCORE];
static bool ga_made[RTE_MAX_LCORE];
static bool graph_nodes_up;

static uint16_t
rxa_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb)
{
	(void)objs;
	(void)nb;
	return pl_graph_rx(&gla[rte_lcore_id()], graph, node);
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
	if (ret == 0)
		return pl_graph_make("pl_ga", patterns, RTE_DIM(patterns), gla, ga_ids, ga_made,
				     "graph-actors");
	fprintf(stderr, APP ": --engine graph-actors: lcactor's graph nodes: %s\n", strerror(-ret));
	return ret;
}

/* Every packet taken is counted or dropped, and every counted one sent or
 * refused: the run may stop. */
static bool
all_through(void)
{
	for (unsigned int i = 0; i < pl.n_lcores; i++)
		if (!__atomic_load_n(&rx_over[pl.lcores[i]], __ATOMIC_ACQUIRE))
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
	struct pl_graph_lcore *g = &gla[me];
	struct pl_fig *f = &pl.lc[me].f;
	bool is_main = me == rte_get_main_lcore();
	int ret = 0;

	g->left = g->n_mine;
	__atomic_store_n(&rx_over[me], g->left == 0, __ATOMIC_RELEASE);
	for (;;) {
		uint64_t now = rte_rdtsc();

		if ((ret = pl_loop_tick(f, me, now)) != 0)
			break;
		g->now = now;
		rte_graph_walk(g->graph);
		pl_port_tx_flush(me);
		if (g->left == 0 && !rx_over[me])
			__atomic_store_n(&rx_over[me], true, __ATOMIC_RELEASE);
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
	pl_graph_destroy(ga_ids, ga_made);
	if (graph_nodes_up) {
		lca_graph_cleanup();
		graph_nodes_up = false;
	}
}
