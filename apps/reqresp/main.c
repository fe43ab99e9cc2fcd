/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lca-reqresp: the 8-actor request-response experiment (Akka's
 * AffinityPoolRequestResponseBenchmark), run as JMH runs it: warm-up and
 * measured iterations per parameter set, a Result block per set, a closing
 * table, then the placement of every actor and the frequency report.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "lca_actor.h"
#include "app_main.h"
#include "app_cli.h"
#include "lca_eal.h"
#include "lca_freq.h"
#include "app_freq_json.h"
#include "app_freq_print.h"
#include "app_jmh.h"
#include "app_jmh_json.h"
#include "app_report.h"
#include "app_result.h"
#include "app_series.h"
#include "app_stats.h"
#include "app_floor.h"
#include "lca_topo.h"
#include "app_verdict.h"
#include "reqresp.h"

#define BENCH_NAME "RequestResponseBenchmark.queryUserServiceActor"
#define MAX_LIST 8
#define MAX_ITER 1000
#define MAX_SETS 64
#define CONFIDENCE 0.999
#define FLOOR_WHAT "the same work, in flight and placement, through bare queues between " \
	"the lcores the actors are on, no runtime (rr_floor.c)"
#define NO_FLOOR_SHARED "a shared actor runs on whichever lcore takes its turn (work " \
	"stealing): there is no fixed placement for bare queues to copy, and a bare " \
	"work-stealing scheduler would be a second runtime"
#define NO_FLOOR_INLINE "the ceiling: the same work as direct calls, no messages; " \
	"nothing does less to hold it against"

struct app_conf {
	struct rr_conf rr;
	unsigned int iterations;
	unsigned int warmups;
	double warmup_s;
	double measure_s;
	unsigned int invocations; /* fixed per iteration; 0: by time */
	unsigned int throughputs[MAX_LIST];
	unsigned int n_throughputs;
	int dispatchers[MAX_LIST];
	unsigned int n_dispatchers;
	enum lca_mailbox_mode mailboxes[MAX_LIST];
	unsigned int n_mailboxes;
	enum lca_placement placements[MAX_LIST]; /* affinity sets: each is run */
	unsigned int n_placements;
	const char *json_path;
	const char *jmh_path;
	bool quiet;
};

/* What one parameter set measured, and for an affinity set its floor,
 * measured in rounds interleaved with the actors' (runtime, floor, runtime,
 * floor...) at the placement the actors have at each floor round. */
struct set_result {
	struct rr_set set;
	char label[96];
	struct app_stats stats;
	double iter_ops[MAX_ITER];
	double window_s;       /* the shortest measured iteration */
	json_t *json;
	struct app_series series;
	char tp_text[16];
	bool has_floor;
	char floor_label[128];
	struct app_stats floor_stats;
	double floor_ops[MAX_ITER];
	double floor_window_s;
	double ratio[MAX_ITER]; /* iter_ops[k] / floor_ops[k], pair by pair */
	struct app_stats ratio_stats;
	double floor_moved_pct; /* NAN with one round */
	json_t *floor_json;
};

static int
bad_value(const char *opt, const char *value)
{
	fprintf(stderr, "lca-reqresp: bad value '%s' for %s\n", value, opt);
	return -EINVAL;
}

static int
parse_uint_list(char *text, uint64_t min, uint64_t max, unsigned int *out, unsigned int *n)
{
	char *items[MAX_LIST];
	int k = app_cli_split(text, items, MAX_LIST);

	if (k < 0)
		return k;
	for (int i = 0; i < k; i++) {
		uint64_t v;

		if (app_cli_uint(items[i], min, max, &v) < 0)
			return -EINVAL;
		out[i] = (unsigned int)v;
	}
	*n = (unsigned int)k;
	return 0;
}

static int
parse_dispatcher(const char *name, int *out)
{
	enum lca_dispatcher d;

	if (strcmp(name, "inline") == 0) {
		*out = RR_DISPATCH_INLINE;
		return 0;
	}
	if (lca_dispatcher_parse(name, &d) < 0)
		return -EINVAL;
	*out = (int)d;
	return 0;
}

static int
parse_param(struct app_conf *c, char *arg)
{
	char *eq = strchr(arg, '='), *items[MAX_LIST];
	char copy[256];
	int k;

	if (arg == NULL)
		return -EINVAL;
	snprintf(copy, sizeof(copy), "%s", arg);
	if (eq == NULL)
		return bad_value("-p (expected name=list)", copy);
	*eq = '\0';
	if (strcmp(arg, "throughput") == 0 || strcmp(arg, "throughPut") == 0)
		return parse_uint_list(eq + 1, 1, 1024, c->throughputs, &c->n_throughputs) < 0 ?
			bad_value("-p throughput", copy) : 0;
	k = app_cli_split(eq + 1, items, MAX_LIST);
	if (k < 0)
		return bad_value("-p", copy);
	if (strcmp(arg, "dispatcher") == 0) {
		for (int i = 0; i < k; i++)
			if (parse_dispatcher(items[i], &c->dispatchers[i]) < 0)
				return bad_value("-p dispatcher", items[i]);
		c->n_dispatchers = (unsigned int)k;
		return 0;
	}
	if (strcmp(arg, "mailbox") == 0) {
		for (int i = 0; i < k; i++)
			if (lca_mailbox_mode_parse(items[i], &c->mailboxes[i]) < 0)
				return bad_value("-p mailbox", items[i]);
		c->n_mailboxes = (unsigned int)k;
		return 0;
	}
	fprintf(stderr, "lca-reqresp: unknown parameter '%s' (throughput, dispatcher, mailbox)\n",
		arg);
	return -EINVAL;
}

static int
parse_placements(struct app_conf *c, char *list)
{
	char *items[MAX_LIST];
	int k = app_cli_split(list, items, MAX_LIST);

	for (int i = 0; i < k; i++)
		if (lca_placement_parse(items[i], &c->placements[i]) < 0)
			return -EINVAL;
	if (k <= 0)
		return -EINVAL;
	c->n_placements = (unsigned int)k;
	c->rr.placement = c->placements[0];
	return 0;
}

static int
opt_placements(void *conf, const struct app_opt *opt, char *val)
{
	(void)opt;
	return parse_placements(conf, val);
}

static int
opt_param(void *conf, const struct app_opt *opt, char *val)
{
	(void)opt;
	return parse_param(conf, val) < 0 ? APP_OPT_SAID : 0;
}

static int
opt_mailbox(void *conf, const struct app_opt *opt, char *val)
{
	struct app_conf *c = conf;

	(void)opt;
	c->n_mailboxes = 1;
	return lca_mailbox_mode_parse(val, &c->mailboxes[0]);
}

static int
opt_actors(void *conf, const struct app_opt *opt, char *val)
{
	struct app_conf *c = conf;
	uint64_t v;

	(void)opt;
	if (app_cli_uint(val, 2, 1024, &v) < 0 || v % 2 != 0)
		return -EINVAL;
	c->rr.actors = (unsigned int)v;
	return 0;
}

#define AT(field) APP_OPT_AT(struct app_conf, field)

static const struct app_opt options[] = {
	{ "i", 0, APP_OPT_UINT, AT(iterations), .min = 1, .max = MAX_ITER, .metavar = "N",
	  .help = "measured iterations (default 4)" },
	{ "wi", 0, APP_OPT_UINT, AT(warmups), .min = 0, .max = MAX_ITER, .metavar = "N",
	  .help = "warm-up iterations (default 4)" },
	{ "r", 0, APP_OPT_DOUBLE, AT(measure_s), .dmin = 0, .dmax = 3600, .metavar = "SECONDS",
	  .help = "time of a measured iteration (default 1)" },
	{ "w", 0, APP_OPT_DOUBLE, AT(warmup_s), .dmin = 0, .dmax = 3600, .metavar = "SECONDS",
	  .help = "time of a warm-up iteration (default 1)" },
	{ "invocations", 0, APP_OPT_UINT, AT(invocations), .min = 1, .max = MAX_ITER,
	  .metavar = "N", .help = "run N invocations per iteration instead of by time" },
	{ "p", 0, APP_OPT_CUSTOM, .parse = opt_param, .metavar = "throughput=LIST",
	  .help = "messages an actor handles per turn (default 1; also\n"
		  "throughPut=); 2 x throughput requests in flight per pair" },
	{ "p", 0, APP_OPT_MORE, .metavar = "dispatcher=LIST",
	  .help = "affinity, shared, inline (default affinity,shared);\n"
		  "inline is always measured too, as the ceiling; each\n"
		  "affinity iteration is followed by one of its floor (the\n"
		  "same work, in flight and placement through bare queues,\n"
		  "no runtime), at the lcores its actors are on then" },
	{ "p", 0, APP_OPT_MORE, .metavar = "mailbox=LIST",
	  .help = "mp, sp, rts, hts (default mp): the producer side of a\n"
		  "shared actor's mailbox (affinity mailboxes have one)" },
	{ "mailbox", 0, APP_OPT_CUSTOM, .parse = opt_mailbox, .metavar = "MODE",
	  .help = "same as -p mailbox=MODE", .why = "mp, sp, rts or hts" },
	{ "placement", 0, APP_OPT_CUSTOM, .parse = opt_placements, .metavar = "LIST",
	  .help = "round-robin (default), pairs-local, pack, auto (round-robin\n"
		  "first; the runtime then moves chatty actors together);\n"
		  "each affinity set runs at each, with its own floor",
	  .why = "a list of round-robin, pairs-local, pack, auto" },
	{ "actors", 0, APP_OPT_CUSTOM, .parse = opt_actors, .metavar = "N",
	  .help = "actors, even (default 8)", .why = "an even number, 2..1024" },
	{ "queries", 0, APP_OPT_UINT, AT(rr.queries), .min = 1, .max = UINT32_MAX,
	  .metavar = "N", .help = "queries per query actor (default 400000)" },
	{ "users", 0, APP_OPT_UINT, AT(rr.users), .min = 1, .max = 100000000, .metavar = "N",
	  .help = "users per service's database (default 300000)" },
	{ "seed", 0, APP_OPT_UINT, AT(rr.seed), .min = 0, .max = UINT64_MAX, .metavar = "N",
	  .help = "random seed (default 1)" },
	{ "idle", 0, APP_OPT_CUSTOM, AT(rr.idle), .parse = app_opt_idle, .metavar = "POLICY",
	  .help = "what an lcore does with nothing to run: spin (default),\n"
		  "pause, or sleep (10 us after 1000 empty loops)",
	  .why = "spin, pause or sleep" },
	{ "json", 0, APP_OPT_OUTPUT, AT(json_path), .metavar = "FILE",
	  .help = "write every figure as JSON" },
	{ "jmh-json", 0, APP_OPT_OUTPUT, AT(jmh_path), .metavar = "FILE",
	  .help = "write the closing table as JMH's -rf json does" },
	{ "quiet", 0, APP_OPT_FLAG, AT(quiet), .help = "no per-invocation lines" },
	{ NULL },
};

static const struct app_opt_table table = {
	.prog = "lca-reqresp", .opts = options, .single_dash = true, .eal = true,
	.about = "Akka's 8-actor request-response benchmark on lcactor, reported as JMH does.\n",
	.footer = "Lists are comma-separated; every combination is run, as JMH does.\n"
		  "Replies carry a pointer to the service's immutable user record (zero copy).\n",
};

static int
parse_args(int argc, char **argv, void *conf)
{
	struct app_conf *c = conf;
	int ret;

	*c = (struct app_conf){
		.rr = { .actors = 8, .queries = 400000, .users = 300000,
			.placement = LCA_PLACE_ROUND_ROBIN, .seed = 1 },
		.iterations = 4, .warmups = 4, .warmup_s = 1.0, .measure_s = 1.0,
		.throughputs = { 1 }, .n_throughputs = 1,
		.dispatchers = { LCA_DISPATCH_AFFINITY, LCA_DISPATCH_SHARED }, .n_dispatchers = 2,
		.mailboxes = { LCA_MAILBOX_MP }, .n_mailboxes = 1,
		.placements = { LCA_PLACE_ROUND_ROBIN }, .n_placements = 1,
	};
	ret = app_opt_parse(argc, argv, &table, c, NULL);
	if (ret != 0)
		return ret;
	if (c->n_dispatchers * c->n_mailboxes * c->n_throughputs * c->n_placements + 1 > MAX_SETS) {
		fprintf(stderr, "lca-reqresp: more than %d parameter sets; run fewer at a time\n",
			MAX_SETS - 1);
		return -EINVAL;
	}
	return 0;
}

/* --- running ---------------------------------------------------------------- */

static double
seconds(uint64_t cycles)
{
	return (double)cycles / (double)rte_get_tsc_hz();
}

static const char *
iteration_prefix(bool warmup, bool floor)
{
	if (floor)
		return warmup ? "# Warmup floor iteration " : "# Floor iteration ";
	return warmup ? "# Warmup Iteration " : "Iteration ";
}

/* One iteration, of the actors or (@p floor) of their floor: invocations
 * until its time is up (or the fixed count). @p window_s: its length. */
static int
run_iteration(const struct app_conf *c, struct rr_bench *b, bool warmup, bool floor,
	      unsigned int number, double *ops, double *window_s, json_t *jiters)
{
	double limit = warmup ? c->warmup_s : c->measure_s, total_s = 0;
	uint64_t total_msgs = 0;
	json_t *jinv = json_array();
	int ret = 0;

	if (!c->quiet)
		printf("%s%3u: ", iteration_prefix(warmup, floor), number);
	for (unsigned int n = 0;; n++) {
		struct rr_invocation inv;
		double s;

		ret = rr_bench_invoke(b, floor, &inv);
		if (ret < 0)
			break;
		s = seconds(inv.cycles);
		total_s += s;
		total_msgs += inv.messages;
		json_array_append_new(jinv, json_pack("{s:I, s:f}", "messages",
						      (json_int_t)inv.messages, "ms", s * 1e3));
		if (!c->quiet)
			printf("  %" PRIu64 " messages by %u actors took %.0f ms, %.2f M msg/s\n",
			       inv.messages, c->rr.actors, s * 1e3,
			       (double)inv.messages / s / 1e6);
		if (c->invocations ? n + 1 >= c->invocations : total_s >= limit)
			break;
	}
	*ops = total_s > 0 ? (double)total_msgs / total_s : 0;
	*window_s = total_s;
	if (!c->quiet && ret == 0)
		printf("%.3f ops/s\n", *ops);
	json_array_append_new(jiters, json_pack("{s:b, s:i, s:f, s:f, s:o}", "warmup", warmup,
						"number", (int)number, "ops_per_s", *ops,
						"window_s", total_s, "invocations", jinv));
	return ret;
}

/* A set's placement is in its names unless it is round-robin, the
 * seed's and the default, so that a default run's names stay as they were. */
static bool
placement_named(const struct rr_set *s)
{
	return s->dispatcher == LCA_DISPATCH_AFFINITY && s->placement != LCA_PLACE_ROUND_ROBIN;
}

static void
print_set_header(const struct app_conf *c, const struct rr_set *s)
{
	printf("# Benchmark: lcactor.%s\n", BENCH_NAME);
	printf("# Parameters: (dispatcher = %s, mailbox = %s, throughPut = %u)\n",
	       rr_dispatcher_name(s->dispatcher), lca_mailbox_mode_name(s->mailbox), s->throughput);
	printf("# Placement: %s; idle policy: %s; replies carry a pointer to the immutable "
	       "user record\n",
	       lca_placement_name(s->placement), lca_idle_policy_name(c->rr.idle));
	if (c->invocations)
		printf("# Warmup: %u iterations, %u invocations each\n"
		       "# Measurement: %u iterations, %u invocations each\n",
		       c->warmups, c->invocations, c->iterations, c->invocations);
	else
		printf("# Warmup: %u iterations, %g s each\n# Measurement: %u iterations, %g s each\n",
		       c->warmups, c->warmup_s, c->iterations, c->measure_s);
}

/* The iterations of a set, as app_series_run() calls the measured ones:
 * each of the actors', then (affinity) one of its floor, so that a floor
 * round and the round it judges run on the same CPUs, as near in time as
 * they can be. */
struct measured {
	const struct app_conf *c;
	struct rr_bench *b;
	struct set_result *r;
	json_t *jiters;
	json_t *jfloor_iters;
};

/* The window of a set's iterations, and whether it is too short to read. */
static void
print_window(const struct set_result *r)
{
	double tick = app_verdict_tick_s();
	double shortest = r->has_floor ? fmin(r->window_s, r->floor_window_s) : r->window_s;

	printf("window: the shortest measured iteration took %.0f ms", r->window_s * 1e3);
	if (r->has_floor)
		printf(", its floor's %.0f ms", r->floor_window_s * 1e3);
	if (shortest < APP_VERDICT_MIN_TICKS * tick)
		printf(": shorter than %d scheduler ticks (%.0f ms), too short to measure well; "
		       "give -r or --invocations more", APP_VERDICT_MIN_TICKS,
		       APP_VERDICT_MIN_TICKS * tick * 1e3);
	printf("\n");
}

/* The floor of an affinity set: its Result block, the ratio of each pair of
 * rounds, and how far the floor moved between its rounds. */
static void
floor_figures(const struct app_conf *c, struct set_result *r, struct measured *m)
{
	json_t *ratios = json_array();

	app_stats_compute(r->floor_ops, c->iterations, CONFIDENCE, &r->floor_stats);
	app_stats_compute(r->ratio, c->iterations, CONFIDENCE, &r->ratio_stats);
	r->floor_moved_pct = app_floor_moved_pct(r->floor_ops, c->iterations);
	printf("\n");
	app_jmh_result(stdout, "lcactor." BENCH_NAME " floor", &r->floor_stats, "ops/s");
	printf("ratio to its floor, pair by pair (runtime / floor, each floor round right after "
	       "its runtime round):");
	for (unsigned int k = 0; k < c->iterations; k++) {
		printf(" %.3f", r->ratio[k]);
		json_array_append_new(ratios, json_real(r->ratio[k]));
	}
	printf("\n  median %.3f, spread %.3f to %.3f; ", r->ratio_stats.p50, r->ratio_stats.min,
	       r->ratio_stats.max);
	if (isnan(r->floor_moved_pct))
		printf("one floor round: how far it moves is unknown\n");
	else
		printf("the floor moved %.1f%% between its rounds%s\n", r->floor_moved_pct,
		       r->floor_moved_pct > APP_VERDICT_MOVED_PCT ?
			       ": the CPUs moved during the run" : "");
	r->floor_json = json_pack("{s:s, s:s, s:s, s:s, s:i, s:s, s:o, s:O, s:o}", "name",
				  r->floor_label, "dispatcher", "floor", "mailbox", "-", "beside",
				  r->label, "throughput_per_turn", (int)r->set.throughput, "what",
				  FLOOR_WHAT, "placement", rr_bench_floor_placement(m->b),
				  "iterations", m->jfloor_iters, "throughput",
				  app_result_measure(&r->floor_stats, r->floor_ops, "ops/s"));
	json_object_set_new(r->json, "floor_row", json_string(r->floor_label));
	json_object_set_new(r->json, "ratio_to_floor_row", ratios);
	json_object_set_new(r->json, "pct_of_floor_row", json_real(100.0 * r->ratio_stats.p50));
	json_object_set_new(r->json, "floor_row_moved_pct",
			    isnan(r->floor_moved_pct) ? json_null() :
							  json_real(r->floor_moved_pct));
}

/* A measured set's Result block, its floor's, its window, and its JSON. */
static void
set_figures(const struct app_conf *c, struct set_result *r, struct measured *m, json_t *jmoves)
{
	app_stats_compute(r->iter_ops, c->iterations, CONFIDENCE, &r->stats);
	printf("\n");
	app_jmh_result(stdout, "lcactor." BENCH_NAME, &r->stats, "ops/s");
	r->json = json_pack("{s:s, s:s, s:s, s:i, s:O, s:o, s:f}", "name", r->label, "dispatcher",
			    rr_dispatcher_name(r->set.dispatcher), "mailbox",
			    lca_mailbox_mode_name(r->set.mailbox), "throughput_per_turn",
			    (int)r->set.throughput, "iterations", m->jiters, "throughput",
			    app_result_measure(&r->stats, r->iter_ops, "ops/s"), "window_s",
			    r->window_s);
	if (jmoves != NULL)
		json_object_set_new(r->json, "moves", jmoves);
	if (r->has_floor)
		floor_figures(c, r, m);
	else if (r->set.dispatcher == LCA_DISPATCH_SHARED)
		json_object_set_new(r->json, "floor_row", json_null());
	if (r->set.dispatcher == LCA_DISPATCH_SHARED)
		json_object_set_new(r->json, "no_floor_why", json_string(NO_FLOOR_SHARED));
	print_window(r);
}


static int
run_pair(struct measured *m, bool warmup, unsigned int k)
{
	struct set_result *r = m->r;
	double ops, floor_ops, win, floor_win;
	int ret = run_iteration(m->c, m->b, warmup, false, k + 1, &ops, &win, m->jiters);

	if (ret == 0 && r->has_floor)
		ret = run_iteration(m->c, m->b, warmup, true, k + 1, &floor_ops, &floor_win,
				    m->jfloor_iters);
	if (ret < 0 || warmup)
		return ret;
	r->iter_ops[k] = ops;
	r->window_s = k == 0 ? win : fmin(r->window_s, win);
	if (r->has_floor) {
		r->floor_ops[k] = floor_ops;
		r->floor_window_s = k == 0 ? floor_win : fmin(r->floor_window_s, floor_win);
		r->ratio[k] = floor_ops > 0 ? ops / floor_ops : NAN;
	}
	return 0;
}

static int
measure_one(void *arg, unsigned int k)
{
	return run_pair(arg, false, k);
}

/* Run one parameter set: warm-up, then measured iterations under the
 * frequency monitor; then its placement and figures. */
static int
run_set(const struct app_conf *c, struct set_result *r, json_t *jplace)
{
	struct measured m = { .c = c, .r = r, .jiters = json_array(),
			      .jfloor_iters = json_array() };
	json_t *jmoves = NULL, *jplace_own = NULL;
	struct rr_conf rr = c->rr;
	char label[sizeof(r->label)];
	int ret;

	print_set_header(c, &r->set);
	r->has_floor = r->set.dispatcher == LCA_DISPATCH_AFFINITY;
	rr.placement = r->set.placement;
	ret = rr_bench_create(&rr, &r->set, &m.b);
	if (ret < 0)
		fprintf(stderr, "lca-reqresp: cannot set up %s: %s\n",
			rr_dispatcher_name(r->set.dispatcher), strerror(-ret));
	for (unsigned int i = 0; ret == 0 && i < c->warmups; i++)
		ret = run_pair(&m, true, i);
	snprintf(label, sizeof(label), "%s %s throughPut %u%s%s",
		 rr_dispatcher_name(r->set.dispatcher), lca_mailbox_mode_name(r->set.mailbox),
		 r->set.throughput, placement_named(&r->set) ? " placement " : "",
		 placement_named(&r->set) ? lca_placement_name(r->set.placement) : "");
	snprintf(r->label, sizeof(r->label), "%s", label);
	snprintf(r->floor_label, sizeof(r->floor_label), "floor beside %s", label);
	if (ret == 0)
		ret = app_series_run(&r->series, r->label, c->iterations, measure_one, &m);
	/* The placement of the first set of actors, after its run: under
	 * --placement auto, where they ended up. */
	if (ret == 0 && jplace != NULL && json_array_size(jplace) == 0 &&
	    r->set.dispatcher < RR_DISPATCH_INLINE)
		rr_print_placement(m.b, r->set.placement, jplace);
	else if (ret == 0 && r->has_floor && r->set.placement != c->placements[0])
		rr_print_placement(m.b, r->set.placement, jplace_own = json_array());
	if (ret == 0 && r->set.placement == LCA_PLACE_AUTO && r->has_floor)
		jmoves = rr_print_moves(m.b);
	if (ret == 0)
		set_figures(c, r, &m, jmoves);
	else
		json_decref(jmoves);
	if (r->json != NULL && r->has_floor) {
		json_object_set_new(r->json, "placement_policy",
				    json_string(lca_placement_name(r->set.placement)));
		if (jplace_own != NULL)
			json_object_set(r->json, "actor_placement", jplace_own);
	}
	json_decref(jplace_own);
	json_decref(m.jiters);
	json_decref(m.jfloor_iters);
	rr_bench_destroy(m.b);
	return ret;
}

/* Every combination, inline first: it is the ceiling the others are read
 * against, and it does not depend on throughput or mailbox. Each affinity
 * set measures its own floor, round by round beside its actors. */
static unsigned int
plan_sets(const struct app_conf *c, struct rr_set *sets)
{
	unsigned int n = 0;

	sets[n++] = (struct rr_set){ .throughput = 1, .dispatcher = RR_DISPATCH_INLINE,
				     .mailbox = LCA_MAILBOX_MP, .placement = c->placements[0] };
	for (unsigned int d = 0; d < c->n_dispatchers; d++) {
		/* Only affinity actors stay where they are placed. */
		unsigned int n_places = c->dispatchers[d] == LCA_DISPATCH_AFFINITY ?
			c->n_placements : 1;

		if (c->dispatchers[d] == RR_DISPATCH_INLINE)
			continue;
		for (unsigned int p = 0; p < n_places; p++)
			for (unsigned int m = 0; m < c->n_mailboxes; m++)
				for (unsigned int t = 0; t < c->n_throughputs; t++)
					sets[n++] = (struct rr_set){
						.throughput = c->throughputs[t],
						.dispatcher = c->dispatchers[d],
						.mailbox = c->mailboxes[m],
						.placement = c->placements[p] };
	}
	return n;
}

/* The closing table's rows: each set, and an affinity set's floor right
 * after it; also the rows of --jmh-json. */
static const char *const table_params[] = { "dispatcher", "mailbox", "throughPut", "placement" };

static unsigned int
table_rows(const struct app_conf *c, struct set_result *res, unsigned int n,
	   struct app_jmh_row *rows)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < n; i++) {
		struct set_result *r = &res[i];
		bool is_inline = r->set.dispatcher == RR_DISPATCH_INLINE;
		const char *place = r->set.dispatcher == LCA_DISPATCH_AFFINITY ?
			lca_placement_name(r->set.placement) : "-";

		snprintf(r->tp_text, sizeof(r->tp_text), "%u", r->set.throughput);
		rows[k++] = (struct app_jmh_row){
			.benchmark = BENCH_NAME,
			.params = { rr_dispatcher_name(r->set.dispatcher),
				    is_inline ? "-" : lca_mailbox_mode_name(r->set.mailbox),
				    is_inline ? "-" : r->tp_text, place },
			.mode = "thrpt", .stats = r->stats, .unit = "ops/s",
			.values = r->iter_ops, .n_values = c->iterations,
		};
		if (r->has_floor)
			rows[k++] = (struct app_jmh_row){
				.benchmark = BENCH_NAME,
				.params = { "floor", "-", r->tp_text, place },
				.mode = "thrpt", .stats = r->floor_stats, .unit = "ops/s",
				.values = r->floor_ops, .n_values = c->iterations,
			};
	}
	return k;
}

static void
print_table(const struct app_conf *c, struct set_result *res, unsigned int n)
{
	static struct app_jmh_row rows[2 * MAX_SETS];
	unsigned int k = table_rows(c, res, n, rows);

	printf("\n");
	app_jmh_table(stdout, table_params, 4, rows, k);
}

/* --jmh-json: the table's rows as JMH's -rf json writes them. */
static int
write_jmh_json(const struct app_conf *c, struct set_result *res, unsigned int n)
{
	static struct app_jmh_row rows[2 * MAX_SETS];
	unsigned int k = table_rows(c, res, n, rows);
	char warmup[32], measure[32];
	const char *fmt = c->invocations == 1 ? "%.0f invocation" :
			  c->invocations ? "%.0f invocations" : "%g s";

	snprintf(warmup, sizeof(warmup), fmt, c->invocations ? c->invocations : c->warmup_s);
	snprintf(measure, sizeof(measure), fmt, c->invocations ? c->invocations : c->measure_s);
	return app_jmh_json_write(c->jmh_path, &(const struct app_jmh_run){
		.prefix = "lcactor.", .threads = 1, .warmups = c->warmups,
		.iterations = c->iterations, .warmup_time = warmup, .measurement_time = measure,
	}, table_params, 4, rows, k, "lca-reqresp");
}

static void
print_summary(const struct app_conf *c, struct set_result *res, unsigned int n)
{
	double ceiling = res[0].stats.mean;

	print_table(c, res, n);
	printf("\n");
	/* Each row against its floor only, measured round by round beside it:
	 * a share of the inline row would divide by a set measured minutes
	 * earlier, on other minutes of a machine whose speed moves (the
	 * record keeps it, named as such). */
	for (unsigned int i = 1; i < n; i++) {
		const struct set_result *r = &res[i];
		double pct = ceiling > 0 ? 100.0 * r->stats.mean / ceiling : 0;

		printf("runtime efficiency: ");
		if (r->has_floor)
			printf("%.1f%% of its floor (median of %u pairs of rounds, %.1f%% to "
			       "%.1f%%)", 100.0 * r->ratio_stats.p50, (unsigned int)r->ratio_stats.n,
			       100.0 * r->ratio_stats.min, 100.0 * r->ratio_stats.max);
		else
			printf("floor n/a");
		printf(" (dispatcher %s, mailbox %s, throughPut %u%s%s)\n",
		       rr_dispatcher_name(r->set.dispatcher), lca_mailbox_mode_name(r->set.mailbox),
		       r->set.throughput, placement_named(&r->set) ? ", placement " : "",
		       placement_named(&r->set) ? lca_placement_name(r->set.placement) : "");
		json_object_set_new(r->json, "pct_of_inline_row", json_real(pct));
	}
}

/* One verdict row a set: its median in M msg/s, its interval, and its ratio
 * to its floor pair by pair, or why it has none. */
static int
add_verdicts(json_t *root, const struct set_result *res, unsigned int n)
{
	int ret = 0;

	for (unsigned int i = 0; i < n && ret == 0; i++) {
		const struct set_result *r = &res[i];
		char config[64];

		if (r->set.dispatcher == RR_DISPATCH_INLINE)
			snprintf(config, sizeof(config), "inline");
		else
			snprintf(config, sizeof(config), "%s %s tp=%u%s%s",
				 rr_dispatcher_name(r->set.dispatcher),
				 lca_mailbox_mode_name(r->set.mailbox), r->set.throughput,
				 placement_named(&r->set) ? " " : "",
				 placement_named(&r->set) ? lca_placement_name(r->set.placement) : "");
		ret = app_verdict_add(root, &(struct app_verdict_row){
			.config = config, .kind = APP_VERDICT_RATE,
			.score = r->stats.p50 / 1e6, .ci_half = r->stats.p50_error / 1e6,
			.unit = "M msg/s",
			.floor = r->has_floor ? "bare queues between the same lcores" : NULL,
			.no_floor_why = r->set.dispatcher == RR_DISPATCH_INLINE ?
				NO_FLOOR_INLINE : NO_FLOOR_SHARED,
			.ratios = r->has_floor ? r->ratio : NULL,
			.n_ratios = r->has_floor ? (unsigned int)r->ratio_stats.n : 0,
			.floor_moved_pct = r->has_floor ? r->floor_moved_pct : NAN,
			.window_s = r->has_floor ? fmin(r->window_s, r->floor_window_s) :
						   r->window_s,
		});
	}
	return ret;
}

/* One line per set, then the whole report over every measured iteration. */
static json_t *
print_freq_reports(struct set_result *res, unsigned int n)
{
	static struct app_freq_total total;

	printf("\nFrequency during the measured iterations:\n");
	memset(&total, 0, sizeof(total));
	for (unsigned int i = 0; i < n; i++) {
		json_t *freq = app_series_freq_json(&res[i].series);
		char verdict[256];

		app_series_verdict_text(&res[i].series, verdict, sizeof(verdict));
		printf("  (dispatcher = %s, mailbox = %s, throughPut = %u%s%s): %s\n",
		       rr_dispatcher_name(res[i].set.dispatcher),
		       lca_mailbox_mode_name(res[i].set.mailbox), res[i].set.throughput,
		       placement_named(&res[i].set) ? ", placement = " : "",
		       placement_named(&res[i].set) ?
			       lca_placement_name(res[i].set.placement) : "", verdict);

		/* A floor was measured in its set's series, round by round. */
		if (res[i].floor_json != NULL)
			json_object_set(res[i].floor_json, "frequency", freq);
		json_object_set_new(res[i].json, "frequency", freq);
		app_freq_total_add(&total, &res[i].series);
	}
	app_freq_total_print(stdout, "All measured iterations together:", &total);
	return app_freq_total_json(&total);
}

static json_t *
conf_json(const struct app_conf *c)
{
	json_t *places = json_array(), *conf;

	for (unsigned int i = 0; i < c->n_placements; i++)
		json_array_append_new(places, json_string(lca_placement_name(c->placements[i])));
	conf = json_pack("{s:s, s:i, s:i, s:f, s:f, s:i, s:i, s:I, s:i, s:s, s:s, s:I, s:s, s:o}",
			 "benchmark", "lcactor." BENCH_NAME, "iterations", (int)c->iterations, "warmups", (int)c->warmups, "measure_s",
			 c->measure_s, "warmup_s", c->warmup_s, "invocations", (int)c->invocations,
			 "actors", (int)c->rr.actors, "queries", (json_int_t)c->rr.queries, "users",
			 (int)c->rr.users, "placement", lca_placement_name(c->rr.placement), "idle",
			 lca_idle_policy_name(c->rr.idle), "seed", (json_int_t)c->rr.seed, "reply",
			 "pointer to immutable record", "placements", places);
	return conf;
}

static int
run(void *conf)
{
	const struct app_conf *c = conf;
	static struct set_result res[MAX_SETS];
	struct rr_set sets[MAX_SETS];
	unsigned int n = plan_sets(c, sets);
	json_t *root = app_result_new(conf_json(c));
	json_t *jplace = json_object_get(root, "placement");
	int ret = 0;

	app_report_machine(stdout);
	printf("# lca-reqresp: %u actors, %" PRIu64 " queries each, %u users per database, "
	       "%" PRIu64 " messages per invocation\n\n",
	       c->rr.actors, c->rr.queries, c->rr.users, c->rr.queries * c->rr.actors);
	for (unsigned int i = 0; i < n && ret == 0; i++) {
		res[i] = (struct set_result){ .set = sets[i] };
		ret = run_set(c, &res[i], jplace);
		printf("\n");
	}
	if (ret == 0) {
		print_summary(c, res, n);
		json_object_set_new(root, "frequency", print_freq_reports(res, n));
		printf("\n");
		app_report_send_errors(stdout);
		for (unsigned int i = 0; i < n; i++) {
			app_result_add(root, res[i].json);
			if (res[i].floor_json != NULL)
				app_result_add(root, res[i].floor_json);
		}
		ret = add_verdicts(root, res, n);
		if (ret == 0 && c->jmh_path != NULL)
			ret = write_jmh_json(c, res, n);
		if (app_result_finish(root, ret == 0, c->json_path) < 0 && ret == 0)
			ret = -EIO;
	}
	json_decref(root);
	for (unsigned int i = 0; i < n; i++)
		app_series_release(&res[i].series);
	return ret;
}

int
main(int argc, char **argv)
{
	struct app_conf conf;
	const struct app_spec app = {
		.name = "lca-reqresp", .parse = parse_args, .opts = &table, .run = run,
		.conf = &conf,
	};

	return app_main(argc, argv, &app);
}
