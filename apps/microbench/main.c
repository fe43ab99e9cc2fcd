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
 * in the frequency monitor (lca_series.h), whose per-lcore clock and steal
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
#include "lca_app.h"
#include "lca_cli.h"
#include "lca_floor.h"
#include "lca_floor_stream.h"
#include "lca_mempool.h"
#include "lca_report.h"
#include "lca_result.h"
#include "lca_topo.h"
#include "lca_verdict.h"
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
static struct lca_freq_total freq_total;

static void
usage(const char *prog)
{
	printf("Usage: %s [EAL args] -- [options]\n"
	       "Messages per second through lcactor's send path.\n"
	       "  --scenario LIST     comma-separated: same-lcore,cross-lcore,many-to-one,idle\n"
	       "                      (default: all)\n"
	       "  --messages N        messages per run (default 20000000)\n"
	       "  --runs N            measured runs per scenario (default 5)\n"
	       "  --burst N           envelopes per alloc/send call, 1..%u (default 32;\n"
	       "                      1: lca_msg_alloc + lca_send)\n"
	       "  --batch N           messages a sender sends per turn (default 256, >= burst)\n"
	       "  --senders N         senders of many-to-one, 1..%u (default 4)\n"
	       "  --idle N            idle actors of the idle scenario (default 10000)\n"
	       "  --throughput N      receiver's messages per turn, 1..1024 (default 256)\n"
	       "  --mailbox-size N    receiver's mailbox, a power of two (default 4096)\n"
	       "  --mailbox MODE      receiver's mailbox mode: mp, sp, rts, hts (default mp)\n"
	       "  --timeout SEC       give up on a run after SEC seconds (default 120)\n"
	       "  --json FILE         also write the results as JSON (docs/json.md)\n"
	       "  --topology          print the lcores' topology and exit\n"
	       "  --help              this text\n",
	       prog, MB_MAX_BURST, MB_MAX_SENDERS);
}

static int
parse_scenarios(const char *arg, bool *want)
{
	char *copy = strdup(arg), *items[MB_SCENARIOS * 4];
	int n = copy ? lca_cli_split(copy, items, RTE_DIM(items)) : -ENOMEM;

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
parse_mailbox_size(const char *val, uint64_t *out)
{
	int ret = lca_cli_uint(val, 2, UINT64_C(1) << 24, out);

	return ret == 0 && !rte_is_power_of_2((uint32_t)*out) ? -EINVAL : ret;
}

/* Each numeric option: its field and range. */
static int
parse_number(struct mb_conf *c, const char *name, const char *val)
{
	static const struct {
		const char *name;
		size_t off;
		uint64_t min, max;
	} nums[] = {
		{ "messages", offsetof(struct mb_conf, messages), 1, UINT64_C(1) << 40 },
		{ "runs", offsetof(struct mb_conf, runs), 1, MB_MAX_RUNS },
		{ "burst", offsetof(struct mb_conf, burst), 1, MB_MAX_BURST },
		{ "batch", offsetof(struct mb_conf, batch), 1, 65536 },
		{ "senders", offsetof(struct mb_conf, senders), 1, MB_MAX_SENDERS },
		{ "idle", offsetof(struct mb_conf, idle), 1, 1000000 },
		{ "throughput", offsetof(struct mb_conf, throughput), 1, 1024 },
		{ "timeout", offsetof(struct mb_conf, timeout_s), 1, 86400 },
	};

	for (unsigned int i = 0; i < RTE_DIM(nums); i++)
		if (strcmp(name, nums[i].name) == 0)
			return lca_cli_uint(val, nums[i].min, nums[i].max,
					    (uint64_t *)((char *)c + nums[i].off));
	return -EINVAL;
}

static int
parse_option(void *conf, const char *name, char *val)
{
	struct mb_conf *c = conf;
	int ret;

	if (strcmp(name, "scenario") == 0)
		ret = parse_scenarios(val, c->want);
	else if (strcmp(name, "mailbox-size") == 0)
		ret = parse_mailbox_size(val, &c->mailbox_size);
	else if (strcmp(name, "mailbox") == 0)
		ret = lca_mailbox_mode_parse(val, &c->mailbox_mode);
	else if (strcmp(name, "json") == 0)
		ret = lca_cli_output_path("--json", val) == 0 ? (c->json_path = val, 0) : -EINVAL;
	else
		ret = parse_number(c, name, val);
	/* An unknown scenario has been named already. */
	if (ret < 0 && ret != -ENOENT)
		fprintf(stderr, PROG ": bad value '%s' for --%s\n", val, name);
	return ret;
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

static int
parse_args(int argc, char **argv, void *conf)
{
	struct mb_conf *c = conf;
	static const struct option opts[] = {
		{ "scenario", required_argument, NULL, 0 },
		{ "messages", required_argument, NULL, 0 },
		{ "runs", required_argument, NULL, 0 },
		{ "burst", required_argument, NULL, 0 },
		{ "batch", required_argument, NULL, 0 },
		{ "senders", required_argument, NULL, 0 },
		{ "idle", required_argument, NULL, 0 },
		{ "throughput", required_argument, NULL, 0 },
		{ "mailbox-size", required_argument, NULL, 0 },
		{ "mailbox", required_argument, NULL, 0 },
		{ "timeout", required_argument, NULL, 0 },
		{ "json", required_argument, NULL, 0 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ret;

	*c = (struct mb_conf){
		.messages = 20000000, .runs = 5, .burst = 32, .batch = 256, .senders = 4,
		.idle = 10000, .throughput = 256, .mailbox_size = 4096, .timeout_s = 120,
		.mailbox_mode = LCA_MAILBOX_MP,
	};
	for (unsigned int s = 0; s < MB_SCENARIOS; s++)
		c->want[s] = true;
	ret = lca_app_getopt(argc, argv, opts, false, parse_option, usage, c);
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

void
mb_print_floor(const struct mb_result *r, unsigned int i)
{
	printf("%-12s %s: floor %u: %" PRIu64 " msgs in %.1f ms = %.2f M msg/s; run / floor "
	       "= %.1f%%\n", r->scenario, r->variant, i + 1, r->messages, r->floor_ms[i],
	       r->floor_mps[i], 100.0 * r->mps[i] / r->floor_mps[i]);
	fflush(stdout);
}

/* The floor's rounds and each pair's ratio, as the series' "floor". */
static json_t *
floor_json(const struct mb_result *r, const double *ratios, const struct lca_stats *rs)
{
	json_t *pairs = json_array();
	double moved = lca_floor_moved_pct(r->floor_mps, r->runs);

	for (unsigned int i = 0; i < r->runs; i++)
		json_array_append_new(pairs, json_real(ratios[i]));
	return json_pack("{s:s, s:s, s:o, s:o, s:o, s:f, s:f, s:f, s:o}", "what", r->floor_what,
			 "order", "ABAB: a floor round before each run", "throughput",
			 lca_result_measure_of(r->floor_mps, r->runs, MB_CONFIDENCE, "Mmsg/s"),
			 "time", lca_result_measure_of(r->floor_ms, r->runs, MB_CONFIDENCE, "ms"),
			 "ratios", pairs, "ratio_median", rs->p50, "ratio_min", rs->min,
			 "ratio_max", rs->max, "moved_pct",
			 isfinite(moved) ? json_real(moved) : json_null());
}

/* The series' verdict row: its median against its floor, pair by pair. */
static void
add_verdict(const struct mb_result *r, const double *ratios)
{
	double window = r->ms[0];

	for (unsigned int i = 1; i < r->runs; i++)
		window = RTE_MIN(window, r->ms[i]);
	lca_verdict_add(record, &(const struct lca_verdict_row){
		.config = r->label, .kind = LCA_VERDICT_RATE, .score = r->stats.p50,
		.ci_half = r->stats.error, .unit = "M msg/s", .floor = r->floor_what,
		.ratios = ratios, .n_ratios = r->runs,
		.floor_moved_pct = lca_floor_moved_pct(r->floor_mps, r->runs),
		.window_s = window / 1e3,
	});
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
	return json_pack("{s:s, s:s, s:s, s:I, s:o, s:o, s:o, s:o}", "name", r->label, "scenario",
			 r->scenario, "variant", r->variant, "messages_per_run",
			 (json_int_t)r->messages, "throughput",
			 lca_result_measure(&r->stats, r->mps, "Mmsg/s"), "time",
			 lca_result_measure_of(r->ms, r->runs, MB_CONFIDENCE, "ms"), "runs", runs,
			 "frequency", lca_series_freq_json(&r->series));
}

void
mb_report_series(struct mb_result *r)
{
	double ratios[MB_MAX_RUNS], moved;
	struct lca_stats rs;
	json_t *j;

	lca_stats_compute(r->mps, r->runs, MB_CONFIDENCE, &r->stats);
	printf("%-12s %s: mean %.2f M msg/s, min %.2f, max %.2f (%u runs)\n", r->scenario,
	       r->variant, r->stats.mean, r->stats.min, r->stats.max, r->runs);
	j = series_json(r);
	if (r->floor_what[0] != '\0') {
		lca_floor_ratios(r->mps, r->floor_mps, r->runs, ratios);
		lca_stats_compute(ratios, r->runs, MB_CONFIDENCE, &rs);
		moved = lca_floor_moved_pct(r->floor_mps, r->runs);
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
	lca_series_print_freq(stdout, &r->series);
	lca_freq_total_add(&freq_total, &r->series);
	lca_result_add(record, j);
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
	double ratios[MB_MAX_RUNS], window = crowd->ms[0];

	for (unsigned int i = 1; i < crowd->runs; i++)
		window = RTE_MIN(window, crowd->ms[i]);
	lca_floor_ratios(crowd->mps, alone->mps, n, ratios);
	lca_verdict_add(record, &(const struct lca_verdict_row){
		.config = crowd->label, .kind = LCA_VERDICT_RATE, .score = crowd->stats.p50,
		.ci_half = crowd->stats.error, .unit = "M msg/s",
		.floor = "the same busy actor alone on its lcore (its series ran before the "
			 "crowd was spawned, not alternated)",
		.ratios = ratios, .n_ratios = n,
		.floor_moved_pct = lca_floor_moved_pct(alone->mps, alone->runs),
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
	lca_result_add(record, json_pack("{s:s, s:I, s:f, s:f}", "name", "idle-ratio",
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
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:s, s:o}", "messages",
			 (json_int_t)c->messages, "runs", (json_int_t)c->runs, "burst",
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
	record = lca_result_new(conf_json(c));
	memset(&freq_total, 0, sizeof(freq_total));

	lca_report_machine(stdout);
	lca_topo_print_eal(stdout);
	printf("# microbench: %" PRIu64 " messages x %" PRIu64 " runs per scenario "
	       "(after one unmeasured warm-up run of %" PRIu64 ")\n",
	       c->messages, c->runs, RTE_MIN(c->messages, (uint64_t)MB_WARMUP_MAX));
	fflush(stdout);
	ret = run_scenarios(c);

	printf("\n");
	lca_report_lcores(stdout);
	lca_report_send_errors(stdout);
	json_object_set_new(record, "frequency", lca_freq_total_json(&freq_total));
	printf("%s\n", ret == 0 ? "result: ok (every message counted)" : "result: FAILED");
	if (lca_result_finish(record, ret == 0, c->json_path) < 0 && ret == 0)
		ret = -EIO;
	json_decref(record);
	lca_runtime_cleanup();
	return ret;
}

int
main(int argc, char **argv)
{
	struct mb_conf conf;
	const struct lca_app app = {
		.name = PROG, .parse = parse_args, .usage = usage, .run = run, .conf = &conf,
	};

	return lca_app_main(argc, argv, &app);
}
