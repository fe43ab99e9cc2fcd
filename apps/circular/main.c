/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lca-circular: tonarino/actor's circular benchmark on lcactor, printed as
 * criterion prints it (time and thrpt with their confidence intervals,
 * outliers), plus the median and p99 of a round, the placement of every
 * actor and the frequency report.
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

#include "app_main.h"
#include "circular.h"
#include "app_cli.h"
#include "app_criterion.h"
#include "lca_eal.h"
#include "app_floor.h"
#include "lca_freq.h"
#include "app_freq_json.h"
#include "app_freq_print.h"
#include "app_report.h"
#include "app_stats.h"
#include "app_result.h"
#include "app_series.h"
#include "app_verdict.h"

#define MAX_SIZES 16
#define MAX_ACTORS 16384
#define MAX_SAMPLES 1000000
/* Bootstrap work is samples x resamples: keep it near a second. */
#define BOOTSTRAP_WORK 50000000u
#define MIN_RESAMPLES 1000u
#define BOOTSTRAP_SEED 0x5EEDC1Cu
#define ID_LEN 64
#define MAX_ITER 100
#define NO_FLOOR_WHY "no hop crosses lcores (the ring is on one lcore): there is no " \
	"hand-off between two lcores for a floor to measure"

struct app_conf {
	unsigned int sizes[MAX_SIZES];
	unsigned int n_sizes;
	bool sizes_given;
	uint32_t hops;
	unsigned int warmup;
	unsigned int samples;
	unsigned int iterations;
	double window_s;
	enum lca_placement placement;
	const char *json_path;
};

/*
 * The bare floors of a ring whose hops cross lcores, measured between the
 * two lcores of its first cross-lcore link after each iteration of the ring
 * (ABAB), for as long, timed per round as the ring is: one cache line
 * bounced (the hardware's least), and a 64-byte message through a ring of
 * slots each way (what a one-way message protocol pays, without the
 * runtime). A round's floor is its cross-lcore hops at that cost; the hops
 * within an lcore are taken as free.
 */
struct floor_figure {
	double handoff_ns; /* median round / hand-offs a round */
	double round_ns;   /* handoff_ns x the ring's cross-lcore hops a round */
	double ratio;      /* the ring's median round / round_ns */
};

/* One kind of floor over the iterations: each pair's, and their medians. */
struct floor_series {
	struct floor_figure pair[MAX_ITER];
	struct floor_figure median; /* of handoff_ns, round_ns and ratio apart */
	double ratios[MAX_ITER];
	double ratio_min, ratio_max;
	double moved_pct;           /* of handoff_ns; NAN with one round */
	double window_s;            /* the shortest */
};

struct hop_floor {
	bool measured;
	unsigned int lcores[2];
	int cpus[2];
	struct floor_series line;  /* one cache line bounced */
	struct floor_series slots; /* a 64-byte slot each way, as channels do */
};

/* What one ring size measured. */
struct size_result {
	const struct app_conf *c;
	unsigned int actors;
	char id[ID_LEN];
	struct circ_outcome out;
	double *ns;            /* every measured round, iteration after iteration */
	unsigned int n_ns;
	struct app_crit_summary sum;
	uint32_t hops;
	struct app_series series;
	unsigned int iter_rounds[MAX_ITER];
	double iter_median_ns[MAX_ITER];
	double iter_window_s[MAX_ITER];
	double window_s;       /* the shortest iteration */
	bool crosses;          /* a hop crosses lcores: the floor is measured */
	struct hop_floor floor;
};

static int
opt_sizes(void *conf, const struct app_opt *opt, char *text)
{
	struct app_conf *c = conf;
	char *items[MAX_SIZES];
	int k = app_cli_split(text, items, MAX_SIZES);

	(void)opt;
	if (k < 0)
		return -EINVAL;
	for (int i = 0; i < k; i++) {
		uint64_t v;

		if (app_cli_uint(items[i], 1, MAX_ACTORS, &v) < 0)
			return -EINVAL;
		c->sizes[i] = (unsigned int)v;
	}
	c->n_sizes = (unsigned int)k;
	c->sizes_given = true;
	return 0;
}

static int
opt_window_ms(void *conf, const struct app_opt *opt, char *val)
{
	uint64_t v;

	(void)opt;
	if (app_cli_uint(val, 0, 60000, &v) < 0)
		return -EINVAL;
	((struct app_conf *)conf)->window_s = (double)v / 1e3;
	return 0;
}

#define AT(field) APP_OPT_AT(struct app_conf, field)

static const struct app_opt options[] = {
	{ "actors", 0, APP_OPT_CUSTOM, .parse = opt_sizes, .metavar = "LIST",
	  .help = "ring sizes (default 1,2,3,lcores-1,lcores,50;\n"
		  "duplicates and values < 1 are dropped)",
	  .why = "a comma-separated list of sizes, each 1 to " RTE_STR(MAX_ACTORS) },
	{ "samples", 0, APP_OPT_UINT, AT(samples), .min = 2, .max = MAX_SAMPLES, .metavar = "N",
	  .help = "measured rounds per ring size, at least (default 100)" },
	{ "iterations", 0, APP_OPT_UINT, AT(iterations), .min = 1, .max = MAX_ITER,
	  .metavar = "N",
	  .help = "launches of the measured rounds, each followed by the\n"
		  "floors for as long (default 4)" },
	{ "window-ms", 0, APP_OPT_CUSTOM, .parse = opt_window_ms, .metavar = "MS",
	  .help = "an iteration runs rounds until they took MS (default\n"
		  "200; 0: just its share of --samples)",
	  .why = "a whole number of ms, 0 to 60000" },
	{ "warmup", 0, APP_OPT_UINT, AT(warmup), .min = 0, .max = MAX_SAMPLES, .metavar = "N",
	  .help = "warm-up rounds per ring size (default 50)" },
	{ "hops", 0, APP_OPT_UINT, AT(hops), .min = 1, .max = 1000000000, .metavar = "N",
	  .help = "hops per round (default 1000)" },
	{ "placement", 0, APP_OPT_CUSTOM, AT(placement), .parse = app_opt_placement,
	  .metavar = "P",
	  .help = "round-robin (default: hops cross lcores), pack (all on\n"
		  "one lcore: the same-lcore cost), pairs-local, auto\n"
		  "(round-robin, then the runtime moves actors that talk;\n"
		  "the placement and floors shown are the ring's at spawn)",
	  .why = "round-robin, pack, pairs-local or auto" },
	{ "json", 0, APP_OPT_OUTPUT, AT(json_path), .metavar = "FILE",
	  .help = "write every figure as JSON" },
	{ NULL },
};

static const struct app_opt_table table = {
	.prog = "lca-circular", .opts = options, .eal = true, .column = 20,
	.about = "tonarino/actor's circular benchmark on lcactor, reported as criterion does:\n"
		 "N actors in a ring; HOPS is sent to the first, each forwards n - 1 to the\n"
		 "next; a round ends at 0. One message in flight: the cost of a hop.\n",
};

static int
parse_args(int argc, char **argv, void *conf)
{
	struct app_conf *c = conf;

	*c = (struct app_conf){
		.hops = 1000, .warmup = 50, .samples = 100, .iterations = 4, .window_s = 0.2,
		.placement = LCA_PLACE_ROUND_ROBIN,
	};
	return app_opt_parse(argc, argv, &table, c, NULL);
}

/* The ring sizes to run, duplicates and values < 1 dropped; says which. */
static void
plan_sizes(struct app_conf *c)
{
	unsigned int lcores = rte_lcore_count(), in[MAX_SIZES], n_in, kept = 0, dropped = 0;
	const char *names[MAX_SIZES] = { NULL };

	if (c->sizes_given) {
		n_in = c->n_sizes;
		memcpy(in, c->sizes, sizeof(in[0]) * n_in);
	} else {
		const unsigned int def[] = { 1, 2, 3, lcores - 1, lcores, 50 };

		n_in = RTE_DIM(def);
		memcpy(in, def, sizeof(def));
		names[3] = "lcores - 1";
		names[4] = "lcores";
	}
	printf("# ring sizes%s: ", c->sizes_given ? " given" : "");
	for (unsigned int i = 0; i < n_in; i++)
		printf("%s%s%s%u", i ? ", " : "", names[i] ? names[i] : "", names[i] ? " = " : "",
		       in[i]);
	for (unsigned int i = 0; i < n_in; i++) {
		bool dup = false;

		for (unsigned int j = 0; j < kept; j++)
			dup |= c->sizes[j] == in[i];
		if (in[i] >= 1 && !dup) {
			c->sizes[kept++] = in[i];
			continue;
		}
		printf("%s%u (%s%s%s)", dropped++ ? ", " : "; dropped: ", in[i],
		       names[i] ? names[i] : "", names[i] ? ", " : "",
		       dup ? "a duplicate" : "less than 1");
	}
	c->n_sizes = kept;
	printf("\n# run: ");
	for (unsigned int i = 0; i < kept; i++)
		printf("%s%u", i ? ", " : "", c->sizes[i]);
	printf(" actors\n");
}

/* criterion's 100,000 resamples, fewer when there are many samples. */
static unsigned int
resamples(unsigned int samples)
{
	unsigned int n = RTE_MIN(APP_CRIT_RESAMPLES, BOOTSTRAP_WORK / samples);

	return RTE_MAX(MIN_RESAMPLES, n);
}

/* Measured rounds an iteration: its share of --samples, at least. */
static unsigned int
min_rounds(const struct app_conf *c)
{
	return (c->samples + c->iterations - 1) / c->iterations;
}

/* At most: the bootstrap of every round together stays near a second. */
static unsigned int
max_rounds(const struct app_conf *c)
{
	return RTE_MAX(min_rounds(c), MAX_SAMPLES / c->iterations);
}

static void
print_header(const struct app_conf *c)
{
	printf("# lca-circular: N actors in a ring; %" PRIu32 " is sent to the first, each actor "
	       "forwards n - 1 to the next, a round ends at 0 (one message in flight).\n",
	       c->hops);
	printf("# Method: the lcore loops keep running across rounds. The actor that gets 0 "
	       "reads the TSC, records the\n#   round and sends the next %" PRIu32 " to the "
	       "first actor itself (same envelope). A round is timed with\n#   rte_rdtsc from "
	       "its start send to the arrival of 0: %" PRIu64 " deliveries, counted as %" PRIu32
	       " elements (hops).\n",
	       c->hops, (uint64_t)c->hops + 1, c->hops);
	printf("# Per ring size: %u warm-up rounds (one launch of the loops); then, under the "
	       "frequency monitor, %u\n#   iterations, each a launch: 1 round not counted (it "
	       "includes the launch of the lcores) and at least\n#   %u measured rounds, until "
	       "they took %.0f ms; after each, the floors between the lcores of the\n#   first "
	       "cross-lcore link for as long (ABAB).\n",
	       c->warmup, c->iterations, min_rounds(c), c->window_s * 1e3);
	printf("# time: [low estimate high] = %.0f%% bootstrap confidence interval of the mean "
	       "(%u resamples, fewer for many rounds), estimate = mean;\n#   thrpt = %" PRIu32
	       " elements / time; outliers by Tukey's fences, as criterion.\n",
	       APP_CRIT_CONFIDENCE * 100, APP_CRIT_RESAMPLES, c->hops);
	printf("# Placement: %s\n", lca_placement_name(c->placement));
}

/* The first ring link that crosses lcores: the floor's two lcores. */
static void
find_cross(struct size_result *r)
{
	struct hop_floor *f = &r->floor;
	unsigned int i;

	for (i = 0; i < r->actors; i++)
		if (r->out.lcore_of[i] != r->out.lcore_of[(i + 1) % r->actors])
			break;
	r->crosses = i < r->actors && r->c->hops >= 2;
	if (!r->crosses)
		return; /* nothing crosses: no floor to compare with */
	f->lcores[0] = r->out.lcore_of[i];
	f->lcores[1] = r->out.lcore_of[(i + 1) % r->actors];
	f->cpus[0] = lca_topo_lcore_cpu(f->lcores[0]);
	f->cpus[1] = lca_topo_lcore_cpu(f->lcores[1]);
}

/* One kind of floor after iteration @p k, for as long as it took, in the
 * ring's buffer of cycles (its rounds are read already). */
static int
measure_floor_kind(struct size_result *r, unsigned int k, enum app_floor_kind kind,
		   struct floor_series *fs)
{
	const struct app_conf *c = r->c;
	uint32_t handoffs = c->hops & ~1u;
	double *ns = calloc(max_rounds(c), sizeof(*ns)), hz = (double)rte_get_tsc_hz(), spent = 0;
	struct floor_figure *out = &fs->pair[k];
	unsigned int n;
	struct app_stats st;
	int ret;

	ret = ns == NULL ? -ENOMEM :
		app_floor_bounce_for(kind, r->floor.lcores[0], r->floor.lcores[1], handoffs,
				     r->iter_window_s[k], min_rounds(c), max_rounds(c),
				     r->out.cycles, &n);
	for (unsigned int i = 0; ret == 0 && i < n; i++) {
		ns[i] = (double)r->out.cycles[i] * 1e9 / hz / handoffs;
		spent += (double)r->out.cycles[i] / hz;
	}
	if (ret == 0)
		ret = app_stats_compute(ns, n, 0.99, &st);
	if (ret == 0) {
		out->handoff_ns = st.p50;
		out->round_ns = st.p50 * c->hops * r->out.cross_links / r->actors;
		out->ratio = r->iter_median_ns[k] / out->round_ns;
		fs->ratios[k] = out->ratio;
		fs->window_s = k == 0 ? spent : fmin(fs->window_s, spent);
	}
	free(ns);
	return ret;
}

/* Iteration @p k's @p n rounds: kept, summed up, then its floors. */
static int
take_iteration(struct size_result *r, unsigned int k, unsigned int n)
{
	double *mine = r->ns + r->n_ns, ns_per_cycle = 1e9 / (double)rte_get_tsc_hz(), sum = 0;
	double *sorted;
	int ret = 0;

	for (unsigned int i = 0; i < n; i++) {
		mine[i] = (double)r->out.cycles[i] * ns_per_cycle;
		sum += mine[i];
	}
	sorted = app_stats_sorted_copy(mine, n);
	if (sorted == NULL)
		return -ENOMEM;
	r->iter_median_ns[k] = app_stats_percentile(sorted, n, 50);
	free(sorted);
	r->iter_rounds[k] = n;
	r->iter_window_s[k] = sum / 1e9;
	r->window_s = k == 0 ? sum / 1e9 : fmin(r->window_s, sum / 1e9);
	r->n_ns += n;
	if (r->crosses)
		ret = measure_floor_kind(r, k, APP_FLOOR_LINE, &r->floor.line);
	if (ret == 0 && r->crosses)
		ret = measure_floor_kind(r, k, APP_FLOOR_SLOTS, &r->floor.slots);
	return ret;
}

/* Around and between the measured iterations (circ_phase_fn). */
static int
on_phase(unsigned int k, unsigned int n, void *arg)
{
	struct size_result *r = arg;

	if (n > 0)
		return take_iteration(r, k, n);
	if (k == 0) {
		find_cross(r);
		app_series_begin(&r->series, r->id, 0);
	} else {
		app_series_end(&r->series);
	}
	return 0;
}

/* Medians over the pairs of rounds, and how far the floor moved. */
static void
floor_summary(struct floor_series *fs, unsigned int n)
{
	double h[MAX_ITER], rn[MAX_ITER];
	struct app_stats st;

	for (unsigned int k = 0; k < n; k++) {
		h[k] = fs->pair[k].handoff_ns;
		rn[k] = fs->pair[k].round_ns;
	}
	app_stats_compute(h, n, 0.99, &st);
	fs->median.handoff_ns = st.p50;
	app_stats_compute(rn, n, 0.99, &st);
	fs->median.round_ns = st.p50;
	app_stats_compute(fs->ratios, n, 0.99, &st);
	fs->median.ratio = st.p50;
	fs->ratio_min = st.min;
	fs->ratio_max = st.max;
	fs->moved_pct = app_floor_moved_pct(h, n);
}

static void
print_placement(const struct size_result *r, enum lca_placement p)
{
	unsigned int lcore_id;

	printf("%24splacement (%s):", "", lca_placement_name(p));
	RTE_LCORE_FOREACH(lcore_id) {
		unsigned int count = 0, shown = 0;

		for (unsigned int i = 0; i < r->actors; i++)
			count += r->out.lcore_of[i] == lcore_id;
		if (count == 0)
			continue;
		printf(" lcore %u:", lcore_id);
		for (unsigned int i = 0; i < r->actors; i++) {
			if (r->out.lcore_of[i] != lcore_id)
				continue;
			if (shown++ < 16)
				printf(" %u", i);
		}
		printf("%s (%u);", shown > 16 ? " ..." : "", count);
	}
	printf(" %u of %u ring links cross lcores\n", r->out.cross_links, r->actors);
}

static void
print_floor(const struct size_result *r)
{
	const struct hop_floor *f = &r->floor;
	const struct floor_series *l = &f->line;
	char line[32], slots[32];
	double tick = app_verdict_tick_s(), shortest = r->window_s;

	if (f->measured) {
		app_crit_format_time(l->median.round_ns, line, sizeof(line));
		app_crit_format_time(f->slots.median.round_ns, slots, sizeof(slots));
		printf("%24sfloor:  [%s]  (one line bounced between lcores %u and %u, CPUs %d and "
		       "%d: %.1f ns a hand-off, x %u of %u hops crossing)  ratio: [%.2fx]\n", "",
		       line, f->lcores[0], f->lcores[1], f->cpus[0], f->cpus[1],
		       l->median.handoff_ns, r->out.cross_links, r->actors, l->median.ratio);
		printf("%24sslots:  [%s]  (a 64-byte slot each way between the same lcores, no "
		       "runtime: %.1f ns a hand-off)  ratio: [%.2fx]\n", "", slots,
		       f->slots.median.handoff_ns, f->slots.median.ratio);
		printf("%24spairs:  ring / line floor, each floor right after its iteration:", "");
		for (unsigned int k = 0; k < r->c->iterations; k++)
			printf(" %.2fx", l->ratios[k]);
		printf("; spread %.2fx to %.2fx;", l->ratio_min, l->ratio_max);
		if (isnan(l->moved_pct))
			printf(" one floor round: how far it moves is unknown\n");
		else
			printf(" the floor moved %.1f%% between its rounds%s\n", l->moved_pct,
			       l->moved_pct > APP_VERDICT_MOVED_PCT ?
				       ": the CPUs moved during the run" : "");
		shortest = fmin(shortest, fmin(l->window_s, f->slots.window_s));
	}
	printf("%24swindow: the shortest iteration took %.1f ms", "", r->window_s * 1e3);
	if (f->measured)
		printf(", its floors' %.1f and %.1f ms", l->window_s * 1e3, f->slots.window_s * 1e3);
	if (shortest < APP_VERDICT_MIN_TICKS * tick)
		printf(": shorter than %d scheduler ticks (%.0f ms), too short to measure well",
		       APP_VERDICT_MIN_TICKS, APP_VERDICT_MIN_TICKS * tick * 1e3);
	printf("\n");
}

static void
print_result(const struct app_conf *c, const struct size_result *r)
{
	char med[32], p99[32], hop[32];

	app_crit_print(stdout, r->id, &r->sum, c->hops);
	app_crit_format_time(r->sum.median, med, sizeof(med));
	app_crit_format_time(r->sum.p99, p99, sizeof(p99));
	app_crit_format_time(r->sum.median / c->hops, hop, sizeof(hop));
	printf("%24smedian: [%s]  p99: [%s]  (a round of %" PRIu32 " hops; median per hop "
	       "%s)\n", "", med, p99, c->hops, hop);
	print_placement(r, c->placement);
	print_floor(r);
}

/* The time of a round with criterion's bootstrap interval, not Student's t. */
static json_t *
time_json(const struct size_result *r)
{
	json_t *t = app_result_measure_of(r->ns, r->n_ns, r->sum.confidence, "ns");

	json_object_set_new(t, "ci_low", json_real(r->sum.ci_low));
	json_object_set_new(t, "ci_high", json_real(r->sum.ci_high));
	json_object_set_new(t, "ci_method", json_string("bootstrap"));
	json_object_set_new(t, "per_hop_median", json_real(r->sum.median / r->hops));
	return t;
}

static json_t *
thrpt_json(const struct size_result *r)
{
	double *thr = malloc(sizeof(*thr) * r->n_ns);
	json_t *j;

	if (thr == NULL)
		return NULL;
	for (unsigned int i = 0; i < r->n_ns; i++)
		thr[i] = r->hops * 1e9 / r->ns[i];
	j = app_result_measure_of(thr, r->n_ns, r->sum.confidence, "elem/s");
	free(thr);
	return j;
}

static json_t *
real_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static json_t *
floor_kind_json(const struct floor_series *fs, unsigned int n, const char *what)
{
	json_t *pairs = json_array();

	for (unsigned int k = 0; k < n; k++)
		json_array_append_new(pairs, json_pack("{s:f, s:f, s:f}", "handoff_median_ns",
						       fs->pair[k].handoff_ns, "round_ns",
						       fs->pair[k].round_ns, "ratio",
						       fs->pair[k].ratio));
	return json_pack("{s:s, s:f, s:f, s:f, s:o, s:o, s:f}", "what", what, "handoff_median_ns",
			 fs->median.handoff_ns, "round_ns", fs->median.round_ns,
			 "ratio_median_to_floor", fs->median.ratio, "pairs", pairs, "moved_pct",
			 real_or_null(fs->moved_pct), "window_s", fs->window_s);
}

static json_t *
floor_json(const struct size_result *r)
{
	const struct hop_floor *f = &r->floor;
	unsigned int n = r->c->iterations;
	json_t *j = floor_kind_json(&f->line, n, "one cache line bounced between the lcores of "
						 "the first cross-lcore link");

	json_object_set_new(j, "lcores", json_pack("[i, i]", (int)f->lcores[0], (int)f->lcores[1]));
	json_object_set_new(j, "cpus", json_pack("[i, i]", f->cpus[0], f->cpus[1]));
	json_object_set_new(j, "slots", floor_kind_json(&f->slots, n, "a 64-byte message through "
								       "a ring of slots each way, "
								       "no runtime"));
	return j;
}

static json_t *
iterations_json(const struct size_result *r)
{
	json_t *a = json_array();

	for (unsigned int k = 0; k < r->c->iterations; k++)
		json_array_append_new(a, json_pack("{s:i, s:f, s:f}", "rounds",
						   (int)r->iter_rounds[k], "median_ns",
						   r->iter_median_ns[k], "window_s",
						   r->iter_window_s[k]));
	return a;
}

static json_t *
result_json(const struct size_result *r)
{
	const struct app_crit_summary *m = &r->sum;
	json_t *place = json_array();

	json_t *j;

	for (unsigned int i = 0; i < r->actors; i++)
		json_array_append_new(place, json_integer(r->out.lcore_of[i]));
	j = json_pack("{s:s, s:i, s:o, s:i, s:o, s:o, s:{s:i, s:i, s:i, s:i}, s:I, s:I, s:I, "
			 "s:o, s:o, s:f}",
			 "name", r->id, "actors", (int)r->actors, "lcore_of_actor", place,
			 "cross_lcore_links", (int)r->out.cross_links, "time", time_json(r),
			 "throughput", thrpt_json(r), "outliers", "low_severe",
			 (int)m->low_severe, "low_mild", (int)m->low_mild, "high_mild",
			 (int)m->high_mild, "high_severe", (int)m->high_severe, "rounds",
			 (json_int_t)r->out.rounds, "handled", (json_int_t)r->out.handled,
			 "expected", (json_int_t)r->out.expected, "frequency",
			 app_series_freq_json(&r->series), "iterations", iterations_json(r),
			 "window_s", r->window_s);
	if (r->floor.measured)
		json_object_set_new(j, "floor", floor_json(r));
	return j;
}

static int
run_size(const struct app_conf *c, struct size_result *r)
{
	struct circ_conf cc = {
		.actors = r->actors, .hops = c->hops, .warmup = c->warmup,
		.iterations = c->iterations, .min_rounds = min_rounds(c),
		.window_s = c->window_s, .max_rounds = max_rounds(c), .placement = c->placement,
	};
	double *kept;
	int ret;

	snprintf(r->id, sizeof(r->id), "circular/circular (%u actor%s)", r->actors,
		 r->actors == 1 ? "" : "s");
	r->c = c;
	r->out.cycles = calloc(max_rounds(c), sizeof(uint64_t));
	r->out.lcore_of = calloc(r->actors, sizeof(unsigned int));
	r->ns = calloc((size_t)max_rounds(c) * c->iterations, sizeof(double));
	if (r->out.cycles == NULL || r->out.lcore_of == NULL || r->ns == NULL)
		return -ENOMEM;
	ret = circ_run(&cc, on_phase, r, &r->out);
	if (ret < 0)
		return ret;
	/* Room was made for every iteration at its most: keep what ran. */
	kept = realloc(r->ns, sizeof(double) * r->n_ns);
	if (kept != NULL)
		r->ns = kept;
	ret = app_crit_summarize(r->ns, r->n_ns, APP_CRIT_CONFIDENCE, resamples(r->n_ns),
				 BOOTSTRAP_SEED, &r->sum);
	if (ret == 0 && r->crosses) {
		floor_summary(&r->floor.line, c->iterations);
		floor_summary(&r->floor.slots, c->iterations);
		r->floor.measured = true;
	}
	if (ret == 0)
		print_result(c, r);
	return ret;
}

static void
print_summary(const struct app_conf *c, const struct size_result *res, unsigned int n)
{
	printf("\n%-8s %-12s %11s %12s %12s %12s %12s %14s\n", "actors", "placement",
	       "cross links", "mean", "median", "p99", "per hop", "thrpt");
	for (unsigned int i = 0; i < n; i++) {
		const struct size_result *r = &res[i];
		char mean[32], med[32], p99[32], hop[32], thr[32];

		app_crit_format_time(r->sum.mean, mean, sizeof(mean));
		app_crit_format_time(r->sum.median, med, sizeof(med));
		app_crit_format_time(r->sum.p99, p99, sizeof(p99));
		app_crit_format_time(r->sum.median / c->hops, hop, sizeof(hop));
		app_crit_format_thrpt(c->hops, r->sum.mean, thr, sizeof(thr));
		printf("%-8u %-12s %5u of %-3u %12s %12s %12s %12s %14s\n", r->actors,
		       lca_placement_name(c->placement), r->out.cross_links, r->actors, mean, med,
		       p99, hop, thr);
	}
}

/* A verdict per ring size, then the report over every measured round. */
static json_t *
print_freq(const struct size_result *res, unsigned int n)
{
	static struct app_freq_total total;

	printf("\nFrequency during the measured rounds:\n");
	memset(&total, 0, sizeof(total));
	for (unsigned int i = 0; i < n; i++) {
		char verdict[256];

		app_series_verdict_text(&res[i].series, verdict, sizeof(verdict));
		printf("  %u actors: %s\n", res[i].actors, verdict);
		app_freq_total_add(&total, &res[i].series);
	}
	app_freq_total_print(stdout, "All measured rounds together:", &total);
	return app_freq_total_json(&total);
}

/* One verdict row a ring size: its median hop, and its ratio to the line
 * floor pair by pair, or why it has none. */
static int
add_verdicts(json_t *root, const struct size_result *res, unsigned int n)
{
	int ret = 0;

	for (unsigned int i = 0; i < n && ret == 0; i++) {
		const struct size_result *r = &res[i];
		const struct hop_floor *f = &r->floor;
		char config[64], floor[96];
		struct app_stats iter;

		/* The interval of the median: the iterations' medians' own
		 * (order statistics), as wide around the score as it reaches. */
		app_stats_compute(r->iter_median_ns, r->c->iterations, APP_CRIT_CONFIDENCE, &iter);
		snprintf(config, sizeof(config), "%u actor%s %s", r->actors,
			 r->actors == 1 ? "" : "s", lca_placement_name(r->c->placement));
		snprintf(floor, sizeof(floor), "one line bounced between lcores %u and %u",
			 f->lcores[0], f->lcores[1]);
		ret = app_verdict_add(root, &(struct app_verdict_row){
			.config = config, .kind = APP_VERDICT_TIME,
			.score = r->sum.median / r->hops,
			.ci_half = fmax(r->sum.median - iter.p50_lo,
					iter.p50_hi - r->sum.median) / r->hops,
			.unit = "ns/hop",
			.floor = f->measured ? floor : NULL, .no_floor_why = NO_FLOOR_WHY,
			.ratios = f->line.ratios, .n_ratios = f->measured ? r->c->iterations : 0,
			.floor_moved_pct = f->measured ? f->line.moved_pct : NAN,
			.window_s = f->measured ? fmin(r->window_s, fmin(f->line.window_s,
									 f->slots.window_s)) :
						  r->window_s,
		});
	}
	return ret;
}

static int
run(void *conf)
{
	struct app_conf *c = conf;
	static struct size_result res[MAX_SIZES];
	json_t *root, *jsizes = json_array();
	struct app_progress progress;
	unsigned int done = 0;
	int ret = 0;

	app_report_machine(stdout);
	print_header(c);
	plan_sizes(c);
	printf("\n");
	/* A ring size's rounds run in one launch of the loops: the progress
	 * is by ring size. */
	app_progress_start(&progress, "ring sizes", c->n_sizes);
	for (unsigned int i = 0; i < c->n_sizes && ret == 0; i++) {
		res[i] = (struct size_result){ .actors = c->sizes[i], .hops = c->hops };
		app_progress_step(&progress, i + 1);
		ret = run_size(c, &res[i]);
		if (ret == 0) {
			json_array_append_new(jsizes, json_integer(c->sizes[i]));
			done++;
		}
	}
	app_progress_done(&progress);
	root = app_result_new(json_pack("{s:s, s:I, s:i, s:i, s:f, s:i, s:s, s:o, s:s}",
					"benchmark", "circular", "hops", (json_int_t)c->hops,
					"samples", (int)c->samples, "iterations",
					(int)c->iterations, "window_s", c->window_s, "warmup",
					(int)c->warmup, "placement",
					lca_placement_name(c->placement), "actors", jsizes,
					"method", "loops keep running; the actor that gets 0 "
					"starts the next round; first round after each launch "
					"not counted"));
	for (unsigned int i = 0; i < done; i++)
		app_result_add(root, result_json(&res[i]));
	if (ret == 0) {
		print_summary(c, res, done);
		json_object_set_new(root, "frequency", print_freq(res, done));
		ret = add_verdicts(root, res, done);
		if (app_result_finish(root, ret == 0, c->json_path) < 0 && ret == 0)
			ret = -EIO;
	}
	json_decref(root);
	for (unsigned int i = 0; i < c->n_sizes; i++) {
		free(res[i].out.cycles);
		free(res[i].out.lcore_of);
		free(res[i].ns);
		app_series_release(&res[i].series);
	}
	return ret;
}

int
main(int argc, char **argv)
{
	struct app_conf conf;
	const struct app_spec app = {
		.name = "lca-circular", .parse = parse_args, .opts = &table, .run = run,
		.conf = &conf,
	};

	return app_main(argc, argv, &app);
}
