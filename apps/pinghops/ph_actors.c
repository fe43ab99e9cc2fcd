/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The master and the workers, and one run.
 *
 * Nothing is lost: a send that finds a full mailbox or channel (-ENOBUFS)
 * is retried later, never dropped. The master sends the initial pings in
 * batches of PH_START_BATCH a turn and, when a send is refused, frees that
 * envelope and sends the same ping again on its next turn (a "continue"
 * message to itself keeps it scheduled, and the lcore's loop flushes the
 * channels in between). A worker whose forward is refused keeps the ping
 * in a backlog (a list threaded through the envelopes' ptr) and sends
 * itself one "flush" token; handling the token, it sends the backlog in
 * order until a send is refused again, and sends the token to itself again
 * while a backlog remains. Mailboxes hold every ping, so a send to itself
 * cannot be refused; any other failure stops the run and fails it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include "lca_eal.h"
#include "app_rng.h"
#include "pinghops.h"

#define MSG_START 1
#define MSG_CONTINUE 2
#define MSG_PING 3
#define MSG_DONE 4
#define MSG_FLUSH 5
#define MSG_QUIT 6
/* A remote run's bookkeeping between node 1 and each far node's quitter,
 * outside the timed part: reset the workers for run N (-> READY), report
 * the counts of the run just ended (-> COUNTS). */
#define MSG_RESET 7
#define MSG_READY 8
#define MSG_COUNT_REQ 9
#define MSG_COUNTS 10

#define MIN_MAILBOX 16384u
#define RUN_TIMEOUT_BASE_MS 30000
#define FAR_TIMEOUT_MS 10000

/* What a far node reports of a run: its workers' share of the counts. */
struct far_counts {
	uint64_t handled;
	uint64_t refused;
	uint64_t flushes;
	uint64_t mailbox_full;
	uint32_t other_failures;
	int32_t failure; /* its first failed send that was not -ENOBUFS, or 0 */
};
_Static_assert(sizeof(struct far_counts) <= LCA_MSG_INLINE, "far_counts fits a message");

struct ping {
	uint32_t hops;
	lca_actor_id_t to; /* in a backlog: where it goes */
};

struct worker {
	uint64_t rng;
	struct lca_msg *backlog_head; /* refused sends, oldest first */
	struct lca_msg *backlog_tail;
	struct lca_msg *token;        /* the flush token, while one is out */
	uint64_t refused;             /* sends refused with -ENOBUFS */
	uint64_t flushes;             /* flush tokens sent to itself */
};

struct master {
	uint64_t start_tsc;
	uint64_t end_tsc;
	uint32_t to_send;     /* initial pings still to send */
	uint32_t next_worker; /* who gets the next initial ping */
	uint32_t done;        /* pings heard of */
	uint64_t continues;
	uint64_t refused;     /* initial pings refused with -ENOBUFS (sent again) */
};

struct ph_bench {
	struct ph_conf conf;
	lca_actor_id_t master;
	lca_actor_id_t *workers;
	bool runtime_up;
	bool remote_up;
	unsigned int n_local;   /* workers in this process */
	lca_actor_id_t *targets; /* every worker, as this node reaches it */
	/* Remote run, node 1: the collector, and what it heard from the far
	 * nodes (written by it, read while the loops are stopped). */
	lca_actor_id_t collector;
	uint32_t far_want;       /* MSG_READY or MSG_COUNTS: the replies awaited */
	unsigned int far_got;    /* how many came */
	struct far_counts far;   /* the far nodes' counts, summed */
	/* A far node: its counters when node 1 said reset. */
	uint64_t far_w0;
	struct lca_send_errors far_e0;
	bool quit;
};

/* Read by every handler; written only while the loops are stopped. */
static const lca_actor_id_t *g_workers;
static lca_actor_id_t g_master;
static unsigned int g_n_workers;
static uint32_t g_pings;
static uint32_t g_hops;
static int g_failure; /* atomic: first failed send that was not -ENOBUFS */
static struct ph_bench *g_bench; /* for the quitter and the collector */

static void
run_failed(int err)
{
	int zero = 0;

	__atomic_compare_exchange_n(&g_failure, &zero, err, false, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
	lca_runtime_stop();
}

/* --- workers ------------------------------------------------------------- */

/* Keep a refused ping; make sure a flush token is on its way. */
static void
defer(struct worker *w, lca_actor_id_t self, lca_actor_id_t to, struct lca_msg *msg)
{
	((struct ping *)msg->data)->to = to;
	lca_msg_keep(msg);
	msg->ptr = NULL;
	if (w->backlog_tail != NULL)
		w->backlog_tail->ptr = msg;
	else
		w->backlog_head = msg;
	w->backlog_tail = msg;
	if (w->token != NULL)
		return;
	if (lca_msg_alloc(&w->token) < 0) {
		run_failed(-ENOMEM);
		return;
	}
	w->token->type = MSG_FLUSH;
	w->flushes++;
	if (lca_send(self, w->token) != 0)
		run_failed(-EIO);
}

static inline void
send_or_defer(struct worker *w, lca_actor_id_t self, lca_actor_id_t to, struct lca_msg *msg)
{
	int ret = lca_send(to, msg);

	if (likely(ret == 0))
		return;
	w->refused += ret == -ENOBUFS;
	if (ret == -ENOBUFS)
		defer(w, self, to, msg);
	else
		run_failed(ret);
}

/* The flush token: send the backlog until a send is refused. */
static void
flush(struct worker *w, lca_actor_id_t self, struct lca_msg *token)
{
	while (w->backlog_head != NULL) {
		struct lca_msg *m = w->backlog_head;
		struct lca_msg *next = m->ptr;
		int ret;

		/* The backlog's link is not the message's payload: a ping that
		 * crosses to another node must carry no ptr (lca_remote.h). */
		m->ptr = NULL;
		ret = lca_send(((struct ping *)m->data)->to, m);

		if (ret == -ENOBUFS) {
			m->ptr = next;
			w->refused++;
			w->flushes++;
			if (lca_send(self, token) != 0)
				run_failed(-EIO);
			return; /* the token goes round again */
		}
		if (ret != 0) {
			run_failed(ret);
			return;
		}
		w->backlog_head = next;
	}
	w->backlog_tail = NULL;
	w->token = NULL; /* the runtime frees it */
}

static void
worker_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct worker *w = state;
	struct ping *p = (struct ping *)msg->data;
	lca_actor_id_t to;

	if (unlikely(msg->type == MSG_FLUSH)) {
		flush(w, self, msg);
		return;
	}
	if (p->hops == 0) {
		msg->type = MSG_DONE;
		to = g_master;
	} else {
		p->hops--;
		to = g_workers[app_rng_below(&w->rng, g_n_workers)];
	}
	send_or_defer(w, self, to, msg);
}

/* --- master ---------------------------------------------------------------- */

/* Send up to PH_START_BATCH initial pings; if any are left, come back later. */
static void
spread(struct master *m, lca_actor_id_t self, struct lca_msg *msg)
{
	for (unsigned int batch = 0; m->to_send > 0 && batch < PH_START_BATCH; batch++) {
		struct lca_msg *ping;
		int ret = lca_msg_alloc(&ping);

		if (ret < 0) {
			run_failed(ret);
			return;
		}
		ping->type = MSG_PING;
		ping->len = sizeof(struct ping);
		((struct ping *)ping->data)->hops = g_hops;
		ret = lca_send(g_workers[m->next_worker], ping);
		if (ret < 0) {
			lca_msg_free(ping);
			if (ret != -ENOBUFS) {
				run_failed(ret);
				return;
			}
			m->refused++;
			break; /* the same ping to the same worker, next turn */
		}
		m->next_worker = m->next_worker + 1 == g_n_workers ? 0 : m->next_worker + 1;
		m->to_send--;
	}
	if (m->to_send > 0) {
		m->continues++;
		msg->type = MSG_CONTINUE;
		if (lca_send(self, msg) != 0)
			run_failed(-EIO);
	}
}

static void
master_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct master *m = state;

	switch (msg->type) {
	case MSG_DONE:
		if (++m->done == g_pings) {
			m->end_tsc = rte_rdtsc();
			lca_runtime_stop();
		}
		break;
	case MSG_START:
		m->start_tsc = rte_rdtsc();
		m->to_send = g_pings;
		/* fall through */
	case MSG_CONTINUE:
		spread(m, self, msg);
		break;
	default:
		run_failed(-EINVAL);
	}
}

/* --- remote bookkeeping ---------------------------------------------------- */

static void handled_now(const struct ph_bench *b, uint64_t *workers, uint64_t *master);
static void reset_workers(const struct ph_bench *b, unsigned int run, unsigned int first);

unsigned int
ph_node_workers(const struct ph_conf *c, unsigned int k)
{
	unsigned int n = c->remote_nodes;

	return c->workers / n + (k - 1 < c->workers % n);
}

/* The first worker of node @p k, by the number all nodes share. */
static unsigned int
node_first(const struct ph_conf *c, unsigned int k)
{
	unsigned int first = 0;

	for (unsigned int j = 1; j < k; j++)
		first += ph_node_workers(c, j);
	return first;
}

/* Node 1's ids as the far nodes reach them: workers 0 .. n1-1, the master
 * n1, the collector n1 + 1; a far node's quitter comes after its workers. */
static unsigned int
node1_workers(const struct ph_conf *c)
{
	return ph_node_workers(c, 1);
}

static lca_actor_id_t
far_quitter(const struct ph_conf *c, unsigned int k)
{
	return lca_remote_ref((uint16_t)k, ph_node_workers(c, k));
}

/* A far node: reset the workers for a run and take the counters' baseline. */
static void
far_reset(struct ph_bench *b, unsigned int run)
{
	uint64_t unused;

	reset_workers(b, run, node_first(&b->conf, b->conf.remote_node));
	handled_now(b, &b->far_w0, &unused);
	lca_send_errors_get(&b->far_e0);
	__atomic_store_n(&g_failure, 0, __ATOMIC_RELAXED);
}

/* A far node: its share of the run that just ended. */
static void
far_report(const struct ph_bench *b, struct far_counts *fc)
{
	struct lca_send_errors e;
	uint64_t unused;

	memset(fc, 0, sizeof(*fc));
	handled_now(b, &fc->handled, &unused);
	fc->handled -= b->far_w0;
	for (unsigned int i = 0; i < b->n_local; i++) {
		const struct worker *w = lca_actor_state(b->workers[i]);

		fc->refused += w->refused;
		fc->flushes += w->flushes;
	}
	lca_send_errors_get(&e);
	fc->mailbox_full = e.mailbox_full - b->far_e0.mailbox_full;
	fc->other_failures = (uint32_t)(e.no_actor - b->far_e0.no_actor + e.stopped -
					b->far_e0.stopped + e.pool_empty - b->far_e0.pool_empty);
	fc->failure = __atomic_load_n(&g_failure, __ATOMIC_RELAXED);
#ifdef PH_TEST_CORRUPT_COUNT
	/* The test build: one worker here claims a message it never had, so
	 * that the e2e test sees node 1's check catch a wrong far count. */
	fc->handled += 1;
#endif
}

/* A far node's quitter: resets and reports for node 1; node 1 says when
 * the experiment is over. */
static void
quit_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct ph_bench *b = g_bench;
	uint32_t run;

	(void)self;
	(void)state;
	switch (msg->type) {
	case MSG_RESET:
		memcpy(&run, msg->data, sizeof(run));
		far_reset(b, run);
		msg->type = MSG_READY;
		msg->len = 0;
		break;
	case MSG_COUNT_REQ:
		msg->type = MSG_COUNTS;
		msg->len = sizeof(struct far_counts);
		far_report(b, (struct far_counts *)msg->data);
		break;
	case MSG_QUIT:
	case LCA_TYPE_NODE_DOWN:
		b->quit = true;
		lca_runtime_stop();
		return;
	default:
		return;
	}
	if (lca_send(lca_remote_ref(1, node1_workers(&b->conf) + 1), msg) != 0)
		lca_msg_free(msg); /* node 1 times out and says so */
}

/* Add a far node's counts @p fc into @p sum. */
static void
far_add(struct far_counts *sum, const struct far_counts *fc)
{
	sum->handled += fc->handled;
	sum->refused += fc->refused;
	sum->flushes += fc->flushes;
	sum->mailbox_full += fc->mailbox_full;
	sum->other_failures += fc->other_failures;
	if (sum->failure == 0)
		sum->failure = fc->failure;
}

/* Node 1's collector: the far nodes' replies, until each has answered. */
static void
collect_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct ph_bench *b = g_bench;
	struct far_counts fc;

	(void)self;
	(void)state;
	if (msg->type != b->far_want)
		return;
	if (msg->type == MSG_COUNTS) {
		if (msg->len != sizeof(fc))
			return;
		memcpy(&fc, msg->data, sizeof(fc));
		far_add(&b->far, &fc);
	}
	if (++b->far_got == b->conf.remote_nodes - 1)
		lca_runtime_stop();
}

/* Node 1: ask every far node (@p type with @p run) and run the loops until
 * each answers @p reply. @return 0, or -EIO after a message. */
static int
far_ask(struct ph_bench *b, uint32_t type, uint32_t run, uint32_t reply)
{
	unsigned int far = b->conf.remote_nodes - 1;
	int ret;

	b->far_want = reply;
	b->far_got = 0;
	memset(&b->far, 0, sizeof(b->far));
	for (unsigned int k = 2; k <= b->conf.remote_nodes; k++) {
		struct lca_msg *m;

		ret = lca_msg_alloc(&m);
		if (ret < 0)
			return ret;
		m->type = type;
		m->len = sizeof(run);
		memcpy(m->data, &run, sizeof(run));
		ret = lca_send(far_quitter(&b->conf, k), m);
		if (ret < 0) {
			lca_msg_free(m);
			fprintf(stderr, "lca-pinghops: run %u: cannot reach node %u: %s\n", run, k,
				strerror(-ret));
			return -EIO;
		}
	}
	ret = lca_runtime_run(FAR_TIMEOUT_MS);
	if (ret == -EINTR)
		return ret;
	if (b->far_got != far) {
		fprintf(stderr, "lca-pinghops: run %u: %u of the %u other processes did not %s "
			"within %u ms\n", run, far - b->far_got, far,
			type == MSG_RESET ? "reset their workers" : "report their counts",
			FAR_TIMEOUT_MS);
		return -EIO;
	}
	return 0;
}

/* --- set-up ----------------------------------------------------------------- */

static int
spawn_one(struct lca_actor_spec *spec, lca_handler_fn h, size_t state, const char *name,
	  lca_actor_id_t *id)
{
	spec->handler = h;
	spec->state_size = state;
	spec->name = name;
	return lca_actor_spawn(spec, id);
}

/* This node's workers, then its master (node 2: a quitter in its place),
 * and node 1's collector of node 2's counts. */
static int
spawn_actors(struct ph_bench *b)
{
	const struct ph_conf *conf = &b->conf;
	struct lca_actor_spec spec = {
		.lcore = LCA_LCORE_ANY,
		.mailbox_size = RTE_MAX(MIN_MAILBOX, rte_align32pow2(conf->pings + 2)),
		.throughput = conf->throughput,
	};
	int ret = 0;

	b->n_local = conf->remote_node ? ph_node_workers(conf, conf->remote_node) : conf->workers;
	for (unsigned int i = 0; ret == 0 && i < b->n_local; i++)
		ret = spawn_one(&spec, worker_handler, sizeof(struct worker), "worker",
				&b->workers[i]);
	if (ret == 0 && conf->remote_node > 1)
		return spawn_one(&spec, quit_handler, 0, "quitter", &b->master);
	if (ret == 0)
		ret = spawn_one(&spec, master_handler, sizeof(struct master), "master", &b->master);
	if (ret == 0 && conf->remote_node == 1)
		ret = spawn_one(&spec, collect_handler, 0, "collector", &b->collector);
	return ret;
}

/* Every worker a ping may go to, in one order on every node: node k's
 * workers are its 0 .. nk-1, node 1's master its n1. Then the links. */
static int
link_nodes(struct ph_bench *b)
{
	const struct ph_conf *conf = &b->conf;
	unsigned int n1 = node1_workers(conf), node = 1, first = 0;
	int ret;

	for (unsigned int i = 0; i < conf->workers; i++) {
		lca_actor_id_t local;

		while (i - first >= ph_node_workers(conf, node))
			first += ph_node_workers(conf, node++);
		local = i - first;
		b->targets[i] = node == conf->remote_node ? b->workers[local]
							  : lca_remote_ref((uint16_t)node, local);
	}
	g_master = conf->remote_node == 1 ? b->master : lca_remote_ref(1, n1);
	ret = lca_remote_start(conf->remote);
	if (ret == 0 && conf->remote_node > 1)
		ret = lca_remote_watch(b->master, lca_remote_ref(1, n1));
	if (ret != 0)
		fprintf(stderr, "lca-pinghops: remote link: %s\n", strerror(-ret));
	b->remote_up = ret == 0;
	return ret;
}

int
ph_bench_create(const struct ph_conf *conf, struct ph_bench **out)
{
	struct lca_runtime_conf rc = {
		/* A remote run adds a link actor and a TX actor per lcore. */
		.max_actors = conf->workers + 2 + (conf->remote_node ? 2 * RTE_MAX_LCORE : 0),
		.placement = conf->placement,
		/* Every ping is an envelope in flight; the rest is cache slack. */
		.msgs_per_node = rte_align32pow2(conf->pings + 8192) - 1,
	};
	struct ph_bench *b = calloc(1, sizeof(*b));
	int ret;

	if (b == NULL)
		return -ENOMEM;
	b->conf = *conf;
	g_bench = b;
	b->workers = calloc(conf->workers, sizeof(*b->workers));
	ret = b->workers == NULL ? -ENOMEM : lca_runtime_init(&rc);
	if (ret < 0) {
		fprintf(stderr, "lca-pinghops: runtime init failed: %s\n", strerror(-ret));
		ph_bench_destroy(b);
		return ret;
	}
	b->runtime_up = true;
	ret = spawn_actors(b);
	if (ret < 0)
		fprintf(stderr, "lca-pinghops: cannot spawn the actors: %s\n", strerror(-ret));
	b->targets = ret == 0 ? calloc(conf->workers, sizeof(*b->targets)) : NULL;
	if (ret == 0 && b->targets == NULL)
		ret = -ENOMEM;
	if (ret == 0 && conf->remote_node == 0) {
		memcpy(b->targets, b->workers, conf->workers * sizeof(*b->targets));
		g_master = b->master;
	} else if (ret == 0) {
		ret = link_nodes(b);
	}
	if (ret < 0) {
		ph_bench_destroy(b);
		return ret;
	}
	g_workers = b->targets;
	g_n_workers = conf->workers;
	g_pings = conf->pings;
	g_hops = conf->hops;
	*out = b;
	return 0;
}

/* Pings a worker still kept when a run was cut short (a signal, a time
 * limit): the runtime does not know them, so it cannot free them. */
static void
free_backlog(struct worker *w)
{
	while (w->backlog_head != NULL) {
		struct lca_msg *next = w->backlog_head->ptr;

		w->backlog_head->ptr = NULL;
		lca_msg_free(w->backlog_head);
		w->backlog_head = next;
	}
	w->backlog_tail = NULL;
}

void
ph_bench_destroy(struct ph_bench *b)
{
	if (b == NULL)
		return;
	for (unsigned int i = 0; b->runtime_up && b->workers != NULL && i < b->n_local; i++) {
		struct worker *w = lca_actor_state(b->workers[i]);

		if (w != NULL)
			free_backlog(w);
	}
	if (b->remote_up)
		lca_remote_stop();
	if (b->runtime_up)
		lca_runtime_cleanup();
	if (g_bench == b)
		g_bench = NULL;
	free(b->workers);
	free(b->targets);
	free(b);
}

unsigned int
ph_bench_placement(const struct ph_bench *b, struct ph_place *out, unsigned int max)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i <= b->n_local && n < max; i++, n++) {
		bool master = i == b->n_local;
		lca_actor_id_t id = master ? b->master : b->workers[i];

		out[n] = (struct ph_place){ .id = id, .master = master, .index = i,
					    .lcore = (unsigned int)lca_actor_lcore(id) };
	}
	return n;
}

/* --- a run ---------------------------------------------------------------- */

static void
handled_now(const struct ph_bench *b, uint64_t *workers, uint64_t *master)
{
	struct lca_actor_stats s;

	*workers = 0;
	for (unsigned int i = 0; i < b->n_local; i++)
		if (lca_actor_stats_get(b->workers[i], &s) == 0)
			*workers += s.handled;
	*master = lca_actor_stats_get(b->master, &s) == 0 ? s.handled : 0;
}

/* This process's workers are @p first .. of all: each gets the stream of
 * its number, whichever process it is in. */
static void
reset_workers(const struct ph_bench *b, unsigned int run, unsigned int first)
{
	for (unsigned int i = 0; i < b->n_local; i++) {
		struct worker *w = lca_actor_state(b->workers[i]);

		/* Its own stream per worker and run, reproducible from --seed. */
		*w = (struct worker){
			.rng = app_rng_stream(b->conf.seed, ((uint64_t)run << 32) | (first + i)),
		};
	}
}

static void
reset_states(const struct ph_bench *b, unsigned int run)
{
	struct master *m = lca_actor_state(b->master);

	memset(m, 0, sizeof(*m));
	reset_workers(b, run, 0);
}

/* Compare every count with what the run must have done; say what differs. */
static int
account(const struct ph_bench *b, unsigned int run, struct ph_run *r)
{
	const struct master *m = lca_actor_state(b->master);
	uint64_t pings = b->conf.pings;

	r->cycles = m->end_tsc - m->start_tsc;
	r->master_refused = m->refused;
	r->continues = m->continues;
	r->worker_refused = 0;
	r->flushes = 0;
	for (unsigned int i = 0; i < b->n_local; i++) {
		const struct worker *w = lca_actor_state(b->workers[i]);

		r->worker_refused += w->refused;
		r->flushes += w->flushes;
	}
	if (b->conf.remote_node == 1) {
		/* The other workers, as the far nodes counted them. */
		r->far_handled = b->far.handled;
		r->far_refused = b->far.refused;
		r->far_flushes = b->far.flushes;
		r->worker_handled += b->far.handled;
		r->worker_refused += b->far.refused;
		r->flushes += b->far.flushes;
		r->mailbox_full += b->far.mailbox_full;
		r->other_failures += b->far.other_failures;
		if (b->far.failure != 0) {
			fprintf(stderr, "lca-pinghops: run %u: a send failed in %s: %s\n", run,
				b->conf.remote_nodes == 2 ? "the second process" : "another process",
				strerror(-b->far.failure));
			return -EIO;
		}
	}
	r->worker_expected = pings * ((uint64_t)b->conf.hops + 1) + r->flushes;
	r->master_expected = pings + 1 + r->continues;
	if (r->worker_handled == r->worker_expected && r->master_handled == r->master_expected &&
	    m->done == pings && r->mailbox_full == r->worker_refused + r->master_refused &&
	    r->other_failures == 0)
		return 0;
	fprintf(stderr,
		"lca-pinghops: run %u: count mismatch: workers handled %" PRIu64 " (expected %"
		PRIu64 "; %" PRIu64 " of them in %s), master handled %" PRIu64 " (expected %" PRIu64 "), pings done %" PRIu32
		" of %" PRIu64 ", full-mailbox refusals %" PRIu64 " (the actors saw %" PRIu64
		"), other send failures %" PRIu64 "\n",
		run, r->worker_handled, r->worker_expected, r->far_handled,
		b->conf.remote_nodes > 2 ? "the other processes" : "the second process",
		r->master_handled, r->master_expected,
		m->done, pings, r->mailbox_full, r->worker_refused + r->master_refused,
		r->other_failures);
	return -EIO;
}

int
ph_bench_run(struct ph_bench *b, unsigned int run, struct ph_run *out)
{
	uint64_t w0, m0, timeout_ms = RUN_TIMEOUT_BASE_MS +
		(uint64_t)b->conf.pings * ((uint64_t)b->conf.hops + 1) / 1000;
	struct lca_send_errors e0, e1;
	struct lca_msg *start;
	int ret;

	memset(out, 0, sizeof(*out));
	if (b->conf.remote_node == 1) {
		ret = far_ask(b, MSG_RESET, run, MSG_READY);
		if (ret < 0)
			return ret;
	}
	reset_states(b, run);
	__atomic_store_n(&g_failure, 0, __ATOMIC_RELAXED);
	handled_now(b, &w0, &m0);
	lca_send_errors_get(&e0);
	ret = lca_msg_alloc(&start);
	if (ret < 0)
		return ret;
	start->type = MSG_START;
	ret = lca_send(b->master, start);
	if (ret < 0) {
		lca_msg_free(start);
		return ret;
	}
	ret = lca_runtime_run(timeout_ms > UINT32_MAX ? 0 : (unsigned int)timeout_ms);
	if (ret == -ETIMEDOUT)
		fprintf(stderr, "lca-pinghops: run %u did not end in %" PRIu64 " ms\n", run,
			timeout_ms);
	if (ret < 0)
		return ret;
	ret = __atomic_load_n(&g_failure, __ATOMIC_RELAXED);
	if (ret != 0) {
		fprintf(stderr, "lca-pinghops: run %u: a send failed: %s\n", run, strerror(-ret));
		return -EIO;
	}
	handled_now(b, &out->worker_handled, &out->master_handled);
	out->worker_handled -= w0;
	out->master_handled -= m0;
	lca_send_errors_get(&e1);
	out->mailbox_full = e1.mailbox_full - e0.mailbox_full;
	out->other_failures = e1.no_actor - e0.no_actor + e1.stopped - e0.stopped +
			      e1.pool_empty - e0.pool_empty;
	if (b->conf.remote_node == 1) {
		ret = far_ask(b, MSG_COUNT_REQ, run, MSG_COUNTS);
		if (ret < 0)
			return ret;
	}
	return account(b, run, out);
}

int
ph_bench_serve(struct ph_bench *b, unsigned int timeout_ms)
{
	int ret;

	/* A failed send here stops the loops too (run_failed()): it is kept
	 * for the count report that node 1 asks for, and the loops go on. */
	do
		ret = lca_runtime_run(timeout_ms);
	while (ret == 0 && !b->quit);
	/* Let the last acks leave: the TX actors run in later loops. */
	lca_runtime_run(20);
	return ret;
}

void
ph_bench_quit_peer(struct ph_bench *b)
{
	struct lca_msg *m;

	if (b->conf.remote_node != 1 || lca_msg_alloc(&m) != 0)
		return;
	/* After a signal: no more loops (the other processes see this one
	 * go, or are stopped by app_pair_finish()). */
	if (lca_eal_stop_requested()) {
		lca_msg_free(m);
		return;
	}
	for (unsigned int k = 2; m != NULL && k <= b->conf.remote_nodes; k++) {
		m->type = MSG_QUIT;
		if (lca_send(far_quitter(&b->conf, k), m) != 0)
			lca_msg_free(m);
		if (k < b->conf.remote_nodes && lca_msg_alloc(&m) != 0)
			m = NULL;
	}
	for (int i = 0; i < 100 && (i < 2 || !lca_remote_idle()); i++)
		lca_runtime_run(10);
}
