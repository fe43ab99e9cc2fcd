/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_criterion.h"
#include "app_rng.h"
#include "app_stats.h"

/* Criterion's bootstrap of the mean: percentiles of resampled means. */
static int
bootstrap_mean(const double *x, size_t n, double confidence, unsigned int resamples,
	       uint64_t seed, double *low, double *high)
{
	double *means = malloc(sizeof(*means) * resamples), *sorted;
	uint64_t rng = seed;

	if (means == NULL)
		return -ENOMEM;
	for (unsigned int r = 0; r < resamples; r++) {
		double sum = 0.0;

		for (size_t i = 0; i < n; i++)
			sum += x[app_rng_below(&rng, (uint32_t)n)];
		means[r] = sum / (double)n;
	}
	sorted = app_stats_sorted_copy(means, resamples);
	free(means);
	if (sorted == NULL)
		return -ENOMEM;
	*low = app_stats_percentile(sorted, resamples, 50.0 * (1.0 - confidence));
	*high = app_stats_percentile(sorted, resamples, 50.0 * (1.0 + confidence));
	free(sorted);
	return 0;
}

static void
classify_outliers(const double *sorted, size_t n, struct app_crit_summary *s)
{
	double q1 = app_stats_percentile(sorted, n, 25.0);
	double q3 = app_stats_percentile(sorted, n, 75.0);
	double iqr = q3 - q1;

	s->low_severe = s->low_mild = s->high_mild = s->high_severe = 0;
	for (size_t i = 0; i < n; i++) {
		double x = sorted[i];

		if (x < q1 - 3.0 * iqr)
			s->low_severe++;
		else if (x > q3 + 3.0 * iqr)
			s->high_severe++;
		else if (x < q1 - 1.5 * iqr)
			s->low_mild++;
		else if (x > q3 + 1.5 * iqr)
			s->high_mild++;
	}
}

int
app_crit_summarize(const double *samples, size_t n, double confidence, unsigned int resamples,
		   uint64_t seed, struct app_crit_summary *out)
{
	struct app_stats st;
	double *sorted;
	int ret;

	if (samples == NULL || out == NULL || n == 0 || resamples == 0 ||
	    !(confidence > 0.0 && confidence < 1.0))
		return -EINVAL;
	ret = app_stats_compute(samples, n, confidence, &st);
	sorted = ret == 0 ? app_stats_sorted_copy(samples, n) : NULL;
	if (sorted == NULL)
		return ret < 0 ? ret : -ENOMEM;
	*out = (struct app_crit_summary){
		.n = n, .mean = st.mean, .confidence = confidence, .stdev = st.stdev,
		.min = st.min, .median = st.p50, .p99 = st.p99, .max = st.max,
	};
	classify_outliers(sorted, n, out);
	free(sorted);
	return bootstrap_mean(samples, n, confidence, resamples, seed, &out->ci_low, &out->ci_high);
}

/* criterion's format::short: four significant digits. */
static void
format_short(double v, char *buf, size_t len)
{
	int decimals = v < 10.0 ? 4 : v < 100.0 ? 3 : v < 1000.0 ? 2 : v < 10000.0 ? 1 : 0;

	snprintf(buf, len, "%.*f", decimals, v);
}

void
app_crit_format_time(double ns, char *buf, size_t len)
{
	char num[64];
	const char *unit;
	double v;

	if (ns < 1.0) {
		v = ns * 1e3;
		unit = "ps";
	} else if (ns < 1e3) {
		v = ns;
		unit = "ns";
	} else if (ns < 1e6) {
		v = ns / 1e3;
		unit = "µs";
	} else if (ns < 1e9) {
		v = ns / 1e6;
		unit = "ms";
	} else {
		v = ns / 1e9;
		unit = "s";
	}
	format_short(v, num, sizeof(num));
	snprintf(buf, len, "%6s %s", num, unit);
}

void
app_crit_format_thrpt(double elems, double ns, char *buf, size_t len)
{
	double per_s = elems * (1e9 / ns), div;
	const char *unit;
	char num[64];

	if (per_s < 1e3) {
		div = 1.0;
		unit = " elem/s";
	} else if (per_s < 1e6) {
		div = 1e3;
		unit = "Kelem/s";
	} else if (per_s < 1e9) {
		div = 1e6;
		unit = "Melem/s";
	} else {
		div = 1e9;
		unit = "Gelem/s";
	}
	format_short(per_s / div, num, sizeof(num));
	snprintf(buf, len, "%6s %s", num, unit);
}

static void
print_outliers(FILE *f, const struct app_crit_summary *s)
{
	const unsigned int counts[] = { s->low_severe, s->low_mild, s->high_mild, s->high_severe };
	const char *const labels[] = { "low severe", "low mild", "high mild", "high severe" };
	unsigned int total = s->low_severe + s->low_mild + s->high_mild + s->high_severe;

	if (total == 0)
		return;
	fprintf(f, "Found %u outliers among %zu measurements (%.2f%%)\n", total, s->n,
		100.0 * total / (double)s->n);
	for (unsigned int i = 0; i < 4; i++)
		if (counts[i] != 0)
			fprintf(f, "  %u (%.2f%%) %s\n", counts[i],
				100.0 * counts[i] / (double)s->n, labels[i]);
}

void
app_crit_print(FILE *f, const char *id, const struct app_crit_summary *s, double elems)
{
	char t[3][32], r[3][32];

	app_crit_format_time(s->ci_low, t[0], sizeof(t[0]));
	app_crit_format_time(s->mean, t[1], sizeof(t[1]));
	app_crit_format_time(s->ci_high, t[2], sizeof(t[2]));
	/* The slowest time is the lowest throughput. */
	app_crit_format_thrpt(elems, s->ci_high, r[0], sizeof(r[0]));
	app_crit_format_thrpt(elems, s->mean, r[1], sizeof(r[1]));
	app_crit_format_thrpt(elems, s->ci_low, r[2], sizeof(r[2]));
	if (strlen(id) > 23)
		fprintf(f, "%s\n%24s", id, "");
	else
		fprintf(f, "%-24s", id);
	fprintf(f, "time:   [%s %s %s]\n", t[0], t[1], t[2]);
	fprintf(f, "%24sthrpt:  [%s %s %s]\n", "", r[0], r[1], r[2]);
	print_outliers(f, s);
}
