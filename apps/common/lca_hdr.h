/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_HDR_H
#define LCA_HDR_H

/**
 * @file
 * A log-linear latency histogram with the layout of Gil Tene's
 * HdrHistogram: values from 1 to a highest trackable value, each recorded
 * to within 10^-d of itself (d significant decimal digits, 1 to 5). A
 * value's bucket is its power of two; each bucket has 2^k linear
 * sub-buckets, 2^k >= 2 x 10^d, so the width of a sub-bucket is at most
 * 10^-d of any value in it. Recording is an index computation and an
 * increment; no allocation after lca_hdr_init().
 *
 * Debian 12 packages HdrHistogram for Java and Go only, so this is the
 * small C part lca-load needs (apps/common/, no DPDK): record, merge,
 * percentiles, mean and deviation, and the percentile spectrum that wrk2
 * and HdrHistogram print.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/** A histogram; its fields are read-only outside lca_hdr.c. */
struct lca_hdr {
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
int lca_hdr_init(struct lca_hdr *h, int64_t highest, int significant);

/** Free the counts. */
void lca_hdr_free(struct lca_hdr *h);

/** Forget every value (the layout stays). */
void lca_hdr_reset(struct lca_hdr *h);

/**
 * Record @p value @p count times. 0 counts as 1's bucket (the lowest).
 *
 * @return
 *   0; -ERANGE for a value below 0 or above the highest (counted in
 *   out_of_range, not recorded).
 */
int lca_hdr_record_n(struct lca_hdr *h, int64_t value, int64_t count);

/** Record @p value once; see lca_hdr_record_n(). */
static inline int
lca_hdr_record(struct lca_hdr *h, int64_t value)
{
	return lca_hdr_record_n(h, value, 1);
}

/**
 * Add every value of @p from into @p to. The two must have the same
 * layout (highest and significant).
 *
 * @return
 *   0; -EINVAL for different layouts.
 */
int lca_hdr_add(struct lca_hdr *to, const struct lca_hdr *from);

/**
 * The value at percentile @p p (0..100): the highest value equivalent to
 * the recorded value below which p % of the values lie (HdrHistogram's
 * definition). 0 when empty.
 */
int64_t lca_hdr_value_at(const struct lca_hdr *h, double p);

/** Mean of the recorded values (each at its sub-bucket's middle); 0 when empty. */
double lca_hdr_mean(const struct lca_hdr *h);

/** Standard deviation (population), as HdrHistogram computes it; 0 when empty. */
double lca_hdr_stdev(const struct lca_hdr *h);

/** Values recorded within mean +/- one stdev, as a percentage (wrk's "+/- Stdev"). */
double lca_hdr_within_stdev_pct(const struct lca_hdr *h);

/** The smallest value that lands in the same sub-bucket as @p v. */
int64_t lca_hdr_lowest_equivalent(const struct lca_hdr *h, int64_t v);

/** The largest value that lands in the same sub-bucket as @p v. */
int64_t lca_hdr_highest_equivalent(const struct lca_hdr *h, int64_t v);

/** One step of the percentile spectrum. */
struct lca_hdr_step {
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
unsigned int lca_hdr_spectrum(const struct lca_hdr *h, int ticks,
			      bool (*fn)(const struct lca_hdr_step *s, void *arg), void *arg);

/**
 * Print the spectrum as wrk2 does (HdrHistogram's classic format): Value,
 * Percentile (0..1), TotalCount, 1/(1-Percentile), then the footer with
 * mean, stdev, max, count, buckets and sub-buckets. Values are divided by
 * @p scale (1000 for microseconds printed as milliseconds).
 */
void lca_hdr_print_spectrum(const struct lca_hdr *h, FILE *f, int ticks, double scale);

#endif /* LCA_HDR_H */
