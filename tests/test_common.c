/* SPDX-License-Identifier: BSD-3-Clause */
/* apps/common: argument parsing, statistics, the RNG, the record's measures
 * and JMH's result format. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "app_cli.h"
#include "app_jmh.h"
#include "app_opt.h"
#include "app_result.h"
#include "app_rng.h"
#include "app_series.h"
#include "app_stats.h"
#include "lca_test.h"
#include "app_verdict.h"

static void
test_cli_uint(void **state)
{
	uint64_t v = 7;

	(void)state;
	assert_int_equal(app_cli_uint("42", 1, 100, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(app_cli_uint("0", 1, 100, &v), -ERANGE);
	assert_int_equal(app_cli_uint("101", 1, 100, &v), -ERANGE);
	assert_int_equal(app_cli_uint("4x", 1, 100, &v), -EINVAL);
	assert_int_equal(app_cli_uint("", 1, 100, &v), -EINVAL);
	/* strtoull skips blanks and takes a sign: " -1" would be 2^64 - 1. */
	assert_int_equal(app_cli_uint(" -1", 0, UINT64_MAX, &v), -EINVAL);
	assert_int_equal(app_cli_uint(" 5", 0, UINT64_MAX, &v), -EINVAL);
	assert_int_equal(app_cli_uint("\t7", 0, UINT64_MAX, &v), -EINVAL);
	/* Where a result file can go, checked before a run. */
	assert_int_equal(app_cli_output_path("--json", ""), -EINVAL);
	assert_int_equal(app_cli_output_path("--json", "/nonexistent-lca/x.json"), -ENOENT);
	assert_int_equal(app_cli_output_path("--json", "/etc/hostname/x.json"), -ENOTDIR);
	assert_int_equal(app_cli_output_path("--json", "/tmp/lca-test-out.json"), 0);
	assert_int_equal(app_cli_output_path("--json", "relative-file.json"), 0);
	assert_int_equal(app_cli_uint("-1", 0, 100, &v), -EINVAL);
	assert_int_equal(app_cli_uint("99999999999999999999999", 0, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(v, 42); /* untouched by failures */
}

static void
test_cli_seconds_and_split(void **state)
{
	char list[] = "1,5,50", empty_item[] = "1,,5", many[] = "1,2,3";
	char *items[3], *two[2];
	double s;

	(void)state;
	assert_int_equal(app_cli_seconds("0.5", &s), 0);
	assert_true(s == 0.5);
	assert_int_equal(app_cli_seconds("0", &s), -EINVAL);
	assert_int_equal(app_cli_seconds("1s", &s), -EINVAL);
	assert_int_equal(app_cli_seconds("nan", &s), -EINVAL);
	assert_int_equal(app_cli_split(list, items, 3), 3);
	assert_string_equal(items[0], "1");
	assert_string_equal(items[2], "50");
	assert_int_equal(app_cli_split(empty_item, items, 3), -EINVAL);
	assert_int_equal(app_cli_split(many, two, 2), -E2BIG);
}

/* What getopt refused, as the message names it: @p argv up to the error. */
static const char *
refused(int argc, char **argv, bool only, char *buf)
{
	static const struct option opts[] = {
		{ "tokens", required_argument, NULL, 0 },
		{ "rate", required_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	optind = 0; /* a fresh scan: glibc forgets a cluster left half read */
	opterr = 0;
	do
		opt = only ? getopt_long_only(argc, argv, ":h", opts, NULL) :
			     getopt_long(argc, argv, ":h", opts, NULL);
	while (opt == 0);
	assert_true(opt == '?' || opt == ':');
	return app_cli_bad_option(argv, buf, 3);
}

static void
test_cli_bad_option(void **state)
{
	char p[] = "prog", tok[] = "--tokens", two[] = "2", zq[] = "-Zq", bogus[] = "--bogus",
	     rate[] = "--rate", xv[] = "-xv", buf[3];
	char *cluster_first[] = { p, zq, NULL }, *cluster_later[] = { p, tok, two, zq, NULL },
	     *long_unknown[] = { p, bogus, NULL }, *no_value[] = { p, tok, NULL },
	     *no_value_val[] = { p, rate, NULL }, *only_word[] = { p, xv, NULL };

	(void)state;
	/* argv[optind - 1] would be "prog" and "2": -Z has not been passed. */
	assert_string_equal(refused(2, cluster_first, false, buf), "-Z");
	assert_string_equal(refused(4, cluster_later, false, buf), "-Z");
	assert_string_equal(refused(2, long_unknown, false, buf), "--bogus");
	assert_string_equal(refused(2, no_value, false, buf), "--tokens");
	/* optopt is 'R' here, the long option's val: still the word. */
	assert_string_equal(refused(2, no_value_val, false, buf), "--rate");
	/* getopt_long_only() reads -xv as one unknown long option. */
	assert_string_equal(refused(2, only_word, true, buf), "-xv");
}

/* The seed's own JMH run: four iterations give 3634030.863 ± 3728431.081. */
static void
test_stats_match_jmh(void **state)
{
	const double seed[] = { 2958575.238, 3412542.034, 4295999.523, 3869006.659 };
	struct app_stats s;

	(void)state;
	assert_int_equal(app_stats_compute(seed, 4, 0.999, &s), 0);
	assert_true(fabs(s.mean - 3634030.863) < 0.001);
	assert_true(fabs(s.stdev - 576978.837) < 0.001);
	assert_true(fabs(s.error - 3728431.081) < 0.01);
	assert_true(s.min == 2958575.238 && s.max == 4295999.523);
}

static void
test_t_quantiles(void **state)
{
	(void)state;
	/* Published two-sided 99.9% critical values. */
	assert_true(fabs(app_stats_t_quantile(0.9995, 1) - 636.619) < 0.001);
	assert_true(fabs(app_stats_t_quantile(0.9995, 10) - 4.587) < 0.001);
	assert_true(fabs(app_stats_t_quantile(0.975, 30) - 2.042) < 0.001);
	assert_true(fabs(app_stats_t_cdf(0.0, 5) - 0.5) < 1e-12);
	assert_true(isnan(app_stats_t_quantile(1.5, 3)));
	assert_true(isnan(app_stats_t_quantile(0.5, 0)));
}

static void
test_stats_edges(void **state)
{
	const double one[] = { 5.0 };
	struct app_stats s;

	(void)state;
	assert_int_equal(app_stats_compute(one, 0, 0.999, &s), -EINVAL);
	assert_int_equal(app_stats_compute(one, 1, 1.0, &s), -EINVAL);
	assert_int_equal(app_stats_compute(one, 1, 0.999, &s), 0);
	assert_true(s.mean == 5.0 && s.stdev == 0.0 && isnan(s.error));
}

static void
test_stats_percentiles(void **state)
{
	const double x[] = { 4.0, 1.0, 3.0, 2.0 };
	struct app_stats s;

	(void)state;
	assert_int_equal(app_stats_compute(x, 4, 0.95, &s), 0);
	/* numpy.percentile([1, 2, 3, 4], [50, 90, 99]) */
	assert_true(s.p50 == 2.5);
	assert_true(fabs(s.p90 - 3.7) < 1e-12);
	assert_true(fabs(s.p99 - 3.97) < 1e-12);
	assert_true(s.min == 1.0 && s.max == 4.0 && s.mean == 2.5);
	assert_true(x[0] == 4.0 && x[1] == 1.0); /* the samples keep their order */
}

/* The ± the verdict prints after a median is the median's: the order
 * statistics' interval (distribution-free), not the mean's t interval. */
static void
test_stats_median_interval(void **state)
{
	const double ten[] = { 10, 9, 8, 7, 6, 5, 4, 3, 2, 1 };
	double skewed[21];
	struct app_stats s;

	(void)state;
	/* n = 10 at 95 %: the 2nd and 9th order statistics (P = 97.9 %), as the
	 * published tables of the median's interval give. */
	assert_int_equal(app_stats_compute(ten, 10, 0.95, &s), 0);
	assert_true(s.p50 == 5.5 && s.p50_lo == 2.0 && s.p50_hi == 9.0);
	assert_true(s.p50_error == 3.5);
	/* One far sample: the mean's interval takes it in, the median's does not. */
	for (unsigned int i = 0; i < 21; i++)
		skewed[i] = 10.0 + 0.01 * i;
	skewed[20] = 1e4;
	assert_int_equal(app_stats_compute(skewed, 21, 0.999, &s), 0);
	assert_true(s.p50 == 10.1 && s.p50_lo >= 10.0 && s.p50_hi <= 10.2);
	assert_true(s.p50_error < 0.11 && s.error > 100 * s.p50_error);
	/* Five samples cannot hold the median at 99.9 % (the least and the
	 * greatest do at 93.75 %): no interval rather than a wrong one. */
	assert_int_equal(app_stats_compute(ten, 5, 0.999, &s), 0);
	assert_true(isnan(s.p50_lo) && isnan(s.p50_hi) && isnan(s.p50_error));
	assert_int_equal(app_stats_compute(ten, 5, 0.9, &s), 0);
	assert_true(s.p50_lo == 6.0 && s.p50_hi == 10.0 && s.p50_error == 2.0);
}

static void
test_rng(void **state)
{
	uint64_t a = 0, b = 0, c = app_rng_stream(1, 0), d = app_rng_stream(1, 1);
	unsigned int seen[5] = { 0 };

	(void)state;
	/* Seed 0 is a stream like any other, and the same seed repeats it. */
	assert_true(app_rng_next(&a) != 0);
	assert_true(app_rng_next(&b) == app_rng_next(&(uint64_t){ 0 }));
	assert_true(app_rng_next(&a) == app_rng_next(&b));
	assert_true(c != d && app_rng_next(&c) != app_rng_next(&d));
	for (int i = 0; i < 10000; i++) {
		uint32_t v = app_rng_below(&a, 5);

		assert_true(v < 5);
		seen[v]++;
	}
	/* Uniform: each of 5 values near 2000 of 10,000 draws. */
	for (int i = 0; i < 5; i++)
		assert_in_range(seen[i], 1800, 2200);
}

static void
test_result_measure(void **state)
{
	const double ms[] = { 2.0, 4.0, 3.0 };
	json_t *m = app_result_measure_of(ms, 3, 0.95, "ms"), *one, *none;

	(void)state;
	assert_non_null(m);
	assert_string_equal(json_string_value(json_object_get(m, "unit")), "ms");
	assert_int_equal(json_array_size(json_object_get(m, "values")), 3);
	assert_true(json_real_value(json_object_get(m, "mean")) == 3.0);
	assert_true(json_real_value(json_object_get(m, "ci_low")) < 3.0);
	assert_true(json_real_value(json_object_get(m, "ci_high")) > 3.0);
	assert_string_equal(json_string_value(json_object_get(m, "ci_method")), "student-t");
	/* One value has no interval: null, not a NaN jansson would refuse. */
	one = app_result_measure_of(ms, 1, 0.95, "ms");
	assert_non_null(one);
	assert_true(json_is_null(json_object_get(one, "ci_low")));
	assert_null(app_result_measure_of(ms, 0, 0.95, "ms"));
	none = app_freq_none_json("why");
	assert_string_equal(json_string_value(json_object_get(none, "monitor")), "did not run");
	assert_string_equal(json_string_value(json_object_get(none, "verdict")), "no_data");
	assert_int_equal(json_array_size(json_object_get(none, "lcores")), 0);
	json_decref(m);
	json_decref(one);
	json_decref(none);
}

static char *
capture(void (*print)(FILE *, const void *), const void *arg)
{
	static char buf[4096];
	FILE *f;

	memset(buf, 0, sizeof(buf));
	f = fmemopen(buf, sizeof(buf) - 1, "w");
	assert_non_null(f);
	print(f, arg);
	fclose(f);
	return buf;
}

static void
print_seed_result(FILE *f, const void *arg)
{
	app_jmh_result(f, "x.y", arg, "ops/s");
}

static void
test_jmh_result_block(void **state)
{
	const double seed[] = { 2958575.238, 3412542.034, 4295999.523, 3869006.659 };
	struct app_stats s;
	char *out;

	(void)state;
	app_stats_compute(seed, 4, 0.999, &s);
	out = capture(print_seed_result, &s);
	assert_non_null(strstr(out, "Result \"x.y\":\n"));
	assert_non_null(strstr(out, "  3634030.863 ±(99.9%) 3728431.08"));
	assert_non_null(strstr(out, "(min, avg, max) = (2958575.238, 3634030.863, 4295999.523), "
				    "stdev = 576978.837"));
	assert_non_null(strstr(out, "CI (99.9%): [≈ 0, 7362461.94"));
}

static void
print_table(FILE *f, const void *arg)
{
	static const char *const names[] = { "dispatcher", "throughPut" };

	app_jmh_table(f, names, 2, arg, 2);
}

static void
test_jmh_table(void **state)
{
	struct app_jmh_row rows[2] = {
		{ .benchmark = "B.q", .params = { "affinity", "1" }, .mode = "thrpt",
		  .stats = { .n = 4, .mean = 1234.5, .error = 10.25 }, .unit = "ops/s" },
		{ .benchmark = "B.q", .params = { "shared", "50" }, .mode = "thrpt",
		  .stats = { .n = 4, .mean = 99.0, .error = 1.0 }, .unit = "ops/s" },
	};
	char *out, *line2;

	(void)state;
	out = capture(print_table, rows);
	assert_non_null(strstr(out, "Benchmark  (dispatcher)  (throughPut)   Mode  Cnt     Score    "
				    "Error  Units\n"));
	line2 = strchr(out, '\n') + 1;
	assert_memory_equal(line2, "B.q            affinity             1  thrpt    4  1234.500 ± "
				   "10.250  ops/s\n", 74);
}

static void
print_verdict(FILE *f, const void *record)
{
	app_verdict_print(f, record);
}

/* A row keeps its pairs' median and spread, earns the flags its figures
 * call for, and prints as the run's answer; a row without a floor must
 * say why. */
static void
test_verdict_rows(void **state)
{
	const double ratios[] = {0.40, 0.36, 0.38};
	struct app_verdict_row rate = {
		.config = "affinity tp=1", .kind = APP_VERDICT_RATE, .score = 9.15,
		.ci_half = 0.2, .unit = "M msg/s", .floor = "bare SPSC queues",
		.ratios = ratios, .n_ratios = 3, .floor_moved_pct = 25, .window_s = 0.5,
	};
	struct app_verdict_row time = {
		.config = "inline", .kind = APP_VERDICT_TIME, .score = 54.4, .ci_half = 95.4,
		.unit = "ms", .no_floor_why = "it is the ceiling", .floor_moved_pct = NAN,
		.window_s = 0.01,
	};
	struct app_verdict_row bad = time;
	json_t *rec = json_pack("{s:{s:s, s:s, s:s}}", "frequency", "verdict", "unstable",
				"cause", "PREEMPTED", "reason", "lcore 1: run-queue wait 4 %");
	const char *clock;
	json_t *row;
	char *out;

	(void)state;
	bad.no_floor_why = NULL;
	assert_int_equal(app_verdict_add(rec, &bad), -EINVAL);
	assert_int_equal(app_verdict_add(rec, &rate), 0);
	assert_int_equal(app_verdict_add(rec, &time), 0);
	row = json_array_get(json_object_get(json_object_get(rec, "verdict"), "rows"), 0);
	assert_true(fabs(json_real_value(json_object_get(row, "ratio_median")) - 0.38) < 1e-12);
	assert_true(json_real_value(json_object_get(row, "ratio_min")) == 0.36);
	assert_true(json_real_value(json_object_get(row, "ratio_max")) == 0.40);
	assert_true(json_is_true(json_object_get(row, "moved")));
	assert_int_equal(json_array_size(json_object_get(row, "flags")), 1);
	row = json_array_get(json_object_get(json_object_get(rec, "verdict"), "rows"), 1);
	assert_true(json_is_null(json_object_get(row, "ratio_median")));
	assert_int_equal(json_array_size(json_object_get(row, "flags")), 2); /* unreliable, short */

	out = capture(print_verdict, rec);
	assert_non_null(strstr(out, "affinity tp=1: 9.15 ± 0.200 M msg/s  38.0 % of its floor "
				    "(3 pairs 36.0–40.0 %); floor: bare SPSC queues\n"));
	assert_non_null(strstr(out, "the CPUs moved during the run: the floor moved 25 %"));
	assert_non_null(strstr(out, "inline: 54.4 ± 95.4 ms  no floor: it is the ceiling\n"));
	assert_non_null(strstr(out, "unreliable: the interval is wider than half the score"));
	assert_non_null(strstr(out, "short window: 10.0 ms is under 50 scheduler ticks"));
	assert_non_null(strstr(out, "clock: PREEMPTED (lcore 1: run-queue wait 4 %)\n"));
	/* The clock line is the block's last. */
	clock = "clock: PREEMPTED (lcore 1: run-queue wait 4 %)\n";
	assert_true(strlen(out) > strlen(clock));
	assert_string_equal(out + strlen(out) - strlen(clock), clock);
	json_decref(rec);
}

/* --- app_opt: one table for the parser and the help ---------------------- */

struct opt_conf {
	uint32_t n;
	uint8_t small;
	double secs;
	bool flag, n_given;
	unsigned int mode;
	const char *name;
	int custom_calls;
};

static int
opt_custom(void *conf, const struct app_opt *opt, char *val)
{
	(void)opt;
	((struct opt_conf *)conf)->custom_calls++;
	return strcmp(val, "ok") == 0 ? 0 : strcmp(val, "said") == 0 ? APP_OPT_SAID : -EINVAL;
}

#define OAT(field) APP_OPT_AT(struct opt_conf, field)

static const struct app_opt opt_tests[] = {
	{ "count", 'n', APP_OPT_UINT, OAT(n), .min = 2, .max = 70000,
	  APP_OPT_GIVEN(struct opt_conf, n_given), .metavar = "N", .help = "a count" },
	{ "small", 0, APP_OPT_UINT, OAT(small), .min = 0, .max = 255, .metavar = "N",
	  .help = "one byte" },
	{ "secs", 0, APP_OPT_DOUBLE, OAT(secs), .dmin = 0, .dmax = 10, .metavar = "S",
	  .help = "seconds\nsecond line" },
	{ "flag", 0, APP_OPT_FLAG, OAT(flag), .help = "a flag" },
	{ "mode", 0, APP_OPT_ENUM, OAT(mode),
	  .choices = (const char *const[]){ "a", "b", "c", NULL }, .metavar = "M",
	  .help = "a mode" },
	{ "name", 0, APP_OPT_STRING, OAT(name), .metavar = "S", .help = "a name" },
	{ "custom", 0, APP_OPT_CUSTOM, .parse = opt_custom, .metavar = "X", .help = "custom" },
	{ "custom", 0, APP_OPT_MORE, .metavar = "Y", .help = "another form" },
	{ "secret", 0, APP_OPT_IGNORE, .hidden = true },
	{ NULL },
};

static const struct app_opt_table opt_table = {
	.prog = "lca-test", .opts = opt_tests, .eal = true, .about = "About.\n",
};

/* Parse @p words (after a program name); stderr goes to @p err. */
static int
opt_run(struct opt_conf *c, char *err, size_t len, const char *words)
{
	char buf[512], *argv[32] = { "lca-test" }, *save = NULL;
	int argc = 1, ret, fd = dup(2);
	FILE *f = tmpfile();

	snprintf(buf, sizeof(buf), "%s", words);
	for (char *w = strtok_r(buf, " ", &save); w != NULL; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	*c = (struct opt_conf){ .n = 7 };
	fflush(stderr);
	dup2(fileno(f), 2);
	ret = app_opt_parse(argc, argv, &opt_table, c, NULL);
	fflush(stderr);
	dup2(fd, 2);
	close(fd);
	rewind(f);
	err[fread(err, 1, len - 1, f)] = '\0';
	fclose(f);
	return ret;
}

static void
test_opt_parse(void **state)
{
	struct opt_conf c;
	char err[512];

	(void)state;
	assert_int_equal(opt_run(&c, err, sizeof(err), "--count 70000 --small 255 --secs 0.5 "
			     "--flag --mode c --name x --custom ok --secret v"), 0);
	assert_int_equal(c.n, 70000);
	assert_int_equal(c.small, 255);
	assert_true(c.secs == 0.5 && c.flag && c.n_given);
	assert_int_equal(c.mode, 2);
	assert_string_equal(c.name, "x");
	assert_int_equal(c.custom_calls, 1);
	assert_string_equal(err, "");
	/* A short letter, and nothing given leaves the defaults. */
	assert_int_equal(opt_run(&c, err, sizeof(err), "-n 3"), 0);
	assert_int_equal(c.n, 3);
	assert_int_equal(opt_run(&c, err, sizeof(err), ""), 0);
	assert_true(c.n == 7 && !c.n_given && !c.flag);
}

static void
test_opt_errors(void **state)
{
	struct opt_conf c;
	char err[512];

	(void)state;
	assert_int_equal(opt_run(&c, err, sizeof(err), "--count 1"), -EINVAL);
	assert_string_equal(err, "lca-test: bad value '1' for --count (a whole number, 2 to 70000)\n");
	assert_false(c.n_given);
	assert_int_equal(opt_run(&c, err, sizeof(err), "--small 256"), -EINVAL);
	assert_int_equal(opt_run(&c, err, sizeof(err), "--secs 0"), -EINVAL);
	assert_non_null(strstr(err, "bad value '0' for --secs (a number above 0, at most 10)"));
	assert_int_equal(opt_run(&c, err, sizeof(err), "--secs 11"), -EINVAL);
	assert_int_equal(opt_run(&c, err, sizeof(err), "--mode d"), -EINVAL);
	assert_string_equal(err, "lca-test: bad value 'd' for --mode (one of a, b, c)\n");
	assert_int_equal(opt_run(&c, err, sizeof(err), "--custom no"), -EINVAL);
	assert_string_equal(err, "lca-test: bad value 'no' for --custom\n");
	/* A parser that said why itself gets no second line. */
	assert_int_equal(opt_run(&c, err, sizeof(err), "--custom said"), -EINVAL);
	assert_string_equal(err, "");
	assert_int_equal(opt_run(&c, err, sizeof(err), "--count"), -EINVAL);
	assert_string_equal(err, "lca-test: option '--count' needs a value\n");
	assert_int_equal(opt_run(&c, err, sizeof(err), "-fZ"), -EINVAL);
	assert_string_equal(err, "lca-test: unknown option '-f'\n");
	assert_int_equal(opt_run(&c, err, sizeof(err), "--count 3 extra"), -EINVAL);
	assert_string_equal(err, "lca-test: unexpected argument 'extra'\n");
}

/* The help lists every option the parser takes, each once, and no hidden
 * one: it comes from the same table. */
static void
test_opt_help_from_table(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	app_opt_usage(f, &opt_table, "prog");
	fclose(f);
	assert_non_null(strstr(text, "Usage: prog [EAL args] -- [options]\nAbout.\n"));
	assert_non_null(strstr(text, "  -n, --count N       a count\n"));
	assert_non_null(strstr(text, "  --secs S            seconds\n                      second line\n"));
	assert_non_null(strstr(text, "  --custom Y          another form\n"));
	assert_non_null(strstr(text, "  --topology "));
	assert_non_null(strstr(text, "  --version "));
	assert_non_null(strstr(text, "  --help "));
	assert_null(strstr(text, "secret"));
	for (unsigned int i = 0; opt_tests[i].name != NULL; i++) {
		char word[64];

		snprintf(word, sizeof(word), "--%s ", opt_tests[i].name);
		if (!opt_tests[i].hidden)
			assert_non_null(strstr(text, word));
	}
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cli_uint),
		cmocka_unit_test(test_cli_seconds_and_split),
		cmocka_unit_test(test_cli_bad_option),
		cmocka_unit_test(test_opt_parse),
		cmocka_unit_test(test_opt_errors),
		cmocka_unit_test(test_opt_help_from_table),
		cmocka_unit_test(test_stats_match_jmh),
		cmocka_unit_test(test_t_quantiles),
		cmocka_unit_test(test_stats_edges),
		cmocka_unit_test(test_stats_percentiles),
		cmocka_unit_test(test_stats_median_interval),
		cmocka_unit_test(test_rng),
		cmocka_unit_test(test_result_measure),
		cmocka_unit_test(test_jmh_result_block),
		cmocka_unit_test(test_jmh_table),
		cmocka_unit_test(test_verdict_rows),
	};

	return lca_test_status(cmocka_run_group_tests(tests, NULL, NULL));
}
