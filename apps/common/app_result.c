/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "lca_eal.h"
#include "app_isol_print.h"
#include "app_report.h"
#include "app_result.h"
#include "app_series.h"

#ifndef APP_VERSION
#define APP_VERSION "unknown"
#endif

static const char *app_name = "lcactor";
/* A copy: parsers split lists in place (commas become NULs). */
static json_t *app_args;

void
app_result_context(const char *app, int argc, char **argv)
{
	app_name = app;
	json_decref(app_args);
	app_args = json_array();
	for (int i = 1; i < argc; i++)
		json_array_append_new(app_args, json_string(argv[i]));
}

static json_t *
date_now(void)
{
	time_t now = time(NULL);
	char buf[32];
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return json_string(buf);
}

json_t *
app_result_new(json_t *conf)
{
	json_t *r = json_pack("{s:s, s:s, s:s, s:o, s:o, s:s, s:O, s:o, s:[], s:[]}", "schema",
			      APP_RESULT_SCHEMA, "app", app_name, "version", APP_VERSION, "date",
			      date_now(), "machine", app_report_machine_json(), "eal_args",
			      lca_eal_args(), "app_args", app_args ? app_args : json_array(),
			      "conf", conf ? conf : json_object(), "placement", "results");

	return r;
}

void
app_result_add(json_t *record, json_t *result)
{
	json_array_append_new(json_object_get(record, "results"), result);
}

int
app_result_write(json_t *record, bool ok, const char *path)
{
	if (json_object_get(record, "frequency") == NULL)
		json_object_set_new(record, "frequency",
				    app_freq_none_json("no series was measured"));
	json_object_set_new(record, "lcores", app_report_lcores_json());
	if (json_object_get(record, "isolation") == NULL) {
		json_t *isol = app_isol_last_json();

		if (isol != NULL)
			json_object_set_new(record, "isolation", isol);
	}
	json_object_set_new(record, "ok", json_boolean(ok));
	return app_report_write_json(path, record);
}

/* jansson refuses NAN: an interval that cannot be had is null. */
static json_t *
real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *
app_result_measure(const struct app_stats *s, const double *values, const char *unit)
{
	json_t *vals = json_array();

	for (size_t i = 0; i < s->n; i++)
		json_array_append_new(vals, real_or_null(values[i]));
	return json_pack("{s:s, s:o, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:o, s:o, s:f, s:s}",
			 "unit", unit, "values", vals, "n", (json_int_t)s->n, "mean", s->mean,
			 "min", s->min, "max", s->max, "stdev", s->stdev, "p50", s->p50, "p90",
			 s->p90, "p99", s->p99, "ci_low", real_or_null(s->mean - s->error),
			 "ci_high", real_or_null(s->mean + s->error), "confidence", s->confidence,
			 "ci_method", "student-t");
}

json_t *
app_result_measure_of(const double *values, unsigned int n, double confidence, const char *unit)
{
	struct app_stats s;

	if (app_stats_compute(values, n, confidence, &s) < 0)
		return NULL;
	return app_result_measure(&s, values, unit);
}
