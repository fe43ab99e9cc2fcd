/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lca-remote-bench: messages between actors in two processes over an ethdev
 * link (lca_remote.h). One command runs both: node 1 (this process, the
 * driver) starts node 2 (the sink and the echo) and stops it at the end.
 * For each message size: one-way msg/s (the driver sends --msgs messages to
 * the sink as fast as the channel's credit allows, then an END that the
 * sink answers), and round trips to the echo, one at a time (p50, p99,
 * p99.9). Every message is counted on both sides.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "lca_actor.h"
#include "app_main.h"
#include "app_cli.h"
#include "lca_eal.h"
#include "app_pair.h"
#include "lca_remote.h"
#include "app_report.h"
#include "app_result.h"
#include "app_hgrm.h"
#include "app_series.h"
#include "lca_topo.h"
#include "app_verdict.h"
#include "app_window.h"
#include "remote_bench.h"

#define BATCH 1024

struct opts {
	unsigned int sizes[MAX_SIZES];
	unsigned int n_sizes;
	uint64_t msgs;
	unsigned int pings;
	unsigned int loss_ppm;
	unsigned int timeout_s;
	const char *peer_lcores;
	bool bulk;
	bool no_floor;
	bool auth;
	bool msgs_given, pings_given; /* else passes / round trips until 200 ms */
	const char *json_path;
	const char *hgrm_path;
	const char *remote; /* app_pair_prepare() read it first */
};

static struct opts o = {
	.sizes = { 16, 64, 256 }, .n_sizes = 3, .msgs = 2000000, .pings = 20000,
	.timeout_s = 120, .peer_lcores = "1",
};

static struct rte_mempool *payload_pool;
/* --remote: this process's node, and node 2 when this one is node 1. */
static struct app_pair pair;
static struct app_series series;

struct driver {
	lca_actor_id_t sink, echo;
	unsigned int size_i;
	int phase; /* 0 throughput, 1 latency, 2 done */
	uint64_t sent;
	uint64_t t0;
	unsigned int pinged;
	uint64_t ping_tsc;
	uint64_t ping_t0;     /* the size's first round trip */
	uint64_t pass_t0;     /* the one-way pass's start */
	uint64_t *rtt;
	unsigned int rtt_cap;
	uint64_t refused;
	int error;
	/* A link down and up again (docs/wire.md, rejoin): the outstanding
	 * ping sent again, the next pong's sample left out. */
	bool discard_next;
	uint64_t pings_redone;
	struct result res[MAX_SIZES];
	/* --bulk: 1 MiB messages to the sink while 64 B round trips run. */
	bool bulk_phase, bulk_done;
	uint64_t bulk_sent, bulk_t0;
};

#define BULK_LEN (1u << 20)
#define BULK_PING 64

/* A 1 MiB payload: a chain of the pool's mbufs. */
static struct rte_mbuf *
bulk_payload(void)
{
	struct rte_mbuf *head = NULL;
	uint32_t left = BULK_LEN;

	while (left > 0) {
		struct rte_mbuf *seg = rte_pktmbuf_alloc(payload_pool);
		uint16_t n;

		if (seg == NULL) {
			rte_pktmbuf_free(head);
			return NULL;
		}
		n = (uint16_t)RTE_MIN(left, (uint32_t)rte_pktmbuf_tailroom(seg));
		memset(rte_pktmbuf_append(seg, n), 0xa5, n);
		left -= n;
		if (head == NULL)
			head = seg;
		else if (rte_pktmbuf_chain(head, seg) != 0) {
			rte_pktmbuf_free(seg);
			rte_pktmbuf_free(head);
			return NULL;
		}
	}
	return head;
}

static struct lca_msg *bulk_next; /* built, not yet taken by the lane */

static void
bulk_send(struct driver *d)
{
	if (bulk_next == NULL) {
		struct rte_mbuf *p = bulk_payload();

		if (p == NULL)
			return;
		if (lca_msg_from_mbuf(p, &bulk_next) != 0) {
			rte_pktmbuf_free(p);
			bulk_next = NULL;
			return;
		}
		bulk_next->type = T_DATA;
	}
	/* -ENOBUFS: the lane is still cutting the last one; try again. */
	if (lca_send(d->sink, bulk_next) == 0) {
		d->bulk_sent++;
		bulk_next = NULL;
	}
}

static int
make_msg(unsigned int size, uint32_t type, struct lca_msg **out)
{
	struct lca_msg *m;

	if (lca_msg_alloc(&m) != 0)
		return -ENOMEM;
	m->type = type;
	if (size <= LCA_MSG_INLINE) {
		memset(m->data, 0x5a, size);
		m->len = (uint16_t)size;
	} else {
		struct rte_mbuf *mb = rte_pktmbuf_alloc(payload_pool);

		if (mb == NULL) {
			lca_msg_free(m);
			return -ENOMEM;
		}
		memset(rte_pktmbuf_append(mb, (uint16_t)size), 0x5a, size);
		m->ptr = mb;
		m->flags |= LCA_MSG_F_MBUF;
	}
	*out = m;
	return 0;
}

static void
send_ping(struct driver *d)
{
	struct lca_msg *m;
	int ret;

	if (make_msg(d->bulk_phase ? BULK_PING : o.sizes[d->size_i], T_PING, &m) != 0) {
		d->error = -ENOMEM;
		lca_runtime_stop();
		return;
	}
	d->ping_tsc = rte_rdtsc();
	ret = lca_send(d->echo, m);
	if (ret != 0) {
		/* No credit yet: try again on the next GO. */
		lca_msg_free(m);
		d->ping_tsc = 0;
	}
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* --hgrm: one size's round trips, named by the size. */
static int
rtt_hgrm(const uint64_t *rtt, unsigned int n, unsigned int size, const char *what)
{
	char name[48];

	snprintf(name, sizeof(name), "%uB%s", size, what);
	return app_hgrm_write_cycles(rtt, n, rte_get_tsc_hz(), o.hgrm_path, name,
				     "lca-remote-bench");
}

static void
latency_done(struct driver *d)
{
	struct result *r = &d->res[d->size_i];
	double us = 1e6 / (double)rte_get_tsc_hz();
	unsigned int n = d->pinged;

	r->pings = n;
	r->ping_ms = (double)(rte_rdtsc() - d->ping_t0) * us / 1e3;
	qsort(d->rtt, n, sizeof(*d->rtt), cmp_u64);
	r->p50_us = (double)d->rtt[n / 2] * us;
	r->p99_us = (double)d->rtt[(uint64_t)n * 99 / 100] * us;
	r->p999_us = (double)d->rtt[(uint64_t)n * 999 / 1000] * us;
	if (o.hgrm_path != NULL && rtt_hgrm(d->rtt, n, r->size, "") < 0)
		d->error = -EIO;
	printf("  %4u B: RTT p50 %.1f us, p99 %.1f us, p99.9 %.1f us (%u round trips, one at a "
	       "time)\n",
	       r->size, r->p50_us, r->p99_us, r->p999_us, n);
	printf("  %4u B: window: one way %.1f ms over %u pass%s of --msgs, round trips %.1f ms",
	       r->size, r->ms, r->passes, r->passes == 1 ? "" : "es", r->ping_ms);
	app_window_end_line(stdout, fmin(r->ms, r->ping_ms) / 1e3,
			    o.msgs_given || o.pings_given ? "give more --msgs or --pings" : NULL);
	fflush(stdout);
	d->size_i++;
	d->phase = 0;
	d->sent = 0;
	d->t0 = 0;
	d->pinged = 0;
}

/* --bulk, after the sizes: 1 MiB messages to the sink while 64 B round
 * trips run; the GO loop sends the next of each. */
static bool
go_bulk(struct driver *d)
{
	if (!d->bulk_phase) {
		d->bulk_phase = true;
		d->pinged = 0;
		d->ping_tsc = 0;
		d->bulk_t0 = rte_rdtsc();
	}
	bulk_send(d);
	if (d->ping_tsc == 0)
		send_ping(d);
	return true;
}

/* Every size done: tell the sink, and stop. @return whether to try again. */
static bool
go_quit(struct driver *d)
{
	struct lca_msg *q;

	if (lca_msg_alloc(&q) == 0) {
		q->type = T_QUIT;
		if (lca_send(d->sink, q) != 0) {
			lca_msg_free(q);
			return true;
		}
	}
	d->phase = 2;
	lca_runtime_stop();
	return false;
}

/* Up to BATCH of the size's one-way messages, then its END. */
static bool
go_one_way(struct driver *d)
{
	if (d->t0 == 0)
		d->t0 = rte_rdtsc();
	if (d->sent == 0 && d->pass_t0 == 0)
		d->pass_t0 = rte_rdtsc();
	for (unsigned int i = 0; i < BATCH && d->sent <= o.msgs; i++) {
		struct lca_msg *m;
		int ret;

		if (d->sent == o.msgs) {
			if (lca_msg_alloc(&m) != 0)
				break;
			m->type = T_END;
		} else if (make_msg(o.sizes[d->size_i], T_DATA, &m) != 0) {
			break;
		}
		ret = lca_send(d->sink, m);
		if (ret != 0) {
			lca_msg_free(m);
			if (ret != -ENOBUFS) {
				d->error = ret;
				lca_runtime_stop();
				return false;
			}
			d->refused++;
			break;
		}
		d->sent++;
	}
	return d->sent <= o.msgs;
}

static bool
on_go(struct driver *d)
{
	if (d->size_i == o.n_sizes && o.bulk && !d->bulk_done)
		return go_bulk(d);
	if (d->size_i == o.n_sizes)
		return go_quit(d);
	if (d->phase == 0)
		return go_one_way(d);
	if (d->phase == 1 && d->ping_tsc == 0) {
		send_ping(d);
		return d->ping_tsc == 0;
	}
	return false;
}

/* The sink's count of a one-way pass: another pass while the size's passes
 * are under the window (--msgs not given), else its round trips. */
static bool
on_end_ack(struct driver *d, const struct lca_msg *msg)
{
	struct result *r = &d->res[d->size_i];
	double pass_ms;
	uint64_t count;

	memcpy(&count, msg->data, sizeof(count));
	r->size = o.sizes[d->size_i];
	r->passes++;
	pass_ms = (double)(rte_rdtsc() - d->pass_t0) * 1e3 / (double)rte_get_tsc_hz();
	r->ms = (double)(rte_rdtsc() - d->t0) * 1e3 / (double)rte_get_tsc_hz();
	r->mps = (double)o.msgs * r->passes / r->ms / 1e3;
	r->sink_count += count;
	printf("  %4u B: %" PRIu64 " messages one way in %.1f ms: %.2f M msg/s; the sink "
	       "counted %" PRIu64 "\n",
	       r->size, o.msgs, pass_ms, (double)o.msgs / pass_ms / 1e3, count);
	fflush(stdout);
	if (count != o.msgs)
		d->error = -EIO;
	d->pass_t0 = 0;
	if (d->error == 0 && !o.msgs_given && r->ms < APP_WINDOW_MIN_S * 1e3) {
		/* Another pass of --msgs: the default's are over in a tick or two
		 * on a fast link. */
		d->sent = 0;
		return true;
	}
	d->phase = 1;
	d->pinged = 0;
	d->ping_t0 = rte_rdtsc();
	send_ping(d);
	return d->ping_tsc == 0;
}

/* The --bulk round trips are in: their percentiles and the MB/s. */
static void
bulk_done(struct driver *d)
{
	double us = 1e6 / (double)rte_get_tsc_hz();
	double ms = (double)(rte_rdtsc() - d->bulk_t0) * us / 1e3;

	qsort(d->rtt, o.pings, sizeof(*d->rtt), cmp_u64);
	if (o.hgrm_path != NULL && rtt_hgrm(d->rtt, o.pings, BULK_PING, "-during-bulk") < 0)
		d->error = -EIO;
	printf("  %4u B during 1 MiB transfers: RTT p50 %.1f us, p99 %.1f us, "
	       "p99.9 %.1f us; meanwhile %" PRIu64 " x 1 MiB taken in %.1f ms "
	       "(%.0f MB/s)\n",
	       BULK_PING, (double)d->rtt[o.pings / 2] * us,
	       (double)d->rtt[(uint64_t)o.pings * 99 / 100] * us,
	       (double)d->rtt[(uint64_t)o.pings * 999 / 1000] * us,
	       d->bulk_sent, ms, (double)d->bulk_sent * BULK_LEN / ms / 1e3);
	fflush(stdout);
	d->bulk_phase = false;
	d->bulk_done = true;
	lca_msg_free(bulk_next);
	bulk_next = NULL;
}

/* More round trips than --pings, until they took 200 ms: room for them. */
static int
grow_rtt(struct driver *d)
{
	uint64_t *more;

	if (d->pinged < d->rtt_cap)
		return 0;
	more = realloc(d->rtt, 2 * sizeof(*more) * d->rtt_cap);
	if (more == NULL)
		return -ENOMEM;
	d->rtt = more;
	d->rtt_cap *= 2;
	return 0;
}

static bool
on_pong(struct driver *d)
{
	if (d->ping_tsc == 0)
		return false; /* the first copy's, of a ping sent again at a rejoin */
	if (d->discard_next) {
		/* It may be the first copy's (a frame counted lost can have
		 * arrived, docs/wire.md): no sample, another ping. */
		d->discard_next = false;
		d->ping_tsc = 0;
		send_ping(d);
		return d->ping_tsc == 0;
	}
	d->rtt[d->pinged++] = rte_rdtsc() - d->ping_tsc;
	d->ping_tsc = 0;
	if (d->bulk_phase) {
		if (d->pinged == o.pings)
			bulk_done(d);
		/* The GO loop sends the next ping and the next 1 MiB. */
		return false;
	}
	if (d->pinged >= o.pings && (o.pings_given ||
	    rte_rdtsc() - d->ping_t0 >= APP_WINDOW_MIN_S * (double)rte_get_tsc_hz())) {
		latency_done(d);
		return true;
	}
	if (grow_rtt(d) < 0) {
		d->error = -ENOMEM;
		lca_runtime_stop();
		return false;
	}
	send_ping(d);
	return d->ping_tsc == 0;
}

/* Node 2 rejoined: what the old epoch held is gone (lost_on_dead). A
 * round trip goes on with its ping sent again; a one-way pass's count can
 * no longer be checked, so the run ends now, saying why, rather than at
 * --timeout. @return whether to send a GO. */
static bool
on_node_up(struct driver *d)
{
	printf("node 1: node 2 rejoined\n");
	fflush(stdout);
	if (d->phase == 0 && !d->bulk_phase && (d->sent > 0 || d->pass_t0 != 0)) {
		fprintf(stderr, "node 1: the link went down during the %u B one-way pass: its "
			"messages in flight are gone, so the sink's count cannot be checked\n",
			o.sizes[d->size_i]);
		d->error = -EHOSTDOWN;
		lca_runtime_stop();
		return false;
	}
	if (d->ping_tsc != 0) {
		d->ping_tsc = 0;
		d->discard_next = true;
		d->pings_redone++;
		return true;
	}
	return false;
}

static bool
on_link_news(struct driver *d, const struct lca_msg *msg)
{
	if (msg->type == LCA_TYPE_NODE_UP)
		return on_node_up(d);
	printf("node 1: node 2 is down; waiting for it to rejoin (until --timeout)\n");
	fflush(stdout);
	return false;
}

/* Node 1's driver: each size one way, then its round trips; the GO it
 * sends itself keeps it going while a send is refused for room. */
static void
driver_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct driver *d = state;
	bool again = false;

	if ((msg->flags & LCA_MSG_F_CONTROL) &&
	    (msg->type == LCA_TYPE_NODE_DOWN || msg->type == LCA_TYPE_NODE_UP)) {
		/* A control envelope is the runtime's: a GO of its own. */
		struct lca_msg *go;

		if (on_link_news(d, msg) && lca_msg_alloc(&go) == 0) {
			go->type = T_GO;
			if (lca_send(self, go) != 0)
				lca_msg_free(go);
		}
		return;
	}
	if (msg->type == T_GO)
		again = on_go(d);
	else if (msg->type == T_END_ACK)
		again = on_end_ack(d, msg);
	else if (msg->type == T_PONG)
		again = on_pong(d);
	if (again) {
		msg->type = T_GO;
		msg->len = 0;
		if (msg->flags & LCA_MSG_F_MBUF)
			rte_pktmbuf_free(lca_msg_detach_mbuf(msg));
		lca_send(self, msg);
	}
}

static int
opt_sizes(void *conf, const struct app_opt *opt, char *val)
{
	struct opts *c = conf;
	char *items[MAX_SIZES];
	int n = app_cli_split(val, items, MAX_SIZES);

	(void)opt;
	if (n <= 0)
		return -EINVAL;
	for (int i = 0; i < n; i++) {
		uint64_t v;

		if (app_cli_uint(items[i], 1, 1024, &v) < 0)
			return -EINVAL;
		c->sizes[i] = (unsigned int)v;
	}
	c->n_sizes = (unsigned int)n;
	return 0;
}

#define AT(field) APP_OPT_AT(struct opts, field)
#define GIVEN(field) APP_OPT_GIVEN(struct opts, field)

static const struct app_opt options[] = {
	{ "remote", 0, APP_OPT_STRING, AT(remote), .metavar = "T",
	  .help = "memif (two processes), af_packet (two processes in two\n"
		  "network namespaces joined by a veth pair, made and removed\n"
		  "here; root), ucx (two processes, UCX active messages over\n"
		  "127.0.0.1: UCX_TLS picks UCX's transports, e.g. shm,tcp;\n"
		  "its connection setup needs tcp) or ring (one process,\n"
		  "over a loopback)" },
	/* app_pair.h's: the veth's faults, and node 2's own argument. */
	{ "netem", 0, APP_OPT_IGNORE, .no_value = true,
	  .help = "af_packet: tc netem loss, reorder and duplicate 1% on the\n"
		  "veth (or lcactor's injector where the kernel has no netem)" },
	{ "pair-netem-on", 0, APP_OPT_IGNORE, .no_value = true, .hidden = true },
	{ "pair-peer", 0, APP_OPT_IGNORE, .hidden = true },
	{ "jumbo", 0, APP_OPT_IGNORE, .no_value = true,
	  .help = "memif: buffers of 9216 bytes and frames of MTU 9000\n"
		  "(about 280 16-byte messages a frame; default 1500)" },
	{ "start-order", 0, APP_OPT_IGNORE, .metavar = "N",
	  .help = "node1: node 1 starts its end of the link, then the second\n"
		  "process; node2: the second process, then node 1's end 1.5 s\n"
		  "later (either waits for the other: memif's client retries)" },
	{ "sizes", 0, APP_OPT_CUSTOM, .parse = opt_sizes, .metavar = "LIST",
	  .help = "message sizes in bytes (default 16,64,256; > 40 go in mbufs)",
	  .why = "1 .. 1024 bytes, up to " RTE_STR(MAX_SIZES) },
	{ "msgs", 0, APP_OPT_UINT, AT(msgs), .min = 1, .max = UINT64_C(1) << 40,
	  GIVEN(msgs_given), .metavar = "N",
	  .help = "one-way messages per size, exactly (default: passes of\n"
		  "2000000 until they took 200 ms)" },
	{ "pings", 0, APP_OPT_UINT, AT(pings), .min = 1, .max = 10000000, GIVEN(pings_given),
	  .metavar = "N",
	  .help = "round trips per size, exactly (default: 20000, and more\n"
		  "until they took 200 ms)" },
	{ "loss-ppm", 0, APP_OPT_UINT, AT(loss_ppm), .min = 0, .max = 500000, .metavar = "N",
	  .help = "frames node 1 drops on purpose, per million (default 0)" },
	{ "peer-lcores", 0, APP_OPT_STRING, AT(peer_lcores), .metavar = "L",
	  .help = "-l of node 2 (default 1)" },
	{ "bulk", 0, APP_OPT_FLAG, AT(bulk),
	  .help = "then 64 B round trips while 1 MiB messages go to the sink\n"
		  "(the large-message lane): their p99, and the MB/s" },
	{ "timeout", 0, APP_OPT_UINT, AT(timeout_s), .min = 1, .max = UINT32_MAX / 1000,
	  .metavar = "S", .help = "seconds before giving up (default 120); a link that\n"
		  "goes down and rejoins within them is waited out" },
	{ "json", 0, APP_OPT_OUTPUT, AT(json_path), .metavar = "FILE",
	  .help = "also write the figures as JSON (docs/json.md)" },
	{ "hgrm", 0, APP_OPT_OUTPUT, AT(hgrm_path), .metavar = "FILE",
	  .help = "each size's round trips as HdrHistogram's .hgrm text (us),\n"
		  "FILE with the size (\"64B\") before .hgrm" },
	{ "auth", 0, APP_OPT_FLAG, AT(auth),
	  .help = "authenticated frames: the same fixed key on both nodes\n"
		  "(what a tag costs; docs/wire.md, \"Trust model\")" },
	{ "no-floor", 0, APP_OPT_FLAG, AT(no_floor),
	  .help = "do not run the floor (the verdict says so)" },
	{ NULL },
};

static const struct app_opt_table table = {
	.prog = "lca-remote-bench", .opts = options, .eal = true, .column = 19,
	.synopsis = "[EAL args] -- --remote memif|af_packet|ucx|ring [options]",
	.about = "Actor messages between two processes over a link: one-way msg/s\n"
		 "and round-trip percentiles per message size. This process is node 1 (the\n"
		 "driver) and starts node 2 (sink and echo) with --peer-lcores.\n",
	.footer = "With --remote ucx or memif, the bare transport's floor (lca-ucx-floor or\n"
		  "lca-memif-floor, beside this program) runs with the same sizes and counts on the\n"
		  "same CPUs before node 2 starts and after it ends; each figure is printed as a\n"
		  "ratio to both rounds.\n",
};

static int
parse_args(int argc, char **argv, void *conf)
{
	int ret = app_opt_parse(argc, argv, &table, conf, NULL);

	if (ret == 0 && !pair.active) {
		fprintf(stderr, "lca-remote-bench: needs --remote memif|af_packet|ucx|ring\n");
		ret = -EINVAL;
	}
	return ret;
}

static int
spawn(lca_handler_fn h, size_t state, unsigned int lcore, lca_actor_id_t *id)
{
	struct lca_actor_spec spec = {
		.handler = h, .state_size = state, .lcore = lcore, .mailbox_size = 16384,
		.throughput = 1024,
		.supervision = &(const struct lca_supervision){ .supervisor = LCA_ACTOR_NONE,
								.strategy = LCA_SUPERVISE_RESUME },
	};

	return lca_actor_spawn(&spec, id);
}

static void
print_links(unsigned int peer)
{
	struct lca_remote_link_stats s;
	struct lca_remote_stats g;

	if (lca_remote_link_stats_get(peer, &s) != 0)
		return;
	lca_remote_stats_get(&g);
	printf("Link to node %u: %" PRIu64 " msgs sent, %" PRIu64 " delivered here, %" PRIu64
	       " data frames (%.1f msgs/frame), %" PRIu64 " acks, %" PRIu64 " retransmits (%" PRIu64
	       " timeouts, %" PRIu64 " NAKs in), %" PRIu64 " duplicates, %" PRIu64
	       " reordered, %" PRIu64 " no-credit refusals, %" PRIu64 " injected losses, %" PRIu64
	       " malformed\n",
	       peer, s.msgs_sent, s.msgs_delivered, s.frames_sent,
	       s.frames_sent ? (double)s.msgs_sent / (double)s.frames_sent : 0.0, s.acks_sent,
	       s.retransmits, s.timeouts, s.naks_rx, s.duplicates, s.reordered, s.no_credit,
	       s.inj_lost, g.malformed);
}

static json_t *
conf_json(const char *transport)
{
	json_t *sizes = json_array();

	for (unsigned int i = 0; i < o.n_sizes; i++)
		json_array_append_new(sizes, json_integer(o.sizes[i]));
	return json_pack("{s:s, s:o, s:I, s:b, s:i, s:b, s:i, s:s, s:b, s:i}", "remote",
			 transport, "sizes", sizes, "msgs", (json_int_t)o.msgs, "msgs_given",
			 o.msgs_given, "pings", (int)o.pings, "pings_given", o.pings_given,
			 "loss_ppm",
			 (int)o.loss_ppm, "peer_lcores", o.peer_lcores, "bulk", o.bulk,
			 "timeout_s", (int)o.timeout_s);
}

/* One result per size that was measured. */
static json_t *
results_json(const struct result *res, unsigned int n)
{
	json_t *arr = json_array();

	for (unsigned int i = 0; i < n; i++) {
		const struct result *r = &res[i];
		char name[32];

		snprintf(name, sizeof(name), "%u B", r->size);
		json_array_append_new(arr, json_pack(
			"{s:s, s:i, s:{s:I, s:i, s:f, s:f, s:f, s:I}, s:{s:f, s:f, s:f, s:i, s:f}}",
			"name", name, "size", (int)r->size, "one_way", "msgs",
			(json_int_t)(o.msgs * r->passes), "passes", (int)r->passes, "ms", r->ms,
			"window_s", r->ms / 1e3, "mps", r->mps, "sink_count",
			(json_int_t)r->sink_count, "rtt_us", "p50", r->p50_us, "p99", r->p99_us,
			"p999", r->p999_us, "n", (int)r->pings, "window_s", r->ping_ms / 1e3));
	}
	return arr;
}

/* Node 1's record: the sizes against their floor, or why there is none;
 * written and the verdict printed last. */
static int
finish(json_t *record, const struct result *done, unsigned int n_done,
       const struct rb_floor_conf *fc, const struct rb_floor_round *fl, bool ok)
{
	json_t *res = results_json(done, n_done);
	const char *why = o.no_floor ? "not measured (--no-floor)" : rb_floor_none(fc->transport);
	size_t i;
	json_t *r;
	int ret;

	if (why == NULL && (!fl[0].ran || !fl[1].ran))
		why = "the floor did not run both rounds (see above)";
	if (why == NULL && ok) {
		rb_floor_judge(record, res, fc, done, fl);
	} else {
		json_array_foreach(res, i, r) {
			char what[64];

			snprintf(what, sizeof(what), "%u B one way over %s", done[i].size,
				 fc->transport);
			app_verdict_add(record, &(const struct app_verdict_row){
				.config = what, .kind = APP_VERDICT_RATE, .score = done[i].mps,
				.ci_half = NAN, .unit = "M msg/s",
				.no_floor_why = why != NULL ? why : "the run failed",
				.floor_moved_pct = NAN, .window_s = done[i].ms / 1e3,
			});
		}
	}
	json_array_foreach(res, i, r)
		app_result_add(record, json_incref(r));
	json_decref(res);
	ret = app_result_finish(record, ok, o.json_path);
	json_decref(record);
	return ret;
}

/* The floor's conf: the runtime's sizes and counts, node 1's main lcore's
 * CPU and node 2's first lcore (an lcore is its CPU there: -l). */
static void
floor_conf(const char *transport, struct rb_floor_conf *fc)
{
	*fc = (struct rb_floor_conf){
		.transport = transport, .sizes = o.sizes, .n_sizes = o.n_sizes, .msgs = o.msgs,
		.pings = o.pings, .timeout_s = o.timeout_s,
		.jumbo = pair.jumbo && strcmp(transport, "memif") == 0,
		.cpu = { lca_topo_lcore_cpu(rte_get_main_lcore()), atoi(o.peer_lcores) },
	};
}

/* What one run holds from its start to its record. */
struct rb_run {
	struct lca_remote_conf conf;
	lca_actor_id_t driver_id;
	struct driver *d;
	unsigned int lcore;
	struct rb_floor_conf fc;
	struct rb_floor_round fl[2];
	json_t *record;
	struct result done[MAX_SIZES]; /* the driver's, kept past the runtime */
	unsigned int n_done;
};

static bool
over_loopback(void)
{
	return strcmp(pair.transport, "ring") == 0;
}

/* The node a message to the sink and the echo goes to. */
static unsigned int
far_node(void)
{
	return over_loopback() ? 1 : 2;
}

static bool
floor_wanted(void)
{
	return !pair.is_peer && !o.no_floor && rb_floor_none(pair.transport) == NULL;
}

/* Node 1: the floor's first round, then node 2. */
static int
start_nodes(struct rb_run *r)
{
	r->lcore = rte_get_main_lcore();
	floor_conf(pair.transport, &r->fc);
	if (floor_wanted()) {
		/* Before node 2 busy-polls a CPU the floor uses. */
		printf("Floor, before: %s on CPUs %d and %d\n", rb_floor_name(r->fc.transport),
		       r->fc.cpu[0], r->fc.cpu[1]);
		rb_floor_run(&r->fc, &r->fl[0]);
	}
	if (pair.is_peer)
		return 0;
	/* Start the peer with its own -l (pair.peer_lcores). */
	app_pair_set_peer_lcores(&pair, o.peer_lcores);
	r->record = app_result_new(conf_json(pair.transport));
	app_report_machine(stdout);
	printf("EAL: %s\n", lca_eal_args());
	if (strcmp(pair.transport, "memif") == 0)
		printf("Node 1 on lcores %s, node 2 on lcores %s\n",
		       pair.self_lcores[0] ? pair.self_lcores : "?", o.peer_lcores);
	return app_pair_spawn(&pair);
}

static int
runtime_up(void)
{
	struct lca_runtime_conf rc = { .msgs_per_node = 131071 };

	payload_pool = rte_pktmbuf_pool_create("bench_payload", 16383, 256, 0,
					       RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	return payload_pool == NULL ? -ENOMEM : lca_runtime_init(&rc);
}

/* Node 2's sink and echo (or node 1's own, over a loopback), at known ids;
 * node 1's driver. */
static int
spawn_actors(struct rb_run *r)
{
	lca_actor_id_t id;
	int ret;

	if (pair.is_peer || over_loopback()) {
		if ((ret = spawn(rb_sink_handler, RB_SINK_STATE, r->lcore, &id)) != 0 ||
		    id != SINK_ID || (ret = spawn(rb_echo_handler, 0, r->lcore, &id)) != 0 ||
		    id != ECHO_ID) {
			fprintf(stderr, "sink and echo must be actors 0 and 1 (%d)\n", ret);
			return ret ? ret : -EINVAL;
		}
	}
	if (pair.is_peer)
		return 0;
	ret = spawn(driver_handler, sizeof(struct driver), r->lcore, &r->driver_id);
	if (ret != 0)
		return ret;
	r->d = lca_actor_state(r->driver_id);
	r->d->rtt_cap = o.pings;
	r->d->rtt = calloc(o.pings, sizeof(*r->d->rtt));
	if (r->d->rtt == NULL)
		return -ENOMEM;
	r->d->sink = lca_remote_ref(far_node(), SINK_ID);
	r->d->echo = lca_remote_ref(far_node(), ECHO_ID);
	return 0;
}

/* The actors, then the link. */
static int
actors_up(struct rb_run *r)
{
	int ret;

	app_pair_conf(&pair, &r->conf);
	r->conf.connect_ms = 20000;
	if (o.auth) {
		/* A benchmark's key, the same on both nodes (each gets the
		 * same arguments): never a deployment's. */
		r->conf.has_key = true;
		for (unsigned int i = 0; i < LCA_REMOTE_KEY_LEN; i++)
			r->conf.key[i] = (uint8_t)(0xa5 ^ i);
	}
	if (!pair.is_peer && o.loss_ppm > 0) {
		r->conf.inject.loss_ppm = o.loss_ppm;
		r->conf.inject.seed = 1;
	}
	ret = spawn_actors(r);
	if (ret == 0)
		ret = lca_remote_start(&r->conf);
	/* Node 1 hears of node 2's link going down and rejoining. */
	if (ret == 0 && !pair.is_peer && !over_loopback())
		ret = lca_remote_watch(r->driver_id, r->d->echo);
	return ret != 0 || pair.is_peer ? ret : app_pair_link_started(&pair);
}

/* Node 2: serve until node 1 goes, then let the last acks leave. */
static int
run_peer(struct rb_run *r)
{
	lca_actor_id_t w;
	int ret = spawn(rb_watcher_handler, 0, r->lcore, &w);

	if (ret == 0)
		ret = lca_remote_watch(w, lca_remote_ref(1, 0));
	if (ret != 0)
		return ret;
	ret = lca_runtime_run(o.timeout_s * 1000);
	if (ret == -ETIMEDOUT && rb_node1_down())
		printf("node 2: node 1 did not rejoin within --timeout (%u s)\n", o.timeout_s);
	/* The TX actors run in later loops; not after a signal: stop now. */
	if (!lca_eal_stop_requested()) {
		lca_runtime_run(20);
		for (int i = 0; i < 20 && !lca_remote_idle(); i++)
			lca_runtime_run(10);
	}
	return ret == -ETIMEDOUT ? ret : 0;
}

/* Node 2 starts and connects first: not part of any figure. */
static int
wait_connected(void)
{
	int ret = 0;

	for (unsigned int i = 0; i < 3000 && ret == 0; i++) {
		struct lca_remote_link_stats ls;

		if (lca_remote_link_stats_get(far_node(), &ls) == 0 && ls.connected)
			break;
		ret = lca_runtime_run(10);
		ret = ret == -ETIMEDOUT ? 0 : ret;
	}
	return ret;
}

/* The driver's go, and every figure measured under the frequency monitor. */
static int
measure(struct rb_run *r)
{
	struct lca_msg *go;
	int ret = lca_msg_alloc(&go);

	if (ret == 0) {
		go->type = T_GO;
		ret = lca_send(r->driver_id, go);
	}
	if (ret != 0)
		return ret;
	app_series_begin(&series, "remote-bench", 0);
	ret = lca_runtime_run(o.timeout_s * 1000);
	app_series_end(&series);
	printf("Frequency during the measurements (this process's lcores):\n");
	app_series_print_freq(stdout, &series);
	json_object_set_new(r->record, "frequency", app_series_freq_json(&series));
	app_series_release(&series);
	return ret;
}

static int
run_driver(struct rb_run *r)
{
	int ret;

	printf("Remote bench over %s: %" PRIu64 " one-way messages and %u round trips per "
	       "size%s\n",
	       pair.transport, o.msgs, o.pings,
	       o.loss_ppm ? " (with injected loss on node 1's frames)" : "");
	if (o.loss_ppm)
		printf("Injected loss: %u ppm of node 1's frames\n", o.loss_ppm);
	ret = wait_connected();
	if (ret == 0)
		ret = measure(r);
	for (int i = 0; i < 100 && !lca_remote_idle() && !lca_eal_stop_requested(); i++)
		lca_runtime_run(10);
	if (ret == 0 && (r->d->error != 0 || r->d->size_i != o.n_sizes))
		ret = r->d->error ? r->d->error : -EIO;
	print_links(far_node());
	if (r->d->pings_redone > 0)
		printf("Round trips sent again after a rejoin: %" PRIu64 " (their samples left out)\n",
		       r->d->pings_redone);
	rb_counts_print(far_node());
	if (r->record != NULL)
		json_object_set_new(r->record, "link_counts", rb_counts_json(far_node()));
	if (ret == 0)
		printf("All messages counted on both sides.\n");
	else if (ret != -EINTR) /* app_main() says "interrupted" */
		fprintf(stderr, "remote bench failed: %s\n", strerror(-ret));
	return ret;
}

/* Node 1, after its runtime: node 2's exit, the floor's second round, the
 * record. */
static int
finish_node1(struct rb_run *r, int ret)
{
	/* After a signal the peer sees node 1 go (or got the signal too): a
	 * short wait, then it is stopped. */
	int peer_status = app_pair_finish(&pair, lca_eal_stop_requested() ? 0 : 5000);

	if (!over_loopback()) {
		printf("Peer process exited with status %d\n", peer_status);
		if (ret == 0 && peer_status != 0)
			ret = -EIO;
	}
	if (ret == 0 && floor_wanted()) {
		printf("Floor, after: %s on CPUs %d and %d\n", rb_floor_name(r->fc.transport),
		       r->fc.cpu[0], r->fc.cpu[1]);
		rb_floor_run(&r->fc, &r->fl[1]);
	}
	if (r->record != NULL &&
	    finish(r->record, r->done, r->n_done, &r->fc, r->fl, ret == 0) < 0 && ret == 0)
		ret = -EIO;
	return ret;
}

static int
run(void *conf)
{
	static struct rb_run r;
	int ret;

	(void)conf;
	r = (struct rb_run){ .driver_id = LCA_ACTOR_NONE };
	ret = start_nodes(&r);
	if (ret != 0)
		return ret;
	ret = runtime_up();
	if (ret == 0) {
		ret = actors_up(&r);
		if (ret == 0) {
			ret = pair.is_peer ? run_peer(&r) : run_driver(&r);
			lca_remote_stop();
		}
		if (r.d != NULL) {
			r.n_done = RTE_MIN(r.d->size_i, o.n_sizes);
			memcpy(r.done, r.d->res, sizeof(r.done));
			free(r.d->rtt);
		}
		lca_runtime_cleanup();
	}
	if (!pair.is_peer)
		ret = finish_node1(&r, ret);
	rte_mempool_free(payload_pool);
	payload_pool = NULL;
	return ret;
}

int
main(int argc, char **argv)
{
	const struct app_spec app = {
		.name = "lca-remote-bench", .parse = parse_args, .opts = &table, .run = run,
		.conf = &o,
	};

	return app_pair_main(argc, argv, &pair, &app);
}
