/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --source port on the ring engine: lcactor's job without the runtime, the
 * floor for its packet lane. Each lcore takes from its RX queues, parses,
 * and sends each packet to the lcore of its partition (--partition-by, as
 * lcactor chooses it) over an SPSC rte_ring of that pair of lcores, as a
 * DPDK pipeline hands packets between lcores; a packet whose partition is
 * on its own lcore is counted at once. Each lcore takes its rings, counts
 * in the partition's store and transmits.
 *
 * plain counts where a packet arrives, so with --partition-by key on more
 * than one lcore it does less than lcactor (no packet crosses); ring does
 * the same as lcactor, crossing for crossing.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "pl_port.h"
#include "pl_sink.h"
#include "pl_stages.h"

#define RING_SIZE 1024 /* packets between two lcores: lcactor's lane holds as many */

/* An lcore of the ring engine: its RX queues, and what RX parsed for each
 * lcore that its ring did not take yet. */
struct ring_lcore {
	unsigned int me, idx;
	struct pl_fig *f;
	struct rxq_state *mine[PL_MAX_PORTS];
	unsigned int n_mine, left; /* queues, and those not done */
	unsigned int n_out[RTE_MAX_LCORE];
	unsigned int waiting; /* packets in out[], all destinations */
	bool said_done;
	struct rte_mbuf *out[][PL_MAX_BURST]; /* by destination index */
};

static struct rte_ring **rings; /* [from index * n + to index], NULL on the diagonal */
static unsigned int idx_of[RTE_MAX_LCORE];
static unsigned int part_idx[PL_MAX_PARTITIONS]; /* the index of each partition's lcore */
static struct ring_lcore *lcs[RTE_MAX_LCORE];
static unsigned int lcores_rx_done; /* atomic */

static inline struct rte_ring *
ring_of(unsigned int from, unsigned int to)
{
	return rings[from * pl.n_lcores + to];
}

static inline uint32_t
partition(uint32_t key, unsigned int me)
{
	return pp.conf->partition_rxq ? local_part_of(key, me) : part_of(key);
}

/* Count a burst whose partitions are on this lcore, and send it on. */
static void
ring_count(struct ring_lcore *w, struct rte_mbuf **pkts, unsigned int n)
{
	for (unsigned int k = 0; k < n; k++) {
		uint32_t key = pkts[k]->hash.usr;
		/* --partition-by rxq never sends a packet across: the
		 * lcore that counts it is the one that took it. */
		struct store *s = pp.stores[partition(key, w->me)];

		store_count(s, key);
		s->processed++;
	}
	sink_burst(w->me, w->f, pkts, n);
}

/* Into each destination's ring what waits for it. @return true when
 * nothing waits any more. */
static bool
ring_flush(struct ring_lcore *w)
{
	for (unsigned int d = 0; d < pl.n_lcores && w->waiting > 0; d++) {
		unsigned int n = w->n_out[d], sent;

		if (n == 0)
			continue;
		sent = rte_ring_sp_enqueue_burst(ring_of(w->idx, d), (void **)w->out[d], n, NULL);
		if (sent < n) {
			memmove(w->out[d], w->out[d] + sent, (n - sent) * sizeof(w->out[d][0]));
			w->f->refused += n - sent;
		}
		w->n_out[d] = n - sent;
		w->waiting -= sent;
	}
	if (w->waiting > 0)
		w->f->held++;
	return w->waiting == 0;
}

/* RX, parsed, each packet to its partition's lcore: only when what RX took
 * before is all handed over (the rings' back-pressure stops RX). @return
 * the packets counted here. */
static unsigned int
ring_rx(struct ring_lcore *w, uint64_t now)
{
	struct rte_mbuf *pkts[PL_MAX_BURST], *here[PL_MAX_BURST];
	unsigned int counted = 0;

	for (unsigned int i = 0; i < w->n_mine && ring_flush(w); i++) {
		bool ended;
		unsigned int n = pl_port_rx(w->mine[i], now, w->f, pkts, &ended), ok, nh = 0;

		w->left -= ended;
		if (n == 0)
			continue;
		ok = pl_port_parse_drop(w->f, pkts, n);
		for (unsigned int k = 0; k < ok; k++) {
			unsigned int d = part_idx[partition(pkts[k]->hash.usr, w->me)];

			if (d == w->idx)
				here[nh++] = pkts[k];
			else
				w->out[d][w->n_out[d]++] = pkts[k];
		}
		w->waiting = ok - nh;
		if (nh > 0)
			ring_count(w, here, nh);
		counted += nh;
	}
	return counted;
}

/* What the other lcores sent here: counted, sent on. */
static unsigned int
ring_take(struct ring_lcore *w)
{
	struct rte_mbuf *pkts[PL_MAX_BURST];
	unsigned int counted = 0;

	for (unsigned int s = 0; s < pl.n_lcores; s++) {
		unsigned int n;

		if (s == w->idx)
			continue;
		n = rte_ring_sc_dequeue_burst(ring_of(s, w->idx), (void **)pkts, pp.conf->burst,
					      NULL);
		if (n > 0)
			ring_count(w, pkts, n);
		counted += n;
	}
	return counted;
}

int
pl_port_ring_worker(void *arg)
{
	unsigned int me = rte_lcore_id();
	struct ring_lcore *w = lcs[me];
	int ret = 0;

	(void)arg;
	w->me = me;
	w->idx = idx_of[me];
	w->f = &pl.lc[me].f;
	w->n_mine = pl_port_rxqs_of(me, w->mine);
	w->left = w->n_mine;
	w->waiting = 0;
	w->said_done = false;
	for (unsigned int d = 0; d < pl.n_lcores; d++)
		w->n_out[d] = 0;
	for (;;) {
		uint64_t now = rte_rdtsc();
		unsigned int counted;

		if ((ret = pl_loop_tick(w->f, me, now)) != 0)
			break;
		counted = ring_rx(w, now);
		counted += ring_take(w);
		tx_flush_all(me);
		if (counted > 0) {
			pl_count(w->f, counted, rte_rdtsc());
			continue;
		}
		if (pl_port_all_done(w->left == 0 && w->waiting == 0, &w->said_done,
				     &lcores_rx_done))
			break;
	}
	/* Stopped early: pl_port_ring_drain() frees what is left. */
	tx_flush_all(me);
	pp.worker_ret[me] = ret;
	return ret;
}

void
pl_port_ring_reset(void)
{
	lcores_rx_done = 0;
}

void
pl_port_ring_drain(void)
{
	struct rte_mbuf *pkts[PL_MAX_BURST];
	unsigned int n;

	for (unsigned int i = 0; i < pl.n_lcores; i++) {
		struct ring_lcore *w = lcs[pl.lcores[i]];

		for (unsigned int d = 0; d < pl.n_lcores; d++) {
			if (w->n_out[d] > 0)
				rte_pktmbuf_free_bulk(w->out[d], w->n_out[d]);
			w->n_out[d] = 0;
			if (d != i)
				while ((n = rte_ring_sc_dequeue_burst(ring_of(i, d), (void **)pkts,
								      PL_MAX_BURST, NULL)) > 0)
					rte_pktmbuf_free_bulk(pkts, n);
		}
		w->waiting = 0;
	}
}

int
pl_port_ring_setup(void)
{
	unsigned int n = pl.n_lcores;

	rings = calloc((size_t)n * n, sizeof(*rings));
	if (rings == NULL)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++)
		idx_of[pl.lcores[i]] = i;
	for (uint32_t p = 0; p < pl_n_parts; p++)
		part_idx[p] = idx_of[pl.task_lcore[p]];
	for (unsigned int i = 0; i < n; i++) {
		unsigned int lc = pl.lcores[i];

		lcs[lc] = rte_zmalloc_socket("pl_ring_lcore",
					     sizeof(*lcs[lc]) + n * sizeof(lcs[lc]->out[0]),
					     RTE_CACHE_LINE_SIZE, (int)rte_lcore_to_socket_id(lc));
		if (lcs[lc] == NULL)
			return -ENOMEM;
		for (unsigned int j = 0; j < n; j++) {
			char name[RTE_RING_NAMESIZE];

			if (j == i)
				continue;
			snprintf(name, sizeof(name), "pl_ring_%u", i * n + j);
			/* On the receiver's node: it is the one that polls it. */
			rings[i * n + j] = rte_ring_create(
				name, RING_SIZE, (int)rte_lcore_to_socket_id(pl.lcores[j]),
				RING_F_SP_ENQ | RING_F_SC_DEQ);
			if (rings[i * n + j] == NULL) {
				fprintf(stderr, APP ": ring: no ring from lcore %u to %u: %s\n", lc,
					pl.lcores[j], rte_strerror(rte_errno));
				return -ENOMEM;
			}
		}
	}
	return 0;
}

void
pl_port_ring_teardown(void)
{
	for (unsigned int i = 0; rings != NULL && i < pl.n_lcores * pl.n_lcores; i++)
		rte_ring_free(rings[i]);
	free(rings);
	rings = NULL;
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		rte_free(lcs[i]);
		lcs[i] = NULL;
	}
}
