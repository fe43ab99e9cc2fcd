/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef APP_STATS_H
#define APP_STATS_H

/**
 * @file
 * Summary statistics of benchmark samples, the one routine every app uses:
 * mean, min, max, sample standard deviation, percentiles, a confidence
 * interval of the mean from Student's t distribution (as JMH reports it),
 * and one of the median from the order statistics (binomial, no
 * assumption on the samples' distribution).
 */

#include <stddef.h>

/** Summary of a set of samples. */
struct app_stats {
	size_t n;      /**< Samples. */
	double mean;   /**< Arithmetic mean. */
	double min;    /**< Smallest. */
	double max;    /**< Largest. */
	double stdev;  /**< Sample standard deviation (n - 1); 0 when n < 2. */
	double error;  /**< Half-width of the confidence interval; NaN when n < 2. */
	double confidence; /**< Confidence level of error, e.g. 0.999. */
	double p50;    /**< Median. */
	double p50_lo; /**< Lower end of the median's distribution-free
			*   interval at @c confidence (an order statistic);
			*   NaN when n is too small for that confidence. */
	double p50_hi; /**< Its upper end; NaN likewise. */
	double p50_error; /**< The half-width that covers that interval around
			   *   p50 (the farther end's distance): the ± that
			   *   belongs to the median, as error belongs to the
			   *   mean; NaN likewise. */
	double p90;    /**< 90th percentile. */
	double p99;    /**< 99th percentile. */
};

/**
 * Summarise @p n samples with a two-sided @p confidence interval.
 *
 * @return
 *   0; -EINVAL when @p n is 0 or @p confidence is not in (0, 1); -ENOMEM.
 */
int app_stats_compute(const double *samples, size_t n, double confidence, struct app_stats *out);

/**
 * Percentile of sorted samples, by linear interpolation between the two
 * nearest ranks (rank = p / 100 x (n - 1)), as criterion and numpy do.
 *
 * @return
 *   The percentile; NaN when @p n is 0 or @p pct is not in [0, 100].
 */
double app_stats_percentile(const double *sorted, size_t n, double pct);

/**
 * A sorted copy of @p n samples, for percentiles; the caller frees it.
 *
 * @return
 *   The copy; NULL when out of memory or @p n is 0.
 */
double *app_stats_sorted_copy(const double *samples, size_t n);

/**
 * Quantile of Student's t distribution: the t with P(T <= t) = @p p for
 * @p df degrees of freedom.
 *
 * @return
 *   The quantile; NaN when @p p is not in (0, 1) or @p df < 1.
 */
double app_stats_t_quantile(double p, double df);

/** Student's t cumulative distribution function P(T <= @p t). */
double app_stats_t_cdf(double t, double df);

#endif /* APP_STATS_H */
