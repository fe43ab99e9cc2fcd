/* SPDX-License-Identifier: BSD-3-Clause */
/* Actors: mailboxes, every send error, stop, ordering, no loss, idle cost. */
#include <errno.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_pause.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_lcore.h"
#include "lca_mempool.h"
#include "lca_test.h"

#define SMALL_POOL 4095

/* Envelopes in the pool when none is out: what every test must end with. */
static unsigned int pool_full;

static int
runtime_up(void **state)
{
	struct lca_runtime_conf c = { .msgs_per_node = SMALL_POOL, .pool_cache = 64 };
	int ret;

	(void)state;
	ret = lca_runtime_init(&c);
	pool_full = lca_mempool_avail();
	return ret;
}

static int
runtime_down(void **state)
{
	(void)state;
	lca_runtime_cleanup();
	return 0;
}

/* --- a recording actor ------------------------------------------------- */

struct seq_msg {
	uint32_t sender; /* index of the sending test actor */
	uint32_t seq;
};

#define MAX_SENDERS 16

struct recorder {
	uint64_t got;
	uint64_t expect;
	uint32_t next_seq[MAX_SENDERS];
	uint64_t out_of_order;
	uint64_t bad_sender;
};

static void
recorder_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct recorder *r = state;
	const struct seq_msg *m = (const void *)msg->data;

	(void)self;
	if (m->sender >= MAX_SENDERS) {
		r->bad_sender++;
	} else {
		if (m->seq != r->next_seq[m->sender])
			r->out_of_order++;
		r->next_seq[m->sender] = m->seq + 1;
	}
	if (++r->got == r->expect)
		lca_runtime_stop();
}

static lca_actor_id_t
spawn_recorder(unsigned int lcore, unsigned int mailbox, uint64_t expect)
{
	struct lca_actor_spec spec = {
		.handler = recorder_handler,
		.state_size = sizeof(struct recorder),
		.lcore = lcore,
		.mailbox_size = mailbox,
		.throughput = 32,
	};
	lca_actor_id_t id;

	assert_int_equal(lca_actor_spawn(&spec, &id), 0);
	((struct recorder *)lca_actor_state(id))->expect = expect;
	return id;
}

/* An actor of @p handler with zeroed state of @p size on @p lcore. */
static lca_actor_id_t
spawn_on(lca_handler_fn handler, size_t size, unsigned int lcore)
{
	struct lca_actor_spec spec = { .handler = handler, .state_size = size, .lcore = lcore };
	lca_actor_id_t id;

	assert_int_equal(lca_actor_spawn(&spec, &id), 0);
	return id;
}

static struct lca_msg *
seq_msg(uint32_t sender, uint32_t seq)
{
	struct lca_msg *m;

	assert_int_equal(lca_msg_alloc(&m), 0);
	((struct seq_msg *)m->data)->sender = sender;
	((struct seq_msg *)m->data)->seq = seq;
	m->len = sizeof(struct seq_msg);
	return m;
}

/* --- mailboxes ---------------------------------------------------------- */

static void
test_mailbox_full(void **state)
{
	lca_actor_id_t id = spawn_recorder(0, 4, 4);
	struct lca_actor_stats st;
	struct lca_send_errors e;
	struct lca_msg *m;

	(void)state;
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(lca_send(id, seq_msg(0, i)), 0);
	m = seq_msg(0, 4);
	assert_int_equal(lca_send(id, m), -ENOBUFS);
	/* Still the sender's: its fields untouched and it can be freed. */
	assert_int_equal(((struct seq_msg *)m->data)->seq, 4);
	lca_msg_free(m);

	assert_int_equal(lca_actor_stats_get(id, &st), 0);
	assert_int_equal(st.rejected, 1);
	lca_send_errors_get(&e);
	assert_int_equal(e.mailbox_full, 1);

	/* The four that fit are all handled, in order. */
	assert_true(lca_test_run(20));
	assert_int_equal(((struct recorder *)lca_actor_state(id))->got, 4);
	assert_int_equal(((struct recorder *)lca_actor_state(id))->out_of_order, 0);
}

static void
test_mailbox_empty_is_not_run(void **state)
{
	lca_actor_id_t idle = spawn_recorder(0, 64, 0);
	lca_actor_id_t busy = spawn_recorder(0, 64, 1);
	struct lca_actor_stats st;

	(void)state;
	assert_int_equal(lca_send(busy, seq_msg(0, 0)), 0);
	assert_true(lca_test_run(20));
	assert_int_equal(lca_actor_stats_get(idle, &st), 0);
	assert_int_equal(st.turns, 0);
	assert_int_equal(st.received, 0);
	assert_int_equal(lca_actor_stats_get(busy, &st), 0);
	assert_int_equal(st.handled, 1);
}

/* Many more messages than the ring holds, in rounds: the ring wraps. */
static void
test_mailbox_wraparound(void **state)
{
	const uint32_t per_round = 6, rounds = 50;
	lca_actor_id_t id = spawn_recorder(1, 8, 0);
	struct recorder *r = lca_actor_state(id);

	(void)state;
	for (uint32_t round = 0; round < rounds; round++) {
		r->expect = (uint64_t)(round + 1) * per_round;
		for (uint32_t i = 0; i < per_round; i++)
			assert_int_equal(lca_send(id, seq_msg(0, round * per_round + i)), 0);
		assert_true(lca_test_run(20));
	}
	assert_int_equal(r->got, per_round * rounds);
	assert_int_equal(r->out_of_order, 0);
	assert_int_equal(lca_mempool_avail(), pool_full);
}

/* --- send errors -------------------------------------------------------- */

static void
test_send_errors(void **state)
{
	lca_actor_id_t id = spawn_recorder(0, 16, 1);
	struct lca_send_errors e;
	struct lca_msg *m = seq_msg(0, 0);

	(void)state;
	assert_int_equal(lca_send(id + 1000, m), -ESRCH);
	assert_int_equal(lca_send(LCA_ACTOR_NONE, m), -ESRCH);
	assert_int_equal(lca_send(id, NULL), -EINVAL);
	assert_int_equal(lca_actor_stop(id), 0);
	assert_int_equal(lca_actor_stop(id), -EALREADY);
	assert_int_equal(lca_send(id, m), -EPIPE);
	assert_int_equal(lca_reply(m), -ESRCH); /* from is "no actor" */
	assert_false(lca_actor_alive(id));
	lca_msg_free(m);

	lca_send_errors_get(&e);
	assert_int_equal(e.no_actor, 3);
	assert_int_equal(e.stopped, 1);
	assert_int_equal(e.mailbox_full, 0);
	assert_int_equal(lca_mempool_avail(), pool_full);
}

static void
test_pool_empty(void **state)
{
	static struct lca_msg *all[2 * SMALL_POOL];
	struct lca_send_errors e;
	struct lca_msg *m;
	unsigned int n = 0;

	(void)state;
	/* At least what was asked for, plus the caches' room. */
	assert_true(pool_full >= SMALL_POOL && pool_full <= RTE_DIM(all));
	while (n < RTE_DIM(all) && lca_msg_alloc(&all[n]) == 0)
		n++;
	assert_int_equal(n, pool_full);
	assert_int_equal(lca_msg_alloc(&m), -ENOMEM);
	assert_int_equal(lca_msg_alloc_bulk(all, 2), -ENOMEM);
	lca_send_errors_get(&e);
	assert_int_equal(e.pool_empty, 3); /* the loop's last try, and these two */
	for (unsigned int i = 0; i < n; i++)
		lca_msg_free(all[i]);
	assert_int_equal(lca_mempool_avail(), pool_full);
}

static void
test_spawn_rejects_bad_specs(void **state)
{
	struct lca_actor_spec spec = { .handler = recorder_handler, .lcore = LCA_LCORE_ANY };
	lca_actor_id_t id;

	(void)state;
	spec.mailbox_size = 100;
	assert_int_equal(lca_actor_spawn(&spec, &id), -EINVAL);
	spec.mailbox_size = 1u << 31; /* a power of two, but no ring that big */
	assert_int_equal(lca_actor_spawn(&spec, &id), -EINVAL);
	spec.mailbox_size = 64;
	spec.lcore = 7; /* not enabled: EAL runs lcores 0-1 */
	assert_int_equal(lca_actor_spawn(&spec, &id), -EINVAL);
	spec.lcore = RTE_MAX_LCORE;
	assert_int_equal(lca_actor_spawn(&spec, &id), -EINVAL);
	spec.lcore = LCA_LCORE_ANY;
	spec.handler = NULL;
	assert_int_equal(lca_actor_spawn(&spec, &id), -EINVAL);
	assert_int_equal(lca_actor_count(), 0);
}

/* A zero-filled spec is documented to mean lcore 0, enabled here, and its
 * counters need somewhere to go. */
static void
test_zeroed_spec_and_stats_args(void **state)
{
	struct lca_actor_spec spec;
	struct lca_actor_stats st;
	lca_actor_id_t id;

	(void)state;
	memset(&spec, 0, sizeof(spec));
	spec.handler = recorder_handler;
	assert_int_equal(lca_actor_spawn(&spec, &id), 0);
	assert_int_equal(lca_actor_lcore(id), 0);
	assert_int_equal(lca_actor_stats_get(id, &st), 0);
	assert_int_equal(st.lcore, 0);
	assert_int_equal(lca_actor_stats_get(id, NULL), -EINVAL);
	assert_int_equal(lca_actor_stats_get(id + 1, &st), -ESRCH);
}

/* --- stop --------------------------------------------------------------- */

static void
test_stop_with_pending(void **state)
{
	lca_actor_id_t id = spawn_recorder(1, 16, 100);
	struct lca_actor_stats st;

	(void)state;
	for (uint32_t i = 0; i < 5; i++)
		assert_int_equal(lca_send(id, seq_msg(0, i)), 0);
	/* From the main lcore they cross by value in its channel to lcore 1:
	 * no envelope is out until lcore 1's poll takes them in. */
	assert_int_equal(lca_mempool_avail(), pool_full);
	assert_int_equal(lca_actor_stop(id), 0);
	assert_int_equal(lca_actor_stats_get(id, &st), 0);
	assert_int_equal(st.dropped_on_stop, 5);
	assert_int_equal(st.handled, 0);
	assert_int_equal(lca_mempool_avail(), pool_full);
}

/* An actor that stops itself on its third message, with more queued. */
static void
self_stopper(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	uint64_t *n = state;

	(void)msg;
	if (++*n == 3) {
		lca_actor_stop(self);
		lca_runtime_stop();
	}
}

static void
test_self_stop_drains_mailbox(void **state)
{
	struct lca_actor_spec spec = {
		.handler = self_stopper,
		.state_size = sizeof(uint64_t),
		.lcore = 1,
		.throughput = 1,
	};
	struct lca_actor_stats st;
	lca_actor_id_t id;

	(void)state;
	assert_int_equal(lca_actor_spawn(&spec, &id), 0);
	for (uint32_t i = 0; i < 10; i++)
		assert_int_equal(lca_send(id, seq_msg(0, i)), 0);
	assert_true(lca_test_run(20));
	assert_int_equal(lca_actor_stats_get(id, &st), 0);
	assert_int_equal(st.handled, 3);
	assert_int_equal(st.dropped_on_stop, 7);
	assert_int_equal(lca_mempool_avail(), pool_full);
}

/* --- ordering and loss across lcores ------------------------------------ */

struct sender {
	lca_actor_id_t to;
	uint32_t index;
	uint32_t next;
	uint32_t total;
	uint64_t retries;
};

/* Each poke makes a sender send a burst of numbered messages; when the
 * receiver's mailbox is full it tries again on its next poke. */
static void
sender_handler(lca_actor_id_t self, void *state, struct lca_msg *poke)
{
	struct sender *s = state;

	for (unsigned int k = 0; k < 16 && s->next < s->total; k++) {
		struct lca_msg *m;

		if (lca_msg_alloc(&m) != 0)
			break;
		((struct seq_msg *)m->data)->sender = s->index;
		((struct seq_msg *)m->data)->seq = s->next;
		if (lca_send(s->to, m) != 0) {
			lca_msg_free(m);
			s->retries++;
			break;
		}
		s->next++;
	}
	if (s->next < s->total)
		lca_send(self, poke); /* keep going: reuse the poke */
}

static void
many_to_one(enum lca_mailbox_mode mode, unsigned int n_senders, uint32_t per_sender)
{
	lca_actor_id_t rx = spawn_recorder(0, 256, (uint64_t)n_senders * per_sender);
	struct recorder *r = lca_actor_state(rx);
	lca_actor_id_t ids[MAX_SENDERS];

	for (unsigned int i = 0; i < n_senders; i++) {
		struct lca_actor_spec spec = {
			.handler = sender_handler,
			.state_size = sizeof(struct sender),
			.lcore = i % 2, /* both lcores send */
			.mailbox_mode = mode,
		};

		assert_int_equal(lca_actor_spawn(&spec, &ids[i]), 0);
		*(struct sender *)lca_actor_state(ids[i]) =
			(struct sender){ .to = rx, .index = i, .total = per_sender };
	}
	for (unsigned int i = 0; i < n_senders; i++)
		assert_int_equal(lca_send(ids[i], seq_msg(99, 0)), 0);
	assert_true(lca_test_run(60));

	assert_int_equal(r->got, (uint64_t)n_senders * per_sender);
	assert_int_equal(r->out_of_order, 0); /* FIFO per sender, no duplicates */
	assert_int_equal(r->bad_sender, 0);
	for (unsigned int i = 0; i < n_senders; i++)
		assert_int_equal(r->next_seq[i], per_sender);
}

static void
test_many_to_one_mp(void **state)
{
	(void)state;
	many_to_one(LCA_MAILBOX_MP, 8, 20000);
}

static void
test_many_to_one_rts(void **state)
{
	(void)state;
	many_to_one(LCA_MAILBOX_RTS, 4, 5000);
}

static void
test_many_to_one_hts(void **state)
{
	(void)state;
	many_to_one(LCA_MAILBOX_HTS, 4, 5000);
}

/* --- reply and shared dispatcher --------------------------------------- */

#define KICK 1

struct pingpong {
	lca_actor_id_t peer;
	uint32_t left;
	uint32_t in_handler; /* atomic: 1 while some lcore runs it */
	uint32_t overlaps;
};

static uint32_t pairs_done;
static uint32_t pairs_total;

static void
pingpong_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct pingpong *p = state;

	(void)self;
	if (__atomic_exchange_n(&p->in_handler, 1, __ATOMIC_ACQ_REL) != 0)
		p->overlaps++;
	if (msg->type == KICK) {
		msg->type = 0;
		lca_send(p->peer, msg);
	} else if (p->left > 0) {
		p->left--;
		lca_reply(msg); /* the same envelope goes back */
	} else if (__atomic_add_fetch(&pairs_done, 1, __ATOMIC_RELAXED) == pairs_total) {
		lca_runtime_stop();
	}
	__atomic_store_n(&p->in_handler, 0, __ATOMIC_RELEASE);
}

static void
run_pingpong(enum lca_dispatcher d, unsigned int n_pairs, uint32_t rounds)
{
	lca_actor_id_t ids[2 * MAX_SENDERS];
	struct lca_actor_stats st;
	uint64_t handled = 0;

	pairs_done = 0;
	pairs_total = n_pairs;
	for (unsigned int i = 0; i < 2 * n_pairs; i++) {
		struct lca_actor_spec spec = {
			.handler = pingpong_handler,
			.state_size = sizeof(struct pingpong),
			.lcore = LCA_LCORE_ANY,
			.dispatcher = d,
		};

		assert_int_equal(lca_actor_spawn(&spec, &ids[i]), 0);
	}
	for (unsigned int i = 0; i < 2 * n_pairs; i++)
		*(struct pingpong *)lca_actor_state(ids[i]) =
			(struct pingpong){ .peer = ids[i ^ 1], .left = rounds };
	for (unsigned int k = 0; k < n_pairs; k++) {
		struct lca_msg *m;

		assert_int_equal(lca_msg_alloc(&m), 0);
		m->type = KICK;
		assert_int_equal(lca_send(ids[2 * k], m), 0);
	}
	assert_true(lca_test_run(60));

	for (unsigned int i = 0; i < 2 * n_pairs; i++) {
		struct pingpong *p = lca_actor_state(ids[i]);

		assert_int_equal(p->overlaps, 0);
		assert_int_equal(lca_actor_stats_get(ids[i], &st), 0);
		handled += st.handled;
	}
	/* Per pair: the kick, 2 x rounds replies, and the last delivery. */
	assert_int_equal(handled, (uint64_t)n_pairs * (2 * rounds + 2));
	/* Every reply reused its envelope; the last one went back to the pool. */
	assert_int_equal(lca_mempool_avail(), pool_full);
}

static void
test_reply_affinity(void **state)
{
	(void)state;
	run_pingpong(LCA_DISPATCH_AFFINITY, 4, 5000);
}

/* Any lcore may run a shared actor, but never two at once. */
static void
test_reply_shared_dispatcher(void **state)
{
	(void)state;
	run_pingpong(LCA_DISPATCH_SHARED, 4, 5000);
}

/* --- idle actors --------------------------------------------------------- */

/* 10,000 actors that never get a message are never run: the lcore's turns
 * are exactly the busy actor's. */
static void
test_idle_actors_cost_no_turns(void **state)
{
	const unsigned int n_idle = 10000;
	struct lca_lcore_stats ls;
	struct lca_actor_stats st;
	lca_actor_id_t busy;

	(void)state;
	for (unsigned int i = 0; i < n_idle; i++)
		spawn_recorder(0, 16, 0);
	busy = spawn_recorder(0, 1024, 1000);
	for (uint32_t i = 0; i < 1000; i++)
		assert_int_equal(lca_send(busy, seq_msg(0, i)), 0);
	lca_lcore_stats_reset();
	assert_true(lca_test_run(30));

	assert_int_equal(lca_actor_stats_get(busy, &st), 0);
	assert_int_equal(st.handled, 1000);
	assert_int_equal(lca_lcore_stats_get(0, &ls), 0);
	assert_int_equal(ls.turns, st.turns);
	for (unsigned int i = 0; i < n_idle; i++) {
		assert_int_equal(lca_actor_stats_get(i, &st), 0);
		assert_int_equal(st.turns, 0);
	}
}

/* --- channels between lcores --------------------------------------------- */

struct burst_sender {
	lca_actor_id_t to;
	uint32_t count;
	int failures;
};

static uint32_t bursts_sent; /* burst_sender turns done (atomic) */

/* One turn sends all its messages to an actor on the other lcore. */
static void
burst_sender_handler(lca_actor_id_t self, void *state, struct lca_msg *poke)
{
	struct burst_sender *b = state;

	(void)self;
	(void)poke;
	for (uint32_t i = 0; i < b->count; i++) {
		struct lca_msg *m = seq_msg(0, i);

		if (lca_send(b->to, m) != 0) {
			lca_msg_free(m);
			b->failures++;
		}
	}
	__atomic_fetch_add(&bursts_sent, 1, __ATOMIC_RELEASE);
}

/* A recorder whose first message keeps it busy until the burst is all
 * sent: the rest waits in the channel, and the drain finds the recorder
 * with mail, so it goes through the mailbox, not straight to the
 * handler. Bounded: a sender that never finishes shows in the counts. */
static void
gated_recorder_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct recorder *r = state;

	for (uint64_t spins = 0; r->got == 0 && spins < 20000000 &&
	     __atomic_load_n(&bursts_sent, __ATOMIC_ACQUIRE) == 0; spins++)
		rte_pause();
	recorder_handler(self, state, msg);
}

/* 100 messages cross to a mailbox of 16: they wait in the channel, in
 * order, until there is room; none is lost or refused. */
static void
test_channel_holds_until_mailbox_has_room(void **state)
{
	struct lca_actor_spec spec = {
		.handler = gated_recorder_handler,
		.state_size = sizeof(struct recorder),
		.lcore = 0,
		.mailbox_size = 16,
		.throughput = 32,
	};
	struct lca_actor_stats st;
	struct recorder *r;
	lca_actor_id_t rx, tx;

	(void)state;
	assert_int_equal(lca_actor_spawn(&spec, &rx), 0);
	r = lca_actor_state(rx);
	r->expect = 100;
	__atomic_store_n(&bursts_sent, 0, __ATOMIC_RELAXED);
	tx = spawn_on(burst_sender_handler, sizeof(struct burst_sender), 1);
	*(struct burst_sender *)lca_actor_state(tx) = (struct burst_sender){ .to = rx, .count = 100 };
	assert_int_equal(lca_send(tx, seq_msg(0, 0)), 0);
	assert_true(lca_test_run(20));

	assert_int_equal(((struct burst_sender *)lca_actor_state(tx))->failures, 0);
	assert_int_equal(r->got, 100);
	assert_int_equal(r->out_of_order, 0);
	assert_int_equal(lca_actor_stats_get(rx, &st), 0);
	assert_true(st.deferred > 0); /* the full mailbox held them back */
	assert_int_equal(st.rejected, 0);
	assert_int_equal(lca_mempool_avail(), pool_full);
}

/* Messages that reach an actor after it stopped, through a channel, are
 * freed and counted, not leaked. */
static void
stopping_sender_handler(lca_actor_id_t self, void *state, struct lca_msg *poke)
{
	burst_sender_handler(self, state, poke);
	lca_runtime_stop();
}

static lca_actor_id_t counted_rx;
static uint64_t counted_want;

/* A recorder's messages are all in: handled, or dropped as it stopped. */
static bool
got_or_dropped(void *arg)
{
	struct lca_actor_stats st;

	(void)arg;
	lca_actor_stats_get(counted_rx, &st);
	return ((struct recorder *)lca_actor_state(counted_rx))->got + st.dropped_on_stop >=
	       counted_want;
}

static void
test_late_arrivals_to_stopped_actor_are_counted(void **state)
{
	lca_actor_id_t rx = spawn_recorder(0, 16, 1000);
	struct lca_actor_stats st;
	lca_actor_id_t tx;

	(void)state;
	tx = spawn_on(stopping_sender_handler, sizeof(struct burst_sender), 1);
	*(struct burst_sender *)lca_actor_state(tx) = (struct burst_sender){ .to = rx, .count = 50 };
	assert_int_equal(lca_send(tx, seq_msg(0, 0)), 0);
	assert_true(lca_test_run(20));
	assert_int_equal(lca_actor_stop(rx), 0);
	/* Let the lcores deliver what is still in the channel. */
	counted_rx = rx;
	counted_want = 50;
	assert_true(lca_test_run_until(got_or_dropped, NULL, 30));

	assert_int_equal(lca_actor_stats_get(rx, &st), 0);
	assert_int_equal(((struct recorder *)lca_actor_state(rx))->got + st.dropped_on_stop, 50);
	assert_int_equal(lca_mempool_avail(), pool_full);
}

/* --- other threads ------------------------------------------------------ */

struct stopper {
	lca_actor_id_t victim;
	int ret;
};

static void
stopper_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct stopper *s = state;

	(void)self;
	(void)msg;
	s->ret = lca_actor_stop(s->victim);
}

/* An actor on lcore 0 stops one on lcore 1 that has mail: the request goes
 * through lcore 1's inbox, and every message is handled or counted. */
static void
test_stop_from_another_lcore(void **state)
{
	lca_actor_id_t victim = spawn_recorder(1, 64, 1000);
	struct lca_actor_stats st;
	lca_actor_id_t stopper;

	(void)state;
	stopper = spawn_on(stopper_handler, sizeof(struct stopper), 0);
	*(struct stopper *)lca_actor_state(stopper) = (struct stopper){ .victim = victim, .ret = 1 };
	for (uint32_t i = 0; i < 40; i++)
		assert_int_equal(lca_send(victim, seq_msg(0, i)), 0);
	assert_int_equal(lca_send(stopper, seq_msg(0, 0)), 0);
	assert_int_equal(lca_test_runtime_run(500), -ETIMEDOUT);

	assert_int_equal(((struct stopper *)lca_actor_state(stopper))->ret, 0);
	assert_false(lca_actor_alive(victim));
	assert_int_equal(lca_actor_stats_get(victim, &st), 0);
	assert_int_equal(st.handled + st.dropped_on_stop, 40);
	assert_int_equal(lca_mempool_avail(), pool_full);
}

struct feeder {
	lca_actor_id_t to;
	uint32_t count;
	uint64_t retries;
	bool registered;       /* rte_thread_register() first */
	unsigned int lcore_id; /* the id it had while sending */
};

static void *
feed(void *arg)
{
	struct feeder *f = arg;

	if (f->registered && rte_thread_register() != 0)
		return NULL;
	f->lcore_id = rte_lcore_id();
	for (uint32_t i = 0; i < f->count;) {
		struct lca_msg *m;

		if (lca_msg_alloc(&m) != 0) {
			f->retries++;
			continue;
		}
		((struct seq_msg *)m->data)->sender = 1;
		((struct seq_msg *)m->data)->seq = i;
		if (lca_send(f->to, m) != 0) {
			lca_msg_free(m);
			f->retries++;
			continue;
		}
		i++;
	}
	if (f->registered)
		rte_thread_unregister();
	return NULL;
}

/* A thread that is no lcore sends to an actor while the loops run: in
 * order, none lost. */
static struct feeder
feed_from_thread(bool registered)
{
	lca_actor_id_t rx = spawn_recorder(1, 128, 20000);
	struct feeder f = { .to = rx, .count = 20000, .registered = registered };
	struct recorder *r = lca_actor_state(rx);
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, feed, &f), 0);
	assert_true(lca_test_run(30));
	pthread_join(t, NULL);
	assert_int_equal(r->got, 20000);
	assert_int_equal(r->out_of_order, 0);
	assert_int_equal(r->next_seq[1], 20000);
	return f;
}

static void
test_send_from_non_eal_thread(void **state)
{
	(void)state;
	feed_from_thread(false);
}

/* A thread given an lcore id by rte_thread_register() has no loop (it is not
 * an enabled lcore): it sends through the receiver's inbox as any thread,
 * with an envelope cache of its own. In order, none lost. */
static void
test_send_from_registered_thread(void **state)
{
	struct feeder f = feed_from_thread(true);

	(void)state;
	assert_true(f.lcore_id < RTE_MAX_LCORE);
	assert_false(rte_lcore_is_enabled(f.lcore_id));
}

struct flood {
	lca_actor_id_t to;
	uint32_t count;
	uint32_t sent;
	uint32_t refused; /* channel full, or no envelope left */
};

static void
flood_handler(lca_actor_id_t self, void *state, struct lca_msg *poke)
{
	struct flood *f = state;

	(void)self;
	(void)poke;
	for (uint32_t i = 0; i < f->count; i++) {
		struct lca_msg *m;

		if (lca_msg_alloc(&m) != 0) {
			f->refused++;
			continue;
		}
		((struct seq_msg *)m->data)->sender = 2;
		((struct seq_msg *)m->data)->seq = f->sent;
		if (lca_send(f->to, m) != 0) {
			lca_msg_free(m);
			f->refused++;
			continue;
		}
		f->sent++;
	}
	lca_runtime_stop();
}

static struct recorder *flood_r;
static struct flood *flood_f;

static bool
flood_in(void *arg)
{
	(void)arg;
	return flood_r->got >= flood_f->sent;
}

/* One turn sends far more than a channel holds to another lcore: the
 * sender is told when there is no room, and everything sent arrives. */
static void
test_flood_to_another_lcore(void **state)
{
	lca_actor_id_t rx = spawn_recorder(0, 1024, 0);
	struct recorder *r = lca_actor_state(rx);
	struct flood *f;
	lca_actor_id_t tx;

	(void)state;
	tx = spawn_on(flood_handler, sizeof(struct flood), 1);
	f = lca_actor_state(tx);
	*f = (struct flood){ .to = rx, .count = 100000 };
	assert_int_equal(lca_send(tx, seq_msg(0, 0)), 0);
	assert_true(lca_test_run(30));
	/* What is still between the lcores arrives in later runs. */
	flood_r = r;
	flood_f = f;
	assert_true(lca_test_run_until(flood_in, NULL, 30));

	assert_int_equal(f->sent + f->refused, 100000);
	assert_int_equal(r->got, f->sent);
	assert_int_equal(r->out_of_order, 0);
	assert_int_equal(lca_mempool_avail(), pool_full);
}

static void *
stop_it(void *arg)
{
	lca_actor_stop(*(lca_actor_id_t *)arg);
	return NULL;
}

/* A thread that is not the main lcore stops an actor between runs: the
 * stop waits for the actor's lcore, and every message is counted. */
static void
test_stop_from_another_thread_between_runs(void **state)
{
	lca_actor_id_t victim = spawn_recorder(1, 64, 1000);
	struct lca_actor_stats st;
	pthread_t t;

	(void)state;
	for (uint32_t i = 0; i < 30; i++)
		assert_int_equal(lca_send(victim, seq_msg(0, i)), 0);
	assert_int_equal(pthread_create(&t, NULL, stop_it, &victim), 0);
	pthread_join(t, NULL);
	assert_false(lca_actor_alive(victim));
	counted_rx = victim;
	counted_want = 30;
	assert_true(lca_test_run_until(got_or_dropped, NULL, 30));
	assert_int_equal(lca_actor_stats_get(victim, &st), 0);
	assert_int_equal(st.handled, 0);
	assert_int_equal(st.dropped_on_stop, 30);
	assert_int_equal(lca_mempool_avail(), pool_full);
}

/* --- telemetry ------------------------------------------------------------ */

/* The number @p key of the reply to @p cmd, or -1. */
static json_int_t
telemetry_number(const char *cmd, const char *key)
{
	char reply[4096];
	json_t *root, *value;
	json_int_t v = -1;

	if (lca_test_telemetry_query(cmd, reply, sizeof(reply)) != 0)
		return -1;
	root = json_loads(reply, 0, NULL);
	value = json_object_get(json_object_get(root, cmd), key);
	if (json_is_integer(value))
		v = json_integer_value(value);
	json_decref(root);
	return v;
}

static void
test_telemetry_commands(void **state)
{
	lca_actor_id_t id = spawn_recorder(1, 16, 3);
	char reply[4096], cmd[64];

	(void)state;
	for (uint32_t i = 0; i < 3; i++)
		assert_int_equal(lca_send(id, seq_msg(0, i)), 0);
	assert_true(lca_test_run(20));

	assert_int_equal(telemetry_number("/lcactor/info", "actors"), 1);
	assert_int_equal(telemetry_number("/lcactor/info", "send_mailbox_full"), 0);
	snprintf(cmd, sizeof(cmd), "/lcactor/actor,%u", id);
	/* The reply is keyed by the command without its parameter. */
	assert_int_equal(lca_test_telemetry_query(cmd, reply, sizeof(reply)), 0);
	assert_non_null(strstr(reply, "\"handled\":3"));
	assert_non_null(strstr(reply, "\"lcore\":1"));
	assert_int_equal(lca_test_telemetry_query("/lcactor/lcores", reply, sizeof(reply)), 0);
	assert_non_null(strstr(reply, "\"1\":{\"turns\":"));
	/* A bad id is an error reply, not a crash. */
	assert_int_equal(lca_test_telemetry_query("/lcactor/actor,zz", reply, sizeof(reply)), 0);
	assert_null(strstr(reply, "handled"));
}

/* --- memory ------------------------------------------------------------ */

static void
test_one_pool_per_node(void **state)
{
	unsigned int lcore_id, nodes = 0;
	uint64_t seen = 0;

	(void)state;
	RTE_LCORE_FOREACH(lcore_id) {
		int node = (int)rte_lcore_to_socket_id(lcore_id);

		node = node < 0 ? 0 : node;
		if (!(seen & (1ull << node))) {
			seen |= 1ull << node;
			nodes++;
		}
		assert_non_null(lca_mempool_of_node(node));
	}
	assert_int_equal(lca_mempool_count(), nodes);
	assert_null(lca_mempool_of_node(63));
}

static void
test_state_on_home_node(void **state)
{
	lca_actor_id_t id = spawn_recorder(1, 16, 0);
	int node = (int)rte_lcore_to_socket_id(1);
	int where = lca_mempool_page_node(lca_actor_state(id));

	(void)state;
	if (where == -ENOSYS)
		lca_test_skip("the kernel has no NUMA (move_pages): no node to check");
	assert_int_equal(where, node < 0 ? 0 : node);
	assert_int_equal(lca_mempool_pages_on_node(lca_actor_state(id), 64, where, 4), 100);
}

/* An mbuf travels inside an envelope and is freed with it. */
static void
test_mbuf_message(void **state)
{
	struct rte_mempool *mp = rte_pktmbuf_pool_create("lca_t_mbuf", 63, 0, 0, 256, 0);
	lca_actor_id_t id = spawn_recorder(1, 16, 1);
	struct rte_mbuf *mb;
	struct lca_msg *m;

	(void)state;
	assert_non_null(mp);
	mb = rte_pktmbuf_alloc(mp);
	assert_non_null(mb);
	assert_int_equal(lca_msg_from_mbuf(mb, &m), 0);
	assert_ptr_equal(m->ptr, mb);
	assert_int_equal(rte_mempool_avail_count(mp), 62);
	assert_int_equal(lca_send(id, m), 0);
	assert_true(lca_test_run(20));
	assert_int_equal(rte_mempool_avail_count(mp), 63);
	assert_int_equal(lca_mempool_avail(), pool_full);
	rte_mempool_free(mp);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mailbox_full, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_mailbox_empty_is_not_run, runtime_up,
						runtime_down),
		cmocka_unit_test_setup_teardown(test_mailbox_wraparound, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_send_errors, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_pool_empty, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_spawn_rejects_bad_specs, runtime_up,
						runtime_down),
		cmocka_unit_test_setup_teardown(test_zeroed_spec_and_stats_args, runtime_up,
						runtime_down),
		cmocka_unit_test_setup_teardown(test_stop_with_pending, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_self_stop_drains_mailbox, runtime_up,
						runtime_down),
		cmocka_unit_test_setup_teardown(test_many_to_one_mp, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_many_to_one_rts, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_many_to_one_hts, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_reply_affinity, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_reply_shared_dispatcher, runtime_up,
						runtime_down),
		cmocka_unit_test_setup_teardown(test_idle_actors_cost_no_turns, runtime_up,
						runtime_down),
		cmocka_unit_test_setup_teardown(test_channel_holds_until_mailbox_has_room, runtime_up,
						runtime_down),
		cmocka_unit_test_setup_teardown(test_late_arrivals_to_stopped_actor_are_counted,
						runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_stop_from_another_lcore, runtime_up,
						runtime_down),
		cmocka_unit_test_setup_teardown(test_send_from_non_eal_thread, runtime_up,
						runtime_down),
		cmocka_unit_test_setup_teardown(test_send_from_registered_thread, runtime_up,
						runtime_down),
		cmocka_unit_test_setup_teardown(test_flood_to_another_lcore, runtime_up,
						runtime_down),
		cmocka_unit_test_setup_teardown(test_stop_from_another_thread_between_runs,
						runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_telemetry_commands, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_one_pool_per_node, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_state_on_home_node, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_mbuf_message, runtime_up, runtime_down),
	};
	int failed;

	lca_test_eal_init("lca_test_actor");
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	lca_eal_cleanup();
	return lca_test_status(failed);
}
