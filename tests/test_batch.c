/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What packet stages are built from: batch handlers (bursts, in order, the
 * handler owns what it gets), mbufs in and out of envelopes in bulk, and
 * the backlog a sender reads for its watermarks, and bursts that run to
 * completion from a loop hook.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_lcore.h"
#include "lca_mempool.h"
#include "lca_test.h"

#define MSGS 1000
#define BURST 16

struct batcher {
	uint64_t calls;
	uint64_t got;
	uint64_t out_of_order;
	uint32_t biggest;   /* most messages in one call */
	uint32_t next_seq;
	bool keep;          /* keep every message instead of freeing it */
	struct lca_msg *kept[MSGS];
};

static void
batch_handler(lca_actor_id_t self, void *state, struct lca_msg **msgs, unsigned int n)
{
	struct batcher *b = state;

	(void)self;
	b->calls++;
	if (n > b->biggest)
		b->biggest = n;
	for (unsigned int i = 0; i < n; i++) {
		const struct lca_test_seq *s = (const void *)msgs[i]->data;

		if (s->seq != b->next_seq)
			b->out_of_order++;
		b->next_seq = s->seq + 1;
		if (b->keep)
			b->kept[b->got + i] = msgs[i];
	}
	b->got += n;
	if (!b->keep)
		lca_msg_free_bulk(msgs, n);
	if (b->got == MSGS)
		lca_runtime_stop();
}

static lca_actor_id_t
spawn_batcher(unsigned int lcore, unsigned int throughput, bool keep)
{
	struct lca_actor_spec spec = {
		.batch_handler = batch_handler,
		.state_size = sizeof(struct batcher),
		.lcore = lcore,
		.mailbox_size = 2048,
		.throughput = throughput,
	};
	lca_actor_id_t id;

	assert_int_equal(lca_actor_spawn(&spec, &id), 0);
	((struct batcher *)lca_actor_state(id))->keep = keep;
	return id;
}

static void
send_seq(lca_actor_id_t to, unsigned int n)
{
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(lca_send(to, lca_test_seq_msg(0, i)), 0);
}

/* Sent all at once, they arrive in bursts no larger than the throughput,
 * every one, in order; the handler frees them and the pool is whole. */
static void
test_batch_bursts_in_order(void **state)
{
	lca_actor_id_t id = spawn_batcher(1, BURST, false);
	struct batcher *b = lca_actor_state(id);

	(void)state;
	send_seq(id, MSGS);
	assert_true(lca_test_run(20));
	assert_int_equal(b->got, MSGS);
	assert_int_equal(b->out_of_order, 0);
	assert_true(b->biggest > 1);
	assert_true(b->biggest <= BURST);
	assert_true(b->calls >= MSGS / BURST);
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

/* The runtime frees nothing a batch handler was given: kept messages are
 * still out of the pool after the run, and are the handler's to free. */
static void
test_batch_handler_owns_messages(void **state)
{
	lca_actor_id_t id = spawn_batcher(0, 0, true);
	struct batcher *b = lca_actor_state(id);
	struct lca_actor_stats st;

	(void)state;
	send_seq(id, MSGS);
	assert_true(lca_test_run(20));
	assert_int_equal(b->got, MSGS);
	assert_int_equal(b->out_of_order, 0);
	assert_true(b->biggest <= LCA_BATCH_DEFAULT);
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full - MSGS);
	assert_int_equal(lca_actor_stats_get(id, &st), 0);
	assert_int_equal(st.handled, MSGS);
	lca_msg_free_bulk(b->kept, MSGS);
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

static void
one_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	(void)self;
	(void)state;
	(void)msg;
}

static void
test_spec_takes_one_handler(void **state)
{
	struct lca_actor_spec spec = { .handler = one_handler, .batch_handler = batch_handler };
	lca_actor_id_t id;

	(void)state;
	assert_int_equal(lca_actor_spawn(&spec, &id), -EINVAL);
	spec.handler = NULL;
	spec.batch_handler = NULL;
	assert_int_equal(lca_actor_spawn(&spec, &id), -EINVAL);
	assert_int_equal(lca_actor_count(), 0);
}

/* Mbufs go into envelopes and back out without loss, in order, and the
 * envelopes and mbufs all return to their pools. */
static void
test_mbuf_bulk_round_trip(void **state)
{
	struct rte_mempool *mp = rte_pktmbuf_pool_create("lca_t_batch_mb", 255, 0, 0, 256, 0);
	struct rte_mbuf *in[BURST], *out[BURST];
	struct lca_msg *msgs[BURST];

	(void)state;
	assert_non_null(mp);
	assert_int_equal(rte_pktmbuf_alloc_bulk(mp, in, BURST), 0);
	assert_int_equal(lca_msg_from_mbuf_bulk(in, msgs, BURST), 0);
	for (unsigned int i = 0; i < BURST; i++) {
		assert_ptr_equal(msgs[i]->ptr, in[i]);
		assert_true(msgs[i]->flags & LCA_MSG_F_MBUF);
	}
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full - BURST);

	/* Detached, an mbuf outlives its envelope. */
	assert_ptr_equal(lca_msg_detach_mbuf(msgs[0]), in[0]);
	assert_null(lca_msg_detach_mbuf(msgs[0]));
	lca_msg_free(msgs[0]);
	assert_int_equal(rte_mempool_avail_count(mp), 255 - BURST);

	/* The rest come out in order, one fewer than the envelopes. */
	msgs[0] = NULL;
	assert_int_equal(lca_msg_to_mbuf_bulk(msgs + 1, out, BURST - 1), BURST - 1);
	for (unsigned int i = 1; i < BURST; i++)
		assert_ptr_equal(out[i - 1], in[i]);
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
	rte_pktmbuf_free_bulk(out, BURST - 1);
	rte_pktmbuf_free(in[0]);
	assert_int_equal(rte_mempool_avail_count(mp), 255);

	/* Free in bulk frees the mbufs the envelopes carry. */
	assert_int_equal(rte_pktmbuf_alloc_bulk(mp, in, BURST), 0);
	assert_int_equal(lca_msg_from_mbuf_bulk(in, msgs, BURST), 0);
	lca_msg_free_bulk(msgs, BURST);
	assert_int_equal(rte_mempool_avail_count(mp), 255);
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);

	/* A NULL mbuf: nothing is allocated. */
	in[3] = NULL;
	assert_int_equal(lca_msg_from_mbuf_bulk(in, msgs, BURST), -EINVAL);
	assert_int_equal(lca_msg_from_mbuf(NULL, msgs), -EINVAL);
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
	rte_mempool_free(mp);
}

static bool
both_got_theirs(void *arg)
{
	const lca_actor_id_t *ids = arg;

	return ((struct batcher *)lca_actor_state(ids[0]))->got == 7 &&
	       ((struct batcher *)lca_actor_state(ids[1]))->got == 9;
}

/* What a sender queues behind: on the receiver's lcore its mailbox, from
 * another lcore the channel too; it falls back to 0 once delivered. */
static void
test_backlog_counts_what_waits(void **state)
{
	lca_actor_id_t near = spawn_batcher(0, BURST, false);
	lca_actor_id_t far = spawn_batcher(1, BURST, false);
	lca_actor_id_t ids[2];

	(void)state;
	assert_int_equal(lca_actor_backlog(near), 0);
	assert_int_equal(lca_actor_backlog(far), 0);
	send_seq(near, 7);
	send_seq(far, 9);
	assert_int_equal(lca_actor_backlog(near), 7);
	assert_int_equal(lca_actor_backlog(far), 9);
	assert_int_equal(lca_actor_backlog(far + 1), -ESRCH);
	ids[0] = near;
	ids[1] = far;
	assert_true(lca_test_run_until(both_got_theirs, ids, 20));
	assert_int_equal(lca_actor_backlog(near), 0);
	assert_int_equal(lca_actor_backlog(far), 0);
}

/* What the hook below sends and sees, step by step. */
struct rtc_probe {
	lca_actor_id_t to;
	unsigned int step;
	uint32_t seq;
	uint64_t got_after[3]; /* the handler's count as each step's send returned */
	unsigned int sent_short;
};

/* A burst of the next @p n sequence numbers of @p p; a short send's rest
 * is counted and freed. */
static void
rtc_burst(struct rtc_probe *p, unsigned int n, bool rtc)
{
	struct lca_msg *msgs[BURST + 1];
	unsigned int sent;

	for (unsigned int i = 0; i < n; i++)
		msgs[i] = lca_test_seq_msg(0, p->seq++);
	sent = rtc ? lca_send_burst_rtc(p->to, msgs, n, NULL) : lca_send_burst(p->to, msgs, n, NULL);
	if (sent != n) {
		p->sent_short++;
		lca_msg_free_bulk(msgs + sent, n - sent);
	}
}

/* The receiver's lcore's hook: one step a loop, and the loop runs the
 * actor's queued turns between two steps. */
static unsigned int
rtc_hook(unsigned int lcore_id, uint64_t now, void *arg)
{
	struct rtc_probe *p = arg;
	const struct batcher *b = lca_actor_state(p->to);

	(void)lcore_id;
	(void)now;
	switch (p->step) {
	case 0: /* idle, nothing waits: handled before the call returns */
		rtc_burst(p, 8, true);
		p->got_after[0] = b->got;
		break;
	case 1: /* behind what its mailbox holds: queued, after it */
		rtc_burst(p, 4, false);
		rtc_burst(p, 4, true);
		p->got_after[1] = b->got;
		break;
	case 2: /* more than its throughput: queued */
		rtc_burst(p, BURST + 1, true);
		p->got_after[2] = b->got;
		break;
	default:
		if (p->seq < MSGS)
			rtc_burst(p, RTE_MIN((uint32_t)BURST, MSGS - p->seq), true);
		break;
	}
	p->step++;
	return 1;
}

/* lca_send_burst_rtc() from the receiver's own loop hook runs the handler
 * at once only where nothing of the actor's waits and the burst fits its
 * throughput; everywhere else it queues, and order holds either way. */
static void
test_send_burst_rtc_runs_idle_receiver_now(void **state)
{
	lca_actor_id_t id = spawn_batcher(1, BURST, false);
	struct batcher *b = lca_actor_state(id);
	struct rtc_probe probe = { .to = id };
	const struct lca_lcore_hook hook = { .poll = rtc_hook, .arg = &probe };
	struct lca_actor_stats st;
	bool done;

	(void)state;
	assert_int_equal(lca_lcore_hook_add(1, &hook), 0);
	done = lca_test_run(20);
	assert_int_equal(lca_lcore_hook_remove(1, &hook), 0);
	assert_true(done);
	assert_int_equal(probe.got_after[0], 8);
	assert_int_equal(probe.got_after[1], 8);
	assert_int_equal(probe.got_after[2], 16);
	assert_int_equal(probe.sent_short, 0);
	assert_int_equal(b->got, MSGS);
	assert_int_equal(b->out_of_order, 0);
	assert_true(b->biggest <= BURST);
	assert_int_equal(lca_actor_stats_get(id, &st), 0);
	assert_int_equal(st.handled, MSGS);
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

/* Outside a run (the main thread before it) nothing may run a handler:
 * the burst waits in the mailbox for the run. */
static void
test_send_burst_rtc_outside_a_run_queues(void **state)
{
	lca_actor_id_t id = spawn_batcher(0, BURST, false);
	struct batcher *b = lca_actor_state(id);
	struct rtc_probe probe = { .to = id };

	(void)state;
	while (probe.seq < MSGS)
		rtc_burst(&probe, RTE_MIN((uint32_t)BURST, MSGS - probe.seq), true);
	assert_int_equal(b->got, 0);
	assert_int_equal(lca_actor_backlog(id), MSGS);
	assert_true(lca_test_run(20));
	assert_int_equal(b->got, MSGS);
	assert_int_equal(b->out_of_order, 0);
	assert_int_equal(lca_mempool_avail(), lca_test_pool_full);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_batch_bursts_in_order, lca_test_setup,
						lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_batch_handler_owns_messages, lca_test_setup,
						lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_spec_takes_one_handler, lca_test_setup,
						lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_mbuf_bulk_round_trip, lca_test_setup,
						lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_backlog_counts_what_waits, lca_test_setup,
						lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_send_burst_rtc_runs_idle_receiver_now,
						lca_test_setup, lca_test_teardown),
		cmocka_unit_test_setup_teardown(test_send_burst_rtc_outside_a_run_queues,
						lca_test_setup, lca_test_teardown),
	};
	int failed;

	lca_test_eal_init("lca_test_batch");
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	lca_eal_cleanup();
	return lca_test_status(failed);
}
