/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --engine graph: the stages of --source port as DPDK's graph library
 * (librte_graph) runs a pipeline, the way l3fwd-graph builds one: nodes
 * registered once, one graph of them for each lcore, walked by that lcore
 * (rte_graph_walk()) in a run-to-completion loop:
 *
 *   pl_rx (source: rte_eth_rx_burst() of the lcore's RX queues, straight
 *   into the next node's stream) -> pl_count (parse + count by key in the
 *   lcore's store; a burst with nothing malformed moves on whole,
 *   rte_node_next_stream_move()) -> pl_tx (into the lcore's TX buffer);
 *   malformed -> pl_drop (freed).
 *
 * The RX and TX nodes are the app's, not librte_node's ethdev_rx/ethdev_tx:
 * those take no quota (a run here takes --messages packets exactly) and
 * keep no count of what the driver refused, which the accounting needs.
 * Each node calls the stage the other engines call (pl_port.h), so the
 * engine differs from plain by the graph's dispatch only.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "lca_freq.h"
#include "pl_port.h"

#define APP "lca-pipeline"

enum { COUNT_NEXT_TX, COUNT_NEXT_DROP };

static struct pl_graph_lcore glc[RTE_MAX_LCORE];
static rte_graph_t graph_ids[RTE_MAX_LCORE];
static bool graph_made[RTE_MAX_LCORE];

uint16_t
pl_graph_rx(struct pl_graph_lcore *g, struct rte_graph *graph, struct rte_node *node)
{
	struct pl_fig *f = &pl.lc[rte_lcore_id()].f;
	uint16_t total = 0;

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
rx_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb)
{
	(void)objs;
	(void)nb;
	return pl_graph_rx(&glc[rte_lcore_id()], graph, node);
}

static uint16_t
count_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb)
{
	unsigned int me = rte_lcore_id();
	struct pl_fig *f = &pl.lc[me].f;
	struct rte_mbuf *bad[PL_MAX_BURST];
	unsigned int n_bad, ok;

	/* A stream may hold more than a burst: parse it a burst at a time. */
	for (unsigned int off = 0; off < nb; off += PL_MAX_BURST) {
		unsigned int k = RTE_MIN((unsigned int)nb - off, (unsigned int)PL_MAX_BURST);
		struct rte_mbuf **pkts = (struct rte_mbuf **)objs + off;

		ok = pl_port_parse_count(me, f, pkts, k, bad, &n_bad);
		if (n_bad == 0 && nb <= PL_MAX_BURST) {
			rte_node_next_stream_move(graph, node, COUNT_NEXT_TX);
		} else {
			rte_node_enqueue(graph, node, COUNT_NEXT_TX, (void **)pkts, (uint16_t)ok);
			if (n_bad)
				rte_node_enqueue(graph, node, COUNT_NEXT_DROP, (void **)bad,
						 (uint16_t)n_bad);
		}
		if (ok)
			pl_count(f, ok, rte_rdtsc());
	}
	return nb;
}

static uint16_t
tx_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb)
{
	unsigned int me = rte_lcore_id();

	(void)graph;
	(void)node;
	pl_port_sink(me, &pl.lc[me].f, (struct rte_mbuf **)objs, nb);
	return nb;
}

static uint16_t
drop_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb)
{
	(void)graph;
	(void)node;
	rte_pktmbuf_free_bulk((struct rte_mbuf **)objs, nb);
	return nb;
}

static struct rte_node_register rx_node = {
	.name = "pl_rx",
	.process = rx_process,
	.flags = RTE_NODE_SOURCE_F,
	.nb_edges = 1,
	.next_nodes = { "pl_count" },
};

static struct rte_node_register count_node = {
	.name = "pl_count",
	.process = count_process,
	.nb_edges = 2,
	.next_nodes = { [COUNT_NEXT_TX] = "pl_tx", [COUNT_NEXT_DROP] = "pl_drop" },
};

static struct rte_node_register tx_node = {
	.name = "pl_tx",
	.process = tx_process,
};

static struct rte_node_register drop_node = {
	.name = "pl_drop",
	.process = drop_process,
};

RTE_NODE_REGISTER(rx_node);
RTE_NODE_REGISTER(count_node);
RTE_NODE_REGISTER(tx_node);
RTE_NODE_REGISTER(drop_node);

int
pl_graph_make(const char *prefix, const char **patterns, unsigned int n_patterns,
	      struct pl_graph_lcore *gl, rte_graph_t *ids, bool *made, const char *engine)
{
	for (unsigned int i = 0; i < pl.n_lcores; i++) {
		unsigned int lc = pl.lcores[i];
		struct rte_graph_param prm = {
			.socket_id = (int)rte_lcore_to_socket_id(lc),
			.nb_node_patterns = n_patterns,
			.node_patterns = patterns,
		};
		char name[RTE_GRAPH_NAMESIZE];

		snprintf(name, sizeof(name), "%s%u", prefix, lc);
		ids[lc] = rte_graph_create(name, &prm);
		if (ids[lc] == RTE_GRAPH_ID_INVALID) {
			fprintf(stderr, APP ": --engine %s: cannot make the graph of lcore %u: %s\n",
				engine, lc, rte_strerror(rte_errno));
			return -rte_errno ? -rte_errno : -EINVAL;
		}
		made[lc] = true;
		gl[lc].graph = rte_graph_lookup(name);
		gl[lc].n_mine = pl_port_rxqs_of(lc, gl[lc].mine);
	}
	return 0;
}

void
pl_graph_destroy(rte_graph_t *ids, bool *made)
{
	for (unsigned int lc = 0; lc < RTE_MAX_LCORE; lc++)
		if (made[lc]) {
			rte_graph_destroy(ids[lc]);
			made[lc] = false;
		}
}

int
pl_graph_setup(void)
{
	static const char *patterns[] = { "pl_rx", "pl_count", "pl_tx", "pl_drop" };

	return pl_graph_make("pl_lc", patterns, RTE_DIM(patterns), glc, graph_ids, graph_made,
			     "graph");
}

int
pl_graph_loop(void)
{
	unsigned int me = rte_lcore_id();
	struct pl_graph_lcore *g = &glc[me];
	struct pl_fig *f = &pl.lc[me].f;
	int ret = 0;

	g->left = g->n_mine;
	while (g->left > 0) {
		uint64_t now = rte_rdtsc();

		if ((ret = pl_loop_tick(f, me, now)) != 0)
			break;
		g->now = now;
		/* A walk runs every node with something pending: none is left
		 * holding packets after it. */
		rte_graph_walk(g->graph);
		pl_port_tx_flush(me);
	}
	pl_port_tx_flush(me);
	return ret;
}

void
pl_graph_teardown(void)
{
	pl_graph_destroy(graph_ids, graph_made);
}
