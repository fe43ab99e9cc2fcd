/* SPDX-License-Identifier: BSD-3-Clause */
/* What the three engines share: the run's clock, the warm-up, the counts. */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_malloc.h>

#include "pipeline.h"

struct pl_ctx pl;

const char *
pl_engine_name(enum pl_engine e)
{
	switch (e) {
	case PL_ENGINE_LCACTOR:
		return "lcactor";
	case PL_ENGINE_EVENTDEV:
		return "eventdev";
	case PL_ENGINE_PLAIN:
		return "plain";
	case PL_ENGINE_GRAPH:
		return "graph";
	case PL_ENGINE_IO:
		return "io";
	case PL_ENGINE_RING:
		return "ring";
	case PL_ENGINE_EMBEDDED:
		return "embedded";
	case PL_ENGINE_SERVICE:
		return "service";
	case PL_ENGINE_GRAPH_ACTORS:
		return "graph-actors";
	default:
		return "?";
	}
}

struct pl_task *
pl_task_new(uint32_t part, uint32_t streams, int socket)
{
	struct pl_task *t = rte_zmalloc_socket("pl_task", sizeof(*t) + streams * sizeof(uint64_t),
					       RTE_CACHE_LINE_SIZE, socket);

	if (t != NULL) {
		t->part = part;
		t->streams = streams;
	}
	return t;
}

void
pl_task_reset(struct pl_task *t)
{
	t->processed = 0;
	t->out_of_order = 0;
	memset(t->counts, 0, t->streams * sizeof(uint64_t));
}

void
pl_run_reset(void)
{
	const struct pl_conf *c = pl.conf;
	uint64_t hz = rte_get_tsc_hz();

	for (unsigned int i = 0; i < pl.n_lcores; i++)
		memset(&pl.lc[pl.lcores[i]].f, 0, sizeof(struct pl_fig));
	if (pl.feed != NULL)
		pl.feed->reset();
	pl.warm = 0;
	pl.t_warm = 0;
	pl.lcores_done = 0;
	pl.warm_target = c->warmup_messages;
	pl.t0 = rte_rdtsc();
	pl.warm_deadline = c->warmup_ms != 0 ? pl.t0 + c->warmup_ms * hz / 1000 : 0;
	pl.deadline = pl.t0 + c->timeout_s * hz;
}

uint64_t
pl_processed_all(void)
{
	uint64_t sum = 0;

	for (unsigned int i = 0; i < pl.n_lcores; i++)
		sum += __atomic_load_n(&pl.lc[pl.lcores[i]].f.processed, __ATOMIC_RELAXED);
	return sum;
}

void
pl_run_collect(struct pl_result *r, struct pl_task *const *tasks)
{
	const struct pl_conf *c = pl.conf;
	double hz = (double)rte_get_tsc_hz();
	uint64_t t_end = 0, produced_warm = 0, task_sum = 0;

	r->produced = r->processed = r->measured = 0;
	r->held = r->refused = r->pool_empty = 0;
	for (unsigned int i = 0; i < pl.n_lcores; i++) {
		const struct pl_fig *f = &pl.lc[pl.lcores[i]].f;

		r->lc[pl.lcores[i]] = *f;
		r->produced += f->produced;
		r->processed += f->processed;
		r->held += f->held;
		r->refused += f->refused;
		r->pool_empty += f->pool_empty;
		if (f->warm_seen) {
			r->measured += f->processed - f->processed_warm;
			produced_warm += f->produced_warm;
		} else {
			/* Ended before it saw the warm-up end: nothing measured. */
			produced_warm += f->produced;
		}
		if (f->t_last > t_end)
			t_end = f->t_last;
	}
	r->in_flight = r->produced - r->processed;
	r->warm_s = pl.warm ? (double)(pl.t_warm - pl.t0) / hz : 0;
	r->end_s = t_end > pl.t0 ? (double)(t_end - pl.t0) / hz : 0;
	r->measured_s = pl.warm && t_end > pl.t_warm ? (double)(t_end - pl.t_warm) / hz : 0;
	r->msg_per_s = r->measured_s > 0 ? (double)r->measured / r->measured_s : 0;
	r->source_msg_per_s =
		r->measured_s > 0 ? (double)(r->produced - produced_warm) / r->measured_s : 0;
	r->out_of_order = 0;
	r->count_errors = 0;
	for (uint32_t p = 0; p < c->partitions; p++) {
		const struct pl_task *t = tasks[p];

		r->out_of_order += t->out_of_order;
		task_sum += t->processed;
		if (r->status != 0)
			continue;
		for (uint32_t s = 0; s < c->streams; s++)
			r->count_errors += t->counts[s] != pl.feed->expected(p, s);
	}
	if (task_sum != r->processed)
		r->count_errors++;
	r->exact = r->status == 0 && r->produced == c->messages && r->processed == c->messages &&
		   r->count_errors == 0 && r->out_of_order == 0;
}

int
pl_launch(int (*fn)(void *), int *rets)
{
	unsigned int lcore_id;
	int ret;

	RTE_LCORE_FOREACH(lcore_id)
		rets[lcore_id] = 0;
	ret = rte_eal_mp_remote_launch(fn, NULL, CALL_MAIN);
	if (ret < 0)
		return ret;
	rte_eal_mp_wait_lcore();
	/* A stop (signal) first, then a time-out, then anything else. */
	RTE_LCORE_FOREACH(lcore_id)
		if (rets[lcore_id] == -EINTR)
			return -EINTR;
	RTE_LCORE_FOREACH(lcore_id)
		if (rets[lcore_id] < 0)
			return rets[lcore_id];
	return 0;
}

bool
pl_has_engine(const struct pl_conf *c, enum pl_engine e)
{
	for (unsigned int i = 0; i < c->n_engines; i++)
		if (c->engines[i] == e)
			return true;
	return false;
}
