/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Supervision: resume, restart within a limit (state re-initialised,
 * mailbox kept, the failing message counted and dropped, nothing else
 * lost), a backoff that doubles, stop past the limit; the supervisor's
 * notices and the watchers' "terminated" messages.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_mempool.h"
#include "lca_test.h"

#define T_WORK 1
#define T_FAIL 2
#define FRESH 0x5eed

/* --- a worker that fails on T_FAIL -------------------------------------- */

struct worker {
	uint32_t fresh;    /* FRESH after state_init */
	uint32_t since;    /* messages since its state was made */
	uint32_t seq_next; /* the next number it expects */
	uint32_t gaps;     /* numbers skipped: messages lost */
};

/* Work done by all workers, across restarts. */
static uint32_t worked;

static void
worker_init(void *state, void *arg)
{
	(void)arg;
	((struct worker *)state)->fresh = FRESH;
}

static void
worker_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct worker *w = state;
	uint32_t seq = *(uint32_t *)msg->data;

	(void)self;
	assert_int_equal(w->fresh, FRESH);
	if (seq != w->seq_next && w->since > 0)
		w->gaps++;
	w->seq_next = seq + 1;
	w->since++;
	if (msg->type == T_FAIL)
		assert_int_equal(lca_actor_fail(-EIO), 0);
	else
		worked++;
}

/* --- a supervisor that logs its notices --------------------------------- */

#define LOG_MAX 32

struct sup_log {
	uint32_t n;
	uint32_t stop_at; /* stops the loops at this many notices */
	uint32_t type[LOG_MAX];
	struct lca_failure f[LOG_MAX];
	struct lca_terminated t[LOG_MAX];
	uint8_t flags[LOG_MAX];
};

static void
sup_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct sup_log *l = state;

	(void)self;
	if (l->n < LOG_MAX) {
		l->type[l->n] = msg->type;
		l->flags[l->n] = msg->flags;
		if (msg->type == LCA_TYPE_FAILED)
			memcpy(&l->f[l->n], msg->data, sizeof(l->f[0]));
		if (msg->type == LCA_TYPE_TERMINATED)
			memcpy(&l->t[l->n], msg->data, sizeof(l->t[0]));
	}
	if (++l->n == l->stop_at)
		lca_runtime_stop();
}

static lca_actor_id_t
spawn_sup(unsigned int lcore, uint32_t stop_at)
{
	lca_actor_id_t id = lca_test_spawn(sup_handler, sizeof(struct sup_log), lcore, 0, 8);

	((struct sup_log *)lca_actor_state(id))->stop_at = stop_at;
	return id;
}

static lca_actor_id_t
spawn_worker(unsigned int lcore, const struct lca_supervision *sup)
{
	struct lca_actor_spec spec = {
		.handler = worker_handler, .state_size = sizeof(struct worker),
		.state_init = worker_init, .lcore = lcore, .mailbox_size = 256,
		.throughput = 1, .supervision = sup,
	};
	lca_actor_id_t id;

	assert_int_equal(lca_actor_spawn(&spec, &id), 0);
	return id;
}

/* Messages 0..n-1 to @p to; those in @p fail_every fail (0: none). */
static void
send_work(lca_actor_id_t to, uint32_t n, uint32_t fail_every)
{
	for (uint32_t i = 0; i < n; i++) {
		struct lca_msg *m = lca_test_msg();

		m->type = fail_every != 0 && i % fail_every == fail_every - 1 ? T_FAIL : T_WORK;
		*(uint32_t *)m->data = i;
		m->len = sizeof(uint32_t);
		assert_int_equal(lca_send(to, m), 0);
	}
}

static void
test_resume_keeps_state_and_drops_the_failing_message(void **state)
{
	lca_actor_id_t sup = spawn_sup(0, 10);
	struct lca_supervision s = { .supervisor = sup, .strategy = LCA_SUPERVISE_RESUME };
	lca_actor_id_t w = spawn_worker(1, &s);
	struct sup_log *l = lca_actor_state(sup);
	struct lca_actor_stats st;

	(void)state;
	worked = 0;
	send_work(w, 30, 3);
	assert_true(lca_test_run(20));
	assert_int_equal(l->n, 10);
	for (unsigned int i = 0; i < 10; i++) {
		assert_int_equal(l->type[i], LCA_TYPE_FAILED);
		assert_true(l->flags[i] & LCA_MSG_F_CONTROL);
		assert_int_equal(l->f[i].actor, w);
		assert_int_equal(l->f[i].reason, -EIO);
		assert_int_equal(l->f[i].msg_type, T_FAIL);
		assert_int_equal(l->f[i].action, LCA_SUPERVISE_RESUME);
	}
	assert_int_equal(lca_actor_stats_get(w, &st), 0);
	assert_int_equal(st.failures, 10);
	assert_int_equal(st.failed_msgs, 10);
	assert_int_equal(st.restarts, 0);
	assert_int_equal(st.handled, 30);
	assert_int_equal(worked, 20);
	assert_int_equal(((struct worker *)lca_actor_state(w))->since, 30); /* never reset */
	assert_int_equal(((struct worker *)lca_actor_state(w))->gaps, 0);
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

/* A restart makes the state anew and keeps the mailbox: every message but
 * the failing ones is worked on. */
static void
test_restart_reinitialises_state_and_keeps_the_mailbox(void **state)
{
	lca_actor_id_t sup = spawn_sup(0, 3);
	struct lca_supervision s = {
		.supervisor = sup, .strategy = LCA_SUPERVISE_RESTART, .max_restarts = 5,
		.within_ms = 60000,
	};
	lca_actor_id_t w = spawn_worker(1, &s);
	struct sup_log *l = lca_actor_state(sup);
	struct lca_actor_stats st;

	(void)state;
	worked = 0;
	send_work(w, 30, 10); /* 9, 19, 29 fail */
	assert_true(lca_test_run(20));
	assert_int_equal(lca_actor_stats_get(w, &st), 0);
	assert_int_equal(st.failures, 3);
	assert_int_equal(st.restarts, 3);
	assert_int_equal(st.failed_msgs, 3);
	assert_int_equal(worked, 27);
	/* The last failure was the last message: a fresh state since. */
	assert_int_equal(((struct worker *)lca_actor_state(w))->since, 0);
	assert_int_equal(((struct worker *)lca_actor_state(w))->fresh, FRESH);
	for (unsigned int i = 0; i < 3; i++) {
		assert_int_equal(l->f[i].action, LCA_SUPERVISE_RESTART);
		assert_int_equal(l->f[i].restarts, i + 1);
		assert_int_equal(l->f[i].backoff_us, 0);
	}
	assert_true(lca_actor_alive(w));
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

static bool
log_has(void *arg)
{
	const struct sup_log *l = arg;

	return l->n >= l->stop_at;
}

/* Past max_restarts within the window it stops; the supervisor is told
 * STOP, a watcher gets "terminated" by supervision; the backoff doubled
 * from restart to restart, and the paused actor lost nothing meanwhile. */
static void
test_restart_limit_backoff_then_stop(void **state)
{
	lca_actor_id_t sup = spawn_sup(0, 0);
	struct lca_supervision s = {
		.supervisor = sup, .strategy = LCA_SUPERVISE_RESTART, .max_restarts = 3,
		.within_ms = 60000, .backoff_min_us = 1000, .backoff_max_us = 3000,
	};
	lca_actor_id_t w = spawn_worker(1, &s);
	lca_actor_id_t watcher = spawn_sup(0, 0);
	struct sup_log *l = lca_actor_state(sup), *wl = lca_actor_state(watcher);
	struct lca_actor_stats st;

	(void)state;
	worked = 0;
	assert_int_equal(lca_actor_watch(watcher, w), 0);
	assert_int_equal(lca_actor_watch(watcher, w), -EALREADY);
	l->stop_at = 4;
	send_work(w, 40, 5); /* 4, 9, 14, 19 fail: the 4th is past the limit */
	assert_true(lca_test_run_until(log_has, l, 30));
	wl->stop_at = 1;
	assert_true(lca_test_run_until(log_has, wl, 30));

	assert_int_equal(l->f[0].backoff_us, 1000);
	assert_int_equal(l->f[1].backoff_us, 2000);
	assert_int_equal(l->f[2].backoff_us, 3000); /* capped */
	for (unsigned int i = 0; i < 3; i++)
		assert_int_equal(l->f[i].action, LCA_SUPERVISE_RESTART);
	assert_int_equal(l->f[3].action, LCA_SUPERVISE_STOP);
	assert_int_equal(wl->type[0], LCA_TYPE_TERMINATED);
	assert_int_equal(wl->t[0].actor, w);
	assert_int_equal(wl->t[0].by_supervision, 1);
	assert_false(lca_actor_alive(w));
	assert_int_equal(lca_actor_stats_get(w, &st), 0);
	assert_int_equal(st.failures, 4);
	assert_int_equal(st.restarts, 3);
	/* 0..19 handled (16 worked, 4 failed); 20..39 dropped at the stop. */
	assert_int_equal(worked, 16);
	assert_int_equal(st.handled, 20);
	assert_int_equal(st.dropped_on_stop, 20);
	/* Watching what has stopped: told at once. */
	assert_int_equal(lca_actor_watch(sup, w), 0);
	l->stop_at = 5;
	assert_true(lca_test_run_until(log_has, l, 30));
	assert_int_equal(l->type[4], LCA_TYPE_TERMINATED);
	assert_int_equal(l->t[4].actor, w);
	assert_int_equal(lca_actor_watch(watcher, watcher + 100), -ESRCH);
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

static void
test_stop_strategy_and_misuse(void **state)
{
	lca_actor_id_t sup = spawn_sup(0, 1);
	struct lca_supervision s = { .supervisor = sup, .strategy = LCA_SUPERVISE_STOP };
	struct lca_supervision bad = { .supervisor = LCA_ACTOR_NONE, .strategy = 9 };
	struct lca_actor_spec spec = { .handler = worker_handler, .supervision = &bad };
	lca_actor_id_t w = spawn_worker(1, &s), id;
	struct sup_log *l = lca_actor_state(sup);
	struct lca_actor_stats st;

	(void)state;
	assert_int_equal(lca_actor_fail(1), -EPERM); /* not in a handler */
	assert_int_equal(lca_actor_spawn(&spec, &id), -EINVAL);
	worked = 0;
	send_work(w, 10, 2); /* 1 fails: stop */
	assert_true(lca_test_run(20));
	assert_int_equal(l->f[0].action, LCA_SUPERVISE_STOP);
	assert_int_equal(lca_actor_stats_get(w, &st), 0);
	assert_int_equal(st.failures, 1);
	assert_int_equal(worked, 1);
	assert_int_equal(st.dropped_on_stop, 8);
	assert_false(lca_actor_alive(w));
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_resume_keeps_state_and_drops_the_failing_message,
						lca_test_setup, lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_restart_reinitialises_state_and_keeps_the_mailbox,
						lca_test_setup, lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_restart_limit_backoff_then_stop, lca_test_setup,
						lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_stop_strategy_and_misuse, lca_test_setup,
						lca_test_teardown),
	};
	int failed;

	lca_test_eal_init("lca_test_supervise");
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	lca_eal_cleanup();
	return lca_test_status(failed);
}
