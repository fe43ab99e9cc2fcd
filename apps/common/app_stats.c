/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_stats.h"

/* Continued fraction of the regularized incomplete beta function, by the
 * modified Lentz method; converges fast for x < (a + 1) / (a + b + 2). */
static double
beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0), h;

	d = fabs(d) < tiny ? tiny : d;
	d = 1.0 / d;
	h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m;
		double num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));

		d = 1.0 + num * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1.0 + num / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1.0 / d;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
		d = 1.0 + num * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1.0 + num / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1.0 / d;
		h *= d * c;
		if (fabs(d * c - 1.0) < 1e-15)
			break;
	}
	return h;
}

static double
incomplete_beta(double a, double b, double x)
{
	double front;

	if (x <= 0.0)
		return 0.0;
	if (x >= 1.0)
		return 1.0;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1.0) / (a + b + 2.0))
		return front * beta_cf(a, b, x) / a;
	return 1.0 - front * beta_cf(b, a, 1.0 - x) / b;
}

double
app_stats_t_cdf(double t, double df)
{
	double tail = 0.5 * incomplete_beta(df / 2.0, 0.5, df / (df + t * t));

	return t >= 0 ? 1.0 - tail : tail;
}

double
app_stats_t_quantile(double p, double df)
{
	double lo = -1e7, hi = 1e7;

	if (!(p > 0.0 && p < 1.0) || !(df >= 1.0))
		return NAN;
	/* The CDF is monotonic: bisection to double precision is plenty fast
	 * for the handful of quantiles a benchmark needs. */
	for (int i = 0; i < 200 && hi - lo > 1e-12 * fmax(1.0, fabs(lo)); i++) {
		double mid = 0.5 * (lo + hi);

		if (app_stats_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double *
app_stats_sorted_copy(const double *samples, size_t n)
{
	double *sorted = n > 0 ? malloc(sizeof(*sorted) * n) : NULL;

	if (sorted == NULL)
		return NULL;
	memcpy(sorted, samples, sizeof(*sorted) * n);
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	return sorted;
}

double
app_stats_percentile(const double *sorted, size_t n, double pct)
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

static void
moments(const double *samples, size_t n, struct app_stats *out)
{
	double sum = 0.0, sq = 0.0;

	for (size_t i = 0; i < n; i++)
		sum += samples[i];
	out->mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		sq += (samples[i] - out->mean) * (samples[i] - out->mean);
	out->stdev = n > 1 ? sqrt(sq / (double)(n - 1)) : 0.0;
}

/* The median's interval: the order statistics sorted[j - 1] and
 * sorted[n - j] hold the median between them with probability
 * 1 - 2 P(B <= j - 1), B ~ Binomial(n, 1/2) (each sample lies below the
 * median with probability 1/2). The widest-j such pair that reaches
 * @p confidence; NaN ends when even the least and greatest do not. */
static void
median_interval(const double *sorted, size_t n, double confidence, struct app_stats *out)
{
	double tail = (1.0 - confidence) / 2.0, cdf = 0.0;
	size_t j = 0;

	out->p50_lo = out->p50_hi = out->p50_error = NAN;
	for (size_t k = 0; k < (n + 1) / 2; k++) {
		double ln_pmf = lgamma((double)n + 1) - lgamma((double)k + 1) -
				lgamma((double)(n - k) + 1) - (double)n * M_LN2;

		cdf += exp(ln_pmf);
		if (cdf > tail)
			break;
		j = k + 1; /* P(B <= j - 1) <= tail: ranks j and n + 1 - j do */
	}
	if (j == 0)
		return;
	out->p50_lo = sorted[j - 1];
	out->p50_hi = sorted[n - j];
	out->p50_error = fmax(out->p50 - out->p50_lo, out->p50_hi - out->p50);
}

int
app_stats_compute(const double *samples, size_t n, double confidence, struct app_stats *out)
{
	double *sorted;

	if (samples == NULL || out == NULL || n == 0 || !(confidence > 0.0 && confidence < 1.0))
		return -EINVAL;
	sorted = app_stats_sorted_copy(samples, n);
	if (sorted == NULL)
		return -ENOMEM;
	out->n = n;
	out->confidence = confidence;
	moments(samples, n, out);
	out->min = sorted[0];
	out->max = sorted[n - 1];
	out->p50 = app_stats_percentile(sorted, n, 50.0);
	out->p90 = app_stats_percentile(sorted, n, 90.0);
	out->p99 = app_stats_percentile(sorted, n, 99.0);
	median_interval(sorted, n, confidence, out);
	free(sorted);
	out->error = n < 2 ? NAN :
		app_stats_t_quantile(1.0 - (1.0 - confidence) / 2.0, (double)(n - 1)) *
		out->stdev / sqrt((double)n);
	return 0;
}
