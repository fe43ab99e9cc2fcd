/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --source port on eventdev: each lcore takes from its RX queues itself,
 * parses, and enqueues NEW events (flow = the partition, atomic) into
 * event_dsw; every lcore's event port dequeues, counts in the partition's
 * store and transmits. The device itself is pl_eventdev.c's.
 */

#include <rte_cycles.h>
#include <rte_eventdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "lca_eal.h"
#include "lca_freq.h"
#include "pl_port.h"
#include "pl_sink.h"
#include "pl_stages.h"

static uint8_t ev_dev, ev_port_of[RTE_MAX_LCORE];
static unsigned int ev_enq, ev_deq;
static unsigned int lcores_rx_done; /* atomic */

/* An eventdev lcore: its RX queues, and the events RX made that the
 * device has not taken yet. */
struct ev_lcore {
	unsigned int me;
	struct pl_fig *f;
	uint8_t port;
	struct rxq_state *mine[PL_MAX_PORTS];
	unsigned int n_mine, left; /* queues, and those not done */
	struct rte_event stash[PL_MAX_BURST];
	unsigned int st_n, st_head;
	bool said_done;
};

static void
ev_make_events(struct ev_lcore *w, struct rte_mbuf **pkts, unsigned int ok)
{
	for (unsigned int k = 0; k < ok; k++) {
		struct rte_event *e = &w->stash[k];

		e->event = 0;
		e->flow_id = part_of(pkts[k]->hash.usr);
		e->op = RTE_EVENT_OP_NEW;
		e->sched_type = RTE_SCHED_TYPE_ATOMIC;
		e->queue_id = 0;
		e->event_type = RTE_EVENT_TYPE_ETHDEV;
		e->priority = RTE_EVENT_DEV_PRIORITY_NORMAL;
		e->mbuf = pkts[k];
	}
	w->st_n = ok;
	w->st_head = 0;
}

/* RX, parsed into NEW events: only when what was refused before is in. */
static void
ev_rx(struct ev_lcore *w, uint64_t now)
{
	struct rte_mbuf *pkts[PL_MAX_BURST];

	for (unsigned int i = 0; i < w->n_mine && w->st_head == w->st_n; i++) {
		struct rxq_state *q = w->mine[i];
		unsigned int nr, ok, want = RTE_MIN(pp.conf->burst, ev_enq);

		if (q->done)
			continue;
		if (q->taken >= q->quota || rx_time_up(now)) {
			q->done = true;
			w->left--;
			continue;
		}
		if (q->quota - q->taken < want)
			want = (unsigned int)(q->quota - q->taken);
		nr = rte_eth_rx_burst(q->port, q->queue, pkts, (uint16_t)want);
		if (nr == 0)
			continue;
		q->taken += nr;
		fig_add(&w->f->produced, nr);
		ok = pl_port_parse_drop(w->f, pkts, nr);
		ev_make_events(w, pkts, ok);
	}
	if (w->st_head < w->st_n) {
		uint16_t sent = rte_event_enqueue_new_burst(ev_dev, w->port, w->stash + w->st_head,
							    (uint16_t)(w->st_n - w->st_head));

		w->st_head += sent;
		if (w->st_head < w->st_n) {
			w->f->refused += w->st_n - w->st_head;
			w->f->held++;
		}
	}
}

/* What the device scheduled to this lcore: counted in its store, sent on. */
static uint16_t
ev_count(struct ev_lcore *w)
{
	struct rte_mbuf *out[PL_MAX_BURST];
	struct rte_event ev[PL_MAX_BURST];
	uint16_t n = rte_event_dequeue_burst(ev_dev, w->port, ev, ev_deq, 0);

	if (n == 0)
		return 0;
	for (uint16_t j = 0; j < n; j++) {
		struct store *s = pp.stores[ev[j].flow_id];

		out[j] = ev[j].mbuf;
		store_count(s, out[j]->hash.usr);
		s->processed++;
	}
	sink_burst(w->me, w->f, out, n);
	tx_flush_all(w->me);
	pl_count(w->f, n, rte_rdtsc());
	return n;
}


int
pl_port_ev_worker(void *arg)
{
	static struct ev_lcore lcs[RTE_MAX_LCORE];
	unsigned int me = rte_lcore_id();
	struct ev_lcore *w = &lcs[me];
	int ret = 0;

	(void)arg;
	*w = (struct ev_lcore){ .me = me, .f = &pl.lc[me].f, .port = ev_port_of[me] };
	for (unsigned int k = 0; k < pp.n_rxqs; k++)
		if (pp.rxqs[k].lcore == me && w->n_mine < PL_MAX_PORTS)
			w->mine[w->n_mine++] = &pp.rxqs[k];
	w->left = w->n_mine;
	for (;;) {
		uint64_t now = rte_rdtsc();

		if ((ret = pl_loop_tick(w->f, me, now)) != 0)
			break;
		ev_rx(w, now);
		if (ev_count(w) > 0)
			continue;
		if (pl_port_all_done(w->left == 0 && w->st_head == w->st_n, &w->said_done,
				     &lcores_rx_done))
			break;
	}
	/* Stopped early: what waits in the device is freed by the drain below. */
	tx_flush_all(me);
	pp.worker_ret[me] = ret;
	return ret;
}

int
pl_port_ev_setup(void)
{
	int ret = pl_eventdev_setup();

	if (ret == 0)
		pl_eventdev_ports(&ev_dev, ev_port_of, &ev_enq, &ev_deq);
	return ret;
}

void
pl_port_ev_reset(void)
{
	lcores_rx_done = 0;
}

void
pl_port_ev_drain(void)
{
	/* An interrupted run leaves events in the device: take them out. */
	struct rte_event ev[64];
	uint16_t n;
	unsigned int idle = 0;

	while (idle < 1000) {
		idle++;
		for (unsigned int i = 0; i < pl.n_lcores; i++)
			while ((n = rte_event_dequeue_burst(ev_dev, ev_port_of[pl.lcores[i]],
							    ev, 64, 0)) > 0) {
				for (uint16_t j = 0; j < n; j++)
					rte_pktmbuf_free(ev[j].mbuf);
				idle = 0;
			}
	}
}
