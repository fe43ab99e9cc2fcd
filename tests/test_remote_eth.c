/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Remote actors over the ethdev transport, on net_ring: a node that lists
 * itself as a peer (loopback) sends its frames through a net_ring port
 * whose TX queue q writes the ring its RX queue q reads, so every frame
 * crosses the whole path: packing, the channel header, the port, the
 * classifier, the link actor, the decoder and delivery. The fault injector
 * drops, duplicates and holds back frames between the rings; every message
 * must still arrive exactly once, in each sender's order. Large messages,
 * asks and names cross it too; a peer that never answers is declared dead.
 * (The link protocol against a forged peer: test_remote_link.c; the same
 * exchanges over UCX: test_remote_ucx.c.)
 */
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

static void
test_clean_wire(void **state)
{
	struct lca_remote_conf c;
	struct lca_remote_link_stats ls;

	(void)state;
	loopback_conf(&c);
	run_exchange(&c, &ls);
	assert_int_equal(ls.inj_lost, 0);
	/* Many messages a frame: packing works. */
	assert_true(ls.frames_sent * 4 <= ls.msgs_sent);
}

static void
test_lossy_wire(void **state)
{
	struct lca_remote_conf c;
	struct lca_remote_link_stats ls;

	(void)state;
	loopback_conf(&c);
	c.inject.loss_ppm = 20000;
	c.inject.dup_ppm = 20000;
	c.inject.reorder_ppm = 20000;
	c.inject.seed = 7;
	run_exchange(&c, &ls);
	/* The injector did its work, and the channel saw it. */
	assert_true(ls.inj_lost > 0);
	assert_true(ls.inj_dup > 0);
	assert_true(ls.inj_reordered > 0);
	assert_true(ls.retransmits > 0);
	assert_true(ls.duplicates > 0);
	assert_true(ls.reordered > 0);
}

/* Small window, small credit: senders see -ENOBUFS and nothing is lost. */
static void
test_credit_backpressure(void **state)
{
	struct lca_remote_conf c;
	struct lca_remote_link_stats ls;

	(void)state;
	loopback_conf(&c);
	c.window = 2;
	run_exchange(&c, &ls);
	assert_true(ls.no_credit > 0);
}

/* Receivers with mailboxes of 16 that take 4 messages a turn, and frames
 * of up to 64 records each: a frame's records to one receiver go as one
 * burst, too many for a direct turn, a full mailbox takes part of it, and
 * the rest waits at its own record. Nothing is lost, repeated or reordered
 * (run_exchange()'s checks). */
static void
test_mailbox_backpressure(void **state)
{
	struct lca_remote_conf c;
	struct lca_remote_link_stats ls;

	(void)state;
	loopback_conf(&c);
	run_exchange_small_receivers(&c, &ls);
	assert_true(ls.held > 0);
}

/* Malformed frames put on the wire are counted and dropped: exact counts. */
/* @p hb, a heartbeat frame, made a data frame of one record: @p rflags
 * (big-endian 16 bits on the wire) and a payload of @p plen bytes (zeros),
 * in @p out. @return its length. */
static uint16_t
one_record_frame(const uint8_t *hb, uint8_t *out, uint16_t rflags, uint16_t plen)
{
	uint16_t rlen = (uint16_t)(16 + ((plen + 3) & ~3)), ip_len = 20 + 8 + HDR + rlen;

	memset(out, 0, 256);
	memcpy(out, hb, RECS);
	out[16] = (uint8_t)(ip_len >> 8), out[17] = (uint8_t)ip_len;
	out[24] = out[25] = 0;
	out[38] = (uint8_t)((ip_len - 20) >> 8), out[39] = (uint8_t)(ip_len - 20);
	out[43] = 0x03; /* data, ack */
	out[45] = 1;    /* one message */
	out[53] = 1;    /* seq 1 */
	out[RECS + 12] = (uint8_t)(plen >> 8), out[RECS + 13] = (uint8_t)plen;
	out[RECS + 14] = (uint8_t)(rflags >> 8), out[RECS + 15] = (uint8_t)rflags;
	if (rflags & 0x0002) {
		/* A fragment: of the large lane, the whole message at offset 0. */
		out[43] |= 0x10;
		out[RECS + 18] = (uint8_t)((plen - 8) >> 8), out[RECS + 19] = (uint8_t)(plen - 8);
	}
	return (uint16_t)(14 + ip_len);
}

/* Records with a request id (0x0004 ask, 0x0008 reply, then 8 bytes): a
 * well-formed one is accepted by the checker; a cut id, an inline part that
 * would overlap data[24..32) and an id on a fragment are refused, and the
 * refused ones, put on the wire, are counted malformed. @return how many
 * went on the wire. */
static unsigned int
id_records_refused(const uint8_t *hb, struct rte_ring *ring, struct rte_mempool *mp)
{
	static const struct {
		uint16_t flags, plen;
	} bad[] = {
		{ 0x0004, 4 },           /* an id cut short */
		{ 0x0008, 0 },           /* no id at all */
		{ 0x0004, 8 + 25 },      /* inline past LCA_MSG_INLINE_ASK */
		{ 0x0007, 8 + 8 + 100 }, /* an id on a fragment */
		{ 0x0010, 8 },           /* an unknown record flag */
	};
	uint8_t f[256];
	uint16_t len;

	len = one_record_frame(hb, f, 0x0004, 8 + 24);
	assert_int_equal(lca_remote_frame_check(f, len, NULL), 0);
	len = one_record_frame(hb, f, 0x0009, 8 + 100); /* a reply in an mbuf */
	assert_int_equal(lca_remote_frame_check(f, len, NULL), 0);
	len = one_record_frame(hb, f, 0x0003, 8 + 100); /* a fragment without one */
	assert_int_equal(lca_remote_frame_check(f, len, NULL), 0);
	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		len = one_record_frame(hb, f, bad[i].flags, bad[i].plen);
		assert_int_equal(lca_remote_frame_check(f, len, NULL), -EBADMSG);
		assert_int_equal(rte_ring_enqueue(ring, raw_frame(mp, f, len)), 0);
	}
	return RTE_DIM(bad);
}

static void
test_malformed_counted(void **state)
{
	struct lca_remote_conf c;
	struct lca_remote_stats gs;
	struct rte_mempool *mp;
	struct rte_ring *ring;
	char rname[RTE_RING_NAMESIZE];
	uint8_t good[128], bad[128];
	unsigned int n_bad = 0;

	(void)state;
	loopback_conf(&c);
	lca_test_spawn(count_handler, 0, 0, 64, 1);
	assert_int_equal(lca_remote_start(&c), 0);
	mp = rte_pktmbuf_pool_create("remote_raw", 255, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				     SOCKET_ID_ANY);
	assert_non_null(mp);
	snprintf(rname, sizeof(rname), "ETH_RXTX0_%s", port_name);
	ring = rte_ring_lookup(rname);
	assert_non_null(ring);
	/* A well-formed heartbeat frame from node 3 lcore 0 to lcore 0, then
	 * broken in every field the decoder checks. */
	memset(good, 0, sizeof(good));
	good[12] = 0x08;
	good[14] = 0x45;
	good[16] = 0;
	good[17] = 20 + 8 + HDR;
	good[23] = 17;
	good[26] = 10, good[29] = 3, good[30] = 10, good[33] = 3;
	good[34] = 7000 >> 8, good[35] = 7000 & 0xff, good[36] = 7000 >> 8,
	good[37] = 7000 & 0xff;
	good[39] = 8 + HDR;
	good[42] = 3;    /* version (3: the header names the session heard) */
	good[43] = 0x08; /* heartbeat */
	good[47] = SELF;
	good[49] = SELF;
	assert_int_equal(lca_remote_frame_check(good, RECS, NULL), 0);
	static const struct {
		unsigned int off;
		uint8_t val;
	} breaks[] = {
		{ 12, 0x86 }, /* not IPv4 */
		{ 14, 0x65 }, /* IP version 6 */
		{ 14, 0x44 }, /* IHL 4 */
		{ 17, 200 },  /* IP length past the frame */
		{ 23, 6 },    /* TCP */
		{ 39, 9 },    /* UDP length */
		{ 42, 2 },    /* version 2 (before the session heard) */
		{ 43, 0x80 }, /* unknown flag */
		{ 43, 0x50 }, /* LEAVE of the large lane: a LEAVE is for the node, a frame of its own */
		{ 43, 0x01 }, /* data without messages */
		{ 45, 1 },    /* one message that is not there */
	};
	for (unsigned int i = 0; i < RTE_DIM(breaks); i++) {
		struct rte_mbuf *m;

		memcpy(bad, good, sizeof(bad));
		bad[breaks[i].off] = breaks[i].val;
		assert_int_equal(lca_remote_frame_check(bad, RECS, NULL), -EBADMSG);
		m = raw_frame(mp, bad, RECS);
		assert_int_equal(rte_ring_enqueue(ring, m), 0);
		n_bad++;
	}
	/* Too short for any header. */
	assert_int_equal(rte_ring_enqueue(ring, raw_frame(mp, good, 20)), 0);
	n_bad++;
	n_bad += id_records_refused(good, ring, mp);
	assert_false(lca_test_run(1));
	assert_int_equal(lca_remote_stats_get(&gs), 0);
	assert_int_equal(gs.malformed, n_bad);
	assert_int_equal(lca_remote_stop(), 0);
	assert_int_equal(rte_mempool_avail_count(mp), 255);
	rte_mempool_free(mp);
}

/* Errors as lca_send() gives them, and an mbuf payload crossing. */
struct mbuf_rx {
	unsigned int got;
	unsigned int ok;
};

static void
mbuf_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct mbuf_rx *r = state;
	const struct rte_mbuf *m = msg->ptr;

	(void)self;
	r->got++;
	if ((msg->flags & LCA_MSG_F_MBUF) && m->pkt_len == 200) {
		const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
		bool same = true;

		for (unsigned int i = 0; i < 200; i++)
			same &= b[i] == (uint8_t)i;
		r->ok += same;
	}
	lca_runtime_stop();
}

static void
test_send_errors_and_mbuf(void **state)
{
	struct lca_remote_conf c;
	struct lca_remote_link_stats ls;
	struct lca_send_errors e0, e1;
	struct lca_msg *m;
	struct rte_mbuf *mb;
	struct rte_mempool *mp;
	lca_actor_id_t rx;
	uint8_t big[64];
	const struct mbuf_rx *r;

	(void)state;
	loopback_conf(&c);
	rx = lca_test_spawn(mbuf_handler, sizeof(struct mbuf_rx), 1, 64, 1);
	assert_int_equal(lca_msg_alloc(&m), 0);
	/* Not started: as an unknown actor. */
	assert_int_equal(lca_send(lca_remote_ref(SELF, rx), m), -ESRCH);
	assert_int_equal(lca_remote_start(&c), 0);
	assert_int_equal(lca_remote_self(), SELF);
	assert_int_equal(lca_remote_start(&c), -EEXIST);
	/* A node not in the table. */
	assert_int_equal(lca_send(lca_remote_ref(SELF + 1, rx), m), -ESRCH);
	/* A ptr payload with no declared size. */
	m->ptr = big;
	assert_int_equal(lca_send(lca_remote_ref(SELF, rx), m), -EINVAL);
	m->ptr = NULL;
	mp = rte_pktmbuf_pool_create("remote_big", 63, 0, 0, 8192, SOCKET_ID_ANY);
	assert_non_null(mp);
	mb = rte_pktmbuf_alloc(mp);
	assert_non_null(mb);
	m->ptr = mb;
	m->flags |= LCA_MSG_F_MBUF;
	/* 200 bytes in an mbuf cross, and arrive in an mbuf. */
	for (unsigned int i = 0; i < 200; i++)
		*(uint8_t *)rte_pktmbuf_append(mb, 1) = (uint8_t)i;
	lca_send_errors_get(&e0);
	assert_int_equal(lca_send(lca_remote_ref(SELF, rx), m), 0);
	/* An actor that is not there: counted on the receiving side. */
	assert_int_equal(lca_msg_alloc(&m), 0);
	assert_int_equal(lca_send(lca_remote_ref(SELF, 5000), m), 0);
	assert_true(lca_test_run(10));
	assert_false(lca_test_run(1));
	r = lca_actor_state(rx);
	assert_int_equal(r->got, 1);
	assert_int_equal(r->ok, 1);
	assert_int_equal(lca_remote_link_stats_get(SELF, &ls), 0);
	assert_int_equal(ls.undeliverable, 1);
	lca_send_errors_get(&e1);
	assert_int_equal(e1.no_actor - e0.no_actor, 1);
	assert_int_equal(lca_remote_stop(), 0);
	assert_int_equal(rte_mempool_avail_count(mp), 63);
	rte_mempool_free(mp);
}

/* An actor's messages to remote actors that are not there, or stopped,
 * come back to it as LCA_TYPE_UNDELIVERED notices on its control lane,
 * counted by cause on the sending side; a bare thread's are only counted. */
#define TYPE_LOST 78

struct told {
	lca_actor_id_t to[2];  /* where GO makes it send */
	unsigned int notices;
	struct lca_undelivered u[2];
	unsigned int not_control;
};

static void
told_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct told *t = state;
	struct lca_msg *m;

	(void)self;
	if (msg->type == TYPE_GO) {
		for (unsigned int i = 0; i < 2; i++) {
			assert_int_equal(lca_msg_alloc(&m), 0);
			m->type = TYPE_LOST;
			assert_int_equal(lca_send(t->to[i], m), 0);
		}
	} else if (msg->type == LCA_TYPE_UNDELIVERED) {
		t->not_control += !(msg->flags & LCA_MSG_F_CONTROL);
		if (t->notices < 2)
			memcpy(&t->u[t->notices], msg->data, sizeof(t->u[0]));
		if (++t->notices == 2)
			lca_runtime_stop();
	}
}

static void
test_undelivered_told(void **state)
{
	struct lca_remote_conf c;
	struct lca_remote_link_stats ls;
	lca_actor_id_t sender, gone;
	struct told *t;
	struct lca_msg *m;

	(void)state;
	loopback_conf(&c);
	sender = lca_test_spawn(told_handler, sizeof(struct told), 0, 64, 1);
	gone = lca_test_spawn(told_handler, sizeof(struct told), 1, 64, 1);
	assert_int_equal(lca_actor_stop(gone), 0);
	t = lca_actor_state(sender);
	t->to[0] = lca_remote_ref(SELF, 5000);
	t->to[1] = lca_remote_ref(SELF, gone);
	assert_int_equal(lca_remote_start(&c), 0);
	/* From a bare thread: counted, nobody to tell. */
	assert_int_equal(lca_msg_alloc(&m), 0);
	assert_int_equal(lca_send(lca_remote_ref(SELF, 5001), m), 0);
	assert_int_equal(lca_msg_alloc(&m), 0);
	m->type = TYPE_GO;
	assert_int_equal(lca_send(sender, m), 0);
	assert_true(lca_test_run(10));
	assert_false(lca_test_run(1));
	assert_int_equal(t->notices, 2);
	assert_int_equal(t->not_control, 0);
	/* One notice for each receiver, whichever came first: the two sends
	 * went to two receivers, so on two channels (wire.md, "Channels":
	 * lcores[id % n_lcores]), and nothing orders one against the other. */
	if (t->u[0].to != t->to[0])
		RTE_SWAP(t->u[0], t->u[1]);
	for (unsigned int i = 0; i < 2; i++) {
		assert_int_equal(t->u[i].to, t->to[i]);
		assert_int_equal(t->u[i].type, TYPE_LOST);
	}
	assert_int_equal(t->u[0].error, -ESRCH);
	assert_int_equal(t->u[1].error, -EPIPE);
	assert_int_equal(lca_remote_link_stats_get(SELF, &ls), 0);
	assert_int_equal(ls.undeliverable, 3);
	assert_int_equal(ls.returned_no_actor, 1);
	assert_int_equal(ls.returned_stopped, 1);
	assert_int_equal(lca_remote_stop(), 0);
}

static void
test_large_messages(void **state)
{
	struct lca_remote_conf c;
	struct lca_remote_link_stats ls;

	(void)state;
	loopback_conf(&c);
	c.inject.loss_ppm = 10000;
	c.inject.dup_ppm = 10000;
	c.inject.reorder_ppm = 10000;
	c.inject.seed = 3;
	run_large(&c, &ls);
	assert_true(ls.inj_lost > 0);
}

static void
test_remote_ask(void **state)
{
	struct lca_remote_conf c;

	(void)state;
	loopback_conf(&c);
	run_remote_ask(&c);
}

static void
test_remote_lookup(void **state)
{
	struct lca_remote_conf c;

	(void)state;
	loopback_conf(&c);
	run_remote_lookup(&c);
}

/* A peer that never answers is declared dead: its watchers are told and
 * sends to it fail with -EHOSTDOWN. */
static void
test_dead_peer(void **state)
{
	struct lca_remote_conf c;
	struct lca_remote_link_stats ls;
	const struct watcher *w;
	lca_actor_id_t wid, target;
	struct lca_msg *m;

	(void)state;
	loopback_conf(&c);
	/* Node 9 is reached through our port, and never answers: its frames
	 * come back to us, addressed to it, and are not ours. */
	c.loopback = false;
	c.n_nodes = 2;
	c.nodes[1] = c.nodes[0];
	c.nodes[1].id = 9;
	c.nodes[1].ipv4 = 0x0a000009;
	c.connect_ms = 200;
	c.heartbeat_ms = 5;
	wid = lca_test_spawn(watcher_handler, sizeof(struct watcher), 0, 64, 1);
	assert_int_equal(lca_remote_start(&c), 0);
	target = lca_remote_ref(9, 1);
	assert_int_equal(lca_remote_watch(wid, target), 0);
	assert_int_equal(lca_remote_watch(wid, lca_remote_ref(10, 1)), -ESRCH);
	assert_int_equal(lca_msg_alloc(&m), 0);
	assert_int_equal(lca_send(target, m), 0); /* not yet known dead */
	assert_true(lca_remote_node_up(9));
	assert_true(lca_test_run(10));
	w = lca_actor_state(wid);
	assert_int_equal(w->downs, 1);
	assert_int_equal(w->who, target);
	assert_false(lca_remote_node_up(9));
	assert_int_equal(lca_msg_alloc(&m), 0);
	assert_int_equal(lca_send(target, m), -EHOSTDOWN);
	lca_msg_free(m);
	assert_false(lca_test_run(1));
	assert_int_equal(lca_remote_link_stats_get(9, &ls), 0);
	assert_int_equal(ls.dead, 1);
	assert_int_equal(ls.lost_on_dead, 1);
	assert_int_equal(lca_remote_stop(), 0);
}

static void
test_conf_file(void **state)
{
	struct lca_remote_conf c, good;
	char path[] = "/tmp/lca_remote_conf_XXXXXX";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	write_file(path, "# two nodes\nself = 1\nwindow = 64 ; frames\n"
			 "[node 1]\nmac = 02:00:00:00:00:01\nip = 10.0.0.1\nudp_base = 7000\n"
			 "port = 0\nlcores = 0\n"
			 "[node 2]\nmac = 02:00:00:00:00:02\nip = 10.0.0.2\nudp_base = 7100\n"
			 "port = 0\nlcores = 1, 2\n");
	assert_int_equal(lca_remote_conf_load(path, &c), 0);
	assert_int_equal(c.self, 1);
	assert_int_equal(c.window, 64);
	assert_int_equal(c.n_nodes, 2);
	assert_int_equal(c.nodes[1].id, 2);
	assert_int_equal(c.nodes[1].ipv4, 0x0a000002);
	assert_int_equal(c.nodes[1].udp_base, 7100);
	assert_int_equal(c.nodes[1].n_lcores, 2);
	assert_int_equal(c.nodes[1].lcores[1], 2);
	assert_int_equal(c.nodes[1].mac[5], 2);
	write_file(path, "self = 1\n[node 1]\nmac = 02:00:00:00:00\n");
	assert_int_equal(lca_remote_conf_load(path, &c), -EINVAL);
	write_file(path, "self = 1\n[node 1]\nspeed = 9\n");
	assert_int_equal(lca_remote_conf_load(path, &c), -EINVAL);
	write_file(path, "[node 1]\nip = 10.0.0.1\n");
	assert_int_equal(lca_remote_conf_load(path, &c), -EINVAL);
	unlink(path);
	assert_int_equal(lca_remote_conf_load(path, &c), -ENOENT);
	/* A table without this node is refused at start. */
	memset(&c, 0, sizeof(c));
	c.self = 4;
	c.n_nodes = 1;
	c.nodes[0].id = 5;
	c.nodes[0].udp_base = 7000;
	c.nodes[0].n_lcores = 1;
	assert_int_equal(lca_remote_start(&c), -EINVAL);
	assert_int_equal(lca_remote_self(), -ESRCH);
	/* This node alone and not its own peer: a refusal that says so, not
	 * the transport's -ENOMEM for a start with no channel. */
	loopback_conf(&good);
	c = good;
	c.loopback = false;
	assert_int_equal(lca_remote_start(&c), -EINVAL);
	assert_int_equal(lca_remote_self(), -ESRCH);
	/* No address: refused, never started as 00:00:00:00:00:00 or 0.0.0.0. */
	c = good;
	memset(c.nodes[0].mac, 0, sizeof(c.nodes[0].mac));
	assert_int_equal(lca_remote_start(&c), -EINVAL);
	c = good;
	c.nodes[0].ipv4 = 0;
	assert_int_equal(lca_remote_start(&c), -EINVAL);
	assert_int_equal(lca_remote_self(), -ESRCH);
	/* The same conf whole starts: the refusals above were for their cause. */
	assert_int_equal(lca_remote_start(&good), 0);
	assert_int_equal(lca_remote_stop(), 0);
}

static void
test_refs(void **state)
{
	lca_actor_id_t r = lca_remote_ref(5, 1234);

	(void)state;
	assert_true(lca_remote_is_ref(r));
	assert_false(lca_remote_is_ref(1234));
	assert_false(lca_remote_is_ref(LCA_ACTOR_NONE));
	assert_int_equal(lca_remote_node(r), 5);
	assert_int_equal(lca_remote_local(r), 1234);
	assert_int_equal(lca_remote_ref(LCA_REMOTE_NODE_MAX, 1), LCA_ACTOR_NONE);
	assert_int_equal(lca_remote_ref(1, LCA_REMOTE_LOCAL_MAX + 1), LCA_ACTOR_NONE);
	assert_true(lca_remote_is_ref(lca_remote_ref(LCA_REMOTE_NODE_MAX - 1, LCA_REMOTE_LOCAL_MAX)));
}

/* A peer without an ethdev port is refused, and what the refused start did
 * is undone: the next start comes up. */
static void
test_bad_port(void **state)
{
	struct lca_remote_conf c;

	(void)state;
	loopback_conf(&c);
	c.nodes[0].port_id = RTE_MAX_ETHPORTS - 1;
	assert_int_equal(lca_remote_start(&c), -EINVAL);
	assert_int_equal(lca_remote_self(), -ESRCH);
	loopback_conf(&c);
	assert_int_equal(lca_remote_start(&c), 0);
	assert_true(lca_remote_node_up(SELF));
	assert_int_equal(lca_remote_stop(), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refs),
		cmocka_unit_test_setup_teardown(test_conf_file, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_clean_wire, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_lossy_wire, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_credit_backpressure, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_mailbox_backpressure, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_malformed_counted, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_send_errors_and_mbuf, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_bad_port, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_large_messages, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_dead_peer, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_undelivered_told, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_remote_ask, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_remote_lookup, runtime_up, runtime_down),
	};
	int ret;

	lca_test_eal_init("lca_test_remote_eth");
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	lca_eal_cleanup();
	return lca_test_status(ret);
}
