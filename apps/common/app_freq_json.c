/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_freq_json.h"

const char *
app_freq_verdict_json_name(enum lca_freq_verdict v)
{
	switch (v) {
	case LCA_FREQ_STABLE:
		return "stable";
	case LCA_FREQ_UNSTABLE:
		return "unstable";
	default:
		return "no_data";
	}
}

/* jansson refuses NAN and infinities: an unknown figure is null. */
static json_t *
real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Set o[key] = v, taking v; counts a failure (v NULL or no memory) in *err. */
static void
set(json_t *o, const char *key, json_t *v, int *err)
{
	if (v == NULL || json_object_set_new(o, key, v) < 0)
		(*err)++;
}

/* "STABLE", the cause of an UNSTABLE verdict, or null when not judged. */
static json_t *
cause_json(enum lca_freq_verdict v, enum lca_freq_cause c)
{
	if (v == LCA_FREQ_STABLE)
		return json_string("STABLE");
	if (v == LCA_FREQ_UNSTABLE && c != LCA_FREQ_CAUSE_NONE)
		return json_string(lca_freq_cause_name(c));
	return json_null();
}

static json_t *
lcore_json(const struct lca_freq_lcore_report *l)
{
	json_t *o = json_object();
	int err = 0;

	if (o == NULL)
		return NULL;
	set(o, "lcore", json_integer(l->lcore_id), &err);
	set(o, "cpu", l->cpu >= 0 ? json_integer(l->cpu) : json_null(), &err);
	set(o, "source", json_string(lca_freq_source_name(l->source)), &err);
	set(o, "samples", json_integer(l->n_samples), &err);
	set(o, "dropped", json_integer((json_int_t)l->n_dropped), &err);
	set(o, "min_mhz", real_or_null(l->min_mhz), &err);
	set(o, "mean_mhz", real_or_null(l->mean_mhz), &err);
	set(o, "max_mhz", real_or_null(l->max_mhz), &err);
	set(o, "stdev_mhz", real_or_null(l->stdev_mhz), &err);
	set(o, "cv_pct", real_or_null(l->cv_pct), &err);
	set(o, "range_pct", real_or_null(l->range_pct), &err);
	set(o, "median_mhz", real_or_null(l->median_mhz), &err);
	set(o, "p1_mhz", real_or_null(l->p1_mhz), &err);
	set(o, "p99_mhz", real_or_null(l->p99_mhz), &err);
	set(o, "trimmed_range_pct", real_or_null(l->trim_range_pct), &err);
	set(o, "outliers", json_integer(l->n_outliers), &err);
	set(o, "probe_mhz", real_or_null(l->probe_mhz), &err);
	set(o, "busy_pct", real_or_null(l->busy_pct), &err);
	set(o, "steal_pct", real_or_null(l->steal_pct), &err);
	set(o, "irq_pct", real_or_null(l->irq_pct), &err);
	set(o, "avail_pct", real_or_null(l->avail_pct), &err);
	set(o, "rq_wait_pct", real_or_null(l->rq_wait_pct), &err);
	set(o, "invol_switches",
	    l->invol_switches >= 0 ? json_integer((json_int_t)l->invol_switches) : json_null(), &err);
	set(o, "governor", l->governor[0] != '\0' ? json_string(l->governor) : json_null(),
	    &err);
	set(o, "verdict", json_string(app_freq_verdict_json_name(l->verdict)), &err);
	set(o, "cause", cause_json(l->verdict, l->cause), &err);
	set(o, "reason", json_string(l->reason), &err);
	if (err != 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *
app_freq_report_json(const struct lca_freq_report *r)
{
	json_t *o = json_object(), *th = json_object(), *lcores = json_array();
	unsigned int i;
	int err = 0;

	if (o == NULL || th == NULL || lcores == NULL) {
		json_decref(o);
		json_decref(th);
		json_decref(lcores);
		return NULL;
	}
	set(th, "max_cv_pct", real_or_null(r->thresholds.max_cv_pct), &err);
	set(th, "max_range_pct", real_or_null(r->thresholds.max_range_pct), &err);
	set(th, "max_steal_pct", real_or_null(r->thresholds.max_steal_pct), &err);
	set(th, "max_rq_wait_pct", real_or_null(r->thresholds.max_rq_wait_pct), &err);
	set(th, "max_irq_pct", real_or_null(r->thresholds.max_irq_pct), &err);
	set(th, "outlier_pct", real_or_null(r->thresholds.outlier_pct), &err);
	for (i = 0; i < r->n_lcores; i++) {
		json_t *l = lcore_json(&r->lcores[i]);

		if (l == NULL || json_array_append_new(lcores, l) < 0)
			err++;
	}
	set(o, "tsc_hz", json_integer((json_int_t)r->tsc_hz), &err);
	set(o, "duration_s", real_or_null(r->duration_s), &err);
	set(o, "turbo", r->turbo < 0 ? json_null() : json_string(r->turbo ? "on" : "off"), &err);
	set(o, "cpu_pressure_pct", real_or_null(r->cpu_pressure_pct), &err);
	set(o, "verdict", json_string(app_freq_verdict_json_name(r->verdict)), &err);
	set(o, "cause", cause_json(r->verdict, r->cause), &err);
	set(o, "reason", json_string(r->reason), &err);
	set(o, "thresholds", th, &err);
	set(o, "lcores", lcores, &err);
	if (err != 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* One array per figure, of the same length: what a plot reads. */
static const struct {
	const char *key;
	size_t off;
} series_keys[] = {
	{ "t_s", offsetof(struct lca_freq_point, t_s) },
	{ "mhz", offsetof(struct lca_freq_point, mhz) },
	{ "probe_mhz", offsetof(struct lca_freq_point, probe_mhz) },
	{ "busy_pct", offsetof(struct lca_freq_point, busy_pct) },
	{ "steal_pct", offsetof(struct lca_freq_point, steal_pct) },
};

static json_t *
series_array(const struct lca_freq_point *pts, unsigned int n, size_t off)
{
	json_t *a = json_array();
	unsigned int i;

	for (i = 0; a != NULL && i < n; i++) {
		double v;

		memcpy(&v, (const char *)&pts[i] + off, sizeof(v));
		if (json_array_append_new(a, real_or_null(v)) < 0) {
			json_decref(a);
			a = NULL;
		}
	}
	return a;
}

json_t *
app_freq_series_json(unsigned int lcore_id)
{
	struct lca_freq_point *pts = NULL;
	json_t *o = NULL;
	int n, err = 0;
	size_t k;

	n = lca_freq_series_get(lcore_id, NULL, 0);
	if (n < 0)
		return NULL;
	if (n > 0) {
		pts = calloc((size_t)n, sizeof(*pts));
		if (pts == NULL || lca_freq_series_get(lcore_id, pts, (unsigned int)n) != n)
			goto out;
	}
	o = json_object();
	for (k = 0; o != NULL && k < RTE_DIM(series_keys); k++)
		set(o, series_keys[k].key, series_array(pts, (unsigned int)n, series_keys[k].off),
		    &err);
	if (err != 0) {
		json_decref(o);
		o = NULL;
	}
out:
	free(pts);
	return o;
}

int
app_freq_json_add_series(json_t *freq)
{
	json_t *lcores = json_object_get(freq, "lcores"), *l;
	size_t i;

	if (!json_is_array(lcores))
		return -EINVAL;
	json_array_foreach(lcores, i, l) {
		json_t *id = json_object_get(l, "lcore");
		json_t *series;

		if (!json_is_integer(id) || json_integer_value(id) < 0)
			continue;
		series = app_freq_series_json((unsigned int)json_integer_value(id));
		if (series == NULL) {
			/* No series is no error; a series not built is. */
			if (lca_freq_series_get((unsigned int)json_integer_value(id), NULL, 0) >= 0)
				return -ENOMEM;
			continue;
		}
		if (json_object_set_new(l, "series", series) < 0)
			return -ENOMEM;
	}
	return 0;
}
