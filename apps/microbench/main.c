/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lca-microbench: messages per second through the runtime's hot path.
 *
 * Scenarios (mb_bench.c):
 *   same-lcore   one sender streams to one receiver, both on the main lcore;
 *   cross-lcore  the sender on the main lcore, the receiver on the next one;
 *   many-to-one  N senders spread over both lcores, one receiver;
 *   idle         one busy actor (it forwards a window of messages to itself)
 *                alone, then among 10,000 idle actors on the same lcore.
 *
 * This file: the options, the lines printed per run and per series, and
 * the JSON record (docs/json.md). Each series of measured runs is wrapped
 * in the frequency monitor (app_series.h), whose per-lcore clock and steal
 * report follows the series' summary.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "lca_actor.h"
#include "app_main.h"
#include "app_cli.h"
#include "app_floor.h"
#include "app_floor_stream.h"
#include "lca_mempool.h"
#include "app_report.h"
#include "app_result.h"
#include "lca_topo.h"
#include "app_verdict.h"
#include "app_window.h"
#include "microbench.h"

#define PROG MB_PROG

const char *const mb_scenario_names[MB_SCENARIOS] = {
	[MB_SAME_LCORE] = "same-lcore",
	[MB_CROSS_LCORE] = "cross-lcore",
	[MB_MANY_TO_ONE] = "many-to-one",
	[MB_IDLE] = "idle",
};

/* The record every series adds to, and the frequency over all of them. */
static json_t *record;
static struct app_freq_total freq_total;

static int
parse_scenarios(const char *arg, bool *want)
{
	char *copy = strdup(arg), *items[MB_SCENARIOS * 4];
	int n = copy ? app_cli_split(copy, items, RTE_DIM(items)) : -ENOMEM;

	if (n < 0) {
		free(copy);
		return n;
	}
	memset(want, 0, sizeof(bool) * MB_SCENARIOS);
	for (int i = 0; i < n; i++) {
		unsigned int s;

		for (s = 0; s < MB_SCENARIOS; s++)
			if (strcmp(items[i], mb_scenario_names[s]) == 0)
				break;
		if (s == MB_SCENARIOS) {
			fprintf(stderr, PROG ": unknown scenario '%s' (same-lcore, cross-lcore, "
					"many-to-one, idle)\n", items[i]);
			free(copy);
			return -ENOENT;
		}
		want[s] = true;
	}
	free(copy);
	return 0;
}

static int
opt_mailbox_size(void *conf, const struct app_opt *opt, char *val)
{
	uint64_t *out = app_opt_target(opt, conf);
	int ret = app_cli_uint(val, 2, UINT64_C(1) << 24, out);

	return ret == 0 && !rte_is_power_of_2((uint32_t)*out) ? -EINVAL : ret;
}

static int
opt_scenario(void *conf, const struct app_opt *opt, char *val)
{
	int ret = parse_scenarios(val, ((struct mb_conf *)conf)->want);

	(void)opt;
	/* An unknown scenario has been named already. */
	return ret == -ENOENT ? APP_OPT_SAID : ret;
}

/* What needs every option at once, or EAL's lcores. */
/* Envelopes: full mailboxes, every sender's bursts in flight, and one for
 * each idle actor, which all get theirs at once. */
static uint64_t
mb_pool_size(const struct mb_conf *c)
{
	uint64_t flows = RTE_MAX(65535ull, 2 * c->mailbox_size + (c->senders + 1) * c->batch + 8192);

	return RTE_MAX(flows, c->want[MB_IDLE] ? c->idle + 8192 : 0);
}

/*
 * Whether EAL's memory holds the idle crowd: its actors (what
 * lca_actor_footprint() says), and what the runtime sizes for that many
 * actors (a control ring entry of each kind, a run-queue and a stealing
 * slot on every lcore, the table) beside the envelope pools. An estimate,
 * so that --idle too large is refused now rather than after the other
 * scenarios ran.
 */
static bool
idle_crowd_fits(const struct mb_conf *c)
{
	struct lca_actor_spec idle = { .mailbox_size = 2 };
	struct rte_malloc_socket_stats st;
	uint64_t actors = c->idle + c->senders + 16;
	uint64_t need = c->idle * lca_actor_footprint(&idle) +
			actors * 8 * (2 + 10 * rte_lcore_count()) +
			mb_pool_size(c) * 2 * RTE_CACHE_LINE_SIZE;

	if (rte_malloc_get_socket_stats((int)rte_socket_id(), &st) != 0 ||
	    need <= st.heap_freesz_bytes)
		return true;
	fprintf(stderr, PROG ": --idle %" PRIu64 " needs about %" PRIu64 " MB of EAL memory, "
			"%zu MB are free: give EAL more (-m, or hugepages) or ask for fewer\n",
		c->idle, need >> 20, st.heap_freesz_bytes >> 20);
	return false;
}

static int
check_conf(const struct mb_conf *c)
{
	if (c->burst > c->batch) {
		fprintf(stderr, PROG ": --burst (%" PRIu64 ") must not exceed --batch (%" PRIu64 ")\n",
			c->burst, c->batch);
		return -EINVAL;
	}
	if (c->want[MB_IDLE] && !idle_crowd_fits(c))
		return -EINVAL;
	if ((c->want[MB_CROSS_LCORE] || c->want[MB_MANY_TO_ONE]) && rte_lcore_count() < 2) {
		fprintf(stderr, PROG ": cross-lcore and many-to-one need 2 lcores (EAL -l 0-1); "
				"have %u; choose others with --scenario\n", rte_lcore_count());
		return -EINVAL;
	}
	return 0;
}

#define AT(field) APP_OPT_AT(struct mb_conf, field)

static const struct app_opt options[] = {
	{ "scenario", 0, APP_OPT_CUSTOM, .parse = opt_scenario, .metavar = "LIST",
	  .help = "comma-separated: same-lcore,cross-lcore,many-to-one,idle\n(default: all)" },
	{ "messages", 0, APP_OPT_UINT, AT(messages), .min = 1, .max = UINT64_C(1) << 40,
	  APP_OPT_GIVEN(struct mb_conf, messages_given), .metavar = "N",
	  .help = "messages per run and per floor round, exactly (default:\n"
		  "each scenario's warm-up run of " RTE_STR(MB_WARMUP_MAX) ", and pilots until one\n"
		  "lasts 50 ms, set the count that takes 250 ms, its\n"
		  "floor's apart)" },
	{ "runs", 0, APP_OPT_UINT, AT(runs), .min = 1, .max = MB_MAX_RUNS, .metavar = "N",
	  .help = "measured runs per scenario (default 5)" },
	{ "burst", 0, APP_OPT_UINT, AT(burst), .min = 1, .max = MB_MAX_BURST, .metavar = "N",
	  .help = "envelopes per alloc/send call, 1.." RTE_STR(MB_MAX_BURST) " (default 32;\n"
		  "1: lca_msg_alloc + lca_send)" },
	{ "batch", 0, APP_OPT_UINT, AT(batch), .min = 1, .max = 65536, .metavar = "N",
	  .help = "messages a sender sends per turn (default 256, >= burst)" },
	{ "senders", 0, APP_OPT_UINT, AT(senders), .min = 1, .max = MB_MAX_SENDERS,
	  .metavar = "N",
	  .help = "senders of many-to-one, 1.." RTE_STR(MB_MAX_SENDERS) " (default 4)" },
	{ "idle", 0, APP_OPT_UINT, AT(idle), .min = 1, .max = 1000000, .metavar = "N",
	  .help = "idle actors of the idle scenario (default 10000)" },
	{ "throughput", 0, APP_OPT_UINT, AT(throughput), .min = 1, .max = 1024, .metavar = "N",
	  .help = "receiver's messages per turn, 1..1024 (default 256)" },
	{ "mailbox-size", 0, APP_OPT_CUSTOM, AT(mailbox_size), .parse = opt_mailbox_size,
	  .metavar = "N", .help = "receiver's mailbox, a power of two (default 4096)",
	  .why = "a power of two, 2 to 16777216" },
	{ "mailbox", 0, APP_OPT_CUSTOM, AT(mailbox_mode), .parse = app_opt_mailbox,
	  .metavar = "MODE", .help = "receiver's mailbox mode: mp, sp, rts, hts (default mp)",
	  .why = "mp, sp, rts or hts" },
	{ "timeout", 0, APP_OPT_UINT, AT(timeout_s), .min = 1, .max = 86400, .metavar = "SEC",
	  .help = "give up on a run after SEC seconds (default 120)" },
	{ "json", 0, APP_OPT_OUTPUT, AT(json_path), .metavar = "FILE",
	  .help = "also write the results as JSON (docs/json.md)" },
	{ NULL },
};

static const struct app_opt_table table = {
	.prog = PROG, .opts = options, .eal = true,
	.about = "Messages per second through lcactor's send path.\n",
};

static int
parse_args(int argc, char **argv, void *conf)
{
	struct mb_conf *c = conf;
	int ret;

	*c = (struct mb_conf){
		.messages = 20000000, .runs = 5, .burst = 32, .batch = 256, .senders = 4,
		.idle = 10000, .throughput = 256, .mailbox_size = 4096, .timeout_s = 120,
		.mailbox_mode = LCA_MAILBOX_MP,
	};
	for (unsigned int s = 0; s < MB_SCENARIOS; s++)
		c->want[s] = true;
	ret = app_opt_parse(argc, argv, &table, c, NULL);
	return ret != 0 ? ret : check_conf(c);
}

/* --- what the scenarios print and record ---------------------------------- */

void
mb_print_run(const struct mb_result *r, unsigned int i)
{
	printf("%-12s %s: run %u: %" PRIu64 " msgs in %.1f ms = %.2f M msg/s", r->scenario,
	       r->variant, i + 1, r->messages, r->ms[i], r->mps[i]);
	if (strcmp(r->scenario, "idle") != 0)
		printf(", ENOBUFS retries %" PRIu64 " (%" PRIu64 " msgs re-sent)"
		       ", pool-empty retries %" PRIu64,
		       r->full_retries[i], r->full_msgs[i], r->pool_retries[i]);
	printf("\n");
	fflush(stdout);
}

/* Messages per run that take the window at the warm-up's rate, or --messages. */
uint64_t
mb_calibrate(const struct mb_conf *c, uint64_t warm_msgs, double warm_ms)
{
	if (c->messages_given)
		return c->messages;
	return app_window_count(warm_msgs, warm_ms / 1e3, app_window_target_s(), 1, warm_msgs,
				UINT64_C(1) << 40);
}

void
mb_print_calibration(const struct mb_result *r)
{
	if (r->warmup_ms <= 0)
		return;
	printf("   calibrated: pilot %" PRIu64 " msgs in %.1f ms = %.2f M msg/s: %" PRIu64
	       " msgs a run (%.0f ms)", r->warmup_msgs, r->warmup_ms,
	       (double)r->warmup_msgs / (r->warmup_ms * 1e3), r->messages,
	       app_window_target_s() * 1e3);
	if (r->floor_warmup_ms > 0)
		printf("; its floor's %" PRIu64 " in %.1f ms: %" PRIu64 " a round",
		       r->floor_warmup_msgs, r->floor_warmup_ms, r->floor_messages);
	printf("\n");
}

void
mb_print_floor(const struct mb_result *r, unsigned int i)
{
	printf("%-12s %s: floor %u: %" PRIu64 " msgs in %.1f ms = %.2f M msg/s; run / floor "
	       "= %.1f%%\n", r->scenario, r->variant, i + 1, r->floor_messages, r->floor_ms[i],
	       r->floor_mps[i], 100.0 * r->mps[i] / r->floor_mps[i]);
	fflush(stdout);
}

/* The floor's rounds and each pair's ratio, as the series' "floor". */
static json_t *
floor_json(const struct mb_result *r, const double *ratios, const struct app_stats *rs)
{
	json_t *pairs = json_array();
	double moved = app_floor_moved_pct(r->floor_mps, r->runs);

	for (unsigned int i = 0; i < r->runs; i++)
		json_array_append_new(pairs, json_real(ratios[i]));
	return json_pack("{s:s, s:s, s:I, s:o, s:o, s:o, s:f, s:f, s:f, s:o}", "what",
			 r->floor_what, "order", "ABAB: a floor round before each run",
			 "messages_per_round", (json_int_t)r->floor_messages, "throughput",
			 app_result_measure_of(r->floor_mps, r->runs, MB_CONFIDENCE, "Mmsg/s"),
			 "time", app_result_measure_of(r->floor_ms, r->runs, MB_CONFIDENCE, "ms"),
			 "ratios", pairs, "ratio_median", rs->p50, "ratio_min", rs->min,
			 "ratio_max", rs->max, "moved_pct",
			 isfinite(moved) ? json_real(moved) : json_null());
}

/* The series' verdict row: its median against its floor, pair by pair. */
static void
add_verdict(const struct mb_result *r, const double *ratios)
{
	double window = fmin(app_window_min(r->ms, r->runs), app_window_min(r->floor_ms, r->runs));

	app_verdict_add(record, &(const struct app_verdict_row){
		.config = r->label, .kind = APP_VERDICT_RATE, .score = r->stats.p50,
		.ci_half = r->stats.p50_error, .unit = "M msg/s", .floor = r->floor_what,
		.ratios = ratios, .n_ratios = r->runs,
		.floor_moved_pct = app_floor_moved_pct(r->floor_mps, r->runs),
		.window_s = window / 1e3,
	});
}

/* How the series' count was set: the warm-up that calibrated it, or null. */
static json_t *
calibration_json(const struct mb_result *r)
{
	json_t *j;

	if (r->warmup_ms <= 0)
		return json_null();
	j = json_pack("{s:f, s:I, s:f}", "target_ms", app_window_target_s() * 1e3,
		      "warmup_messages", (json_int_t)r->warmup_msgs, "warmup_ms", r->warmup_ms);
	if (r->floor_warmup_ms > 0) {
		json_object_set_new(j, "floor_warmup_messages",
				    json_integer((json_int_t)r->floor_warmup_msgs));
		json_object_set_new(j, "floor_warmup_ms", json_real(r->floor_warmup_ms));
	}
	return j;
}

/* The series' window: its shortest run, and its floor's shortest round. */
static void
print_window(const struct mb_result *r)
{
	double w = app_window_min(r->ms, r->runs), shortest = w;

	printf("%-12s %s: window: the shortest run took %.1f ms", r->scenario, r->variant, w);
	if (r->floor_what[0] != '\0') {
		shortest = fmin(w, app_window_min(r->floor_ms, r->runs));
		printf(", the floor's shortest round %.1f ms", app_window_min(r->floor_ms, r->runs));
	}
	app_window_end_line(stdout, shortest / 1e3,
			    r->calibrated ? NULL : "give more --messages, or none to calibrate");
}

static json_t *
series_json(const struct mb_result *r)
{
	json_t *runs = json_array();

	for (unsigned int i = 0; i < r->runs; i++)
		json_array_append_new(runs, json_pack("{s:I, s:I, s:I}", "enobufs_retries",
						      (json_int_t)r->full_retries[i],
						      "enobufs_msgs", (json_int_t)r->full_msgs[i],
						      "pool_empty_retries",
						      (json_int_t)r->pool_retries[i]));
	return json_pack("{s:s, s:s, s:s, s:I, s:o, s:o, s:o, s:o, s:o}", "name", r->label,
			 "scenario", r->scenario, "variant", r->variant, "messages_per_run",
			 (json_int_t)r->messages, "calibration", calibration_json(r), "throughput",
			 app_result_measure(&r->stats, r->mps, "Mmsg/s"), "time",
			 app_result_measure_of(r->ms, r->runs, MB_CONFIDENCE, "ms"), "runs", runs,
			 "frequency", app_series_freq_json(&r->series));
}

void
mb_report_series(struct mb_result *r)
{
	double ratios[MB_MAX_RUNS], moved;
	struct app_stats rs;
	json_t *j;

	app_stats_compute(r->mps, r->runs, MB_CONFIDENCE, &r->stats);
	printf("%-12s %s: mean %.2f M msg/s, min %.2f, max %.2f (%u runs)\n", r->scenario,
	       r->variant, r->stats.mean, r->stats.min, r->stats.max, r->runs);
	print_window(r);
	j = series_json(r);
	if (r->floor_what[0] != '\0') {
		app_floor_ratios(r->mps, r->floor_mps, r->runs, ratios);
		app_stats_compute(ratios, r->runs, MB_CONFIDENCE, &rs);
		moved = app_floor_moved_pct(r->floor_mps, r->runs);
		printf("%-12s %s: run / floor: median %.1f%%, min %.1f%%, max %.1f%% over %u "
		       "pairs; ", r->scenario, r->variant, 100 * rs.p50, 100 * rs.min,
		       100 * rs.max, r->runs);
		if (isfinite(moved))
			printf("the floor moved %.0f%% between its rounds\n", moved);
		else
			printf("one floor round: no spread\n");
		json_object_set_new(j, "floor", floor_json(r, ratios, &rs));
		add_verdict(r, ratios);
	}
	app_series_print_freq(stdout, &r->series);
	app_freq_total_add(&freq_total, &r->series);
	app_result_add(record, j);
}

/*
 * The idle scenario's row: what it asks is whether a crowd costs the busy
 * actor anything, so its reference is the same actor alone, pair by pair.
 * Not alternated: 10,000 actors cannot come and go between two runs.
 */
static void
add_idle_verdict(const struct mb_result *crowd, const struct mb_result *alone)
{
	unsigned int n = RTE_MIN(crowd->runs, alone->runs);
	double ratios[MB_MAX_RUNS];
	double window = fmin(app_window_min(crowd->ms, crowd->runs),
			     app_window_min(alone->ms, alone->runs));

	app_floor_ratios(crowd->mps, alone->mps, n, ratios);
	app_verdict_add(record, &(const struct app_verdict_row){
		.config = crowd->label, .kind = APP_VERDICT_RATE, .score = crowd->stats.p50,
		.ci_half = crowd->stats.p50_error, .unit = "M msg/s",
		.floor = "the same busy actor alone on its lcore (its series ran before the "
			 "crowd was spawned, not alternated)",
		.ratios = ratios, .n_ratios = n,
		.floor_moved_pct = app_floor_moved_pct(alone->mps, alone->runs),
		.window_s = window / 1e3,
	});
}

void
mb_report_idle_ratio(const struct mb_conf *c, const struct mb_result *alone,
		     const struct mb_result *crowd)
{
	double kept = 100.0 * crowd->stats.mean / alone->stats.mean;
	double kept_best = 100.0 * crowd->stats.max / alone->stats.max;

	/* Interference only ever slows a run down, so the best runs are the
	 * steadier comparison on a noisy machine; both are printed. */
	printf("busy actor keeps %.1f%% of its single-actor rate among %" PRIu64
	       " idle actors (mean %.2f vs %.2f M msg/s; best runs %.2f vs %.2f: %.1f%%)\n",
	       kept, c->idle, crowd->stats.mean, alone->stats.mean, crowd->stats.max,
	       alone->stats.max, kept_best);
	app_result_add(record, json_pack("{s:s, s:I, s:f, s:f}", "name", "idle-ratio",
					 "idle_actors", (json_int_t)c->idle, "percent_kept", kept,
					 "percent_kept_best", kept_best));
	add_idle_verdict(crowd, alone);
}

/* --- main ---------------------------------------------------------------- */

static json_t *
conf_json(const struct mb_conf *c)
{
	json_t *scen = json_array();

	for (unsigned int s = 0; s < MB_SCENARIOS; s++)
		if (c->want[s])
			json_array_append_new(scen, json_string(mb_scenario_names[s]));
	return json_pack("{s:I, s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:s, s:o}",
			 "messages", (json_int_t)c->messages, "messages_calibrated",
			 !c->messages_given, "runs", (json_int_t)c->runs, "burst",
			 (json_int_t)c->burst, "batch", (json_int_t)c->batch, "senders",
			 (json_int_t)c->senders, "idle", (json_int_t)c->idle, "throughput",
			 (json_int_t)c->throughput, "mailbox_size", (json_int_t)c->mailbox_size,
			 "timeout_s", (json_int_t)c->timeout_s, "mailbox_mode",
			 lca_mailbox_mode_name(c->mailbox_mode), "scenarios", scen);
}

static int
run_scenarios(const struct mb_conf *c)
{
	unsigned int avail_before = lca_mempool_avail(), avail_after;
	int ret = 0;

	for (unsigned int s = 0; ret == 0 && s < MB_SCENARIOS; s++) {
		if (!c->want[s])
			continue;
		ret = s == MB_IDLE ? mb_idle_scenario(c) :
				     mb_stream_scenario(c, (enum mb_scenario)s);
	}
	avail_after = lca_mempool_avail();
	if (ret == 0 && avail_after != avail_before) {
		fprintf(stderr, PROG ": envelopes leaked: %u available before, %u after\n",
			avail_before, avail_after);
		ret = -EIO;
	}
	return ret;
}

static int
run(void *arg)
{
	const struct mb_conf *c = arg;
	struct lca_runtime_conf rconf = { 0 };
	int ret;

	/* Every actor of every scenario fits, and every envelope. */
	rconf.max_actors = (unsigned int)(c->idle + c->senders + 16);
	rconf.msgs_per_node = (unsigned int)mb_pool_size(c);
	ret = lca_runtime_init(&rconf);
	if (ret < 0)
		return ret;
	record = app_result_new(conf_json(c));
	memset(&freq_total, 0, sizeof(freq_total));

	app_report_machine(stdout);
	lca_topo_print_eal(stdout);
	if (c->messages_given)
		printf("# microbench: %" PRIu64 " messages x %" PRIu64 " runs per scenario "
		       "(after one unmeasured warm-up run of %" PRIu64 ")\n",
		       c->messages, c->runs, RTE_MIN(c->messages, (uint64_t)MB_WARMUP_MAX));
	else
		printf("# microbench: messages per run calibrated: each scenario's unmeasured "
		       "warm-up run of %u (then pilots of twice as many until one lasts %.0f ms) "
		       "gives its rate, a run gets the count that takes %.0f ms (its floor's set "
		       "apart); x %" PRIu64 " runs per scenario; --messages N for a fixed count\n",
		       MB_WARMUP_MAX, APP_WINDOW_PILOT_S * 1e3, app_window_target_s() * 1e3, c->runs);
	fflush(stdout);
	ret = run_scenarios(c);

	printf("\n");
	app_report_lcores(stdout);
	app_report_send_errors(stdout);
	json_object_set_new(record, "frequency", app_freq_total_json(&freq_total));
	printf("%s\n", ret == 0 ? "result: ok (every message counted)" : "result: FAILED");
	if (app_result_finish(record, ret == 0, c->json_path) < 0 && ret == 0)
		ret = -EIO;
	json_decref(record);
	lca_runtime_cleanup();
	return ret;
}

int
main(int argc, char **argv)
{
	struct mb_conf conf;
	const struct app_spec app = {
		.name = PROG, .parse = parse_args, .opts = &table, .run = run, .conf = &conf,
	};

	return app_main(argc, argv, &app);
}
