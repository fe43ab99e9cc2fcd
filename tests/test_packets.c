/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The packet lane: packet actors (on_packets) fed by lca_send_packets() and
 * by ports, mbuf pointers between lcores with no envelope, and
 * lca_port_tx_burst() from their handlers. Ports are net_ring (see
 * test_port.c): a test puts packets on the wire by enqueueing to the ring
 * an RX queue reads, and takes what TX sent from the ring a TX queue fills.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

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

#define PKTS 1024 /* a multiple of the burst: every burst is a whole one */
#define FLOWS 4
#define BURST 32

static unsigned int msg_pool_full;

static int
runtime_up(void **state)
{
	struct lca_runtime_conf c = { .msgs_per_node = 8191, .pool_cache = 64 };

	(void)state;
	return lca_test_runtime_up(&c, &msg_pool_full);
}

static struct lca_port *open_ports[2];
static struct lca_lcore_hook open_hook;
static unsigned int open_hook_lcore = RTE_MAX_LCORE;

static int
runtime_down(void **state)
{
	(void)state;
	if (open_hook_lcore != RTE_MAX_LCORE)
		lca_lcore_hook_remove(open_hook_lcore, &open_hook);
	open_hook_lcore = RTE_MAX_LCORE;
	for (unsigned int i = 0; i < RTE_DIM(open_ports); i++)
		if (open_ports[i] != NULL)
			lca_port_stop(open_ports[i]);
	memset(open_ports, 0, sizeof(open_ports));
	return lca_runtime_cleanup();
}

static struct lca_port *
start_port(const struct lca_port_conf *c, unsigned int slot)
{
	struct lca_port *p = NULL;

	assert_int_equal(lca_port_start(c, &p), 0);
	open_ports[slot] = p;
	return p;
}

static void
stop_port(struct lca_port *p, unsigned int slot)
{
	open_ports[slot] = NULL;
	assert_int_equal(lca_port_stop(p), 0);
	assert_int_equal(lca_port_pools_kept(), 0);
}

/* A packet sink: checks each flow's order, the bursts' sizes and its lcore,
 * and frees; or, with tx set, transmits what it got on its lcore's queue. */
struct psink {
	uint64_t got;
	uint64_t expect;
	uint64_t calls;
	unsigned int min_n;
	unsigned int max_n;
	unsigned int gcd_n;      /* of every call's n: what the bursts are made of */
	uint64_t out_of_order;
	uint64_t wrong_to;
	unsigned int lcore_wrong;
	unsigned int home;
	uint32_t next[FLOWS];
	struct lca_port *tx;     /* lca_port_tx_burst() instead of a free */
	lca_actor_id_t forward;  /* lca_send_packets() there instead */
	uint64_t not_taken;
	bool stall;
	bool stalled_once;
};

static unsigned int
gcd(unsigned int a, unsigned int b)
{
	while (b != 0) {
		unsigned int r = a % b;

		a = b;
		b = r;
	}
	return a;
}

static void
psink_check(struct psink *s, lca_actor_id_t self, struct rte_mbuf **pkts, uint16_t n)
{
	s->calls++;
	s->min_n = s->calls == 1 ? n : RTE_MIN(s->min_n, (unsigned int)n);
	s->max_n = RTE_MAX(s->max_n, (unsigned int)n);
	s->gcd_n = gcd(s->gcd_n, n);
	if (rte_lcore_id() != s->home)
		s->lcore_wrong++;
	for (uint16_t i = 0; i < n; i++) {
		const struct pkt_data *d = pkt_of(pkts[i]);

		if (lca_pkt_meta(pkts[i])->to != self)
			s->wrong_to++;
		if (d->flow >= FLOWS || d->seq != s->next[d->flow])
			s->out_of_order++;
		else
			s->next[d->flow]++;
	}
}

static void
psink_handler(lca_actor_id_t self, void *state, struct rte_mbuf **pkts, uint16_t n)
{
	struct psink *s = state;

	if (s->stall && !s->stalled_once) {
		__atomic_store_n(&s->stalled_once, true, __ATOMIC_RELEASE);
		while (__atomic_load_n(&s->stall, __ATOMIC_ACQUIRE) && !lca_lcore_stopping())
			rte_pause();
	}
	psink_check(s, self, pkts, n);
	if (s->tx != NULL) {
		if (lca_port_tx_burst(s->tx, pkts, n) != n) {
			s->not_taken += n;
			rte_pktmbuf_free_bulk(pkts, n);
		}
	} else if (s->forward != LCA_ACTOR_NONE) {
		int taken = lca_send_packets(s->forward, pkts, n);

		taken = taken < 0 ? 0 : taken;
		s->not_taken += n - (unsigned int)taken;
		rte_pktmbuf_free_bulk(pkts + taken, n - (unsigned int)taken);
	} else {
		rte_pktmbuf_free_bulk(pkts, n);
	}
	__atomic_store_n(&s->got, s->got + n, __ATOMIC_RELEASE);
	if (s->got == s->expect)
		lca_runtime_stop();
}

static lca_actor_id_t
spawn_psink(unsigned int lcore, unsigned int queue_size)
{
	struct lca_actor_spec spec = {
		.on_packets = psink_handler,
		.state_size = sizeof(struct psink),
		.lcore = lcore,
		.throughput = BURST,
		.packet_queue_size = queue_size,
		.name = "psink",
	};
	lca_actor_id_t id;
	struct psink *s;

	assert_int_equal(lca_actor_spawn(&spec, &id), 0);
	s = lca_actor_state(id);
	s->home = lcore;
	s->forward = LCA_ACTOR_NONE;
	return id;
}

static struct psink *
psink_of(lca_actor_id_t id)
{
	return lca_actor_state(id);
}

struct sinks_done {
	lca_actor_id_t ids[2];
	unsigned int n;
	uint64_t expect;
};

static bool
sinks_done(void *arg)
{
	const struct sinks_done *d = arg;
	uint64_t got = 0;

	for (unsigned int i = 0; i < d->n; i++)
		got += __atomic_load_n(&psink_of(d->ids[i])->got, __ATOMIC_ACQUIRE);
	return got >= d->expect;
}

static void
envelope_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	(void)self;
	(void)state;
	(void)msg;
}

/* Bad specs and sends get their own errno; a packet actor is pinned; an
 * envelope to a packet actor without an envelope handler is counted. */
static void
test_errors_and_pinning(void **state)
{
	struct rte_mempool *mp = rte_pktmbuf_pool_create("lca_t_err", 255, 0, 0,
							 RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	struct lca_actor_spec spec = { .on_packets = psink_handler, .lcore = 1 };
	lca_actor_id_t id, plain, sink;
	struct lca_actor_stats st;
	struct rte_mbuf *m;
	struct lca_msg *msg;

	(void)state;
	assert_non_null(mp);
	assert_true(lca_pkt_meta_offset >= 0);
	spec.dispatcher = LCA_DISPATCH_SHARED;
	assert_int_equal(lca_actor_spawn(&spec, &id), -EINVAL);
	spec.dispatcher = LCA_DISPATCH_AFFINITY;
	spec.packet_queue_size = 100;
	assert_int_equal(lca_actor_spawn(&spec, &id), -EINVAL);
	spec.packet_queue_size = 0;
	spec.on_packets = NULL;
	assert_int_equal(lca_actor_spawn(&spec, &id), -EINVAL); /* no handler at all */

	sink = spawn_psink(1, 0);
	plain = lca_test_spawn(envelope_handler, 0, 1, 0, 0);
	m = make_pkt(mp, 0, 0);
	assert_int_equal(lca_send_packets(plain, &m, 1), -EPROTOTYPE);
	assert_int_equal(lca_send_packets(lca_actor_count() + 5, &m, 1), -ESRCH);
	assert_int_equal(lca_send_packets(sink, NULL, 1), -EINVAL);
	assert_int_equal(lca_send_packets(sink, &m, 0), 0);
	assert_int_equal(lca_actor_migrate(sink, 0), -EPERM);

	/* An envelope to it: freed at its turn, counted. */
	msg = lca_test_msg();
	assert_int_equal(lca_send(sink, msg), 0);
	assert_false(lca_test_run(1));
	assert_int_equal(lca_actor_stats_get(sink, &st), 0);
	assert_int_equal(st.unhandled, 1);
	assert_int_equal(st.packets, 0);

	assert_int_equal(lca_actor_stop(sink), 0);
	assert_int_equal(lca_send_packets(sink, &m, 1), -EPIPE);
	rte_pktmbuf_free(m);
	assert_int_equal(lca_mempool_avail(), msg_pool_full);
	assert_true(pool_is_full(mp));
	rte_mempool_free(mp);
}

/* Flows 0 and 2 (RX queue 0) to one sink, 1 and 3 (queue 1) to the other. */
static void
classify_parity(struct rte_mbuf **pkts, lca_actor_id_t *to, unsigned int n, void *arg)
{
	const lca_actor_id_t *by_parity = arg;

	for (unsigned int i = 0; i < n; i++)
		to[i] = by_parity[pkt_of(pkts[i])->flow & 1];
}

/* Put @p n packets on RX queue @p q's wire: flows q and q + 2. */
static void
inject(const char *name, unsigned int q, struct rte_mempool *mp, unsigned int n,
       uint32_t *next_seq)
{
	struct rte_ring *r = port_ring(name, q);

	for (unsigned int i = 0; i < n; i++) {
		uint32_t flow = q + 2 * (i % (FLOWS / 2));

		assert_int_equal(rte_ring_enqueue(r, make_pkt(mp, flow, next_seq[flow]++)), 0);
	}
}

/*
 * RX to packet actors, one on the RX lcore (straight into its queue), one
 * on the other (across the lane), with the envelope pool empty the whole
 * time: the lane allocates nothing. Every packet arrives, each flow in
 * order, on its actor's lcore, in whole bursts; the accounting is exact.
 */
static void
test_rx_lane_no_envelopes(void **state)
{
	char name[16];
	uint16_t pid = new_ring_port(name, sizeof(name));
	lca_actor_id_t by_parity[2];
	struct lca_port_conf c = {
		.port_id = pid, .n_rxq = 2, .n_txq = 1, .rx_desc = 1024, .tx_desc = 256,
		.rx_lcores = (const unsigned int[]){ 0 }, .n_rx_lcores = 1,
		.classify = classify_parity, .classify_arg = by_parity, .burst = BURST,
	};
	static struct lca_msg *hoard[16384];
	unsigned int hoarded = 0;
	struct sinks_done d;
	struct lca_port_stats st;
	struct lca_port *p;
	struct rte_mempool *mp;
	uint32_t seq[FLOWS] = { 0 };

	(void)state;
	by_parity[0] = spawn_psink(0, 0);
	by_parity[1] = spawn_psink(1, 0);
	p = start_port(&c, 0);
	mp = lca_port_mempool(p);
	inject(name, 0, mp, PKTS / 2, seq);
	inject(name, 1, mp, PKTS / 2, seq);
	while (hoarded < RTE_DIM(hoard) && lca_msg_alloc(&hoard[hoarded]) == 0)
		hoarded++;
	assert_true(hoarded < RTE_DIM(hoard)); /* the pool is empty */

	d = (struct sinks_done){ .ids = { by_parity[0], by_parity[1] }, .n = 2, .expect = PKTS };
	assert_true(lca_test_run_until(sinks_done, &d, 20));
	lca_msg_free_bulk(hoard, hoarded);
	for (unsigned int k = 0; k < 2; k++) {
		const struct psink *s = psink_of(by_parity[k]);

		assert_int_equal(s->got, PKTS / 2);
		assert_int_equal(s->out_of_order, 0);
		assert_int_equal(s->wrong_to, 0);
		assert_int_equal(s->lcore_wrong, 0);
		assert_int_equal(s->next[k], seq[k]);
		assert_int_equal(s->next[k + 2], seq[k + 2]);
		/* Each RX burst of 32 reached the handler whole. */
		assert_int_equal(s->min_n, BURST);
		assert_int_equal(s->max_n, BURST);
	}
	assert_int_equal(lca_port_stats_get(p, &st), 0);
	assert_int_equal(st.rx, PKTS);
	assert_int_equal(st.delivered, PKTS);
	assert_int_equal(st.no_envelope, 0);
	assert_int_equal(st.dropped_policy + st.dropped_dest + st.held, 0);
	assert_accounting(&st);
	assert_true(pool_is_full(mp));
	stop_port(p, 0);
	assert_int_equal(lca_mempool_avail(), msg_pool_full);
}

/* What one RX queue's wire (a ring of 1024) takes at once: whole bursts. */
#define WIRE_PKTS (PKTS / 2)

/* Flow k's destination, LCA_ACTOR_NONE for a flow the policy drops. */
static void
classify_by_flow(struct rte_mbuf **pkts, lca_actor_id_t *to, unsigned int n, void *arg)
{
	const lca_actor_id_t *by_flow = arg;

	for (unsigned int i = 0; i < n; i++)
		to[i] = by_flow[pkt_of(pkts[i])->flow];
}

/* @p n packets on RX queue 0's wire, the flows interleaved 0, 1, 2, 3, 0... */
static void
inject_interleaved(const char *name, struct rte_mempool *mp, unsigned int n, uint32_t *next_seq)
{
	struct rte_ring *r = port_ring(name, 0);

	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(rte_ring_enqueue(r, make_pkt(mp, i % FLOWS, next_seq[i % FLOWS]++)),
				 0);
}

/* One RX queue, @p by_flow's classifier, WIRE_PKTS interleaved packets; the
 * port's counts exact, every kept flow delivered in order. */
static void
run_by_flow(const lca_actor_id_t *by_flow, struct lca_port_stats *st)
{
	char name[16];
	uint16_t pid = new_ring_port(name, sizeof(name));
	struct lca_port_conf c = {
		.port_id = pid, .n_rxq = 1, .n_txq = 1, .rx_desc = 1024, .tx_desc = 256,
		.rx_lcores = (const unsigned int[]){ 0 }, .n_rx_lcores = 1,
		.classify = classify_by_flow, .classify_arg = (void *)(uintptr_t)by_flow,
		.burst = BURST,
	};
	struct sinks_done d = { .n = 0, .expect = 0 };
	uint32_t seq[FLOWS] = { 0 };
	struct lca_port *p = start_port(&c, 0);
	struct rte_mempool *mp = lca_port_mempool(p);

	for (unsigned int f = 0; f < FLOWS; f++) {
		bool seen = false;

		for (unsigned int k = 0; k < d.n; k++)
			seen |= d.ids[k] == by_flow[f];
		if (by_flow[f] != LCA_ACTOR_NONE && !seen && d.n < RTE_DIM(d.ids))
			d.ids[d.n++] = by_flow[f];
		d.expect += by_flow[f] != LCA_ACTOR_NONE ? WIRE_PKTS / FLOWS : 0;
	}
	inject_interleaved(name, mp, WIRE_PKTS, seq);
	assert_true(lca_test_run_until(sinks_done, &d, 20));
	for (unsigned int f = 0; f < FLOWS; f++) {
		if (by_flow[f] == LCA_ACTOR_NONE)
			continue;
		assert_int_equal(psink_of(by_flow[f])->out_of_order, 0);
		assert_int_equal(psink_of(by_flow[f])->next[f], seq[f]);
	}
	assert_int_equal(lca_port_stats_get(p, st), 0);
	assert_accounting(st);
	assert_true(pool_is_full(mp));
	stop_port(p, 0);
}

/*
 * A classifier that hashes flows onto actors leaves every packet of a
 * burst next to one for another actor: RX groups the burst by destination,
 * so each actor gets its packets of a burst in one call, in order (one on
 * RX's lcore, taken there and then; one across the lane), and what the
 * classifier drops in between is counted.
 */
static void
test_rx_grouped_by_destination(void **state)
{
	lca_actor_id_t a = spawn_psink(0, 0), b = spawn_psink(1, 0);
	const lca_actor_id_t by_flow[FLOWS] = { a, b, a, LCA_ACTOR_NONE };
	struct lca_port_stats st;

	(void)state;
	psink_of(a)->expect = psink_of(b)->expect = UINT64_MAX;
	run_by_flow(by_flow, &st);
	assert_int_equal(st.rx, WIRE_PKTS);
	assert_int_equal(st.dropped_policy, WIRE_PKTS / FLOWS);
	assert_int_equal(st.delivered, WIRE_PKTS - WIRE_PKTS / FLOWS);
	/*
	 * A burst of 32: flows 0 and 2 give a 16 packets, flow 1 gives b 8.
	 * Each call holds whole groups: b's lane may hand over several of
	 * them at once (up to its throughput, LCA_BATCH_DEFAULT) when b's
	 * lcore falls behind, so the calls' sizes are multiples of the
	 * group, not equal to it.
	 * Ungrouped, the runs are single packets and the gcd is 1.
	 */
	assert_int_equal(psink_of(a)->got, WIRE_PKTS / 2);
	assert_int_equal(psink_of(a)->gcd_n % (BURST / 2), 0);
	assert_in_range(psink_of(a)->max_n, BURST / 2, LCA_BATCH_DEFAULT);
	assert_int_equal(psink_of(b)->got, WIRE_PKTS / FLOWS);
	assert_int_equal(psink_of(b)->gcd_n % (BURST / FLOWS), 0);
	assert_in_range(psink_of(b)->max_n, BURST / FLOWS, LCA_BATCH_DEFAULT);
}

/* Two destinations whose ids share rx_group()'s slot: the burst keeps its
 * order (no grouping), nothing is lost, the drops are counted. */
static void
test_rx_shared_slot_in_order(void **state)
{
	lca_actor_id_t a = spawn_psink(0, 0), b;
	struct lca_port_stats st;

	(void)state;
	do
		b = spawn_psink(0, 0);
	while ((b & 15) != (a & 15));
	const lca_actor_id_t by_flow[FLOWS] = { a, b, LCA_ACTOR_NONE, a };

	psink_of(a)->expect = psink_of(b)->expect = UINT64_MAX;
	run_by_flow(by_flow, &st);
	assert_int_equal(st.dropped_policy, WIRE_PKTS / FLOWS);
	assert_int_equal(st.delivered, WIRE_PKTS - WIRE_PKTS / FLOWS);
	assert_int_equal(psink_of(a)->got, WIRE_PKTS / 2);
	assert_int_equal(psink_of(b)->got, WIRE_PKTS / FLOWS);
	/* In the queue's order: runs of one packet. */
	assert_int_equal(psink_of(b)->max_n, 1);
}

/* A stopped packet actor: RX drops its packets, counted in dropped_dest,
 * and the accounting holds. */
static void
test_rx_lane_stopped_dest(void **state)
{
	char name[16];
	uint16_t pid = new_ring_port(name, sizeof(name));
	lca_actor_id_t dest = spawn_psink(1, 0);
	struct lca_port_conf c = {
		.port_id = pid, .n_rxq = 1, .n_txq = 1, .rx_desc = 1024, .tx_desc = 256,
		.dest = dest,
	};
	struct lca_port_stats st;
	struct lca_port *p;
	struct rte_mempool *mp;
	uint32_t seq[FLOWS] = { 0 };

	(void)state;
	p = start_port(&c, 0);
	mp = lca_port_mempool(p);
	assert_int_equal(lca_actor_stop(dest), 0);
	inject(name, 0, mp, PKTS / 2, seq);
	assert_false(lca_test_run(1));
	assert_int_equal(lca_port_stats_get(p, &st), 0);
	assert_int_equal(st.rx, PKTS / 2);
	assert_int_equal(st.dropped_dest, PKTS / 2);
	assert_int_equal(st.delivered + st.held, 0);
	assert_accounting(&st);
	assert_int_equal(psink_of(dest)->got, 0);
	assert_true(pool_is_full(mp));
	stop_port(p, 0);
}

/*
 * Back-pressure on the lane: the packet actor on the other lcore stalls
 * in its first call, its queue and the lane fill, RX pauses above the
 * watermark with the rest on the wire (where a NIC counts imissed). A
 * hook after the port's checks the accounting every iteration and lets
 * the actor go once RX has paused a while; then everything arrives, in
 * order, and nothing was dropped.
 */
struct bp_watch {
	const struct lca_port *p;
	lca_actor_id_t dest;
	struct rte_ring *wire;
	uint64_t checks;
	uint64_t violations;
	uint64_t rx_at_release;
	unsigned int wire_at_release;
	bool released;
};

static unsigned int
bp_watch_poll(unsigned int lcore_id, uint64_t now_tsc, void *arg)
{
	struct bp_watch *w = arg;
	struct psink *s = psink_of(w->dest);
	struct lca_port_stats st;

	(void)lcore_id;
	(void)now_tsc;
	lca_port_stats_get(w->p, &st);
	w->checks++;
	if (st.rx != st.delivered + st.dropped_policy + st.dropped_dest + st.held)
		w->violations++;
	if (!w->released && st.paused_polls >= 20 &&
	    __atomic_load_n(&s->stalled_once, __ATOMIC_ACQUIRE)) {
		w->rx_at_release = st.rx;
		w->wire_at_release = rte_ring_count(w->wire);
		w->released = true;
		__atomic_store_n(&s->stall, false, __ATOMIC_RELEASE);
	}
	return 0;
}

static void
test_rx_lane_backpressure(void **state)
{
	char name[16];
	uint16_t pid = new_ring_port(name, sizeof(name));
	lca_actor_id_t dest = spawn_psink(1, 128);
	struct lca_port_conf c = {
		.port_id = pid, .n_rxq = 1, .n_txq = 1, .rx_desc = 1024, .tx_desc = 256,
		.rx_lcores = (const unsigned int[]){ 0 }, .n_rx_lcores = 1,
		.dest = dest, .watermark = 64,
	};
	struct bp_watch w = { .dest = dest };
	struct lca_lcore_hook h = { .poll = bp_watch_poll, .arg = &w };
	struct lca_port_stats st;
	struct lca_actor_stats as;
	struct lca_port *p;
	struct rte_mempool *mp;
	struct psink *s = psink_of(dest);
	uint32_t seq[FLOWS] = { 0 };

	(void)state;
	s->stall = true;
	p = start_port(&c, 0);
	w.p = p;
	w.wire = port_ring(name, 0);
	assert_int_equal(lca_lcore_hook_add(0, &h), 0);
	open_hook = h;
	open_hook_lcore = 0;
	mp = lca_port_mempool(p);
	/* Flows 0 and 2, on queue 0's wire; 1023 is what the ring holds. */
	inject(name, 0, mp, PKTS - 1, seq);
	/* One run, which the sink ends: a slice's end would release it too. */
	s->expect = PKTS - 1;
	assert_true(lca_test_run(30));
	open_hook_lcore = RTE_MAX_LCORE;
	assert_int_equal(lca_lcore_hook_remove(0, &h), 0);

	assert_true(w.released);
	assert_true(w.checks > 0);
	assert_int_equal(w.violations, 0);
	/* It paused with most packets still on the wire. */
	assert_true(w.rx_at_release < PKTS / 2);
	assert_true(w.wire_at_release > PKTS / 2);
	assert_int_equal(s->got, PKTS - 1);
	assert_int_equal(s->out_of_order, 0);
	assert_int_equal(lca_port_stats_get(p, &st), 0);
	assert_true(st.paused_polls >= 20);
	assert_int_equal(st.rx, PKTS - 1);
	assert_int_equal(st.delivered, PKTS - 1);
	assert_int_equal(st.dropped_policy + st.dropped_dest + st.held, 0);
	assert_int_equal(lca_actor_stats_get(dest, &as), 0);
	assert_int_equal(as.dropped_on_stop + as.packets_dropped, 0);
	assert_int_equal(as.packets, PKTS - 1);
	assert_true(pool_is_full(mp));
	stop_port(p, 0);
}

/*
 * TX without a mailbox: RX (port A, lcore 0) to packet actors on both
 * lcores, which transmit with lca_port_tx_burst() on a TX-only port B:
 * each on its own lcore's TX queue, in bursts, each flow in order; a TX
 * ring too small makes the driver refuse some, and tx + tx_dropped is
 * every packet handed over.
 */
static void
drain_wire(struct rte_ring *r, unsigned int *got, unsigned int *out_of_order, uint32_t *next)
{
	struct rte_mbuf *m;

	while (rte_ring_dequeue(r, (void **)&m) == 0) {
		const struct pkt_data *d = pkt_of(m);

		if (d->flow >= FLOWS || d->seq != next[d->flow])
			(*out_of_order)++;
		else
			next[d->flow]++;
		(*got)++;
		rte_pktmbuf_free(m);
	}
}

static void
test_tx_burst_tx_only(void **state)
{
	char name_a[16], name_b[16];
	uint16_t pid_a = new_ring_port(name_a, sizeof(name_a));
	uint16_t pid_b = new_ring_port(name_b, sizeof(name_b));
	lca_actor_id_t by_parity[2];
	struct lca_port_conf ca = {
		.port_id = pid_a, .n_rxq = 2, .n_txq = 1, .rx_desc = 1024, .tx_desc = 256,
		.rx_lcores = (const unsigned int[]){ 0 }, .n_rx_lcores = 1,
		.classify = classify_parity, .classify_arg = by_parity,
	};
	struct lca_port_conf cb = {
		.port_id = pid_b, .tx_only = true, .rx_desc = 256, .tx_desc = 1024,
		.dest = LCA_ACTOR_NONE,
	};
	struct lca_port_conf bad = cb;
	struct lca_port *pa, *pb = NULL;
	struct lca_port_stats st;
	struct rte_mempool *mp;
	struct sinks_done d;
	uint32_t seq[FLOWS] = { 0 }, next[FLOWS] = { 0 };
	unsigned int got[2] = { 0, 0 }, out_of_order = 0;

	(void)state;
	bad.classify = classify_parity;
	assert_int_equal(lca_port_start(&bad, &pb), -EINVAL);
	bad = cb;
	bad.n_rxq = 1;
	assert_int_equal(lca_port_start(&bad, &pb), -EINVAL);
	by_parity[0] = spawn_psink(0, 0);
	by_parity[1] = spawn_psink(1, 0);
	pa = start_port(&ca, 0);
	pb = start_port(&cb, 1);
	assert_int_equal(lca_port_rx_queues(pb), 0);
	assert_int_equal(lca_port_tx_queues(pb), 2);
	psink_of(by_parity[0])->tx = pb;
	psink_of(by_parity[1])->tx = pb;
	mp = lca_port_mempool(pa);
	inject(name_a, 0, mp, PKTS / 2, seq);
	inject(name_a, 1, mp, PKTS / 2, seq);
	d = (struct sinks_done){ .ids = { by_parity[0], by_parity[1] }, .n = 2, .expect = PKTS };
	assert_true(lca_test_run_until(sinks_done, &d, 20));
	/* What the last iteration buffered went out at its end. */
	assert_int_equal(lca_port_stats_get(pb, &st), 0);
	assert_int_equal(st.tx, PKTS);
	assert_int_equal(st.tx_dropped, 0);
	assert_true(st.tx_bursts * 4 <= st.tx);
	assert_int_equal(st.rx, 0);
	/* Flows 0, 2 left on lcore 0's queue (ring 0), 1, 3 on lcore 1's. */
	drain_wire(port_ring(name_b, 0), &got[0], &out_of_order, next);
	drain_wire(port_ring(name_b, 1), &got[1], &out_of_order, next);
	assert_int_equal(got[0], PKTS / 2);
	assert_int_equal(got[1], PKTS / 2);
	assert_int_equal(psink_of(by_parity[0])->not_taken + psink_of(by_parity[1])->not_taken, 0);
	assert_int_equal(out_of_order, 0);
	assert_int_equal(next[1], seq[1]);

	/* 1500 to lcore 1's queue, whose ring holds 1023 and is not read. */
	for (unsigned int round = 0; round < 3; round++) {
		struct rte_ring *r = port_ring(name_a, 1);

		for (unsigned int i = 0; i < 500; i++)
			assert_int_equal(rte_ring_enqueue(r, make_pkt(mp, 1, seq[1]++)), 0);
		d.expect += 500;
		assert_true(lca_test_run_until(sinks_done, &d, 20));
	}
	assert_int_equal(lca_port_stats_get(pb, &st), 0);
	assert_int_equal(st.tx + st.tx_dropped, PKTS + 1500);
	assert_int_equal(st.tx, PKTS + 1023);
	got[1] = 0;
	drain_wire(port_ring(name_b, 1), &got[1], &out_of_order, next);
	assert_int_equal(got[1], 1023);
	assert_int_equal(out_of_order, 0);
	assert_true(pool_is_full(mp));
	stop_port(pb, 1);
	stop_port(pa, 0);
}

/*
 * Senders that are no port: a thread that is no lcore (through the
 * receiver lcore's packet inbox) and the main lcore's thread (straight
 * into the first stage's queue), then a handler forwarding across lcores
 * (the lane): each sender's packets arrive in order, none lost.
 */
struct thread_send {
	lca_actor_id_t to;
	struct rte_mempool *mp;
	unsigned int n;
	unsigned int taken;
};

static void *
send_off_lcore(void *arg)
{
	struct thread_send *t = arg;

	for (unsigned int i = 0; i < t->n; i += BURST) {
		struct rte_mbuf *pkts[BURST];
		int ret;

		for (unsigned int k = 0; k < BURST; k++)
			pkts[k] = make_pkt(t->mp, 3, i + k);
		ret = lca_send_packets(t->to, pkts, BURST);
		t->taken += ret > 0 ? (unsigned int)ret : 0;
		if (ret != BURST)
			rte_pktmbuf_free_bulk(pkts + (ret > 0 ? ret : 0),
					      BURST - (unsigned int)(ret > 0 ? ret : 0));
	}
	return NULL;
}

static void
test_senders_and_forwarding(void **state)
{
	struct rte_mempool *mp = rte_pktmbuf_pool_create("lca_t_fwd", 4095, 0, 0,
							 RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	lca_actor_id_t first = spawn_psink(0, 0), last = spawn_psink(1, 2048);
	struct thread_send t = { .to = last, .n = 512 };
	struct sinks_done d = { .ids = { last }, .n = 1, .expect = 512 + 256 };
	struct rte_mbuf *pkts[BURST];
	pthread_t th;

	(void)state;
	assert_non_null(mp);
	t.mp = mp;
	psink_of(first)->forward = last;
	assert_int_equal(pthread_create(&th, NULL, send_off_lcore, &t), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(t.taken, 512);
	/* From this thread (lcore 0) to the first stage, on lcore 0. */
	for (unsigned int i = 0; i < 256; i += BURST) {
		for (unsigned int k = 0; k < BURST; k++)
			pkts[k] = make_pkt(mp, 1, i + k);
		assert_int_equal(lca_send_packets(first, pkts, BURST), BURST);
	}
	assert_true(lca_test_run_until(sinks_done, &d, 20));
	assert_int_equal(psink_of(first)->got, 256);
	assert_int_equal(psink_of(first)->not_taken, 0);
	assert_int_equal(psink_of(last)->got, 512 + 256);
	assert_int_equal(psink_of(last)->out_of_order, 0);
	assert_int_equal(psink_of(last)->next[3], 512);
	assert_int_equal(psink_of(last)->next[1], 256);
	assert_int_equal(psink_of(last)->lcore_wrong, 0);
	assert_true(pool_is_full(mp));
	rte_mempool_free(mp);
}

/* Packets still on their way when the runtime goes are freed and counted
 * on their actor, never leaked. */
static void
test_cleanup_counts_pending(void **state)
{
	struct rte_mempool *mp = rte_pktmbuf_pool_create("lca_t_cln", 255, 0, 0,
							 RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	lca_actor_id_t far = spawn_psink(1, 0), near = spawn_psink(0, 0);
	struct rte_mbuf *pkts[BURST];
	struct lca_actor_stats st;

	(void)state;
	assert_non_null(mp);
	for (unsigned int k = 0; k < BURST; k++)
		pkts[k] = make_pkt(mp, 0, k);
	assert_int_equal(lca_send_packets(far, pkts, BURST / 2), BURST / 2);
	assert_int_equal(lca_send_packets(near, pkts + BURST / 2, BURST / 2), BURST / 2);
	assert_int_equal(lca_actor_stop(far), 0); /* delivers, then drops, at once */
	assert_int_equal(lca_actor_stats_get(far, &st), 0);
	assert_int_equal(st.packets_dropped, BURST / 2);
	assert_int_equal(st.dropped_on_stop, BURST / 2);
	assert_int_equal(lca_runtime_cleanup(), 0);
	assert_true(pool_is_full(mp));
	rte_mempool_free(mp);
	assert_int_equal(runtime_up(NULL), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_errors_and_pinning, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_rx_lane_no_envelopes, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_rx_grouped_by_destination, runtime_up,
						runtime_down),
		cmocka_unit_test_setup_teardown(test_rx_shared_slot_in_order, runtime_up,
						runtime_down),
		cmocka_unit_test_setup_teardown(test_rx_lane_stopped_dest, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_rx_lane_backpressure, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_tx_burst_tx_only, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_senders_and_forwarding, runtime_up,
						runtime_down),
		cmocka_unit_test_setup_teardown(test_cleanup_counts_pending, runtime_up,
						runtime_down),
	};
	int ret;

	lca_test_eal_init("lca_test_packets");
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	lca_eal_cleanup();
	/* A wait skipped on a starved machine exits 77, not a silent pass. */
	return lca_test_status(ret);
}
