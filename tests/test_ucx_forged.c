/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The UCX transport's receive path from outside (docs/wire.md, "Trust
 * model" and "Protocol errors"): a forger with its own UCX context connects
 * to a node's listener as any process on the host can, and sends headers
 * built here from the spec, not from the transport's structs.
 * - Tags: refused messages move bad_tag and nothing else; a message whose
 *   tag the spec computes is taken far enough to be refused for a field,
 *   which shows the receiver computes the same tag, and checks it before
 *   any field.
 * - Protocol errors: as FAKE, a node of the table that never started, it
 *   credits what was never sent: counted, logged, and the peer declared
 *   down.
 * - LEAVE: as FAKE, one with a forged tag and one with data are refused;
 *   the one the spec tags takes FAKE down.
 */
#include <arpa/inet.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_common.h>
#include <rte_log.h>

#include <sodium.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_remote.h"
#include "lca_test.h"

#ifdef LCA_HAVE_UCX
#include <ucp/api/ucp.h>

#define SELF 5
#define STRANGER 77 /* a node no table names */
#define FAKE 9      /* in the table; the forger speaks for it */
#define FAKE_SESSION 0xfa4e5e55u
/* The active message ids and lengths of docs/wire.md, "The UCX transport". */
enum { AM_DATA = 21, AM_HELLO = 22, AM_CREDIT = 23, AM_LARGE = 24, AM_LARGE_CREDIT = 25,
       AM_LEAVE = 26 };
#define HDR 20
#define TAG 8
#define LARGE_HDR (HDR + 16)
#define PAYLOAD_TAG 8
#define BIG_LEN 9000 /* past a buffer (8192): a large message */

static const uint8_t key[LCA_REMOTE_KEY_LEN] = { 0x75, 0x63, 0x78, 0x2d, 0x6b, 0x65, 0x79, 2 };
static unsigned int pool_full;

/* The forger runs on a thread of its own, with its own UCX worker, while
 * this one runs the node's lcores: it connects, sends its script, and
 * keeps its worker going until told to stop. */
struct forgery {
	unsigned int id;
	size_t hlen, len;
	uint8_t hdr[64];
	uint8_t data[BIG_LEN];
};

static struct {
	ucp_context_h ctx;
	ucp_worker_h worker;
	ucp_ep_h ep;
	pthread_t thread;
	struct forgery script[16];
	unsigned int n;
	unsigned int sent;  /* atomic: sends UCX let go of */
	bool failed;        /* atomic */
	bool stop;          /* atomic */
	bool running;
} fg;

static int
runtime_up(void **state)
{
	struct lca_runtime_conf c = { .msgs_per_node = 4095, .pool_cache = 64 };

	(void)state;
	return lca_test_runtime_up(&c, &pool_full);
}

static void forger_join(void);

static int
runtime_down(void **state)
{
	(void)state;
	forger_join();
	lca_remote_stop();
	return lca_runtime_cleanup();
}

/* One node of two lcores on 127.0.0.1, linked to itself, @p keyed or not;
 * @p with_fake: FAKE in its table too (one lcore, a listener nobody has). */
static void
node_start(bool keyed, bool with_fake)
{
	struct lca_remote_conf c;

	memset(&c, 0, sizeof(c));
	c.transport = LCA_REMOTE_UCX;
	c.self = SELF;
	c.loopback = true;
	c.n_nodes = 1;
	c.nodes[0].id = SELF;
	c.nodes[0].ipv4 = 0x7f000001;
	c.nodes[0].udp_base = (uint16_t)(24000 + getpid() % 1000 * 8);
	c.nodes[0].n_lcores = 2;
	c.nodes[0].lcores[0] = 0;
	c.nodes[0].lcores[1] = 1;
	if (with_fake) {
		c.n_nodes = 2;
		c.nodes[1].id = FAKE;
		c.nodes[1].ipv4 = 0x7f000001;
		c.nodes[1].udp_base = (uint16_t)(c.nodes[0].udp_base + 4);
		c.nodes[1].n_lcores = 1;
		c.nodes[1].lcores[0] = 0;
	}
	c.connect_ms = 20000;
	c.has_key = keyed;
	memcpy(c.key, key, sizeof(key));
	setenv("UCX_TLS", "shm,tcp", 0);
	assert_int_equal(lca_remote_start(&c), 0);
}

static ucs_status_t
forger_drop(void *arg, const void *header, size_t hlen, void *data, size_t len,
	    const ucp_am_recv_param_t *param)
{
	(void)arg;
	(void)header;
	(void)hlen;
	(void)data;
	(void)len;
	(void)param;
	return UCS_OK;
}

/* The forger's endpoint, to lcore 1's listener. */
static int
forger_connect(void)
{
	ucp_params_t pp = { .field_mask = UCP_PARAM_FIELD_FEATURES, .features = UCP_FEATURE_AM };
	ucp_worker_params_t wp = { .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
				   .thread_mode = UCS_THREAD_MODE_SINGLE };
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)(24000 + getpid() % 1000 * 8 + 1)),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	ucp_ep_params_t ep = {
		.field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR |
			      UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE,
		.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER,
		.err_mode = UCP_ERR_HANDLING_MODE_NONE,
		.sockaddr = { .addr = (const struct sockaddr *)&sa, .addrlen = sizeof(sa) },
	};
	ucp_config_t *cfg;
	ucs_status_t st = ucp_config_read(NULL, NULL, &cfg);

	if (st == UCS_OK) {
		st = ucp_init(&pp, cfg, &fg.ctx);
		ucp_config_release(cfg);
	}
	if (st == UCS_OK)
		st = ucp_worker_create(fg.ctx, &wp, &fg.worker);
	/* What the node answers (credits), taken and dropped: UCX 1.13
	 * faults on a message for an id with no handler. */
	for (unsigned int id = AM_DATA; st == UCS_OK && id <= AM_LARGE_CREDIT; id++) {
		ucp_am_handler_param_t hp = {
			.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB,
			.id = id,
			.cb = forger_drop,
		};

		st = ucp_worker_set_am_recv_handler(fg.worker, &hp);
	}
	if (st == UCS_OK)
		st = ucp_ep_create(fg.worker, &ep, &fg.ep);
	if (st != UCS_OK)
		fprintf(stderr, "forger: %s\n", ucs_status_string(st));
	return st == UCS_OK ? 0 : -1;
}

static void
forger_close(void)
{
	ucp_request_param_t p = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
				  .flags = UCP_EP_CLOSE_FLAG_FORCE };
	ucs_status_ptr_t r;

	if (fg.ep != NULL) {
		r = ucp_ep_close_nbx(fg.ep, &p);
		if (UCS_PTR_IS_PTR(r)) {
			while (ucp_request_check_status(r) == UCS_INPROGRESS)
				ucp_worker_progress(fg.worker);
			ucp_request_free(r);
		}
	}
	if (fg.worker != NULL)
		ucp_worker_destroy(fg.worker);
	if (fg.ctx != NULL)
		ucp_cleanup(fg.ctx);
	fg.ep = NULL;
	fg.worker = NULL;
	fg.ctx = NULL;
}

/* Send one active message and wait until UCX has let go of it. */
static int
forge_one(const struct forgery *f)
{
	ucp_request_param_t p = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
				  .flags = UCP_AM_SEND_FLAG_EAGER | UCP_AM_SEND_FLAG_REPLY };
	ucs_status_ptr_t r = ucp_am_send_nbx(fg.ep, f->id, f->hdr, f->hlen,
					     f->len > 0 ? f->data : NULL, f->len, &p);
	ucs_status_t st;

	if (UCS_PTR_IS_ERR(r))
		return -1;
	if (r == NULL)
		return 0;
	while ((st = ucp_request_check_status(r)) == UCS_INPROGRESS &&
	       !__atomic_load_n(&fg.stop, __ATOMIC_ACQUIRE))
		ucp_worker_progress(fg.worker);
	ucp_request_free(r);
	return st == UCS_OK ? 0 : -1;
}

static void *
forger_main(void *arg)
{
	(void)arg;
	if (forger_connect() != 0) {
		__atomic_store_n(&fg.failed, true, __ATOMIC_RELEASE);
		return NULL;
	}
	for (unsigned int i = 0; i < fg.n && !__atomic_load_n(&fg.stop, __ATOMIC_ACQUIRE); i++) {
		if (forge_one(&fg.script[i]) != 0) {
			__atomic_store_n(&fg.failed, true, __ATOMIC_RELEASE);
			break;
		}
		__atomic_store_n(&fg.sent, i + 1, __ATOMIC_RELEASE);
	}
	while (!__atomic_load_n(&fg.stop, __ATOMIC_ACQUIRE))
		ucp_worker_progress(fg.worker);
	forger_close();
	return NULL;
}

/* Add one active message to the script. */
static void
forge(unsigned int id, const uint8_t *hdr, size_t hlen, const void *data, size_t len)
{
	struct forgery *f = &fg.script[fg.n++];

	assert_true(fg.n <= RTE_DIM(fg.script) && hlen <= sizeof(f->hdr) && len <= sizeof(f->data));
	f->id = id;
	f->hlen = hlen;
	f->len = len;
	memcpy(f->hdr, hdr, hlen);
	if (len > 0)
		memcpy(f->data, data, len);
}

static void
forger_start(void)
{
	assert_int_equal(pthread_create(&fg.thread, NULL, forger_main, NULL), 0);
	fg.running = true;
}

/* Stop the forger (its endpoint closed) and forget its script; also after
 * a failed check, before the node stops. */
static void
forger_join(void)
{
	if (fg.running) {
		__atomic_store_n(&fg.stop, true, __ATOMIC_RELEASE);
		pthread_join(fg.thread, NULL);
	}
	memset(&fg, 0, sizeof(fg));
}

/* The spec's payload tag of a large message: SipHash-2-4 keyed with subkey
 * 3 of context "lcawire1" of @p k, over the payload's bytes. */
static void
spec_payload_tag(uint8_t *tag, const uint8_t *k, const void *p, size_t len)
{
	uint8_t sub[crypto_shorthash_KEYBYTES];

	assert_int_equal(crypto_kdf_derive_from_key(sub, sizeof(sub), 3, "lcawire1", k), 0);
	crypto_shorthash(tag, p, len, sub);
}

/* A header as docs/wire.md lays it out, in network byte order, from
 * @p src_node's lcore 0 under @p session, having heard none of ours. */
static void
hdr_session(uint8_t *h, uint16_t src_node, uint16_t dst_lcore, uint16_t n_msgs, uint32_t seq,
	    uint32_t session)
{
	uint16_t v16[4] = { htons(src_node), htons(0), htons(dst_lcore), htons(n_msgs) };
	uint32_t v32[3] = { htonl(seq), htonl(session), htonl(0) };

	memcpy(h, v16, sizeof(v16));
	memcpy(h + 8, v32, sizeof(v32));
}

static void
hdr_build(uint8_t *h, uint16_t src_node, uint16_t dst_lcore, uint16_t n_msgs, uint32_t seq)
{
	hdr_session(h, src_node, dst_lcore, n_msgs, seq, 0x5e55);
}

/* The spec's tag: SipHash-2-4 keyed with subkey 2 of context "lcawire1"
 * of @p k, over the @p len bytes at @p p. */
static void
spec_tag(uint8_t *tag, const uint8_t *k, const void *p, size_t len)
{
	uint8_t sub[crypto_shorthash_KEYBYTES];

	assert_int_equal(crypto_kdf_derive_from_key(sub, sizeof(sub), 2, "lcawire1", k), 0);
	crypto_shorthash(tag, p, len, sub);
}

static struct lca_remote_stats
stats(void)
{
	struct lca_remote_stats gs;

	assert_int_equal(lca_remote_stats_get(&gs), 0);
	return gs;
}

struct want {
	unsigned int sent;
	uint64_t bad_tag, malformed, unknown_peer;
};

static bool
counts_reached(void *arg)
{
	const struct want *w = arg;
	struct lca_remote_stats gs = stats();

	return __atomic_load_n(&fg.failed, __ATOMIC_ACQUIRE) ||
	       (__atomic_load_n(&fg.sent, __ATOMIC_ACQUIRE) == w->sent &&
		gs.bad_tag >= w->bad_tag && gs.malformed >= w->malformed &&
		gs.unknown_peer >= w->unknown_peer);
}

/* Run the node until the forger has sent its script so far and the counts
 * reach @p bad_tag, @p malformed and @p unknown_peer; then no other count
 * moved. */
static void
expect_counts(uint64_t bad_tag, uint64_t malformed, uint64_t unknown_peer)
{
	struct want w = { fg.n, bad_tag, malformed, unknown_peer };
	struct lca_remote_link_stats ls;
	struct lca_remote_stats gs;

	assert_true(lca_test_run_until(counts_reached, &w, 30));
	assert_false(__atomic_load_n(&fg.failed, __ATOMIC_ACQUIRE));
	gs = stats();
	assert_int_equal(gs.bad_tag, bad_tag);
	assert_int_equal(gs.malformed, malformed);
	assert_int_equal(gs.unknown_peer, unknown_peer);
	assert_int_equal(gs.not_for_us, 0);
	assert_int_equal(lca_remote_link_stats_get(SELF, &ls), 0);
	assert_int_equal(ls.frames_rx, 0);
	assert_int_equal(ls.msgs_delivered, 0);
	assert_int_equal(ls.stale_session, 0);
	assert_int_equal(ls.duplicates, 0);
	assert_int_equal(ls.undeliverable, 0);
}

/* A node with a key: headers without a tag, with a wrong one, of another
 * key, a buffer whose data do not begin with its header, a changed byte, a
 * large message's header: each counted in bad_tag alone. Headers whose tag
 * the spec computes pass the check and are refused for a field. */
static void
test_forged_with_key(void **state)
{
	static const uint8_t other[LCA_REMOTE_KEY_LEN] = { 1 };
	uint8_t h[HDR + TAG], lh[LARGE_HDR + PAYLOAD_TAG + TAG] = { 0 }, d[HDR + 32];

	(void)state;
	node_start(true, false);
	/* A hello without a tag, and with a zero tag. */
	hdr_build(h, SELF, 1, 0, 0);
	forge(AM_HELLO, h, HDR, NULL, 0);
	memset(h + HDR, 0, TAG);
	forge(AM_HELLO, h, sizeof(h), NULL, 0);
	/* A credit tagged with another key. */
	hdr_build(h, SELF, 1, 0, 1);
	spec_tag(h + HDR, other, h, HDR);
	forge(AM_CREDIT, h, sizeof(h), NULL, 0);
	/* A buffer tagged over data that do not begin with its header. */
	hdr_build(h, SELF, 1, 1, 1);
	memset(d, 0x11, sizeof(d));
	spec_tag(h + HDR, key, d, sizeof(d));
	forge(AM_DATA, h, sizeof(h), d, sizeof(d));
	/* A well-tagged buffer, one byte changed on the way. */
	memcpy(d, h, HDR);
	spec_tag(h + HDR, key, d, sizeof(d));
	d[HDR + 3] ^= 1;
	forge(AM_DATA, h, sizeof(h), d, sizeof(d));
	/* A large message's header with a wrong tag. */
	hdr_build(lh, SELF, 1, 1, 1);
	forge(AM_LARGE, lh, sizeof(lh), d, sizeof(d));
	/* The spec's tag over a hello for lcore 9 (no such lcore here), and
	 * over one from a node no table names: past the tag, then refused. */
	hdr_build(h, SELF, 9, 0, 0);
	spec_tag(h + HDR, key, h, HDR);
	forge(AM_HELLO, h, sizeof(h), NULL, 0);
	hdr_build(h, STRANGER, 1, 0, 0);
	spec_tag(h + HDR, key, h, HDR);
	forge(AM_HELLO, h, sizeof(h), NULL, 0);
	/* And over a buffer that begins with its header, from the stranger. */
	hdr_build(h, STRANGER, 1, 1, 1);
	memcpy(d, h, HDR);
	spec_tag(h + HDR, key, d, sizeof(d));
	forge(AM_DATA, h, sizeof(h), d, sizeof(d));
	forger_start();
	expect_counts(6, 1, 2);
	forger_join();
}

/* A node without a key: a tagged header is refused (bad_tag), an
 * untagged one is read (here refused for its unknown node). */
static void
test_tagged_without_key(void **state)
{
	uint8_t h[HDR + TAG];

	(void)state;
	node_start(false, false);
	hdr_build(h, STRANGER, 1, 0, 0);
	spec_tag(h + HDR, key, h, HDR);
	forge(AM_HELLO, h, sizeof(h), NULL, 0);
	forge(AM_HELLO, h, HDR, NULL, 0);
	/* A length that is neither. */
	forge(AM_HELLO, h, HDR + 3, NULL, 0);
	forger_start();
	expect_counts(1, 1, 1);
	forger_join();
}

static bool
fake_down(void *arg)
{
	struct lca_remote_link_stats ls;

	(void)arg;
	return __atomic_load_n(&fg.failed, __ATOMIC_ACQUIRE) ||
	       (lca_remote_link_stats_get(FAKE, &ls) == 0 && ls.dead);
}

/* Run until FAKE is down; then what moved: its acks past what was sent,
 * and the refusals of the forger's messages, nothing else. */
static void
fake_taken_down(uint64_t ack_beyond_sent, uint64_t bad_tag, uint64_t malformed)
{
	struct lca_remote_link_stats ls;
	struct lca_remote_stats gs;

	assert_true(lca_test_run_until(fake_down, NULL, 30));
	assert_false(__atomic_load_n(&fg.failed, __ATOMIC_ACQUIRE));
	assert_false(lca_remote_node_up(FAKE));
	assert_int_equal(lca_remote_link_stats_get(FAKE, &ls), 0);
	assert_int_equal(ls.ack_beyond_sent, ack_beyond_sent);
	assert_int_equal(ls.credit_beyond_window, 0);
	assert_int_equal(ls.stale_session, 0);
	assert_int_equal(ls.msgs_delivered, 0);
	assert_int_equal(ls.lost_on_dead, 0);
	gs = stats();
	assert_int_equal(gs.bad_tag, bad_tag);
	assert_int_equal(gs.malformed, malformed);
	assert_int_equal(gs.unknown_peer, 0);
}

/* As FAKE, one credit @p id of @p seq (tagged by the spec when
 * @p keyed): a protocol error that declares FAKE down, nothing else. */
static void
credit_past_sent(bool keyed, unsigned int id, uint32_t seq)
{
	uint8_t h[HDR + TAG];

	node_start(keyed, true);
	hdr_session(h, FAKE, 1, 0, seq, FAKE_SESSION);
	if (keyed)
		spec_tag(h + HDR, key, h, HDR);
	forge(id, h, keyed ? sizeof(h) : HDR, NULL, 0);
	forger_start();
	fake_taken_down(1, 0, 0);
	forger_join();
}

static void
sink_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	(void)self;
	(void)msg;
	__atomic_fetch_add((uint64_t *)state, 1, __ATOMIC_RELAXED);
}

/* A large message's header from FAKE, number @p seq, to @p to, for the
 * @p len bytes at @p payload; its payload tag the spec's, or not when
 * @p forged; its header tag the spec's. */
static void
large_build(uint8_t *lh, uint32_t seq, lca_actor_id_t to, const uint8_t *payload, size_t len,
	    bool forged)
{
	uint32_t v32[4] = { htonl(to), htonl(LCA_ACTOR_NONE), htonl(1), htonl((uint32_t)len) };

	hdr_session(lh, FAKE, 1, 1, seq, FAKE_SESSION);
	memcpy(lh + HDR, v32, sizeof(v32));
	spec_payload_tag(lh + LARGE_HDR, key, payload, len);
	if (forged)
		lh[LARGE_HDR] ^= 1;
	spec_tag(lh + LARGE_HDR + PAYLOAD_TAG, key, lh, LARGE_HDR + PAYLOAD_TAG);
}

struct big_want {
	const uint64_t *got;
};

static bool
big_done(void *arg)
{
	const struct big_want *w = arg;

	return __atomic_load_n(&fg.failed, __ATOMIC_ACQUIRE) ||
	       (__atomic_load_n(w->got, __ATOMIC_RELAXED) == 1 && stats().bad_tag == 1);
}

/* With a key, a large message whose payload does not match its tag (its
 * header's own tag right): counted in bad_tag and undeliverable, never
 * delivered; the next one, whose payload matches, is. */
static void
test_large_payload_tag(void **state)
{
	static uint8_t big[BIG_LEN];
	uint8_t lh[LARGE_HDR + PAYLOAD_TAG + TAG];
	struct lca_remote_link_stats ls;
	struct big_want w;
	lca_actor_id_t sink;

	(void)state;
	node_start(true, true);
	sink = lca_test_spawn(sink_handler, sizeof(uint64_t), 1, 64, 8);
	w.got = lca_actor_state(sink);
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7);
	large_build(lh, 1, sink, big, sizeof(big), true);
	forge(AM_LARGE, lh, sizeof(lh), big, sizeof(big));
	large_build(lh, 2, sink, big, sizeof(big), false);
	forge(AM_LARGE, lh, sizeof(lh), big, sizeof(big));
	forger_start();
	assert_true(lca_test_run_until(big_done, &w, 30));
	assert_false(__atomic_load_n(&fg.failed, __ATOMIC_ACQUIRE));
	assert_int_equal(__atomic_load_n(w.got, __ATOMIC_RELAXED), 1);
	assert_int_equal(stats().bad_tag, 1);
	assert_int_equal(stats().malformed, 0);
	assert_int_equal(lca_remote_link_stats_get(FAKE, &ls), 0);
	assert_int_equal(ls.undeliverable, 1);
	assert_int_equal(ls.msgs_delivered, 1);
	forger_join();
}

/* As FAKE, with a key: a LEAVE with a zero tag (bad_tag) and one with data
 * (malformed) change nothing; the one tagged by the spec takes FAKE down,
 * and nothing else moves. */
static void
test_leave(void **state)
{
	uint8_t h[HDR + TAG], d[8] = { 0 };
	char line[512];
	unsigned int left = 0, dead = 0;
	FILE *log = tmpfile();

	(void)state;
	/* Down by the LEAVE, not by connect_ms: the log says which. */
	assert_non_null(log);
	assert_int_equal(rte_openlog_stream(log), 0);
	node_start(true, true);
	hdr_session(h, FAKE, 1, 0, 0, FAKE_SESSION);
	memset(h + HDR, 0, TAG);
	forge(AM_LEAVE, h, sizeof(h), NULL, 0);
	spec_tag(h + HDR, key, h, HDR);
	forge(AM_LEAVE, h, sizeof(h), d, sizeof(d));
	forge(AM_LEAVE, h, sizeof(h), NULL, 0);
	forger_start();
	fake_taken_down(0, 1, 1);
	fflush(log);
	rewind(log);
	while (fgets(line, sizeof(line), log) != NULL) {
		left += strstr(line, "remote: node 9 left: it stopped (its LEAVE came)") != NULL;
		dead += strstr(line, "remote: node 9 is dead") != NULL;
		fputs(line, stderr);
	}
	rte_openlog_stream(NULL);
	fclose(log);
	assert_int_equal(left, 1);
	assert_int_equal(dead, 0);
	forger_join();
}

/* A credit for buffers never sent, tagged with the node's key: past the
 * tag, it is the peer that is wrong, and the session is reset. */
static void
test_credit_past_sent(void **state)
{
	(void)state;
	credit_past_sent(true, AM_CREDIT, 5);
}

/* The large lane's credit for a large message never sent, without a key. */
static void
test_large_credit_past_sent(void **state)
{
	(void)state;
	credit_past_sent(false, AM_LARGE_CREDIT, 1);
}

#else /* !LCA_HAVE_UCX */
static void
test_without_ucx(void **state)
{
	(void)state;
	lca_test_skip("built without UCX (libucx-dev)");
}
#endif /* LCA_HAVE_UCX */

int
main(void)
{
	const struct CMUnitTest tests[] = {
#ifdef LCA_HAVE_UCX
		cmocka_unit_test_setup_teardown(test_forged_with_key, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_tagged_without_key, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_credit_past_sent, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_large_payload_tag, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_large_credit_past_sent, runtime_up,
						runtime_down),
		cmocka_unit_test_setup_teardown(test_leave, runtime_up, runtime_down),
#else
		cmocka_unit_test(test_without_ucx),
#endif
	};
	int ret;

	lca_test_eal_init("lca_test_ucx_forged");
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	lca_eal_cleanup();
	return lca_test_status(ret);
}
