/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef PL_SINK_H
#define PL_SINK_H

/**
 * @file
 * --source port's sink for the engines that transmit themselves (plain,
 * io, graph, eventdev): counted packets into a TX buffer of the lcore's
 * own TX queue of each port (one shared under a lock where the PMD has
 * fewer TX queues than lcores), or freed (--sink drop). Static inline: the
 * engines' loops call them per burst and per packet.
 */

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "pl_port.h"

/* An lcore's TX buffer of one port. */
struct txbuf {
	struct port_info *p;
	uint16_t queue;
	struct pl_fig *f;
	struct rte_eth_dev_tx_buffer *buf;
};

/** The TX buffers of every lcore and port, for a run. @return 0 or -ENOMEM. */
int pl_sink_make(void);
void pl_sink_free(void);

static inline void
tx_one(struct txbuf *t, struct rte_mbuf *m)
{
	/* The buffer is the lcore's own: only the burst that empties it
	 * into a shared queue needs the queue's lock. */
	const bool lock = unlikely(t->p->tx_shared) && t->buf->length + 1u >= t->buf->size;
	uint16_t sent;

	if (lock)
		rte_spinlock_lock(&t->p->txlock[t->queue].lock);
	sent = rte_eth_tx_buffer(t->p->id, t->queue, t->buf, m);
	if (lock)
		rte_spinlock_unlock(&t->p->txlock[t->queue].lock);
	if (sent)
		fig_add(&t->f->tx, sent);
}

static inline void
tx_flush_all(unsigned int lcore)
{
	for (unsigned int i = 0; i < pp.n_ports; i++) {
		struct txbuf *t = pp.txbufs[lcore][i];
		uint16_t sent;

		if (t == NULL || t->buf->length == 0)
			continue;
		if (t->p->tx_shared)
			rte_spinlock_lock(&t->p->txlock[t->queue].lock);
		sent = rte_eth_tx_buffer_flush(t->p->id, t->queue, t->buf);
		if (t->p->tx_shared)
			rte_spinlock_unlock(&t->p->txlock[t->queue].lock);
		fig_add(&t->f->tx, sent);
	}
}

static inline struct txbuf *
txbuf_for(const struct pl_conf *c, unsigned int lcore, const struct rte_mbuf *m)
{
	int k = c->tx_port >= 0 ? port_index((uint16_t)c->tx_port) : port_index(m->port);

	return pp.txbufs[lcore][k < 0 ? 0 : k];
}

/* Count, then send or free, what a stage holds: @p f's lcore. */
static inline void
sink_burst(unsigned int lcore, struct pl_fig *f, struct rte_mbuf **m, unsigned int n)
{
	const struct pl_conf *c = pp.conf;

	if (c->sink == PL_SINK_DROP) {
		rte_pktmbuf_free_bulk(m, n);
		return;
	}
	fig_add(&f->forwarded, n);
	for (unsigned int i = 0; i < n; i++)
		tx_one(txbuf_for(c, lcore, m[i]), m[i]);
}

#endif /* PL_SINK_H */
