/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sleep idle policy: its sleep is bounded, and a signal ends a run
 * whose lcores sleep (issue 13, defect 6). The signal test comes last: the
 * stop a signal asks for lasts for the rest of the process.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_lcore.h"
#include "lca_test.h"

static void
test_sleep_is_bounded(void **state)
{
	struct lca_runtime_conf c = {
		.idle = LCA_IDLE_SLEEP, .idle_sleep_after = 1, .idle_sleep_us = UINT_MAX,
	};

	(void)state;
	assert_int_equal(lca_runtime_init(&c), -EINVAL);
	c.idle_sleep_us = LCA_IDLE_SLEEP_MAX_US + 1;
	assert_int_equal(lca_runtime_init(&c), -EINVAL);
	c.idle_sleep_us = LCA_IDLE_SLEEP_MAX_US;
	assert_int_equal(lca_runtime_init(&c), 0);
	lca_runtime_cleanup();
}

/* 20 ms sleeps: a signal read every 1024 loops would take ~20 s to be
 * seen, past the run's 10 s limit (-ETIMEDOUT); read at every sleep it
 * ends the run (-EINTR). */
static void
test_signal_ends_a_sleeping_run(void **state)
{
	struct lca_runtime_conf c = {
		.idle = LCA_IDLE_SLEEP, .idle_sleep_after = 1, .idle_sleep_us = 20000,
	};
	pthread_t th;

	(void)state;
	assert_int_equal(lca_runtime_init(&c), 0);
	assert_int_equal(lca_test_interrupt_in(&th, 200), 0);
	assert_int_equal(lca_runtime_run(10000), -EINTR);
	assert_int_equal(pthread_join(th, NULL), 0);
	lca_runtime_cleanup();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sleep_is_bounded),
		cmocka_unit_test(test_signal_ends_a_sleeping_run),
	};
	int failed;

	lca_test_eal_init("lca_test_idle");
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	lca_eal_cleanup();
	return lca_test_status(failed);
}
