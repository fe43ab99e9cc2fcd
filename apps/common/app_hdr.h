/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef APP_HDR_H
#define APP_HDR_H

/**
 * @file
 * A log-linear latency histogram with the layout of Gil Tene's
 * HdrHistogram: values from 1 to a highest trackable value, each recorded
 * to within 10^-d of itself (d significant decimal digits, 1 to 5). A
 * value's bucket is its power of two; each bucket has 2^k linear
 * sub-buckets, 2^k >= 2 x 10^d, so the width of a sub-bucket is at most
 * 10^-d of any value in it. Recording is an index computation and an
 * increment; no allocation after app_hdr_init().
 *
 * Debian 12 packages HdrHistogram for Java and Go only, so this is the
 * small C part lca-load needs (apps/common/, no DPDK): record, merge,
 * percentiles, mean and deviation, and the percentile spectrum that wrk2
 * and HdrHistogram print.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/** A histogram; its fields are read-only outside app_hdr.c. */
struct app_hdr {
	int64_t highest;            /**< Highest trackable value. */
	int significant;            /**< Decimal digits of precision. */
	int sub_bucket_half_count_magnitude;
	int32_t sub_bucket_count;   /**< Linear steps a bucket. */
	int32_t sub_bucket_half_count;
	int64_t sub_bucket_mask;
	int32_t bucket_count;       /**< Powers of two. */
	int32_t counts_len;
	int64_t total;              /**< Values recorded. */
	int64_t min;                /**< Smallest recorded (exact); INT64_MAX when empty. */
	int64_t max;                /**< Largest recorded (exact); 0 when empty. */
	int64_t out_of_range;       /**< Values refused: below 0 or above highest. */
	int64_t *counts;
};

/**
 * Set up @p h for values 1 .. @p highest with @p significant digits.
 *
 * @return
 *   0; -EINVAL (highest < 2, significant outside 1..5); -ENOMEM.
 */
int app_hdr_init(struct app_hdr *h, int64_t highest, int significant);

/** Free the counts. */
void app_hdr_free(struct app_hdr *h);

/** Forget every value (the layout stays). */
void app_hdr_reset(struct app_hdr *h);

/**
 * Record @p value @p count times. 0 counts as 1's bucket (the lowest).
 *
 * @return
 *   0; -ERANGE for a value below 0 or above the highest (counted in
 *   out_of_range, not recorded).
 */
int app_hdr_record_n(struct app_hdr *h, int64_t value, int64_t count);

/** Record @p value once; see app_hdr_record_n(). */
static inline int
app_hdr_record(struct app_hdr *h, int64_t value)
{
	return app_hdr_record_n(h, value, 1);
}

/**
 * Add every value of @p from into @p to. The two must have the same
 * layout (highest and significant).
 *
 * @return
 *   0; -EINVAL for different layouts.
 */
int app_hdr_add(struct app_hdr *to, const struct app_hdr *from);

/**
 * The value at percentile @p p (0..100): the highest value equivalent to
 * the recorded value below which p % of the values lie (HdrHistogram's
 * definition). 0 when empty.
 */
int64_t app_hdr_value_at(const struct app_hdr *h, double p);

/** Mean of the recorded values (each at its sub-bucket's middle); 0 when empty. */
double app_hdr_mean(const struct app_hdr *h);

/** Standard deviation (population), as HdrHistogram computes it; 0 when empty. */
double app_hdr_stdev(const struct app_hdr *h);

/** Values recorded within mean +/- one stdev, as a percentage (wrk's "+/- Stdev"). */
double app_hdr_within_stdev_pct(const struct app_hdr *h);

/** The smallest value that lands in the same sub-bucket as @p v. */
int64_t app_hdr_lowest_equivalent(const struct app_hdr *h, int64_t v);

/** The largest value that lands in the same sub-bucket as @p v. */
int64_t app_hdr_highest_equivalent(const struct app_hdr *h, int64_t v);

/** One step of the percentile spectrum. */
struct app_hdr_step {
	int64_t value;       /**< Highest equivalent value reached. */
	double percentile;   /**< 0..100. */
	int64_t total_count; /**< Values at or below it. */
};

/**
 * The percentile spectrum as HdrHistogram's percentile iterator walks it:
 * @p ticks steps per halving of the distance to 100 %, ending at 100 %.
 * Calls @p fn for each step until it returns false.
 *
 * @return
 *   Steps given to @p fn.
 */
unsigned int app_hdr_spectrum(const struct app_hdr *h, int ticks,
			      bool (*fn)(const struct app_hdr_step *s, void *arg), void *arg);

/**
 * Print the spectrum as wrk2 does (HdrHistogram's classic format): Value,
 * Percentile (0..1), TotalCount, 1/(1-Percentile), then the footer with
 * mean, stdev, max, count, buckets and sub-buckets. Values are divided by
 * @p scale (1000 for microseconds printed as milliseconds).
 */
void app_hdr_print_spectrum(const struct app_hdr *h, FILE *f, int ticks, double scale);

#endif /* APP_HDR_H */
