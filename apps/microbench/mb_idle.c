/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The idle scenario: one busy actor forwards a window of messages to
 * itself, alone on its lcore, then among --idle actors that each handled
 * one message and have had no mail since. Cost must not grow with idle
 * actors: the crowded rate is compared with the lone one, and no idle actor
 * may have run a turn meanwhile.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "lca_actor.h"
#include "lca_lcore.h"
#include "app_window.h"
#include "microbench.h"

#define PROG MB_PROG

/* The busy actor of the idle scenario: forwards its messages to itself. */
struct busy {
	uint64_t handled;
	uint64_t expected;
	uint64_t to_forward;
	uint64_t send_errors;
	uint64_t t_first;
	uint64_t t_end;
};

/* Messages handled by idle actors (their warm-up message each). */
static uint64_t idle_handled;
static uint64_t idle_expected;

static void
busy_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct busy *b = state;

	if (b->handled++ == 0)
		b->t_first = rte_rdtsc();
	if (b->to_forward > 0) {
		if (lca_send(self, msg) == 0)
			b->to_forward--;
		else
			b->send_errors++;
	}
	if (b->handled == b->expected) {
		b->t_end = rte_rdtsc();
		lca_runtime_stop();
	}
}

static void
idle_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	(void)self;
	(void)state;
	(void)msg;
	if (__atomic_add_fetch(&idle_handled, 1, __ATOMIC_RELAXED) == idle_expected)
		lca_runtime_stop();
}

static int
busy_run(const struct mb_conf *c, lca_actor_id_t busy, uint64_t msgs, struct mb_result *r,
	 unsigned int run)
{
	struct busy *b = lca_actor_state(busy);
	uint64_t window = RTE_MIN(c->throughput, msgs);
	struct lca_actor_stats before, after;
	int ret;

	lca_actor_stats_get(busy, &before);
	*b = (struct busy){ .expected = msgs, .to_forward = msgs - window };
	for (uint64_t i = 0; i < window; i++)
		if (mb_inject(busy) < 0)
			return -EIO;
	ret = mb_run_loops(c);
	if (ret < 0)
		return ret;
	lca_actor_stats_get(busy, &after);
	if (b->handled != msgs || b->to_forward != 0 || b->send_errors != 0 ||
	    after.handled - before.handled != msgs) {
		fprintf(stderr,
			PROG ": count mismatch: busy actor handled %" PRIu64 " (runtime says %" PRIu64
			     "), expected %" PRIu64 ", %" PRIu64 " forwards failed\n",
			b->handled, after.handled - before.handled, msgs, b->send_errors);
		return -EIO;
	}
	if (r == NULL)
		return 0;
	if (run == UINT_MAX) { /* the warm-up: its time, for the calibration */
		r->warmup_msgs = msgs;
		r->warmup_ms = mb_tsc_ms(b->t_end - b->t_first);
	} else {
		r->ms[run] = mb_tsc_ms(b->t_end - b->t_first);
		r->mps[run] = (double)msgs / (r->ms[run] * 1e3);
		r->runs = run + 1;
		mb_print_run(r, run);
	}
	return 0;
}

/* The busy actor of the idle scenario, and where its figures go. */
struct busy_runs {
	const struct mb_conf *c;
	lca_actor_id_t busy;
	struct mb_result *r;
};

static int
busy_one(void *arg, unsigned int k)
{
	const struct busy_runs *b = arg;

	return busy_run(b->c, b->busy, b->r->messages, b->r, k);
}

/* The busy actor's series; @p calibrate: its warm-up sets the count (the
 * lone series': the crowd runs as many, to be compared run by run). */
static int
busy_series(const struct mb_conf *c, lca_actor_id_t busy, struct mb_result *r, bool calibrate)
{
	struct busy_runs b = { .c = c, .busy = busy, .r = r };
	int ret = busy_run(c, busy, RTE_MIN(c->messages, (uint64_t)MB_WARMUP_MAX),
			   calibrate ? r : NULL, UINT_MAX);

	/* The warm-up runs cold, and may be over in a tick or two: pilots of
	 * twice as many until one lasts APP_WINDOW_PILOT_S give the rate. */
	while (ret == 0 && calibrate && !c->messages_given &&
	       r->warmup_ms < APP_WINDOW_PILOT_S * 1e3)
		ret = busy_run(c, busy, 2 * r->warmup_msgs, r, UINT_MAX);

	if (ret == 0 && calibrate) {
		r->messages = mb_calibrate(c, r->warmup_msgs, r->warmup_ms);
		printf("   warm-up (not measured): %" PRIu64 " msgs in %.1f ms\n", r->warmup_msgs,
		       r->warmup_ms);
		if (c->messages_given)
			r->warmup_ms = 0;
		mb_print_calibration(r);
	}

	if (ret == 0)
		ret = app_series_run(&r->series, r->label, (unsigned int)c->runs, busy_one, &b);
	if (ret == 0)
		mb_report_series(r);
	return ret;
}

static void
name_results(const struct mb_conf *c, struct mb_result *alone, struct mb_result *crowd)
{
	alone->scenario = crowd->scenario = "idle";
	alone->messages = crowd->messages = c->messages;
	alone->calibrated = crowd->calibrated = !c->messages_given;
	snprintf(alone->variant, sizeof(alone->variant), "alone");
	snprintf(crowd->variant, sizeof(crowd->variant), "+%" PRIu64 " idle", c->idle);
	snprintf(alone->label, sizeof(alone->label), "idle alone");
	snprintf(crowd->label, sizeof(crowd->label), "idle %s", crowd->variant);
}

/* The crowd on lcore @p lc: each idle actor handles one message, then
 * never again. @p first: the first one's id (the rest follow it). */
static int
spawn_crowd(const struct mb_conf *c, unsigned int lc, lca_actor_id_t *first)
{
	lca_actor_id_t id;
	int ret;

	for (uint64_t i = 0; i < c->idle; i++) {
		ret = mb_spawn(idle_handler, 0, lc, 2, LCA_MAILBOX_MP, 1, "idle", &id);
		if (ret < 0)
			return ret;
		if (i == 0)
			*first = id;
	}
	idle_handled = 0;
	idle_expected = c->idle;
	for (uint64_t i = 0; i < c->idle; i++) {
		ret = mb_inject(*first + (lca_actor_id_t)i);
		if (ret < 0)
			return ret;
	}
	ret = mb_run_loops(c);
	if (ret < 0)
		return ret;
	if (idle_handled != c->idle) {
		fprintf(stderr, PROG ": idle actors handled %" PRIu64 " of %" PRIu64 " messages\n",
			idle_handled, c->idle);
		return -EIO;
	}
	printf("   %" PRIu64 " idle actors (ids %u..%" PRIu64 ") on lcore %u, each ran once\n",
	       c->idle, *first, *first + c->idle - 1, lc);
	return 0;
}

/* No idle actor may have run during the crowded runs: they had no mail. */
static int
check_crowd_quiet(const struct mb_conf *c, lca_actor_id_t first)
{
	for (uint64_t i = 0; i < c->idle; i++) {
		struct lca_actor_stats s;

		lca_actor_stats_get(first + (lca_actor_id_t)i, &s);
		if (s.turns != 1) {
			fprintf(stderr, PROG ": idle actor %" PRIu64 " ran %" PRIu64 " turns\n",
				first + i, s.turns);
			return -EIO;
		}
	}
	return 0;
}

/* The busy actor alone, then among the crowd, and the ratio. */
static int
alone_then_crowd(const struct mb_conf *c, struct mb_result *alone, struct mb_result *crowd)
{
	unsigned int lc = rte_get_main_lcore();
	struct lca_lcore_stats st;
	lca_actor_id_t busy, first_idle = 0;
	uint64_t turns_before;
	int ret = mb_spawn(busy_handler, sizeof(struct busy), lc, (unsigned int)c->mailbox_size,
			   c->mailbox_mode, (unsigned int)c->throughput, "busy", &busy);

	if (ret < 0)
		return ret;
	printf("\n== idle: busy actor %u on lcore %u forwards a window of %" PRIu64
	       " messages to itself (throughput %" PRIu64 ", mailbox %" PRIu64 " (%s)); "
	       "first alone, then among %" PRIu64 " idle actors on the same lcore\n",
	       busy, lc, RTE_MIN(c->throughput, c->messages), c->throughput, c->mailbox_size,
	       lca_mailbox_mode_name(c->mailbox_mode), c->idle);
	ret = busy_series(c, busy, alone, true);
	if (ret == 0)
		ret = spawn_crowd(c, lc, &first_idle);
	if (ret < 0)
		return ret;
	lca_lcore_stats_get(lc, &st);
	turns_before = st.turns;
	crowd->messages = alone->messages;
	ret = busy_series(c, busy, crowd, false);
	if (ret == 0)
		ret = check_crowd_quiet(c, first_idle);
	if (ret < 0)
		return ret;
	lca_lcore_stats_get(lc, &st);
	printf("   lcore %u ran %" PRIu64 " turns during the crowded runs (all the busy actor's)\n",
	       lc, st.turns - turns_before);
	mb_report_idle_ratio(c, alone, crowd);
	return 0;
}

int
mb_idle_scenario(const struct mb_conf *c)
{
	struct mb_result *alone = calloc(1, sizeof(*alone));
	struct mb_result *crowd = calloc(1, sizeof(*crowd));
	int ret = -ENOMEM;

	if (alone != NULL && crowd != NULL) {
		name_results(c, alone, crowd);
		ret = alone_then_crowd(c, alone, crowd);
	}
	if (alone != NULL)
		app_series_release(&alone->series);
	if (crowd != NULL)
		app_series_release(&crowd->series);
	free(alone);
	free(crowd);
	return ret;
}
