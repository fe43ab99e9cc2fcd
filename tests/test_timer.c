/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Timers: a delayed message arrives on the control lane even while the
 * receiver's mailbox is never empty; a periodic timer ticks until it is
 * cancelled and never after; cancel, stale handles, a receiver that
 * stopped, a full table and a thread without an lcore id; delays of any
 * length, and one beyond the cycle counter refused; a timer for an actor on
 * another lcore waits on that lcore's list, and fires there; a timer due
 * while its lcore runs a burst of turns ends the burst.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

/* rte_timer_next_ticks() (experimental: tests/meson.build allows it), to
 * see how far ahead a timer was armed. */
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_timer.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_mempool.h"
#include "lca_test.h"
#include "lca_timer.h"

#define T_BUSY 1
#define T_TIMER 2
#define T_START 3
#define T_LOOK 4
#define T_BURSTY 5
#define BURST_TIMERS 16
#define MAX_TIMERS 4

static unsigned int pool_full;

static int
runtime_up(void **state)
{
	struct lca_runtime_conf c = {
		.msgs_per_node = 4095, .pool_cache = 64, .max_timers = MAX_TIMERS,
	};

	(void)state;
	return lca_test_runtime_up(&c, &pool_full);
}

static int
runtime_down(void **state)
{
	(void)state;
	return lca_runtime_cleanup();
}

static struct lca_msg *
typed(uint32_t type)
{
	struct lca_msg *m = lca_test_msg();

	m->type = type;
	return m;
}

/* --- a busy actor that also waits for a timer --------------------------- */

struct busy {
	uint64_t busy_msgs;
	uint32_t timer_msgs;
	uint8_t timer_flags;
};

/* It keeps 32 messages circling through its own mailbox, so the mailbox is
 * never empty; the timer's message must still get through. */
static void
busy_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct busy *b = state;

	if (msg->type == T_BUSY) {
		b->busy_msgs++;
		lca_send(self, msg);
		return;
	}
	b->timer_msgs++;
	b->timer_flags = msg->flags;
	lca_runtime_stop();
}

static void
test_timer_gets_past_a_busy_mailbox(void **state)
{
	lca_actor_id_t id = lca_test_spawn(busy_handler, sizeof(struct busy), 1, 64, 8);
	struct busy *b = lca_actor_state(id);
	struct lca_timer_stats ts;
	lca_timer_id_t t;

	(void)state;
	for (unsigned int i = 0; i < 32; i++)
		assert_int_equal(lca_send(id, typed(T_BUSY)), 0);
	assert_int_equal(lca_send_after(id, typed(T_TIMER), 2000, &t), 0);
	assert_true(t != LCA_TIMER_NONE);
	assert_true(lca_test_run(20));
	assert_int_equal(b->timer_msgs, 1);
	assert_true(b->timer_flags & LCA_MSG_F_CONTROL);
	assert_true(b->busy_msgs > 32); /* the mailbox was busy all along */
	lca_timer_stats_get(&ts);
	assert_int_equal(ts.armed, 1);
	assert_int_equal(ts.fired, 1);
	assert_int_equal(ts.active, 0);
	/* Fired: its handle finds nothing. */
	assert_int_equal(lca_timer_cancel(t), -ENOENT);
	assert_int_equal(lca_actor_stop(id), 0);
	assert_int_equal(lca_mempool_avail(), pool_full);
}

/* --- a periodic timer, cancelled by its receiver ------------------------ */

struct ticker {
	lca_timer_id_t timer;
	uint32_t ticks;
	uint32_t stop_after;
	uint64_t fired_at_cancel;
	int cancel_ret;
};

static void
ticker_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct ticker *t = state;
	struct lca_timer_stats ts;

	if (msg->type == T_START) {
		struct lca_msg tmpl = { .type = T_TIMER, .len = 4 };

		*(uint32_t *)tmpl.data = 0xabcd;
		assert_int_equal(lca_send_every(self, &tmpl, 500, &t->timer), 0);
		return;
	}
	assert_int_equal(msg->type, T_TIMER);
	assert_int_equal(*(uint32_t *)msg->data, 0xabcd);
	if (++t->ticks == t->stop_after) {
		t->cancel_ret = lca_timer_cancel(t->timer);
		lca_timer_stats_get(&ts);
		t->fired_at_cancel = ts.ticks;
	}
}

static bool
ticked_enough(void *arg)
{
	const struct ticker *t = arg;

	return t->ticks >= t->stop_after;
}

static void
test_periodic_ticks_until_cancelled(void **state)
{
	lca_actor_id_t id = lca_test_spawn(ticker_handler, sizeof(struct ticker), 1, 0, 1);
	struct ticker *t = lca_actor_state(id);
	struct lca_timer_stats ts;

	(void)state;
	t->stop_after = 5;
	assert_int_equal(lca_send(id, typed(T_START)), 0);
	assert_true(lca_test_run_until(ticked_enough, t, 20));
	/* Whatever was on its way is handled; nothing fires after. */
	assert_false(lca_test_run(1));
	lca_timer_stats_get(&ts);
	assert_int_equal(t->cancel_ret, 0);
	assert_int_equal(ts.ticks, t->fired_at_cancel);
	assert_int_equal(t->ticks, ts.ticks);
	assert_int_equal(ts.fired, 0); /* no one-shot */
	assert_int_equal(ts.cancelled, 1);
	assert_int_equal(ts.active, 0);
	assert_int_equal(lca_timer_cancel(t->timer), -ENOENT);
	assert_int_equal(lca_mempool_avail(), pool_full);
}

/* --- cancel, refusals, a full table ------------------------------------- */

static void
nothing(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	(void)self;
	(void)state;
	(void)msg;
}

struct thread_try {
	lca_actor_id_t to;
	int ret;
};

static void *
try_from_thread(void *arg)
{
	struct thread_try *t = arg;
	struct lca_msg *m;

	if (lca_msg_alloc(&m) != 0) {
		t->ret = -ENOMEM;
		return NULL;
	}
	t->ret = lca_send_after(t->to, m, 10, NULL);
	if (t->ret != 0)
		lca_msg_free(m);
	return NULL;
}

static void
test_cancel_and_refusals(void **state)
{
	lca_actor_id_t id = lca_test_spawn(nothing, 0, 1, 0, 1);
	struct lca_msg tmpl = { .type = T_TIMER };
	lca_timer_id_t t[MAX_TIMERS + 1];
	struct lca_timer_stats ts;
	struct thread_try th = { .to = id };
	struct lca_msg *m;
	pthread_t thread;

	(void)state;
	/* Cancelled before it fires: its message is freed, unsent. */
	assert_int_equal(lca_send_after(id, typed(T_TIMER), 60000000, &t[0]), 0);
	assert_int_equal(lca_mempool_avail(), pool_full - 1);
	assert_int_equal(lca_timer_cancel(t[0]), 0);
	assert_int_equal(lca_timer_cancel(t[0]), -ENOENT);
	assert_int_equal(lca_timer_cancel(LCA_TIMER_NONE), -ENOENT);
	assert_int_equal(lca_mempool_avail(), pool_full);

	/* Refusals leave the message with the caller. */
	m = typed(T_TIMER);
	assert_int_equal(lca_send_after(id + 1, m, 10, NULL), -ESRCH);
	assert_int_equal(lca_send_after(id, NULL, 10, NULL), -EINVAL);
	assert_int_equal(lca_send_every(id, &tmpl, 0, NULL), -EINVAL);
	tmpl.flags = LCA_MSG_F_MBUF;
	assert_int_equal(lca_send_every(id, &tmpl, 10, NULL), -EINVAL);
	tmpl.flags = 0;

	/* A full table. */
	for (unsigned int i = 0; i < MAX_TIMERS; i++)
		assert_int_equal(lca_send_every(id, &tmpl, 60000000, &t[i]), 0);
	assert_int_equal(lca_send_every(id, &tmpl, 60000000, &t[MAX_TIMERS]), -ENOSPC);
	assert_int_equal(lca_send_after(id, m, 10, NULL), -ENOSPC);
	for (unsigned int i = 0; i < MAX_TIMERS; i++)
		assert_int_equal(lca_timer_cancel(t[i]), 0);

	/* A thread with no lcore id cannot arm one. */
	assert_int_equal(pthread_create(&thread, NULL, try_from_thread, &th), 0);
	assert_int_equal(pthread_join(thread, NULL), 0);
	assert_int_equal(th.ret, -EPERM);

	/* The receiver stops before its timer fires: the message is freed
	 * and counted, not lost unseen. */
	assert_int_equal(lca_send_after(id, m, 1000, NULL), 0);
	assert_int_equal(lca_actor_stop(id), 0);
	m = typed(T_TIMER);
	assert_int_equal(lca_send_after(id, m, 10, NULL), -EPIPE);
	lca_msg_free(m);
	assert_false(lca_test_run(1));
	lca_timer_stats_get(&ts);
	assert_int_equal(ts.dropped, 1);
	assert_int_equal(ts.active, 0);
	assert_int_equal(lca_mempool_avail(), pool_full);
}

/* Whether @p next, an lcore's rte_timer_next_ticks(), is @p us from when it
 * was read: within the few milliseconds the test took to get there. */
static bool
ticks_ahead(int64_t next, uint64_t us)
{
	long double want = (long double)us * (long double)rte_get_timer_hz() / 1e6L;

	return next > 0 && (long double)next <= want &&
	       (long double)next >= want - (long double)rte_get_timer_hz() / 10;
}

/* How far ahead the next timer of this lcore is, against @p us from now. */
static void
assert_armed_ahead(uint64_t us)
{
	assert_true(ticks_ahead(rte_timer_next_ticks(), us));
}

/* 1 us fires; 2 hours and 30 days are armed that far ahead (us * hz
 * wrapped past 2^64 at 2.2 hours, and a 30-day timer fired after 23
 * minutes); 2^63 us is beyond what the counter reaches, and refused with
 * the message left to the caller. A deadline as far is refused too. */
static void
test_delays_of_any_length(void **state)
{
	const uint64_t two_hours = 2ULL * 3600 * 1000000, thirty_days = 30ULL * 86400 * 1000000;
	/* On this lcore: its timers wait on this lcore's list, which
	 * assert_armed_ahead() reads. */
	lca_actor_id_t id = lca_test_spawn(nothing, 0, rte_lcore_id(), 0, 1);
	struct lca_timer_stats before, after;
	lca_timer_id_t t;
	struct lca_msg *m;

	(void)state;
	lca_timer_stats_get(&before);
	assert_int_equal(lca_send_after(id, typed(T_TIMER), 1, NULL), 0);
	for (int i = 0; i < 1000; i++) {
		assert_false(lca_test_run(1));
		lca_timer_stats_get(&after);
		if (after.fired > before.fired)
			break;
	}
	assert_int_equal(after.fired, before.fired + 1);

	assert_int_equal(lca_send_after(id, typed(T_TIMER), two_hours, &t), 0);
	assert_armed_ahead(two_hours);
	assert_int_equal(lca_timer_cancel(t), 0);
	assert_int_equal(lca_send_after(id, typed(T_TIMER), thirty_days, &t), 0);
	assert_armed_ahead(thirty_days);
	assert_int_equal(lca_timer_cancel(t), 0);

	m = typed(T_TIMER);
	assert_int_equal(lca_send_after(id, m, 1ULL << 63, NULL), -ERANGE);
	assert_int_equal(lca_send_every(id, m, 1ULL << 63, NULL), -ERANGE);
	assert_int_equal(lca_msg_set_deadline_us(m, 1ULL << 63), -ERANGE);
	assert_false(m->flags & LCA_MSG_F_DEADLINE);
	assert_int_equal(lca_msg_set_deadline_us(m, thirty_days), 0);
	lca_msg_free(m);
	lca_timer_stats_get(&after);
	assert_int_equal(after.active, 0);
	assert_int_equal(lca_mempool_avail(), pool_full);
}

/* --- where a timer waits: its receiver's lcore -------------------------- */

struct looker {
	int64_t next_ticks; /* rte_timer_next_ticks() on the receiver's lcore */
	unsigned int timer_lcore;
	uint32_t timer_msgs;
};

/* T_LOOK: how far ahead the next timer of this lcore's list is; T_TIMER:
 * where the timer's message was handled. */
static void
looker_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct looker *l = state;

	(void)self;
	if (msg->type == T_LOOK) {
		l->next_ticks = rte_timer_next_ticks();
		return;
	}
	l->timer_lcore = rte_lcore_id();
	l->timer_msgs++;
}

static bool
timer_received(void *arg)
{
	return ((const struct looker *)arg)->timer_msgs > 0;
}

/* A timer armed here for an actor on lcore 1 waits on lcore 1's list, not
 * on this lcore's: it fires where its message is handled, in the same
 * loop iteration, instead of firing here and crossing to lcore 1 after. */
static void
test_timer_waits_on_the_receivers_lcore(void **state)
{
	const uint64_t two_hours = 2ULL * 3600 * 1000000;
	lca_actor_id_t id = lca_test_spawn(looker_handler, sizeof(struct looker), 1, 0, 1);
	struct looker *l = lca_actor_state(id);
	struct lca_timer_stats ts;
	lca_timer_id_t t;

	(void)state;
	assert_int_not_equal(rte_lcore_id(), 1);
	assert_int_equal(lca_send_after(id, typed(T_TIMER), two_hours, &t), 0);
	assert_int_equal(rte_timer_next_ticks(), -ENOENT); /* nothing on this lcore's list */
	assert_int_equal(lca_send(id, typed(T_LOOK)), 0);
	assert_false(lca_test_run(1));
	assert_true(ticks_ahead(l->next_ticks, two_hours));
	assert_int_equal(lca_timer_cancel(t), 0);

	/* One that fires: handled on lcore 1, counted once. */
	assert_int_equal(lca_send_after(id, typed(T_TIMER), 100, NULL), 0);
	assert_true(lca_test_run_until(timer_received, l, 20));
	assert_int_equal(l->timer_msgs, 1);
	assert_int_equal(l->timer_lcore, 1);
	lca_timer_stats_get(&ts);
	assert_int_equal(ts.armed, 2);
	assert_int_equal(ts.fired, 1);
	assert_int_equal(ts.cancelled, 1);
	assert_int_equal(ts.active, 0);
	assert_int_equal(lca_mempool_avail(), pool_full);
}

/* --- a timer due in the middle of a burst of turns ---------------------- */

struct bursty {
	uint64_t due;        /* the timer's expiry (TSC), as rte_timer has it */
	uint32_t late_turns; /* turns that began at or after it, before it came */
	uint32_t timers;
	uint32_t on_time; /* timers that came at most 3 turns after it */
	uint32_t late[BURST_TIMERS];
	bool done;
};

static void
bursty_arm(lca_actor_id_t self, struct bursty *b)
{
	uint64_t now;
	int64_t left;

	assert_int_equal(lca_send_after(self, typed(T_TIMER), 200, NULL), 0);
	/* Its own lcore's list, where it is the only timer: its expiry as
	 * rte_timer_manage() will compare it, a few cycles early at most. */
	now = rte_get_timer_cycles();
	left = rte_timer_next_ticks();
	assert_true(left >= 0);
	b->due = now + (uint64_t)left;
	b->late_turns = 0;
}

/* One message circles through the mailbox, a turn each (throughput 1): a
 * loop's burst is 32 such turns, with one poll, where timers fire, before
 * it. Each timer counts the turns that began after it was due. */
static void
bursty_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct bursty *b = state;

	if (msg->type == T_BURSTY) {
		if (!b->done && rte_get_timer_cycles() >= b->due)
			b->late_turns++;
		lca_send(self, msg);
		return;
	}
	if (msg->type == T_START) {
		bursty_arm(self, b);
		return;
	}
	b->late[b->timers] = b->late_turns;
	b->on_time += b->late_turns <= 3;
	if (++b->timers < BURST_TIMERS)
		bursty_arm(self, b);
	else
		b->done = true;
}

static bool
bursty_done(void *arg)
{
	return ((const struct bursty *)arg)->done;
}

/* The timer fires at the end of the batch in which it came due, not after
 * the burst: a turn or two late (one more when the loop came back for a
 * due time read a few cycles before rte_timer's), where a poll once a
 * burst let 0 to 31 turns (whole microseconds under load) run first, 4 or
 * fewer one time in 8. Turns are counted, not time, so a preempted lcore
 * changes nothing; an arm's first-time costs (a timer that comes late for
 * them, seen once in 16) are left room. */
static void
test_timer_ends_a_burst_of_turns(void **state)
{
	lca_actor_id_t id = lca_test_spawn(bursty_handler, sizeof(struct bursty), 1, 64, 1);
	struct bursty *b = lca_actor_state(id);

	(void)state;
	assert_int_equal(lca_send(id, typed(T_BURSTY)), 0);
	assert_int_equal(lca_send(id, typed(T_START)), 0);
	assert_true(lca_test_run_until(bursty_done, b, 20));
	assert_int_equal(b->timers, BURST_TIMERS);
	for (unsigned int i = 0; i < BURST_TIMERS; i++)
		print_message("timer %u: %u turns after it was due\n", i, b->late[i]);
	assert_true(b->on_time >= BURST_TIMERS * 3 / 4);
	assert_int_equal(lca_actor_stop(id), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_timer_gets_past_a_busy_mailbox, runtime_up,
						runtime_down),
		cmocka_unit_test_setup_teardown(test_periodic_ticks_until_cancelled, runtime_up,
						runtime_down),
		cmocka_unit_test_setup_teardown(test_cancel_and_refusals, runtime_up,
						runtime_down),
		cmocka_unit_test_setup_teardown(test_delays_of_any_length, runtime_up,
						runtime_down),
		cmocka_unit_test_setup_teardown(test_timer_waits_on_the_receivers_lcore,
						runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_timer_ends_a_burst_of_turns, runtime_up,
						runtime_down),
	};
	int failed;

	lca_test_eal_init("lca_test_timer");
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	lca_eal_cleanup();
	return lca_test_status(failed);
}
