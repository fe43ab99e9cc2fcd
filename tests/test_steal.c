/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shared dispatcher's work stealing: shared actors all woken on one
 * lcore are run by both, each exactly once and never on two lcores at the
 * same time, and the idle lcore's counters say it stole.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_lcore.h"
#include "lca_mempool.h"
#include "lca_test.h"

#define WORKERS 64
#define ROUNDS 4 /* messages to each worker */
/* 256 turns of 100 us: 25 ms of work, several scheduler slices, so that
 * lcore 1 gets its CPU during the run even on a machine busy with other
 * processes (at 20 us the 5 ms could pass while it waited, under TSan). */
#define WORK_US 100

struct worker {
	uint32_t inside;          /* atomic: 1 while its handler runs */
	uint32_t overlaps;        /* times it found itself running already */
	uint32_t got;
	uint32_t ran_on[2];
};

static uint32_t done; /* atomic: messages handled by every worker */

static void
worker_handler(lca_actor_id_t self, void *state, struct lca_msg *m)
{
	struct worker *w = state;

	(void)self;
	(void)m;
	if (__atomic_exchange_n(&w->inside, 1, __ATOMIC_ACQ_REL) != 0)
		w->overlaps++;
	rte_delay_us_block(WORK_US);
	w->got++;
	w->ran_on[rte_lcore_id() & 1]++;
	__atomic_store_n(&w->inside, 0, __ATOMIC_RELEASE);
	if (__atomic_add_fetch(&done, 1, __ATOMIC_ACQ_REL) == WORKERS * ROUNDS)
		lca_runtime_stop();
}

static lca_actor_id_t workers[WORKERS];

/* On lcore 0: wakes every worker from here, so all land in its queue. */
static void
spawner_handler(lca_actor_id_t self, void *state, struct lca_msg *poke)
{
	(void)self;
	(void)state;
	(void)poke;
	for (unsigned int r = 0; r < ROUNDS; r++)
		for (unsigned int i = 0; i < WORKERS; i++) {
			struct lca_msg *m;

			if (lca_msg_alloc(&m) == 0 && lca_send(workers[i], m) != 0)
				lca_msg_free(m);
		}
}

static void
test_idle_lcore_steals_shared_work(void **state)
{
	struct lca_runtime_conf rc = { .msgs_per_node = 4095 };
	struct lca_actor_spec spec = {
		.handler = worker_handler, .state_size = sizeof(struct worker),
		.lcore = LCA_LCORE_ANY, .dispatcher = LCA_DISPATCH_SHARED,
	};
	struct lca_actor_spec sp = { .handler = spawner_handler, .lcore = 0 };
	struct lca_lcore_stats st[2];
	lca_actor_id_t spawner;
	uint32_t ran[2] = { 0, 0 };

	(void)state;
	assert_int_equal(lca_runtime_init(&rc), 0);
	for (unsigned int i = 0; i < WORKERS; i++)
		assert_int_equal(lca_actor_spawn(&spec, &workers[i]), 0);
	assert_int_equal(lca_actor_spawn(&sp, &spawner), 0);
	assert_int_equal(lca_send(spawner, lca_test_msg()), 0);
	done = 0;
	assert_true(lca_test_run(60));

	for (unsigned int i = 0; i < WORKERS; i++) {
		struct worker *w = lca_actor_state(workers[i]);

		assert_int_equal(w->got, ROUNDS);
		assert_int_equal(w->overlaps, 0);
		ran[0] += w->ran_on[0];
		ran[1] += w->ran_on[1];
	}
	assert_int_equal(lca_lcore_stats_get(0, &st[0]), 0);
	assert_int_equal(lca_lcore_stats_get(1, &st[1]), 0);
	/* Every wake was on lcore 0: lcore 1 ran workers only because it
	 * stole some (and a stolen worker with mail left stays there). */
	assert_true(st[1].steals > 0);
	assert_true(ran[0] > 0 && ran[1] > 0);
	assert_int_equal(ran[0] + ran[1], WORKERS * ROUNDS);
	lca_runtime_cleanup();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_lcore_steals_shared_work),
	};
	int failed;

	lca_test_eal_init("lca_test_steal");
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	lca_eal_cleanup();
	return lca_test_status(failed);
}
