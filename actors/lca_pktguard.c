/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet checks of a -Ddebug_envelopes=true build: a packet handler that
 * frees an mbuf twice, or sends one it already freed, is caught.
 *
 * DPDK's rte_pktmbuf_free() puts an mbuf whose refcnt is 1 back in its
 * pool at once, and a second free puts it back again: the pool then hands
 * the same mbuf out twice, silently (a freed mbuf's refcnt is 1 too, so
 * rte_mbuf_sanity_check() cannot tell). So while a handler runs, every
 * segment of every packet it was given carries GUARD extra references:
 * its frees only count down, nothing reaches the pool. When it returns,
 * the guard is taken off again, atomically; what is left says what the
 * handler (and whoever it passed the packet to meanwhile) did:
 *   more than 0: still live (kept, queued for TX, or on its way);
 *   exactly 0: freed once, as it should be: the free is completed here;
 *   below 0: freed more often than it was owned: caught, logged with the
 *   actor's id, counted (packet_misuse), and freed once.
 * A send with lca_send_packets() of a packet whose references are below
 * what the guard left is a send after its free: caught the same way, and
 * the early free undone, so the packet travels intact as the handler
 * meant. A release build has none of this (lca_lane_priv.h).
 */
#define LCA_LOG_PART lca_logtype_actor
#include <stdint.h>

#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_per_lcore.h>

#include "lca_actor_priv.h"
#include "lca_eal.h"
#include "lca_lane_priv.h"
#include "lca_logtypes_priv.h"

#ifdef LCA_DEBUG_ENVELOPES

/* References a guard adds: frees beyond this many cannot be caught. */
#define GUARD 16

static RTE_DEFINE_PER_LCORE(struct pkt_guard *, guard_top);

/* Count and log a misuse of @p m by @p actor (lca_send.c counts). */
static void
misuse(const struct pkt_guard *g, const struct rte_mbuf *m, const char *what)
{
	packet_misuse_count();
	LCA_LOG(ERR, "packet %p given to actor %u on lcore %d: %s\n", (const void *)m,
		g->actor, (int)rte_lcore_id(), what);
}

void
pkt_guard_on(struct pkt_guard *g, lca_actor_id_t actor, struct rte_mbuf **pkts, unsigned int n)
{
	g->actor = actor;
	g->n = 0;
	for (unsigned int i = 0; i < n; i++)
		for (struct rte_mbuf *s = pkts[i]; s != NULL && g->n < PKT_GUARD_SEGS;
		     s = s->next) {
			rte_mbuf_refcnt_update(s, GUARD);
			g->seg[g->n] = s;
			g->expect[g->n++] = rte_mbuf_refcnt_read(s);
		}
	g->prev = RTE_PER_LCORE(guard_top);
	RTE_PER_LCORE(guard_top) = g;
}

void
pkt_guard_off(struct pkt_guard *g)
{
	RTE_PER_LCORE(guard_top) = g->prev;
	for (unsigned int i = 0; i < g->n; i++) {
		struct rte_mbuf *s = g->seg[i];
		int16_t left = (int16_t)__atomic_sub_fetch(&s->refcnt, GUARD, __ATOMIC_ACQ_REL);

		if (left > 0)
			continue;
		if (left < 0)
			misuse(g, s, "freed more often than it was owned (double free); "
			       "freed once now");
		/* The free that reached 0 under the guard, completed. */
		rte_mbuf_refcnt_set(s, 1);
		rte_pktmbuf_free_seg(s);
	}
}

/* Give segment @p s back the references an early free took, if @p g
 * guards it. @return whether any were missing. */
static bool
top_up(const struct pkt_guard *g, struct rte_mbuf *s)
{
	for (unsigned int j = 0; j < g->n; j++) {
		uint16_t now;

		if (g->seg[j] != s)
			continue;
		now = rte_mbuf_refcnt_read(s);
		if (now >= g->expect[j])
			return false;
		rte_mbuf_refcnt_update(s, (int16_t)(g->expect[j] - now));
		return true;
	}
	return false;
}

void
pkt_guard_send(struct rte_mbuf **pkts, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		for (const struct pkt_guard *g = RTE_PER_LCORE(guard_top); g != NULL;
		     g = g->prev) {
			if (!top_up(g, pkts[i]))
				continue;
			/* rte_pktmbuf_free() freed every segment: the chain is
			 * intact (the guard kept each one out of its pool). */
			for (struct rte_mbuf *s = pkts[i]->next; s != NULL; s = s->next)
				top_up(g, s);
			misuse(g, pkts[i], "sent after its free; the free undone");
			break;
		}
}

#endif /* LCA_DEBUG_ENVELOPES */
