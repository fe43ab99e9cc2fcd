/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports in the lcore loops, on net_ring: an ethdev whose TX queue q writes
 * the ring that its RX queue q reads (rte_eth_ring's "ETH_RXTX<q>_<name>"),
 * so a test puts packets on the wire by enqueueing to that ring and takes
 * what TX sent from it. The EAL arguments create net_ring0 (as an app's
 * --vdev would); each other test probes a port of its own, since
 * lca_port_stop() closes the port.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_interrupts.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_mempool.h"
#include "lca_port.h"
#include "lca_test.h"
#include "lca_test_port.h"

#define PKTS 1000
#define FLOWS 4

static unsigned int msg_pool_full;

static int
runtime_up(void **state)
{
	struct lca_runtime_conf c = { .msgs_per_node = 8191, .pool_cache = 64 };

	(void)state;
	return lca_test_runtime_up(&c, &msg_pool_full);
}

/* What a test left when it failed half-way, undone by the teardown so
 * that the next tests start clean. */
static struct lca_port *open_port;
static struct lca_lcore_hook open_hook;
static unsigned int open_hook_lcore = RTE_MAX_LCORE;

static int
runtime_down(void **state)
{
	(void)state;
	if (open_hook_lcore != RTE_MAX_LCORE)
		lca_lcore_hook_remove(open_hook_lcore, &open_hook);
	open_hook_lcore = RTE_MAX_LCORE;
	if (open_port != NULL)
		lca_port_stop(open_port);
	open_port = NULL;
	return lca_runtime_cleanup();
}

/* Start a port the teardown stops if the test does not. */
static struct lca_port *
start_port(const struct lca_port_conf *c)
{
	struct lca_port *p = NULL;

	assert_int_equal(lca_port_start(c, &p), 0);
	assert_non_null(p);
	open_port = p;
	return p;
}

static void
stop_port(struct lca_port *p)
{
	open_port = NULL;
	assert_int_equal(lca_port_stop(p), 0);
	assert_int_equal(lca_port_pools_kept(), 0);
}

/* As runtime_up, with lcores that sleep when a loop finds nothing to do. */
static int
runtime_up_sleepy(void **state)
{
	struct lca_runtime_conf c = {
		.msgs_per_node = 8191, .pool_cache = 64,
		.idle = LCA_IDLE_SLEEP, .idle_sleep_after = 16, .idle_sleep_us = 100,
	};

	(void)state;
	return lca_test_runtime_up(&c, &msg_pool_full);
}

/* Put @p n packets on the wire of RX queue @p q: flows q, q + 2, ...
 * (FLOWS in all, spread over 2 queues), each flow numbered from 0. */
static void
inject(const char *name, unsigned int q, struct rte_mempool *mp, unsigned int n,
       uint32_t *next_seq)
{
	struct rte_ring *r = port_ring(name, q);

	for (unsigned int i = 0; i < n; i++) {
		uint32_t flow = q + 2 * (i % (FLOWS / 2));
		struct rte_mbuf *m = make_pkt(mp, flow, next_seq[flow]++);

		assert_int_equal(rte_ring_enqueue(r, m), 0);
	}
}

/* A packet sink: batch handler that checks each flow's order, and frees. */
struct sink {
	uint64_t got;
	uint64_t expect;  /* stops the loops when it has got this many */
	uint64_t calls;
	uint64_t out_of_order;
	uint64_t no_mbuf;
	uint32_t next[FLOWS];
	unsigned int lcore_wrong; /* calls on another lcore than its home */
	unsigned int home;
	/* A stalled sink spins in its first call until released. */
	bool stall;
	bool stalled_once;
};

static void
sink_handler(lca_actor_id_t self, void *state, struct lca_msg **msgs, unsigned int n)
{
	struct sink *s = state;

	(void)self;
	if (s->stall && !s->stalled_once) {
		__atomic_store_n(&s->stalled_once, true, __ATOMIC_RELEASE);
		while (__atomic_load_n(&s->stall, __ATOMIC_ACQUIRE) && !lca_lcore_stopping())
			rte_pause();
	}
	s->calls++;
	if (rte_lcore_id() != s->home)
		s->lcore_wrong++;
	for (unsigned int i = 0; i < n; i++) {
		const struct rte_mbuf *m = msgs[i]->ptr;
		const struct pkt_data *d;

		if (!(msgs[i]->flags & LCA_MSG_F_MBUF) || m == NULL) {
			s->no_mbuf++;
			continue;
		}
		d = pkt_of(m);
		if (d->flow >= FLOWS || d->seq != s->next[d->flow])
			s->out_of_order++;
		else
			s->next[d->flow]++;
	}
	lca_msg_free_bulk(msgs, n);
	s->got += n;
	if (s->got == s->expect)
		lca_runtime_stop();
}

static lca_actor_id_t
spawn_sink(unsigned int lcore, uint64_t expect)
{
	struct lca_actor_spec spec = {
		.batch_handler = sink_handler,
		.state_size = sizeof(struct sink),
		.lcore = lcore,
		.throughput = 32,
		.name = "sink",
	};
	lca_actor_id_t id;
	struct sink *s;

	assert_int_equal(lca_actor_spawn(&spec, &id), 0);
	s = lca_actor_state(id);
	s->expect = expect;
	s->home = lcore;
	return id;
}

/* Flows 0 and 2 to one sink, 1 and 3 to the other. */
struct two_sinks {
	lca_actor_id_t by_parity[2];
	uint64_t calls;
};

static void
classify_parity(struct rte_mbuf **pkts, lca_actor_id_t *to, unsigned int n, void *arg)
{
	struct two_sinks *t = arg;

	__atomic_fetch_add(&t->calls, 1, __ATOMIC_RELAXED); /* both lcores classify */
	for (unsigned int i = 0; i < n; i++)
		to[i] = t->by_parity[pkt_of(pkts[i])->flow & 1];
}

struct sinks_done {
	lca_actor_id_t a, b;
	uint64_t expect;
};

static bool
sinks_done(void *arg)
{
	const struct sinks_done *d = arg;
	const struct sink *a = lca_actor_state(d->a), *b = lca_actor_state(d->b);

	return a->got + b->got >= d->expect;
}

/* Bad input gets its own errno, and leaves the port usable. */
static void
test_bad_input(void **state)
{
	struct lca_port_conf c = { .dest = 0, .rx_desc = 256, .tx_desc = 256 };
	struct lca_port *p = NULL;
	char name[16];
	uint16_t pid = new_ring_port(name, sizeof(name)), parsed;
	char s[8];

	(void)state;
	/* No such port. */
	c.port_id = RTE_MAX_ETHPORTS - 1;
	assert_int_equal(lca_port_start(&c, &p), -ENODEV);
	assert_null(p);
	assert_int_equal(lca_port_parse_id("31", &parsed), -ENODEV);
	assert_int_equal(lca_port_parse_id("x1", &parsed), -EINVAL);
	assert_int_equal(lca_port_parse_id("99999", &parsed), -EINVAL);
	snprintf(s, sizeof(s), "%u", pid);
	assert_int_equal(lca_port_parse_id(s, &parsed), 0);
	assert_int_equal(parsed, pid);
	assert_true(lca_port_count() >= 2);

	/* More RX queues than net_ring has (16). */
	c.port_id = pid;
	c.n_rxq = 17;
	assert_int_equal(lca_port_start(&c, &p), -EINVAL);
	c.n_rxq = 0;
	c.n_txq = 64;
	assert_int_equal(lca_port_start(&c, &p), -EINVAL);
	c.n_txq = 0;
	/* A pool smaller than its rings. */
	c.n_mbufs = 300;
	assert_int_equal(lca_port_start(&c, &p), -ENOSPC);
	c.n_mbufs = 0;
	/* Nowhere to send packets; a burst too big; an lcore not enabled. */
	c.dest = LCA_ACTOR_NONE;
	assert_int_equal(lca_port_start(&c, &p), -EINVAL);
	c.dest = 0;
	c.burst = LCA_PORT_BURST_MAX + 1;
	assert_int_equal(lca_port_start(&c, &p), -EINVAL);
	c.burst = 0;
	c.rx_lcores = (const unsigned int[]){ 5 };
	c.n_rx_lcores = 1;
	assert_int_equal(lca_port_start(&c, &p), -EINVAL);
	c.rx_lcores = NULL;
	c.n_rx_lcores = 0;
	assert_null(p);

	/* After all that, the port starts; twice is refused. */
	p = start_port(&c);
	assert_non_null(p);
	{
		struct lca_port *again = NULL;

		assert_int_equal(lca_port_start(&c, &again), -EBUSY);
		assert_null(again);
	}
	stop_port(p);
	assert_int_equal(lca_port_stop(NULL), -EINVAL);
}

/* Every packet reaches the actor its flow is classified to, on that
 * actor's lcore, each flow in order, through batch handlers; the RX queues
 * are polled by the lcores asked for, and every mbuf comes back. */
static void
test_rx_delivers_in_order(void **state)
{
	char name[16];
	uint16_t pid = new_ring_port(name, sizeof(name));
	struct two_sinks t;
	struct sinks_done d;
	struct lca_port_conf c = {
		.port_id = pid, .n_rxq = 2, .n_txq = 1, .rx_desc = 256, .tx_desc = 256,
		.rx_lcores = (const unsigned int[]){ 1, 0 }, .n_rx_lcores = 2,
		.classify = classify_parity, .classify_arg = &t,
	};
	struct lca_port *p;
	struct lca_port_stats st, q0, q1;
	struct rte_mempool *mp;
	uint32_t seq[FLOWS] = { 0 };
	const struct sink *a, *b;

	(void)state;
	t.by_parity[0] = spawn_sink(0, 0);
	t.by_parity[1] = spawn_sink(1, 0);
	t.calls = 0;
	p = start_port(&c);
	assert_int_equal(lca_port_rx_queues(p), 2);
	assert_int_equal(lca_port_tx_queues(p), 1);
	assert_int_equal(lca_port_rx_lcore(p, 0), 1);
	assert_int_equal(lca_port_rx_lcore(p, 1), 0);
	assert_int_equal(lca_port_rx_lcore(p, 2), -EINVAL);
	mp = lca_port_mempool(p);
	assert_non_null(mp);
	inject(name, 0, mp, PKTS / 2, seq);
	inject(name, 1, mp, PKTS / 2, seq);

	d = (struct sinks_done){ .a = t.by_parity[0], .b = t.by_parity[1], .expect = PKTS };
	assert_true(lca_test_run_until(sinks_done, &d, 20));
	a = lca_actor_state(t.by_parity[0]);
	b = lca_actor_state(t.by_parity[1]);
	assert_int_equal(a->got, PKTS / 2);
	assert_int_equal(b->got, PKTS / 2);
	assert_int_equal(a->out_of_order + b->out_of_order, 0);
	assert_int_equal(a->no_mbuf + b->no_mbuf, 0);
	assert_int_equal(a->lcore_wrong + b->lcore_wrong, 0);
	/* Flow f went to the sink of its parity, all of it. */
	assert_int_equal(a->next[0], seq[0]);
	assert_int_equal(a->next[2], seq[2]);
	assert_int_equal(b->next[1], seq[1]);
	assert_int_equal(b->next[3], seq[3]);
	/* Classified in bursts, not packet by packet. */
	assert_true(t.calls < PKTS / 4);

	assert_int_equal(lca_port_stats_get(p, &st), 0);
	assert_int_equal(st.rx, PKTS);
	assert_int_equal(st.delivered, PKTS);
	assert_int_equal(st.held, 0);
	assert_int_equal(st.dropped_policy + st.dropped_dest, 0);
	assert_accounting(&st);
	assert_int_equal(lca_port_queue_stats_get(p, 0, &q0), 0);
	assert_int_equal(lca_port_queue_stats_get(p, 1, &q1), 0);
	assert_int_equal(q0.rx, PKTS / 2);
	assert_int_equal(q1.rx, PKTS / 2);
	assert_int_equal(lca_port_queue_stats_get(p, 2, &q1), -EINVAL);

	assert_true(pool_is_full(mp));
	stop_port(p);
	assert_int_equal(lca_mempool_avail(), msg_pool_full);
}

/* What the classifier drops is counted, freed, and nothing else is lost. */
static void
classify_drop_odd(struct rte_mbuf **pkts, lca_actor_id_t *to, unsigned int n, void *arg)
{
	const lca_actor_id_t *dest = arg;

	for (unsigned int i = 0; i < n; i++)
		to[i] = pkt_of(pkts[i])->seq & 1 ? LCA_ACTOR_NONE : *dest;
}

static bool
sink_done(void *arg)
{
	const lca_actor_id_t *id = arg;
	const struct sink *s = lca_actor_state(*id);

	return s->got >= s->expect;
}

static void
test_drop_by_policy(void **state)
{
	char name[16];
	uint16_t pid = new_ring_port(name, sizeof(name));
	lca_actor_id_t dest = spawn_sink(1, PKTS / 2);
	struct lca_port_conf c = {
		.port_id = pid, .n_rxq = 1, .n_txq = 1, .rx_desc = 256, .tx_desc = 256,
		.classify = classify_drop_odd, .classify_arg = &dest,
	};
	struct lca_port *p;
	struct lca_port_stats st;
	struct rte_mempool *mp;
	struct rte_ring *r;
	const struct sink *s;

	(void)state;
	p = start_port(&c);
	mp = lca_port_mempool(p);
	r = port_ring(name, 0);
	for (uint32_t i = 0; i < PKTS; i++)
		assert_int_equal(rte_ring_enqueue(r, make_pkt(mp, 0, i)), 0);
	assert_true(lca_test_run_until(sink_done, &dest, 20));
	s = lca_actor_state(dest);
	assert_int_equal(s->got, PKTS / 2);
	assert_int_equal(lca_port_stats_get(p, &st), 0);
	assert_int_equal(st.rx, PKTS);
	assert_int_equal(st.dropped_policy, PKTS / 2);
	assert_int_equal(st.delivered, PKTS / 2);
	assert_int_equal(st.dropped_dest, 0);
	assert_int_equal(st.held, 0);
	assert_accounting(&st);
	assert_true(pool_is_full(mp));
	stop_port(p);
}

/* A TX actor's packets leave in bursts, in order, on the TX queue of the
 * lcore that asked; a ring too small for them makes the driver refuse
 * some, and those are counted, never lost without a trace. */
struct tx_done {
	const struct lca_port *p;
	uint64_t expect;
};

static bool
tx_done(void *arg)
{
	const struct tx_done *d = arg;
	struct lca_port_stats st;

	lca_port_stats_get(d->p, &st);
	return st.tx + st.tx_dropped >= d->expect;
}

static void
tx_run(unsigned int n, unsigned int *out_ring, struct lca_port_stats *st)
{
	char name[16];
	uint16_t pid = new_ring_port(name, sizeof(name));
	/* One RX queue, on ring 0: ring 1 carries TX queue 1 only. */
	struct lca_port_conf c = {
		.port_id = pid, .n_rxq = 1, .n_txq = 2, .rx_desc = 256, .tx_desc = 256,
		.dest = spawn_sink(0, 0),
	};
	struct lca_port *p;
	struct rte_mempool *mp;
	struct rte_ring *r;
	struct tx_done d;
	lca_actor_id_t tx;
	struct rte_mbuf *m;
	unsigned int got = 0, out_of_order = 0;

	p = start_port(&c);
	mp = lca_port_mempool(p);
	tx = lca_port_tx_actor(p, 1);
	assert_int_not_equal(tx, LCA_ACTOR_NONE);
	assert_int_equal(lca_actor_lcore(tx), 1);
	assert_int_not_equal(lca_port_tx_actor(p, 0), tx);
	assert_int_equal(lca_actor_lcore(lca_port_tx_actor(p, 0)), 0);
	assert_int_equal(lca_port_tx_actor(p, RTE_MAX_LCORE), LCA_ACTOR_NONE);
	assert_int_equal(lca_port_tx_actor(NULL, 0), LCA_ACTOR_NONE);

	for (uint32_t i = 0; i < n; i++) {
		struct lca_msg *msg;

		assert_int_equal(lca_msg_from_mbuf(make_pkt(mp, 1, i), &msg), 0);
		assert_int_equal(lca_send(tx, msg), 0);
	}
	d = (struct tx_done){ .p = p, .expect = n };
	assert_true(lca_test_run_until(tx_done, &d, 20));
	assert_int_equal(lca_port_stats_get(p, st), 0);

	r = port_ring(name, 1);
	while (rte_ring_dequeue(r, (void **)&m) == 0) {
		if (pkt_of(m)->seq != got)
			out_of_order++;
		got++;
		rte_pktmbuf_free(m);
	}
	assert_int_equal(out_of_order, 0);
	*out_ring = got;
	assert_true(pool_is_full(mp));
	stop_port(p);
}

static void
test_tx_bursts(void **state)
{
	struct lca_port_stats st;
	unsigned int on_wire;

	(void)state;
	tx_run(PKTS / 2, &on_wire, &st);
	assert_int_equal(on_wire, PKTS / 2);
	assert_int_equal(st.tx, PKTS / 2);
	assert_int_equal(st.tx_dropped, 0);
	/* In bursts: a flush per packet would make tx_bursts == tx. */
	assert_true(st.tx_bursts > 0);
	assert_true(st.tx_bursts * 4 <= st.tx);
	assert_int_equal(st.rx, 0);
}

struct tx_now_arg {
	struct lca_port *p;
	struct rte_mbuf *m;
	int ret;
};

static void *
tx_now_off_lcore(void *arg)
{
	struct tx_now_arg *a = arg;

	a->ret = lca_port_tx_now(a->p, &a->m, 1);
	return NULL;
}

/* lca_port_tx_now(): straight onto the calling lcore's queue, in order and
 * counted; refused (packets still the caller's) off the lcores. */
static void
test_tx_now(void **state)
{
	char name[16];
	uint16_t pid = new_ring_port(name, sizeof(name));
	struct lca_port_conf c = {
		.port_id = pid, .n_rxq = 1, .n_txq = 2, .rx_desc = 256, .tx_desc = 256,
		.dest = spawn_sink(0, 0),
	};
	struct rte_mbuf *pkts[64];
	struct lca_port_stats st;
	struct tx_now_arg a;
	struct lca_port *p;
	struct rte_mempool *mp;
	struct rte_ring *r;
	struct rte_mbuf *m;
	unsigned int got = 0, out_of_order = 0;
	pthread_t t;

	(void)state;
	p = start_port(&c);
	mp = lca_port_mempool(p);
	for (uint32_t i = 0; i < RTE_DIM(pkts); i++)
		pkts[i] = make_pkt(mp, 1, i);
	/* This thread is lcore 0, whose queue is TX queue 0 (ring 0); the
	 * loops do not run, so the ring keeps what was sent. */
	assert_int_equal(lca_port_tx_now(p, pkts, RTE_DIM(pkts)), 0);
	assert_int_equal(lca_port_tx_now(NULL, pkts, 1), -EINVAL);
	assert_int_equal(lca_port_tx_now(p, NULL, 1), -EINVAL);
	a = (struct tx_now_arg){ .p = p, .m = make_pkt(mp, 1, 99) };
	assert_int_equal(pthread_create(&t, NULL, tx_now_off_lcore, &a), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(a.ret, -EPERM);
	rte_pktmbuf_free(a.m);
	assert_int_equal(lca_port_stats_get(p, &st), 0);
	assert_int_equal(st.tx, RTE_DIM(pkts));
	assert_int_equal(st.tx_dropped, 0);
	r = port_ring(name, 0);
	while (rte_ring_dequeue(r, (void **)&m) == 0) {
		if (pkt_of(m)->seq != got)
			out_of_order++;
		got++;
		rte_pktmbuf_free(m);
	}
	assert_int_equal(got, RTE_DIM(pkts));
	assert_int_equal(out_of_order, 0);
	stop_port(p);
}

static void
test_tx_refused_counted(void **state)
{
	struct lca_port_stats st;
	unsigned int on_wire;

	(void)state;
	/* net_ring's rings hold 1023 packets, and nobody reads this one. */
	tx_run(1500, &on_wire, &st);
	assert_int_equal(on_wire, 1023);
	assert_int_equal(st.tx, 1023);
	assert_int_equal(st.tx_dropped, 1500 - 1023);
}

/*
 * Back-pressure: the destination stalls (its handler spins in its first
 * call), so its channel fills; RX pauses above the watermark and leaves
 * the rest of the packets in the NIC's ring. A hook on the RX queue's
 * lcore, after the port's, checks the accounting at every iteration and
 * lets the destination go once RX has paused a while. Then every packet
 * arrives, in order.
 */
struct bp_watch {
	const struct lca_port *p;
	lca_actor_id_t dest;
	uint64_t checks;
	uint64_t violations;
	uint64_t rx_at_release;
	bool released;
};

static unsigned int
bp_watch_poll(unsigned int lcore_id, uint64_t now_tsc, void *arg)
{
	struct bp_watch *w = arg;
	struct lca_port_stats st;

	(void)lcore_id;
	(void)now_tsc;
	lca_port_stats_get(w->p, &st);
	w->checks++;
	if (st.rx != st.delivered + st.dropped_policy + st.dropped_dest + st.held)
		w->violations++;
	/* Once the sink is stuck in its handler (its lcore may start late). */
	if (!w->released && st.paused_polls >= 20 &&
	    __atomic_load_n(&((struct sink *)lca_actor_state(w->dest))->stalled_once,
			    __ATOMIC_ACQUIRE)) {
		struct sink *s = lca_actor_state(w->dest);

		w->rx_at_release = st.rx;
		w->released = true;
		__atomic_store_n(&s->stall, false, __ATOMIC_RELEASE);
	}
	return 0;
}

static void
test_backpressure(void **state)
{
	char name[16];
	uint16_t pid = new_ring_port(name, sizeof(name));
	lca_actor_id_t dest = spawn_sink(1, PKTS);
	struct lca_port_conf c = {
		.port_id = pid, .n_rxq = 1, .n_txq = 1, .rx_desc = 256, .tx_desc = 256,
		.rx_lcores = (const unsigned int[]){ 0 }, .n_rx_lcores = 1,
		.dest = dest, .watermark = 64,
	};
	struct bp_watch w = { .dest = dest };
	struct lca_lcore_hook h = { .poll = bp_watch_poll, .arg = &w };
	struct lca_port *p;
	struct lca_port_stats st;
	struct lca_actor_stats as;
	struct lca_send_errors e0, e1;
	struct rte_mempool *mp;
	struct rte_ring *r;
	struct sink *s = lca_actor_state(dest);

	(void)state;
	s->stall = true;
	p = start_port(&c);
	w.p = p;
	assert_int_equal(lca_lcore_hook_add(0, &h), 0);
	open_hook = h;
	open_hook_lcore = 0;
	mp = lca_port_mempool(p);
	r = port_ring(name, 0);
	for (uint32_t i = 0; i < PKTS; i++)
		assert_int_equal(rte_ring_enqueue(r, make_pkt(mp, 0, i)), 0);
	lca_send_errors_get(&e0);

	/* One run, which the sink ends: a slice's end would release it too. */
	assert_true(lca_test_run(20));
	open_hook_lcore = RTE_MAX_LCORE;
	assert_int_equal(lca_lcore_hook_remove(0, &h), 0);
	lca_send_errors_get(&e1);

	assert_true(w.released);
	assert_true(s->stalled_once);
	/* It paused with most packets still in the NIC's ring. */
	assert_true(w.rx_at_release < PKTS / 2);
	assert_true(w.checks > 0);
	assert_int_equal(w.violations, 0);
	assert_int_equal(s->got, PKTS);
	assert_int_equal(s->out_of_order, 0);
	assert_int_equal(lca_port_stats_get(p, &st), 0);
	assert_true(st.paused_polls >= 20);
	assert_int_equal(st.rx, PKTS);
	assert_int_equal(st.delivered, PKTS);
	assert_int_equal(st.dropped_policy + st.dropped_dest + st.held, 0);
	/* The runtime dropped nothing, and no send even failed. */
	assert_int_equal(lca_actor_stats_get(dest, &as), 0);
	assert_int_equal(as.dropped_on_stop, 0);
	assert_int_equal(e1.mailbox_full - e0.mailbox_full, 0);
	assert_true(pool_is_full(mp));
	stop_port(p);
}

/*
 * The port EAL created (--vdev net_ring0), end to end: packets sent to the
 * TX actors of both lcores leave through their TX queues, come back on the
 * RX queues of the same numbers and reach the sinks, in order.
 */
static void
test_loopback_eal_port(void **state)
{
	struct two_sinks t;
	struct sinks_done d;
	struct lca_port_conf c = {
		.rx_desc = 256, .tx_desc = 256,
		.classify = classify_parity, .classify_arg = &t,
	};
	struct lca_port *p;
	struct lca_port_stats st;
	struct rte_mempool *mp;
	const struct sink *a, *b;
	uint32_t seq[FLOWS] = { 0 };

	(void)state;
	assert_int_equal(lca_port_parse_id("0", &c.port_id), 0);
	t.by_parity[0] = spawn_sink(0, 0);
	t.by_parity[1] = spawn_sink(1, 0);
	t.calls = 0;
	p = start_port(&c);
	/* Defaults: a queue per lcore each way. */
	assert_int_equal(lca_port_rx_queues(p), 2);
	assert_int_equal(lca_port_tx_queues(p), 2);
	mp = lca_port_mempool(p);
	/* Flow f leaves through lcore f % 2's TX queue, so it returns on the
	 * RX queue of that number: one flow, one path, one order. */
	for (unsigned int i = 0; i < PKTS; i++) {
		uint32_t flow = i % FLOWS;
		struct lca_msg *msg;

		assert_int_equal(lca_msg_from_mbuf(make_pkt(mp, flow, seq[flow]++), &msg), 0);
		assert_int_equal(lca_send(lca_port_tx_actor(p, flow & 1), msg), 0);
	}
	d = (struct sinks_done){ .a = t.by_parity[0], .b = t.by_parity[1], .expect = PKTS };
	assert_true(lca_test_run_until(sinks_done, &d, 20));
	a = lca_actor_state(t.by_parity[0]);
	b = lca_actor_state(t.by_parity[1]);
	assert_int_equal(a->got + b->got, PKTS);
	assert_int_equal(a->out_of_order + b->out_of_order, 0);
	assert_int_equal(lca_port_stats_get(p, &st), 0);
	assert_int_equal(st.tx, PKTS);
	assert_int_equal(st.rx, PKTS);
	assert_int_equal(st.delivered, PKTS);
	assert_accounting(&st);
	assert_true(pool_is_full(mp));
	stop_port(p);
	assert_int_equal(lca_mempool_avail(), msg_pool_full);
}

/* Mbufs still out when the port stops: the pool is kept, not freed under
 * them, and goes once they are back. */
static void
test_stop_keeps_busy_pool(void **state)
{
	char name[16];
	struct lca_port_conf c = { .rx_desc = 256, .tx_desc = 256, .dest = spawn_sink(0, 0) };
	struct lca_port *p;
	struct rte_mbuf *m;

	(void)state;
	c.port_id = new_ring_port(name, sizeof(name));
	p = start_port(&c);
	m = make_pkt(lca_port_mempool(p), 0, 0);
	open_port = NULL;
	assert_int_equal(lca_port_stop(p), 0);
	assert_int_equal(lca_port_pools_kept(), 1);
	rte_pktmbuf_free(m);
	assert_int_equal(lca_port_pools_kept(), 0);
}

/* An idle port is no work: the loops polling it count idle iterations and
 * their idle policy sleeps. A poll that claimed work for nothing would keep
 * them busy (no sleep at all). */
static void
test_idle_port_is_idle(void **state)
{
	char name[16];
	struct lca_port_conf c = { .rx_desc = 256, .tx_desc = 256, .dest = spawn_sink(0, 0) };
	struct lca_lcore_stats before[2], after[2];
	struct lca_port_stats st;
	struct lca_port *p;

	(void)state;
	c.port_id = new_ring_port(name, sizeof(name));
	p = start_port(&c);
	assert_int_equal(lca_port_rx_queues(p), 2);
	for (unsigned int l = 0; l < 2; l++)
		assert_int_equal(lca_lcore_stats_get(l, &before[l]), 0);
	assert_false(lca_test_run(1)); /* nothing stops it: the time limit does */
	for (unsigned int l = 0; l < 2; l++) {
		assert_int_equal(lca_lcore_stats_get(l, &after[l]), 0);
		assert_true(after[l].sleeps > before[l].sleeps);
	}
	assert_int_equal(lca_port_stats_get(p, &st), 0);
	assert_int_equal(st.rx, 0);
	stop_port(p);
}

/* RX off: the queue takes nothing while packets wait on the wire, and
 * takes them once on again. keep_open: a stopped port is not closed, so it
 * starts again (a closed vdev is gone). */
static void
test_rx_off_and_keep_open(void **state)
{
	char name[16];
	uint16_t pid = new_ring_port(name, sizeof(name));
	lca_actor_id_t dest = spawn_sink(1, PKTS);
	struct lca_port_conf c = {
		.port_id = pid, .n_rxq = 1, .n_txq = 1, .rx_desc = 256, .tx_desc = 256,
		.dest = dest, .keep_open = true,
	};
	struct lca_port *p;
	struct lca_port_stats st;
	struct rte_mempool *mp;
	struct rte_ring *r;
	struct sink *s;

	(void)state;
	assert_int_equal(lca_port_rx_enable(NULL, -1, false), -EINVAL);
	p = start_port(&c);
	mp = lca_port_mempool(p);
	r = port_ring(name, 0);
	assert_int_equal(lca_port_rx_enable(p, 1, false), -EINVAL);
	assert_int_equal(lca_port_rx_enable(p, -2, false), -EINVAL);
	assert_int_equal(lca_port_rx_enable(p, 0, false), 0);
	for (uint32_t i = 0; i < PKTS; i++)
		assert_int_equal(rte_ring_enqueue(r, make_pkt(mp, 0, i)), 0);
	assert_false(lca_test_run(1)); /* the time limit ends it: nothing comes */
	assert_int_equal(lca_port_stats_get(p, &st), 0);
	assert_int_equal(st.rx, 0);
	assert_int_equal(rte_ring_count(r), PKTS);
	assert_int_equal(lca_port_rx_enable(p, -1, true), 0);
	assert_true(lca_test_run_until(sink_done, &dest, 20));
	assert_int_equal(lca_port_stats_get(p, &st), 0);
	assert_int_equal(st.rx, PKTS);
	assert_int_equal(st.delivered, PKTS);
	assert_accounting(&st);
	stop_port(p);
	/* Not closed: it starts again, and delivers again. */
	assert_true(rte_eth_dev_is_valid_port(pid));
	s = lca_actor_state(dest);
	s->got = 0;
	s->next[0] = 0;
	p = start_port(&c);
	mp = lca_port_mempool(p);
	for (uint32_t i = 0; i < PKTS; i++)
		assert_int_equal(rte_ring_enqueue(r, make_pkt(mp, 0, i)), 0);
	assert_true(lca_test_run_until(sink_done, &dest, 20));
	assert_int_equal(s->out_of_order, 0);
	assert_true(pool_is_full(mp));
	stop_port(p);
	assert_true(rte_eth_dev_is_valid_port(pid));
}

/* A PMD that makes packets (net_null) never runs dry: a stop drains a
 * ring's worth and returns, every mbuf back. */
static void
test_stop_null_port(void **state)
{
	struct lca_port_conf c = { .rx_desc = 256, .tx_desc = 256, .dest = spawn_sink(0, 0) };
	struct lca_port *p;

	(void)state;
	assert_int_equal(rte_dev_probe("net_null7"), 0);
	assert_int_equal(rte_eth_dev_get_port_by_name("net_null7", &c.port_id), 0);
	p = start_port(&c);
	stop_port(p);
}

struct intr_probe {
	int runs;
	int inner_runs; /* how often intr_probe_inner() ran, wherever it did */
	bool on_intr;
	bool nested_on_intr;
};

static void
intr_probe_inner(void *arg)
{
	struct intr_probe *pr = arg;

	pr->inner_runs++;
	pr->nested_on_intr = rte_thread_is_intr();
}

static void
intr_probe_run(void *arg)
{
	struct intr_probe *pr = arg;

	pr->runs++;
	pr->on_intr = rte_thread_is_intr();
	/* From the interrupt thread itself it runs at once, not deadlocked
	 * behind this very call. */
	assert_int_equal(lca_eal_on_intr_thread(intr_probe_inner, pr), 0);
}

static int intr_hold; /* 1 while intr_block() holds the interrupt thread */

static void
intr_block(void *arg)
{
	(void)arg;
	__atomic_store_n(&intr_hold, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&intr_hold, __ATOMIC_ACQUIRE) == 1)
		rte_delay_us_sleep(1000);
}

static void *
intr_blocker(void *arg)
{
	lca_eal_on_intr_thread(intr_block, arg);
	return NULL;
}

/* An interrupt thread that never takes the call does not hang the caller:
 * after 5 s the call is taken back and run on the caller's thread. */
static void
test_intr_thread_stuck(void **state)
{
	struct intr_probe pr = { 0 };
	pthread_t t;
	int ret;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, intr_blocker, NULL), 0);
	while (__atomic_load_n(&intr_hold, __ATOMIC_ACQUIRE) == 0)
		rte_delay_us_sleep(1000);
	ret = lca_eal_on_intr_thread(intr_probe_inner, &pr);
	/* The interrupt thread let go before any check: a failed one must not
	 * leave it held, and every later call waiting 5 s for it. */
	__atomic_store_n(&intr_hold, 2, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(ret, -ETIMEDOUT);
	/* Taken back, the call did run, once, and here: not dropped. */
	assert_int_equal(pr.inner_runs, 1);
	assert_false(pr.nested_on_intr);
	/* The thread is free again: the next call goes there, and runs once. */
	assert_int_equal(lca_eal_on_intr_thread(intr_probe_inner, &pr), 0);
	assert_int_equal(pr.inner_runs, 2);
	assert_true(pr.nested_on_intr);
}

/* Device stop and close run on EAL's interrupt thread (net_memif's peer
 * disconnect frees what a stop frees, there, without a lock), the call
 * returns only after, and the PMD's answer comes back. */
static void
test_dev_stop_on_intr_thread(void **state)
{
	struct intr_probe pr = { 0 };
	uint16_t port_id;

	(void)state;
	assert_false(rte_thread_is_intr());
	assert_int_equal(lca_eal_on_intr_thread(intr_probe_run, &pr), 0);
	assert_int_equal(pr.runs, 1);
	assert_true(pr.on_intr);
	assert_true(pr.nested_on_intr);

	assert_int_equal(rte_dev_probe("net_null8"), 0);
	assert_int_equal(rte_eth_dev_get_port_by_name("net_null8", &port_id), 0);
	assert_int_equal(lca_port_dev_stop(port_id), 0);
	assert_int_equal(lca_port_dev_close(port_id), 0);
	assert_false(rte_eth_dev_is_valid_port(port_id));
	assert_int_equal(lca_port_dev_stop(RTE_MAX_ETHPORTS - 1), -ENODEV);
	assert_int_equal(lca_port_dev_close(RTE_MAX_ETHPORTS - 1), -ENODEV);
}

int
main(void)
{
	static const char *const vdev[] = { "--vdev", "net_ring0" };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bad_input, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_rx_delivers_in_order, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_drop_by_policy, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_tx_bursts, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_tx_now, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_tx_refused_counted, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_backpressure, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_loopback_eal_port, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_stop_keeps_busy_pool, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_rx_off_and_keep_open, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_stop_null_port, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_dev_stop_on_intr_thread, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_intr_thread_stuck, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_idle_port_is_idle, runtime_up_sleepy,
						runtime_down),
	};
	int ret;

	lca_test_eal_init_args("lca_test_port", vdev, RTE_DIM(vdev));
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	lca_eal_cleanup();
	return lca_test_status(ret);
}
