/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lcactor inside the application's own loop (lca_runtime_start(),
 * lca_runtime_poll(), lca_runtime_end()): what the calls refuse and why; a
 * handler that polls; the application's own cycles kept out of the
 * runtime's accounting; an lcore the application never polls, noticed
 * (counted, in telemetry) and its messages kept for the next run, not a
 * hang; a signal ending a guest run. The guarantees of the runtime (order,
 * exact counts, migration, asks, timers, supervision) are checked in guest
 * runs by the other unit tests, run again with LCA_TEST_DRIVER=guest
 * (tests/meson.build).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_lcore.h"
#include "lca_mempool.h"
#include "lca_test.h"

static void *
poll_from_a_thread(void *arg)
{
	*(int *)arg = lca_runtime_poll();
	return NULL;
}

static void
test_refusals(void **state)
{
	pthread_t th;
	int from_thread = 0;

	(void)state;
	assert_int_equal(lca_runtime_poll(), -ESHUTDOWN); /* no run */
	assert_int_equal(lca_runtime_end(), -EINVAL);
	assert_int_equal(lca_runtime_start(0), 0);
	assert_int_equal(lca_runtime_start(0), -EBUSY);
	assert_int_equal(lca_runtime_run(10), -EBUSY);
	assert_int_equal(lca_runtime_cleanup(), -EBUSY); /* the loops may poll */
	/* A thread that is not an lcore has no loop of the runtime. */
	assert_int_equal(pthread_create(&th, NULL, poll_from_a_thread, &from_thread), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(from_thread, -EPERM);
	assert_true(lca_runtime_poll() >= 0);
	assert_int_equal(lca_runtime_end(), 0);
	assert_int_equal(lca_runtime_poll(), -ESHUTDOWN); /* ended */
}

static int polled_inside;

static void
polling_handler(lca_actor_id_t self, void *st, struct lca_msg *msg)
{
	(void)self;
	(void)st;
	(void)msg;
	polled_inside = lca_runtime_poll();
	lca_runtime_stop();
}

/* A handler that polls would run its lcore's turns inside its own. */
static void
test_poll_from_a_handler(void **state)
{
	lca_actor_id_t a = lca_test_spawn(polling_handler, 0, rte_get_main_lcore(), 0, 1);

	(void)state;
	polled_inside = 0;
	assert_int_equal(lca_send(a, lca_test_msg()), 0);
	assert_int_equal(lca_runtime_start(5000), 0);
	while (lca_runtime_poll() >= 0)
		;
	assert_int_equal(lca_runtime_end(), 0);
	assert_int_equal(polled_inside, -EDEADLK);
}

/* Ping-pong between two actors on the two lcores, N rounds. */
#define ROUNDS 1000
static lca_actor_id_t ping_a, ping_b;
static uint64_t handled;

static void
ping_handler(lca_actor_id_t self, void *st, struct lca_msg *msg)
{
	uint64_t *n = st;

	(void)msg;
	__atomic_fetch_add(&handled, 1, __ATOMIC_RELAXED);
	if (++*n == ROUNDS && self == ping_b) {
		lca_runtime_stop();
		return;
	}
	lca_send(self == ping_a ? ping_b : ping_a, lca_test_msg());
}

/* What the application's loop spends between polls: cycles it measures. */
static uint64_t app_cycles[RTE_MAX_LCORE];

static int
busy_app_loop(void *arg)
{
	unsigned int me = rte_lcore_id();

	(void)arg;
	while (lca_runtime_poll() >= 0) {
		uint64_t t0 = rte_rdtsc();

		rte_delay_us_block(200); /* the application's own work */
		app_cycles[me] += rte_rdtsc() - t0;
	}
	return 0;
}

/* Cycles spent in the application's own work are not the runtime's: the
 * busy and idle cycles of a guest run add up to much less than what the
 * application's loops spent between polls. Every message is handled once. */
static void
test_app_cycles_are_the_apps(void **state)
{
	uint64_t app = 0, runtime = 0;
	unsigned int lcore_id;

	(void)state;
	ping_a = lca_test_spawn(ping_handler, sizeof(uint64_t), rte_get_main_lcore(), 0, 1);
	ping_b = lca_test_spawn(ping_handler, sizeof(uint64_t),
				rte_get_next_lcore(rte_get_main_lcore(), 1, 0), 0, 1);
	handled = 0;
	memset(app_cycles, 0, sizeof(app_cycles));
	lca_lcore_stats_reset();
	assert_int_equal(lca_send(ping_a, lca_test_msg()), 0);
	assert_int_equal(lca_runtime_start(60000), 0);
	assert_int_equal(rte_eal_mp_remote_launch(busy_app_loop, NULL, CALL_MAIN), 0);
	rte_eal_mp_wait_lcore();
	assert_int_equal(lca_runtime_end(), 0);
	assert_int_equal(handled, 2 * ROUNDS);
	RTE_LCORE_FOREACH(lcore_id) {
		struct lca_lcore_stats s;

		assert_int_equal(lca_lcore_stats_get(lcore_id, &s), 0);
		runtime += s.busy_cycles + s.idle_cycles;
		app += app_cycles[lcore_id];
		assert_true(s.loops > 0);
	}
	/* Own loops would count every cycle busy or idle: about the whole run,
	 * the application's 200 us a poll included: 10 times a poll's work
	 * or more, under ThreadSanitizer too. */
	print_message("runtime %lu cycles, application %lu\n", (unsigned long)runtime,
		      (unsigned long)app);
	assert_true(app > 0);
	assert_true(runtime < app / 2);
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

static uint64_t got_on_unpolled;

static void
count_handler(lca_actor_id_t self, void *st, struct lca_msg *msg)
{
	(void)self;
	(void)st;
	lca_msg_free(msg);
	got_on_unpolled++;
}

static int
idle_loop(void *arg)
{
	(void)arg;
	return 0; /* the application runs nothing of lcactor's here */
}

/* An lcore the application never polls: the watch counts and reports it
 * (telemetry included) while the others poll, the run ends when its time is
 * up, and the message waiting for an actor there is delivered by the next
 * run, not lost. */
static void
test_unpolled_lcore_is_noticed(void **state)
{
	unsigned int main_lcore = rte_get_main_lcore();
	unsigned int other = rte_get_next_lcore(main_lcore, 1, 0);
	lca_actor_id_t far = lca_test_spawn(count_handler, 0, other, 0, 1);
	uint64_t before = lca_lcore_stalls(other);
	char reply[4096], key[32];

	(void)state;
	got_on_unpolled = 0;
	assert_int_equal(lca_lcore_stall_limit_set(200), 0);
	assert_int_equal(lca_lcore_stall_limit(), 200);
	assert_int_equal(lca_send(far, lca_test_msg()), 0);
	assert_int_equal(lca_runtime_start(1000), 0);
	assert_int_equal(lca_lcore_stall_limit_set(10), -EBUSY);
	assert_int_equal(rte_eal_remote_launch(idle_loop, NULL, other), 0);
	while (lca_runtime_poll() >= 0) /* the main lcore alone polls */
		;
	/* A control thread that polls nothing still sees it. */
	assert_int_equal(lca_lcore_watch(), 1);
	assert_int_equal(lca_test_telemetry_query("/lcactor/lcores", reply, sizeof(reply)), 0);
	snprintf(key, sizeof(key), "\"%u\":{", other);
	assert_non_null(strstr(reply, key));
	assert_non_null(strstr(strstr(reply, key), "\"stalls\":1"));
	rte_eal_mp_wait_lcore();
	assert_int_equal(lca_runtime_end(), -ETIMEDOUT);
	assert_int_equal(lca_lcore_stalls(other), before + 1);
	assert_int_equal(lca_lcore_stalls(main_lcore), 0);
	assert_int_equal(got_on_unpolled, 0);
	/* lcactor's own run: the message was kept for it. */
	assert_int_equal(lca_runtime_run(200), -ETIMEDOUT);
	assert_int_equal(got_on_unpolled, 1);
	assert_int_equal(lca_lcore_stall_limit_set(1000), 0);
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

static int
plain_app_loop(void *arg)
{
	(void)arg;
	while (lca_runtime_poll() >= 0)
		;
	return 0;
}

/* SIGINT ends a guest run: every poll says so, and the end says why. Last:
 * the signal stays received for the rest of the program. */
static void
test_signal_ends_a_guest_run(void **state)
{
	pthread_t th;

	(void)state;
	assert_int_equal(lca_runtime_start(30000), 0);
	assert_int_equal(lca_test_interrupt_in(&th, 200), 0);
	assert_int_equal(rte_eal_mp_remote_launch(plain_app_loop, NULL, CALL_MAIN), 0);
	rte_eal_mp_wait_lcore();
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(lca_runtime_end(), -EINTR);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_refusals, lca_test_setup, lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_poll_from_a_handler, lca_test_setup,
						lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_app_cycles_are_the_apps, lca_test_setup,
						lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_unpolled_lcore_is_noticed, lca_test_setup,
						lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_signal_ends_a_guest_run, lca_test_setup,
						lca_test_teardown),
	};
	int failed;

	lca_test_eal_init("lca_test_guest");
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	lca_eal_cleanup();
	return lca_test_status(failed);
}
