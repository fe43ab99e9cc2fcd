/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Feeder threads that are not lcores (no lcore id) sending to one affinity
 * actor on lcore 1, so every message goes through that lcore's inbox (an
 * RTS ring), with the two lcores' loops running: 1, 2, 4, 8... threads and
 * the lcores on the lcores' CPUs. A watchdog hook on lcore 0 ends a run
 * that makes no progress for --stall-s seconds and says so, instead of
 * hanging; a feeder that does not return after the run is named.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_pause.h>

#include "app_result.h"
#include "lifecycle.h"

#define WATCH_MS 10

struct fd_msg {
	uint32_t feeder;
	uint32_t pad;
	uint64_t seq;
};

struct fd_rx {
	uint64_t next[LC_MAX_FEEDERS];
	uint64_t out_of_order;
};

struct feeder {
	unsigned int index;
	uint64_t sent;
	uint64_t retries; /* send refused (inbox full), tried again */
	uint64_t no_envelope;
	pthread_t th;
	bool started;
};

static struct {
	const struct lc_conf *c;
	lca_actor_id_t rx;
	uint64_t expected;
	uint64_t got;       /* atomic */
	uint64_t t_start, t_end;
	uint32_t go;        /* atomic: feeders may start */
	uint32_t quit;      /* atomic: feeders must stop */
	/* The watchdog's, on lcore 0. */
	uint64_t last_check, last_got, last_progress, max_gap;
	bool stalled;
} fd;

static void
rx_handler(lca_actor_id_t self, void *state, struct lca_msg *m)
{
	struct fd_rx *r = state;
	struct fd_msg v;

	(void)self;
	memcpy(&v, m->data, sizeof(v));
	if (v.feeder >= LC_MAX_FEEDERS || v.seq != r->next[v.feeder])
		r->out_of_order++;
	else
		r->next[v.feeder]++;
	if (__atomic_add_fetch(&fd.got, 1, __ATOMIC_RELEASE) == fd.expected) {
		fd.t_end = rte_rdtsc();
		lca_runtime_stop();
	}
}

static unsigned int
watchdog(unsigned int lcore_id, uint64_t now, void *arg)
{
	uint64_t got, hz = rte_get_tsc_hz();

	(void)lcore_id;
	(void)arg;
	if (!__atomic_load_n(&fd.go, __ATOMIC_RELAXED)) {
		fd.t_start = fd.last_check = fd.last_progress = now;
		__atomic_store_n(&fd.go, 1, __ATOMIC_RELEASE);
		return 0;
	}
	if (now - fd.last_check < hz / 1000 * WATCH_MS)
		return 0;
	fd.last_check = now;
	got = __atomic_load_n(&fd.got, __ATOMIC_ACQUIRE);
	if (got != fd.last_got) {
		fd.max_gap = RTE_MAX(fd.max_gap, now - fd.last_progress);
		fd.last_got = got;
		fd.last_progress = now;
	} else if (got < fd.expected && now - fd.last_progress > hz * fd.c->stall_s) {
		fd.max_gap = now - fd.last_progress;
		fd.stalled = true;
		lca_runtime_stop();
	}
	return 0;
}

static bool
quitting(void)
{
	return __atomic_load_n(&fd.quit, __ATOMIC_ACQUIRE) != 0;
}

static void *
feeder_main(void *arg)
{
	struct feeder *f = arg;
	uint64_t n = fd.c->per_feeder; /* the scenario's conf: calibrated, maybe */

	while (!__atomic_load_n(&fd.go, __ATOMIC_ACQUIRE) && !quitting())
		sched_yield();
	while (f->sent < n && !quitting()) {
		struct fd_msg v = { .feeder = f->index, .seq = f->sent };
		struct lca_msg *m;

		if (lca_msg_alloc(&m) != 0) {
			f->no_envelope++;
			sched_yield();
			continue;
		}
		m->type = 1;
		m->len = sizeof(v);
		memcpy(m->data, &v, sizeof(v));
		if (lca_send(fd.rx, m) != 0) {
			lca_msg_free(m);
			f->retries++;
			sched_yield();
			continue;
		}
		f->sent++;
	}
	return NULL;
}

/* The CPUs the lcores run on: the feeders get the same. */
static unsigned int
lcore_cpus(const struct lc_conf *c, cpu_set_t *set)
{
	CPU_ZERO(set);
	for (unsigned int i = 0; i < 2; i++) {
		rte_cpuset_t cs = rte_lcore_cpuset(c->lcore[i]);

		CPU_OR(set, set, &cs);
	}
	return (unsigned int)CPU_COUNT(set);
}

/* Join within 2 s; @return false for a feeder that did not return. */
static bool
join(struct feeder *f)
{
	struct timespec dl;

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 2;
	return pthread_timedjoin_np(f->th, NULL, &dl) == 0;
}

/* What one feeders run is and counted. */
struct fd_run {
	unsigned int n;           /* feeders */
	char name[64];
	unsigned int n_cpus;      /* the lcores' CPUs, the feeders' too */
	bool busy_lcores, exceed; /* lcores busy-poll; more threads than CPUs */
	uint64_t retries, no_env; /* the feeders' refusals and empty pools */
	struct fd_rx r;           /* the receiver's state at the end */
	struct lca_actor_stats st;
	double ms, rate;
	bool exact;
};

/* The feeder threads, on the lcores' CPUs. */
static int
start_feeders(struct feeder *f, unsigned int n, const cpu_set_t *cpus)
{
	pthread_attr_t attr;
	int ret = 0;

	pthread_attr_init(&attr);
	pthread_attr_setaffinity_np(&attr, sizeof(*cpus), cpus);
	for (unsigned int i = 0; i < n && ret == 0; i++) {
		f[i] = (struct feeder){ .index = i };
		ret = -pthread_create(&f[i].th, &attr, feeder_main, &f[i]);
		f[i].started = ret == 0;
		if (ret < 0)
			fprintf(stderr, APP ": cannot start feeder %u: %s\n", i, strerror(-ret));
	}
	pthread_attr_destroy(&attr);
	return ret;
}

static int
fd_measure(const struct lc_conf *c, const struct fd_run *run, struct app_series *series,
	   struct lc_outcome *o)
{
	int run_ret;

	printf("\n%s: %u thread%s without an lcore id x %" PRIu64 " messages to one "
	       "affinity actor on lcore %u (its inbox)\n", run->name, run->n,
	       run->n == 1 ? "" : "s", c->per_feeder, c->lcore[1]);
	printf("  %u feeder thread%s + 2 lcore threads (%s) on %u CPU%s: %s\n", run->n,
	       run->n == 1 ? "" : "s", run->busy_lcores ? "busy-polling" : "sleeping when idle",
	       run->n_cpus, run->n_cpus == 1 ? "" : "s",
	       run->exceed ? "threads exceed CPUs (forced preemption)" :
			     "no more threads than CPUs");
	lc_series_begin(series, run->name);
	run_ret = lca_runtime_run(0);
	lc_series_end(series, o);
	return run_ret;
}

/* Stop and join the feeders; @return how many did not return. */
static unsigned int
join_feeders(struct feeder *f, struct fd_run *run)
{
	unsigned int stuck = 0;

	__atomic_store_n(&fd.quit, 1, __ATOMIC_RELEASE);
	for (unsigned int i = 0; i < run->n; i++) {
		if (!f[i].started)
			continue;
		if (!join(&f[i])) {
			fprintf(stderr, APP ": %s: feeder %u did not return 2 s after the run: stuck in "
					"a send after %" PRIu64 " messages\n", run->name, i, f[i].sent);
			stuck++;
			continue;
		}
		f[i].started = false;
		run->retries += f[i].retries;
		run->no_env += f[i].no_envelope;
	}
	return stuck;
}

/* Every message once and in order, each feeder's; the rate. */
static void
fd_count(const struct lc_conf *c, const struct feeder *f, int run_ret, struct fd_run *run)
{
	run->r = *(struct fd_rx *)lca_actor_state(fd.rx);
	lca_actor_stats_get(fd.rx, &run->st);
	run->exact = !fd.stalled && run_ret == 0 && fd.got == fd.expected &&
		     run->r.out_of_order == 0 && run->st.handled == fd.expected;
	for (unsigned int i = 0; i < run->n; i++)
		run->exact &= run->r.next[i] == c->per_feeder && f[i].sent == c->per_feeder;
	if (fd.t_end > fd.t_start && fd.got == fd.expected) {
		run->ms = lc_cycles_to_ns(fd.t_end - fd.t_start, rte_get_tsc_hz()) / 1e6;
		run->rate = (double)fd.got / run->ms * 1e3;
	}
}

static void
fd_print(const struct lc_conf *c, const struct fd_run *run)
{
	if (fd.stalled) {
		printf("  STALLED: no message arrived for %u s; %" PRIu64 " of %" PRIu64 " in\n",
		       c->stall_s, fd.got, fd.expected);
	} else {
		lc_print_window("the run, first message to last", run->ms / 1e3);
		printf("  %" PRIu64 " messages in %.1f ms: %.0f msg/s (%.2f M msg/s); longest wait "
		       "for progress %.1f ms (watchdog: %u s): no stall\n", fd.got, run->ms,
		       run->rate, run->rate / 1e6,
		       lc_cycles_to_ns(fd.max_gap, rte_get_tsc_hz()) / 1e6, c->stall_s);
	}
	printf("  received %" PRIu64 " = %u x %" PRIu64 ", each feeder's in order, none twice "
	       "(%" PRIu64 " out of order); refused %" PRIu64 " (inbox full, sent again), "
	       "no envelope %" PRIu64 ", receiver's rejected %" PRIu64 ": %s\n",
	       fd.got, run->n, c->per_feeder, run->r.out_of_order, run->retries, run->no_env,
	       run->st.rejected, run->exact ? "exact" : "NOT exact");
}

static json_t *
fd_json(const struct lc_conf *c, const struct fd_run *run, struct app_series *series)
{
	json_t *j = json_pack(
		"{s:s, s:s, s:i, s:I, s:I, s:I, s:f, s:f, s:f, s:b, s:f, s:i, s:b, s:b, "
		"s:I, s:I, s:I, s:I, s:b, s:o}",
		"name", run->name, "bench", "feeders", "feeders", (int)run->n, "per_feeder",
		(json_int_t)c->per_feeder, "expected", (json_int_t)fd.expected, "received",
		(json_int_t)fd.got, "elapsed_ms", run->ms, "window_s", run->ms / 1e3, "msg_per_s",
		run->rate, "stalled", fd.stalled, "longest_gap_ms",
		lc_cycles_to_ns(fd.max_gap, rte_get_tsc_hz()) / 1e6, "cpus", (int)run->n_cpus,
		"threads_exceed_cpus", run->exceed, "busy_polling_lcores", run->busy_lcores,
		"out_of_order", (json_int_t)run->r.out_of_order, "refused", (json_int_t)run->retries,
		"no_envelope", (json_int_t)run->no_env, "rejected", (json_int_t)run->st.rejected,
		"exact", run->exact, "frequency", app_series_freq_json(series));

	if (run->rate > 0)
		json_object_set_new(j, "throughput",
				    app_result_measure_of(&run->rate, 1, 0.999, "msg/s"));
	return j;
}

static int
scenario(const struct lc_conf *c, unsigned int n, struct lc_outcome *o)
{
	static struct feeder f[LC_MAX_FEEDERS];
	struct lca_lcore_hook hook = { .poll = watchdog };
	struct app_series series = { 0 };
	struct fd_run run = { .n = n, .busy_lcores = c->idle != LCA_IDLE_SLEEP };
	cpu_set_t cpus;
	unsigned int stuck;
	bool hook_added;
	int ret, run_ret = 0;

	memset(&fd, 0, sizeof(fd));
	fd.c = c;
	fd.expected = (uint64_t)n * c->per_feeder;
	run.n_cpus = lcore_cpus(c, &cpus);
	run.exceed = n + 2 > run.n_cpus;
	snprintf(run.name, sizeof(run.name), "feeders %u", n);
	ret = lc_runtime_up(c, 0);
	if (ret < 0)
		return ret;
	ret = lc_spawn(rx_handler, sizeof(struct fd_rx), NULL, NULL, c->lcore[1], 1024,
		       "feeders' receiver", &fd.rx);
	if (ret == 0)
		ret = lca_lcore_hook_add(c->lcore[0], &hook);
	hook_added = ret == 0;
	if (ret == 0)
		ret = start_feeders(f, n, &cpus);
	if (ret == 0)
		run_ret = fd_measure(c, &run, &series, o);
	stuck = join_feeders(f, &run);
	if (hook_added)
		lca_lcore_hook_remove(c->lcore[0], &hook);
	if (ret < 0 || lc_interrupted(run_ret) || stuck > 0) {
		/* A stuck thread may still touch the runtime: leave it up. */
		if (stuck == 0)
			lca_runtime_cleanup();
		app_series_release(&series);
		return ret < 0 ? ret : stuck > 0 ? -EDEADLK : run_ret;
	}
	fd_count(c, f, run_ret, &run);
	fd_print(c, &run);
	json_array_append_new(o->results, fd_json(c, &run, &series));
	o->exact &= run.exact;
	app_series_release(&series);
	lca_runtime_cleanup();
	return fd.stalled ? -ETIMEDOUT : run_ret;
}

int
lc_bench_feeders(const struct lc_conf *c, struct lc_outcome *o)
{
	int ret = 0;

	printf("\n== feeders: non-EAL threads (no lcore id) sending to one affinity actor; "
	       "the lcores' loops run with idle policy %s\n", lca_idle_policy_name(c->idle));
	for (unsigned int i = 0; i < c->n_feeders && ret == 0; i++)
		ret = lc_run_windowed(c, scenario, c->feeders[i], o,
				      offsetof(struct lc_conf, per_feeder), c->per_feeder_given, 1);
	return ret;
}
