/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The log-linear latency histogram (apps/common/app_hdr.c) that lca-load
 * records into: precision, percentiles, mean and deviation, merge, values
 * out of range, and the percentile spectrum. No EAL.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app_hdr.h"
#include "app_hgrm.h"
#include "lca_test.h"

#define HOUR_US 3600000000LL

/* Within @p rel of @p want (relative). */
static void
assert_close(double got, double want, double rel)
{
	if (fabs(got - want) > rel * fabs(want)) {
		print_error("got %.6f, want %.6f (within %.4f%%)\n", got, want, rel * 100);
		fail();
	}
}

static void
test_init_refuses_bad_layouts(void **state)
{
	struct app_hdr h;

	(void)state;
	assert_int_equal(app_hdr_init(&h, 1, 3), -EINVAL);
	assert_int_equal(app_hdr_init(&h, 1000, 0), -EINVAL);
	assert_int_equal(app_hdr_init(&h, 1000, 6), -EINVAL);
	assert_int_equal(app_hdr_init(NULL, 1000, 3), -EINVAL);
	assert_int_equal(app_hdr_init(&h, HOUR_US, 3), 0);
	/* 3 digits: 2048 linear steps a power of two (2^11 >= 2 x 10^3). */
	assert_int_equal(h.sub_bucket_count, 2048);
	app_hdr_free(&h);
}

/* Every value's sub-bucket is at most 10^-d of it wide, and holds it. */
static void
test_precision_is_three_digits(void **state)
{
	struct app_hdr h;

	(void)state;
	assert_int_equal(app_hdr_init(&h, HOUR_US, 3), 0);
	for (double x = 1; x < (double)HOUR_US; x *= 1.01) {
		int64_t v = (int64_t)x;
		int64_t lo = app_hdr_lowest_equivalent(&h, v);
		int64_t hi = app_hdr_highest_equivalent(&h, v);

		assert_true(lo <= v && v <= hi);
		if (v >= 1000)
			assert_true((double)(hi - lo + 1) <= (double)v / 1000.0);
		else
			assert_int_equal(lo, hi); /* exact below 2 x 10^3 / 2 */
	}
	app_hdr_free(&h);
}

static void
test_uniform_percentiles(void **state)
{
	struct app_hdr h;

	(void)state;
	assert_int_equal(app_hdr_init(&h, HOUR_US, 3), 0);
	for (int64_t v = 1; v <= 100000; v++)
		assert_int_equal(app_hdr_record(&h, v), 0);
	assert_int_equal(h.total, 100000);
	assert_int_equal(h.min, 1);
	assert_int_equal(h.max, 100000);
	assert_close((double)app_hdr_value_at(&h, 50), 50000, 1e-3);
	assert_close((double)app_hdr_value_at(&h, 90), 90000, 1e-3);
	assert_close((double)app_hdr_value_at(&h, 99), 99000, 1e-3);
	assert_close((double)app_hdr_value_at(&h, 99.9), 99900, 1e-3);
	assert_int_equal(app_hdr_value_at(&h, 100), 100000);
	assert_close(app_hdr_mean(&h), 50000.5, 1e-3);
	assert_close(app_hdr_stdev(&h), 28867.5, 2e-3); /* n / sqrt(12) */
	assert_close(app_hdr_within_stdev_pct(&h), 57.7, 1e-2);
	app_hdr_free(&h);
}

/* HdrHistogram's own test case: 10,000 values of 1 ms and one of 100 s,
 * in microseconds, as a stalled server shows in a corrected run. */
static void
test_one_stall_shows_at_the_tail(void **state)
{
	struct app_hdr h;

	(void)state;
	assert_int_equal(app_hdr_init(&h, HOUR_US, 3), 0);
	assert_int_equal(app_hdr_record_n(&h, 1000, 10000), 0);
	assert_int_equal(app_hdr_record(&h, 100000000), 0);
	assert_int_equal(h.total, 10001);
	assert_close((double)app_hdr_value_at(&h, 30), 1000, 1e-3);
	assert_close((double)app_hdr_value_at(&h, 99), 1000, 1e-3);
	assert_close((double)app_hdr_value_at(&h, 99.99), 1000, 1e-3);
	assert_close((double)app_hdr_value_at(&h, 99.999), 100000000, 1e-3);
	assert_int_equal(app_hdr_value_at(&h, 100), 100000000);
	assert_close(app_hdr_mean(&h), (10000.0 * 1000 + 1e8) / 10001, 1e-3);
	app_hdr_free(&h);
}

static void
test_out_of_range_is_counted_not_recorded(void **state)
{
	struct app_hdr h;

	(void)state;
	assert_int_equal(app_hdr_init(&h, 1000000, 3), 0);
	assert_int_equal(app_hdr_record(&h, -1), -ERANGE);
	assert_int_equal(app_hdr_record(&h, 1000001), -ERANGE);
	assert_int_equal(app_hdr_record(&h, 1000000), 0);
	assert_int_equal(app_hdr_record(&h, 0), 0);
	assert_int_equal(h.total, 2);
	assert_int_equal(h.out_of_range, 2);
	assert_int_equal(h.min, 0);
	assert_int_equal(h.max, 1000000);
	app_hdr_reset(&h);
	assert_int_equal(h.total, 0);
	assert_int_equal(h.out_of_range, 0);
	assert_int_equal(app_hdr_value_at(&h, 50), 0);
	app_hdr_free(&h);
}

/* Two threads' histograms merged are the histogram of all their values. */
static void
test_merge_equals_recording_together(void **state)
{
	struct app_hdr a, b, all, other;

	(void)state;
	assert_int_equal(app_hdr_init(&a, HOUR_US, 3), 0);
	assert_int_equal(app_hdr_init(&b, HOUR_US, 3), 0);
	assert_int_equal(app_hdr_init(&all, HOUR_US, 3), 0);
	assert_int_equal(app_hdr_init(&other, HOUR_US, 2), 0);
	for (int64_t v = 1; v < 5000000; v = v * 3 / 2 + 1) {
		app_hdr_record(v % 2 ? &a : &b, v);
		app_hdr_record(&all, v);
	}
	assert_int_equal(app_hdr_add(&a, &b), 0);
	assert_int_equal(a.total, all.total);
	assert_int_equal(a.min, all.min);
	assert_int_equal(a.max, all.max);
	for (double p = 0; p <= 100; p += 12.5)
		assert_int_equal(app_hdr_value_at(&a, p), app_hdr_value_at(&all, p));
	assert_int_equal(app_hdr_add(&a, &other), -EINVAL);
	app_hdr_free(&a);
	app_hdr_free(&b);
	app_hdr_free(&all);
	app_hdr_free(&other);
}

struct walk {
	unsigned int n;
	struct app_hdr_step first, last, prev;
	bool monotonic;
};

static bool
walk_step(const struct app_hdr_step *s, void *arg)
{
	struct walk *w = arg;

	if (w->n == 0)
		w->first = *s;
	else if (s->percentile < w->prev.percentile || s->value < w->prev.value ||
		 s->total_count < w->prev.total_count)
		w->monotonic = false;
	w->prev = *s;
	w->last = *s;
	w->n++;
	return true;
}

static void
test_spectrum_walks_to_one_hundred(void **state)
{
	struct app_hdr h;
	struct walk w = { .monotonic = true };
	unsigned int steps;

	(void)state;
	assert_int_equal(app_hdr_init(&h, HOUR_US, 3), 0);
	assert_int_equal(app_hdr_spectrum(&h, 5, walk_step, &w), 0); /* empty */
	for (int64_t v = 1; v <= 10000; v++)
		app_hdr_record(&h, v * 10);
	steps = app_hdr_spectrum(&h, 5, walk_step, &w);
	assert_int_equal(steps, w.n);
	assert_true(w.monotonic);
	assert_true(w.first.percentile == 0.0);
	assert_int_equal(w.first.value, 10);
	assert_true(w.last.percentile == 100.0);
	assert_int_equal(w.last.total_count, 10000);
	assert_int_equal(w.last.value, 100000);
	/* 5 ticks a halving: 0, 10, 20, ..., 50 %, 55, ... : more than 40 steps
	 * out to 99.99 % and beyond, fewer than 200 for 10,000 values. */
	assert_true(steps > 40 && steps < 200);
	app_hdr_free(&h);
}

/* The .hgrm text line for line as HdrHistogram prints it: its header,
 * the first step, the 100 % step without 1/(1-P), and the footer. */
static void
test_hgrm_is_hdrhistograms_text(void **state)
{
	struct app_hdr h;
	char *text = NULL, *line, *save = NULL, *last = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(app_hdr_init(&h, HOUR_US, 3), 0);
	for (int64_t v = 1; v <= 10000; v++)
		app_hdr_record(&h, v * 10);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(app_hgrm_print(&h, f, APP_HGRM_TICKS, 1e3), 0);
	fclose(f);
	assert_non_null(strstr(text, "       Value     Percentile TotalCount 1/(1-Percentile)\n\n"
				     "       0.010 0.000000000000          1           1.00\n"));
	/* The mean takes each value at its sub-bucket's middle, as HdrHistogram's. */
	assert_non_null(strstr(text, "\n     100.000 1.000000000000      10000\n"
				     "#[Mean    =       50.006, StdDeviation   =       28.868]\n"
				     "#[Max     =      100.000, Total count    =        10000]\n"
				     "#[Buckets =           22, SubBuckets     =         2048]\n"));
	for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
		last = line;
	assert_string_equal(last, "#[Buckets =           22, SubBuckets     =         2048]");
	free(text);
	app_hdr_free(&h);
}

/* No values: the header and the footer, no steps; an unwritable path is an
 * error, not a silent nothing. */
static void
test_hgrm_empty_and_unwritable(void **state)
{
	struct app_hdr h;
	char *text = NULL, path[64];
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(app_hdr_init(&h, HOUR_US, 3), 0);
	f = open_memstream(&text, &len);
	assert_int_equal(app_hgrm_print(&h, f, APP_HGRM_TICKS, 1e3), 0);
	fclose(f);
	assert_string_equal(text, "       Value     Percentile TotalCount 1/(1-Percentile)\n\n"
				  "#[Mean    =        0.000, StdDeviation   =        0.000]\n"
				  "#[Max     =        0.000, Total count    =            0]\n"
				  "#[Buckets =           22, SubBuckets     =         2048]\n");
	free(text);
	assert_true(app_hgrm_write(&h, "/nonexistent/dir/x.hgrm", 5, 1e3, "test_hdr") < 0);
	assert_int_equal(app_hgrm_path("out.hgrm", "restart", path, sizeof(path)), 0);
	assert_string_equal(path, "out.restart.hgrm");
	assert_int_equal(app_hgrm_path("out", "64B", path, sizeof(path)), 0);
	assert_string_equal(path, "out.64B.hgrm");
	assert_int_equal(app_hgrm_path("out.hgrm", "restart", path, 8), -ENAMETOOLONG);
	app_hdr_free(&h);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_refuses_bad_layouts),
		cmocka_unit_test(test_precision_is_three_digits),
		cmocka_unit_test(test_uniform_percentiles),
		cmocka_unit_test(test_one_stall_shows_at_the_tail),
		cmocka_unit_test(test_out_of_range_is_counted_not_recorded),
		cmocka_unit_test(test_merge_equals_recording_together),
		cmocka_unit_test(test_spectrum_walks_to_one_hundred),
		cmocka_unit_test(test_hgrm_is_hdrhistograms_text),
		cmocka_unit_test(test_hgrm_empty_and_unwritable),
	};

	return lca_test_status(cmocka_run_group_tests(tests, NULL, NULL));
}
