/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ethdev transport's link protocol (docs/wire.md) against a forged
 * peer: node FAKE, reached through a net_ring port whose frames come back
 * to us, not ours, and whose every frame the test writes. Acks and credits
 * past what was sent, retries given up, the window halved on a loss;
 * tagged frames (a key on both nodes, on one, forged ones); sessions and
 * epochs (rejoin, leave, stale frames); random frames, well formed or not.
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

/* ---- A fake peer: node FAKE, reached through our port, whose frames
 * come back to us not ours; the test writes the frames it sends us. ---- */
#define FAKE 9
#define FAKE_SESSION 0x5e55105u
#define FAKE_MSGS 5 /* messages a step sends: one frame */

struct fake {
	struct rte_mempool *mp;
	struct rte_ring *ring;
	lca_actor_id_t watcher;
	lca_actor_id_t target; /* on its lcore 1: our lcore 0's channel to it */
	uint32_t ack;          /* what its heartbeats acknowledge */
	uint32_t window;       /* the credit its heartbeats grant past ack */
	uint32_t session;      /* its heartbeats' (FAKE_SESSION at the start) */
	uint32_t echo;         /* our session its frames say it heard (0: none) */
	uint8_t src;           /* the node its frames come from (FAKE, or SELF
				* for frames forged on a loopback link) */
	FILE *log;             /* rte_log's lines while the test runs */
};

static struct fake fk;

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* FAKE's frames carry a tag (docs/wire.md, "Trust model") of this key. */
static bool fake_tagged;

#define FAKE_RECS_MAX 8
#define FAKE_FRAME_MAX (RECS + 16 * FAKE_RECS_MAX + 8)

/* The tag of the @p len bytes at @p f, written after them, as the wire
 * says: SipHash-2-4 keyed with the crypto_kdf subkey 1 of context
 * "lcawire1" of the node table's key. Written here from the spec, not
 * from the library's code. */
static void
fake_tag(uint8_t *f, uint16_t len)
{
	uint8_t sub[crypto_shorthash_KEYBYTES];

	assert_int_equal(crypto_kdf_derive_from_key(sub, sizeof(sub), 1, "lcawire1", fake_key), 0);
	crypto_shorthash(f + len, f, len, sub);
}

/* A frame of FAKE's lcore 1 to our lcore 0 into @p f (FAKE_FRAME_MAX
 * bytes): @p flags, @p seq, @p ack, @p credit, @p session, and @p n_rec
 * empty TYPE_DATA records to our actor @p to; tagged when fake_tagged.
 * @return its length. */
/* fake_build() makes frames the decoder refuses too (test_random_frames). */
static bool fake_any_frame;

static uint16_t
fake_build(uint8_t *f, uint8_t flags, uint32_t seq, uint32_t ack, uint32_t credit,
	   uint32_t session, unsigned int n_rec, lca_actor_id_t to)
{
	unsigned int tag = fake_tagged ? 8 : 0;
	uint16_t udp = (uint16_t)(8 + HDR + 16 * n_rec + tag), len = (uint16_t)(RECS + 16 * n_rec);

	assert_true(n_rec <= FAKE_RECS_MAX);
	memset(f, 0, FAKE_FRAME_MAX);
	f[0] = 2, f[5] = SELF;
	f[12] = 0x08, f[14] = 0x45, f[23] = 17;
	f[16] = (uint8_t)((20 + udp) >> 8), f[17] = (uint8_t)(20 + udp);
	f[26] = 10, f[29] = fk.src, f[30] = 10, f[33] = SELF;
	f[34] = 7001 >> 8, f[35] = 7001 & 0xff, f[36] = 7000 >> 8, f[37] = 7000 & 0xff;
	f[38] = (uint8_t)(udp >> 8), f[39] = (uint8_t)udp;
	f[42] = 3, f[43] = (uint8_t)(flags | (tag ? 0x20 : 0)), f[45] = (uint8_t)n_rec;
	f[47] = fk.src, f[49] = SELF;
	put32(f + 50, seq);
	put32(f + 54, ack);
	put32(f + 58, credit);
	put32(f + 66, session);
	put32(f + 74, fk.echo);
	for (unsigned int i = 0; i < n_rec; i++) {
		uint8_t *r = f + RECS + 16 * i;

		put32(r, to);
		put32(r + 4, LCA_ACTOR_NONE);
		put32(r + 8, TYPE_DATA);
	}
	if (tag)
		fake_tag(f, len);
	if (!fake_any_frame)
		assert_int_equal(lca_remote_frame_check(f, len + tag, NULL), 0);
	return (uint16_t)(len + tag);
}

/* Frame @p f of @p len bytes onto the wire, to us. */
static void
fake_put(const uint8_t *f, uint16_t len)
{
	assert_int_equal(rte_ring_enqueue(fk.ring, raw_frame(fk.mp, f, len)), 0);
}

/* A frame without data from FAKE's lcore 1 to our lcore 0, of its session:
 * @p flags, @p ack and @p credit, @p n times, on the wire. */
static void
fake_frame(uint8_t flags, uint32_t ack, uint32_t credit, unsigned int n)
{
	uint8_t f[FAKE_FRAME_MAX];
	uint16_t len = fake_build(f, flags, 0, ack, credit, fk.session, 0, 0);

	for (unsigned int i = 0; i < n; i++)
		fake_put(f, len);
}

/* A heartbeat of FAKE that acknowledges fk.ack (and grants its credit). */
static void
fake_beat(void)
{
	fake_frame(0x0a, fk.ack, fk.ack + fk.window, 1);
}

/* SELF and FAKE on one new net_ring port; FAKE's channels never heard are
 * given all the time the tests take. */
static void
fake_conf(struct lca_remote_conf *c)
{
	loopback_conf(c);
	c->loopback = false;
	c->n_nodes = 2;
	c->nodes[1] = c->nodes[0];
	c->nodes[1].id = FAKE;
	c->nodes[1].ipv4 = 0x0a000000 | FAKE;
	c->connect_ms = 600000;
}

static struct lca_remote_link_stats
fake_stats_of(unsigned int node)
{
	struct lca_remote_link_stats ls;

	assert_int_equal(lca_remote_link_stats_get(node, &ls), 0);
	return ls;
}

static struct lca_remote_link_stats
fake_stats(void)
{
	return fake_stats_of(FAKE);
}

static bool
fake_connected(void *arg)
{
	(void)arg;
	fake_beat();
	return fake_stats().connected == 1;
}

/* Start with @p c, a watcher of FAKE (of this node on a loopback link),
 * rte_log's lines into fk.log. */
static void
fake_start_unheard(const struct lca_remote_conf *c)
{
	static unsigned int n;
	char name[RTE_MEMPOOL_NAMESIZE], rname[RTE_RING_NAMESIZE];

	memset(&fk, 0, sizeof(fk));
	fk.session = FAKE_SESSION;
	/* More would be a protocol error (credit past the window). */
	fk.window = c->window != 0 ? c->window : 256;
	fk.src = c->loopback ? SELF : FAKE; /* a loopback node is its own peer */
	fk.watcher = lca_test_spawn(watcher_handler, sizeof(struct watcher), 0, 64, 1);
	fk.target = lca_remote_ref(fk.src, 1);
	fk.log = tmpfile();
	assert_non_null(fk.log);
	assert_int_equal(rte_openlog_stream(fk.log), 0);
	assert_int_equal(lca_remote_start(c), 0);
	assert_int_equal(lca_remote_watch(fk.watcher, fk.target), 0);
	snprintf(name, sizeof(name), "remote_fake%u", n++);
	fk.mp = rte_pktmbuf_pool_create(name, 511, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	assert_non_null(fk.mp);
	snprintf(rname, sizeof(rname), "ETH_RXTX0_%s", port_name);
	fk.ring = rte_ring_lookup(rname);
	assert_non_null(fk.ring);
}

/* Start with @p c, a watcher of FAKE, FAKE heard from once, rte_log's
 * lines into fk.log. */
static void
fake_start(const struct lca_remote_conf *c)
{
	fake_start_unheard(c);
	assert_true(lca_test_run_until(fake_connected, NULL, 30));
}

/* How many lines of the log have @p s; the log goes to stderr too. */
static unsigned int
fake_log_count(const char *s)
{
	char line[512];
	unsigned int n = 0;

	fflush(fk.log);
	rewind(fk.log);
	while (fgets(line, sizeof(line), fk.log) != NULL)
		n += strstr(line, s) != NULL;
	return n;
}

/* Stop, check that every frame we wrote was freed, give the log back. */
static void
fake_stop(void)
{
	char line[512];
	void *obj;

	/* What is on its way, processed; then our own frames left on the
	 * ring (theirs to free). */
	lca_runtime_run(100);
	assert_int_equal(lca_remote_stop(), 0);
	while (rte_ring_dequeue(fk.ring, &obj) == 0)
		rte_pktmbuf_free(obj);
	assert_int_equal(rte_mempool_avail_count(fk.mp), 511);
	rte_mempool_free(fk.mp);
	rte_openlog_stream(NULL);
	rewind(fk.log);
	while (fgets(line, sizeof(line), fk.log) != NULL)
		fputs(line, stderr);
	fclose(fk.log);
	fake_tagged = false;
}

/* FAKE_MSGS messages from lcore 0 (this thread) to FAKE: one frame. */
static void
fake_send(void)
{
	for (unsigned int i = 0; i < FAKE_MSGS; i++) {
		struct lca_msg *m = lca_test_msg();

		m->type = TYPE_DATA;
		assert_int_equal(lca_send(fk.target, m), 0);
	}
}

static bool
fake_sent(void *arg)
{
	const uint64_t *frames = arg;
	struct lca_remote_link_stats ls;

	fake_beat();
	ls = fake_stats();
	return ls.frames_sent == *frames;
}

static bool
fake_acked(void *arg)
{
	(void)arg;
	fake_beat();
	return fake_stats().in_flight == 0;
}

/* FAKE down, and our lcore 0's channel to it freed. */
static bool
fake_down(void *arg)
{
	const struct watcher *w = lca_actor_state(fk.watcher);

	(void)arg;
	fake_beat();
	return !lca_remote_node_up(FAKE) && fake_stats().lost_on_dead > 0 && w->downs > 0;
}

/* FAKE's watcher told once, sends to it refused, nothing else failed. */
static void
fake_down_checked(void)
{
	const struct watcher *w = lca_actor_state(fk.watcher);
	struct lca_msg *m = lca_test_msg();

	assert_int_equal(w->downs, 1);
	assert_int_equal(w->who, fk.target);
	assert_int_equal(lca_send(fk.target, m), -EHOSTDOWN);
	lca_msg_free(m);
}

/* A peer that answers (its heartbeats keep coming) and never acks: the
 * link is declared down after max_retransmits timeouts and dead_ms, and
 * the frame's messages counted lost. */
static void
never_acked(const struct lca_remote_conf *c, unsigned int max)
{
	struct lca_remote_link_stats ls;
	struct lca_test_cpu cpu;
	uint64_t one = 1;

	lca_test_cpu_start(&cpu);
	fake_start(c);
	fake_send();
	assert_true(lca_test_run_until(fake_sent, &one, 30));
	assert_true(lca_test_run_until(fake_down, NULL, 60));
	ls = fake_stats();
	assert_int_equal(ls.retry_exhausted, 1);
	assert_int_equal(ls.msgs_sent, FAKE_MSGS);
	assert_int_equal(ls.frames_sent, 1);
	assert_int_equal(ls.lost_on_dead, FAKE_MSGS);
	assert_int_equal(ls.in_flight, 0);
	assert_int_equal(ls.dead, 1);
	assert_int_equal(ls.naks_rx, 0);
	assert_int_equal(ls.timeouts, ls.retransmits);
	if (c->rto_us == 0)
		/* 8 timeouts take 25 ms: the rest of dead_ms resent too. */
		assert_true(ls.retransmits > max);
	else /* a timeout each rto_us: as many as that, where the loops had their CPUs */
		lca_test_check_timed(&cpu, ls.retransmits == max);
	assert_int_equal(ls.ack_beyond_sent, 0);
	assert_int_equal(ls.credit_beyond_window, 0);
	fake_down_checked();
	assert_int_equal(fake_log_count("node 9, lcore 0 to its lcore 1: frame 1 resent on "), 1);
	assert_int_equal(fake_log_count("(last acked 0, frames in flight 1): link down"), 1);
	assert_int_equal(fake_log_count("node 9 is dead: retransmissions exhausted"), 1);
	fake_stop();
}

static void
test_retry_exhausted(void **state)
{
	struct lca_remote_conf c;
	char path[] = "/tmp/lca_remote_conf_XXXXXX";
	int fd;

	(void)state;
	/* The defaults: 8 timeouts, then dead_ms without an ack. */
	fake_conf(&c);
	never_acked(&c, 8);
	/* Timeouts of 300 ms: 4 of them outlast dead_ms, and the count
	 * decides; the limit from a node table. */
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	write_file(path, "self = 1\nmax_retransmits = 4\n[node 1]\nmac = 02:00:00:00:00:01\n"
			 "ip = 10.0.0.1\nudp_base = 7000\nport = 0\nlcores = 0\n"
			 "[node 9]\nmac = 02:00:00:00:00:09\nip = 10.0.0.9\nudp_base = 7000\n"
			 "lcores = 0,1\n");
	assert_int_equal(lca_remote_conf_load(path, &c), 0);
	unlink(path);
	assert_int_equal(c.max_retransmits, 4);
	fake_conf(&c);
	c.max_retransmits = 4;
	c.rto_us = 300000;
	c.rto_max_us = 300000;
	never_acked(&c, 4);
}

/* An ack past the last frame sent, in a flood: one protocol error counted
 * and logged, the session reset (the peer down, its frame's messages
 * counted lost), the rest of the flood dropped with the dead session. A
 * credit past ack + window: the same. */
static void
test_ack_beyond_sent(void **state)
{
	struct lca_remote_conf c;
	struct lca_remote_link_stats ls;
	uint64_t frames = 1;

	(void)state;
	fake_conf(&c);
	c.dead_ms = 10000;
	fake_start(&c);
	fake_send();
	assert_true(lca_test_run_until(fake_sent, &frames, 30));
	fake_frame(0x02, 2, 2 + 256, 100);
	assert_true(lca_test_run_until(fake_down, NULL, 30));
	ls = fake_stats();
	assert_int_equal(ls.ack_beyond_sent, 1);
	assert_int_equal(ls.credit_beyond_window, 0);
	assert_int_equal(ls.retry_exhausted, 0);
	assert_int_equal(ls.lost_on_dead, FAKE_MSGS);
	fake_down_checked();
	assert_int_equal(fake_log_count("protocol error: ack 2 past 1 (ack 2, last frame sent 1,"), 1);
	assert_int_equal(fake_log_count("protocol error"), 2); /* and the node's death */
	fake_stop();

	fake_conf(&c);
	c.dead_ms = 10000;
	fake_start(&c);
	fake_send();
	assert_true(lca_test_run_until(fake_sent, &frames, 30));
	fake_send();
	frames = 2;
	assert_true(lca_test_run_until(fake_sent, &frames, 30));
	/* Frame 1 acknowledged, and a credit one past what it may grant. */
	fake_frame(0x02, 1, 1 + 256 + 1, 1);
	assert_true(lca_test_run_until(fake_down, NULL, 30));
	ls = fake_stats();
	assert_int_equal(ls.credit_beyond_window, 1);
	assert_int_equal(ls.ack_beyond_sent, 0);
	assert_int_equal(ls.lost_on_dead, FAKE_MSGS);
	fake_down_checked();
	assert_int_equal(fake_log_count("protocol error: credit 258 past 257"), 1);
	fake_stop();
}

/* Messages to FAKE until its channel opens no more frames (the loops run
 * between tries, so that open frames close and go). @return its frames in
 * flight then. */
static uint64_t
fill_in_flight(void)
{
	uint64_t before;

	fake_beat(); /* its latest ack, taken before the first try */
	lca_runtime_run(20);
	do {
		before = fake_stats().frames_sent;
		for (;;) {
			struct lca_msg *m = lca_test_msg();

			m->type = TYPE_DATA;
			if (lca_send(fk.target, m) != 0) {
				lca_msg_free(m);
				break;
			}
		}
		fake_beat();
		lca_runtime_run(20);
	} while (fake_stats().frames_sent != before);
	return fake_stats().in_flight;
}

static bool
fake_resent(void *arg)
{
	(void)arg;
	return fake_stats().naks_rx >= 1 && fake_stats().retransmits >= 1;
}

/* A loss halves the frames a channel keeps in flight (docs/wire.md,
 * "Loss"): the whole window in flight; then FAKE acks 10 and NAKs 11; then
 * it acks 200, and the channel keeps 129 in flight (128, one more for the
 * 190 frames acked since), not the window's 256, so that a frame resent
 * does not queue behind a whole window. */
static void
test_loss_halves_in_flight(void **state)
{
	struct lca_remote_conf c;
	uint8_t f[FAKE_FRAME_MAX];
	struct lca_test_cpu cpu;
	unsigned int in_flight;
	uint16_t len;

	(void)state;
	lca_test_cpu_start(&cpu);
	fake_conf(&c);
	c.dead_ms = 10000;
	c.mtu = 128;      /* a few messages a frame: a window of frames soon */
	c.rto_us = 20000; /* a NAK resends a frame sent this long ago */
	fake_start(&c);
	assert_int_equal(fill_in_flight(), 256);
	rte_delay_us_sleep(25000);
	len = fake_build(f, 0x06, 0, 10, 10 + 256, fk.session, 0, 0);
	put32(f + 62, 11);
	fake_put(f, len);
	fk.ack = 10;
	assert_true(lca_test_run_until(fake_resent, NULL, 30));
	fk.ack = 200;
	/* A timeout (rto_us) while the loops were off their CPUs resends and
	 * halves again: 129 where they had them. */
	in_flight = fill_in_flight();
	lca_test_check_timed(&cpu, in_flight == 129);
	assert_int_equal(fake_stats().ack_beyond_sent, 0);
	assert_int_equal(fake_stats().credit_beyond_window, 0);
	fake_stop();
}

/* Acks already had, old ones and their old credits: harmless. */
static void
test_old_acks(void **state)
{
	struct lca_remote_conf c;
	struct lca_remote_link_stats ls;
	const struct watcher *w;
	uint64_t frames = 1;

	(void)state;
	fake_conf(&c);
	c.dead_ms = 10000;
	fake_start(&c);
	fake_send();
	assert_true(lca_test_run_until(fake_sent, &frames, 30));
	fk.ack = 1;
	assert_true(lca_test_run_until(fake_acked, NULL, 30));
	fake_send();
	frames = 2;
	assert_true(lca_test_run_until(fake_sent, &frames, 30));
	/* Frame 1 again, frame 0, each with the credit it came with; then
	 * frame 2, behind them on the ring. */
	fake_frame(0x02, 1, 1 + 256, 3);
	fake_frame(0x02, 0, 256, 3);
	fake_frame(0x0a, 1, 1 + 256, 3);
	fk.ack = 2;
	assert_true(lca_test_run_until(fake_acked, NULL, 30));
	ls = fake_stats();
	assert_int_equal(ls.msgs_sent, 2 * FAKE_MSGS);
	assert_int_equal(ls.frames_sent, 2);
	assert_int_equal(ls.ack_beyond_sent, 0);
	assert_int_equal(ls.credit_beyond_window, 0);
	assert_int_equal(ls.retry_exhausted, 0);
	assert_int_equal(ls.lost_on_dead, 0);
	assert_int_equal(ls.dead, 0);
	assert_int_equal(ls.no_credit, 0);
	assert_true(lca_remote_node_up(FAKE));
	w = lca_actor_state(fk.watcher);
	assert_int_equal(w->downs, 0);
	assert_int_equal(fake_log_count("protocol error"), 0);
	fake_stop();
}

/* ---- Authenticated frames (docs/wire.md, "Trust model") ---- */

/* Counts the TYPE_DATA messages it gets. */
static void
counter_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	(void)self;
	if (msg->type == TYPE_DATA)
		(*(uint64_t *)state)++;
}

/* A clean exchange with a key on both ends of the wire: every count as
 * without one, and no frame refused. */
static void
test_key_clean_wire(void **state)
{
	struct lca_remote_conf c;
	struct lca_remote_link_stats ls;
	struct lca_remote_stats gs;

	(void)state;
	loopback_conf(&c);
	key_conf(&c);
	run_exchange(&c, &ls);
	assert_int_equal(lca_remote_stats_get(&gs), 0);
	assert_int_equal(gs.bad_tag, 0);
	/* And through loss, duplicates and reordering: retransmissions carry
	 * the tag of their first transmission. */
	loopback_conf(&c);
	key_conf(&c);
	c.inject.loss_ppm = 20000;
	c.inject.dup_ppm = 20000;
	c.inject.reorder_ppm = 20000;
	c.inject.seed = 11;
	run_exchange(&c, &ls);
	assert_true(ls.retransmits > 0);
	assert_int_equal(lca_remote_stats_get(&gs), 0);
	assert_int_equal(gs.bad_tag, 0);
}

/* What a frame refused for its tag must leave as it was: everything the
 * receive path counts, but bad_tag and not_for_us (our own frames to FAKE,
 * back from the ring). */
struct rx_snap {
	struct lca_remote_link_stats ls;
	struct lca_remote_stats gs;
	uint64_t got;
};

static struct rx_snap
rx_snap(const uint64_t *got)
{
	struct rx_snap x;

	x.ls = fake_stats();
	assert_int_equal(lca_remote_stats_get(&x.gs), 0);
	x.got = *got;
	return x;
}

static void
rx_same(const struct rx_snap *a, const uint64_t *got)
{
	struct rx_snap b = rx_snap(got);

	assert_int_equal(b.got, a->got);
	assert_int_equal(b.ls.msgs_delivered, a->ls.msgs_delivered);
	assert_int_equal(b.ls.undeliverable, a->ls.undeliverable);
	assert_int_equal(b.ls.frames_rx, a->ls.frames_rx);
	assert_int_equal(b.ls.duplicates, a->ls.duplicates);
	assert_int_equal(b.ls.reordered, a->ls.reordered);
	assert_int_equal(b.ls.out_of_window, a->ls.out_of_window);
	assert_int_equal(b.ls.naks_rx, a->ls.naks_rx);
	assert_int_equal(b.ls.retransmits, a->ls.retransmits);
	assert_int_equal(b.ls.ack_beyond_sent, a->ls.ack_beyond_sent);
	assert_int_equal(b.ls.credit_beyond_window, a->ls.credit_beyond_window);
	assert_int_equal(b.ls.lost_on_dead, a->ls.lost_on_dead);
	assert_int_equal(b.ls.in_flight, a->ls.in_flight);
	assert_int_equal(b.ls.dead, 0);
	assert_int_equal(b.ls.connected, 1);
	assert_int_equal(b.gs.malformed, a->gs.malformed);
	assert_int_equal(b.gs.unknown_peer, a->gs.unknown_peer);
	assert_int_equal(b.gs.bad_tag, a->gs.bad_tag + 1);
	assert_true(lca_remote_node_up(FAKE));
}

static bool
bad_tags_are(void *arg)
{
	struct lca_remote_stats gs;

	fake_beat();
	assert_int_equal(lca_remote_stats_get(&gs), 0);
	return gs.bad_tag >= *(const uint64_t *)arg;
}

static bool
got_is_quiet(void *arg)
{
	const uint64_t *want = arg;

	return *(const uint64_t *)lca_actor_state((lca_actor_id_t)want[1]) == want[0];
}

static bool
got_is(void *arg)
{
	const uint64_t *want = arg;

	fake_beat();
	return *(const uint64_t *)lca_actor_state((lca_actor_id_t)want[1]) == want[0];
}

/* FAKE's frame @p f of @p len bytes, whose tag is wrong or missing: counted
 * in bad_tag and nothing else. */
static void
forged(const uint8_t *f, uint16_t len, lca_actor_id_t sink)
{
	const uint64_t *got = lca_actor_state(sink);
	struct rx_snap a = rx_snap(got);
	uint64_t want = a.gs.bad_tag + 1;

	fake_put(f, len);
	assert_true(lca_test_run_until(bad_tags_are, &want, 30));
	lca_runtime_run(20); /* what the frame would have set off */
	rx_same(&a, got);
}

/* With a key on both nodes: a valid frame with one byte changed, frames
 * with the sniffed session and the next sequence number but no tag or a
 * wrong one, a heartbeat of session + 1, an ack past what was sent: each
 * counted in bad_tag, nothing else; the link stays up and the real frame
 * of that number is delivered after them. */
static void
test_key_forged(void **state)
{
	struct lca_remote_conf c;
	struct lca_remote_stats gs;
	uint8_t f[FAKE_FRAME_MAX];
	uint64_t frames = 1, want[2];
	lca_actor_id_t sink;
	uint16_t len;

	(void)state;
	fake_conf(&c);
	key_conf(&c);
	fake_tagged = true;
	sink = lca_test_spawn(counter_handler, sizeof(uint64_t), 0, 64, 8);
	fake_start(&c);
	fake_send();
	assert_true(lca_test_run_until(fake_sent, &frames, 30));
	fk.ack = 1;
	assert_true(lca_test_run_until(fake_acked, NULL, 30));
	want[0] = 3, want[1] = sink;
	fake_put(f, fake_build(f, 0x03, 1, 1, 1 + 256, FAKE_SESSION, 3, sink));
	assert_true(lca_test_run_until(got_is, want, 30));
	assert_int_equal(fake_stats().msgs_delivered, 3);
	/* A real frame 2, one byte of a record changed; its header changed. */
	len = fake_build(f, 0x03, 2, 1, 1 + 256, FAKE_SESSION, 3, sink);
	f[RECS + 16 + 11] ^= 1;
	forged(f, len, sink);
	len = fake_build(f, 0x03, 2, 1, 1 + 256, FAKE_SESSION, 3, sink);
	f[53] = 3;
	forged(f, len, sink);
	/* The sniffed session and frame 2, no tag; a wrong tag. */
	fake_tagged = false; /* for this frame only: FAKE's heartbeats stay tagged */
	len = fake_build(f, 0x03, 2, 1, 1 + 256, FAKE_SESSION, 3, sink);
	fake_tagged = true;
	forged(f, len, sink);
	len = fake_build(f, 0x03, 2, 1, 1 + 256, FAKE_SESSION, 3, sink);
	f[len - 1] ^= 0x80;
	forged(f, len, sink);
	/* A heartbeat of session + 1 (a restart: the link would go down),
	 * untagged and badly tagged; an ack past what was sent. */
	fake_tagged = false;
	len = fake_build(f, 0x0a, 0, 1, 1 + 256, FAKE_SESSION + 1, 0, 0);
	fake_tagged = true;
	forged(f, len, sink);
	fake_tagged = false;
	len = fake_build(f, 0x02, 0, 50, 50 + 256, FAKE_SESSION, 0, 0);
	fake_tagged = true;
	forged(f, len, sink);
	len = fake_build(f, 0x0a, 0, 1, 1 + 256, FAKE_SESSION + 1, 0, 0);
	f[len - 8] ^= 1;
	forged(f, len, sink);
	/* The real frame 2: none of the forged ones took its number. */
	want[0] = 6;
	fake_put(f, fake_build(f, 0x03, 2, 1, 1 + 256, FAKE_SESSION, 3, sink));
	assert_true(lca_test_run_until(got_is, want, 30));
	assert_int_equal(fake_stats().msgs_delivered, 6);
	assert_int_equal(fake_stats().frames_rx, 2);
	assert_int_equal(fake_stats().duplicates, 0);
	assert_int_equal(fake_stats().ack_beyond_sent, 0);
	assert_int_equal(lca_remote_stats_get(&gs), 0);
	assert_int_equal(gs.bad_tag, 7);
	assert_int_equal(gs.malformed, 0);
	assert_true(lca_remote_node_up(FAKE));
	assert_int_equal(((const struct watcher *)lca_actor_state(fk.watcher))->downs, 0);
	assert_true(fake_log_count("bad tag: a frame whose tag does not match") >= 1);
	assert_int_equal(fake_log_count("protocol error"), 0);
	assert_int_equal(fake_log_count("restarted"), 0);
	fake_stop();
}

static bool
fake_gone(void *arg)
{
	(void)arg;
	fake_beat();
	return !lca_remote_node_up(FAKE);
}

/* A key on one node only, either way: no frame of the peer is taken, the
 * link never comes up (connect_ms ends it), and the log says why. */
static void
test_key_one_side(void **state)
{
	struct lca_remote_conf c;
	struct lca_remote_stats gs;

	(void)state;
	for (unsigned int keyed_here = 0; keyed_here < 2; keyed_here++) {
		fake_conf(&c);
		if (keyed_here)
			key_conf(&c);
		c.connect_ms = 300;
		fake_tagged = !keyed_here;
		fake_start_unheard(&c);
		assert_true(lca_test_run_until(fake_gone, NULL, 30));
		assert_int_equal(fake_stats().connected, 0);
		assert_int_equal(fake_stats().msgs_delivered, 0);
		assert_int_equal(lca_remote_stats_get(&gs), 0);
		assert_true(gs.bad_tag > 0);
		assert_int_equal(gs.malformed, 0);
		/* One line a second at most. */
		assert_true(fake_log_count(keyed_here ? "bad tag: a frame without a tag, and "
							"this node has a key"
						      : "bad tag: a tagged frame, and this node "
							"has no key") >= 1);
		assert_true(fake_log_count("(src_node 9 by its header") >= 1);
		/* The death names what was missing. */
		assert_int_equal(fake_log_count("node 9 is dead: never heard within connect_ms: "), 1);
		assert_int_equal(fake_log_count("frames failed their tag (a different key"), 1);
		fake_stop();
	}
}

/* FAKE up again, its watcher told so *@p arg times (NULL: once). */
static bool
fake_rejoined(void *arg)
{
	unsigned int ups = arg != NULL ? *(const unsigned int *)arg : 1;

	fake_beat();
	return ((const struct watcher *)lca_actor_state(fk.watcher))->ups == ups &&
	       lca_remote_node_up(FAKE);
}

static bool
stale_seen(void *arg)
{
	fake_beat();
	return fake_stats().stale_session > *(const uint64_t *)arg;
}

/*
 * A peer that restarts (its frames of a new session) rejoins at its first
 * frame: its watcher gets NODE_DOWN then NODE_UP; the messages of our frame
 * it never acknowledged are counted lost, by number; frames of its old
 * session are stale (counted, dropped); our channel to it starts afresh
 * (frame 1 again), and messages go both ways.
 */
static void
test_rejoin(void **state)
{
	struct lca_remote_conf c;
	const struct watcher *w;
	struct lca_remote_link_stats ls;
	uint8_t f[FAKE_FRAME_MAX];
	uint64_t frames = 1, want[2];
	lca_actor_id_t sink;

	(void)state;
	fake_conf(&c);
	sink = lca_test_spawn(counter_handler, sizeof(uint64_t), 0, 64, 8);
	fake_start(&c);
	fake_send();
	assert_true(lca_test_run_until(fake_sent, &frames, 30)); /* frame 1, never acked */
	fk.session = FAKE_SESSION + 2;
	assert_true(lca_test_run_until(fake_rejoined, NULL, 30));
	w = lca_actor_state(fk.watcher);
	assert_int_equal(w->downs, 1);
	assert_int_equal(w->ups, 1);
	assert_int_equal(w->who, fk.target);
	ls = fake_stats();
	assert_int_equal(ls.lost_on_dead, FAKE_MSGS);
	assert_int_equal(ls.dead, 0);
	assert_int_equal(fake_log_count("node 9 is dead: a new session (it restarted, or declared us dead)"), 1);
	assert_int_equal(fake_log_count("node 9 rejoined (session 05e55107)"), 1);
	/* The old session's frames: stale. */
	fake_put(f, fake_build(f, 0x03, 1, 0, 256, FAKE_SESSION, 3, sink));
	ls = fake_stats();
	assert_true(lca_test_run_until(stale_seen, &ls.stale_session, 30));
	assert_int_equal(*(const uint64_t *)lca_actor_state(sink), 0);
	assert_int_equal(w->downs, 1);
	/* The new one's: both ways, from frame 1. */
	fake_send();
	frames = 2;
	assert_true(lca_test_run_until(fake_sent, &frames, 30));
	fk.ack = 1;
	assert_true(lca_test_run_until(fake_acked, NULL, 30));
	want[0] = 3, want[1] = sink;
	fake_put(f, fake_build(f, 0x03, 1, 1, 1 + 256, fk.session, 3, sink));
	assert_true(lca_test_run_until(got_is, want, 30));
	ls = fake_stats();
	assert_int_equal(ls.msgs_delivered, 3);
	assert_int_equal(ls.lost_on_dead, FAKE_MSGS);
	assert_int_equal(ls.ack_beyond_sent, 0);
	assert_int_equal(w->downs, 1);
	fake_stop();
}

/*
 * A peer that stops says so, a LEAVE of its session: it is down at once
 * (dead_ms is ten minutes here), its watcher told, what it never acked
 * counted lost, and the log says it left, not that it died. Back under a
 * new session, the old session's LEAVE played again is stale: counted,
 * and nothing else moves.
 */
static void
test_leave(void **state)
{
	struct lca_remote_conf c;
	struct lca_remote_link_stats ls;
	uint8_t leave[FAKE_FRAME_MAX];
	uint16_t leave_len;
	uint64_t frames = 1;

	(void)state;
	fake_conf(&c);
	c.dead_ms = 600000;
	fake_start(&c);
	fake_send();
	assert_true(lca_test_run_until(fake_sent, &frames, 30)); /* frame 1, never acked */
	leave_len = fake_build(leave, 0x42, 0, 0, 256, fk.session, 0, 0); /* LEAVE | ACK */
	fake_put(leave, leave_len);
	assert_true(lca_test_run_until(fake_gone, NULL, 30));
	assert_true(lca_test_run_until(fake_down, NULL, 30));
	fake_down_checked();
	ls = fake_stats();
	assert_int_equal(ls.lost_on_dead, FAKE_MSGS);
	assert_int_equal(ls.dead, 1);
	assert_int_equal(fake_log_count("node 9 left: it stopped (its LEAVE came)"), 1);
	assert_int_equal(fake_log_count("is dead"), 0);
	fk.session = FAKE_SESSION + 2;
	assert_true(lca_test_run_until(fake_rejoined, NULL, 30));
	ls = fake_stats();
	fake_put(leave, leave_len);
	assert_true(lca_test_run_until(stale_seen, &ls.stale_session, 30));
	assert_true(lca_remote_node_up(FAKE));
	assert_int_equal(((const struct watcher *)lca_actor_state(fk.watcher))->downs, 1);
	assert_int_equal(fake_log_count("left: it stopped"), 1);
	fake_stop();
}

/* Our session toward FAKE as the log last said it: at the start, or at a
 * death we declared. */
static uint32_t
fake_our_session(void)
{
	static const char *const says[] = { "up over ethdev (session ", "our session to it " };
	char line[512];
	uint32_t s = 0;

	fflush(fk.log);
	rewind(fk.log);
	while (fgets(line, sizeof(line), fk.log) != NULL)
		for (unsigned int i = 0; i < RTE_DIM(says); i++) {
			const char *p = strstr(line, says[i]);

			if (p != NULL)
				s = (uint32_t)strtoul(p + strlen(says[i]), NULL, 16);
		}
	assert_int_not_equal(s, 0);
	return s;
}

/* FAKE's frame @p seq of 3 messages to @p sink, of its session, hearing
 * @p echo of ours: stale, and nothing else changes. */
static void
fake_stale_frame(uint32_t seq, uint32_t echo, lca_actor_id_t sink)
{
	const struct watcher *w = lca_actor_state(fk.watcher);
	unsigned int downs = w->downs, ups = w->ups;
	uint64_t got = *(const uint64_t *)lca_actor_state(sink);
	struct lca_remote_link_stats ls = fake_stats();
	uint8_t f[FAKE_FRAME_MAX];
	uint32_t keep = fk.echo;

	fk.echo = echo;
	fake_put(f, fake_build(f, 0x03, seq, fk.ack, fk.ack + 256, fk.session, 3, sink));
	fk.echo = keep;
	assert_true(lca_test_run_until(stale_seen, &ls.stale_session, 30));
	assert_int_equal(*(const uint64_t *)lca_actor_state(sink), got);
	assert_int_equal(w->downs, downs);
	assert_int_equal(w->ups, ups);
}

/* FAKE's 3 messages in its frame @p seq, which heard fk.echo: delivered. */
static void
fake_delivered(uint32_t seq, lca_actor_id_t sink)
{
	uint64_t want[2] = { *(const uint64_t *)lca_actor_state(sink) + 3, sink };
	uint8_t f[FAKE_FRAME_MAX];

	fake_put(f, fake_build(f, 0x03, seq, fk.ack, fk.ack + 256, fk.session, 3, sink));
	assert_true(lca_test_run_until(got_is, want, 30));
}

/*
 * A new session of a live peer is answered under the session we had, so
 * that the answer is not a new session in turn (the rejoin livelock of
 * docs/wire.md): frames that heard it are taken, frames that heard another
 * session of ours or belong to the epoch that ended are stale. A death we
 * declare gives a new session of ours; a peer that keeps its own session
 * and hears the new one of ours rejoins.
 */
static void
test_rejoin_not_answered(void **state)
{
	struct lca_remote_conf c;
	const struct watcher *w;
	uint32_t ours, old_theirs;
	unsigned int two = 2;
	uint64_t frames = 1;
	lca_actor_id_t sink;

	(void)state;
	fake_conf(&c);
	c.dead_ms = 60000;
	sink = lca_test_spawn(counter_handler, sizeof(uint64_t), 0, 64, 8);
	fake_start(&c);
	w = lca_actor_state(fk.watcher);
	ours = fake_our_session();
	fk.echo = ours;
	fake_delivered(1, sink);
	/* It restarts: a new session, ours not heard yet. */
	old_theirs = fk.session;
	fk.session = FAKE_SESSION + 2;
	fk.echo = 0;
	assert_true(lca_test_run_until(fake_rejoined, NULL, 30));
	assert_int_equal(w->downs, 1);
	assert_int_equal(fake_our_session(), ours);
	/* It hears our answer: the session we had. */
	fk.echo = ours;
	fake_delivered(1, sink);
	fake_stale_frame(2, ours + 2, sink);
	fk.session = old_theirs;
	fake_stale_frame(2, ours, sink);
	fk.session = FAKE_SESSION + 2;
	fake_delivered(2, sink);
	assert_int_equal(w->downs, 1);
	assert_int_equal(fake_stats().dead, 0);
	/* We declare it dead (a protocol error): a new session of ours, in a
	 * line that the one-a-second limit of the last let through. */
	usleep(1100 * 1000);
	fake_send();
	assert_true(lca_test_run_until(fake_sent, &frames, 30));
	fake_frame(0x02, 2, 2 + 256, 1);
	assert_true(lca_test_run_until(fake_down, NULL, 30));
	assert_int_equal(w->downs, 2);
	assert_int_not_equal(fake_our_session(), ours);
	/* Its frames that heard our old session are stale; once it hears
	 * the new one, it rejoins under the session it kept. */
	fake_stale_frame(1, ours, sink);
	fk.echo = fake_our_session();
	assert_true(lca_test_run_until(fake_rejoined, &two, 30));
	fake_delivered(1, sink);
	assert_int_equal(w->downs, 2);
	assert_int_equal(*(const uint64_t *)lca_actor_state(sink), 4 * 3);
	fake_stop();
}

static bool
node_down(void *arg)
{
	return !lca_remote_node_up(*(const unsigned int *)arg);
}

/*
 * A peer never heard: connect_ms's line says what was missing. With the
 * link up and our own frames coming back (not ours), "frames came, none
 * from it"; with the port's link down (read every 100 ms: logged and
 * counted when it goes and when it comes back), "no link".
 */
static void
test_never_heard_why(void **state)
{
	static unsigned int fake = FAKE;
	struct lca_remote_conf c;
	struct lca_remote_stats gs;

	(void)state;
	for (unsigned int link_down = 0; link_down < 2; link_down++) {
		fake_conf(&c);
		c.connect_ms = 400;
		fake_start_unheard(&c);
		if (link_down)
			assert_int_equal(rte_eth_dev_set_link_down(c.nodes[0].port_id), 0);
		assert_true(lca_test_run_until(node_down, &fake, 30));
		assert_int_equal(fake_stats().connected, 0);
		assert_int_equal(lca_remote_stats_get(&gs), 0);
		assert_int_equal(gs.links_down, link_down);
		assert_int_equal(gs.link_downs, link_down);
		assert_int_equal(fake_log_count("): link down"), link_down);
		assert_int_equal(fake_log_count("node 9 is dead: never heard within connect_ms: "), 1);
		if (link_down) {
			assert_int_equal(fake_log_count("connect_ms: no link (port"), 1);
			assert_int_equal(rte_eth_dev_set_link_up(c.nodes[0].port_id), 0);
			/* 10 reads of the link; the first run may end at once,
			 * stopped by the watcher's NODE_DOWN. */
			(void)lca_test_run(1);
			(void)lca_test_run(1);
			assert_int_equal(lca_remote_stats_get(&gs), 0);
			assert_int_equal(gs.links_down, 0);
			assert_int_equal(gs.link_downs, 1);
			assert_int_equal(fake_log_count("): link up"), 1);
		} else {
			assert_true(gs.not_for_us > 0);
			assert_int_equal(fake_log_count("connect_ms: frames came ("), 1);
		}
		fake_stop();
	}
}

static bool duplicates_are(void *arg);

/* Without a key, the trust model's warning holds: a frame with the sniffed
 * session and the next number is taken, and the real frame of that number
 * is then a duplicate (docs/wire.md, "Trust model"). */
static void
test_forged_without_key(void **state)
{
	struct lca_remote_conf c;
	struct lca_remote_stats gs;
	uint8_t f[FAKE_FRAME_MAX];
	uint64_t n = 1, want[2];
	lca_actor_id_t sink;

	(void)state;
	fake_conf(&c);
	sink = lca_test_spawn(counter_handler, sizeof(uint64_t), 0, 64, 8);
	fake_start(&c);
	want[0] = 2, want[1] = sink;
	fake_put(f, fake_build(f, 0x03, 1, 0, 256, FAKE_SESSION, 2, sink)); /* forged */
	assert_true(lca_test_run_until(got_is, want, 30));
	fake_put(f, fake_build(f, 0x03, 1, 0, 256, FAKE_SESSION, 3, sink)); /* the real one */
	assert_true(lca_test_run_until(duplicates_are, &n, 30));
	assert_int_equal(fake_stats().msgs_delivered, 2);
	assert_int_equal(*(const uint64_t *)lca_actor_state(sink), 2);
	assert_int_equal(lca_remote_stats_get(&gs), 0);
	assert_int_equal(gs.bad_tag, 0);
	fake_stop();
}

static bool
out_of_window_is(void *arg)
{
	fake_beat();
	return fake_stats().out_of_window == *(const uint64_t *)arg;
}

static bool
duplicates_are(void *arg)
{
	fake_beat();
	return fake_stats().duplicates == *(const uint64_t *)arg;
}

/* A frame of FAKE's, random but well formed, into @p f: any flags (no
 * records in the large lane), numbers near the window's edges and far past
 * them, acks and credits below, at and past what we sent, the live session,
 * an older one or a new one. @return its length. */
/* The wire's flags (docs/wire.md), as the fake writes them. */
#define FRAME_DATA 0x01
#define FRAME_ACK 0x02
#define FRAME_LARGE 0x10

static uint16_t
random_frame(uint8_t *f, uint64_t *x, lca_actor_id_t sink, uint32_t *session)
{
	uint64_t r = lca_xorshift64(x);
	uint8_t flags = (uint8_t)(r & 0x1f);
	uint32_t seq, ack, credit;
	unsigned int n_rec;

	if (flags & FRAME_LARGE)
		flags &= (uint8_t)~FRAME_DATA;
	if (!(flags & FRAME_DATA) && !(flags & FRAME_ACK))
		flags |= FRAME_ACK;
	r = lca_xorshift64(x);
	seq = r % 8 == 0 ? (uint32_t)(r >> 8) : (uint32_t)(1 + (r >> 8) % 80);
	/* Mostly what a sound peer says (ack 0 names nothing new, credit
	 * within the window of 64); now and then past it (a protocol error:
	 * the session reset). */
	r = lca_xorshift64(x);
	ack = r % 32 == 0 ? (uint32_t)(r >> 8) : 0;
	credit = ack + (uint32_t)((r >> 40) % (r % 32 == 1 ? 1024 : 64));
	r = lca_xorshift64(x);
	if (r % 256 == 0 || (!lca_remote_node_up(FAKE) && r % 8 == 0))
		*session += 2; /* a restart (sooner once declared dead) */
	n_rec = (flags & FRAME_DATA) ? (unsigned int)((r >> 8) % (FAKE_RECS_MAX + 1)) : 0;
	return fake_build(f, flags, seq, ack, credit, r % 97 == 0 ? *session - 2 : *session,
			  n_rec, sink);
}

/* The next random frame the decoder takes; @p refused counts the others. */
static uint16_t
random_good_frame(uint8_t *f, uint64_t *x, lca_actor_id_t sink, uint32_t *session,
		  uint64_t *refused)
{
	uint16_t len;

	fake_any_frame = true;
	while (lca_remote_frame_check(f, len = random_frame(f, x, sink, session), NULL) != 0)
		(*refused)++;
	fake_any_frame = false;
	return len;
}

static bool
drained(void *arg)
{
	(void)arg;
	return rte_ring_count(fk.ring) == 0;
}

/*
 * The stateful receive path under random frame sequences (seeded;
 * LCA_TEST_FRAMES and LCA_TEST_SEED run it longer or otherwise), with our
 * own messages in flight to FAKE so that acks have something to name:
 * nothing crashes or leaks (the ASan run; every mbuf back at the stop),
 * every message delivered reaches its actor once, and nothing is
 * malformed that was well formed.
 */
static void
test_random_frames(void **state)
{
	const char *nf = getenv("LCA_TEST_FRAMES"), *sd = getenv("LCA_TEST_SEED");
	unsigned int n = nf != NULL ? (unsigned int)strtoul(nf, NULL, 10) : 3000;
	uint64_t x = sd != NULL ? strtoull(sd, NULL, 10) | 1 : 0x9e3779b97f4a7c15ull;
	uint32_t session = FAKE_SESSION;
	uint64_t refused = 0;
	struct lca_remote_conf c;
	struct lca_remote_link_stats ls;
	struct lca_remote_stats gs;
	uint8_t f[FAKE_FRAME_MAX];
	lca_actor_id_t sink;

	(void)state;
	fake_conf(&c);
	c.window = 64; /* frames held ahead of a gap stay within FAKE's pool */
	sink = lca_test_spawn(counter_handler, sizeof(uint64_t), 0, 4096, 64);
	fake_start(&c);
	for (unsigned int i = 0; i < n; i++) {
		fake_put(f, random_good_frame(f, &x, sink, &session, &refused));
		if (i % 16 == 15) {
			if (lca_remote_node_up(FAKE) && lca_xorshift64(&x) % 4 == 0)
				fake_send();
			lca_test_run_until(drained, NULL, 10);
		}
	}
	lca_test_run_until(drained, NULL, 10);
	(void)lca_test_run(1);
	ls = fake_stats();
	assert_int_equal(lca_remote_stats_get(&gs), 0);
	assert_int_equal(gs.malformed, 0);
	assert_int_equal(*(const uint64_t *)lca_actor_state(sink), ls.msgs_delivered);
	assert_int_equal(ls.undeliverable, 0);
	fprintf(stderr, "random frames: %u (%" PRIu64 " more made, refused by the decoder), %"
		PRIu64 " messages delivered, %" PRIu64
		" duplicates, %" PRIu64 " out of window, %" PRIu64 " reordered, %" PRIu64
		" stale, %" PRIu64 " acks past sent, %" PRIu64 " credits past the window, %"
		PRIu64 " lost at a down, node %s\n", n, refused, ls.msgs_delivered, ls.duplicates,
		ls.out_of_window, ls.reordered, ls.stale_session, ls.ack_beyond_sent,
		ls.credit_beyond_window, ls.lost_on_dead, lca_remote_node_up(FAKE) ? "up" : "down");
	fake_stop();
}

/* The live session, one near it, another, or none. */
static uint32_t
forged_session(uint64_t r, uint32_t live)
{
	switch (r % 8) {
	case 0:
		return live + 1 + (uint32_t)(r >> 32) % 4;
	case 1:
		return (uint32_t)(r >> 16) | 1u;
	case 2:
		return 0;
	default:
		return live;
	}
}

/* A frame forged on a loopback link (the node its own peer) into @p f:
 * sessions and the session heard from forged_session(), any kind of frame,
 * numbers near the window and far past it, messages to @p sink.
 * @return its length. */
static uint16_t
forged_loopback_frame(uint8_t *f, uint64_t *x, uint32_t live, lca_actor_id_t sink)
{
	static const uint8_t kinds[] = { 0x02, 0x03, 0x0a, 0x06, 0x12 };
	uint64_t r = lca_xorshift64(x);
	uint8_t flags = kinds[r % RTE_DIM(kinds)];
	uint32_t seq = (r >> 8) % 16 == 0 ? (uint32_t)(r >> 24) : 1 + (uint32_t)(r >> 24) % 80;
	uint32_t ack, session;

	r = lca_xorshift64(x);
	ack = r % 16 == 0 ? (uint32_t)(r >> 32) : (uint32_t)(r >> 32) % 4;
	session = forged_session(r >> 4, live);
	fk.echo = forged_session(lca_xorshift64(x), live);
	return fake_build(f, flags, flags & 0x01 ? seq : 0, ack, ack + (uint32_t)(r >> 12) % 64,
			  session, flags & 0x01 ? 1 + (unsigned int)(r >> 20) % 3 : 0, sink);
}

/* The loopback link up, and one message over it to *@p arg (whose count
 * is the first of its state) arrived. */
static bool
loopback_healed(void *arg)
{
	lca_actor_id_t sink = *(const lca_actor_id_t *)arg;
	struct lca_msg *m;

	if (*(const uint64_t *)lca_actor_state(sink) > 0)
		return true;
	if (lca_remote_node_up(SELF) && fake_stats_of(SELF).in_flight == 0) {
		m = lca_test_msg();
		m->type = TYPE_DATA;
		if (lca_send(lca_remote_ref(SELF, sink), m) != 0)
			lca_msg_free(m);
	}
	return false;
}

/*
 * Forged frames on a loopback link, where both ends of the protocol run:
 * the live session, ones near it, others and none, heard sessions of each
 * kind, every kind of frame. Once they stop, the link heals and stays up:
 * a new session is answered, never answered in turn (before the wire said
 * which session a frame heard, this cycled dead and rejoined for as long
 * as it was watched), and every message sent then arrives.
 */
static void
test_loopback_forged_heals(void **state)
{
	struct lca_remote_conf c;
	struct lca_remote_link_stats ls;
	uint64_t x = 0x243f6a8885a308d3ull, want[2];
	uint8_t f[FAKE_FRAME_MAX];
	lca_actor_id_t forged_sink, sink;
	const struct watcher *w;
	struct lca_test_cpu cpu;
	unsigned int downs;
	bool stopped;
	uint32_t live;

	(void)state;
	lca_test_cpu_start(&cpu);
	loopback_conf(&c);
	forged_sink = lca_test_spawn(counter_handler, sizeof(uint64_t), 0, 4096, 64);
	sink = lca_test_spawn(counter_handler, sizeof(uint64_t), 1, 4096, 64);
	fake_start_unheard(&c);
	live = fake_our_session();
	for (unsigned int batch = 0; batch < 16; batch++) {
		for (unsigned int i = 0; i < 256; i++)
			fake_put(f, forged_loopback_frame(f, &x, live, forged_sink));
		lca_test_run_until(drained, NULL, 10);
	}
	assert_true(lca_test_run_until(loopback_healed, &sink, 60));
	w = lca_actor_state(fk.watcher);
	downs = w->downs;
	fprintf(stderr, "loopback: %u downs and %u rejoins under 4096 forged frames\n", w->downs,
		w->ups);
	/* Healed, it stays up: no down stops the loops in 2 s, where the
	 * heartbeats had their CPUs (a starved link is declared dead). */
	stopped = lca_test_run(2);
	lca_test_check_timed(&cpu, !stopped && w->downs == downs);
	assert_true(lca_remote_node_up(SELF));
	for (unsigned int i = 0; i < 100; i++) {
		struct lca_msg *m = lca_test_msg();

		m->type = TYPE_DATA;
		assert_int_equal(lca_send(lca_remote_ref(SELF, sink), m), 0);
	}
	want[0] = 101, want[1] = sink;
	assert_true(lca_test_run_until(got_is_quiet, want, 30));
	assert_int_equal(w->downs, downs);
	ls = fake_stats_of(SELF);
	assert_int_equal(ls.dead, 0);
	fake_stop();
}

/* A data frame numbered past the receive window, or half the number space
 * away, is refused and counted; it never becomes the next frame: the real
 * next one is delivered after it. */
static void
test_seq_outside_window(void **state)
{
	struct lca_remote_conf c;
	uint8_t f[FAKE_FRAME_MAX];
	uint64_t n = 1, want[2];
	lca_actor_id_t sink;

	(void)state;
	fake_conf(&c);
	c.window = 256;
	sink = lca_test_spawn(counter_handler, sizeof(uint64_t), 0, 64, 8);
	fake_start(&c);
	fake_put(f, fake_build(f, 0x03, 1 + 256, 0, 256, FAKE_SESSION, 2, sink));
	assert_true(lca_test_run_until(out_of_window_is, &n, 30));
	fake_put(f, fake_build(f, 0x03, 0x80000001u, 0, 256, FAKE_SESSION, 2, sink));
	assert_true(lca_test_run_until(duplicates_are, &n, 30));
	fake_put(f, fake_build(f, 0x03, 0xffffffffu, 0, 256, FAKE_SESSION, 2, sink));
	n = 2;
	assert_true(lca_test_run_until(duplicates_are, &n, 30));
	assert_int_equal(fake_stats().frames_rx, 0);
	assert_int_equal(fake_stats().msgs_delivered, 0);
	want[0] = 3, want[1] = sink;
	fake_put(f, fake_build(f, 0x03, 1, 0, 256, FAKE_SESSION, 3, sink));
	assert_true(lca_test_run_until(got_is, want, 30));
	/* Now 2 .. 257 are in the window, 258 is not. */
	fake_put(f, fake_build(f, 0x03, 2 + 256, 0, 256, FAKE_SESSION, 2, sink));
	assert_true(lca_test_run_until(out_of_window_is, &n, 30));
	assert_int_equal(fake_stats().frames_rx, 1);
	assert_int_equal(fake_stats().msgs_delivered, 3);
	assert_int_equal(fake_stats().reordered, 0);
	assert_int_equal(*(const uint64_t *)lca_actor_state(sink), 3);
	assert_true(lca_remote_node_up(FAKE));
	fake_stop();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_retry_exhausted, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_ack_beyond_sent, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_old_acks, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_loss_halves_in_flight, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_key_clean_wire, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_key_forged, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_key_one_side, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_never_heard_why, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_rejoin, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_leave, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_rejoin_not_answered, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_loopback_forged_heals, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_random_frames, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_seq_outside_window, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_forged_without_key, runtime_up, runtime_down),
	};
	int ret;

	lca_test_eal_init("lca_test_remote_link");
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	lca_eal_cleanup();
	return lca_test_status(ret);
}
