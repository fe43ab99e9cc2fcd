/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The plain engine, the in-run floor: the same stages as a run-to-completion
 * DPDK loop on each lcore, no actors. A source takes message buffers from an
 * rte_mempool (per-lcore cache) in bulk and fills them; a task on the same
 * lcore counts them at once and puts them back in bulk; a task on another
 * lcore gets them through an SPSC rte_ring of the partition, in bursts, and
 * the source stops at the same watermark as lcactor's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "lca_eal.h"
#include "lca_freq.h"
#include "pipeline.h"

#define PLAIN_CACHE 512

static struct rte_mempool *pool;
static struct rte_ring *ring[PL_MAX_PARTITIONS]; /* NULL: source and task on one lcore */
static struct pl_task *task[PL_MAX_PARTITIONS];
static int worker_ret[RTE_MAX_LCORE];

static inline void
count_burst(struct pl_task *t, void *const *objs, unsigned int n)
{
	for (unsigned int k = 0; k < n; k++) {
		const struct pl_rec *r = objs[k];

		pl_task_count(t, r->stream, r->offset);
	}
	t->processed += n;
}

/* One pass of a source over one partition: @return messages produced. */
static unsigned int
source_pass(struct pl_fig *f, uint32_t p, unsigned int *counted)
{
	const struct pl_conf *c = pl.conf;
	void *objs[PL_MAX_BURST];
	struct pl_rec recs[PL_MAX_BURST];
	unsigned int n, sent, max = c->burst;

	if (pl.feed->remaining(p) == 0)
		return 0;
	if (ring[p] != NULL) {
		unsigned int backlog = rte_ring_count(ring[p]);

		if (backlog >= c->watermark) {
			f->held++;
			return 0;
		}
		if (c->watermark - backlog < max)
			max = c->watermark - backlog;
	}
	n = pl.feed->peek(p, recs, max);
	if (rte_mempool_get_bulk(pool, objs, n) != 0) {
		f->pool_empty++;
		return 0;
	}
	for (unsigned int k = 0; k < n; k++)
		memcpy(objs[k], &recs[k], sizeof(recs[k]));
	if (ring[p] == NULL) {
		count_burst(task[p], objs, n);
		rte_mempool_put_bulk(pool, objs, n);
		*counted += n; /* pl_count() after the loop's passes, with the time */
		sent = n;
	} else {
		sent = rte_ring_sp_enqueue_burst(ring[p], objs, n, NULL);
		if (sent < n) {
			rte_mempool_put_bulk(pool, objs + sent, n - sent);
			f->refused += n - sent;
		}
	}
	pl.feed->commit(p, sent);
	f->produced += sent;
	return sent;
}

static int
plain_worker(void *arg)
{
	const struct pl_conf *c = pl.conf;
	unsigned int me = rte_lcore_id();
	struct pl_lcore *l = &pl.lc[me];
	struct pl_fig *f = &l->f;
	void *objs[PL_MAX_BURST];
	uint64_t left = l->quota_produce;
	int ret = 0;

	(void)arg;
	while (f->processed < l->quota_process || left > 0) {
		uint64_t now = rte_rdtsc();
		unsigned int counted = 0;

		if ((ret = pl_loop_tick(f, me, now)) != 0)
			break;
		for (unsigned int i = 0; i < l->n_src; i++)
			left -= source_pass(f, l->src_part[i], &counted);
		for (unsigned int i = 0; i < l->n_task; i++) {
			uint32_t p = l->task_part[i];
			unsigned int n;

			if (ring[p] == NULL)
				continue;
			n = rte_ring_sc_dequeue_burst(ring[p], objs, c->throughput, NULL);
			if (n == 0)
				continue;
			count_burst(task[p], objs, n);
			rte_mempool_put_bulk(pool, objs, n);
			counted += n;
		}
		if (counted > 0)
			pl_count(f, counted, rte_rdtsc());
	}
	worker_ret[me] = ret;
	return ret;
}

int
pl_plain_setup(void)
{
	const struct pl_conf *c = pl.conf;
	unsigned int n = c->partitions * c->mailbox + pl.n_lcores * (PLAIN_CACHE * 2 + c->burst);

	pool = rte_mempool_create("pl_plain", n, 64, PLAIN_CACHE, 0, NULL, NULL, NULL, NULL,
				  (int)rte_socket_id(), 0);
	if (pool == NULL) {
		fprintf(stderr, "lca-pipeline: plain: no pool of %u buffers: %s\n", n,
			rte_strerror(rte_errno));
		return -ENOMEM;
	}
	for (uint32_t p = 0; p < c->partitions; p++) {
		int socket = (int)rte_lcore_to_socket_id(pl.task_lcore[p]);
		char name[RTE_RING_NAMESIZE];

		task[p] = pl_task_new(p, c->streams, socket);
		if (task[p] == NULL)
			return -ENOMEM;
		if (pl.src_lcore[p] == pl.task_lcore[p])
			continue;
		snprintf(name, sizeof(name), "pl_plain_%u", p);
		ring[p] = rte_ring_create(name, c->mailbox, socket,
					  RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ);
		if (ring[p] == NULL) {
			fprintf(stderr, "lca-pipeline: plain: no ring for partition %u: %s\n", p,
				rte_strerror(rte_errno));
			return -ENOMEM;
		}
	}
	return 0;
}

int
pl_plain_run(struct pl_result *r)
{
	int ret;

	for (uint32_t p = 0; p < pl.conf->partitions; p++)
		pl_task_reset(task[p]);
	pl_run_reset();
	ret = pl_launch(plain_worker, worker_ret);
	r->status = ret;
	pl_run_collect(r, task);
	return ret;
}

void
pl_plain_teardown(void)
{
	for (uint32_t p = 0; p < PL_MAX_PARTITIONS; p++) {
		rte_ring_free(ring[p]);
		ring[p] = NULL;
		rte_free(task[p]);
		task[p] = NULL;
	}
	rte_mempool_free(pool);
	pool = NULL;
}
