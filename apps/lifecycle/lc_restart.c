/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Restart latency under load. A producer on lcore 0 sends numbered
 * messages to a worker on lcore 1 (supervision: restart); every K-th one
 * makes the worker's handler call lca_actor_fail(), after writing the TSC
 * of that call where the worker's next handler call finds it. The restart
 * re-runs state_init, which marks the fresh state; the first message the
 * fresh state handles records the latency. A supervisor on lcore 0 counts
 * the LCA_TYPE_FAILED notices and keeps the pauses they give. Load
 * actors keep both lcores busy.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>

#include "app_report.h"
#include "lifecycle.h"

#define RS_BURST 32
#define RS_KEEP 64 /* per-failure figures kept for the backoff variant */

enum {
	RS_GO = 1,
	RS_NUM,
	/* After the last RS_NUM: the worker's next message after a failure of
	 * the last one, so that its restart is measured too. */
	RS_CLOSE,
};

struct rs_worker {
	bool fresh;
};

struct rs_producer {
	uint64_t next;
	uint64_t refused;
	bool closed; /* RS_CLOSE sent */
};

static struct {
	uint64_t messages, fail_every;
	lca_actor_id_t worker, supervisor;
	uint64_t hz;
	/* The worker's lcore only. */
	uint64_t fail_tsc;
	uint64_t handled_ok;
	uint64_t out_of_order;
	uint64_t measured;       /* restarts whose latency was recorded */
	struct app_hdr lat;
	double lat_us[RS_KEEP];  /* latency of failure i, i < RS_KEEP */
	/* Read across lcores. */
	uint64_t next_expected;  /* atomic */
	uint64_t injected;       /* atomic */
	uint64_t inits;          /* atomic: state_init calls */
	uint64_t close_seen;     /* atomic: the worker handled RS_CLOSE */
	/* The supervisor's lcore only. */
	uint64_t notices;        /* atomic (read by the worker) */
	uint64_t bad_notices;
	uint32_t pause_us[RS_KEEP];
	uint64_t stalled_go;
} rs;

static void
maybe_done(void)
{
	if (__atomic_load_n(&rs.next_expected, __ATOMIC_SEQ_CST) == rs.messages &&
	    __atomic_load_n(&rs.close_seen, __ATOMIC_SEQ_CST) != 0 &&
	    __atomic_load_n(&rs.notices, __ATOMIC_SEQ_CST) ==
		    __atomic_load_n(&rs.injected, __ATOMIC_SEQ_CST))
		lca_runtime_stop();
}

static void
worker_init(void *state, void *arg)
{
	struct rs_worker *w = state;

	(void)arg;
	w->fresh = true;
	__atomic_fetch_add(&rs.inits, 1, __ATOMIC_RELAXED);
}

static void
worker(lca_actor_id_t self, void *state, struct lca_msg *m)
{
	struct rs_worker *w = state;
	uint64_t now = rte_rdtsc(), seq, expect;

	(void)self;
	if (m->type == LC_TYPE_LOAD) {
		lc_load_bounce(m);
		return;
	}
	if (w->fresh) {
		w->fresh = false;
		if (rs.fail_tsc != 0) {
			uint64_t k = __atomic_load_n(&rs.injected, __ATOMIC_RELAXED) - 1;
			double ns = lc_cycles_to_ns(now - rs.fail_tsc, rs.hz);

			app_hdr_record(&rs.lat, (int64_t)ns);
			if (k < RS_KEEP)
				rs.lat_us[k] = ns / 1000.0;
			rs.fail_tsc = 0;
			rs.measured++;
		}
	}
	if (m->type == RS_CLOSE) {
		__atomic_store_n(&rs.close_seen, 1, __ATOMIC_SEQ_CST);
		maybe_done();
		return;
	}
	memcpy(&seq, m->data, sizeof(seq));
	expect = __atomic_load_n(&rs.next_expected, __ATOMIC_RELAXED);
	if (seq != expect)
		rs.out_of_order++;
	if ((seq + 1) % rs.fail_every == 0) {
		__atomic_fetch_add(&rs.injected, 1, __ATOMIC_SEQ_CST);
		rs.fail_tsc = rte_rdtsc();
		lca_actor_fail((int)(seq & INT32_MAX));
	} else {
		rs.handled_ok++;
	}
	__atomic_store_n(&rs.next_expected, seq + 1, __ATOMIC_SEQ_CST);
	maybe_done();
}

static void
supervisor(lca_actor_id_t self, void *state, struct lca_msg *m)
{
	struct lca_failure f;
	uint64_t n;

	(void)self;
	(void)state;
	if (m->type != LCA_TYPE_FAILED || m->len < sizeof(f)) {
		rs.bad_notices++;
		return;
	}
	memcpy(&f, m->data, sizeof(f));
	n = __atomic_add_fetch(&rs.notices, 1, __ATOMIC_SEQ_CST);
	if (f.actor != rs.worker || f.action != LCA_SUPERVISE_RESTART || f.restarts != n ||
	    (m->flags & LCA_MSG_F_CONTROL) == 0)
		rs.bad_notices++;
	if (n - 1 < RS_KEEP)
		rs.pause_us[n - 1] = f.backoff_us;
	maybe_done();
}

static void
producer(lca_actor_id_t self, void *state, struct lca_msg *m)
{
	struct rs_producer *p = state;

	for (unsigned int i = 0; i < RS_BURST && p->next < rs.messages; i++) {
		struct lca_msg *n;

		if (lca_msg_alloc(&n) != 0)
			break;
		n->type = RS_NUM;
		n->len = sizeof(p->next);
		memcpy(n->data, &p->next, sizeof(p->next));
		if (lca_send(rs.worker, n) != 0) {
			lca_msg_free(n);
			p->refused++;
			break;
		}
		p->next++;
	}
	if (p->next == rs.messages && !p->closed) {
		struct lca_msg *n;

		if (lca_msg_alloc(&n) == 0) {
			n->type = RS_CLOSE;
			n->len = 0;
			p->closed = lca_send(rs.worker, n) == 0;
			if (!p->closed) {
				lca_msg_free(n);
				p->refused++;
			}
		}
	}
	if ((p->next < rs.messages || !p->closed) && lca_send(self, m) != 0)
		rs.stalled_go++;
}

/* What a restart run counted, read after it. */
struct rs_figures {
	const char *name;
	unsigned int backoff;
	struct lca_actor_stats wst;
	struct rs_producer pst;
	uint64_t injected, expect_ok;
	double window_s;
	bool exact;
};

/* The supervisor and the producer on lcore 0, the worker under @p sup on
 * lcore 1, the load on both, and the producer's first GO. */
static int
rs_start(const struct lc_conf *c, struct lca_supervision *sup, lca_actor_id_t *prod)
{
	struct lca_actor_spec ws = {
		.handler = worker, .state_size = sizeof(struct rs_worker), .state_init = worker_init,
		.lcore = c->lcore[1], .name = "worker", .supervision = sup,
	};
	struct lca_msg *go;
	int ret = lc_spawn(supervisor, 0, NULL, NULL, c->lcore[0], 1024, "supervisor",
			   &rs.supervisor);

	sup->supervisor = rs.supervisor;
	if (ret == 0) {
		ret = lca_actor_spawn(&ws, &rs.worker);
		if (ret < 0)
			fprintf(stderr, APP ": cannot spawn the worker: %s\n", strerror(-ret));
	}
	if (ret == 0)
		ret = lc_spawn(producer, sizeof(struct rs_producer), NULL, NULL, c->lcore[0], 1024,
			       "producer", prod);
	if (ret == 0)
		ret = lc_load_start(c, NULL);
	if (ret == 0)
		ret = lca_msg_alloc(&go);
	if (ret == 0) {
		go->type = RS_GO;
		go->len = 0;
		ret = lca_send(*prod, go);
		if (ret < 0)
			lca_msg_free(go);
	}
	return ret;
}

/* The stream under the frequency monitor, with a generous time limit. */
static int
rs_run(const struct lc_conf *c, struct rs_figures *f, struct app_series *series,
       struct lc_outcome *o)
{
	/* ~1 us a message under load, and the pauses. */
	unsigned int limit = (unsigned int)RTE_MIN(30000 + rs.messages / 10 +
		(f->backoff ? rs.messages / c->fail_every * 2 : 0), 3600000ull);
	uint64_t t0;
	int run_ret;

	printf("\n%s: %" PRIu64 " messages, every %" PRIu64 "th fails\n", f->name, rs.messages,
	       c->fail_every);
	lc_series_begin(series, f->name);
	t0 = rte_rdtsc();
	run_ret = lca_runtime_run(limit);
	f->window_s = (double)(rte_rdtsc() - t0) / (double)rte_get_tsc_hz();
	lc_series_end(series, o);
	if (run_ret == -ETIMEDOUT) {
		fprintf(stderr, APP ": %s: not done after %u ms: %" PRIu64 " of %" PRIu64
				" messages, %" PRIu64 " of %" PRIu64 " notices\n", f->name, limit,
			rs.next_expected, rs.messages, rs.notices, rs.injected);
		printf("  not done: the actors at the time limit:\n");
		app_report_actors(stdout);
	}
	return run_ret;
}

/* Every count the run must have exactly. */
static void
rs_count(const struct lc_conf *c, lca_actor_id_t prod, int run_ret, struct rs_figures *f)
{
	lca_actor_stats_get(rs.worker, &f->wst);
	f->pst = *(struct rs_producer *)lca_actor_state(prod);
	f->injected = rs.injected;
	f->expect_ok = rs.messages - rs.messages / c->fail_every;
	f->exact = run_ret == 0 && f->injected == rs.messages / c->fail_every &&
		   f->wst.failed_msgs == f->injected && f->wst.failures == f->injected &&
		   f->wst.restarts == f->injected && rs.notices == f->injected &&
		   rs.bad_notices == 0 && rs.handled_ok == f->expect_ok && rs.out_of_order == 0 &&
		   rs.inits == f->injected + 1 && rs.stalled_go == 0 &&
		   rs.measured == f->injected && f->wst.handled == rs.messages + 1;
}

static void
rs_print_counts(const struct lc_conf *c, const struct rs_figures *f)
{
	lc_hdr_print("restart latency:", &rs.lat);
	lc_hdr_export(c, f->backoff ? "restart-backoff" : "restart", &rs.lat);
	lc_print_window("the stream, first message to last notice,", f->window_s);
	printf("  (from the lca_actor_fail() call to the first message the re-initialised state "
	       "handles%s; the last failure's is measured at a closing message)\n",
	       f->backoff ? ", the pause included" : "");
	printf("  injected failures %" PRIu64 ": failed_msgs %" PRIu64 ", failures %" PRIu64
	       ", restarts %" PRIu64 ", state_init runs %" PRIu64 " (1 + restarts), "
	       "LCA_TYPE_FAILED notices %" PRIu64 " (%" PRIu64 " wrong): %s\n",
	       f->injected, f->wst.failed_msgs, f->wst.failures, f->wst.restarts, rs.inits,
	       rs.notices, rs.bad_notices, f->exact ? "exact" : "NOT exact");
	printf("  other messages: %" PRIu64 " of %" PRIu64 " handled once, in order "
	       "(%" PRIu64 " out of order); handled %" PRIu64 " = sent %" PRIu64 " + 1 closing; "
	       "producer refused %" PRIu64 " times (mailbox full, retried): %s\n",
	       rs.handled_ok, f->expect_ok, rs.out_of_order, f->wst.handled, f->pst.next,
	       f->pst.refused,
	       rs.handled_ok == f->expect_ok && rs.out_of_order == 0 ? "nothing lost" : "LOST");
}

/* The first failures' pauses and latencies into @p pauses and @p lats;
 * with a backoff, printed, and whether the pause doubled as it should. */
static bool
rs_pauses(const struct rs_figures *f, json_t *pauses, json_t *lats)
{
	uint64_t kept = RTE_MIN(f->injected, (uint64_t)RS_KEEP);
	bool doubling = true;

	for (uint64_t i = 0; i < kept; i++) {
		uint64_t shift = RTE_MIN(i, 20ull);
		uint32_t want = f->backoff ? (uint32_t)RTE_MIN(100ull << shift, 1000ull) : 0;

		doubling &= rs.pause_us[i] == want;
		json_array_append_new(pauses, json_integer(rs.pause_us[i]));
		json_array_append_new(lats, rs.lat_us[i] > 0 ? json_real(rs.lat_us[i]) : json_null());
	}
	if (!f->backoff)
		return true;
	printf("  pauses in the notices (us%s):",
	       f->injected > RS_KEEP ? ", the first " RTE_STR(RS_KEEP) : "");
	for (uint64_t i = 0; i < kept; i++)
		printf(" %u", rs.pause_us[i]);
	printf("\n  restart latency each (us%s):",
	       f->injected > RS_KEEP ? ", the first " RTE_STR(RS_KEEP) : "");
	for (uint64_t i = 0; i < kept; i++)
		if (rs.lat_us[i] > 0)
			printf(" %.0f", rs.lat_us[i]);
		else
			printf(" -");
	printf("\n  the pause doubles from 100 us up to 1000 us: %s\n", doubling ? "yes" : "NO");
	return doubling;
}

static json_t *
rs_json(const struct lc_conf *c, const struct rs_figures *f, json_t *pauses, json_t *lats,
	struct app_series *series)
{
	return json_pack(
		"{s:s, s:s, s:b, s:I, s:I, s:f, s:o, s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
		"s:I}, s:o, s:o, s:b, s:o}",
		"name", f->name, "bench", "restart", "backoff", f->backoff, "messages",
		(json_int_t)rs.messages, "fail_every", (json_int_t)c->fail_every, "window_s",
		f->window_s, "restart_latency", lc_hdr_json(&rs.lat),
		"counts", "injected", (json_int_t)f->injected, "failed_msgs",
		(json_int_t)f->wst.failed_msgs, "failures", (json_int_t)f->wst.failures, "restarts",
		(json_int_t)f->wst.restarts, "state_inits", (json_int_t)rs.inits, "notices",
		(json_int_t)rs.notices, "bad_notices", (json_int_t)rs.bad_notices, "handled_ok",
		(json_int_t)rs.handled_ok, "expected_ok", (json_int_t)f->expect_ok, "out_of_order",
		(json_int_t)rs.out_of_order, "producer_refused", (json_int_t)f->pst.refused,
		"pauses_us", pauses, "latency_us_each", lats, "exact", f->exact, "frequency",
		app_series_freq_json(series));
}

static int
scenario(const struct lc_conf *c, unsigned int backoff, struct lc_outcome *o)
{
	struct rs_figures f = {
		.name = backoff ? "restart, backoff 100..1000 us" : "restart, no backoff",
		.backoff = backoff,
	};
	struct lca_supervision sup = {
		.strategy = LCA_SUPERVISE_RESTART,
		.max_restarts = 1000000,
		.within_ms = backoff ? 60000 : 1000,
		.backoff_min_us = backoff ? 100 : 0,
		.backoff_max_us = backoff ? 1000 : 0,
	};
	struct app_series series = { 0 };
	json_t *pauses, *lats;
	lca_actor_id_t prod;
	int ret, run_ret;

	memset(&rs, 0, sizeof(rs));
	rs.hz = rte_get_tsc_hz();
	rs.fail_every = c->fail_every;
	/* One more than the failures need, so that each has a message after it. */
	rs.messages = backoff ? (uint64_t)c->backoff_failures * c->fail_every + 1 : c->messages;
	ret = lc_hdr_init(&rs.lat);
	ret = ret ? ret : lc_runtime_up(c, 64);
	if (ret < 0) {
		app_hdr_free(&rs.lat);
		return ret;
	}
	ret = rs_start(c, &sup, &prod);
	run_ret = ret == 0 ? rs_run(c, &f, &series, o) : 0;
	if (ret == 0 && lc_interrupted(run_ret)) {
		ret = run_ret;
	} else if (ret == 0) {
		rs_count(c, prod, run_ret, &f);
		rs_print_counts(c, &f);
		pauses = json_array();
		lats = json_array();
		f.exact &= rs_pauses(&f, pauses, lats);
		json_array_append_new(o->results, rs_json(c, &f, pauses, lats, &series));
		o->exact &= f.exact;
		ret = run_ret < 0 ? run_ret : 0;
	}
	app_series_release(&series);
	lca_runtime_cleanup();
	app_hdr_free(&rs.lat);
	return ret;
}

int
lc_bench_restart(const struct lc_conf *c, struct lc_outcome *o)
{
	int ret;

	printf("\n== restart: worker on lcore %u (supervision restart, max_restarts 1000000), "
	       "producer and supervisor on lcore %u, load on both\n", c->lcore[1], c->lcore[0]);
	/* The stream without pauses is as long as the machine is fast: its
	 * default count is calibrated; with them, the pauses' sum (at least
	 * a ms each from the fifth) makes the default's 250 failures long
	 * enough anywhere. */
	ret = lc_run_windowed(c, scenario, 0, o, offsetof(struct lc_conf, messages),
			      c->messages_given, c->fail_every);
	if (ret == 0)
		ret = scenario(c, 1, o);
	return ret;
}
