/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lca-freq: a monitor in the manner of i7z and turbostat over the enabled
 * lcores. Every interval, a row per lcore: its clock, where the figure comes
 * from, busy %, steal % and irq %. At the end, the same report every
 * benchmark prints, over the whole run.
 *
 * Without --load each lcore takes a sample at the start and at the end of
 * each interval (delta sources, MSR and perf, cover the interval between);
 * with --load every lcore spins and samples on lca_freq_poll() as a run loop
 * does, so the rows show the clock under load.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "app_main.h"
#include "app_cli.h"
#include "lca_eal.h"
#include "lca_freq.h"
#include "app_freq_json.h"
#include "app_freq_print.h"
#include "app_report.h"
#include "app_result.h"
#include "app_series.h"
#include "app_verdict.h"

#define PROG "lca-freq"

/* Probe runs timed for the cost figure: enough to average out the TSC
 * reads, few enough to take well under a second. */
#define PROBE_COST_RUNS 2000
/* Longest interval: an hour, as turbostat allows far more but nobody waits. */
#define MAX_INTERVAL_S 3600.0
/* Sampling period under --load: 10 ms, or a quarter interval when shorter,
 * so that even a short interval has figures to spread. */
#define LOAD_PERIOD_S 0.01

struct freq_opts {
	double interval_s;
	uint64_t count; /* 0: until SIGINT */
	bool csv;
	bool load;
	const char *json_path;
};

#define AT(field) APP_OPT_AT(struct freq_opts, field)

static const struct app_opt options[] = {
	{ "interval", 0, APP_OPT_DOUBLE, AT(interval_s), .dmin = 0, .dmax = MAX_INTERVAL_S,
	  .metavar = "SECONDS", .help = "time between rows (default 1; fractions allowed)",
	  .why = "seconds, more than 0, at most 3600" },
	{ "count", 0, APP_OPT_UINT, AT(count), .min = 0, .max = UINT32_MAX, .metavar = "N",
	  .help = "rows per lcore, then stop (default 0: until Ctrl-C)",
	  .why = "a whole number, 0 for no limit" },
	{ "csv", 0, APP_OPT_FLAG, AT(csv),
	  .help = "rows as CSV on stdout (the report goes to stderr)" },
	{ "json", 0, APP_OPT_OUTPUT, AT(json_path), .metavar = "FILE",
	  .help = "write every interval and the report to FILE" },
	{ "load", 0, APP_OPT_FLAG, AT(load), .help = "spin every lcore, to show the clock under load" },
	{ NULL },
};

static const struct app_opt_table table = {
	.prog = PROG, .opts = options, .eal = true,
	.about = "Show every enabled lcore's clock, busy, steal and irq time, interval by\n"
		 "interval, then the stability report over the whole run.\n",
};

static int
parse_args(int argc, char **argv, void *conf)
{
	struct freq_opts *o = conf;

	*o = (struct freq_opts){ .interval_s = 1.0 };
	return app_opt_parse(argc, argv, &table, o, NULL);
}

/* --- sampling on the lcores ---------------------------------------------- */

static int
sample_once(void *arg)
{
	RTE_SET_USED(arg);
	lca_freq_sample(rte_lcore_id(), rte_rdtsc());
	return 0;
}

/* What a run loop does: poll every iteration until the interval ends. */
static int
spin_until(void *arg)
{
	const uint64_t end = *(const uint64_t *)arg;
	const unsigned int lcore_id = rte_lcore_id();
	uint64_t now;

	while ((now = rte_rdtsc()) < end && !lca_eal_stop_requested())
		lca_freq_poll(lcore_id, now);
	return 0;
}

/* A sample on every lcore, each on itself; the main lcore takes its own. */
static int
sample_all(void)
{
	int ret = rte_eal_mp_remote_launch(sample_once, NULL, CALL_MAIN);

	rte_eal_mp_wait_lcore();
	return ret;
}

static void
sleep_until(const struct timespec *t)
{
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, t, NULL) == EINTR)
		if (lca_eal_stop_requested())
			return;
}

static void
timespec_add(struct timespec *t, double s)
{
	double whole = floor(s);

	t->tv_sec += (time_t)whole;
	t->tv_nsec += (long)((s - whole) * 1e9);
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

/* One interval, from monitor start to stop. */
static int
run_interval(const struct freq_opts *o, struct timespec *deadline, struct lca_freq_report *rep)
{
	struct lca_freq_conf conf;
	int ret;

	lca_freq_conf_init(&conf);
	conf.period_s = o->load ? fmin(LOAD_PERIOD_S, o->interval_s / 4) : o->interval_s;
	ret = lca_freq_monitor_start(&conf);
	if (ret < 0)
		return ret;
	timespec_add(deadline, o->interval_s);
	if (o->load) {
		uint64_t end = rte_rdtsc() + (uint64_t)(o->interval_s * (double)rte_get_tsc_hz());

		ret = rte_eal_mp_remote_launch(spin_until, &end, CALL_MAIN);
		rte_eal_mp_wait_lcore();
	} else {
		ret = sample_all();
		if (ret == 0) {
			sleep_until(deadline);
			ret = sample_all();
		}
	}
	lca_freq_monitor_stop(rep);
	return ret;
}

/* --- output --------------------------------------------------------------- */

static void
print_header(const struct freq_opts *o)
{
	if (o->csv)
		printf("interval,time_s,lcore,cpu,source,mhz,min_mhz,max_mhz,probe_mhz,"
		       "busy_pct,steal_pct,irq_pct\n");
	else
		printf("%8s %5s %4s %-7s %8s %8s %8s %9s %6s %6s %6s\n", "time_s", "lcore", "cpu",
		       "source", "MHz", "min MHz", "max MHz", "probe MHz", "busy%", "steal%",
		       "irq%");
}

/* A figure in a table column, or "n/a"; in CSV, empty when unknown. */
static void
put_num(const struct freq_opts *o, int width, int prec, double v)
{
	if (o->csv) {
		if (isnan(v))
			printf(",");
		else
			printf(",%.*f", prec, v);
	} else if (isnan(v)) {
		printf(" %*s", width, "n/a");
	} else {
		printf(" %*.*f", width, prec, v);
	}
}

static void
print_rows(const struct freq_opts *o, uint64_t interval, double time_s,
	   const struct lca_freq_report *rep)
{
	unsigned int i;

	for (i = 0; i < rep->n_lcores; i++) {
		const struct lca_freq_lcore_report *l = &rep->lcores[i];
		const char *src = lca_freq_source_name(l->source);

		if (o->csv) {
			printf("%" PRIu64 ",%.3f,%u,", interval, time_s, l->lcore_id);
			if (l->cpu >= 0)
				printf("%d", l->cpu);
			printf(",%s", src);
		} else {
			printf("%8.2f %5u", time_s, l->lcore_id);
			if (l->cpu >= 0)
				printf(" %4d", l->cpu);
			else
				printf(" %4s", "any");
			printf(" %-7s", src);
		}
		put_num(o, 8, 1, l->mean_mhz);
		put_num(o, 8, 1, l->min_mhz);
		put_num(o, 8, 1, l->max_mhz);
		put_num(o, 9, 1, l->probe_mhz);
		put_num(o, 6, 1, l->busy_pct);
		put_num(o, 6, 2, l->steal_pct);
		put_num(o, 6, 2, l->irq_pct);
		putchar('\n');
	}
	fflush(stdout);
}

/* The probe's cost on the main lcore, in microseconds per sample. */
static double
probe_cost_us(void)
{
	const uint64_t hz = rte_get_tsc_hz();
	uint64_t t0, t1;
	double mhz;
	int i;

	if (lca_freq_probe(hz, &mhz) < 0) /* warm: code and branch predictors */
		return NAN;
	t0 = rte_rdtsc();
	for (i = 0; i < PROBE_COST_RUNS; i++)
		lca_freq_probe(hz, &mhz);
	t1 = rte_rdtsc();
	return (double)(t1 - t0) / (double)hz * 1e6 / PROBE_COST_RUNS;
}

static int
write_json(const struct freq_opts *o, double cost_us, json_t *intervals,
	   const struct lca_freq_report *total)
{
	json_t *rec = app_result_new(json_pack("{s:f, s:I, s:b, s:b}", "interval_s",
					       o->interval_s, "count", (json_int_t)o->count,
					       "load", o->load, "csv", o->csv));
	json_t *results, *freq = app_freq_ran_json(total);
	int ret;

	if (rec == NULL || freq == NULL) {
		json_decref(rec);
		json_decref(freq);
		return -ENOMEM;
	}
	results = json_object_get(rec, "results");
	json_array_append_new(results, json_pack("{s:s, s:o}", "name", "probe cost",
						 "probe_cost_us", isnan(cost_us) ? json_null() :
						 json_real(cost_us)));
	json_array_extend(results, intervals);
	json_object_set_new(rec, "frequency", freq);
	app_verdict_add(rec, &(struct app_verdict_row){
		.config = "probe cost", .kind = APP_VERDICT_TIME, .score = cost_us,
		.ci_half = NAN, .unit = "us a reading",
		.no_floor_why = "lca-freq measures the clock itself; nothing runs beneath it",
		.floor_moved_pct = NAN, .window_s = NAN });
	/* CSV mode keeps stdout CSV only: the record, without the verdict lines. */
	ret = o->csv ? app_result_write(rec, true, o->json_path)
		     : app_result_finish(rec, true, o->json_path);
	json_decref(rec);
	return ret;
}

/* The reports are large (one entry per possible lcore): not on the stack. */
static struct lca_freq_report interval_rep;
static struct lca_freq_report total_rep;

static int
monitor(const struct freq_opts *o)
{
	FILE *summary = o->csv ? stderr : stdout;
	json_t *intervals = NULL;
	struct timespec start, deadline;
	double cost_us;
	uint64_t i;
	int ret = 0;

	cost_us = probe_cost_us();
	if (o->json_path != NULL || !o->csv) {
		intervals = json_array();
		if (intervals == NULL)
			return -ENOMEM;
	}
	if (!o->csv)
		app_report_machine(stdout);
	/* Kept off stdout in CSV mode, so that stdout is CSV only. */
	fprintf(summary, "probe cost: %.3f us/sample\n", cost_us);
	fprintf(summary, "%u lcores, interval %g s, %s\n", rte_lcore_count(), o->interval_s,
		o->load ? "under load (--load)" : "idle between samples");
	print_header(o);

	clock_gettime(CLOCK_MONOTONIC, &start);
	deadline = start;
	memset(&total_rep, 0, sizeof(total_rep));
	for (i = 0; o->count == 0 || i < o->count; i++) {
		struct timespec now;
		double t;

		ret = run_interval(o, &deadline, &interval_rep);
		if (ret < 0) {
			fprintf(stderr, PROG ": sampling failed: %s\n", strerror(-ret));
			break;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		t = (double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9;
		print_rows(o, i, t, &interval_rep);
		lca_freq_report_merge(&total_rep, &interval_rep);
		if (intervals != NULL) {
			json_t *j = app_freq_ran_json(&interval_rep), *r;
			char name[32];

			/* The monitor keeps this interval's series until the next start. */
			if (j != NULL)
				app_freq_json_add_series(j);

			snprintf(name, sizeof(name), "interval %" PRIu64, i);
			r = json_pack("{s:s, s:I, s:f, s:o?}", "name", name, "interval",
				      (json_int_t)i, "time_s", t, "frequency", j);
			if (j == NULL || r == NULL || json_array_append_new(intervals, r) < 0)
				ret = -ENOMEM;
		}
		if (ret < 0 || lca_eal_stop_requested())
			break;
	}

	if (total_rep.n_lcores > 0) {
		fputc('\n', summary);
		app_freq_report_print(summary, &total_rep);
	}
	if (intervals != NULL) {
		if (ret == 0)
			ret = write_json(o, cost_us, intervals, &total_rep);
		json_decref(intervals);
	}
	return ret;
}

static int
run(void *conf)
{
	return monitor(conf);
}

int
main(int argc, char **argv)
{
	struct freq_opts opts;
	const struct app_spec app = {
		.name = PROG, .parse = parse_args, .opts = &table, .run = run, .conf = &opts,
	};

	return app_main(argc, argv, &app);
}
