/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Threads that are not lcores, more of them than CPUs, all sending to one
 * affinity actor through its home's inbox (issue 13, defect 4): none may
 * stall behind a preempted one, and every message arrives once, in each
 * thread's order.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include <rte_cycles.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_mempool.h"
#include "lca_test.h"

#define MAX_FEEDERS 8
#define PER_FEEDER 20000

struct feeder {
	lca_actor_id_t to;
	uint32_t index;
	uint64_t retries;
	pthread_t th;
};

static void *
feeder_main(void *arg)
{
	struct feeder *f = arg;

	for (uint32_t seq = 0; seq < PER_FEEDER;) {
		struct lca_msg *m;

		if (lca_msg_alloc(&m) != 0) {
			f->retries++;
			sched_yield();
			continue;
		}
		*(struct lca_test_seq *)m->data = (struct lca_test_seq){ .sender = f->index, .seq = seq };
		if (lca_send(f->to, m) != 0) {
			lca_msg_free(m);
			f->retries++;
			sched_yield();
			continue;
		}
		seq++;
	}
	return NULL;
}

/* The receiver on lcore 1, so every feeder goes through its inbox; the
 * main lcore runs its loop too, so 2 lcores and n threads share 2 CPUs. */
static void
feed(unsigned int n)
{
	struct lca_runtime_conf c = { .msgs_per_node = 16383 };
	struct feeder f[MAX_FEEDERS];
	struct lca_test_recorder *r;
	unsigned int pool_full;
	lca_actor_id_t rx;
	uint64_t start;

	assert_int_equal(lca_test_runtime_up(&c, &pool_full), 0);
	rx = lca_test_spawn(lca_test_recorder_handler, sizeof(struct lca_test_recorder), 1, 1024, 64);
	r = lca_actor_state(rx);
	r->expect = (uint64_t)n * PER_FEEDER;
	start = rte_rdtsc();
	for (unsigned int i = 0; i < n; i++) {
		f[i] = (struct feeder){ .to = rx, .index = i };
		assert_int_equal(pthread_create(&f[i].th, NULL, feeder_main, &f[i]), 0);
	}
	if (!lca_test_run(60)) {
		/* Where it stuck, for whoever reads the failure. */
		fprintf(stderr, "stalled: %" PRIu64 " of %" PRIu64 " arrived\n", r->got, r->expect);
		for (unsigned int i = 0; i < n; i++)
			fprintf(stderr, "  feeder %u: %u sent in order, %" PRIu64 " retries\n", i,
				r->next[i], f[i].retries);
		fail();
	}
	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(pthread_join(f[i].th, NULL), 0);
	/* A figure, not a check: feeders contend with the lcores for CPUs. */
	printf("# %u feeder thread(s): %" PRIu64 " messages in %.1f ms\n", n, r->got,
	       (double)(rte_rdtsc() - start) * 1e3 / (double)rte_get_tsc_hz());

	assert_int_equal(r->got, (uint64_t)n * PER_FEEDER);
	assert_int_equal(r->out_of_order, 0);
	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(r->next[i], PER_FEEDER);
	assert_int_equal(lca_runtime_cleanup(), 0);
}

static void test_1_feeder(void **state) { (void)state; feed(1); }
static void test_2_feeders(void **state) { (void)state; feed(2); }
static void test_4_feeders(void **state) { (void)state; feed(4); }
static void test_8_feeders(void **state) { (void)state; feed(8); }

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_1_feeder),
		cmocka_unit_test(test_2_feeders),
		cmocka_unit_test(test_4_feeders),
		cmocka_unit_test(test_8_feeders),
	};
	int failed;

	lca_test_eal_init("lca_test_feeders");
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	lca_eal_cleanup();
	return lca_test_status(failed);
}
