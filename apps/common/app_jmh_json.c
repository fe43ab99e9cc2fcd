/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * JMH's result JSON. The shape (field names, their order, "NaN" as a
 * string where JMH has no number) is that of JMH's JSONResultFormat; the
 * figures are computed as JMH's statistics compute them.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "app_jmh_json.h"
#include "app_stats.h"

#ifndef APP_VERSION
#define APP_VERSION "unknown"
#endif

/* The JMH release whose JSON shape this follows: the one of the seed run
 * lca-reqresp reproduces (Akka's, JMH 1.19). */
#define JMH_SHAPE_VERSION "1.19"
#define JMH_CONFIDENCE 0.999

/* The percentiles JMH writes, as it names them. */
static const char *const pct_keys[] = { "0.0", "50.0", "90.0", "95.0", "99.0", "99.9",
					"99.99", "99.999", "99.9999", "100.0" };

/* A number, or "NaN" as JMH writes one it does not have. */
static json_t *
jmh_number(double v)
{
	return isfinite(v) ? json_real(v) : json_string("NaN");
}

/* The estimator of JMH's percentiles (commons-math's default): position
 * p (n + 1) / 100 in the sorted values, interpolated between neighbours. */
static double
jmh_percentile(const double *sorted, size_t n, double p)
{
	double pos = p * (double)(n + 1) / 100.0, whole = floor(pos);
	size_t k = (size_t)whole;

	if (p <= 0.0 || pos < 1.0)
		return sorted[0];
	if (pos >= (double)n)
		return sorted[n - 1];
	return sorted[k - 1] + (pos - whole) * (sorted[k] - sorted[k - 1]);
}

static json_t *
primary_metric(const struct app_jmh_row *r)
{
	double *sorted = app_stats_sorted_copy(r->values, r->n_values);
	double mean = 0, var = 0, error = NAN;
	json_t *pcts = json_object(), *raw = json_array(), *fork = json_array();
	size_t n = r->n_values;

	if (sorted == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		mean += r->values[i] / (double)n;
		json_array_append_new(fork, json_real(r->values[i]));
	}
	for (size_t i = 0; i < n; i++)
		var += (r->values[i] - mean) * (r->values[i] - mean);
	/* JMH gives no interval to 2 iterations or fewer. */
	if (n > 2)
		error = app_stats_t_quantile(1.0 - (1.0 - JMH_CONFIDENCE) / 2.0, (double)(n - 1)) *
			sqrt(var / (double)(n - 1)) / sqrt((double)n);
	for (size_t i = 0; i < sizeof(pct_keys) / sizeof(pct_keys[0]); i++)
		json_object_set_new(pcts, pct_keys[i],
				    json_real(jmh_percentile(sorted, n, atof(pct_keys[i]))));
	free(sorted);
	json_array_append_new(raw, fork);
	return json_pack("{s:f, s:o, s:[o, o], s:o, s:s, s:o}", "score", mean, "scoreError",
			 jmh_number(error), "scoreConfidence", jmh_number(mean - error),
			 jmh_number(mean + error), "scorePercentiles", pcts, "scoreUnit", r->unit,
			 "rawData", raw);
}

static json_t *
benchmark_entry(const struct app_jmh_run *run, const char *const *names, unsigned int n_names,
		const struct app_jmh_row *r)
{
	char name[256];
	json_t *params = json_object(), *metric = primary_metric(r);

	if (metric == NULL) {
		json_decref(params);
		return NULL;
	}
	snprintf(name, sizeof(name), "%s%s", run->prefix != NULL ? run->prefix : "", r->benchmark);
	for (unsigned int i = 0; i < n_names; i++)
		json_object_set_new(params, names[i], json_string(r->params[i] ? r->params[i] : ""));
	return json_pack("{s:s, s:s, s:s, s:i, s:i, s:s, s:[], s:s, s:s, s:s, s:i, s:s, s:i, s:i,"
			 " s:s, s:i, s:o, s:o, s:{}}",
			 "jmhVersion", JMH_SHAPE_VERSION, "benchmark", name, "mode", r->mode,
			 "threads", (int)run->threads, "forks", 1, "jvm", "none (native, lcactor)",
			 "jvmArgs", "jdkVersion", "none", "vmName", "lcactor", "vmVersion",
			 APP_VERSION, "warmupIterations", (int)run->warmups, "warmupTime",
			 run->warmup_time, "warmupBatchSize", 1, "measurementIterations",
			 (int)run->iterations, "measurementTime", run->measurement_time,
			 "measurementBatchSize", 1, "params", params, "primaryMetric", metric,
			 "secondaryMetrics");
}

int
app_jmh_json_write(const char *path, const struct app_jmh_run *run,
		   const char *const *names, unsigned int n_names,
		   const struct app_jmh_row *rows, unsigned int n_rows, const char *prog)
{
	json_t *doc = json_array();
	int ret = 0;

	for (unsigned int i = 0; i < n_rows && ret == 0; i++) {
		json_t *e = rows[i].n_values > 0 ?
			benchmark_entry(run, names, n_names, &rows[i]) : NULL;

		if (rows[i].n_values == 0)
			continue;
		if (e == NULL || json_array_append_new(doc, e) < 0)
			ret = -ENOMEM;
	}
	if (ret == 0 && json_dump_file(doc, path, JSON_INDENT(4)) != 0)
		ret = -EIO;
	if (ret < 0)
		fprintf(stderr, "%s: cannot write %s: %s\n", prog, path, strerror(-ret));
	json_decref(doc);
	return ret;
}
