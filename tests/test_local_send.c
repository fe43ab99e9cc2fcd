/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The light local send (actors/lca_send.c, send_local_light()): a single
 * send from a handler to an actor of its own lcore. An idle receiver gets
 * the envelope in its `first`, ahead of its mailbox; a busy one in its
 * mailbox. What must hold whichever way a message went: order, the
 * mailbox's exact capacity, a backlog that counts it, and a stop that
 * drops (and counts) it with the rest.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lca_actor.h"
#include "lca_mempool.h"
#include "lca_test.h"

#define RECEIVER_MAILBOX 8

/* What the sending actor does with its one "go" message, and saw. */
struct sender {
	lca_actor_id_t to;
	unsigned int sends;   /* numbered 0.. to `to` */
	bool stop_after;      /* then stop `to` (same lcore: it is idle) */
	int results[2 * RECEIVER_MAILBOX];
	int backlog;          /* lca_actor_backlog(to) after the sends */
};

static void
sender_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct sender *s = state;

	(void)self;
	lca_msg_free(msg);
	for (unsigned int i = 0; i < s->sends; i++) {
		struct lca_msg *m = lca_test_seq_msg(0, i);

		s->results[i] = lca_send(s->to, m);
		if (s->results[i] != 0)
			lca_msg_free(m);
	}
	s->backlog = lca_actor_backlog(s->to);
	if (s->stop_after)
		assert_int_equal(lca_actor_stop(s->to), 0);
	lca_runtime_stop();
}

/* A receiver and a sender on lcore 0, the sender told to send @p sends. */
static struct sender *
pair_up(unsigned int sends, bool stop_after, lca_actor_id_t *receiver, lca_actor_id_t *sender)
{
	struct sender *s;

	*receiver = lca_test_spawn(lca_test_recorder_handler, sizeof(struct lca_test_recorder), 0,
				   RECEIVER_MAILBOX, 4);
	*sender = lca_test_spawn(sender_handler, sizeof(struct sender), 0, 0, 1);
	s = lca_actor_state(*sender);
	s->to = *receiver;
	s->sends = sends;
	s->stop_after = stop_after;
	return s;
}

/* The first send finds the receiver idle, the rest busy: all in order,
 * the backlog counts every one, and the mailbox refuses at its size. */
static void
test_order_backlog_and_capacity(void **state)
{
	const unsigned int sends = RECEIVER_MAILBOX + 3;
	lca_actor_id_t receiver, sender;
	struct sender *s = pair_up(sends, false, &receiver, &sender);
	struct lca_test_recorder *r = lca_actor_state(receiver);
	struct lca_actor_stats st;

	(void)state;
	r->expect = RECEIVER_MAILBOX;
	assert_int_equal(lca_send(sender, lca_test_msg()), 0);
	/* The sender's stop may end the run before the receiver's turns. */
	assert_true(lca_test_run(20));
	if (r->got < RECEIVER_MAILBOX)
		assert_true(lca_test_run(20));
	for (unsigned int i = 0; i < sends; i++)
		assert_int_equal(s->results[i], i < RECEIVER_MAILBOX ? 0 : -ENOBUFS);
	assert_int_equal(s->backlog, RECEIVER_MAILBOX);
	assert_int_equal(r->got, RECEIVER_MAILBOX);
	assert_int_equal(r->out_of_order, 0);
	assert_int_equal(lca_actor_stats_get(receiver, &st), 0);
	assert_int_equal(st.rejected, sends - RECEIVER_MAILBOX);
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

/* A stop while the receiver's first message still waits for its turn:
 * that one is dropped and counted with the mailbox's. */
static void
test_stop_drops_the_waiting_first(void **state)
{
	lca_actor_id_t receiver, sender;
	struct lca_actor_stats st;

	(void)state;
	pair_up(3, true, &receiver, &sender);
	assert_int_equal(lca_send(sender, lca_test_msg()), 0);
	assert_true(lca_test_run(20));
	/* Its turn drains it: one more run lets it come. */
	lca_test_runtime_run(50);
	assert_int_equal(lca_actor_stats_get(receiver, &st), 0);
	assert_int_equal(st.handled, 0);
	assert_int_equal(st.dropped_on_stop, 3);
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_order_backlog_and_capacity, lca_test_setup,
						lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_stop_drops_the_waiting_first, lca_test_setup,
						lca_test_teardown),
	};

	lca_test_eal_init("test_local_send");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
