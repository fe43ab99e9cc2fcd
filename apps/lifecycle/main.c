/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lca-lifecycle: the figures issue 13 asks for, of the runtime's lifecycle
 * parts: timer jitter (one-shot and periodic, under load and idle),
 * restart latency under load (with exact accounting of failures, notices
 * and every other message), and non-EAL feeder threads (1, 2, 4, 8 on the
 * lcores' CPUs, with a watchdog instead of a hang).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>

#include "app_main.h"
#include "app_cli.h"
#include "app_report.h"
#include "app_result.h"
#include "app_verdict.h"
#include "lifecycle.h"

#define ABOUT \
	"The runtime's lifecycle parts measured, on the first two lcores:\n" \
	"  timers:  one-shot timers (lca_send_after) kept outstanding on both lcores with\n" \
	"           delays drawn in [--min-delay-us, --max-delay-us], half to the other\n" \
	"           lcore, and one periodic timer (lca_send_every); their lateness\n" \
	"           (p50, p99, p99.9, max) with the lcores under load (the receivers'\n" \
	"           mailboxes backed up) and idle, and the timer counters, exact\n" \
	"  restart: a worker with supervision restart fails on every K-th of a stream of\n" \
	"           numbered messages, under load: the latency from lca_actor_fail() to\n" \
	"           the first message its fresh state handles; failures, notices and\n" \
	"           every other message counted exactly; then with a backoff\n" \
	"           (100 us doubling up to 1000 us), the pauses as the notices give them\n" \
	"  feeders: N threads without an lcore id send to one affinity actor (its lcore's\n" \
	"           inbox), on the lcores' CPUs: msg/s, exact accounting, and a watchdog\n" \
	"           that reports a stall instead of hanging\n"

static const char *const bench_names[] = { "timers", "restart", "feeders" };

static int
parse_benches(struct lc_conf *c, char *text)
{
	char *items[8];
	int k = app_cli_split(text, items, RTE_DIM(items));

	if (k < 0)
		return -EINVAL;
	c->benches = 0;
	c->n_order = 0;
	for (int i = 0; i < k; i++) {
		unsigned int b;

		for (b = 0; b < RTE_DIM(bench_names); b++)
			if (strcmp(items[i], bench_names[b]) == 0)
				break;
		if (b == RTE_DIM(bench_names) || (c->benches & (1u << b)))
			return -EINVAL; /* unknown, or given twice */
		c->benches |= 1u << b;
		c->order[c->n_order++] = (enum lc_bench)(1u << b);
	}
	return 0;
}

static int
parse_feeders(struct lc_conf *c, char *text)
{
	char *items[LC_MAX_FEEDER_COUNTS];
	int k = app_cli_split(text, items, LC_MAX_FEEDER_COUNTS);

	if (k < 0)
		return -EINVAL;
	for (int i = 0; i < k; i++) {
		uint64_t v;

		if (app_cli_uint(items[i], 1, LC_MAX_FEEDERS, &v) < 0)
			return -EINVAL;
		c->feeders[i] = (unsigned int)v;
	}
	c->n_feeders = (unsigned int)k;
	return 0;
}

static int
opt_benches(void *conf, const struct app_opt *opt, char *val)
{
	(void)opt;
	return parse_benches(conf, val);
}

static int
opt_feeders(void *conf, const struct app_opt *opt, char *val)
{
	(void)opt;
	return parse_feeders(conf, val);
}

#define AT(field) APP_OPT_AT(struct lc_conf, field)
#define GIVEN(field) APP_OPT_GIVEN(struct lc_conf, field)

static const struct app_opt options[] = {
	{ "bench", 0, APP_OPT_CUSTOM, .parse = opt_benches, .metavar = "LIST",
	  .help = "which, in order (default timers,restart,feeders)",
	  .why = "timers, restart, feeders, each once" },
	{ "idle", 0, APP_OPT_CUSTOM, AT(idle), .parse = app_opt_idle, .metavar = "POLICY",
	  .help = "the lcores' idle policy: spin (default), pause, sleep",
	  .why = "spin, pause or sleep" },
	{ "sleep-us", 0, APP_OPT_UINT, AT(sleep_us), .min = 1, .max = LCA_IDLE_SLEEP_MAX_US,
	  .metavar = "N", .help = "with --idle sleep, each sleep (default 100, at most 100000)" },
	{ "timers", 0, APP_OPT_UINT, AT(timers), .min = 1, .max = 10000000, .metavar = "N",
	  .help = "one-shot timers armed per lcore (default 5000)" },
	{ "inflight", 0, APP_OPT_UINT, AT(inflight), .min = 1, .max = 1024, .metavar = "N",
	  .help = "one-shots outstanding per lcore (default 32, at most 1024)" },
	{ "min-delay-us", 0, APP_OPT_UINT, AT(min_delay_us), .min = 1, .max = 10000000,
	  .metavar = "N", .help = "shortest one-shot delay (default 100)" },
	{ "max-delay-us", 0, APP_OPT_UINT, AT(max_delay_us), .min = 1, .max = 10000000,
	  .metavar = "N", .help = "longest one-shot delay (default 10000)" },
	{ "period-us", 0, APP_OPT_UINT, AT(period_us), .min = 10, .max = 10000000,
	  .metavar = "N", .help = "the periodic timer's period (default 1000)" },
	{ "ticks", 0, APP_OPT_UINT, AT(ticks), .min = 1, .max = 10000000, .metavar = "N",
	  .help = "its ticks before it is cancelled (default 1000)" },
	{ "messages", 0, APP_OPT_UINT, AT(messages), .min = 1, .max = 1000000000000ull,
	  GIVEN(messages_given), .metavar = "N",
	  .help = "restart: numbered messages, exactly (default 200000, and\n"
		  "more while its run is under 200 ms: calibrated)" },
	{ "fail-every", 0, APP_OPT_UINT, AT(fail_every), .min = 1, .max = 1000000000000ull,
	  .metavar = "K",
	  .help = "restart: every K-th message fails (default 100; at most\n--messages)" },
	{ "backoff-failures", 0, APP_OPT_UINT, AT(backoff_failures), .min = 1, .max = 100000,
	  .metavar = "N",
	  .help = "restart with backoff: failures injected (default 250: its\n"
		  "pauses alone take 250 ms; at most 100000; its stream is\n"
		  "N x K + 1 messages; the first 64 printed each)" },
	{ "feeders", 0, APP_OPT_CUSTOM, .parse = opt_feeders, .metavar = "LIST",
	  .help = "feeder thread counts (default 1,2,4,8; each 1.." RTE_STR(LC_MAX_FEEDERS) ")",
	  .why = "up to " RTE_STR(LC_MAX_FEEDER_COUNTS) " counts, each 1.." RTE_STR(LC_MAX_FEEDERS) },
	{ "per-feeder", 0, APP_OPT_UINT, AT(per_feeder), .min = 1, .max = 1000000000000ull,
	  GIVEN(per_feeder_given), .metavar = "N",
	  .help = "messages each feeder sends, exactly (default 200000, and\n"
		  "more while a run is under 200 ms: calibrated)" },
	{ "stall-s", 0, APP_OPT_UINT, AT(stall_s), .min = 1, .max = 3600, .metavar = "N",
	  .help = "feeders: seconds without progress that count as a stall\n(default 5)" },
	{ "window-ms", 0, APP_OPT_UINT, AT(window_ms), .min = 1, .max = 3600000,
	  GIVEN(window_given), .metavar = "MS",
	  .help = "a run of restart (no backoff) or feeders shorter than MS\n"
		  "is not kept: it runs again with the count that takes\n"
		  "1.25 x MS at its rate (default 200, for the default\n"
		  "counts only; given, for given counts too)" },
	{ "json", 0, APP_OPT_OUTPUT, AT(json_path), .metavar = "FILE",
	  .help = "write every figure as JSON (docs/json.md)" },
	{ "hgrm", 0, APP_OPT_OUTPUT, AT(hgrm_path), .metavar = "FILE",
	  .help = "each latency histogram as HdrHistogram's .hgrm text (us),\n"
		  "FILE with the histogram's name before .hgrm" },
	{ NULL },
};

static const struct app_opt_table table = {
	.prog = APP, .opts = options, .eal = true,
	.about = ABOUT,
	.footer = "Needs 2 lcores (-l 0-1). With --idle spin or pause the two lcores busy-poll\n"
		  "their CPUs; the feeder threads share those CPUs with them.\n",
};

/* What each value allows alone is checked above; what they allow together here. */
static int
check_conf(struct lc_conf *c)
{
	unsigned int lc;

	if (c->min_delay_us > c->max_delay_us) {
		fprintf(stderr, APP ": --min-delay-us %u is above --max-delay-us %u\n",
			c->min_delay_us, c->max_delay_us);
		return -EINVAL;
	}
	if ((c->benches & LC_BENCH_RESTART) && c->fail_every > c->messages) {
		fprintf(stderr, APP ": --fail-every %" PRIu64 " is above --messages %" PRIu64
				": no failure would be injected\n", c->fail_every, c->messages);
		return -EINVAL;
	}
	if ((c->benches & LC_BENCH_RESTART) && c->fail_every < 2) {
		fprintf(stderr, APP ": --fail-every 1 leaves no message to measure a restart by\n");
		return -EINVAL;
	}
	if (rte_lcore_count() < 2) {
		fprintf(stderr, APP ": needs 2 lcores (e.g. -l 0-1), has %u\n", rte_lcore_count());
		return -EINVAL;
	}
	c->lcore[0] = rte_get_main_lcore();
	lc = rte_get_next_lcore(c->lcore[0], 1, 0);
	c->lcore[1] = lc;
	return 0;
}

static int
parse_args(int argc, char **argv, void *conf)
{
	struct lc_conf *c = conf;
	int ret;

	*c = (struct lc_conf){
		.benches = LC_BENCH_TIMERS | LC_BENCH_RESTART | LC_BENCH_FEEDERS,
		.order = { LC_BENCH_TIMERS, LC_BENCH_RESTART, LC_BENCH_FEEDERS },
		.n_order = 3,
		.idle = LCA_IDLE_SPIN,
		.sleep_us = 100,
		.timers = 5000,
		.inflight = 32,
		.min_delay_us = 100,
		.max_delay_us = 10000,
		.period_us = 1000,
		.ticks = 1000,
		.messages = 200000,
		.fail_every = 100,
		.backoff_failures = 250,
		.feeders = { 1, 2, 4, 8 },
		.n_feeders = 4,
		.per_feeder = 200000,
		.stall_s = 5,
		.window_ms = 200,
	};
	ret = app_opt_parse(argc, argv, &table, c, NULL);
	return ret == 0 ? check_conf(c) : ret;
}

static const char *
bench_name(enum lc_bench b)
{
	return b == LC_BENCH_TIMERS ? "timers" : b == LC_BENCH_RESTART ? "restart" : "feeders";
}

static json_t *
conf_json(const struct lc_conf *c)
{
	json_t *benches = json_array(), *feeders = json_array();

	for (unsigned int i = 0; i < c->n_order; i++)
		json_array_append_new(benches, json_string(bench_name(c->order[i])));
	for (unsigned int i = 0; i < c->n_feeders; i++)
		json_array_append_new(feeders, json_integer(c->feeders[i]));
	return json_pack("{s:s, s:o, s:s, s:i, s:I, s:i, s:i, s:i, s:i, s:i, s:I, s:I, s:i, s:o, "
			 "s:I, s:i, s:i, s:b, s:b, s:b, s:[i, i]}",
			 "benchmark", "lifecycle", "bench", benches, "idle",
			 lca_idle_policy_name(c->idle), "sleep_us", (int)c->sleep_us, "timers",
			 (json_int_t)c->timers, "inflight", (int)c->inflight, "min_delay_us",
			 (int)c->min_delay_us, "max_delay_us", (int)c->max_delay_us, "period_us",
			 (int)c->period_us, "ticks", (int)c->ticks, "messages",
			 (json_int_t)c->messages, "fail_every", (json_int_t)c->fail_every,
			 "backoff_failures", (int)c->backoff_failures, "feeders", feeders,
			 "per_feeder", (json_int_t)c->per_feeder, "stall_s", (int)c->stall_s,
			 "window_ms", (int)c->window_ms, "window_given", c->window_given,
			 "messages_given", c->messages_given, "per_feeder_given",
			 c->per_feeder_given,
			 "lcores", (int)c->lcore[0], (int)c->lcore[1]);
}

static double
num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

#define NO_RESTART_FLOOR "a restart is the runtime's own work (the failure caught, the " \
	"state made anew, the mailbox kept, the notice sent): nothing bare does the same"
#define NO_FEEDERS_FLOOR "none measured: a bare RTS ring fed by the same threads on the " \
	"same CPUs would be one, and is not built yet"

/* One verdict row per scenario, made of its record: timers against their
 * floor, restart and feeders with why they have none. */
static void
add_verdicts(json_t *record, const json_t *results)
{
	const json_t *r;
	size_t i;

	json_array_foreach(results, i, r) {
		const char *bench = json_string_value(json_object_get(r, "bench"));
		const json_t *fl = json_object_get(r, "floor");
		struct app_verdict_row row = {
			.config = json_string_value(json_object_get(r, "name")),
			.ci_half = NAN, .floor_moved_pct = NAN, .window_s = num(r, "window_s"),
		};
		double ratios[2];

		if (strcmp(bench, "timers") == 0) {
			row.kind = APP_VERDICT_TIME;
			row.score = num(json_object_get(r, "one_shot_lateness"), "p50");
			row.unit = "us one-shot lateness p50";
			row.floor = json_string_value(json_object_get(fl, "what"));
			row.no_floor_why = "its floor did not run";
			for (unsigned int k = 0; k < 2; k++)
				ratios[k] = json_number_value(
					json_array_get(json_object_get(fl, "ratios"), k));
			row.ratios = ratios;
			row.n_ratios = fl != NULL ? 2 : 0;
			row.floor_moved_pct = num(fl, "moved_pct");
		} else if (strcmp(bench, "restart") == 0) {
			row.kind = APP_VERDICT_TIME;
			row.score = num(json_object_get(r, "restart_latency"), "p50");
			row.unit = "us restart latency p50";
			row.no_floor_why = NO_RESTART_FLOOR;
		} else {
			row.kind = APP_VERDICT_RATE;
			row.score = num(r, "msg_per_s") / 1e6;
			row.unit = "M msg/s";
			row.no_floor_why = NO_FEEDERS_FLOOR;
		}
		app_verdict_add(record, &row);
	}
}

static int
run(void *conf)
{
	struct lc_conf *c = conf;
	static struct app_freq_total total;
	struct lc_outcome o = { .results = json_array(), .exact = true, .total = &total };
	json_t *root;
	size_t i;
	json_t *r;
	int ret = 0;

	memset(&total, 0, sizeof(total));
	app_report_machine(stdout);
	printf("# lca-lifecycle: benches");
	for (unsigned int b = 0; b < c->n_order; b++)
		printf("%s%s", b ? "," : " ", bench_name(c->order[b]));
	printf(" on lcores %u and %u; idle policy %s", c->lcore[0], c->lcore[1],
	       lca_idle_policy_name(c->idle));
	if (c->idle == LCA_IDLE_SLEEP)
		printf(" (%u us sleeps after 1000 empty loops)", c->sleep_us);
	printf("\n# the runtime is brought up afresh for each scenario; each scenario runs under "
	       "the frequency monitor\n");
	for (unsigned int b = 0; b < c->n_order && ret == 0; b++) {
		switch (c->order[b]) {
		case LC_BENCH_TIMERS:
			ret = lc_bench_timers(c, &o);
			break;
		case LC_BENCH_RESTART:
			ret = lc_bench_restart(c, &o);
			break;
		case LC_BENCH_FEEDERS:
			ret = lc_bench_feeders(c, &o);
			break;
		}
	}
	root = app_result_new(conf_json(c));
	json_array_foreach(o.results, i, r)
		app_result_add(root, json_incref(r));
	json_decref(o.results);
	printf("\nFrequency over every scenario:\n");
	app_freq_total_print(stdout, "All scenarios together:", &total);
	json_object_set_new(root, "frequency", app_freq_total_json(&total));
	printf("\nAccounting: %s\n", ret == 0 && o.exact ? "every count exact" :
		ret == 0 ? "NOT exact (see above)" : "run cut short");
	if (ret == 0 && !o.exact) {
		fprintf(stderr, APP ": the accounting is not exact\n");
		ret = -EIO;
	}
	if (ret == 0 && lc_hgrm_failures() > 0)
		ret = -EIO;
	add_verdicts(root, json_object_get(root, "results"));
	/* Interrupted: no record, the verdict of what ran all the same. */
	if (app_result_finish(root, ret == 0 && o.exact, ret != -EINTR ? c->json_path : NULL) < 0 &&
	    ret == 0)
		ret = -EIO;
	json_decref(root);
	return ret;
}

int
main(int argc, char **argv)
{
	static struct lc_conf conf;
	const struct app_spec app = {
		.name = APP, .parse = parse_args, .opts = &table, .run = run, .conf = &conf,
	};

	return app_main(argc, argv, &app);
}
