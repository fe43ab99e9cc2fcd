/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The timers' floor: DPDK's rte_timer in a plain loop, with no actor, no
 * mailbox and no runtime around it. Each of the two lcores keeps
 * --inflight one-shots outstanding with delays drawn from the same streams
 * as the runtime's receivers draw theirs, until it has fired --timers of
 * them, and calls rte_timer_manage() in a tight loop; each expiry records
 * its lateness as the receivers do (callback TSC - arm TSC - delay). The
 * runtime's timers are rte_timers too, so what the scenario pays over this
 * is the runtime's: the message, the control lane, the handler's turn.
 */
#include <errno.h>
#include <stdlib.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_timer.h>

#include "app_floor.h"
#include "app_rng.h"
#include "lifecycle.h"

struct tf_timer {
	struct rte_timer tim;
	uint64_t intended;
	struct tf_lcore *owner;
};

struct tf_lcore {
	const struct lc_conf *c;
	unsigned int lcore;
	uint64_t rng;
	uint64_t armed, fired, arm_errors;
	struct app_hdr *late;
	struct tf_timer *t; /* [inflight] */
} __rte_cache_aligned; /* each lcore writes its counters: a line apiece */

static struct tf_lcore tf[2];

static void tf_expired(struct rte_timer *tim, void *arg);

static void
tf_arm(struct tf_timer *t)
{
	struct tf_lcore *l = t->owner;
	const struct lc_conf *c = l->c;
	uint32_t span = c->max_delay_us - c->min_delay_us + 1;
	uint64_t delay = c->min_delay_us + app_rng_below(&l->rng, span);
	uint64_t ticks = delay * rte_get_timer_hz() / 1000000;

	l->armed++;
	t->intended = rte_get_timer_cycles() + ticks;
	if (rte_timer_reset(&t->tim, ticks, SINGLE, l->lcore, tf_expired, t) != 0)
		l->arm_errors++;
}

static void
tf_expired(struct rte_timer *tim, void *arg)
{
	struct tf_timer *t = arg;
	struct tf_lcore *l = t->owner;
	uint64_t now = rte_get_timer_cycles();

	(void)tim;
	app_hdr_record(l->late, (int64_t)lc_cycles_to_ns(now > t->intended ? now - t->intended : 0,
							rte_get_timer_hz()));
	l->fired++;
	if (l->armed < l->c->timers)
		tf_arm(t);
}

static int
tf_lcore_main(void *arg)
{
	(void)arg;
	for (unsigned int k = 0; k < 2; k++) {
		struct tf_lcore *l = &tf[k];

		if (l->lcore != rte_lcore_id())
			continue;
		for (unsigned int i = 0; i < l->c->inflight && l->armed < l->c->timers; i++)
			tf_arm(&l->t[i]);
		/* Every armed timer fires: an arm that failed is one fewer. */
		while (l->fired + l->arm_errors < l->armed)
			rte_timer_manage();
	}
	return 0;
}

int
lc_timer_floor(const struct lc_conf *c, struct app_hdr *late)
{
	struct app_hdr other; /* lcore 1's, added to @p late at the end */
	int ret = rte_timer_subsystem_init();

	if (ret < 0 && ret != -EALREADY)
		return ret;
	ret = lc_hdr_init(&other);
	if (ret < 0)
		return ret;
	for (unsigned int k = 0; k < 2; k++) {
		tf[k] = (struct tf_lcore){
			.c = c, .lcore = c->lcore[k], .rng = app_rng_stream(0x713e5, k),
			.late = k ? &other : late, .t = calloc(c->inflight, sizeof(struct tf_timer)),
		};
		if (tf[k].t == NULL)
			ret = -ENOMEM;
		for (unsigned int i = 0; tf[k].t != NULL && i < c->inflight; i++) {
			rte_timer_init(&tf[k].t[i].tim);
			tf[k].t[i].owner = &tf[k];
		}
	}
	if (ret >= 0)
		ret = app_floor_run_all(tf_lcore_main, NULL);
	if (ret >= 0 && (tf[0].arm_errors || tf[1].arm_errors))
		ret = -EIO;
	if (ret >= 0)
		app_hdr_add(late, &other);
	app_hdr_free(&other);
	free(tf[0].t);
	free(tf[1].t);
	return ret < 0 ? ret : 0;
}
