/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lcactor engine: each partition's source is a loop hook on its lcore
 * (polled by the run loop, never an actor that sends itself a tick); each
 * partition's task is an actor with a batch handler on the partition's
 * lcore, its counts in its state on that lcore's node. A source sends
 * with lca_send_burst_rtc(): a task on its lcore that is idle takes the
 * burst before the send returns, run to completion. A source stops
 * producing for a partition whose backlog (lca_actor_backlog(): mailbox,
 * plus the channel to it from another lcore) is at the watermark, so
 * nothing is refused, and what a send refuses all the same is made again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "lca_actor.h"
#include "lca_lcore.h"
#include "pipeline.h"

#define PL_MSG_TYPE 0x504c /* "PL" */

/* A source lcore's hook: the partitions it produces for, and their tasks. */
struct src_hook {
	struct pl_lcore *l;
	unsigned int n;
	uint32_t part[PL_MAX_PARTITIONS];
	lca_actor_id_t task[PL_MAX_PARTITIONS];
	bool added;
};

static lca_actor_id_t task_id[PL_MAX_PARTITIONS];
static struct pl_task *task_state[PL_MAX_PARTITIONS];
static struct src_hook *hooks[RTE_MAX_LCORE];
static bool runtime_up;

static unsigned int
src_poll(unsigned int lcore_id, uint64_t now, void *arg)
{
	struct src_hook *h = arg;
	struct pl_fig *f = &h->l->f;
	const struct pl_conf *c = pl.conf;
	struct lca_msg *msgs[PL_MAX_BURST];
	struct pl_rec recs[PL_MAX_BURST];
	unsigned int work = 0;

	(void)lcore_id;
	pl_warm_check(f, now);
	for (unsigned int i = 0; i < h->n; i++) {
		uint32_t p = h->part[i];
		lca_actor_id_t to = h->task[i];
		unsigned int n, sent, max = c->burst;
		int backlog, err;

		if (pl.feed->remaining(p) == 0)
			continue;
		backlog = lca_actor_backlog(to);
		if (backlog < 0 || (unsigned int)backlog >= c->watermark) {
			f->held++;
			continue;
		}
		if (c->watermark - (unsigned int)backlog < max)
			max = c->watermark - (unsigned int)backlog;
		n = pl.feed->peek(p, recs, max);
		if (lca_msg_alloc_bulk(msgs, n) != 0) {
			f->pool_empty++;
			continue;
		}
		for (unsigned int k = 0; k < n; k++) {
			memcpy(msgs[k]->data, &recs[k], sizeof(recs[k]));
			msgs[k]->type = PL_MSG_TYPE;
			msgs[k]->len = sizeof(recs[k]);
		}
		sent = lca_send_burst_rtc(to, msgs, n, &err);
		if (sent < n) {
			/* Made again next time: the source commits what went. */
			lca_msg_free_bulk(msgs + sent, n - sent);
			f->refused += n - sent;
		}
		pl.feed->commit(p, sent);
		f->produced += sent;
		work += sent;
	}
	return work;
}

static void
task_batch(lca_actor_id_t self, void *state, struct lca_msg **msgs, unsigned int n)
{
	struct pl_task *t = state;
	struct pl_lcore *l = &pl.lc[rte_lcore_id()];

	(void)self;
	for (unsigned int i = 0; i < n; i++) {
		const struct pl_rec *r = (const struct pl_rec *)msgs[i]->data;

		pl_task_count(t, r->stream, r->offset);
	}
	t->processed += n;
	lca_msg_free_bulk(msgs, n);
	pl_count(&l->f, n, rte_rdtsc());
	if (l->f.processed == l->quota_process &&
	    __atomic_add_fetch(&pl.lcores_done, 1, __ATOMIC_ACQ_REL) == pl.lcores_busy)
		lca_runtime_stop();
}

static void
task_init(void *state, void *arg)
{
	struct pl_task *t = state;
	uint32_t part = (uint32_t)(uintptr_t)arg;

	t->part = part;
	t->streams = pl.conf->streams;
}

int
pl_lcactor_setup(void)
{
	const struct pl_conf *c = pl.conf;
	static char names[PL_MAX_PARTITIONS][24];
	/* Room for every partition's backlog up to the watermark and a burst
	 * beyond, on top of the pool's default. */
	struct lca_runtime_conf rc = {
		.msgs_per_node = 65535 + c->partitions * (c->watermark + c->burst),
	};
	int ret = lca_runtime_init(&rc);

	if (ret < 0) {
		fprintf(stderr, "lca-pipeline: lcactor runtime: %s\n", strerror(-ret));
		return ret;
	}
	runtime_up = true;
	for (uint32_t p = 0; p < c->partitions; p++) {
		struct lca_actor_spec spec = {
			.batch_handler = task_batch,
			.state_size = sizeof(struct pl_task) + c->streams * sizeof(uint64_t),
			.state_init = task_init,
			.state_arg = (void *)(uintptr_t)p,
			.lcore = pl.task_lcore[p],
			.mailbox_size = c->mailbox,
			.throughput = c->throughput,
			.name = names[p],
		};

		snprintf(names[p], sizeof(names[p]), "task p%u", p);
		ret = lca_actor_spawn(&spec, &task_id[p]);
		if (ret < 0) {
			fprintf(stderr, "lca-pipeline: cannot spawn the task of partition %u: %s\n", p,
				strerror(-ret));
			return ret;
		}
		task_state[p] = lca_actor_state(task_id[p]);
	}
	for (unsigned int i = 0; i < pl.n_lcores; i++) {
		unsigned int lc = pl.lcores[i];
		struct src_hook *h = calloc(1, sizeof(*h));

		if (h == NULL)
			return -ENOMEM;
		h->l = &pl.lc[lc];
		for (unsigned int k = 0; k < pl.lc[lc].n_src; k++) {
			h->part[k] = pl.lc[lc].src_part[k];
			h->task[k] = task_id[h->part[k]];
		}
		h->n = pl.lc[lc].n_src;
		hooks[lc] = h;
	}
	return 0;
}

uint32_t
pl_lcactor_task(uint32_t part)
{
	return task_id[part];
}

int
pl_lcactor_run(struct pl_result *r)
{
	const struct pl_conf *c = pl.conf;
	int ret = 0;

	for (uint32_t p = 0; p < c->partitions; p++)
		pl_task_reset(task_state[p]);
	/* Every hook, even of an lcore without sources: it sees the warm-up end. */
	for (unsigned int i = 0; i < pl.n_lcores && ret == 0; i++) {
		struct lca_lcore_hook hk = { .poll = src_poll, .arg = hooks[pl.lcores[i]] };

		ret = lca_lcore_hook_add(pl.lcores[i], &hk);
		hooks[pl.lcores[i]]->added = ret == 0;
	}
	if (ret == 0) {
		lca_lcore_stats_reset();
		pl_run_reset();
		ret = lca_runtime_run((unsigned int)(c->timeout_s * 1000));
	}
	for (unsigned int i = 0; i < pl.n_lcores; i++) {
		struct src_hook *h = hooks[pl.lcores[i]];
		struct lca_lcore_hook hk = { .poll = src_poll, .arg = h };

		if (h->added)
			lca_lcore_hook_remove(pl.lcores[i], &hk);
		h->added = false;
	}
	r->status = ret;
	pl_run_collect(r, task_state);
	return ret;
}

void
pl_lcactor_teardown(void)
{
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		free(hooks[i]);
		hooks[i] = NULL;
	}
	if (runtime_up)
		lca_runtime_cleanup();
	runtime_up = false;
}
