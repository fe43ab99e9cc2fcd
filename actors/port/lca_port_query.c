/* SPDX-License-Identifier: BSD-3-Clause */
/* Ports: their counters, and what a started port says of itself. */
#include <errno.h>
#include <string.h>

#include <rte_ethdev.h>

#include "lca_port_priv.h"

static void
add_rxq(struct lca_port_stats *s, const struct port_rxq *r)
{
	s->rx += port_read(&r->rx);
	s->delivered += port_read(&r->delivered);
	s->dropped_policy += port_read(&r->dropped_policy);
	s->dropped_dest += port_read(&r->dropped_dest);
	s->held += port_read(&r->held);
	s->paused_polls += port_read(&r->paused_polls);
	s->no_envelope += port_read(&r->no_envelope);
}

static void
add_txq(struct lca_port_stats *s, const struct port_txq *t)
{
	s->tx += port_read(&t->tx);
	s->tx_bursts += port_read(&t->tx_bursts);
	s->tx_dropped += port_read(&t->tx_dropped);
}

int
lca_port_stats_get(const struct lca_port *p, struct lca_port_stats *s)
{
	struct rte_eth_stats es;

	if (p == NULL || s == NULL)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	for (unsigned int q = 0; q < p->n_rxq; q++)
		add_rxq(s, p->rxq[q]);
	for (unsigned int q = 0; q < p->n_txq; q++)
		add_txq(s, p->txq[q]);
	if (rte_eth_stats_get(p->port_id, &es) == 0) {
		s->imissed = es.imissed;
		s->ierrors = es.ierrors;
		s->rx_nombuf = es.rx_nombuf;
	}
	return 0;
}

int
lca_port_queue_stats_get(const struct lca_port *p, unsigned int queue, struct lca_port_stats *s)
{
	if (p == NULL || s == NULL || (queue >= p->n_rxq && queue >= p->n_txq))
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	if (queue < p->n_rxq)
		add_rxq(s, p->rxq[queue]);
	if (queue < p->n_txq)
		add_txq(s, p->txq[queue]);
	return 0;
}

int
lca_port_rx_enable(struct lca_port *p, int queue, bool on)
{
	if (p == NULL || queue < -1 || (queue >= 0 && (unsigned int)queue >= p->n_rxq))
		return -EINVAL;
	for (unsigned int q = 0; q < p->n_rxq; q++)
		if (queue < 0 || (unsigned int)queue == q)
			__atomic_store_n(&p->rxq[q]->rx_off, !on, __ATOMIC_RELAXED);
	return 0;
}

uint16_t
lca_port_id(const struct lca_port *p)
{
	return p == NULL ? UINT16_MAX : p->port_id;
}

unsigned int
lca_port_rx_queues(const struct lca_port *p)
{
	return p == NULL ? 0 : p->n_rxq;
}

unsigned int
lca_port_tx_queues(const struct lca_port *p)
{
	return p == NULL ? 0 : p->n_txq;
}

int
lca_port_rx_lcore(const struct lca_port *p, unsigned int queue)
{
	if (p == NULL || queue >= p->n_rxq)
		return -EINVAL;
	return (int)p->rxq[queue]->lcore;
}

struct rte_mempool *
lca_port_mempool(const struct lca_port *p)
{
	return p == NULL ? NULL : p->pool;
}
