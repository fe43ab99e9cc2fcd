/* SPDX-License-Identifier: BSD-3-Clause */
/* What the remote tests share: see test_remote_lib.h. */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <sodium.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_port.h"
#include "lca_remote.h"
#include "lca_test.h"
#include "lca_xorshift.h"
#include "test_remote_lib.h"

#define MSGS 20000 /* per producer and receiver */
#define BATCH 64

static unsigned int msg_pool_full;

int
runtime_up(void **state)
{
	struct lca_runtime_conf c = { .msgs_per_node = 16383, .pool_cache = 64 };

	(void)state;
	return lca_test_runtime_up(&c, &msg_pool_full);
}

int
runtime_down(void **state)
{
	(void)state;
	lca_remote_stop();
	return lca_runtime_cleanup();
}

char port_name[16];

static uint16_t
new_ring_port(void)
{
	static unsigned int seq = 1;
	uint16_t pid;

	snprintf(port_name, sizeof(port_name), "net_ring%u", seq++);
	assert_int_equal(rte_dev_probe(port_name), 0);
	assert_int_equal(rte_eth_dev_get_port_by_name(port_name, &pid), 0);
	return pid;
}

/* This node alone, reaching itself over a new net_ring port. */
void
loopback_conf(struct lca_remote_conf *c)
{
	static const uint8_t mac[6] = { 2, 0, 0, 0, 0, SELF };
	uint16_t pid = new_ring_port();

	memset(c, 0, sizeof(*c));
	c->self = SELF;
	c->loopback = true;
	c->n_nodes = 1;
	c->nodes[0].id = SELF;
	memcpy(c->nodes[0].mac, mac, 6);
	c->nodes[0].ipv4 = 0x0a000003;
	c->nodes[0].udp_base = 7000;
	c->nodes[0].port_id = pid;
	c->nodes[0].n_lcores = 2;
	c->nodes[0].lcores[0] = 0;
	c->nodes[0].lcores[1] = 1;
}

/* What a data message carries. */
struct payload {
	uint32_t producer;
	uint32_t seq;
};

/* A producer: on each GO, sends up to BATCH messages to each receiver's
 * remote reference, and a GO to itself while any are left. A refused send
 * (-ENOBUFS: no credit) keeps the message's number for the next turn. */
struct producer {
	uint32_t index;
	uint32_t next[2];
	lca_actor_id_t to[2];
	uint64_t refused;
	uint64_t other_errors;
};

static void
producer_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct producer *p = state;
	bool more = false;

	for (unsigned int r = 0; r < 2; r++) {
		for (unsigned int i = 0; i < BATCH && p->next[r] < MSGS; i++) {
			struct payload pl = { .producer = p->index, .seq = p->next[r] };
			struct lca_msg *m;
			int ret;

			if (lca_msg_alloc(&m) != 0)
				break;
			m->type = TYPE_DATA;
			memcpy(m->data, &pl, sizeof(pl));
			m->len = sizeof(pl);
			ret = lca_send(p->to[r], m);
			if (ret != 0) {
				lca_msg_free(m);
				if (ret == -ENOBUFS)
					p->refused++;
				else
					p->other_errors++;
				break;
			}
			p->next[r]++;
		}
		more |= p->next[r] < MSGS;
	}
	if (more)
		lca_send(self, msg);
}

/* A receiver: checks each producer's numbers come in order, once. */
struct receiver {
	uint32_t expect[2];
	uint64_t got;
	uint64_t out_of_order;
	uint64_t bad_from;
};

static void
receiver_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct receiver *r = state;
	struct payload pl;

	(void)self;
	memcpy(&pl, msg->data, sizeof(pl));
	if (msg->type != TYPE_DATA || pl.producer > 1 || !lca_remote_is_ref(msg->from) ||
	    lca_remote_node(msg->from) != SELF) {
		r->bad_from++;
		return;
	}
	if (pl.seq != r->expect[pl.producer])
		r->out_of_order++;
	r->expect[pl.producer] = pl.seq + 1;
	r->got++;
}

static lca_actor_id_t recv_ids[2];

static unsigned int recv_mailbox = 4096;

static unsigned int recv_throughput = 64;

static bool
all_received(void *arg)
{
	(void)arg;
	for (unsigned int i = 0; i < 2; i++) {
		const struct receiver *r = lca_actor_state(recv_ids[i]);

		if (r->got < 2 * MSGS)
			return false;
	}
	return lca_remote_idle();
}

/* Two producers (one per lcore) to two receivers (one per lcore), over the
 * wire; every count checked. */
void
run_exchange(const struct lca_remote_conf *c, struct lca_remote_link_stats *ls)
{
	lca_actor_id_t prod[2];
	struct lca_remote_stats gs;

	for (unsigned int i = 0; i < 2; i++)
		recv_ids[i] = lca_test_spawn(receiver_handler, sizeof(struct receiver), i,
					     recv_mailbox, recv_throughput);
	for (unsigned int i = 0; i < 2; i++) {
		struct producer *p;

		prod[i] = lca_test_spawn(producer_handler, sizeof(struct producer), i, 16, 1);
		p = lca_actor_state(prod[i]);
		p->index = i;
		p->to[0] = lca_remote_ref(SELF, recv_ids[0]);
		p->to[1] = lca_remote_ref(SELF, recv_ids[1]);
	}
	assert_int_equal(lca_remote_start(c), 0);
	for (unsigned int i = 0; i < 2; i++) {
		struct lca_msg *m;

		assert_int_equal(lca_msg_alloc(&m), 0);
		m->type = TYPE_GO;
		assert_int_equal(lca_send(prod[i], m), 0);
	}
	assert_true(lca_test_run_until(all_received, NULL, 60));
	for (unsigned int i = 0; i < 2; i++) {
		const struct receiver *r = lca_actor_state(recv_ids[i]);
		const struct producer *p = lca_actor_state(prod[i]);

		assert_int_equal(r->got, 2 * MSGS);
		assert_int_equal(r->out_of_order, 0);
		assert_int_equal(r->bad_from, 0);
		assert_int_equal(r->expect[0], MSGS);
		assert_int_equal(r->expect[1], MSGS);
		assert_int_equal(p->other_errors, 0);
	}
	assert_int_equal(lca_remote_link_stats_get(SELF, ls), 0);
	assert_int_equal(ls->msgs_sent, 4 * MSGS);
	assert_int_equal(ls->msgs_delivered, 4 * MSGS);
	assert_int_equal(ls->undeliverable, 0);
	assert_int_equal(ls->in_flight, 0);
	assert_int_equal(ls->lost_on_dead, 0);
	assert_int_equal(ls->dead, 0);
	/* Duplicated and reordered frames bring old acks: no protocol error. */
	assert_int_equal(ls->ack_beyond_sent, 0);
	assert_int_equal(ls->credit_beyond_window, 0);
	assert_int_equal(ls->retry_exhausted, 0);
	/* Every first transmission of a data frame arrived once, or was
	 * retransmitted. */
	assert_true(ls->frames_rx <= ls->frames_sent);
	assert_int_equal(lca_remote_stats_get(&gs), 0);
	assert_int_equal(gs.malformed, 0);
	assert_int_equal(gs.unknown_peer, 0);
	assert_int_equal(lca_remote_stop(), 0);
}

/* run_exchange() with receivers whose mailboxes hold 16 and who take 4
 * messages a turn: a frame's burst to one is more than a direct turn takes,
 * and its mailbox fills. */
void
run_exchange_small_receivers(const struct lca_remote_conf *c, struct lca_remote_link_stats *ls)
{
	recv_mailbox = 16;
	recv_throughput = 4;
	run_exchange(c, ls);
	recv_mailbox = 4096;
	recv_throughput = 64;
}

struct rte_mbuf *
raw_frame(struct rte_mempool *mp, const uint8_t *bytes, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);

	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, len), bytes, len);
	return m;
}

static unsigned int handled_any;

void
count_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	(void)self;
	(void)state;
	(void)msg;
	handled_any++;
}

/* Messages larger than a frame cross in the large lane, in fragments put
 * back together without a copy, over a lossy wire; small messages keep
 * flowing meanwhile. */
#define BIG_LEN 100000
#define N_BIG 5
#define N_SMALL 2000

struct big_rx {
	unsigned int big;
	unsigned int big_ok;
	unsigned int small;
	unsigned int small_in_order;
};

static void
big_rx_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct big_rx *r = state;

	(void)self;
	if (msg->type == 7 && (msg->flags & LCA_MSG_F_MBUF)) {
		const struct rte_mbuf *m = msg->ptr;
		uint8_t buf[1000];
		bool same = m->pkt_len == BIG_LEN;

		for (uint32_t off = 0; same && off < BIG_LEN; off += sizeof(buf)) {
			const uint8_t *b = rte_pktmbuf_read(m, off, sizeof(buf), buf);

			for (unsigned int i = 0; i < sizeof(buf); i++)
				same &= b[i] == (uint8_t)((off + i) * 7 + r->big);
		}
		r->big_ok += same;
		r->big++;
	} else if (msg->type == 8) {
		uint32_t seq;

		memcpy(&seq, msg->data, sizeof(seq));
		r->small_in_order += seq == r->small;
		r->small++;
	}
}

struct big_tx {
	lca_actor_id_t to;
	struct rte_mempool *mp;
	unsigned int big_sent;
	unsigned int small_sent;
	unsigned int refused;
	int error;
};

static struct rte_mbuf *
big_payload(struct rte_mempool *mp, unsigned int k)
{
	struct rte_mbuf *head = NULL;
	uint32_t off = 0;

	/* A chain: the payload need not be contiguous. */
	while (off < BIG_LEN) {
		struct rte_mbuf *seg = rte_pktmbuf_alloc(mp);
		uint16_t n = (uint16_t)RTE_MIN(8000u, BIG_LEN - off);
		uint8_t *b;

		if (seg == NULL) {
			rte_pktmbuf_free(head);
			return NULL;
		}
		b = (uint8_t *)rte_pktmbuf_append(seg, n);
		for (unsigned int i = 0; i < n; i++)
			b[i] = (uint8_t)((off + i) * 7 + k);
		off += n;
		if (head == NULL)
			head = seg;
		else
			rte_pktmbuf_chain(head, seg);
	}
	return head;
}

static void
big_tx_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct big_tx *t = state;

	if (t->big_sent < N_BIG) {
		struct lca_msg *m;
		struct rte_mbuf *p = big_payload(t->mp, t->big_sent);

		if (p != NULL && lca_msg_from_mbuf(p, &m) == 0) {
			int ret;

			m->type = 7;
			ret = lca_send(t->to, m);
			if (ret == 0)
				t->big_sent++;
			else if (ret == -ENOBUFS)
				t->refused++, lca_msg_free(m);
			else
				t->error = ret, lca_msg_free(m);
		} else {
			rte_pktmbuf_free(p);
		}
	}
	for (unsigned int i = 0; i < 16 && t->small_sent < N_SMALL; i++) {
		struct lca_msg *m;
		int ret;

		if (lca_msg_alloc(&m) != 0)
			break;
		m->type = 8;
		memcpy(m->data, &t->small_sent, sizeof(t->small_sent));
		m->len = sizeof(t->small_sent);
		ret = lca_send(t->to, m);
		if (ret != 0) {
			lca_msg_free(m);
			if (ret != -ENOBUFS)
				t->error = ret;
			break;
		}
		t->small_sent++;
	}
	if (t->error == 0 && (t->big_sent < N_BIG || t->small_sent < N_SMALL))
		lca_send(self, msg);
}

static lca_actor_id_t big_rx_id;

static bool
big_done(void *arg)
{
	const struct big_rx *r = lca_actor_state(big_rx_id);

	(void)arg;
	return r->big == N_BIG && r->small == N_SMALL && lca_remote_idle();
}

/* Large messages (in mbuf chains) and small ones from one sender to one
 * receiver: every large one whole, the small ones in order, nothing left. */
void
run_large(const struct lca_remote_conf *cp, struct lca_remote_link_stats *ls)
{
	struct lca_remote_conf c = *cp;
	struct big_tx *t;
	const struct big_rx *r;
	lca_actor_id_t tx;
	struct lca_msg *go;
	struct rte_mempool *mp;

	mp = rte_pktmbuf_pool_create("remote_chain", 255, 0, 0, 8192 + RTE_PKTMBUF_HEADROOM,
				     SOCKET_ID_ANY);
	assert_non_null(mp);
	big_rx_id = lca_test_spawn(big_rx_handler, sizeof(struct big_rx), 1, 4096, 64);
	tx = lca_test_spawn(big_tx_handler, sizeof(struct big_tx), 0, 16, 1);
	t = lca_actor_state(tx);
	t->to = lca_remote_ref(SELF, big_rx_id);
	t->mp = mp;
	assert_int_equal(lca_remote_start(&c), 0);
	assert_int_equal(lca_msg_alloc(&go), 0);
	assert_int_equal(lca_send(tx, go), 0);
	assert_true(lca_test_run_until(big_done, NULL, 60));
	r = lca_actor_state(big_rx_id);
	assert_int_equal(t->error, 0);
	assert_int_equal(r->big, N_BIG);
	assert_int_equal(r->big_ok, N_BIG);
	assert_int_equal(r->small, N_SMALL);
	assert_int_equal(r->small_in_order, N_SMALL);
	assert_int_equal(lca_remote_link_stats_get(SELF, ls), 0);
	assert_int_equal(ls->msgs_sent, N_BIG + N_SMALL);
	assert_int_equal(ls->msgs_delivered, N_BIG + N_SMALL);
	assert_int_equal(ls->undeliverable, 0);
	assert_int_equal(lca_remote_stop(), 0);
	/* Every payload mbuf went back. */
	assert_int_equal(rte_mempool_avail_count(mp), 255);
	rte_mempool_free(mp);
}

/* Asks to a remote reference (loopback: this node's other lcore): a reply
 * in time (inline, and in an mbuf), a timeout, then the late reply to it
 * dropped and counted; a large-lane ask refused. */
#define TYPE_ASK_GO 10
#define TYPE_ASK_ECHO 11    /* answered at once */
#define TYPE_ASK_HOLD 12    /* kept until a release */
#define TYPE_ASK_RELEASE 13 /* answer the kept one now */
#define ASK_MBUF_LEN 300    /* over RM_COPY_MAX: shared out of the frame */
#define ASK_LONG_US 30000000 /* a timeout that never comes on a loaded machine */

struct asker {
	lca_actor_id_t peer;
	struct rte_mempool *mp;
	uint64_t id[3];
	unsigned int phase;
	unsigned int replies_ok;
	unsigned int timeouts_ok;
	unsigned int bad;
	int large_ret;
};

struct answerer {
	struct lca_msg *held;
	unsigned int asks_ok;
	unsigned int bad;
};

static void
answerer_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct answerer *a = state;

	(void)self;
	if (msg->type != TYPE_ASK_RELEASE &&
	    (!(msg->flags & LCA_MSG_F_ASK) || lca_msg_req_id(msg) == 0 ||
	     !lca_remote_is_ref(msg->from))) {
		a->bad++;
		return;
	}
	switch (msg->type) {
	case TYPE_ASK_ECHO:
		for (unsigned int i = 0; !(msg->flags & LCA_MSG_F_MBUF) && i < msg->len; i++)
			msg->data[i]++;
		a->asks_ok++;
		if (lca_reply(msg) != 0)
			a->bad++;
		break;
	case TYPE_ASK_HOLD:
		a->asks_ok++;
		lca_msg_keep(msg);
		a->held = msg;
		break;
	case TYPE_ASK_RELEASE:
		if (a->held == NULL || lca_reply(a->held) != 0)
			a->bad++;
		a->held = NULL;
		break;
	default:
		a->bad++;
	}
}

static struct lca_msg *
ask_msg(uint32_t type)
{
	struct lca_msg *m = lca_test_msg();

	m->type = type;
	return m;
}

static bool
reply_is(const struct asker *s, const struct lca_msg *msg, uint64_t id)
{
	return (msg->flags & LCA_MSG_F_REPLY) && lca_msg_req_id(msg) == id &&
	       msg->from == s->peer && msg->type == TYPE_ASK_ECHO;
}

/* Phase 0 to 1: an inline ask of LCA_MSG_INLINE_ASK bytes. */
static void
ask_inline(lca_actor_id_t self, struct asker *s)
{
	struct lca_msg *m = ask_msg(TYPE_ASK_ECHO);

	m->len = LCA_MSG_INLINE_ASK;
	for (unsigned int i = 0; i < m->len; i++)
		m->data[i] = (uint8_t)i;
	if (lca_ask(self, s->peer, m, ASK_LONG_US, &s->id[0]) != 0)
		s->bad++;
}

/* Phase 1 to 2: an ask whose payload is an mbuf. */
static void
ask_mbuf(lca_actor_id_t self, struct asker *s)
{
	struct lca_msg *m = ask_msg(TYPE_ASK_ECHO);
	struct rte_mbuf *mb = rte_pktmbuf_alloc(s->mp);
	uint8_t *b = mb != NULL ? (uint8_t *)rte_pktmbuf_append(mb, ASK_MBUF_LEN) : NULL;

	if (b == NULL) {
		s->bad++;
		return;
	}
	for (unsigned int i = 0; i < ASK_MBUF_LEN; i++)
		b[i] = (uint8_t)(i * 3);
	m->ptr = mb;
	m->flags |= LCA_MSG_F_MBUF;
	if (lca_ask(self, s->peer, m, ASK_LONG_US, &s->id[1]) != 0)
		s->bad++;
}

static bool
mbuf_echoed(const struct lca_msg *msg)
{
	const struct rte_mbuf *mb = msg->ptr;
	uint8_t b[ASK_MBUF_LEN];
	const uint8_t *p;

	if (!(msg->flags & LCA_MSG_F_MBUF) || mb->pkt_len != ASK_MBUF_LEN)
		return false;
	p = rte_pktmbuf_read(mb, 0, ASK_MBUF_LEN, b);
	for (unsigned int i = 0; i < ASK_MBUF_LEN; i++)
		if (p[i] != (uint8_t)(i * 3))
			return false;
	return true;
}

/* Phase 2 to 3: a large-lane ask is refused; one the answerer holds past
 * its short timeout. */
static void
ask_large_then_hold(lca_actor_id_t self, struct asker *s)
{
	struct lca_msg *m = ask_msg(TYPE_ASK_ECHO);

	m->ptr = big_payload(s->mp, 1);
	m->flags |= LCA_MSG_F_MBUF;
	s->large_ret = m->ptr == NULL ? -ENOMEM : lca_ask(self, s->peer, m, ASK_LONG_US, NULL);
	if (s->large_ret != 0)
		lca_msg_free(m);
	if (lca_ask(self, s->peer, ask_msg(TYPE_ASK_HOLD), 1000, &s->id[2]) != 0)
		s->bad++;
}

static void
asker_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct asker *s = state;

	if (s->phase == 0 && msg->type == TYPE_ASK_GO) {
		ask_inline(self, s);
	} else if (s->phase == 1 && reply_is(s, msg, s->id[0])) {
		bool same = msg->len == LCA_MSG_INLINE_ASK;

		for (unsigned int i = 0; i < msg->len; i++)
			same &= msg->data[i] == (uint8_t)(i + 1);
		s->replies_ok += same;
		ask_mbuf(self, s);
	} else if (s->phase == 2 && reply_is(s, msg, s->id[1])) {
		s->replies_ok += mbuf_echoed(msg);
		ask_large_then_hold(self, s);
	} else if (s->phase == 3 && msg->type == LCA_TYPE_TIMEOUT) {
		struct lca_timeout t;

		memcpy(&t, msg->data, sizeof(t));
		s->timeouts_ok += lca_msg_req_id(msg) == s->id[2] && t.req_id == s->id[2] &&
				  t.target == s->peer && t.msg_type == TYPE_ASK_HOLD;
		if (lca_send_from(self, s->peer, ask_msg(TYPE_ASK_RELEASE)) != 0)
			s->bad++;
	} else {
		/* The late reply never gets here. */
		s->bad++;
		return;
	}
	s->phase++;
}

static bool
late_counted(void *arg)
{
	const struct asker *s = arg;
	struct lca_ask_stats st;

	lca_ask_stats_get(&st);
	return (s->phase == 4 && st.late == 1) || s->bad > 0;
}

void
run_remote_ask(const struct lca_remote_conf *c)
{
	struct lca_remote_link_stats ls;
	struct lca_remote_stats gs;
	struct lca_ask_stats st;
	const struct answerer *a;
	struct asker *s;
	lca_actor_id_t asker, answerer;
	struct rte_mempool *mp;

	mp = rte_pktmbuf_pool_create("remote_ask", 63, 0, 0, 8192 + RTE_PKTMBUF_HEADROOM,
				     SOCKET_ID_ANY);
	assert_non_null(mp);
	answerer = lca_test_spawn(answerer_handler, sizeof(struct answerer), 1, 64, 8);
	asker = lca_test_spawn(asker_handler, sizeof(struct asker), 0, 64, 8);
	s = lca_actor_state(asker);
	s->peer = lca_remote_ref(SELF, answerer);
	s->mp = mp;
	assert_int_equal(lca_remote_start(c), 0);
	assert_int_equal(lca_send(asker, ask_msg(TYPE_ASK_GO)), 0);
	assert_true(lca_test_run_until(late_counted, s, 60));
	a = lca_actor_state(answerer);
	assert_int_equal(s->bad, 0);
	assert_int_equal(a->bad, 0);
	assert_int_equal(s->phase, 4);
	assert_int_equal(s->replies_ok, 2);
	assert_int_equal(s->timeouts_ok, 1);
	assert_int_equal(s->large_ret, -EMSGSIZE);
	assert_int_equal(a->asks_ok, 3);
	lca_ask_stats_get(&st);
	assert_int_equal(st.asked, 3);
	assert_int_equal(st.replied, 2);
	assert_int_equal(st.timed_out, 1);
	assert_int_equal(st.late, 1);
	assert_int_equal(st.pending, 0);
	assert_int_equal(lca_remote_link_stats_get(SELF, &ls), 0);
	assert_int_equal(ls.undeliverable, 0);
	assert_int_equal(lca_remote_stats_get(&gs), 0);
	assert_int_equal(gs.malformed, 0);
	assert_int_equal(lca_remote_stop(), 0);
	assert_int_equal(rte_mempool_avail_count(mp), 63);
	rte_mempool_free(mp);
}

/* Names on a remote node (loopback: this node's own name service, over the
 * wire): a registered name comes back as a remote reference, an unknown one
 * with -ENOENT, each with its lookup's request id. */
#define TYPE_NAMES_GO 20

struct name_asker {
	uint64_t id[2];
	unsigned int found;
	unsigned int missing;
	unsigned int bad;
	lca_actor_id_t want;
	int too_long;
};

static void
name_asker_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct name_asker *s = state;
	struct lca_remote_name ans;

	if (msg->type == TYPE_NAMES_GO) {
		s->too_long = lca_remote_lookup(self, SELF, "a-name-of-twenty-five-b..", ASK_LONG_US,
						NULL);
		if (lca_remote_lookup(self, SELF, "svc", ASK_LONG_US, &s->id[0]) != 0 ||
		    lca_remote_lookup(self, SELF, "nobody", ASK_LONG_US, &s->id[1]) != 0)
			s->bad++;
		return;
	}
	memcpy(&ans, msg->data, sizeof(ans));
	if (msg->type != LCA_TYPE_REMOTE_NAME || !(msg->flags & LCA_MSG_F_REPLY) ||
	    msg->len != sizeof(ans))
		s->bad++;
	else if (lca_msg_req_id(msg) == s->id[0] && ans.error == 0 && ans.actor == s->want)
		s->found++;
	else if (lca_msg_req_id(msg) == s->id[1] && ans.error == -ENOENT &&
		 ans.actor == LCA_ACTOR_NONE)
		s->missing++;
	else
		s->bad++;
}

static bool
names_answered(void *arg)
{
	const struct name_asker *s = arg;

	return s->found + s->missing + s->bad >= 2;
}

void
run_remote_lookup(const struct lca_remote_conf *c)
{
	struct lca_ask_stats st;
	struct name_asker *s;
	lca_actor_id_t asker, svc;

	svc = lca_test_spawn(count_handler, 0, 1, 64, 1);
	assert_int_equal(lca_actor_register("svc", svc), 0);
	asker = lca_test_spawn(name_asker_handler, sizeof(struct name_asker), 0, 64, 8);
	s = lca_actor_state(asker);
	s->want = lca_remote_ref(SELF, svc);
	/* Not started: no node to ask. */
	assert_int_equal(lca_remote_lookup(asker, SELF, "svc", ASK_LONG_US, NULL), -ESRCH);
	assert_int_equal(lca_remote_start(c), 0);
	assert_int_equal(lca_remote_lookup(asker, SELF, "", ASK_LONG_US, NULL), -EINVAL);
	assert_int_equal(lca_remote_lookup(asker, LCA_REMOTE_NODE_MAX, "svc", ASK_LONG_US, NULL),
			 -ESRCH);
	assert_int_equal(lca_send(asker, ask_msg(TYPE_NAMES_GO)), 0);
	assert_true(lca_test_run_until(names_answered, s, 60));
	assert_int_equal(s->bad, 0);
	assert_int_equal(s->found, 1);
	assert_int_equal(s->missing, 1);
	assert_int_equal(s->too_long, -ENAMETOOLONG);
	lca_ask_stats_get(&st);
	assert_int_equal(st.replied, 2);
	assert_int_equal(st.pending, 0);
	assert_int_equal(lca_remote_stop(), 0);
}

void
watcher_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct watcher *w = state;
	struct lca_terminated t;

	(void)self;
	if (msg->type == LCA_TYPE_NODE_DOWN && (msg->flags & LCA_MSG_F_CONTROL)) {
		memcpy(&t, msg->data, sizeof(t));
		w->downs++;
		w->who = t.actor;
		lca_runtime_stop();
	} else if (msg->type == LCA_TYPE_NODE_UP && (msg->flags & LCA_MSG_F_CONTROL)) {
		memcpy(&t, msg->data, sizeof(t));
		w->ups += w->downs > w->ups; /* an up never comes before its down */
		w->who = t.actor;
	}
}

void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

const uint8_t fake_key[LCA_REMOTE_KEY_LEN] = { 0x6c, 0x63, 0x61, 0x2d, 0x6b, 0x65, 0x79, 1 };

void
key_conf(struct lca_remote_conf *c)
{
	c->has_key = true;
	memcpy(c->key, fake_key, sizeof(c->key));
}
