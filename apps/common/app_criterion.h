/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef APP_CRITERION_H
#define APP_CRITERION_H

/**
 * @file
 * Results printed the way Rust's criterion prints them, so that an lcactor
 * run and a published criterion run can be read side by side:
 *
 *     circular/circular (2 actors)
 *                             time:   [3.0926 ms 3.1223 ms 3.1528 ms]
 *                             thrpt:  [317.18 Kelem/s 320.28 Kelem/s 323.35 Kelem/s]
 *     Found 3 outliers among 100 measurements (3.00%)
 *       1 (1.00%) high mild
 *       2 (2.00%) high severe
 *
 * The estimate is the mean of the samples; low and high bound its
 * confidence interval, from a bootstrap of the mean (criterion's method:
 * resample with replacement, take the percentiles of the resampled means).
 * Outliers are classified with Tukey's fences, as criterion does.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** Criterion's defaults. */
#define APP_CRIT_CONFIDENCE 0.95
#define APP_CRIT_RESAMPLES 100000u

/** Summary of one benchmark's samples (all times in ns). */
struct app_crit_summary {
	size_t n;            /**< Samples. */
	double mean;         /**< The estimate. */
	double ci_low;       /**< Lower bound of the mean's confidence interval. */
	double ci_high;      /**< Upper bound. */
	double confidence;   /**< Level of the interval, e.g. 0.95. */
	double stdev;        /**< Sample standard deviation (n - 1); 0 when n < 2. */
	double min;          /**< Smallest. */
	double median;       /**< 50th percentile. */
	double p99;          /**< 99th percentile. */
	double max;          /**< Largest. */
	/** Outliers by Tukey's fences: below q1 - 3 IQR, below q1 - 1.5 IQR,
	 *  above q3 + 1.5 IQR, above q3 + 3 IQR (each sample counted once). */
	unsigned int low_severe, low_mild, high_mild, high_severe;
};

/**
 * Summarise @p n samples (ns).
 *
 * @param confidence
 *   Level of the interval, in (0, 1).
 * @param resamples
 *   Bootstrap resamples (> 0); APP_CRIT_RESAMPLES as criterion.
 * @param seed
 *   Seed of the resampling, so that a summary can be reproduced.
 * @return
 *   0; -EINVAL for no samples or a bad level; -ENOMEM.
 */
int app_crit_summarize(const double *samples, size_t n, double confidence, unsigned int resamples,
		       uint64_t seed, struct app_crit_summary *out);

/**
 * A time, as criterion writes it: four significant digits and a unit, the
 * number right-aligned in six columns ("3.1223 ms", "   716 ns").
 */
void app_crit_format_time(double ns, char *buf, size_t len);

/**
 * A throughput of @p elems elements in @p ns nanoseconds, as criterion
 * writes it: "320.28 Kelem/s" (units " elem/s", "Kelem/s", "Melem/s",
 * "Gelem/s").
 */
void app_crit_format_thrpt(double elems, double ns, char *buf, size_t len);

/**
 * Print the time and thrpt lines of @p s, @p elems elements per sample,
 * under the name @p id (on the same line when it is shorter than 24
 * characters, else on a line of its own), then the outlier lines when
 * there are outliers.
 */
void app_crit_print(FILE *f, const char *id, const struct app_crit_summary *s, double elems);

#endif /* APP_CRITERION_H */
