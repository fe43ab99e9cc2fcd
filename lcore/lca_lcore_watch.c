/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The watch on guest lcores. When the application's loops call
 * lca_lcore_poll(), an lcore that one of them stops polling (a loop that
 * blocks, a worker that returned, an lcore never polled at all) would
 * leave its actors waiting without a word. Every guest poll stamps its
 * lcore's context with the clock it reads anyway; once a watch period,
 * whichever polling lcore gets there first looks at the others' stamps, and
 * an lcore unpolled for longer than the limit is logged once and counted
 * (lca_lcore_stalls(), and /lcactor/lcores' "stalls") until it polls again.
 */
#include <errno.h>
#include <inttypes.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "lca_eal.h"
#include "lca_lcore_priv.h"

#define DEFAULT_STALL_MS 1000

static unsigned int stall_ms = DEFAULT_STALL_MS;
uint64_t lcore_watch_next_tsc = UINT64_MAX;

static uint64_t
ms_to_tsc(unsigned int ms)
{
	return rte_get_tsc_hz() / 1000 * ms;
}

/* A look at most a quarter of the limit apart: a stall is seen within
 * 1.25 limits. */
static uint64_t
watch_period(void)
{
	return ms_to_tsc(stall_ms) / 4 + 1;
}

int
lca_lcore_stall_limit_set(unsigned int ms)
{
	if (lca_lcore_running())
		return -EBUSY;
	stall_ms = ms;
	return 0;
}

unsigned int
lca_lcore_stall_limit(void)
{
	return stall_ms;
}

void
lcore_watch_start(uint64_t now, bool on)
{
	__atomic_store_n(&lcore_watch_next_tsc,
			 !on || stall_ms == 0 ? UINT64_MAX : now + watch_period(),
			 __ATOMIC_RELAXED);
}

/* @p lcore_id has not polled since @p seen: log and count it, once. */
static void
watch_one(unsigned int lcore_id, uint64_t now)
{
	struct lcore_ctx *c = &lca_lcores[lcore_id];
	uint64_t seen = __atomic_load_n(&c->seen_tsc, __ATOMIC_RELAXED);
	uint32_t no = 0;

	if (now <= seen || now - seen <= ms_to_tsc(stall_ms)) {
		/* Seen again: said once here, so that a poll pays nothing. */
		if (__atomic_exchange_n(&c->stalled, 0, __ATOMIC_RELAXED))
			LCA_LOG(NOTICE, "lcore %u: polled again\n", lcore_id);
		return;
	}
	if (!__atomic_compare_exchange_n(&c->stalled, &no, 1, false, __ATOMIC_RELAXED,
					 __ATOMIC_RELAXED))
		return;
	__atomic_fetch_add(&c->stalls, 1, __ATOMIC_RELAXED);
	LCA_LOG(WARNING,
		"lcore %u: not polled for %" PRIu64 " ms (limit %u ms): its actors wait. "
		"Every lcore of the runtime must call lca_runtime_poll() from its loop, "
		"or run lcactor's service for it\n",
		lcore_id, (now - seen) * 1000 / rte_get_tsc_hz(), stall_ms);
}

void
lcore_watch_check(uint64_t now)
{
	uint64_t next = __atomic_load_n(&lcore_watch_next_tsc, __ATOMIC_RELAXED);
	unsigned int lcore_id;

	/* One lcore looks a period; the others go on. */
	if (now < next || !__atomic_compare_exchange_n(&lcore_watch_next_tsc, &next,
						       now + watch_period(), false,
						       __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return;
	LCA_LCORE_FOREACH(lcore_id)
		if (lca_lcores[lcore_id].runq != NULL && !lca_lcores[lcore_id].own_loop)
			watch_one(lcore_id, now);
}

uint64_t
lca_lcore_stalls(unsigned int lcore_id)
{
	if (lcore_id >= RTE_MAX_LCORE)
		return 0;
	return __atomic_load_n(&lca_lcores[lcore_id].stalls, __ATOMIC_RELAXED);
}

int
lca_lcore_watch(void)
{
	uint64_t now = rte_rdtsc();
	unsigned int lcore_id;
	int n = 0;

	if (!lca_lcore_running() || __atomic_load_n(&lcore_watch_next_tsc, __ATOMIC_RELAXED) == UINT64_MAX)
		return 0;
	LCA_LCORE_FOREACH(lcore_id) {
		if (lca_lcores[lcore_id].runq == NULL || lca_lcores[lcore_id].own_loop)
			continue;
		watch_one(lcore_id, now);
		n += __atomic_load_n(&lca_lcores[lcore_id].stalled, __ATOMIC_RELAXED) != 0;
	}
	return n;
}
