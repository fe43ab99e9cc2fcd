/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lcactor as rte_service components. EAL runs with lcore 1 a service lcore
 * (-s 0x2): lcore 0 runs lcactor's own loop or the application's, lcore 1
 * only lcactor's service "lcactor_lcore_1". Checked there: the services
 * and their names; per-sender order and exact counts into an actor that the
 * service runs, in lcactor's run and in a guest run; a timer and an ask's
 * timeout on the service lcore; a migration onto it and back while both
 * lcores poll; a service stopped by the application (noticed, the run ends,
 * nothing lost); the service run on the wrong lcore (refused, counted); a
 * signal.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_lcore.h>
#include <rte_service.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_lcore.h"
#include "lca_mempool.h"
#include "lca_test.h"
#include "lca_timer.h"

#define MAIN 0
#define SVC 1
#define N_MSGS 3000

static int
setup(void **state)
{
	int ret = lca_test_setup(state);

	if (ret == 0 && lca_runtime_services_map() != 1)
		return -1;
	return ret;
}

static void
test_services_are_registered(void **state)
{
	uint32_t id, by_name;

	(void)state;
	assert_int_equal(rte_lcore_has_role(SVC, ROLE_SERVICE), 1);
	assert_true(lca_eal_lcore_in_use(SVC));
	assert_int_equal(lca_eal_lcore_count(), 2);
	assert_int_equal(lca_runtime_service_id(SVC, &id), 0);
	assert_int_equal(rte_service_get_by_name("lcactor_lcore_1", &by_name), 0);
	assert_int_equal(id, by_name);
	assert_int_equal(rte_service_map_lcore_get(id, SVC), 1);
	assert_int_equal(lca_runtime_service_id(MAIN, &id), 0);
	assert_int_equal(rte_service_get_by_name("lcactor_lcore_0", &by_name), 0);
	assert_int_equal(lca_runtime_service_id(5, &id), -ENODEV);
	assert_int_equal(lca_runtime_service_id(SVC, NULL), -EINVAL);
}

/* N_MSGS numbered messages from the main lcore to a recorder on the
 * service lcore, run by @p guest or lcactor's loop. */
static void
order_and_counts(bool guest)
{
	lca_actor_id_t rec = lca_test_spawn(lca_test_recorder_handler,
					    sizeof(struct lca_test_recorder), SVC, 4096, 64);
	struct lca_test_recorder *r = lca_actor_state(rec);

	r->expect = N_MSGS;
	for (uint32_t i = 0; i < N_MSGS; i++)
		assert_int_equal(lca_send(rec, lca_test_seq_msg(0, i)), 0);
	if (guest) {
		assert_int_equal(lca_runtime_start(30000), 0);
		while (lca_runtime_poll() >= 0)
			;
		assert_int_equal(lca_runtime_end(), 0);
	} else {
		assert_true(lca_test_run(30));
	}
	assert_int_equal(r->got, N_MSGS);
	assert_int_equal(r->out_of_order, 0);
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

static void
test_order_and_counts_own_loop(void **state)
{
	(void)state;
	order_and_counts(false);
}

static void
test_order_and_counts_guest(void **state)
{
	(void)state;
	order_and_counts(true);
}

#define T_TICK 7
#define T_ASK 8
#define T_START 9
static unsigned int fired_on;
static int timed_out_on;

static void
timer_handler(lca_actor_id_t self, void *st, struct lca_msg *msg)
{
	(void)st;
	if (msg->type == T_START) {
		struct lca_msg *tick = lca_test_msg();

		tick->type = T_TICK;
		assert_int_equal(lca_send_after(self, tick, 10 * 1000, NULL), 0);
	} else if (msg->type == T_TICK) {
		fired_on = rte_lcore_id();
		lca_runtime_stop();
	}
}

static void
silent_handler(lca_actor_id_t self, void *st, struct lca_msg *msg)
{
	(void)self;
	(void)st;
	(void)msg; /* never answers an ask */
}

static lca_actor_id_t silent;

static void
asker_handler(lca_actor_id_t self, void *st, struct lca_msg *msg)
{
	(void)st;
	if (msg->type == T_ASK) {
		struct lca_msg *q = lca_test_msg();

		assert_int_equal(lca_ask(self, silent, q, 20 * 1000, NULL), 0);
	} else if (msg->type == LCA_TYPE_TIMEOUT) {
		timed_out_on = (int)rte_lcore_id();
		lca_runtime_stop();
	}
}

/* A timer armed by a handler on the service lcore: its poll runs the
 * timer there, and the tick reaches the actor. */
static void
test_timer_on_the_service_lcore(void **state)
{
	lca_actor_id_t a = lca_test_spawn(timer_handler, 0, SVC, 0, 1);
	struct lca_msg *m = lca_test_msg();

	(void)state;
	fired_on = RTE_MAX_LCORE;
	m->type = T_START;
	assert_int_equal(lca_send(a, m), 0);
	assert_true(lca_test_run(30));
	assert_int_equal(fired_on, SVC);
}

/* An ask from an actor that the service runs times out there. */
static void
test_ask_timeout_on_the_service_lcore(void **state)
{
	lca_actor_id_t asker = lca_test_spawn(asker_handler, 0, SVC, 0, 1);
	struct lca_msg *m = lca_test_msg();

	(void)state;
	silent = lca_test_spawn(silent_handler, 0, MAIN, 0, 1);
	timed_out_on = -1;
	m->type = T_ASK;
	assert_int_equal(lca_send(asker, m), 0);
	assert_true(lca_test_run(30));
	assert_int_equal(timed_out_on, SVC);
}

/* A recorder moved onto the service lcore and back while messages flow:
 * every message, in order. */
struct mover {
	lca_actor_id_t rec;
	uint32_t seq;
	unsigned int moves;
};

static void
mover_handler(lca_actor_id_t self, void *st, struct lca_msg *msg)
{
	struct mover *mv = st;
	/* A third of the messages before each move is taken: a move under
	 * way refuses the next, so each is asked until it is. */
	uint32_t limit = mv->moves == 0 ? N_MSGS / 3 : mv->moves == 1 ? 2 * N_MSGS / 3 : N_MSGS;

	lca_msg_free(msg);
	for (int i = 0; i < 8 && mv->seq < limit; i++)
		if (lca_send(mv->rec, lca_test_seq_msg(0, mv->seq)) == 0)
			mv->seq++;
	if (mv->seq == limit && mv->moves < 2)
		mv->moves += lca_actor_migrate(mv->rec, mv->moves == 0 ? SVC : MAIN) == 0;
	if (mv->seq < N_MSGS)
		lca_send(self, lca_test_msg());
}

static void
test_migration_onto_the_service_lcore(void **state)
{
	lca_actor_id_t rec = lca_test_spawn(lca_test_recorder_handler,
					    sizeof(struct lca_test_recorder), MAIN, 4096, 64);
	lca_actor_id_t mover = lca_test_spawn(mover_handler, sizeof(struct mover), MAIN, 0, 1);
	struct lca_test_recorder *r = lca_actor_state(rec);
	struct mover *mv = lca_actor_state(mover);
	struct lca_migration log[16];
	unsigned int before, after;

	(void)state;
	mv->rec = rec;
	r->expect = N_MSGS;
	before = lca_migrations_get(log, RTE_DIM(log));
	assert_int_equal(lca_send(mover, lca_test_msg()), 0);
	assert_true(lca_test_run(30));
	/* The last move may still be handing over when the last message
	 * stops the run: the log shows it once it is done. */
	for (int i = 0; i < 50 && lca_migrations_get(NULL, 0) < before + 2; i++)
		lca_test_runtime_run(20);
	after = lca_migrations_get(log, RTE_DIM(log));
	r = lca_actor_state(rec);
	assert_int_equal(r->got, N_MSGS);
	assert_int_equal(r->out_of_order, 0);
	assert_int_equal(mv->moves, 2);
	assert_int_equal(after, before + 2);
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

static uint64_t got;

static void
count_handler(lca_actor_id_t self, void *st, struct lca_msg *msg)
{
	(void)self;
	(void)st;
	(void)msg;
	got++;
}

/* The application stops lcactor's service: the watch says so, the run
 * still ends at its time, and the message waiting on the service lcore is
 * delivered once the service runs again. Then the service run from the
 * wrong lcore is refused and counted. */
static void
test_stopped_service_is_noticed(void **state)
{
	lca_actor_id_t a = lca_test_spawn(count_handler, 0, SVC, 0, 1);
	uint64_t stalls = lca_lcore_stalls(SVC), refused = lca_runtime_service_refusals();
	struct lca_test_cpu cpu;
	uint32_t id;

	(void)state;
	lca_test_cpu_start(&cpu);
	got = 0;
	assert_int_equal(lca_runtime_service_id(SVC, &id), 0);
	assert_int_equal(rte_service_runstate_set(id, 0), 0);
	assert_int_equal(lca_lcore_stall_limit_set(50), 0);
	assert_int_equal(lca_send(a, lca_test_msg()), 0);
	assert_int_equal(lca_test_runtime_run(300), -ETIMEDOUT);
	/* One stall, its own: a polling lcore descheduled past 50 ms on a busy
	 * machine is one more, not the code's. */
	lca_test_check_timed(&cpu, lca_lcore_stalls(SVC) == stalls + 1);
	assert_int_equal(got, 0);
	assert_int_equal(rte_service_runstate_set(id, 1), 0);
	assert_int_equal(lca_lcore_stall_limit_set(1000), 0);
	assert_int_equal(lca_test_runtime_run(300), -ETIMEDOUT);
	lca_test_check_timed(&cpu, got == 1);
	/* lcore 1's service on lcore 0: its actors are not lcore 0's. */
	assert_int_equal(rte_service_map_lcore_set(id, SVC, 0), 0);
	assert_int_equal(rte_service_set_runstate_mapped_check(id, 0), 0);
	assert_int_equal(rte_service_run_iter_on_app_lcore(id, 1), 0);
	assert_int_equal(lca_runtime_service_refusals(), refused + 1);
}

/* SIGINT ends a run with a service lcore. Last: the signal stays. */
static void
test_signal(void **state)
{
	pthread_t th;

	(void)state;
	assert_int_equal(lca_test_interrupt_in(&th, 200), 0);
	assert_int_equal(lca_test_runtime_run(30000), -EINTR);
	assert_int_equal(pthread_join(th, NULL), 0);
}

int
main(void)
{
	static const char *const extra[] = { "-s", "0x2" };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_services_are_registered, setup,
						lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_order_and_counts_own_loop, setup,
						lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_order_and_counts_guest, setup,
						lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_timer_on_the_service_lcore, setup,
						lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_ask_timeout_on_the_service_lcore, setup,
						lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_migration_onto_the_service_lcore, setup,
						lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_stopped_service_is_noticed, setup,
						lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_signal, setup, lca_test_teardown),
	};
	int failed;

	lca_test_eal_init_args("lca_test_service", extra, RTE_DIM(extra));
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	lca_eal_cleanup();
	return lca_test_status(failed);
}
