/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "app_result.h"
#include "app_series.h"
#include "app_stats.h"
#include "app_verdict.h"

/* jansson refuses NAN: a figure that could not be had is null. */
static json_t *
real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *
string_or_null(const char *s)
{
	return s != NULL ? json_string(s) : json_null();
}

double
app_verdict_tick_s(void)
{
	static double tick_s;
	struct utsname u;
	char path[320], line[128];
	FILE *f;

	if (tick_s > 0)
		return tick_s;
	tick_s = 1.0 / 250;
	if (uname(&u) < 0)
		return tick_s;
	snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	f = fopen(path, "r");
	if (f == NULL)
		return tick_s;
	while (fgets(line, sizeof(line), f) != NULL) {
		long hz;

		if (sscanf(line, "CONFIG_HZ=%ld", &hz) == 1 && hz > 0) {
			tick_s = 1.0 / (double)hz;
			break;
		}
	}
	fclose(f);
	return tick_s;
}

/* The median, least and greatest of the per-pair ratios; NAN when none. */
static void
ratio_summary(const double *ratios, unsigned int n, double *median, double *min, double *max)
{
	double *sorted;

	*median = *min = *max = NAN;
	if (n == 0 || (sorted = app_stats_sorted_copy(ratios, n)) == NULL)
		return;
	*median = app_stats_percentile(sorted, n, 50);
	*min = sorted[0];
	*max = sorted[n - 1];
	free(sorted);
}

static json_t *
flags_of(const struct app_verdict_row *row)
{
	json_t *flags = json_array();

	if (isfinite(row->ci_half) && row->ci_half > fabs(row->score) / 2)
		json_array_append_new(flags, json_string("unreliable"));
	if (isfinite(row->floor_moved_pct) && row->floor_moved_pct > APP_VERDICT_MOVED_PCT)
		json_array_append_new(flags, json_string("moved"));
	if (isfinite(row->window_s) &&
	    row->window_s < APP_VERDICT_MIN_TICKS * app_verdict_tick_s())
		json_array_append_new(flags, json_string("short-window"));
	return flags;
}

static json_t *
ratios_of(const struct app_verdict_row *row)
{
	json_t *a = json_array();

	for (unsigned int i = 0; i < row->n_ratios; i++)
		json_array_append_new(a, real_or_null(row->ratios[i]));
	return a;
}

int
app_verdict_add(json_t *record, const struct app_verdict_row *row)
{
	json_t *verdict, *rows, *o;
	double med, min, max;

	if (row->config == NULL || row->unit == NULL ||
	    (row->floor == NULL && row->no_floor_why == NULL))
		return -EINVAL;
	verdict = json_object_get(record, "verdict");
	if (verdict == NULL) {
		verdict = json_pack("{s:[]}", "rows");
		if (verdict == NULL || json_object_set_new(record, "verdict", verdict) < 0)
			return -ENOMEM;
	}
	rows = json_object_get(verdict, "rows");
	ratio_summary(row->ratios, row->floor != NULL ? row->n_ratios : 0, &med, &min, &max);
	o = json_pack("{s:s, s:s, s:o, s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o, s:o}",
		      "config", row->config, "kind",
		      row->kind == APP_VERDICT_TIME ? "time" : "rate", "score",
		      real_or_null(row->score), "ci_half", real_or_null(row->ci_half), "unit",
		      row->unit, "floor", string_or_null(row->floor), "no_floor_why",
		      string_or_null(row->floor == NULL ? row->no_floor_why : NULL), "ratios",
		      ratios_of(row), "ratio_median", real_or_null(med), "ratio_min",
		      real_or_null(min), "ratio_max", real_or_null(max), "floor_moved_pct",
		      real_or_null(row->floor_moved_pct), "moved",
		      isfinite(row->floor_moved_pct) &&
			      row->floor_moved_pct > APP_VERDICT_MOVED_PCT,
		      "window_s", real_or_null(row->window_s), "flags", flags_of(row));
	if (o == NULL || json_array_append_new(rows, o) < 0)
		return -ENOMEM;
	return 0;
}

static double
number_of(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static bool
has_flag(const json_t *row, const char *flag)
{
	size_t i;
	json_t *f;

	json_array_foreach(json_object_get(row, "flags"), i, f)
		if (json_is_string(f) && strcmp(json_string_value(f), flag) == 0)
			return true;
	return false;
}

/* "38.2 % of its floor" or "1.81× its floor", with the pairs' spread. */
static void
print_ratio(FILE *f, const json_t *row)
{
	bool time = strcmp(json_string_value(json_object_get(row, "kind")), "time") == 0;
	double med = number_of(row, "ratio_median"), min = number_of(row, "ratio_min");
	double max = number_of(row, "ratio_max");
	size_t pairs = json_array_size(json_object_get(row, "ratios"));

	if (!isfinite(med)) {
		fprintf(f, "  floor: %s, no ratio measured", json_string_value(json_object_get(row, "floor")));
		return;
	}
	if (time)
		fprintf(f, "  %.2f× its floor", med);
	else
		fprintf(f, "  %.1f %% of its floor", 100 * med);
	if (pairs > 1 && time)
		fprintf(f, " (%zu pairs %.2f–%.2f×)", pairs, min, max);
	else if (pairs > 1)
		fprintf(f, " (%zu pairs %.1f–%.1f %%)", pairs, 100 * min, 100 * max);
	fprintf(f, "; floor: %s", json_string_value(json_object_get(row, "floor")));
}

/* A figure in plain digits, as precise as its size calls for: never the
 * e-notation of %g, which reads as a different number at a glance. */
static const char *
plain(double v, char *buf, size_t len)
{
	double a = fabs(v);
	int decimals = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : a >= 0.01 ? 3 : 6;

	snprintf(buf, len, "%.*f", decimals, v);
	return buf;
}

static void
print_row(FILE *f, const json_t *row)
{
	double ci = number_of(row, "ci_half");
	char num[48];

	fprintf(f, "%s: %s", json_string_value(json_object_get(row, "config")),
		plain(number_of(row, "score"), num, sizeof(num)));
	if (isfinite(ci))
		fprintf(f, " ± %s", plain(ci, num, sizeof(num)));
	fprintf(f, " %s", json_string_value(json_object_get(row, "unit")));
	if (json_is_string(json_object_get(row, "floor")))
		print_ratio(f, row);
	else
		fprintf(f, "  no floor: %s",
			json_string_value(json_object_get(row, "no_floor_why")));
	fputc('\n', f);
	if (has_flag(row, "unreliable"))
		fprintf(f, "  unreliable: the interval is wider than half the score; rerun with "
			   "more iterations\n");
	if (has_flag(row, "moved"))
		fprintf(f, "  the CPUs moved during the run: the floor moved %.0f %% between its "
			   "rounds\n",
			number_of(row, "floor_moved_pct"));
	if (has_flag(row, "short-window"))
		fprintf(f, "  short window: %.1f ms is under %d scheduler ticks (%.0f ms)\n",
			1e3 * number_of(row, "window_s"), APP_VERDICT_MIN_TICKS,
			1e3 * APP_VERDICT_MIN_TICKS * app_verdict_tick_s());
}

/* "stable", or the cause in capitals with the reason. */
static void
print_clock(FILE *f, const json_t *freq)
{
	const char *verdict = json_string_value(json_object_get(freq, "verdict"));
	const char *cause = json_string_value(json_object_get(freq, "cause"));
	const char *reason = json_string_value(json_object_get(freq, "reason"));

	if (verdict == NULL)
		fprintf(f, "clock: n/a (no frequency report)\n");
	else if (strcmp(verdict, "stable") == 0)
		fprintf(f, "clock: stable (every lcore within its limits)\n");
	else if (strcmp(verdict, "unstable") == 0)
		fprintf(f, "clock: %s (%s)\n", cause != NULL ? cause : "UNSTABLE",
			reason != NULL && reason[0] != '\0' ? reason : "no reason given");
	else
		fprintf(f, "clock: n/a (%s)\n", reason != NULL ? reason : verdict);
}

void
app_verdict_print(FILE *f, const json_t *record)
{
	const json_t *rows = json_object_get(json_object_get(record, "verdict"), "rows");
	const json_t *row;
	size_t i;

	fprintf(f, "\n== verdict ==\n");
	json_array_foreach(rows, i, row)
		print_row(f, row);
	if (json_array_size(rows) == 0)
		fprintf(f, "no configuration was judged\n");
	print_clock(f, json_object_get(record, "frequency"));
}

int
app_result_finish(json_t *record, bool ok, const char *path)
{
	int ret = 0;

	if (path != NULL)
		ret = app_result_write(record, ok, path);
	else if (json_object_get(record, "frequency") == NULL)
		json_object_set_new(record, "frequency", app_freq_none_json("no series was measured"));
	fflush(stderr);
	app_verdict_print(stdout, record);
	if (path == NULL)
		printf("record: none (--json FILE writes one)\n");
	else if (ret < 0)
		printf("record: not written (%s)\n", path);
	else
		printf("record: %s\n", path);
	fflush(stdout);
	return ret;
}
