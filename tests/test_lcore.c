/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the run loop's hooks: what a hook returns is work for the
 * loop's accounting and idle policy, end functions run once per iteration,
 * a removed hook is never called again, the frequency sampler rides the
 * hook, and a spinning loop's cycles go to busy or idle as its loops did.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "lca_freq.h"
#include "lca_lcore.h"
#include "lca_test.h"

/* Iterations the main lcore's hook reports as busy, then idle ones. */
#define BUSY_POLLS 20
#define IDLE_POLLS 30

struct counts {
	unsigned int polls;
	unsigned int ends;
	int add_while_running; /* lca_lcore_hook_add() from inside a run */
};

static struct counts counts[RTE_MAX_LCORE];

static bool
turn_never(void *item)
{
	(void)item;
	return false;
}

static void end_count(unsigned int lcore_id, void *arg);

/* Busy for BUSY_POLLS iterations, then idle; the main lcore ends the run. */
static unsigned int
poll_busy_then_idle(unsigned int lcore_id, uint64_t now_tsc, void *arg)
{
	struct counts *c = arg;
	static const struct lca_lcore_hook other = { .end = end_count, .arg = &counts[0] };

	(void)now_tsc;
	c->polls++;
	if (lcore_id == rte_get_main_lcore() && c->polls == 1)
		c->add_while_running = lca_lcore_hook_add(lcore_id, &other);
	if (c->polls <= BUSY_POLLS)
		return 1;
	if (lcore_id == rte_get_main_lcore() && c->polls == BUSY_POLLS + IDLE_POLLS)
		lca_lcore_stop();
	return 0;
}

static void
end_count(unsigned int lcore_id, void *arg)
{
	struct counts *c = arg;

	(void)lcore_id;
	c->ends++;
}

static struct lca_lcore_hook
hook_of(unsigned int lcore_id)
{
	struct lca_lcore_hook h = {
		.poll = poll_busy_then_idle, .end = end_count, .arg = &counts[lcore_id],
	};

	return h;
}

static int
setup(void **state)
{
	/* Sleep after every idle iteration: sleeps then count idle iterations. */
	struct lca_lcore_conf conf = {
		.turn = turn_never, .max_items = 16, .idle = LCA_IDLE_SLEEP,
		.idle_sleep_after = 1, .idle_sleep_us = 1,
	};

	(void)state;
	return lca_lcore_init(&conf);
}

static int
teardown(void **state)
{
	(void)state;
	lca_lcore_cleanup();
	return 0;
}

static void
test_hook_bad_args(void **state)
{
	unsigned int main_lcore = rte_get_main_lcore();
	struct lca_lcore_hook h = hook_of(main_lcore), empty = { .arg = &counts[0] };
	struct lca_lcore_hook many[LCA_LCORE_MAX_HOOKS];
	unsigned int i;

	(void)state;
	assert_int_equal(lca_lcore_hook_add(main_lcore, NULL), -EINVAL);
	assert_int_equal(lca_lcore_hook_add(main_lcore, &empty), -EINVAL);
	assert_int_equal(lca_lcore_hook_add(RTE_MAX_LCORE, &h), -EINVAL);
	assert_int_equal(lca_lcore_hook_add(RTE_MAX_LCORE - 1, &h), -EINVAL); /* not enabled */
	assert_int_equal(lca_lcore_hook_remove(main_lcore, NULL), -EINVAL);
	assert_int_equal(lca_lcore_hook_remove(RTE_MAX_LCORE, &h), -EINVAL);
	assert_int_equal(lca_lcore_hook_remove(main_lcore, &h), -ENOENT);

	assert_int_equal(lca_lcore_hook_add(main_lcore, &h), 0);
	assert_int_equal(lca_lcore_hook_add(main_lcore, &h), -EEXIST);
	/* The same functions with another argument are another hook. */
	for (i = 0; i < LCA_LCORE_MAX_HOOKS - 1; i++) {
		many[i] = h;
		many[i].arg = &counts[i + 1];
		assert_int_equal(lca_lcore_hook_add(main_lcore, &many[i]), 0);
	}
	many[i] = h;
	many[i].arg = &many[i];
	assert_int_equal(lca_lcore_hook_add(main_lcore, &many[i]), -ENOSPC);
	for (i = 0; i < LCA_LCORE_MAX_HOOKS - 1; i++)
		assert_int_equal(lca_lcore_hook_remove(main_lcore, &many[i]), 0);
	assert_int_equal(lca_lcore_hook_remove(main_lcore, &h), 0);
	assert_int_equal(lca_lcore_hook_remove(main_lcore, &h), -ENOENT);
}

/* What a poll returns decides busy or idle: with one sleep per idle
 * iteration, the main lcore sleeps exactly once per iteration its hook
 * called idle, and its end function runs once per iteration. */
static void
test_hook_work_and_end(void **state)
{
	unsigned int main_lcore = rte_get_main_lcore(), lcore_id;
	struct lca_lcore_stats st;

	(void)state;
	memset(counts, 0, sizeof(counts));
	RTE_LCORE_FOREACH(lcore_id) {
		struct lca_lcore_hook h = hook_of(lcore_id);

		assert_int_equal(lca_lcore_hook_add(lcore_id, &h), 0);
	}
	lca_lcore_stats_reset();
	assert_int_equal(lca_lcore_run(10000), 0);

	assert_int_equal(counts[main_lcore].polls, BUSY_POLLS + IDLE_POLLS);
	assert_int_equal(counts[main_lcore].ends, BUSY_POLLS + IDLE_POLLS);
	assert_int_equal(counts[main_lcore].add_while_running, -EBUSY);
	assert_int_equal(lca_lcore_stats_get(main_lcore, &st), 0);
	assert_int_equal(st.loops, BUSY_POLLS + IDLE_POLLS);
	assert_int_equal(st.sleeps, IDLE_POLLS);
	assert_int_equal(st.turns, 0);
	RTE_LCORE_FOREACH_WORKER(lcore_id) {
		assert_int_equal(lca_lcore_stats_get(lcore_id, &st), 0);
		assert_int_equal(counts[lcore_id].polls, st.loops);
		assert_int_equal(counts[lcore_id].ends, st.loops);
		assert_int_equal(st.sleeps, st.loops - RTE_MIN(st.loops, (uint64_t)BUSY_POLLS));
	}

	/* Removed: the next run never calls them. */
	memset(counts, 0, sizeof(counts));
	RTE_LCORE_FOREACH(lcore_id) {
		struct lca_lcore_hook h = hook_of(lcore_id);

		assert_int_equal(lca_lcore_hook_remove(lcore_id, &h), 0);
	}
	assert_int_equal(lca_lcore_run(20), -ETIMEDOUT);
	RTE_LCORE_FOREACH(lcore_id) {
		assert_int_equal(counts[lcore_id].polls, 0);
		assert_int_equal(counts[lcore_id].ends, 0);
	}
}

/* Loops the main lcore runs in the accounting test before it stops. */
#define SPIN_LOOPS 100000

/* Idle (or, with a non-NULL @p arg, busy) on every loop; the main lcore
 * ends the run after SPIN_LOOPS. */
static unsigned int
poll_same_every_loop(unsigned int lcore_id, uint64_t now_tsc, void *arg)
{
	(void)now_tsc;
	if (lcore_id == rte_get_main_lcore() && ++counts[lcore_id].polls == SPIN_LOOPS)
		lca_lcore_stop();
	return arg != NULL ? 1 : 0;
}

/* Spin the loops with every hook returning @p busy; check that each
 * lcore's cycles are all of one kind and no more than the run took. */
static void
spin_and_check(bool busy)
{
	unsigned int main_lcore = rte_get_main_lcore(), lcore_id;
	struct lca_lcore_hook h = { .poll = poll_same_every_loop, .arg = busy ? &counts : NULL };
	uint64_t t0, span;

	memset(counts, 0, sizeof(counts));
	RTE_LCORE_FOREACH(lcore_id)
		assert_int_equal(lca_lcore_hook_add(lcore_id, &h), 0);
	lca_lcore_stats_reset();
	t0 = rte_rdtsc();
	assert_int_equal(lca_lcore_run(30000), 0);
	span = rte_rdtsc() - t0;
	RTE_LCORE_FOREACH(lcore_id) {
		struct lca_lcore_stats st;

		assert_int_equal(lca_lcore_hook_remove(lcore_id, &h), 0);
		assert_int_equal(lca_lcore_stats_get(lcore_id, &st), 0);
		assert_true(st.busy_cycles + st.idle_cycles <= span);
		if (busy) {
			assert_true(st.idle_cycles == 0);
			assert_true(lcore_id != main_lcore || st.busy_cycles > 0);
		} else {
			assert_true(st.busy_cycles == 0);
			assert_true(lcore_id != main_lcore || st.idle_cycles > 0);
		}
	}
}

/* A spinning loop reads the TSC in only some of its empty loops (it costs
 * what the rest of the loop does): the time still goes to the right side,
 * idle when nothing worked, busy when every loop did, and none is made up. */
static void
test_spin_accounting(void **state)
{
	struct lca_lcore_conf spin = {
		.turn = turn_never, .max_items = 16, .idle = LCA_IDLE_SPIN,
	};
	struct lca_lcore_conf sleep = {
		.turn = turn_never, .max_items = 16, .idle = LCA_IDLE_SLEEP,
		.idle_sleep_after = 1, .idle_sleep_us = 1,
	};

	(void)state;
	lca_lcore_cleanup();
	assert_int_equal(lca_lcore_init(&spin), 0);
	spin_and_check(false);
	spin_and_check(true);
	lca_lcore_cleanup();
	assert_int_equal(lca_lcore_init(&sleep), 0); /* as setup() left it */
}

/* Ends the run once every lcore has sampled: however slowly a loaded
 * machine runs the loops. */
static unsigned int
stop_when_all_sampled(unsigned int lcore_id, uint64_t now_tsc, void *arg)
{
	unsigned int id;

	(void)now_tsc;
	(void)arg;
	if (lcore_id != rte_get_main_lcore())
		return 0;
	RTE_LCORE_FOREACH(id)
		if (__atomic_load_n(&lca_freq_deadlines[id].tsc, __ATOMIC_RELAXED) == 0)
			return 0;
	lca_lcore_stop();
	return 0;
}

/* The monitor samples through the hook: a run of the loops alone, with no
 * call of lca_freq_poll() anywhere, moves every lcore's deadline. */
static void
test_freq_sampler_rides_hook(void **state)
{
	static struct lca_freq_report rep;
	const struct lca_lcore_hook stopper = { .poll = stop_when_all_sampled };
	unsigned int lcore_id, main_lcore = rte_get_main_lcore();

	(void)state;
	assert_int_equal(lca_lcore_hook_add(main_lcore, &stopper), 0);
	assert_int_equal(lca_freq_monitor_start(NULL), 0);
	RTE_LCORE_FOREACH(lcore_id)
		assert_true(lca_freq_deadlines[lcore_id].tsc == 0);
	/* Without the sampler's hook this run would end only at its limit. */
	assert_int_equal(lca_lcore_run(30000), 0);
	assert_int_equal(lca_lcore_hook_remove(main_lcore, &stopper), 0);
	RTE_LCORE_FOREACH(lcore_id) {
		uint64_t d = lca_freq_deadlines[lcore_id].tsc;

		assert_true(d != 0 && d != UINT64_MAX);
	}
	assert_int_equal(lca_freq_monitor_stop(&rep), 0);
	assert_int_equal(rep.n_lcores, rte_lcore_count());
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hook_bad_args),
		cmocka_unit_test(test_hook_work_and_end),
		cmocka_unit_test(test_freq_sampler_rides_hook),
		cmocka_unit_test(test_spin_accounting),
	};

	lca_test_eal_init("lca_test_lcore");
	return lca_test_status(cmocka_run_group_tests(tests, setup, teardown));
}
