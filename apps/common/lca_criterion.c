/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lca_criterion.h"

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double
lca_crit_percentile(const double *sorted, size_t n, double pct)
{
	double rank, lo;
	size_t i;

	if (sorted == NULL || n == 0 || !(pct >= 0.0 && pct <= 100.0))
		return NAN;
	rank = pct / 100.0 * (double)(n - 1);
	lo = floor(rank);
	i = (size_t)lo;
	if (i + 1 >= n)
		return sorted[n - 1];
	return sorted[i] + (sorted[i + 1] - sorted[i]) * (rank - lo);
}

static inline uint64_t
rng_next(uint64_t *s)
{
	/* splitmix64: any seed, 0 included, gives a good stream. */
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Criterion's bootstrap of the mean: percentiles of resampled means. */
static int
bootstrap_mean(const double *x, size_t n, double confidence, unsigned int resamples,
	       uint64_t seed, double *low, double *high)
{
	double *means = malloc(sizeof(*means) * resamples);
	uint64_t rng = seed;

	if (means == NULL)
		return -ENOMEM;
	for (unsigned int r = 0; r < resamples; r++) {
		double sum = 0.0;

		for (size_t i = 0; i < n; i++)
			sum += x[(size_t)(((rng_next(&rng) >> 32) * (uint64_t)n) >> 32)];
		means[r] = sum / (double)n;
	}
	qsort(means, resamples, sizeof(*means), cmp_double);
	*low = lca_crit_percentile(means, resamples, 50.0 * (1.0 - confidence));
	*high = lca_crit_percentile(means, resamples, 50.0 * (1.0 + confidence));
	free(means);
	return 0;
}

static void
classify_outliers(const double *sorted, size_t n, struct lca_crit_summary *s)
{
	double q1 = lca_crit_percentile(sorted, n, 25.0);
	double q3 = lca_crit_percentile(sorted, n, 75.0);
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
lca_crit_summarize(const double *samples, size_t n, double confidence, unsigned int resamples,
		   uint64_t seed, struct lca_crit_summary *out)
{
	double sum = 0.0, sq = 0.0, *sorted;
	int ret;

	if (samples == NULL || out == NULL || n == 0 || resamples == 0 ||
	    !(confidence > 0.0 && confidence < 1.0))
		return -EINVAL;
	sorted = malloc(sizeof(*sorted) * n);
	if (sorted == NULL)
		return -ENOMEM;
	memcpy(sorted, samples, sizeof(*sorted) * n);
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	for (size_t i = 0; i < n; i++)
		sum += samples[i];
	out->n = n;
	out->mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		sq += (samples[i] - out->mean) * (samples[i] - out->mean);
	out->stdev = n > 1 ? sqrt(sq / (double)(n - 1)) : 0.0;
	out->confidence = confidence;
	out->min = sorted[0];
	out->max = sorted[n - 1];
	out->median = lca_crit_percentile(sorted, n, 50.0);
	out->p99 = lca_crit_percentile(sorted, n, 99.0);
	classify_outliers(sorted, n, out);
	free(sorted);
	ret = bootstrap_mean(samples, n, confidence, resamples, seed, &out->ci_low, &out->ci_high);
	return ret;
}

/* criterion's format::short: four significant digits. */
static void
format_short(double v, char *buf, size_t len)
{
	int decimals = v < 10.0 ? 4 : v < 100.0 ? 3 : v < 1000.0 ? 2 : v < 10000.0 ? 1 : 0;

	snprintf(buf, len, "%.*f", decimals, v);
}

void
lca_crit_format_time(double ns, char *buf, size_t len)
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
lca_crit_format_thrpt(double elems, double ns, char *buf, size_t len)
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
print_outliers(FILE *f, const struct lca_crit_summary *s)
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
lca_crit_print(FILE *f, const char *id, const struct lca_crit_summary *s, double elems)
{
	char t[3][32], r[3][32];

	lca_crit_format_time(s->ci_low, t[0], sizeof(t[0]));
	lca_crit_format_time(s->mean, t[1], sizeof(t[1]));
	lca_crit_format_time(s->ci_high, t[2], sizeof(t[2]));
	/* The slowest time is the lowest throughput. */
	lca_crit_format_thrpt(elems, s->ci_high, r[0], sizeof(r[0]));
	lca_crit_format_thrpt(elems, s->mean, r[1], sizeof(r[1]));
	lca_crit_format_thrpt(elems, s->ci_low, r[2], sizeof(r[2]));
	if (strlen(id) > 23)
		fprintf(f, "%s\n%24s", id, "");
	else
		fprintf(f, "%-24s", id);
	fprintf(f, "time:   [%s %s %s]\n", t[0], t[1], t[2]);
	fprintf(f, "%24sthrpt:  [%s %s %s]\n", "", r[0], r[1], r[2]);
	print_outliers(f, s);
}
