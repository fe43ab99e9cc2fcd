/* SPDX-License-Identifier: BSD-3-Clause */
/* Ports: what lca_port_start() made, undone (each lcore's share, the
 * queues, the device, the pool), for a stop and for a start that failed
 * half-way; and the pools kept past a stop while their mbufs are out. */
#include <stdbool.h>

#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "lca_eal.h"
#include "lca_lcore.h"
#include "lca_port_priv.h"
#include "lca_logtypes_priv.h"

/* Pools of stopped ports whose mbufs were not all back. */
#define KEPT_MAX 64
static struct rte_mempool *kept_pools[KEPT_MAX];
static unsigned int n_kept;

static bool
pool_full(const struct rte_mempool *mp)
{
	return rte_mempool_avail_count(mp) == mp->size;
}

unsigned int
lca_port_pools_kept(void)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < n_kept; i++) {
		if (pool_full(kept_pools[i]))
			rte_mempool_free(kept_pools[i]);
		else
			kept_pools[n++] = kept_pools[i];
	}
	n_kept = n;
	return n;
}

/* Free the pool, or keep it when mbufs of it are still out. */
static void
pool_release(struct lca_port *p)
{
	struct rte_mempool *mp = p->pool;

	if (mp == NULL)
		return;
	p->pool = NULL;
	if (pool_full(mp)) {
		rte_mempool_free(mp);
		return;
	}
	LCA_LOG(NOTICE, "port %u: %u mbufs of pool %s are still out (in mailboxes, or kept "
		"by the app): the pool stays until they are back\n", p->port_id,
		mp->size - rte_mempool_avail_count(mp), mp->name);
	if (n_kept < KEPT_MAX)
		kept_pools[n_kept++] = mp;
	/* else: leaked rather than freed under its mbufs. */
}

/* Each lcore's share of the port: its hooks and queue lists. */
static void
port_lcores_free(struct lca_port *p)
{
	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++) {
		struct port_lcore *pl = p->lcores[l];

		if (pl == NULL)
			continue;
		if (pl->hooked) {
			struct lca_lcore_hook h = {
				.poll = pl->n_rxq ? port_lcore_poll : NULL,
				.end = pl->n_txq ? port_lcore_end : NULL,
				.arg = pl,
			};

			lca_lcore_hook_remove(l, &h);
		}
		rte_free(pl->rxqs);
		rte_free(pl->txqs);
		rte_free(pl);
	}
}

/* The TX queues: their actors stopped, what they buffer sent or freed. */
static void
port_txqs_free(struct lca_port *p)
{
	if (p->txq == NULL)
		return;
	for (unsigned int q = 0; q < p->n_txq; q++) {
		struct port_txq *t = p->txq[q];

		if (t == NULL)
			continue;
		/* Its mailbox is freed at once: the loops are not running. */
		if (t->actor != LCA_ACTOR_NONE)
			lca_actor_stop(t->actor);
		if (t->buf != NULL) {
			if (p->dev_started)
				port_tx_flush_stopped(t);
			else
				rte_pktmbuf_free_bulk(t->buf->pkts, t->buf->length);
			rte_free(t->buf);
		}
		rte_free(t);
	}
	rte_free(p->txq);
}

static void
port_rxqs_free(struct lca_port *p)
{
	if (p->rxq == NULL)
		return;
	for (unsigned int q = 0; q < p->n_rxq; q++) {
		struct port_rxq *r = p->rxq[q];

		if (r == NULL)
			continue;
		port_rxq_release(r);
		rte_free(r->pkts);
		rte_free(r->to);
		rte_free(r->msgs);
		rte_free(r->drops);
		rte_free(r->grouped);
		rte_free(r->grouped_to);
		rte_free(r);
	}
	rte_free(p->rxq);
}

/* Free what the RX queues still hold (a ring PMD keeps it past a stop),
 * then stop the device. At most a ring's worth a queue: a PMD that makes
 * packets (net_null) never runs dry. On the interrupt thread (from
 * port_dev_stop()): a memif peer that disconnects meanwhile has its
 * regions freed there, never under this drain's bursts. */
static void
port_drain_stop(void *arg)
{
	struct lca_port *p = arg;
	unsigned int drained = 0;

	for (uint16_t q = 0; q < p->n_rxq; q++) {
		struct rte_mbuf *m[64];
		unsigned int left = p->rx_desc + RTE_DIM(m);
		uint16_t n;

		while (left > 0 &&
		       (n = rte_eth_rx_burst(p->port_id, q, m,
					     (uint16_t)RTE_MIN(left, RTE_DIM(m)))) > 0) {
			rte_pktmbuf_free_bulk(m, n);
			drained += n;
			left -= n;
		}
	}
	if (drained > 0)
		LCA_LOG(INFO, "port %u: %u packets left in the RX queues at stop freed\n",
			p->port_id, drained);
	rte_eth_dev_stop(p->port_id);
}

static void
port_dev_stop(struct lca_port *p)
{
	lca_eal_on_intr_thread(port_drain_stop, p);
}

/* Everything start made, undone; with @p close (lca_port_stop()), the
 * ethdev is closed too. A start that failed leaves it open, configured or
 * not, so that the app may try again with other values. */
void
port_free(struct lca_port *p, bool close)
{
	port_memif_watch_stop(p);
	port_lcores_free(p);
	port_txqs_free(p);
	port_rxqs_free(p);
	if (p->dev_started)
		port_dev_stop(p);
	if (close && p->dev_configured)
		lca_port_dev_close(p->port_id);
	pool_release(p);
	rte_free(p);
}
