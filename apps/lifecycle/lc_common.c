/* SPDX-License-Identifier: BSD-3-Clause */
/* What the three benches share: the runtime, the load, series, histograms. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>

#include "app_hgrm.h"
#include "app_window.h"
#include "lifecycle.h"

/* Reruns of a scenario whose default count fell short of its window. */
#define LC_WINDOW_TRIES 3

static uint64_t load_lost;

int
lc_runtime_up(const struct lc_conf *c, unsigned int max_timers)
{
	struct lca_runtime_conf rc = {
		.max_timers = max_timers,
		.idle = c->idle,
		.idle_sleep_after = 1000,
		.idle_sleep_us = c->sleep_us,
	};
	int ret = lca_runtime_init(&rc);

	if (ret < 0)
		fprintf(stderr, APP ": runtime: %s\n", strerror(-ret));
	load_lost = 0;
	return ret;
}

int
lc_spawn(lca_handler_fn h, size_t state_size, void (*init)(void *, void *), void *arg,
	 unsigned int lcore, unsigned int mailbox, const char *name, lca_actor_id_t *id)
{
	struct lca_actor_spec spec = {
		.handler = h, .state_size = state_size, .state_init = init, .state_arg = arg,
		.lcore = lcore, .mailbox_size = mailbox, .name = name,
	};
	int ret = lca_actor_spawn(&spec, id);

	if (ret < 0)
		fprintf(stderr, APP ": cannot spawn %s on lcore %u: %s\n", name, lcore,
			strerror(-ret));
	return ret;
}

void
lc_load_bounce(struct lca_msg *m)
{
	/* A refused reply is freed by the runtime when the handler returns:
	 * the load shrinks by one, counted, nothing else. */
	if (lca_reply(m) != 0)
		__atomic_fetch_add(&load_lost, 1, __ATOMIC_RELAXED);
}

uint64_t
lc_load_lost(void)
{
	return __atomic_load_n(&load_lost, __ATOMIC_RELAXED);
}

static void
load_handler(lca_actor_id_t self, void *state, struct lca_msg *m)
{
	(void)self;
	(void)state;
	lc_load_bounce(m);
}

/* @p n messages that ping-pong between @p a and @p b, half started each way. */
int
lc_load_seed(lca_actor_id_t a, lca_actor_id_t b, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		struct lca_msg *m;
		int ret = lca_msg_alloc(&m);

		if (ret < 0)
			return ret;
		m->type = LC_TYPE_LOAD;
		m->len = 0;
		ret = i & 1 ? lca_send_from(a, b, m) : lca_send_from(b, a, m);
		if (ret < 0) {
			lca_msg_free(m);
			fprintf(stderr, APP ": cannot seed the load: %s\n", strerror(-ret));
			return ret;
		}
	}
	return 0;
}

int
lc_load_start(const struct lc_conf *c, const lca_actor_id_t *cross)
{
	lca_actor_id_t ids[6];
	int ret = 0;

	if (cross != NULL) {
		ids[0] = cross[0];
		ids[1] = cross[1];
	} else {
		ret = lc_spawn(load_handler, 0, NULL, NULL, c->lcore[0], 1024, "load x0", &ids[0]);
		if (ret == 0)
			ret = lc_spawn(load_handler, 0, NULL, NULL, c->lcore[1], 1024, "load x1",
				       &ids[1]);
	}
	for (unsigned int i = 0; i < 2 && ret == 0; i++) {
		ret = lc_spawn(load_handler, 0, NULL, NULL, c->lcore[i], 1024,
			       i ? "load l1a" : "load l0a", &ids[2 + 2 * i]);
		if (ret == 0)
			ret = lc_spawn(load_handler, 0, NULL, NULL, c->lcore[i], 1024,
				       i ? "load l1b" : "load l0b", &ids[3 + 2 * i]);
	}
	if (ret == 0)
		ret = lc_load_seed(ids[0], ids[1], LC_LOAD_CROSS);
	if (ret == 0)
		ret = lc_load_seed(ids[2], ids[3], LC_LOAD_LOCAL);
	if (ret == 0)
		ret = lc_load_seed(ids[4], ids[5], LC_LOAD_LOCAL);
	return ret;
}

void
lc_series_begin(struct app_series *s, const char *label)
{
	fflush(stdout);
	app_series_begin(s, label, 0);
}

void
lc_series_end(struct app_series *s, struct lc_outcome *o)
{
	char verdict[256];

	app_series_end(s);
	app_series_verdict_text(s, verdict, sizeof(verdict));
	printf("  clock: %s\n", verdict);
	if (o->total != NULL)
		app_freq_total_add(o->total, s);
}

int
lc_hdr_init(struct app_hdr *h)
{
	return app_hdr_init(h, 100LL * 1000 * 1000 * 1000, 3);
}

static double
us_at(const struct app_hdr *h, double p)
{
	return (double)app_hdr_value_at(h, p) / 1000.0;
}

void
lc_hdr_print(const char *what, const struct app_hdr *h)
{
	if (h->total == 0) {
		printf("  %-22s none recorded\n", what);
		return;
	}
	printf("  %-22s p50 %9.1f  p99 %9.1f  p99.9 %9.1f  max %9.1f  mean %9.1f us  (n %" PRId64
	       ")\n", what, us_at(h, 50), us_at(h, 99), us_at(h, 99.9), (double)h->max / 1000.0,
	       app_hdr_mean(h) / 1000.0, h->total);
}

json_t *
lc_hdr_json(const struct app_hdr *h)
{
	if (h->total == 0)
		return json_pack("{s:s, s:I}", "unit", "us", "n", (json_int_t)0);
	return json_pack("{s:s, s:I, s:f, s:f, s:f, s:f, s:f, s:f}", "unit", "us", "n",
			 (json_int_t)h->total, "p50", us_at(h, 50), "p99", us_at(h, 99), "p99_9",
			 us_at(h, 99.9), "max", (double)h->max / 1000.0, "min",
			 (double)h->min / 1000.0, "mean", app_hdr_mean(h) / 1000.0);
}

static unsigned int hgrm_failures;

void
lc_hdr_export(const struct lc_conf *c, const char *name, const struct app_hdr *h)
{
	char path[4096];

	if (c->hgrm_path == NULL)
		return;
	if (app_hgrm_path(c->hgrm_path, name, path, sizeof(path)) < 0 ||
	    app_hgrm_write(h, path, APP_HGRM_TICKS, 1e3, APP) < 0) {
		hgrm_failures++;
		return;
	}
	printf("  hgrm: %s (values in us)\n", path);
}

unsigned int
lc_hgrm_failures(void)
{
	return hgrm_failures;
}

void
lc_print_window(const char *what, double window_s)
{
	printf("  window: %s took %.1f ms", what, window_s * 1e3);
	app_window_end_line(stdout, window_s, NULL);
}

static double
last_window(const struct lc_outcome *o)
{
	json_t *r = json_array_get(o->results, json_array_size(o->results) - 1);

	return json_number_value(json_object_get(r, "window_s"));
}

int
lc_run_windowed(const struct lc_conf *c, lc_scenario_fn fn, unsigned int arg,
		struct lc_outcome *o, size_t count_off, bool given, uint64_t multiple)
{
	struct lc_conf cc = *c;
	uint64_t *count = (uint64_t *)((char *)&cc + count_off);
	double min_s = c->window_ms / 1e3;
	double target_s = fmax(app_window_target_s() * min_s / APP_WINDOW_MIN_S,
			       c->window_given ? 0 : app_window_target_s());
	int ret = fn(&cc, arg, o);

	for (unsigned int t = 0; t < LC_WINDOW_TRIES && ret == 0 && (!given || c->window_given);
	     t++) {
		double w = last_window(o);
		uint64_t next;

		if (!(w > 0) || w >= min_s)
			break;
		next = app_window_count(*count, w, target_s, multiple, *count + 1,
					UINT64_C(1) << 40);
		printf("  calibrating: %" PRIu64 " took %.1f ms, under %u ms: this run is not "
		       "kept; again with %" PRIu64 " (%.0f ms at its rate)\n", *count, w * 1e3,
		       c->window_ms, next, target_s * 1e3);
		json_array_remove(o->results, json_array_size(o->results) - 1);
		*count = next;
		ret = fn(&cc, arg, o);
	}
	return ret;
}

bool
lc_interrupted(int run_ret)
{
	return run_ret == -EINTR;
}
