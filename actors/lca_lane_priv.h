/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_LANE_PRIV_H
#define LCA_LANE_PRIV_H

/* The packet lane (lca_lane.c). Private to the actor core. */

#include "lca_actor_priv.h"

int lanes_init(void);
void lanes_cleanup(void);
/* Deliver what reached @p lcore_id on its lanes and its packet inbox; the
 * end of channels_poll(), once lanes_used. */
unsigned int lanes_poll(unsigned int lcore_id);
/* Packets in the lane from @p src_lcore to @p dst_lcore (call on the
 * source), or in @p dst_lcore's packet inbox when @p src_lcore has no
 * lanes. */
unsigned int lane_backlog(unsigned int src_lcore, unsigned int dst_lcore);
/* A turn's packet part: up to throughput packets to on_packets.
 * @return whether packets are left. */
bool packets_turn(struct lca_actor *a);
#ifdef LCA_DEBUG_ENVELOPES
/* Segments one handler call guards (lca_pktguard.c); those past it go
 * unchecked. */
#define PKT_GUARD_SEGS ACTOR_THROUGHPUT_MAX

/* The packets of one on_packets call, kept from their pool while it runs;
 * on the calling lcore's stack, innermost first (a handler's send may run
 * another handler on the same lcore). */
struct pkt_guard {
	struct pkt_guard *prev;
	lca_actor_id_t actor;
	unsigned int n;
	struct rte_mbuf *seg[PKT_GUARD_SEGS];
	uint16_t expect[PKT_GUARD_SEGS]; /* its refcnt under the guard */
};

void pkt_guard_on(struct pkt_guard *g, lca_actor_id_t actor, struct rte_mbuf **pkts,
		  unsigned int n);
/* Off again: a double free caught, a single one completed. */
void pkt_guard_off(struct pkt_guard *g);
/* Before lca_send_packets() takes @p pkts: a send after a free caught. */
void pkt_guard_send(struct rte_mbuf **pkts, unsigned int n);
#endif

/* @p pkts[0..n) to @p a's on_packets, counted. */
static inline void
packets_handle(struct lca_actor *a, struct rte_mbuf **pkts, unsigned int n)
{
#ifdef LCA_DEBUG_ENVELOPES
	struct pkt_guard g;

	pkt_guard_on(&g, a->id, pkts, n);
	a->on_packets(a->id, a->state, pkts, (uint16_t)n);
	pkt_guard_off(&g);
#else
	a->on_packets(a->id, a->state, pkts, (uint16_t)n);
#endif
	/* One writer; stats and telemetry read it from elsewhere. */
	__atomic_store_n(&a->pkts_handled, a->pkts_handled + n, __ATOMIC_RELAXED);
}
/* Packets that reached @p a after it stopped (or at teardown): freed,
 * counted by whichever lcore drops them (@p a may be NULL). */
void packets_drop(struct lca_actor *a, struct rte_mbuf **pkts, unsigned int n);
/* Free what @p a's packet queue holds, counted as dropped. */
void packets_drain(struct lca_actor *a);
/* An on_packets actor's envelopes when it has no envelope handler. */
void packets_unhandled(lca_actor_id_t self, void *state, struct lca_msg **msgs, unsigned int n);
/* Whether any packet actor was spawned: until then no lane is polled. */
extern bool lanes_used;

#endif /* LCA_LANE_PRIV_H */
