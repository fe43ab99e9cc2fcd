/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Timer jitter. Two receivers, one per lcore, keep a number of one-shot
 * timers (lca_send_after) outstanding: each arrival records its lateness
 * (arrival TSC - intended TSC, the intended one in the payload) and arms
 * the next, with a delay drawn from [min, max], alternately to itself and
 * to the other receiver, until each has armed its share. Receiver 0 also
 * arms one periodic timer (lca_send_every) to a third receiver on lcore 1
 * (its control lane is not shared with the one-shots'), cancelled after
 * its ticks. Under load the two receivers are the cross-lcore ping-pong
 * pair themselves and the tick receiver bounces messages to itself, so
 * their mailboxes are never empty: the timers must still come, through
 * the control lane.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "app_floor.h"
#include "app_floor_stream.h"
#include "app_report.h"
#include "app_rng.h"
#include "lca_timer.h"
#include "lifecycle.h"

enum {
	TM_START = 1,
	TM_ONCE,
	TM_TICK,
	TM_FENCE,
};

struct tm_rx {
	unsigned int idx;
	uint64_t armed;     /* one-shots it armed */
	uint64_t arm_errors;
	uint64_t got_once;  /* one-shots it received */
	uint64_t ticks;     /* periodic ticks it received */
	uint64_t rng;
};

static struct {
	const struct lc_conf *c;
	lca_actor_id_t rx[2];
	lca_actor_id_t tick_rx;  /* the periodic's receiver, on lcore 1 */
	struct app_hdr once[2];  /* by receiver: each touches its own */
	struct app_hdr tick;     /* the tick receiver's */
	uint64_t hz;
	uint64_t expected_once;  /* atomic: 2 x timers, less arm errors */
	uint64_t got_once;       /* atomic */
	uint64_t tick_base;      /* the periodic's arm TSC */
	lca_timer_id_t periodic; /* armed by receiver 0 before any tick */
	int periodic_err;
	int cancel_err;
	bool fenced;             /* atomic: the ticks after the cancel are in */
	unsigned int fence_timer; /* 1: the fence went by a timer (lane full) */
	bool fence_err;          /* no fence: the stop may leave ticks unseen */
	uint8_t *seen;           /* by one-shot id: arrivals (only its receiver writes) */
	uint64_t duplicates;     /* atomic */
} tm;

struct once_msg {
	uint64_t intended;
	uint64_t id; /* receiver index x timers + its rank: each one-shot's own */
};

static void
maybe_done(void)
{
	if (__atomic_load_n(&tm.fenced, __ATOMIC_ACQUIRE) &&
	    __atomic_load_n(&tm.got_once, __ATOMIC_ACQUIRE) ==
		    __atomic_load_n(&tm.expected_once, __ATOMIC_ACQUIRE))
		lca_runtime_stop();
}

static void
arm_one(lca_actor_id_t self, struct tm_rx *r)
{
	const struct lc_conf *c = tm.c;
	uint32_t span = c->max_delay_us - c->min_delay_us + 1;
	uint64_t delay = c->min_delay_us + app_rng_below(&r->rng, span);
	lca_actor_id_t to = r->armed & 1 ? tm.rx[r->idx ^ 1] : self;
	struct lca_msg *m;
	struct once_msg v = { .id = r->idx * c->timers + r->armed };
	int ret = lca_msg_alloc(&m);

	r->armed++;
	if (ret == 0) {
		m->type = TM_ONCE;
		m->len = sizeof(v);
		v.intended = rte_get_timer_cycles() + delay * rte_get_timer_hz() / 1000000;
		memcpy(m->data, &v, sizeof(v));
		ret = lca_send_after(to, m, delay, NULL);
		if (ret < 0)
			lca_msg_free(m);
	}
	if (ret < 0) {
		/* Not armed: one fewer to wait for, said in the counts. */
		r->arm_errors++;
		__atomic_fetch_sub(&tm.expected_once, 1, __ATOMIC_ACQ_REL);
	}
}

static void
record(struct app_hdr *h, uint64_t intended)
{
	uint64_t now = rte_get_timer_cycles();
	uint64_t late = now > intended ? now - intended : 0;

	app_hdr_record(h, (int64_t)lc_cycles_to_ns(late, tm.hz));
}

static void
rx_handler(lca_actor_id_t self, void *state, struct lca_msg *m)
{
	struct tm_rx *r = state;
	struct once_msg v;

	switch (m->type) {
	case LC_TYPE_LOAD:
		lc_load_bounce(m);
		return;
	case TM_START:
		for (unsigned int i = 0; i < tm.c->inflight && r->armed < tm.c->timers; i++)
			arm_one(self, r);
		if (r->idx == 0) {
			struct lca_msg tmpl = { .type = TM_TICK };

			tm.tick_base = rte_get_timer_cycles();
			tm.periodic_err = lca_send_every(tm.tick_rx, &tmpl, tm.c->period_us,
							 &tm.periodic);
			if (tm.periodic_err < 0)
				__atomic_store_n(&tm.fenced, true, __ATOMIC_RELEASE);
		}
		break;
	case TM_ONCE:
		memcpy(&v, m->data, sizeof(v));
		record(&tm.once[r->idx], v.intended);
		if (v.id >= 2 * tm.c->timers || tm.seen[v.id]++ != 0) {
			/* Twice: counted, not as an arrival. */
			__atomic_fetch_add(&tm.duplicates, 1, __ATOMIC_RELAXED);
			break;
		}
		r->got_once++;
		__atomic_fetch_add(&tm.got_once, 1, __ATOMIC_ACQ_REL);
		if (r->armed < tm.c->timers)
			arm_one(self, r);
		break;
	case TM_TICK:
		r->ticks++;
		record(&tm.tick, tm.tick_base + r->ticks * (uint64_t)tm.c->period_us *
						       rte_get_timer_hz() / 1000000);
		if (r->ticks == tm.c->ticks) {
			struct lca_msg *f;

			/* Nothing fires after the cancel returns; what fired
			 * before is in the lane ahead of the fence. */
			tm.cancel_err = lca_timer_cancel(tm.periodic);
			if (lca_msg_alloc(&f) == 0) {
				f->type = TM_FENCE;
				f->len = 0;
				/* A lane full of ticks: a one-shot that retries
				 * until it is in, behind them (counted). */
				if (lca_send_control(self, f) == 0)
					break;
				if (lca_send_after(self, f, 1, NULL) == 0) {
					tm.fence_timer = 1;
					break;
				}
				lca_msg_free(f);
			}
			tm.fence_err = true;
			__atomic_store_n(&tm.fenced, true, __ATOMIC_RELEASE);
		}
		break;
	case TM_FENCE:
		__atomic_store_n(&tm.fenced, true, __ATOMIC_RELEASE);
		break;
	default:
		break;
	}
	maybe_done();
}

static void
rx_init(void *state, void *arg)
{
	struct tm_rx *r = state;

	r->idx = (unsigned int)(uintptr_t)arg;
	r->rng = app_rng_stream(0x713e5, r->idx);
}

static int
send_start(lca_actor_id_t to)
{
	struct lca_msg *m;
	int ret = lca_msg_alloc(&m);

	if (ret < 0)
		return ret;
	m->type = TM_START;
	m->len = 0;
	ret = lca_send_control(to, m);
	if (ret < 0)
		lca_msg_free(m);
	return ret;
}

/* Expected length of a scenario, for its time limit. */
static unsigned int
limit_ms(const struct lc_conf *c)
{
	uint64_t mean_us = (c->min_delay_us + (uint64_t)c->max_delay_us) / 2;
	uint64_t once_ms = c->timers * mean_us / c->inflight / 1000;
	uint64_t tick_ms = (uint64_t)c->ticks * c->period_us / 1000;

	uint64_t longest = RTE_MAX(once_ms, tick_ms);

	return (unsigned int)RTE_MIN(10000 + 4 * longest, 3600000ull);
}

/* What a scenario's verdict needs of it. */
struct tm_figure {
	double p50_us;   /* one-shot lateness */
	double window_s; /* the run, start to stop */
};

/* What a timers run counted, read after it. */
struct tm_counts {
	const char *name;
	bool loaded;
	struct lca_actor_stats as[3];
	struct lca_timer_stats ts;
	uint64_t armed, arm_errors, ticks;
	bool exact;
};

/* The two one-shot receivers and the tick receiver, the load (@p loaded),
 * and their start. */
static int
tm_start(const struct lc_conf *c, bool loaded)
{
	int ret = 0;

	for (unsigned int i = 0; i < 2 && ret == 0; i++)
		ret = lc_spawn(rx_handler, sizeof(struct tm_rx), rx_init, (void *)(uintptr_t)i,
			       c->lcore[i], 1024, i ? "timer rx1" : "timer rx0", &tm.rx[i]);
	if (ret == 0)
		ret = lc_spawn(rx_handler, sizeof(struct tm_rx), rx_init, (void *)(uintptr_t)2,
			       c->lcore[1], 1024, "tick rx", &tm.tick_rx);
	if (ret == 0 && loaded)
		ret = lc_load_start(c, tm.rx);
	if (ret == 0 && loaded)
		ret = lc_load_seed(tm.tick_rx, tm.tick_rx, LC_LOAD_LOCAL);
	for (unsigned int i = 0; i < 2 && ret == 0; i++)
		ret = send_start(tm.rx[i]);
	return ret;
}

static int
tm_run(const struct lc_conf *c, const char *name, struct app_series *series,
       struct lc_outcome *o, struct tm_figure *fig)
{
	uint64_t t0;
	int run_ret;

	printf("\n%s\n", name);
	lc_series_begin(series, name);
	t0 = rte_rdtsc();
	run_ret = lca_runtime_run(limit_ms(c));
	fig->window_s = (double)(rte_rdtsc() - t0) / (double)rte_get_tsc_hz();
	lc_series_end(series, o);
	if (run_ret == -ETIMEDOUT) {
		fprintf(stderr, APP ": %s: not done after %u ms: %" PRIu64 " of %" PRIu64
				" one-shots in, ticks fenced: %s\n", name, limit_ms(c),
			tm.got_once, tm.expected_once, tm.fenced ? "yes" : "no");
		printf("  not done: the actors at the time limit (load lost %" PRIu64 "):\n",
		       lc_load_lost());
		app_report_actors(stdout);
	}
	return run_ret;
}

/* Every count, and whether the runtime's timer counters match them. */
static void
tm_count(const struct lc_conf *c, int run_ret, struct tm_counts *k)
{
	struct tm_rx st;

	for (unsigned int i = 0; i < 2; i++) {
		st = *(struct tm_rx *)lca_actor_state(tm.rx[i]);
		lca_actor_stats_get(tm.rx[i], &k->as[i]);
		k->armed += st.armed - st.arm_errors;
		k->arm_errors += st.arm_errors;
	}
	st = *(struct tm_rx *)lca_actor_state(tm.tick_rx);
	lca_actor_stats_get(tm.tick_rx, &k->as[2]);
	k->ticks = st.ticks;
	lca_timer_stats_get(&k->ts);
	k->exact = run_ret == 0 && tm.periodic_err == 0 && tm.cancel_err == 0 &&
		   k->arm_errors == 0 && tm.got_once == k->armed && tm.duplicates == 0 &&
		   !tm.fence_err && k->ts.armed == k->armed + 1 + tm.fence_timer &&
		   k->ts.fired == tm.got_once + tm.fence_timer && k->ts.ticks == k->ticks &&
		   k->ts.dropped == 0 && k->ts.cancelled == 1 && k->ts.active == 0 &&
		   k->ticks >= c->ticks;
}

static void
tm_print(const struct lc_conf *c, const struct tm_counts *k, const struct tm_figure *fig)
{
	const struct lca_timer_stats *ts = &k->ts;

	lc_hdr_print("one-shot lateness:", &tm.once[0]);
	lc_hdr_print("periodic lateness:", &tm.tick);
	lc_hdr_export(c, k->loaded ? "timers-loaded-one-shot" : "timers-idle-one-shot", &tm.once[0]);
	lc_hdr_export(c, k->loaded ? "timers-loaded-periodic" : "timers-idle-periodic", &tm.tick);
	lc_print_window("the scenario, start to stop,", fig->window_s);
	printf("  idle policy %s%s; receivers' mailboxes: high-water %u, %u and %u (ticks) "
	       "messages%s\n", lca_idle_policy_name(c->idle),
	       c->idle == LCA_IDLE_SLEEP ? " (sleeps)" : "", k->as[0].mailbox_hwm,
	       k->as[1].mailbox_hwm, k->as[2].mailbox_hwm,
	       k->loaded ? " (the load's backlog: timers came by the control lane)" : "");
	printf("  one-shot: armed %" PRIu64 " = fired %" PRIu64 " + dropped %" PRIu64
	       " + cancelled 0 + still armed %u (arm errors %" PRIu64 "); each received once "
	       "(by id): %" PRIu64 " twice\n",
	       k->armed, tm.got_once, ts->dropped, ts->active, k->arm_errors, tm.duplicates);
	printf("  periodic: 1 armed (%u us), %" PRIu64 " ticks fired, %" PRIu64 " missed, "
	       "%s %u%s%s\n",
	       c->period_us, k->ticks, ts->missed,
	       k->ticks < c->ticks ? "not cancelled: short of tick" : "cancelled after tick",
	       c->ticks, tm.cancel_err == 0 || k->ticks < c->ticks ? "" : " (the cancel failed)",
	       ts->missed ? " (a tick's lateness counts from the k-th period at its k-th arrival: "
			    "after a miss, a period too much)" : "");
	printf("  runtime timer counters: armed %" PRIu64 " = %" PRIu64 " one-shot + 1 periodic%s; "
	       "fired %" PRIu64 " = %" PRIu64 " received%s; ticks %" PRIu64 " = %" PRIu64
	       " received; retried %" PRIu64
	       ", missed %" PRIu64 ", dropped %" PRIu64 ", cancelled %" PRIu64 ", active %u: %s\n",
	       ts->armed, k->armed, tm.fence_timer ? " + 1 fence" : "", ts->fired, tm.got_once,
	       tm.fence_timer ? " + 1 fence" : "", ts->ticks, k->ticks, ts->retried, ts->missed,
	       ts->dropped, ts->cancelled, ts->active, k->exact ? "exact" : "NOT exact");
	if (tm.fence_err)
		printf("  (no fence after the cancel: no envelope or no timer; ticks may have been "
		       "left in the lane)\n");
}

static json_t *
tm_json(const struct lc_conf *c, const struct tm_counts *k, struct app_series *series)
{
	const struct lca_timer_stats *ts = &k->ts;

	return json_pack(
		"{s:s, s:s, s:b, s:s, s:I, s:o, s:o, s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}, "
		"s:{s:I, s:I, s:I, s:I, s:I}, s:[i, i, i], s:b, s:o}",
		"name", k->name, "bench", "timers", "loaded", k->loaded, "idle",
		lca_idle_policy_name(c->idle), "sleep_us", (json_int_t)c->sleep_us,
		"one_shot_lateness", lc_hdr_json(&tm.once[0]),
		"periodic_lateness", lc_hdr_json(&tm.tick),
		"timer_stats", "armed", (json_int_t)ts->armed, "fired", (json_int_t)ts->fired,
		"ticks", (json_int_t)ts->ticks, "cancelled", (json_int_t)ts->cancelled, "retried",
		(json_int_t)ts->retried, "missed", (json_int_t)ts->missed, "dropped",
		(json_int_t)ts->dropped, "active", (json_int_t)ts->active,
		"counts", "one_shot_armed", (json_int_t)k->armed, "one_shot_received",
		(json_int_t)tm.got_once, "one_shot_twice", (json_int_t)tm.duplicates,
		"ticks_received", (json_int_t)k->ticks, "arm_errors", (json_int_t)k->arm_errors,
		"mailbox_hwm", (int)k->as[0].mailbox_hwm, (int)k->as[1].mailbox_hwm,
		(int)k->as[2].mailbox_hwm, "exact", k->exact,
		"frequency", app_series_freq_json(series));
}

static void
tm_release(void)
{
	app_hdr_free(&tm.once[0]);
	app_hdr_free(&tm.once[1]);
	app_hdr_free(&tm.tick);
	free(tm.seen);
}

static int
scenario(const struct lc_conf *c, bool loaded, struct lc_outcome *o, struct tm_figure *fig)
{
	struct tm_counts k = {
		.name = loaded ? "timers, lcores under load" : "timers, lcores idle",
		.loaded = loaded,
	};
	struct app_series series = { 0 };
	int ret, run_ret;

	memset(&tm, 0, sizeof(tm));
	tm.c = c;
	tm.hz = rte_get_timer_hz();
	tm.expected_once = 2 * c->timers;
	tm.cancel_err = -EAGAIN;
	tm.seen = calloc(2 * c->timers, 1);
	if (tm.seen == NULL)
		return -ENOMEM;
	ret = lc_hdr_init(&tm.once[0]);
	ret = ret ? ret : lc_hdr_init(&tm.once[1]);
	ret = ret ? ret : lc_hdr_init(&tm.tick);
	/* A slot whose timer fired goes back only when its lcore's
	 * rte_timer_manage() returns, and its message may be received and a
	 * new timer armed on the other lcore before that: room for twice the
	 * outstanding timers, so an arm never finds the table full. */
	ret = ret ? ret : lc_runtime_up(c, 4 * c->inflight + 64);
	if (ret < 0) {
		tm_release();
		return ret;
	}
	ret = tm_start(c, loaded);
	run_ret = ret == 0 ? tm_run(c, k.name, &series, o, fig) : 0;
	if (ret == 0 && lc_interrupted(run_ret)) {
		ret = run_ret;
	} else if (ret == 0) {
		tm_count(c, run_ret, &k);
		app_hdr_add(&tm.once[0], &tm.once[1]);
		fig->p50_us = (double)app_hdr_value_at(&tm.once[0], 50) / 1000.0;
		tm_print(c, &k, fig);
		json_array_append_new(o->results, tm_json(c, &k, &series));
		o->exact &= k.exact;
		ret = run_ret < 0 ? run_ret : 0;
	}
	app_series_release(&series);
	lca_runtime_cleanup();
	tm_release();
	return ret;
}

/* A round of the floor: its one-shot lateness, printed; p50 in us. */
static int
floor_round(const struct lc_conf *c, json_t *rounds, double *p50_us)
{
	struct app_hdr late;
	int ret = lc_hdr_init(&late);

	if (ret == 0)
		ret = lc_timer_floor(c, &late);
	if (ret == 0) {
		*p50_us = (double)app_hdr_value_at(&late, 50) / 1000.0;
		lc_hdr_print("floor lateness:", &late);
		json_array_append_new(rounds, lc_hdr_json(&late));
	} else {
		fprintf(stderr, APP ": the timers' floor failed: %s\n", strerror(-ret));
	}
	app_hdr_free(&late);
	return ret;
}

#define TM_FLOOR "rte_timer in a plain loop on the same lcores, the same delays"

/* The floor of the scenario just recorded (its rounds before and after
 * it), printed and in its record; main.c makes its verdict row of that. */
static void
judge(struct lc_outcome *o, const struct tm_figure *fig, const double *fl, json_t *rounds)
{
	json_t *res = json_array_get(o->results, json_array_size(o->results) - 1);
	double ratios[2], sorted[2];

	app_floor_ratios((const double[]){ fig->p50_us, fig->p50_us }, fl, 2, ratios);
	sorted[0] = RTE_MIN(ratios[0], ratios[1]);
	sorted[1] = RTE_MAX(ratios[0], ratios[1]);
	printf("  against its floor (%s): one-shot lateness p50 %.1f us = %.1fx the floor's "
	       "before it (%.2f us), %.1fx after (%.2f us)\n", TM_FLOOR, fig->p50_us, ratios[0],
	       fl[0], ratios[1], fl[1]);
	json_object_set_new(res, "window_s", json_real(fig->window_s));
	json_object_set_new(res, "floor", json_pack(
		"{s:s, s:s, s:O, s:[f, f], s:f, s:f, s:f, s:o}", "what", TM_FLOOR, "order",
		"a floor round before the scenario and one after it", "one_shot_lateness",
		rounds, "ratios", ratios[0], ratios[1], "ratio_median", (ratios[0] + ratios[1]) / 2,
		"ratio_min", sorted[0], "ratio_max", sorted[1], "moved_pct",
		isfinite(app_floor_moved_pct(fl, 2)) ? json_real(app_floor_moved_pct(fl, 2)) :
						       json_null()));
}

int
lc_bench_timers(const struct lc_conf *c, struct lc_outcome *o)
{
	struct tm_figure fig;
	json_t *rounds[3] = { json_array(), json_array(), json_array() };
	double fl[3];
	int ret;

	printf("\n== timers: %" PRIu64 " one-shots per lcore (%u outstanding each, delays %u..%u us,"
	       " half to the other lcore), 1 periodic every %u us for %u ticks\n",
	       c->timers, c->inflight, c->min_delay_us, c->max_delay_us, c->period_us, c->ticks);
	printf("# lateness = arrival TSC in the receiver's handler - intended TSC (arm time + "
	       "delay, in the payload)\n");
	printf("# floor: %s, a round before, between and after the scenarios\n", TM_FLOOR);
	/* F S F S F: each scenario between two floor rounds. */
	ret = floor_round(c, rounds[0], &fl[0]);
	for (unsigned int k = 0; k < 2 && ret == 0; k++) {
		ret = scenario(c, k == 0, o, &fig);
		if (ret == 0)
			ret = floor_round(c, rounds[k + 1], &fl[k + 1]);
		if (ret == 0) {
			json_t *both = json_array();

			json_array_extend(both, rounds[k]);
			json_array_extend(both, rounds[k + 1]);
			judge(o, &fig, &fl[k], both);
			json_decref(both);
		}
	}
	for (unsigned int k = 0; k < 3; k++)
		json_decref(rounds[k]);
	return ret;
}
