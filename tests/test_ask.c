/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ask with a timeout: a reply in time reaches the asker with its request
 * id and cancels the timer; no reply brings an LCA_TYPE_TIMEOUT with the
 * id on the control lane; a reply after that is dropped before the
 * handler and counted; a target known dead is an immediate error with
 * nothing left waiting, and one that stops with the ask in its mailbox
 * leaves the asker its timeout; the pending table is bounded (-ENOSPC),
 * by LCA_ASK_PENDING_MAX or by what lca_ask_pending_max_set() gave; a
 * cancelled ask brings nothing to the handler.
 * No check depends on how long anything took: timeouts that must not
 * fire are a minute long, those that must are waited for.
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
#include "lca_timer.h"

#define T_QUESTION 1
#define T_ANSWER 2
#define T_RELEASE 3
#define NEVER_US (60ull * 1000 * 1000) /* a timeout no run reaches */
#define SOON_US 1000

/* What the asker saw. */
struct asker {
	uint32_t replies;
	uint32_t timeouts;
	uint64_t reply_id;
	uint32_t reply_value;
	uint8_t reply_flags;
	struct lca_timeout timeout;
	uint64_t timeout_id;
	uint8_t timeout_flags;
	uint32_t other;
};

static void
asker_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct asker *s = state;

	(void)self;
	if (msg->type == LCA_TYPE_TIMEOUT) {
		s->timeouts++;
		memcpy(&s->timeout, msg->data, sizeof(s->timeout));
		s->timeout_id = lca_msg_req_id(msg);
		s->timeout_flags = msg->flags;
	} else if (msg->type == T_ANSWER) {
		s->replies++;
		s->reply_id = lca_msg_req_id(msg);
		memcpy(&s->reply_value, msg->data, sizeof(s->reply_value));
		s->reply_flags = msg->flags;
	} else {
		s->other++;
	}
}

/* Answers with the request's own envelope: the value plus one. */
static void
echo_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	uint32_t v;

	(void)self;
	(void)state;
	memcpy(&v, msg->data, sizeof(v));
	v++;
	memcpy(msg->data, &v, sizeof(v));
	msg->type = T_ANSWER;
	assert_int_equal(lca_reply(msg), 0);
}

/* Answers with a new envelope: the value times ten. */
static void
fresh_echo_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct lca_msg *r = lca_test_msg();
	uint32_t v;

	(void)self;
	(void)state;
	memcpy(&v, msg->data, sizeof(v));
	v *= 10;
	r->type = T_ANSWER;
	r->len = sizeof(v);
	memcpy(r->data, &v, sizeof(v));
	assert_int_equal(lca_ask_reply(msg, r), 0);
}

/* Keeps the question; answers it when told to (T_RELEASE). */
struct holder {
	struct lca_msg *kept;
};

static void
holder_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct holder *h = state;

	(void)self;
	if (msg->type == T_QUESTION && h->kept == NULL) {
		lca_msg_keep(msg);
		h->kept = msg;
	} else if (msg->type == T_RELEASE && h->kept != NULL) {
		h->kept->type = T_ANSWER;
		assert_int_equal(lca_reply(h->kept), 0);
		h->kept = NULL;
	}
}

/* Drops every question unanswered. */
static void
sink_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	(void)self;
	(void)state;
	(void)msg;
}

static struct lca_msg *
question(uint32_t value)
{
	struct lca_msg *m = lca_test_msg();

	m->type = T_QUESTION;
	m->len = sizeof(value);
	memcpy(m->data, &value, sizeof(value));
	return m;
}

static lca_actor_id_t asker_id;

static bool
asker_replied(void *arg)
{
	(void)arg;
	return ((struct asker *)lca_actor_state(asker_id))->replies > 0;
}

static bool
asker_timed_out(void *arg)
{
	const struct asker *s = lca_actor_state(asker_id);

	return s->timeouts >= (uintptr_t)arg;
}

static bool
late_counted(void *arg)
{
	struct lca_ask_stats st;

	lca_ask_stats_get(&st);
	return st.late >= (uintptr_t)arg;
}

/* Nothing waits and no timer is left armed. */
static void
assert_nothing_waits(void)
{
	struct lca_ask_stats st;
	struct lca_timer_stats ts;

	lca_ask_stats_get(&st);
	lca_timer_stats_get(&ts);
	assert_int_equal(st.pending, 0);
	assert_int_equal(ts.active, 0);
}

static void
reply_in_time(lca_handler_fn target_handler, uint32_t expect)
{
	lca_actor_id_t target = lca_test_spawn(target_handler, 0, 0, 0, 0);
	struct lca_ask_stats st;
	struct asker *s;
	uint64_t id = 0;

	asker_id = lca_test_spawn(asker_handler, sizeof(struct asker), 1, 0, 0);
	assert_int_equal(lca_ask(asker_id, target, question(41), NEVER_US, &id), 0);
	assert_true(id != 0);
	assert_true(lca_test_run_until(asker_replied, NULL, 30));
	s = lca_actor_state(asker_id);
	assert_int_equal(s->replies, 1);
	assert_int_equal(s->timeouts, 0);
	assert_true(s->reply_id == id);
	assert_true(s->reply_flags & LCA_MSG_F_REPLY);
	assert_int_equal(s->reply_value, expect);
	lca_ask_stats_get(&st);
	assert_int_equal(st.asked, 1);
	assert_int_equal(st.replied, 1);
	assert_int_equal(st.timed_out, 0);
	assert_int_equal(st.late, 0);
	/* The minute-long timer was cancelled, its notice freed. */
	assert_nothing_waits();
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

static void
test_reply_in_time(void **state)
{
	(void)state;
	reply_in_time(echo_handler, 42);
}

static void
test_reply_in_a_new_envelope(void **state)
{
	(void)state;
	reply_in_time(fresh_echo_handler, 410);
}

static void
test_timeout(void **state)
{
	lca_actor_id_t target = lca_test_spawn(holder_handler, sizeof(struct holder), 0, 0, 0);
	struct lca_ask_stats st;
	struct holder *h;
	struct asker *s;
	uint64_t id = 0;

	(void)state;
	asker_id = lca_test_spawn(asker_handler, sizeof(struct asker), 1, 0, 0);
	assert_int_equal(lca_ask(asker_id, target, question(7), SOON_US, &id), 0);
	assert_true(lca_test_run_until(asker_timed_out, (void *)1, 30));
	s = lca_actor_state(asker_id);
	assert_int_equal(s->timeouts, 1);
	assert_int_equal(s->replies, 0);
	assert_true(s->timeout_id == id);
	assert_true(s->timeout.req_id == id);
	assert_int_equal(s->timeout.target, target);
	assert_int_equal(s->timeout.msg_type, T_QUESTION);
	/* It carries the question's first bytes: the value asked. */
	assert_int_equal(s->timeout.head[0], 7);
	/* It came on the control lane. */
	assert_true(s->timeout_flags & LCA_MSG_F_CONTROL);
	lca_ask_stats_get(&st);
	assert_int_equal(st.timed_out, 1);
	assert_int_equal(st.replied, 0);
	assert_nothing_waits();
	h = lca_actor_state(target);
	assert_non_null(h->kept);
	lca_msg_free(h->kept);
	h->kept = NULL;
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

static void
test_late_reply_dropped_and_counted(void **state)
{
	lca_actor_id_t target = lca_test_spawn(holder_handler, sizeof(struct holder), 0, 0, 0);
	struct lca_msg *release = lca_test_msg();
	struct lca_ask_stats st;
	struct asker *s;

	(void)state;
	asker_id = lca_test_spawn(asker_handler, sizeof(struct asker), 1, 0, 0);
	assert_int_equal(lca_ask(asker_id, target, question(7), SOON_US, NULL), 0);
	assert_true(lca_test_run_until(asker_timed_out, (void *)1, 30));
	/* Now the answer: after its timeout. */
	release->type = T_RELEASE;
	assert_int_equal(lca_send(target, release), 0);
	assert_true(lca_test_run_until(late_counted, (void *)1, 30));
	s = lca_actor_state(asker_id);
	assert_int_equal(s->replies, 0);
	assert_int_equal(s->other, 0);
	assert_int_equal(s->timeouts, 1);
	lca_ask_stats_get(&st);
	assert_int_equal(st.late, 1);
	assert_int_equal(st.timed_out, 1);
	assert_int_equal(st.replied, 0);
	assert_nothing_waits();
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

/* A target known dead: the error at once, nothing armed, no notice. */
static void
test_dead_target_is_an_error(void **state)
{
	lca_actor_id_t target = lca_test_spawn(echo_handler, 0, 0, 0, 0);
	struct lca_msg *m = question(1);
	struct lca_ask_stats st;
	struct asker *s;

	(void)state;
	asker_id = lca_test_spawn(asker_handler, sizeof(struct asker), 1, 0, 0);
	assert_int_equal(lca_actor_stop(target), 0);
	assert_int_equal(lca_ask(asker_id, target, m, SOON_US, NULL), -EPIPE);
	assert_int_equal(lca_ask(asker_id, 1000, m, SOON_US, NULL), -ESRCH);
	/* The message is still the caller's, unmarked. */
	assert_int_equal(m->flags & LCA_MSG_F_ASK, 0);
	assert_int_equal(lca_msg_req_id(m), 0);
	lca_msg_free(m);
	assert_nothing_waits();
	lca_ask_stats_get(&st);
	assert_int_equal(st.asked, 0);
	lca_test_run(1);
	s = lca_actor_state(asker_id);
	assert_int_equal(s->timeouts, 0);
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

/* A target that stops with the ask in its mailbox: the asker times out. */
static void
test_target_stopping_after_the_ask_times_out(void **state)
{
	lca_actor_id_t target = lca_test_spawn(echo_handler, 0, 0, 0, 0);
	struct lca_actor_stats ts;
	uint64_t id = 0;

	(void)state;
	asker_id = lca_test_spawn(asker_handler, sizeof(struct asker), 1, 0, 0);
	assert_int_equal(lca_ask(asker_id, target, question(1), SOON_US, &id), 0);
	assert_int_equal(lca_actor_stop(target), 0);
	assert_int_equal(lca_actor_stats_get(target, &ts), 0);
	assert_int_equal(ts.dropped_on_stop, 1);
	assert_true(lca_test_run_until(asker_timed_out, (void *)1, 30));
	assert_true(((struct asker *)lca_actor_state(asker_id))->timeout_id == id);
	assert_int_equal(((struct asker *)lca_actor_state(asker_id))->replies, 0);
	assert_nothing_waits();
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

/* LCA_ASK_PENDING_MAX asks wait at most; the slots come back. */
static void
test_pending_is_bounded(void **state)
{
	lca_actor_id_t target = lca_test_spawn(sink_handler, 0, 0, 0, 0);
	struct lca_msg *m = question(0);
	struct lca_ask_stats st;

	(void)state;
	asker_id = lca_test_spawn(asker_handler, sizeof(struct asker), 1, 0, 0);
	for (unsigned int i = 0; i < LCA_ASK_PENDING_MAX; i++)
		assert_int_equal(lca_ask(asker_id, target, question(i), SOON_US, NULL), 0);
	assert_int_equal(lca_ask(asker_id, target, m, SOON_US, NULL), -ENOSPC);
	lca_ask_stats_get(&st);
	assert_int_equal(st.full, 1);
	assert_int_equal(st.pending, LCA_ASK_PENDING_MAX);
	assert_true(lca_test_run_until(asker_timed_out, (void *)LCA_ASK_PENDING_MAX, 30));
	assert_nothing_waits();
	assert_int_equal(lca_ask(asker_id, target, m, SOON_US, NULL), 0);
	assert_true(lca_test_run_until(asker_timed_out, (void *)(LCA_ASK_PENDING_MAX + 1), 30));
	assert_nothing_waits();
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

/* lca_ask_pending_max_set(): more than LCA_ASK_PENDING_MAX wait at once,
 * each with its own id; the bound is the power of two asked for. */
static void
test_pending_max_set(void **state)
{
	lca_actor_id_t target = lca_test_spawn(sink_handler, 0, 0, 0, 0);
	uint64_t ids[512];
	struct lca_msg *m = question(0);
	struct lca_ask_stats st;

	(void)state;
	asker_id = lca_test_spawn(asker_handler, sizeof(struct asker), 1, 0, 0);
	assert_int_equal(lca_ask_pending_max_set(asker_id, 0), -EINVAL);
	assert_int_equal(lca_ask_pending_max_set(asker_id, LCA_ASK_PENDING_LIMIT + 1), -EINVAL);
	assert_int_equal(lca_ask_pending_max_set(1000, 300), -ESRCH);
	assert_int_equal(lca_ask_pending_max_set(asker_id, 300), 0);
	/* Again with the same size: nothing changes; another size: too late. */
	assert_int_equal(lca_ask_pending_max_set(asker_id, 512), 0);
	assert_int_equal(lca_ask_pending_max_set(asker_id, 64), -EBUSY);
	for (unsigned int i = 0; i < RTE_DIM(ids); i++) {
		assert_int_equal(lca_ask(asker_id, target, question(i), SOON_US, &ids[i]), 0);
		for (unsigned int j = 0; j < i; j++)
			assert_true(ids[j] != ids[i]);
	}
	assert_int_equal(lca_ask(asker_id, target, m, SOON_US, NULL), -ENOSPC);
	lca_ask_stats_get(&st);
	assert_int_equal(st.full, 1);
	assert_int_equal(st.pending, RTE_DIM(ids));
	assert_true(lca_test_run_until(asker_timed_out, (void *)RTE_DIM(ids), 30));
	assert_int_equal(((struct asker *)lca_actor_state(asker_id))->timeouts, RTE_DIM(ids));
	assert_nothing_waits();
	/* Every slot came back. */
	for (unsigned int i = 0; i < RTE_DIM(ids); i++)
		assert_int_equal(lca_ask(asker_id, target, question(i), SOON_US, NULL), 0);
	assert_true(lca_test_run_until(asker_timed_out, (void *)(2 * RTE_DIM(ids)), 30));
	assert_nothing_waits();
	lca_msg_free(m);
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

/* A cancelled ask: no reply and no timeout reach the asker; the reply
 * that comes anyway is dropped and counted late. */
static void
test_cancel(void **state)
{
	lca_actor_id_t target = lca_test_spawn(holder_handler, sizeof(struct holder), 0, 0, 0);
	lca_actor_id_t other = lca_test_spawn(sink_handler, 0, 0, 0, 0);
	struct lca_msg *release = lca_test_msg();
	struct lca_ask_stats st;
	struct asker *s;
	uint64_t id = 0;

	(void)state;
	asker_id = lca_test_spawn(asker_handler, sizeof(struct asker), 1, 0, 0);
	assert_int_equal(lca_ask(asker_id, target, question(7), NEVER_US, &id), 0);
	lca_test_run(1); /* the target keeps the question */
	assert_int_equal(lca_ask_cancel(other, id), -EINVAL);
	assert_int_equal(lca_ask_cancel(asker_id, 0), -EINVAL);
	assert_int_equal(lca_ask_cancel(asker_id, id), 0);
	assert_int_equal(lca_ask_cancel(asker_id, id), -ENOENT);
	/* The minute-long timer went with it. */
	assert_nothing_waits();
	release->type = T_RELEASE;
	assert_int_equal(lca_send(target, release), 0);
	assert_true(lca_test_run_until(late_counted, (void *)1, 30));
	s = lca_actor_state(asker_id);
	assert_int_equal(s->replies, 0);
	assert_int_equal(s->timeouts, 0);
	assert_int_equal(s->other, 0);
	lca_ask_stats_get(&st);
	assert_int_equal(st.asked, 1);
	assert_int_equal(st.cancelled, 1);
	assert_int_equal(st.late, 1);
	assert_int_equal(st.replied, 0);
	assert_int_equal(st.timed_out, 0);
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

static void
test_bad_asks(void **state)
{
	lca_actor_id_t target = lca_test_spawn(echo_handler, 0, 0, 0, 0);
	struct lca_msg *m = question(0);

	(void)state;
	asker_id = lca_test_spawn(asker_handler, sizeof(struct asker), 1, 0, 0);
	assert_int_equal(lca_ask(asker_id, target, NULL, SOON_US, NULL), -EINVAL);
	assert_int_equal(lca_ask(asker_id, target, m, 0, NULL), -EINVAL);
	assert_int_equal(lca_ask(LCA_ACTOR_NONE, target, m, SOON_US, NULL), -EINVAL);
	/* A remote reference with no remote part started: the send's error,
	 * and the ask undone (asks across nodes: test_remote_eth.c, test_remote_ucx.c). */
	assert_int_equal(lca_ask(asker_id, LCA_ACTOR_REMOTE_BASE, m, SOON_US, NULL), -ESRCH);
	assert_int_equal(m->flags & LCA_MSG_F_ASK, 0);
	m->len = LCA_MSG_INLINE_ASK + 1;
	assert_int_equal(lca_ask(asker_id, target, m, SOON_US, NULL), -EMSGSIZE);
	/* Not an ask: nothing to answer. */
	assert_int_equal(lca_ask_reply(m, m), -EINVAL);
	assert_int_equal(lca_msg_req_id(NULL), 0);
	lca_msg_free(m);
	assert_nothing_waits();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reply_in_time, lca_test_setup,
						lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_reply_in_a_new_envelope, lca_test_setup,
						lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_timeout, lca_test_setup, lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_late_reply_dropped_and_counted, lca_test_setup,
						lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_dead_target_is_an_error, lca_test_setup,
						lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_target_stopping_after_the_ask_times_out,
						lca_test_setup, lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_pending_is_bounded, lca_test_setup,
						lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_pending_max_set, lca_test_setup,
						lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_cancel, lca_test_setup, lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_bad_asks, lca_test_setup, lca_test_teardown),
	};
	int failed;

	lca_test_eal_init("lca_test_ask_h-ask");
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	lca_eal_cleanup();
	return lca_test_status(failed);
}
