/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef PL_PORT_H
#define PL_PORT_H

/**
 * @file
 * The stages of --source port that every run-to-completion engine (plain,
 * io, graph) is built from (pl_port.c), so each engine is its loop and
 * nothing else: the figures, the accounting and the TX path are the same
 * code for all of them.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "pipeline.h"

/** An RX queue of a run: its port, its lcore, its quota. */
struct rxq_state;

/** The RX queues @p lcore polls, into @p mine (PL_MAX_PORTS at most). */
unsigned int pl_port_rxqs_of(unsigned int lcore, struct rxq_state **mine);

/**
 * Take a burst of at most --burst from @p q (on its lcore), counted in
 * @p f's produced. At its quota or --duration-ms the queue is done: it
 * takes nothing more, and @p ended is set the first time.
 *
 * @return the packets taken (0: none, or done).
 */
unsigned int pl_port_rx(struct rxq_state *q, uint64_t now, struct pl_fig *f,
			struct rte_mbuf **pkts, bool *ended);

/**
 * Parse a burst and count each valid packet by key in @p lcore's store;
 * the valid ones move to the front of @p pkts, the malformed ones into
 * @p bad (counted in @p f's malformed; the caller frees them).
 *
 * @return the valid packets.
 */
unsigned int pl_port_parse_count(unsigned int lcore, struct pl_fig *f, struct rte_mbuf **pkts,
				 unsigned int n, struct rte_mbuf **bad, unsigned int *n_bad);

/** Transmit (--sink tx, buffered on @p lcore's TX queue) or free @p n packets. */
void pl_port_sink(unsigned int lcore, struct pl_fig *f, struct rte_mbuf **pkts, unsigned int n);

/** Send what @p lcore's TX buffers hold. */
void pl_port_tx_flush(unsigned int lcore);

/** Stop requested (-EINTR) or --timeout passed (-ETIMEDOUT); else 0. */
int pl_port_should_stop(uint64_t now);

/* The graph engine (pl_graph.c). */

/** Register the nodes and make one graph an lcore. @return 0 or a negative errno. */
int pl_graph_setup(void);

/** An lcore's loop: walk its graph until its RX queues are done. @return 0, -EINTR, -ETIMEDOUT. */
int pl_graph_loop(void);

void pl_graph_teardown(void);

#endif /* PL_PORT_H */
