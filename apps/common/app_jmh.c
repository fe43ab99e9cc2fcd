/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <string.h>

#include "app_jmh.h"

void
app_jmh_result(FILE *f, const char *name, const struct app_stats *s, const char *unit)
{
	double pct = s->confidence * 100.0;

	fprintf(f, "Result \"%s\":\n", name);
	if (isnan(s->error)) {
		fprintf(f, "  %.3f %s [Average]\n", s->mean, unit);
		fprintf(f, "  (min, avg, max) = (%.3f, %.3f, %.3f), stdev = NaN\n", s->min, s->mean,
			s->max);
		fprintf(f, "  (one iteration: no confidence interval)\n");
		return;
	}
	fprintf(f, "  %.3f ±(%.1f%%) %.3f %s [Average]\n", s->mean, pct, s->error, unit);
	fprintf(f, "  (min, avg, max) = (%.3f, %.3f, %.3f), stdev = %.3f\n", s->min, s->mean,
		s->max, s->stdev);
	/* JMH shows a lower bound at or below zero as "≈ 0". */
	if (s->mean - s->error <= 0)
		fprintf(f, "  CI (%.1f%%): [≈ 0, %.3f] (assumes normal distribution)\n", pct,
			s->mean + s->error);
	else
		fprintf(f, "  CI (%.1f%%): [%.3f, %.3f] (assumes normal distribution)\n", pct,
			s->mean - s->error, s->mean + s->error);
}

static int
max_int(int a, int b)
{
	return a > b ? a : b;
}

void
app_jmh_table(FILE *f, const char *const *names, unsigned int n_names,
	      const struct app_jmh_row *rows, unsigned int n_rows)
{
	int w_bench = (int)strlen("Benchmark"), w_param[APP_JMH_MAX_PARAMS];
	int w_score = (int)strlen("Score"), w_error = (int)strlen("Error");
	char buf[64];

	if (n_names > APP_JMH_MAX_PARAMS)
		n_names = APP_JMH_MAX_PARAMS;
	for (unsigned int p = 0; p < n_names; p++)
		w_param[p] = (int)strlen(names[p]) + 2;
	for (unsigned int r = 0; r < n_rows; r++) {
		w_bench = max_int(w_bench, (int)strlen(rows[r].benchmark));
		for (unsigned int p = 0; p < n_names; p++)
			w_param[p] = max_int(w_param[p], (int)strlen(rows[r].params[p]));
		w_score = max_int(w_score, snprintf(buf, sizeof(buf), "%.3f", rows[r].stats.mean));
		w_error = max_int(w_error, snprintf(buf, sizeof(buf), "%.3f", rows[r].stats.error));
	}

	fprintf(f, "%-*s", w_bench, "Benchmark");
	for (unsigned int p = 0; p < n_names; p++) {
		snprintf(buf, sizeof(buf), "(%s)", names[p]);
		fprintf(f, "  %*s", w_param[p], buf);
	}
	fprintf(f, "   Mode  Cnt  %*s   %*s  Units\n", w_score, "Score", w_error, "Error");
	for (unsigned int r = 0; r < n_rows; r++) {
		const struct app_jmh_row *row = &rows[r];

		fprintf(f, "%-*s", w_bench, row->benchmark);
		for (unsigned int p = 0; p < n_names; p++)
			fprintf(f, "  %*s", w_param[p], row->params[p]);
		fprintf(f, "  %5s  %3zu  %*.3f", row->mode, row->stats.n, w_score, row->stats.mean);
		if (isnan(row->stats.error))
			fprintf(f, "    %*s", w_error, "");
		else
			fprintf(f, " ± %*.3f", w_error, row->stats.error);
		fprintf(f, "  %s\n", row->unit);
	}
}
