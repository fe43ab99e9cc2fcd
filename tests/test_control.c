/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control lane: a control message goes before a full mailbox, wakes an
 * idle actor from another lcore and from a thread that is no lcore, is
 * refused with the same errors as a send when it cannot go, and is freed
 * and counted when its actor stops. Deadlines: a message past its deadline
 * is dropped and counted, never handled, with either kind of handler.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_mempool.h"
#include "lca_test.h"

#define CONTROL_TYPE 77

struct log {
	uint32_t n;
	uint32_t expect;
	uint32_t type[64];
	uint8_t flags[64];
	int lcore[64];
};

static void
log_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct log *l = state;

	(void)self;
	if (l->n < RTE_DIM(l->type)) {
		l->type[l->n] = msg->type;
		l->flags[l->n] = msg->flags;
		l->lcore[l->n] = (int)rte_lcore_id();
	}
	if (++l->n == l->expect)
		lca_runtime_stop();
}

static lca_actor_id_t
spawn_log(unsigned int lcore, unsigned int mailbox, uint32_t expect)
{
	lca_actor_id_t id = lca_test_spawn(log_handler, sizeof(struct log), lcore, mailbox, 4);

	((struct log *)lca_actor_state(id))->expect = expect;
	return id;
}

static struct lca_msg *
typed(uint32_t type)
{
	struct lca_msg *m = lca_test_msg();

	m->type = type;
	return m;
}

/* A full mailbox: the control message is still taken, and handled first. */
static void
test_control_goes_before_a_full_mailbox(void **state)
{
	lca_actor_id_t id = spawn_log(0, 16, 17);
	struct log *l = lca_actor_state(id);
	struct lca_msg *extra = typed(1);

	(void)state;
	for (uint32_t i = 0; i < 16; i++)
		assert_int_equal(lca_send(id, typed(1)), 0);
	assert_int_equal(lca_send(id, extra), -ENOBUFS);
	lca_msg_free(extra);
	assert_int_equal(lca_send_control(id, typed(CONTROL_TYPE)), 0);
	assert_true(lca_test_run(20));
	assert_int_equal(l->n, 17);
	assert_int_equal(l->type[0], CONTROL_TYPE);
	assert_true(l->flags[0] & LCA_MSG_F_CONTROL);
	for (unsigned int i = 1; i < 17; i++) {
		assert_int_equal(l->type[i], 1);
		assert_false(l->flags[i] & LCA_MSG_F_CONTROL);
	}
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

/* An actor on lcore 1 sends a control message to an idle one on lcore 0,
 * which only the CTL_WAKE brings to run. */
static void
poker_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	const lca_actor_id_t *target = state;

	(void)self;
	msg->type = CONTROL_TYPE;
	assert_int_equal(lca_send_control(*target, msg), 0);
}

static void
test_control_wakes_an_idle_actor_from_another_lcore(void **state)
{
	lca_actor_id_t id = spawn_log(0, 0, 1);
	lca_actor_id_t poker = lca_test_spawn(poker_handler, sizeof(lca_actor_id_t), 1, 0, 1);
	struct log *l = lca_actor_state(id);

	(void)state;
	*(lca_actor_id_t *)lca_actor_state(poker) = id;
	assert_int_equal(lca_send(poker, typed(1)), 0);
	assert_true(lca_test_run(20));
	assert_int_equal(l->n, 1);
	assert_int_equal(l->type[0], CONTROL_TYPE);
	assert_int_equal(l->lcore[0], 0);
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

struct thread_arg {
	lca_actor_id_t to;
	uint32_t n;
	int errors;
};

static void *
control_thread(void *arg)
{
	struct thread_arg *t = arg;

	for (uint32_t i = 0; i < t->n; i++) {
		struct lca_msg *m;

		if (lca_msg_alloc(&m) != 0) {
			t->errors++;
			continue;
		}
		m->type = CONTROL_TYPE + i;
		while (lca_send_control(t->to, m) == -ENOBUFS)
			;
	}
	return NULL;
}

static bool
log_full(void *arg)
{
	const struct log *l = arg;

	return l->n == l->expect;
}

/* From a thread that is no lcore, to an actor on lcore 1: all arrive, in
 * the thread's order, on lcore 1. */
static void
test_control_from_a_thread_in_order(void **state)
{
	lca_actor_id_t id = spawn_log(1, 0, 40);
	struct log *l = lca_actor_state(id);
	struct thread_arg t = { .to = id, .n = 40 };
	pthread_t th;

	(void)state;
	assert_int_equal(pthread_create(&th, NULL, control_thread, &t), 0);
	assert_true(lca_test_run_until(log_full, l, 20));
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(t.errors, 0);
	for (unsigned int i = 0; i < 40; i++) {
		assert_int_equal(l->type[i], CONTROL_TYPE + i);
		assert_int_equal(l->lcore[i], 1);
	}
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

/* Refusals are a send's, and a stop frees what waits in the lane. */
static void
test_control_refusals_and_stop(void **state)
{
	lca_actor_id_t id = spawn_log(1, 0, 1000);
	struct lca_actor_stats st;
	struct lca_msg *m;
	unsigned int sent = 0;

	(void)state;
	assert_int_equal(lca_send_control(id, NULL), -EINVAL);
	m = typed(CONTROL_TYPE);
	assert_int_equal(lca_send_control(id + 1, m), -ESRCH);
	while (lca_send_control(id, m) == 0) {
		sent++;
		m = typed(CONTROL_TYPE);
	}
	assert_int_equal(sent, LCA_CONTROL_SIZE);
	assert_int_equal(lca_send_control(id, m), -ENOBUFS);
	assert_int_equal(lca_actor_stats_get(id, &st), 0);
	assert_int_equal(st.rejected, 2);
	assert_int_equal(lca_actor_stop(id), 0);
	assert_int_equal(lca_send_control(id, m), -EPIPE);
	lca_msg_free(m);
	assert_int_equal(lca_actor_stats_get(id, &st), 0);
	assert_int_equal(st.dropped_on_stop, LCA_CONTROL_SIZE);
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

/* --- deadlines ----------------------------------------------------------- */

static uint32_t batch_seen[64];
static uint32_t batch_n;

static void
deadline_batch(lca_actor_id_t self, void *state, struct lca_msg **msgs, unsigned int n)
{
	(void)self;
	(void)state;
	for (unsigned int i = 0; i < n; i++)
		batch_seen[batch_n++] = msgs[i]->type;
	lca_msg_free_bulk(msgs, n);
	if (batch_n == 6)
		lca_runtime_stop();
}

/* Types 0..11: 1, 4, 7, 10 are past their deadline, 2, 5, 8, 11 far from
 * it, the rest have none. */
static void
send_with_deadlines(lca_actor_id_t to)
{
	for (uint32_t i = 0; i < 12; i++) {
		struct lca_msg *m = typed(i);

		if (i % 3 == 1)
			assert_int_equal(lca_msg_set_deadline(m, 1), 0);
		else if (i % 3 == 2)
			assert_int_equal(lca_msg_set_deadline_us(m, 60000000), 0);
		assert_int_equal(lca_send(to, m), 0);
	}
}

static void
test_expired_messages_are_dropped_not_handled(void **state)
{
	lca_actor_id_t one = spawn_log(1, 0, 8);
	struct lca_actor_spec spec = { .batch_handler = deadline_batch, .lcore = 0 };
	struct log *l = lca_actor_state(one);
	struct lca_actor_stats st;
	lca_actor_id_t batch;

	(void)state;
	send_with_deadlines(one);
	assert_true(lca_test_run(20));
	assert_int_equal(l->n, 8);
	for (unsigned int i = 0, want = 0; i < 8; i++, want++) {
		if (want % 3 == 1)
			want++;
		assert_int_equal(l->type[i], want);
	}
	assert_int_equal(lca_actor_stats_get(one, &st), 0);
	assert_int_equal(st.expired, 4);
	assert_int_equal(st.handled, 8);

	/* A batch handler never sees them either. */
	assert_int_equal(lca_actor_spawn(&spec, &batch), 0);
	batch_n = 0;
	for (uint32_t i = 0; i < 9; i++) { /* 0..8: three expire */
		struct lca_msg *m = typed(i);

		if (i % 3 == 1)
			assert_int_equal(lca_msg_set_deadline(m, 1), 0);
		assert_int_equal(lca_send(batch, m), 0);
	}
	assert_true(lca_test_run(20));
	assert_int_equal(batch_n, 6);
	for (unsigned int i = 0; i < 6; i++)
		assert_true(batch_seen[i] % 3 != 1);
	assert_int_equal(lca_actor_stats_get(batch, &st), 0);
	assert_int_equal(st.expired, 3);
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

/* The deadline takes the last 8 inline bytes, never the payload's. */
static void
test_deadline_leaves_the_payload(void **state)
{
	struct lca_msg *m = lca_test_msg();

	(void)state;
	memset(m->data, 0x5a, LCA_MSG_INLINE);
	m->len = LCA_MSG_INLINE_WITH_DEADLINE + 1;
	assert_int_equal(lca_msg_set_deadline(m, rte_rdtsc()), -EMSGSIZE);
	assert_false(m->flags & LCA_MSG_F_DEADLINE);
	m->len = LCA_MSG_INLINE_WITH_DEADLINE;
	assert_int_equal(lca_msg_set_deadline_us(m, 1000), 0);
	assert_true(m->flags & LCA_MSG_F_DEADLINE);
	for (unsigned int i = 0; i < LCA_MSG_INLINE_WITH_DEADLINE; i++)
		assert_int_equal(m->data[i], 0x5a);
	assert_int_equal(lca_msg_set_deadline(NULL, 1), -EINVAL);
	lca_msg_free(m);
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_control_goes_before_a_full_mailbox,
						lca_test_setup, lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_control_wakes_an_idle_actor_from_another_lcore,
						lca_test_setup, lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_control_from_a_thread_in_order, lca_test_setup,
						lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_control_refusals_and_stop, lca_test_setup,
						lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_expired_messages_are_dropped_not_handled,
						lca_test_setup, lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_deadline_leaves_the_payload, lca_test_setup,
						lca_test_teardown),
	};
	int failed;

	lca_test_eal_init("lca_test_control");
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	lca_eal_cleanup();
	return lca_test_status(failed);
}
