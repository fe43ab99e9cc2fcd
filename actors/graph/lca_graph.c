/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rte_graph nodes between a graph and actors (lca_graph.h): packets
 * into actors on the packet lane, packets from actors into each lcore's
 * graph through a queue of that lcore (many producers: any actor's lcore
 * may hand over; one consumer: the lcore's walk), and a drop node that
 * counts. Registered as DPDK's lib/node registers its nodes, at load.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_graph.h>
#include <rte_graph_worker.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_graph.h"

#define DEFAULT_QUEUE 4096
#define FROM_BURST RTE_GRAPH_BURST_SIZE

/* An lcore's queue from actors and its nodes' counters: the walk writes
 * them, lca_graph_send() adds send_refused from any thread. */
struct graph_lcore {
	struct rte_ring *from;
	struct lca_graph_stats st;
} __rte_cache_aligned;

static struct graph_lcore glc[RTE_MAX_LCORE];
static bool inited;

/* Free what the lane did not take, counted under @p counter. */
static void
drop(struct rte_mbuf **pkts, unsigned int n, uint64_t *counter)
{
	rte_pktmbuf_free_bulk(pkts, n);
	*counter += n;
}

/* Up to this many receivers a burst get one send each; a packet for
 * another goes in a send of its own run. */
#define BUCKETS 8

/* One send of @p n packets to @p to; what it refuses, freed and counted. */
static void
send_to(struct lca_graph_stats *st, lca_actor_id_t to, struct rte_mbuf **pkts, unsigned int n)
{
	int taken = lca_send_packets(to, pkts, n);

	if (taken < 0) {
		drop(pkts, n, &st->dropped_no_actor);
		return;
	}
	st->to_actors += (unsigned int)taken;
	if ((unsigned int)taken < n)
		drop(pkts + taken, n - (unsigned int)taken, &st->dropped_full);
}

static uint16_t
to_actors_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb)
{
	struct lca_graph_stats *st = &glc[rte_lcore_id()].st;
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	struct rte_mbuf *bucket[BUCKETS][RTE_GRAPH_BURST_SIZE];
	lca_actor_id_t dest[BUCKETS];
	unsigned int n_dest = 0, fill[BUCKETS];
	const int off = lca_pkt_meta_offset;

	(void)graph;
	(void)node;
	/* Packets sorted by receiver, each receiver's in their order: one
	 * send a receiver a burst, however the flows interleave. */
	for (uint16_t i = 0; i < nb; i += RTE_GRAPH_BURST_SIZE) {
		uint16_t end = RTE_MIN(nb, i + RTE_GRAPH_BURST_SIZE);

		n_dest = 0;
		for (uint16_t k = i; k < end; k++) {
			lca_actor_id_t to = lca_pkt_meta_at(pkts[k], off)->to;
			unsigned int b = 0;

			while (b < n_dest && dest[b] != to)
				b++;
			if (b == BUCKETS) { /* more receivers than buckets: alone */
				send_to(st, to, &pkts[k], 1);
				continue;
			}
			if (b == n_dest) {
				dest[n_dest++] = to;
				fill[b] = 0;
			}
			bucket[b][fill[b]++] = pkts[k];
		}
		for (unsigned int b = 0; b < n_dest; b++)
			send_to(st, dest[b], bucket[b], fill[b]);
	}
	return nb;
}

static uint16_t
from_actors_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb)
{
	struct graph_lcore *g = &glc[rte_lcore_id()];
	unsigned int n;
	void **to;

	(void)objs;
	(void)nb;
	if (g->from == NULL || rte_ring_empty(g->from))
		return 0;
	to = rte_node_next_stream_get(graph, node, 0, FROM_BURST);
	n = rte_ring_sc_dequeue_burst(g->from, to, FROM_BURST, NULL);
	if (n > 0)
		rte_node_next_stream_put(graph, node, 0, (uint16_t)n);
	g->st.from_actors += n;
	return (uint16_t)n;
}

static uint16_t
drop_process(struct rte_graph *graph, struct rte_node *node, void **objs, uint16_t nb)
{
	(void)graph;
	(void)node;
	drop((struct rte_mbuf **)objs, nb, &glc[rte_lcore_id()].st.dropped_edge);
	return nb;
}

static struct rte_node_register to_actors_node = {
	.name = LCA_GRAPH_NODE_TO_ACTORS,
	.process = to_actors_process,
};

static struct rte_node_register from_actors_node = {
	.name = LCA_GRAPH_NODE_FROM_ACTORS,
	.process = from_actors_process,
	.flags = RTE_NODE_SOURCE_F,
	.nb_edges = 1,
	.next_nodes = { LCA_GRAPH_NODE_DROP },
};

static struct rte_node_register drop_node = {
	.name = LCA_GRAPH_NODE_DROP,
	.process = drop_process,
};

RTE_NODE_REGISTER(to_actors_node);
RTE_NODE_REGISTER(from_actors_node);
RTE_NODE_REGISTER(drop_node);

int
lca_graph_init(unsigned int queue_size)
{
	unsigned int lcore_id, size = rte_align32pow2(queue_size ? queue_size : DEFAULT_QUEUE);

	if (inited)
		return -EEXIST;
	memset(glc, 0, sizeof(glc));
	inited = true;
	LCA_LCORE_FOREACH(lcore_id) {
		char name[RTE_RING_NAMESIZE];

		snprintf(name, sizeof(name), "lca_graph_%u", lcore_id);
		glc[lcore_id].from = rte_ring_create(name, size, (int)rte_lcore_to_socket_id(lcore_id),
						     RING_F_SC_DEQ | RING_F_EXACT_SZ);
		if (glc[lcore_id].from == NULL) {
			LCA_LOG(ERR, "lca_graph_init: no memory for lcore %u's queue of %u "
				"packets\n", lcore_id, size);
			lca_graph_cleanup();
			return -ENOMEM;
		}
	}
	return 0;
}

void
lca_graph_cleanup(void)
{
	struct rte_mbuf *m;

	if (!inited)
		return;
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		if (glc[i].from == NULL)
			continue;
		while (rte_ring_sc_dequeue(glc[i].from, (void **)&m) == 0)
			drop(&m, 1, &glc[i].st.dropped_edge);
		rte_ring_free(glc[i].from);
		glc[i].from = NULL;
	}
	inited = false;
}

int
lca_graph_send(unsigned int lcore_id, struct rte_mbuf **pkts, unsigned int n)
{
	unsigned int taken;

	if (lcore_id >= RTE_MAX_LCORE || (pkts == NULL && n > 0))
		return -EINVAL;
	if (glc[lcore_id].from == NULL)
		return inited ? -EINVAL : -ENODEV;
	taken = rte_ring_mp_enqueue_burst(glc[lcore_id].from, (void **)pkts, n, NULL);
	if (taken < n)
		__atomic_fetch_add(&glc[lcore_id].st.send_refused, n - taken, __ATOMIC_RELAXED);
	return (int)taken;
}

int
lca_graph_from_actors_next(const char *next)
{
	rte_node_t id = rte_node_from_name(LCA_GRAPH_NODE_FROM_ACTORS);

	if (next == NULL || id == RTE_NODE_ID_INVALID)
		return -EINVAL;
	if (rte_node_from_name(next) == RTE_NODE_ID_INVALID)
		return -ENOENT;
	return rte_node_edge_update(id, 0, &next, 1) == 1 ? 0 : -EINVAL;
}

int
lca_graph_stats_get(unsigned int lcore_id, struct lca_graph_stats *out)
{
	if (out == NULL || lcore_id >= RTE_MAX_LCORE)
		return -EINVAL;
	*out = glc[lcore_id].st;
	out->send_refused = __atomic_load_n(&glc[lcore_id].st.send_refused, __ATOMIC_RELAXED);
	return 0;
}
