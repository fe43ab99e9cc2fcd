/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Moving actors between lcores: under traffic from both lcores every
 * message arrives once and in each sender's order; an actor with a full
 * mailbox moves once it has drained; the planner keeps the load bound and
 * moves nothing when traffic is uniform; --placement auto brings pairs
 * together.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lca_actor.h"
#include "lca_balance_priv.h"
#include "lca_eal.h"
#include "lca_mempool.h"
#include "lca_test.h"

#define POOL 4095

static unsigned int pool_full;

static int
runtime_with(enum lca_placement placement, unsigned int period_ms)
{
	struct lca_runtime_conf c = {
		.msgs_per_node = POOL, .pool_cache = 64, .placement = placement,
		.auto_period_ms = period_ms,
	};

	return lca_test_runtime_up(&c, &pool_full);
}

static int
runtime_up(void **state)
{
	(void)state;
	return runtime_with(LCA_PLACE_ROUND_ROBIN, 0);
}

/* Short periods: many chances to move in the uniform test's 300 ms. */
static int
runtime_auto(void **state)
{
	(void)state;
	return runtime_with(LCA_PLACE_AUTO, 2);
}

/* A move needs MIN_CROSS_SENDS (64) cross-lcore sends from an actor in one
 * period: in 2 ms, 32 k/s. Under ThreadSanitizer, once one pair had come
 * together and kept its lcore busy, the pairs still apart made 11.7 k/s
 * each, and nothing more moved in 30 s (CI, and 1 run in 20 here). In
 * 50 ms, 1.3 k/s is enough. */
static int
runtime_auto_slow(void **state)
{
	(void)state;
	return runtime_with(LCA_PLACE_AUTO, 50);
}

static int
runtime_down(void **state)
{
	(void)state;
	lca_runtime_cleanup();
	return 0;
}

static lca_actor_id_t
spawn(lca_handler_fn handler, size_t size, unsigned int lcore, unsigned int mailbox)
{
	return lca_test_spawn(handler, size, lcore, mailbox, 8);
}

/* --- senders that keep going, and ask for moves on the way -------------- */

struct sender {
	lca_actor_id_t to;
	uint32_t index;
	uint32_t total;
	uint32_t next;
	uint32_t move_every; /* 0: never asks */
	bool move_self;      /* moves itself, not the receiver */
	uint32_t moves_asked;
};

static void
sender_handler(lca_actor_id_t self, void *state, struct lca_msg *poke)
{
	struct sender *s = state;

	for (unsigned int k = 0; k < 8 && s->next < s->total; k++) {
		struct lca_msg *m;

		if (lca_msg_alloc(&m) != 0)
			break;
		*(struct lca_test_seq *)m->data = (struct lca_test_seq){ .sender = s->index, .seq = s->next };
		if (lca_send(s->to, m) != 0) {
			lca_msg_free(m);
			break; /* no room: again on the next poke */
		}
		s->next++;
		if (s->move_every != 0 && s->next % s->move_every == 0) {
			lca_actor_id_t mover = s->move_self ? self : s->to;

			if (lca_actor_migrate(mover, (unsigned int)lca_actor_lcore(mover) ^ 1u) == 0)
				s->moves_asked++;
		}
	}
	if (s->next < s->total)
		lca_send(self, poke);
}

static unsigned int moves_wanted;

static bool
moves_done(void *arg)
{
	(void)arg;
	return lca_migrations_get(NULL, 0) >= moves_wanted;
}

/* Let the @p moves that were asked for finish: they need the loops. */
static void
settle(unsigned int moves)
{
	moves_wanted = moves;
	assert_true(lca_test_run_until(moves_done, NULL, 30));
}

static void
test_move_under_traffic_from_both_lcores(void **state)
{
	lca_actor_id_t rx = spawn(lca_test_recorder_handler, sizeof(struct lca_test_recorder), 0, 64);
	struct lca_test_recorder *r = lca_actor_state(rx);
	lca_actor_id_t tx[2];
	struct lca_actor_stats st;
	uint32_t asked = 0;

	(void)state;
	r->expect = 2 * 20000;
	for (unsigned int i = 0; i < 2; i++) {
		tx[i] = spawn(sender_handler, sizeof(struct sender), i, 0);
		*(struct sender *)lca_actor_state(tx[i]) = (struct sender){
			.to = rx, .index = i, .total = 20000, .move_every = i == 1 ? 1500 : 0,
		};
		assert_int_equal(lca_send(tx[i], lca_test_msg()), 0);
	}
	assert_true(lca_test_run(60));
	asked = ((struct sender *)lca_actor_state(tx[1]))->moves_asked;
	settle(asked);

	assert_int_equal(r->got, 2 * 20000);
	assert_int_equal(r->out_of_order, 0);
	assert_int_equal(r->next[0], 20000);
	assert_int_equal(r->next[1], 20000);
	assert_true(asked >= 1);
	assert_int_equal(lca_migrations_get(NULL, 0), asked);
	/* Each move went to the other lcore: the moves were real. */
	assert_int_equal(lca_actor_lcore(rx), (int)(asked % 2));
	assert_int_equal(lca_actor_stats_get(rx, &st), 0);
	assert_int_equal(st.dropped_on_stop, 0);
	assert_int_equal(lca_mempool_avail(), pool_full);
}

struct thread_sender {
	lca_actor_id_t to;
	uint32_t total;
	uint32_t retries;
};

/* A thread that is not an lcore: its sends go through the home's inbox. */
static void *
thread_sender_main(void *arg)
{
	struct thread_sender *t = arg;

	for (uint32_t seq = 0; seq < t->total;) {
		struct lca_msg *m;

		if (lca_msg_alloc(&m) != 0) {
			t->retries++;
			sched_yield();
			continue;
		}
		*(struct lca_test_seq *)m->data = (struct lca_test_seq){ .sender = 2, .seq = seq };
		if (lca_send(t->to, m) != 0) {
			lca_msg_free(m);
			t->retries++;
			sched_yield();
			continue;
		}
		seq++;
	}
	return NULL;
}

/* Moves while a thread's messages come in through the inbox of whichever
 * lcore is home: they arrive once each and in order, also when the thread
 * is preempted between reading the home and pushing (seen under TSan: one
 * message overtaken, so every later one out of order). */
static void
test_move_keeps_a_threads_order(void **state)
{
	lca_actor_id_t rx = spawn(lca_test_recorder_handler, sizeof(struct lca_test_recorder), 0, 64);
	lca_actor_id_t tx = spawn(sender_handler, sizeof(struct sender), 1, 0);
	struct lca_test_recorder *r = lca_actor_state(rx);
	struct thread_sender t = { .to = rx, .total = 20000 };
	pthread_t th;

	(void)state;
	r->expect = 2 * 20000;
	*(struct sender *)lca_actor_state(tx) = (struct sender){
		.to = rx, .index = 1, .total = 20000, .move_every = 1000,
	};
	assert_int_equal(lca_send(tx, lca_test_msg()), 0);
	assert_int_equal(pthread_create(&th, NULL, thread_sender_main, &t), 0);
	assert_true(lca_test_run(60));
	assert_int_equal(pthread_join(th, NULL), 0);
	settle(((struct sender *)lca_actor_state(tx))->moves_asked);

	assert_int_equal(r->got, 2 * 20000);
	assert_int_equal(r->out_of_order, 0);
	assert_int_equal(r->next[1], 20000);
	assert_int_equal(r->next[2], 20000);
	assert_true(lca_migrations_get(NULL, 0) >= 1);
	assert_int_equal(lca_mempool_avail(), pool_full);
}

struct mover_run {
	struct lca_test_recorder *r;
	struct sender *feeder;
	uint32_t total;
};

static bool
mover_run_done(void *arg)
{
	const struct mover_run *m = arg;

	return m->r->got == m->total && m->feeder->next == m->feeder->total &&
	       lca_mempool_avail() == pool_full;
}

/*
 * The mover's own messages keep their order: what it sent from its old
 * home may still wait in the channel to the receiver's lcore (the
 * receiver's small mailbox holds it back) when it sends again from the new
 * home, which here is the receiver's own lcore. Meanwhile a feeder on the
 * old home floods the mover's small mailbox, so the new home holds
 * messages for the mover that only its run makes room for: the move must
 * not wait on them.
 */
static void
test_move_keeps_the_movers_own_order(void **state)
{
	lca_actor_id_t rx = spawn(lca_test_recorder_handler, sizeof(struct lca_test_recorder), 1, 16);
	lca_actor_id_t mover = spawn(sender_handler, sizeof(struct sender), 0, 16);
	lca_actor_id_t feeder = spawn(sender_handler, sizeof(struct sender), 0, 0);
	struct mover_run run = { .r = lca_actor_state(rx), .feeder = lca_actor_state(feeder),
				 .total = 20000 };
	struct sender *x = lca_actor_state(mover);

	(void)state;
	run.r->expect = UINT64_MAX; /* the run ends on mover_run_done() */
	*x = (struct sender){ .to = rx, .index = 0, .total = run.total, .move_every = 2500,
			      .move_self = true };
	*run.feeder = (struct sender){ .to = mover, .index = 1, .total = 5000 };
	assert_int_equal(lca_send(mover, lca_test_msg()), 0);
	assert_int_equal(lca_send(feeder, lca_test_msg()), 0);
	assert_true(lca_test_run_until(mover_run_done, &run, 60));
	settle(x->moves_asked);

	assert_int_equal(run.r->got, run.total);
	assert_int_equal(run.r->out_of_order, 0);
	assert_int_equal(run.r->next[0], run.total);
	assert_true(x->moves_asked >= 1);
	assert_int_equal(lca_migrations_get(NULL, 0), x->moves_asked);
	assert_int_equal(lca_mempool_avail(), pool_full);
}

/* A full mailbox when the move is asked for: it moves once drained, and
 * what filled it and what came after arrive in order. */
static void
test_move_with_full_mailbox(void **state)
{
	lca_actor_id_t rx = spawn(lca_test_recorder_handler, sizeof(struct lca_test_recorder), 0, 16);
	struct lca_test_recorder *r = lca_actor_state(rx);
	lca_actor_id_t tx = spawn(sender_handler, sizeof(struct sender), 1, 0);
	struct lca_migration log[4];
	struct lca_msg *extra;

	(void)state;
	r->expect = 16 + 5000;
	/* Between runs the main lcore is rx's home: straight into its mailbox. */
	for (uint32_t i = 0; i < 16; i++) {
		struct lca_msg *m = lca_test_msg();

		*(struct lca_test_seq *)m->data = (struct lca_test_seq){ .sender = 2, .seq = i };
		assert_int_equal(lca_send(rx, m), 0);
	}
	extra = lca_test_msg();
	assert_int_equal(lca_send(rx, extra), -ENOBUFS); /* full: still ours */
	lca_msg_free(extra);
	assert_int_equal(lca_actor_migrate(rx, 1), 0);
	assert_int_equal(lca_actor_migrate(rx, 1), -EBUSY);
	*(struct sender *)lca_actor_state(tx) =
		(struct sender){ .to = rx, .index = 1, .total = 5000 };
	assert_int_equal(lca_send(tx, lca_test_msg()), 0);
	assert_true(lca_test_run(60));
	settle(1);

	assert_int_equal(r->got, 16 + 5000);
	assert_int_equal(r->out_of_order, 0);
	assert_int_equal(lca_actor_lcore(rx), 1);
	assert_int_equal(lca_migrations_get(log, 4), 1);
	assert_int_equal(log[0].id, rx);
	assert_int_equal(log[0].from, 0);
	assert_int_equal(log[0].to, 1);
	assert_int_equal(log[0].state_on_node_pct, 100);
	assert_int_equal(lca_actor_migrate(rx, 1), -EALREADY);
	assert_int_equal(lca_mempool_avail(), pool_full);
}

static void
test_migrate_rejects_bad_requests(void **state)
{
	struct lca_actor_spec shared = {
		.handler = lca_test_recorder_handler, .lcore = 0, .dispatcher = LCA_DISPATCH_SHARED,
	};
	lca_actor_id_t a = spawn(lca_test_recorder_handler, sizeof(struct lca_test_recorder), 0, 16), s;

	(void)state;
	assert_int_equal(lca_actor_spawn(&shared, &s), 0);
	assert_int_equal(lca_actor_migrate(a + 100, 1), -ESRCH);
	assert_int_equal(lca_actor_migrate(a, RTE_MAX_LCORE), -EINVAL);
	assert_int_equal(lca_actor_migrate(a, 5), -EINVAL); /* not in -l 0-1 */
	assert_int_equal(lca_actor_migrate(s, 1), -EINVAL);
	assert_int_equal(lca_actor_migrate(a, 0), -EALREADY);
	assert_int_equal(lca_actor_stop(a), 0);
	assert_int_equal(lca_actor_migrate(a, 1), -EPIPE);
	/* Pinned: never moved. */
	shared.dispatcher = LCA_DISPATCH_AFFINITY;
	shared.pinned = true;
	assert_int_equal(lca_actor_spawn(&shared, &s), 0);
	assert_int_equal(lca_actor_migrate(s, 1), -EPERM);
	assert_int_equal(lca_actor_lcore(s), 0);
}

/* A pinned peer stays: only the candidate itself may move, and when it
 * does not fit, nothing moves. */
static void
test_plan_never_moves_a_pinned_peer(void **state)
{
	struct balance_cand c = {
		.self = 0, .lcore = 0, .weight = 100, .peer = 1, .peer_lcore = 1,
		.peer_weight = 100, .cross = 500,
	};
	struct balance_move m[2];
	uint64_t load[2] = { 100, 900 };
	uint64_t even[2] = { 500, 500 };

	(void)state;
	/* Unpinned, the peer would come over (the candidate does not fit). */
	assert_int_equal(balance_plan(&c, 1, load, 2, 1.25, m, 2), 1);
	assert_int_equal(m[0].actor, 1);
	load[0] = 100;
	load[1] = 900;
	c.peer_pinned = true;
	assert_int_equal(balance_plan(&c, 1, load, 2, 1.25, m, 2), 0);
	assert_int_equal(load[0], 100);
	/* Where the candidate fits, it goes to its pinned peer. */
	assert_int_equal(balance_plan(&c, 1, even, 2, 1.25, m, 2), 1);
	assert_int_equal(m[0].actor, 0);
	assert_int_equal(m[0].to, 1);
}

/* --- the planner on made-up figures ------------------------------------- */

/* Four pairs, every query on lcore 0 and every service on lcore 1. */
static void
test_plan_brings_pairs_together_within_the_bound(void **state)
{
	struct balance_cand c[8];
	struct balance_move m[8];
	uint64_t load[2] = { 400, 400 };
	unsigned int lcore_of[8], n;

	(void)state;
	for (uint32_t i = 0; i < 8; i++) {
		lcore_of[i] = i & 1;
		c[i] = (struct balance_cand){
			.self = i, .lcore = i & 1, .weight = 100, .peer = i ^ 1,
			.peer_lcore = (i & 1) ^ 1, .peer_weight = 100, .cross = 1000 - i,
		};
	}
	n = balance_plan(c, 8, load, 2, 1.25, m, 8);
	assert_int_equal(n, 4);
	for (unsigned int i = 0; i < n; i++)
		lcore_of[m[i].actor] = m[i].to;
	for (unsigned int i = 0; i < 8; i += 2)
		assert_int_equal(lcore_of[i], lcore_of[i + 1]);
	assert_int_equal(load[0], 400);
	assert_int_equal(load[1], 400);
}

/* A move into an lcore that would pass the bound is not made: the other
 * direction is, or none. */
static void
test_plan_keeps_the_bound(void **state)
{
	struct balance_cand c = {
		.self = 0, .lcore = 0, .weight = 100, .peer = 1, .peer_lcore = 1,
		.peer_weight = 100, .cross = 500,
	};
	struct balance_move m[2];
	uint64_t load[2] = { 100, 900 };
	uint64_t even[2] = { 600, 600 };

	(void)state;
	assert_int_equal(balance_plan(&c, 1, load, 2, 1.25, m, 2), 1);
	assert_int_equal(m[0].actor, 1); /* the peer comes to the lighter lcore */
	assert_int_equal(m[0].to, 0);
	assert_int_equal(load[0], 200);
	assert_int_equal(load[1], 800);
	/* No slack at all: either move would put an lcore over the mean. */
	assert_int_equal(balance_plan(&c, 1, even, 2, 1.0, m, 2), 0);
	assert_int_equal(even[0], 600);
	assert_int_equal(even[1], 600);
}

/* --- placement auto, running ------------------------------------------- */

struct pinger {
	lca_actor_id_t peer;
	uint64_t hops;
};

static void
pinger_handler(lca_actor_id_t self, void *state, struct lca_msg *m)
{
	struct pinger *p = state;

	(void)self;
	p->hops++;
	lca_send(p->peer, m);
}

static const lca_actor_id_t *pairs;

static bool
pairs_together(void *arg)
{
	(void)arg;
	for (unsigned int i = 0; i < 8; i += 2)
		if (lca_actor_lcore(pairs[i]) != lca_actor_lcore(pairs[i + 1]))
			return false;
	return lca_migrations_get(NULL, 0) >= 4; /* and the moves handed over */
}

/* Round-robin puts each pair across the lcores; auto brings every pair
 * together and leaves two pairs on each lcore. */
static void
test_auto_brings_pairs_together(void **state)
{
	lca_actor_id_t id[8];
	unsigned int per_lcore[2] = { 0, 0 };

	(void)state;
	for (unsigned int i = 0; i < 8; i++)
		id[i] = spawn(pinger_handler, sizeof(struct pinger), LCA_LCORE_ANY, 0);
	for (unsigned int i = 0; i < 8; i++) {
		((struct pinger *)lca_actor_state(id[i]))->peer = id[i ^ 1];
		assert_true(lca_actor_lcore(id[i]) != lca_actor_lcore(id[i ^ 1]));
	}
	/* Eight pings a pair: the controller wants MIN_CROSS_SENDS crossings
	 * a period from a candidate, which one ping a pair gives only while
	 * a hop is fast (not under ThreadSanitizer on a loaded machine). */
	for (unsigned int i = 0; i < 8; i += 2)
		for (unsigned int k = 0; k < 8; k++)
			assert_int_equal(lca_send(id[i], lca_test_msg()), 0);
	pairs = id;
	assert_true(lca_test_run_until(pairs_together, NULL, 30));

	assert_true(lca_migrations_get(NULL, 0) >= 4);
	for (unsigned int i = 0; i < 8; i += 2) {
		assert_int_equal(lca_actor_lcore(id[i]), lca_actor_lcore(id[i + 1]));
		per_lcore[lca_actor_lcore(id[i])]++;
	}
	assert_int_equal(per_lcore[0], 2);
	assert_int_equal(per_lcore[1], 2);
}

struct scatter {
	lca_actor_id_t first;
	unsigned int n;
	uint64_t rng;
};

/* Each message goes on to an actor picked at random: no actor has a peer. */
static void
scatter_handler(lca_actor_id_t self, void *state, struct lca_msg *m)
{
	struct scatter *s = state;

	(void)self;
	s->rng = s->rng * 6364136223846793005ull + 1442695040888963407ull;
	lca_send(s->first + (lca_actor_id_t)((s->rng >> 33) % s->n), m);
}

static void
test_auto_moves_nothing_when_traffic_is_uniform(void **state)
{
	lca_actor_id_t id[8];

	(void)state;
	for (unsigned int i = 0; i < 8; i++)
		id[i] = spawn(scatter_handler, sizeof(struct scatter), LCA_LCORE_ANY, 0);
	for (unsigned int i = 0; i < 8; i++)
		*(struct scatter *)lca_actor_state(id[i]) =
			(struct scatter){ .first = id[0], .n = 8, .rng = i + 1 };
	for (unsigned int i = 0; i < 8; i++)
		assert_int_equal(lca_send(id[i], lca_test_msg()), 0);
	assert_int_equal(lca_test_runtime_run(300), -ETIMEDOUT);
	assert_int_equal(lca_migrations_get(NULL, 0), 0);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_move_under_traffic_from_both_lcores, runtime_up,
						runtime_down),
		cmocka_unit_test_setup_teardown(test_move_keeps_a_threads_order, runtime_up,
						runtime_down),
		cmocka_unit_test_setup_teardown(test_move_keeps_the_movers_own_order, runtime_up,
						runtime_down),
		cmocka_unit_test_setup_teardown(test_move_with_full_mailbox, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_migrate_rejects_bad_requests, runtime_up,
						runtime_down),
		cmocka_unit_test(test_plan_brings_pairs_together_within_the_bound),
		cmocka_unit_test(test_plan_keeps_the_bound),
		cmocka_unit_test(test_plan_never_moves_a_pinned_peer),
		cmocka_unit_test_setup_teardown(test_auto_brings_pairs_together, runtime_auto_slow,
						runtime_down),
		cmocka_unit_test_setup_teardown(test_auto_moves_nothing_when_traffic_is_uniform,
						runtime_auto, runtime_down),
	};
	int failed;

	/* Extra EAL arguments: e2e_trace runs it with --trace. */
	lca_test_eal_init_args("lca_test_migrate", (const char *const *)argv + 1,
			       (unsigned int)argc - 1);
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	lca_eal_cleanup();
	return lca_test_status(failed);
}
