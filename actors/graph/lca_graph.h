/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_GRAPH_H
#define LCA_GRAPH_H

/**
 * @file
 * rte_graph nodes that carry packets between a graph and actors
 * (EXPERIMENTAL), for an application that walks its own graphs
 * (rte_graph_walk(), l3fwd-graph style) and keeps stateful logic in actors:
 *
 * - LCA_GRAPH_NODE_TO_ACTORS ("lcactor_to_actors"): an edge target of any
 *   node. Each packet goes on the packet lane (lca_send_packets()) to the
 *   actor its lca_pkt_meta names (lca_pkt_meta(m)->to, set by the node
 *   before it, a classifier); a run of packets to one actor is one send.
 *   A packet its actor cannot take (its queue or the lane full, the actor
 *   gone) is freed and counted by cause (lca_graph_stats_get()).
 * - LCA_GRAPH_NODE_FROM_ACTORS ("lcactor_from_actors"): a source node. Each
 *   lcore's walk takes the packets that actors handed to that lcore's graph
 *   (lca_graph_send()) and puts them on its edge 0, which the application
 *   points at the node they continue to (lca_graph_from_actors_next(), or
 *   rte_node_edge_update()); until then it goes to "lcactor_graph_drop",
 *   which frees and counts them.
 *
 * The lcore that walks a graph with these nodes must poll lcactor too
 * (lca_runtime_poll() in the same loop, or its service), so that the actors
 * the packets go to run. Built only where DPDK has librte_graph.
 */

#include <stdint.h>

#include <rte_mbuf.h>

#include "lca_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The node that sends each packet to the actor its lca_pkt_meta names. */
#define LCA_GRAPH_NODE_TO_ACTORS "lcactor_to_actors"
/** The source node of each lcore's packets from actors. */
#define LCA_GRAPH_NODE_FROM_ACTORS "lcactor_from_actors"
/** Where LCA_GRAPH_NODE_FROM_ACTORS's edge 0 goes until it is pointed elsewhere. */
#define LCA_GRAPH_NODE_DROP "lcactor_graph_drop"

/** Counters of one lcore's nodes. */
struct lca_graph_stats {
	uint64_t to_actors;        /**< Packets the lane took. */
	uint64_t dropped_full;     /**< Freed: the actor's queue or the lane was full. */
	uint64_t dropped_no_actor; /**< Freed: no such actor, stopped, or no on_packets. */
	uint64_t from_actors;      /**< Packets the source node put on its edge. */
	uint64_t send_refused;     /**< lca_graph_send() packets refused: the lcore's
				    *   queue was full (they stayed the caller's). */
	uint64_t dropped_edge;     /**< Freed by LCA_GRAPH_NODE_DROP. */
};

/**
 * Create each runtime lcore's queue of packets from actors. After
 * lca_runtime_init(), before the graphs are created.
 * @param queue_size
 *   Packets each lcore's queue holds (0: 4096; rounded up to a power of 2).
 * @return
 *   0; -EEXIST when done already; -ENOMEM.
 */
LCA_EXPERIMENTAL
LCA_API int lca_graph_init(unsigned int queue_size);

/** Free the queues (their packets freed and counted). Graphs walked no more. */
LCA_EXPERIMENTAL
LCA_API void lca_graph_cleanup(void);

/**
 * Hand @p n packets to the graph of @p lcore_id: its LCA_GRAPH_NODE_FROM_ACTORS
 * takes them at its next walk, in the order given. From an actor's handler
 * (its packets go on through the graph) or any thread.
 * @return
 *   How many were taken, from the front (the rest stay the caller's:
 *   counted in send_refused); -EINVAL (bad lcore, NULL @p pkts);
 *   -ENODEV before lca_graph_init().
 */
LCA_EXPERIMENTAL
LCA_API int lca_graph_send(unsigned int lcore_id, struct rte_mbuf **pkts, unsigned int n);

/**
 * Point LCA_GRAPH_NODE_FROM_ACTORS's edge 0 at @p next (a node's name),
 * before the graphs are created.
 * @return
 *   0; -ENOENT (no such node); -EINVAL.
 */
LCA_EXPERIMENTAL
LCA_API int lca_graph_from_actors_next(const char *next);

/**
 * The counters of @p lcore_id's nodes, since lca_graph_init().
 * @return
 *   0; -EINVAL.
 */
LCA_EXPERIMENTAL
LCA_API int lca_graph_stats_get(unsigned int lcore_id, struct lca_graph_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* LCA_GRAPH_H */
