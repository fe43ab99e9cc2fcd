/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Refused calls, counted by cause and logged once: a send to a node that is
 * down counts in lca_send_errors (host_down), a refused public call writes
 * one line naming the call, the actor and the cause (and no more than one
 * a second from one place), lca_port_dev_stop() refuses a port that
 * lca_port_start() runs, and a TX-only port says nothing about RX queues.
 * With -Ddebug_envelopes=true, a packet handler's double free and its send
 * after a free are caught and the mbuf pool stays sound.
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

#include <cmocka.h>

#include <rte_log.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_port.h"
#include "lca_remote.h"
#include "lca_test.h"
#include "lca_test_port.h"
#include "lca_timer.h"

static unsigned int msg_pool_full;

static int
runtime_up(void **state)
{
	struct lca_runtime_conf c = { .msgs_per_node = 8191, .pool_cache = 64 };

	(void)state;
	return lca_test_runtime_up(&c, &msg_pool_full);
}

static int
runtime_down(void **state)
{
	(void)state;
	lca_remote_stop();
	return lca_runtime_cleanup();
}

/* ---- The log, captured: rte_log writes to a memory stream meanwhile. */
static char *log_buf;
static size_t log_len;
static FILE *log_f;

static void
log_capture(void)
{
	log_f = open_memstream(&log_buf, &log_len);
	assert_non_null(log_f);
	assert_int_equal(rte_openlog_stream(log_f), 0);
}

/* Lines of what was logged so far that hold every one of @p a and @p b. */
static unsigned int
log_lines(const char *a, const char *b)
{
	unsigned int n = 0;

	fflush(log_f);
	for (const char *l = log_buf; l != NULL && *l != '\0';) {
		const char *end = strchr(l, '\n');
		size_t len = end != NULL ? (size_t)(end - l) : strlen(l);
		char line[512];

		snprintf(line, sizeof(line), "%.*s", (int)len, l);
		n += strstr(line, a) != NULL && (b == NULL || strstr(line, b) != NULL);
		l = end != NULL ? end + 1 : NULL;
	}
	return n;
}

static void
log_release(void)
{
	rte_openlog_stream(NULL);
	fclose(log_f);
	free(log_buf);
	log_f = NULL;
	log_buf = NULL;
}

static void
nop_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	(void)self;
	(void)state;
	(void)msg;
}

/* ---- -EHOSTDOWN, counted in lca_send_errors as docs/wire.md says. */
struct watcher {
	unsigned int downs;
};

static void
watcher_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct watcher *w = state;

	(void)self;
	if (msg->type == LCA_TYPE_NODE_DOWN && (msg->flags & LCA_MSG_F_CONTROL)) {
		w->downs++;
		lca_runtime_stop();
	}
}

#define SELF 3
#define DOWN_SENDS 8

/* Node 9 is reached through our own net_ring port and never answers: its
 * frames come back to us, addressed to it, and are not ours. */
static void
dead_node_conf(struct lca_remote_conf *c)
{
	static const uint8_t mac[6] = { 2, 0, 0, 0, 0, SELF };
	char name[16];

	memset(c, 0, sizeof(*c));
	c->self = SELF;
	c->n_nodes = 2;
	c->nodes[0].id = SELF;
	memcpy(c->nodes[0].mac, mac, 6);
	c->nodes[0].ipv4 = 0x0a000003;
	c->nodes[0].udp_base = 7000;
	c->nodes[0].port_id = new_ring_port(name, sizeof(name));
	c->nodes[0].n_lcores = 2;
	c->nodes[0].lcores[0] = 0;
	c->nodes[0].lcores[1] = 1;
	c->nodes[1] = c->nodes[0];
	c->nodes[1].id = 9;
	c->nodes[1].ipv4 = 0x0a000009;
	c->connect_ms = 200;
	c->heartbeat_ms = 5;
}

static void
test_host_down_counted(void **state)
{
	struct lca_remote_conf c;
	struct lca_send_errors e0, e1;
	const struct watcher *w;
	lca_actor_id_t wid, target;
	struct lca_msg *m;
	char reply[8192], key[64];

	(void)state;
	dead_node_conf(&c);
	wid = lca_test_spawn(watcher_handler, sizeof(struct watcher), 0, 64, 1);
	assert_int_equal(lca_remote_start(&c), 0);
	target = lca_remote_ref(9, 1);
	assert_int_equal(lca_remote_watch(wid, target), 0);
	assert_true(lca_test_run(10));
	w = lca_actor_state(wid);
	assert_int_equal(w->downs, 1);
	log_capture();
	lca_send_errors_get(&e0);
	for (unsigned int i = 0; i < DOWN_SENDS; i++) {
		assert_int_equal(lca_msg_alloc(&m), 0);
		assert_int_equal(lca_send(target, m), -EHOSTDOWN);
		lca_msg_free(m);
	}
	lca_send_errors_get(&e1);
	assert_int_equal(e1.host_down - e0.host_down, DOWN_SENDS);
	/* Counted once each, under its own cause and no other. */
	assert_int_equal(e1.other - e0.other, 0);
	assert_int_equal(e1.no_actor - e0.no_actor, 0);
	assert_int_equal(e1.mailbox_full - e0.mailbox_full, 0);
	/* Eight refusals, one line: the rest were kept quiet. */
	assert_int_equal(log_lines("a send refused", "-EHOSTDOWN"), 1);
	log_release();
	/* Telemetry says the same, and names lost_on_dead for what it is: an
	 * upper bound (a frame unacknowledged may still have arrived). */
	snprintf(key, sizeof(key), "\"send_host_down\":%" PRIu64, e1.host_down);
	assert_int_equal(lca_test_telemetry_query("/lcactor/info", reply, sizeof(reply)), 0);
	assert_non_null(strstr(reply, key));
	assert_int_equal(lca_test_telemetry_query("/lcactor/links", reply, sizeof(reply)), 0);
	assert_non_null(strstr(reply, "\"lost_on_dead_at_most\":"));
	assert_null(strstr(reply, "\"lost_on_dead\":"));
	assert_int_equal(lca_remote_stop(), 0);
}

/* ---- Refused public calls: one line each, naming call, actor, cause. */
static void
test_refused_calls_logged(void **state)
{
	lca_actor_id_t a, gone, id;
	struct lca_send_errors e0, e1;
	struct lca_msg *m;
	char stopped[32], alive[32], reply[8192];
	const char *p;

	(void)state;
	a = lca_test_spawn(nop_handler, 0, 0, 64, 1);
	gone = lca_test_spawn(nop_handler, 0, 0, 64, 1);
	assert_int_equal(lca_actor_stop(gone), 0);
	snprintf(alive, sizeof(alive), "(actor %u)", a);
	snprintf(stopped, sizeof(stopped), "(actor %u)", gone);
	log_capture();
	lca_send_errors_get(&e0);
	/* Many refusals of one cause from one place: one line. */
	for (unsigned int i = 0; i < 50; i++)
		assert_int_equal(lca_ask(a, a, NULL, 1000, NULL), -EINVAL);
	assert_int_equal(log_lines("lca_ask refused", "-EINVAL"), 1);
	assert_int_equal(log_lines("lca_ask refused", alive), 1);
	/* Another cause from the same place has its own line. */
	m = lca_test_msg();
	assert_int_equal(lca_ask(gone, a, m, 1000, NULL), -EPIPE);
	assert_int_equal(log_lines("lca_ask refused", "-EPIPE"), 1);
	assert_int_equal(log_lines("lca_ask refused", stopped), 1);
	/* The ask's own send refused: the send's line, not a second one. */
	assert_int_equal(lca_ask(a, gone, m, 1000, NULL), -EPIPE);
	assert_int_equal(log_lines("a send refused", "-EPIPE"), 1);
	assert_int_equal(log_lines("lca_ask refused", "-EPIPE"), 1);
	lca_send_errors_get(&e1);
	assert_int_equal(e1.stopped - e0.stopped, 1);
	assert_int_equal(lca_actor_register(NULL, a), -EINVAL);
	assert_int_equal(log_lines("lca_actor_register refused", alive), 1);
	assert_int_equal(lca_actor_lookup("", &id), -EINVAL);
	assert_int_equal(log_lines("lca_actor_lookup refused", "-EINVAL"), 1);
	/* A name that is not there is an answer: no line at the default level. */
	assert_int_equal(lca_actor_lookup("nobody", &id), -ENOENT);
	assert_int_equal(log_lines("lca_actor_lookup refused", "-ENOENT"), 0);
	assert_int_equal(lca_msg_from_bytes(NULL, NULL, 5, &m), -EINVAL);
	assert_int_equal(log_lines("lca_msg_from_bytes refused", "-EINVAL"), 1);
	assert_int_equal(lca_send_after(gone, m, 10, NULL), -EPIPE);
	assert_int_equal(log_lines("lca_send_after refused", stopped), 1);
	assert_int_equal(lca_send_after(a, NULL, 10, NULL), -EINVAL);
	assert_int_equal(log_lines("lca_send_after refused", "-EINVAL"), 1);
	log_release();
	/* Counted by errno too: every -EINVAL above (50 asks and four more). */
	assert_int_equal(lca_test_telemetry_query("/lcactor/info", reply, sizeof(reply)), 0);
	p = strstr(reply, "\"refused_EINVAL\":");
	assert_non_null(p);
	assert_true(strtoull(p + strlen("\"refused_EINVAL\":"), NULL, 10) >= 54);
	lca_msg_free(m);
}

/* ---- Ports: no device stop under a running port, no false RX line. */
static void
test_port_dev_stop_running(void **state)
{
	char name[16];
	struct lca_port_conf c = { .dest = LCA_ACTOR_NONE, .rx_desc = 256, .tx_desc = 256 };
	struct lca_port *p = NULL;

	(void)state;
	c.dest = lca_test_spawn(nop_handler, 0, 1, 1024, 32);
	c.port_id = new_ring_port(name, sizeof(name));
	log_capture();
	assert_int_equal(lca_port_start(&c, &p), 0);
	assert_int_equal(lca_port_dev_stop(c.port_id), -EBUSY);
	assert_int_equal(lca_port_dev_close(c.port_id), -EBUSY);
	assert_int_equal(log_lines("lca_port_dev_stop", "-EBUSY"), 1);
	/* Refused, so the port still runs: its polling meets no stopped queue. */
	assert_false(lca_test_run(1));
	assert_int_equal(log_lines("not ready port", NULL), 0);
	assert_int_equal(lca_port_stop(p), 0);
	log_release();
}

/* A TX-only port has no RX queues by design: nothing to say about them
 * (it used to log "0 RX queues, the most the PMD has"). */
static void
test_tx_only_quiet(void **state)
{
	char name[16];
	struct lca_port_conf t = { .dest = LCA_ACTOR_NONE, .tx_only = true, .rx_desc = 256,
				   .tx_desc = 256 };
	struct lca_port *tp = NULL;

	(void)state;
	t.port_id = new_ring_port(name, sizeof(name));
	log_capture();
	assert_int_equal(lca_port_start(&t, &tp), 0);
	assert_int_equal(log_lines("(TX only)", NULL), 1); /* the capture works */
	assert_int_equal(log_lines("the most the PMD", NULL), 0);
	assert_int_equal(lca_port_stop(tp), 0);
	log_release();
}

/* ---- A packet handler's double free and send after free (debug build). */
#define POOL_MBUFS 63
#define BAD_PKTS 4
#define TYPE_FREE_TWICE 1
#define TYPE_SEND_FREED 2

#ifdef LCA_DEBUG_ENVELOPES
struct pkt_actor {
	lca_actor_id_t sink;
	unsigned int got;
	unsigned int intact; /* packets whose bytes were what was written */
};

static void
pkt_misuser(lca_actor_id_t self, void *state, struct rte_mbuf **pkts, uint16_t n)
{
	struct pkt_actor *a = state;

	(void)self;
	for (uint16_t i = 0; i < n; i++) {
		a->got++;
		rte_pktmbuf_free(pkts[i]);
		if (lca_pkt_meta(pkts[i])->type == TYPE_FREE_TWICE)
			rte_pktmbuf_free(pkts[i]); /* the bug under test */
		else
			assert_int_equal(lca_send_packets(a->sink, &pkts[i], 1), 1);
	}
	if (a->got == BAD_PKTS && lca_pkt_meta(pkts[0])->type == TYPE_FREE_TWICE)
		lca_runtime_stop();
}

static void
pkt_sink(lca_actor_id_t self, void *state, struct rte_mbuf **pkts, uint16_t n)
{
	struct pkt_actor *a = state;

	(void)self;
	for (uint16_t i = 0; i < n; i++) {
		const uint8_t *b = rte_pktmbuf_mtod(pkts[i], const uint8_t *);

		a->got++;
		a->intact += pkts[i]->data_len == 64 && b[0] == 0xab && b[63] == 0xcd;
	}
	rte_pktmbuf_free_bulk(pkts, n);
	if (a->got == BAD_PKTS)
		lca_runtime_stop();
}

static lca_actor_id_t
spawn_pkt(lca_packet_handler_fn fn)
{
	struct lca_actor_spec spec = { .on_packets = fn, .lcore = 1, .throughput = 32,
				       .state_size = sizeof(struct pkt_actor) };
	lca_actor_id_t id;

	assert_int_equal(lca_actor_spawn(&spec, &id), 0);
	return id;
}

/* @p BAD_PKTS packets of type @p type from @p mp to @p to. */
static void
send_bad(struct rte_mempool *mp, lca_actor_id_t to, uint32_t type)
{
	struct rte_mbuf *pkts[BAD_PKTS];

	assert_int_equal(rte_pktmbuf_alloc_bulk(mp, pkts, BAD_PKTS), 0);
	for (unsigned int i = 0; i < BAD_PKTS; i++) {
		uint8_t *b = (uint8_t *)rte_pktmbuf_append(pkts[i], 64);

		memset(b, 0, 64);
		b[0] = 0xab;
		b[63] = 0xcd;
	}
	assert_int_equal(lca_send_packets_typed(to, type, pkts, BAD_PKTS), BAD_PKTS);
}

/* Every mbuf of @p mp out at once: all distinct, and not one more. */
static void
assert_pool_sound(struct rte_mempool *mp)
{
	struct rte_mbuf *all[POOL_MBUFS + 1];

	assert_int_equal(rte_mempool_avail_count(mp), POOL_MBUFS);
	for (unsigned int i = 0; i < POOL_MBUFS; i++) {
		all[i] = rte_pktmbuf_alloc(mp);
		assert_non_null(all[i]);
		for (unsigned int j = 0; j < i; j++)
			assert_ptr_not_equal(all[i], all[j]);
	}
	all[POOL_MBUFS] = rte_pktmbuf_alloc(mp);
	assert_null(all[POOL_MBUFS]);
	rte_pktmbuf_free_bulk(all, POOL_MBUFS);
}

static void
test_packet_misuse_caught(void **state)
{
	struct lca_send_errors e0, e1;
	struct rte_mempool *mp;
	struct pkt_actor *a, *k;
	lca_actor_id_t bad, sink;
	char who[32];

	(void)state;
	mp = rte_pktmbuf_pool_create("refusals_pkts", POOL_MBUFS, 0, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	assert_non_null(mp);
	bad = spawn_pkt(pkt_misuser);
	sink = spawn_pkt(pkt_sink);
	a = lca_actor_state(bad);
	k = lca_actor_state(sink);
	a->sink = sink;
	snprintf(who, sizeof(who), "given to actor %u", bad);
	log_capture();
	lca_send_errors_get(&e0);
	send_bad(mp, bad, TYPE_FREE_TWICE);
	assert_true(lca_test_run(10));
	lca_send_errors_get(&e1);
	assert_int_equal(e1.packet_misuse - e0.packet_misuse, BAD_PKTS);
	assert_int_equal(log_lines(who, "double free"), BAD_PKTS);
	assert_pool_sound(mp);
	/* Freed, then sent on: caught, and the packet arrives intact. */
	a->got = 0;
	send_bad(mp, bad, TYPE_SEND_FREED);
	assert_true(lca_test_run(10));
	lca_send_errors_get(&e0);
	assert_int_equal(e0.packet_misuse - e1.packet_misuse, BAD_PKTS);
	assert_int_equal(log_lines(who, "sent after its free"), BAD_PKTS);
	assert_int_equal(k->got, BAD_PKTS);
	assert_int_equal(k->intact, BAD_PKTS);
	assert_pool_sound(mp);
	log_release();
	rte_mempool_free(mp);
}
#endif /* LCA_DEBUG_ENVELOPES */

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_host_down_counted, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_refused_calls_logged, runtime_up,
						runtime_down),
		cmocka_unit_test_setup_teardown(test_port_dev_stop_running, runtime_up,
						runtime_down),
		cmocka_unit_test_setup_teardown(test_tx_only_quiet, runtime_up, runtime_down),
#ifdef LCA_DEBUG_ENVELOPES /* the sanitizer build of `make test` */
		cmocka_unit_test_setup_teardown(test_packet_misuse_caught, runtime_up,
						runtime_down),
#endif
	};
	int failed;

	lca_test_eal_init("lca_test_refusals");
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	lca_eal_cleanup();
	return lca_test_status(failed);
}
