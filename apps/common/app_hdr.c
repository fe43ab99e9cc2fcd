/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * HdrHistogram's layout (lowest discernible value 1): bucket b holds the
 * values [2^b x sub_bucket_half_count, 2^(b+1) x sub_bucket_half_count) in
 * sub_bucket_half_count steps of 2^b (bucket 0 also holds 0 .. the half
 * count, in steps of 1). The counts array is indexed as HdrHistogram's.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_hdr.h"

static int
bucket_index(const struct app_hdr *h, int64_t v)
{
	/* Smallest power of two above v, with v raised to the first
	 * bucket's top so that small values land in bucket 0. */
	int pow2ceiling = 64 - __builtin_clzll((uint64_t)(v | h->sub_bucket_mask));

	return pow2ceiling - (h->sub_bucket_half_count_magnitude + 1);
}

static int32_t
sub_bucket_index(int64_t v, int bucket)
{
	return (int32_t)(v >> bucket);
}

static int32_t
counts_index(const struct app_hdr *h, int bucket, int32_t sub)
{
	int32_t base = (bucket + 1) << h->sub_bucket_half_count_magnitude;

	return base + (sub - h->sub_bucket_half_count);
}

static int64_t
value_from_index(int bucket, int32_t sub)
{
	return (int64_t)sub << bucket;
}

static int64_t
value_at_counts_index(const struct app_hdr *h, int32_t index)
{
	int bucket = (index >> h->sub_bucket_half_count_magnitude) - 1;
	int32_t sub = (index & (h->sub_bucket_half_count - 1)) + h->sub_bucket_half_count;

	if (bucket < 0) {
		sub -= h->sub_bucket_half_count;
		bucket = 0;
	}
	return value_from_index(bucket, sub);
}

static int64_t
equivalent_range(const struct app_hdr *h, int64_t v)
{
	int bucket = bucket_index(h, v);
	int32_t sub = sub_bucket_index(v, bucket);

	return (int64_t)1 << (bucket + (sub >= h->sub_bucket_count ? 1 : 0));
}

int64_t
app_hdr_lowest_equivalent(const struct app_hdr *h, int64_t v)
{
	int bucket = bucket_index(h, v);

	return value_from_index(bucket, sub_bucket_index(v, bucket));
}

int64_t
app_hdr_highest_equivalent(const struct app_hdr *h, int64_t v)
{
	return app_hdr_lowest_equivalent(h, v) + equivalent_range(h, v) - 1;
}

static int64_t
median_equivalent(const struct app_hdr *h, int64_t v)
{
	return app_hdr_lowest_equivalent(h, v) + (equivalent_range(h, v) >> 1);
}

int
app_hdr_init(struct app_hdr *h, int64_t highest, int significant)
{
	int64_t single_unit_top, smallest_untrackable;
	int magnitude, buckets;

	if (h == NULL || highest < 2 || significant < 1 || significant > 5)
		return -EINVAL;
	memset(h, 0, sizeof(*h));
	single_unit_top = 2;
	for (int i = 0; i < significant; i++)
		single_unit_top *= 10;
	magnitude = (int)ceil(log2((double)single_unit_top));
	h->highest = highest;
	h->significant = significant;
	h->sub_bucket_half_count_magnitude = (magnitude > 1 ? magnitude : 1) - 1;
	h->sub_bucket_count = (int32_t)1 << (h->sub_bucket_half_count_magnitude + 1);
	h->sub_bucket_half_count = h->sub_bucket_count / 2;
	h->sub_bucket_mask = (int64_t)h->sub_bucket_count - 1;
	if (highest < 2 * (int64_t)h->sub_bucket_count)
		highest = 2 * (int64_t)h->sub_bucket_count; /* at least two buckets */
	smallest_untrackable = h->sub_bucket_count;
	buckets = 1;
	while (smallest_untrackable <= highest) {
		if (smallest_untrackable > INT64_MAX / 2) {
			buckets++;
			break;
		}
		smallest_untrackable <<= 1;
		buckets++;
	}
	h->bucket_count = buckets;
	h->counts_len = (buckets + 1) * h->sub_bucket_half_count;
	h->counts = calloc((size_t)h->counts_len, sizeof(*h->counts));
	if (h->counts == NULL)
		return -ENOMEM;
	h->min = INT64_MAX;
	return 0;
}

void
app_hdr_free(struct app_hdr *h)
{
	free(h->counts);
	h->counts = NULL;
}

void
app_hdr_reset(struct app_hdr *h)
{
	memset(h->counts, 0, (size_t)h->counts_len * sizeof(*h->counts));
	h->total = 0;
	h->min = INT64_MAX;
	h->max = 0;
	h->out_of_range = 0;
}

int
app_hdr_record_n(struct app_hdr *h, int64_t value, int64_t count)
{
	int32_t index;
	int bucket;

	if (value < 0 || value > h->highest) {
		h->out_of_range += count;
		return -ERANGE;
	}
	bucket = bucket_index(h, value);
	index = counts_index(h, bucket, sub_bucket_index(value, bucket));
	if (index < 0 || index >= h->counts_len) {
		h->out_of_range += count;
		return -ERANGE;
	}
	h->counts[index] += count;
	h->total += count;
	if (value < h->min)
		h->min = value;
	if (value > h->max)
		h->max = value;
	return 0;
}

int
app_hdr_add(struct app_hdr *to, const struct app_hdr *from)
{
	if (to->counts_len != from->counts_len || to->significant != from->significant ||
	    to->highest != from->highest)
		return -EINVAL;
	for (int32_t i = 0; i < from->counts_len; i++)
		to->counts[i] += from->counts[i];
	to->total += from->total;
	to->out_of_range += from->out_of_range;
	if (from->min < to->min)
		to->min = from->min;
	if (from->max > to->max)
		to->max = from->max;
	return 0;
}

int64_t
app_hdr_value_at(const struct app_hdr *h, double p)
{
	int64_t want, seen = 0;

	if (h->total == 0)
		return 0;
	if (p > 100.0)
		p = 100.0;
	if (p < 0.0)
		p = 0.0;
	want = (int64_t)(p / 100.0 * (double)h->total + 0.5);
	if (want < 1)
		want = 1;
	for (int32_t i = 0; i < h->counts_len; i++) {
		seen += h->counts[i];
		if (seen >= want) {
			int64_t v = app_hdr_highest_equivalent(h, value_at_counts_index(h, i));

			/* Never past what was recorded. */
			return v > h->max ? h->max : v;
		}
	}
	return h->max;
}

double
app_hdr_mean(const struct app_hdr *h)
{
	double sum = 0;

	if (h->total == 0)
		return 0;
	for (int32_t i = 0; i < h->counts_len; i++)
		if (h->counts[i] != 0)
			sum += (double)h->counts[i] *
			       (double)median_equivalent(h, value_at_counts_index(h, i));
	return sum / (double)h->total;
}

double
app_hdr_stdev(const struct app_hdr *h)
{
	double mean = app_hdr_mean(h), sum = 0;

	if (h->total == 0)
		return 0;
	for (int32_t i = 0; i < h->counts_len; i++)
		if (h->counts[i] != 0) {
			double d = (double)median_equivalent(h, value_at_counts_index(h, i)) - mean;

			sum += d * d * (double)h->counts[i];
		}
	return sqrt(sum / (double)h->total);
}

double
app_hdr_within_stdev_pct(const struct app_hdr *h)
{
	double mean = app_hdr_mean(h), sd = app_hdr_stdev(h);
	int64_t in = 0;

	if (h->total == 0)
		return 0;
	for (int32_t i = 0; i < h->counts_len; i++)
		if (h->counts[i] != 0) {
			double v = (double)median_equivalent(h, value_at_counts_index(h, i));

			if (v >= mean - sd && v <= mean + sd)
				in += h->counts[i];
		}
	return 100.0 * (double)in / (double)h->total;
}

unsigned int
app_hdr_spectrum(const struct app_hdr *h, int ticks,
		 bool (*fn)(const struct app_hdr_step *s, void *arg), void *arg)
{
	double next = 0.0;
	int64_t seen = 0;
	unsigned int steps = 0;
	struct app_hdr_step s;

	if (h->total == 0 || ticks < 1)
		return 0;
	for (int32_t i = 0; i < h->counts_len && seen < h->total; i++) {
		if (h->counts[i] == 0)
			continue;
		seen += h->counts[i];
		/* Every step this bucket reaches. */
		while (next <= 100.0 * (double)seen / (double)h->total) {
			int64_t v = app_hdr_highest_equivalent(h, value_at_counts_index(h, i));
			int64_t halving;

			s = (struct app_hdr_step){ .value = v > h->max ? h->max : v,
						   .percentile = next, .total_count = seen };
			steps++;
			if (!fn(&s, arg))
				return steps;
			/* HdrHistogram's iterator: once the last value is
			 * reached, only the 100 % step follows. */
			if (seen == h->total)
				break;
			halving = (int64_t)1 << ((int)(log(100.0 / (100.0 - next)) / log(2)) + 1);
			next += 100.0 / (double)(ticks * halving);
		}
	}
	/* The last step, at 100 %. */
	s = (struct app_hdr_step){ .value = h->max, .percentile = 100.0, .total_count = h->total };
	fn(&s, arg);
	return steps + 1;
}

struct print_ctx {
	FILE *f;
	double scale;
};

static bool
print_step(const struct app_hdr_step *s, void *arg)
{
	const struct print_ctx *c = arg;

	if (s->percentile < 100.0)
		fprintf(c->f, "%12.3f %12.6f %12lld %14.2f\n", (double)s->value / c->scale,
			s->percentile / 100.0, (long long)s->total_count,
			1.0 / (1.0 - s->percentile / 100.0));
	else
		fprintf(c->f, "%12.3f %12.6f %12lld\n", (double)s->value / c->scale, 1.0,
			(long long)s->total_count);
	return true;
}

void
app_hdr_print_spectrum(const struct app_hdr *h, FILE *f, int ticks, double scale)
{
	struct print_ctx c = { .f = f, .scale = scale };

	fprintf(f, "%12s %12s %12s %14s\n\n", "Value", "Percentile", "TotalCount",
		"1/(1-Percentile)");
	app_hdr_spectrum(h, ticks, print_step, &c);
	fprintf(f, "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n", app_hdr_mean(h) / scale,
		app_hdr_stdev(h) / scale);
	fprintf(f, "#[Max     = %12.3f, Total count    = %12lld]\n", (double)h->max / scale,
		(long long)h->total);
	fprintf(f, "#[Buckets = %12d, SubBuckets     = %12d]\n", h->bucket_count,
		h->sub_bucket_count);
}
