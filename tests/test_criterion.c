/* SPDX-License-Identifier: BSD-3-Clause */
/* apps/common: criterion's result format, percentiles, bootstrap and outliers. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "app_criterion.h"
#include "app_stats.h"
#include "lca_test.h"

static void
test_percentile(void **state)
{
	const double x[] = { 1.0, 2.0, 3.0, 4.0 };
	const double one[] = { 7.0 };

	(void)state;
	assert_true(app_stats_percentile(x, 4, 0.0) == 1.0);
	assert_true(app_stats_percentile(x, 4, 100.0) == 4.0);
	assert_true(app_stats_percentile(x, 4, 50.0) == 2.5);
	assert_true(fabs(app_stats_percentile(x, 4, 25.0) - 1.75) < 1e-12);
	assert_true(fabs(app_stats_percentile(x, 4, 99.0) - 3.97) < 1e-12);
	assert_true(app_stats_percentile(one, 1, 99.0) == 7.0);
	assert_true(isnan(app_stats_percentile(x, 0, 50.0)));
	assert_true(isnan(app_stats_percentile(x, 4, 100.5)));
	assert_true(isnan(app_stats_percentile(x, 4, -1.0)));
	assert_true(isnan(app_stats_percentile(NULL, 4, 50.0)));
}

static void
test_format_time(void **state)
{
	char buf[32];

	(void)state;
	app_crit_format_time(3122300.0, buf, sizeof(buf));
	assert_string_equal(buf, "3.1223 ms");
	app_crit_format_time(20821000.0, buf, sizeof(buf));
	assert_string_equal(buf, "20.821 ms");
	app_crit_format_time(716.0, buf, sizeof(buf));
	assert_string_equal(buf, "716.00 ns");
	app_crit_format_time(31000.0, buf, sizeof(buf));
	assert_string_equal(buf, "31.000 µs");
	app_crit_format_time(0.5, buf, sizeof(buf));
	assert_string_equal(buf, "500.00 ps");
	app_crit_format_time(1.5e9, buf, sizeof(buf));
	assert_string_equal(buf, "1.5000 s");
	app_crit_format_time(12345e6, buf, sizeof(buf));
	assert_string_equal(buf, "12.345 s");
	/* Right-aligned in six columns, as criterion's {:>6}. */
	app_crit_format_time(123456e9, buf, sizeof(buf));
	assert_string_equal(buf, "123456 s");
}

static void
test_format_thrpt(void **state)
{
	char buf[32];

	(void)state;
	app_crit_format_thrpt(1000.0, 3.1528e6, buf, sizeof(buf));
	assert_string_equal(buf, "317.18 Kelem/s");
	app_crit_format_thrpt(1000.0, 100e3, buf, sizeof(buf));
	assert_string_equal(buf, "10.000 Melem/s");
	app_crit_format_thrpt(1.0, 2e9, buf, sizeof(buf));
	assert_string_equal(buf, "0.5000  elem/s");
	app_crit_format_thrpt(1000.0, 0.5, buf, sizeof(buf));
	assert_string_equal(buf, "2000.0 Gelem/s");
}

static char *
capture_print(const char *id, const struct app_crit_summary *s, double elems)
{
	static char buf[2048];
	FILE *f;

	memset(buf, 0, sizeof(buf));
	f = fmemopen(buf, sizeof(buf) - 1, "w");
	assert_non_null(f);
	app_crit_print(f, id, s, elems);
	fclose(f);
	return buf;
}

/* The seed's own lines come back from its own figures. */
static void
test_print_seed_shape(void **state)
{
	struct app_crit_summary s = {
		.n = 100, .mean = 3.1223e6, .ci_low = 3.0926e6, .ci_high = 3.1528e6,
		.high_mild = 1, .high_severe = 2,
	};
	char *out;

	(void)state;
	out = capture_print("circular/circular (2 actors)", &s, 1000);
	assert_string_equal(out,
			    "circular/circular (2 actors)\n"
			    "                        time:   [3.0926 ms 3.1223 ms 3.1528 ms]\n"
			    "                        thrpt:  [317.18 Kelem/s 320.28 Kelem/s "
			    "323.35 Kelem/s]\n"
			    "Found 3 outliers among 100 measurements (3.00%)\n"
			    "  1 (1.00%) high mild\n"
			    "  2 (2.00%) high severe\n");
	s.high_mild = s.high_severe = 0;
	out = capture_print("circular/2", &s, 1000);
	assert_non_null(strstr(out, "circular/2              time:   [3.0926 ms"));
	assert_null(strstr(out, "outliers"));
}

static void
test_summarize(void **state)
{
	double x[100], same[10];
	struct app_crit_summary s, again;
	struct app_stats t;

	(void)state;
	/* A deterministic, roughly symmetric spread around 1000. */
	for (int i = 0; i < 100; i++)
		x[i] = 1000.0 + 50.0 * sin(i * 1.7) + (double)(i % 7);
	assert_int_equal(app_crit_summarize(x, 100, 0.95, 20000, 42, &s), 0);
	app_stats_compute(x, 100, 0.95, &t);
	assert_true(fabs(s.mean - t.mean) < 1e-9);
	assert_true(fabs(s.stdev - t.stdev) < 1e-9);
	assert_true(s.ci_low < s.mean && s.mean < s.ci_high);
	/* The bootstrap interval is close to Student's t one on such data. */
	assert_true(fabs((s.ci_high - s.ci_low) / (2 * t.error) - 1.0) < 0.15);
	assert_true(s.min <= s.median && s.median <= s.p99 && s.p99 <= s.max);
	assert_int_equal(s.n, 100);
	assert_true(s.confidence == 0.95);
	/* Same seed, same interval. */
	assert_int_equal(app_crit_summarize(x, 100, 0.95, 20000, 42, &again), 0);
	assert_true(again.ci_low == s.ci_low && again.ci_high == s.ci_high);

	for (int i = 0; i < 10; i++)
		same[i] = 5.0;
	assert_int_equal(app_crit_summarize(same, 10, 0.95, 1000, 1, &s), 0);
	assert_true(s.ci_low == 5.0 && s.ci_high == 5.0 && s.median == 5.0 && s.p99 == 5.0);
	assert_int_equal(s.low_severe + s.low_mild + s.high_mild + s.high_severe, 0);
}

static void
test_outliers(void **state)
{
	double x[24];
	struct app_crit_summary s;

	(void)state;
	/* 1..20 and the four below: q1 = 4.75, q3 = 16.25, IQR = 11.5; mild
	 * fences -12.5 and 33.5, severe fences -29.75 and 50.75. */
	for (int i = 0; i < 20; i++)
		x[i] = i + 1;
	x[20] = 40.0;  /* high mild */
	x[21] = 100.0; /* high severe */
	x[22] = -20.0; /* low mild */
	x[23] = -50.0; /* low severe */
	assert_int_equal(app_crit_summarize(x, 24, 0.95, 100, 1, &s), 0);
	assert_int_equal(s.high_mild, 1);
	assert_int_equal(s.high_severe, 1);
	assert_int_equal(s.low_mild, 1);
	assert_int_equal(s.low_severe, 1);
}

static void
test_summarize_errors(void **state)
{
	const double x[] = { 1.0, 2.0 };
	struct app_crit_summary s;

	(void)state;
	assert_int_equal(app_crit_summarize(x, 0, 0.95, 100, 1, &s), -EINVAL);
	assert_int_equal(app_crit_summarize(x, 2, 1.0, 100, 1, &s), -EINVAL);
	assert_int_equal(app_crit_summarize(x, 2, 0.95, 0, 1, &s), -EINVAL);
	assert_int_equal(app_crit_summarize(NULL, 2, 0.95, 100, 1, &s), -EINVAL);
	assert_int_equal(app_crit_summarize(x, 1, 0.95, 100, 1, &s), 0);
	assert_true(s.mean == 1.0 && s.stdev == 0.0 && s.ci_low == 1.0 && s.ci_high == 1.0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percentile),
		cmocka_unit_test(test_format_time),
		cmocka_unit_test(test_format_thrpt),
		cmocka_unit_test(test_print_seed_shape),
		cmocka_unit_test(test_summarize),
		cmocka_unit_test(test_outliers),
		cmocka_unit_test(test_summarize_errors),
	};

	return lca_test_status(cmocka_run_group_tests(tests, NULL, NULL));
}
