/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of lca_freq: every source read and computed from a fake root (a
 * temporary folder holding sys/, proc/stat and dev/cpu/N/msr), the probe
 * against the TSC, the readers of lost time (the lcore threads' schedstat
 * and status, CPU pressure), the verdicts and their causes on synthetic
 * figures, and the monitor end to end on the fake root and on this machine.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "lca_eal.h"
#include "lca_freq.h"
#include "app_freq_json.h"
#include "app_freq_print.h"
#include "lca_test.h"

static char root[64];

/* ---- fake root ---- */

/* Write root/rel, creating its folders; the file is rewritten in place so
 * that a descriptor kept open sees the new content. */
#define fake_write(...) lca_test_root_write(root, __VA_ARGS__)

static void
fake_remove(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	unlink(path);
}

/* The MSR device as a sparse file: MSR m is 8 bytes at offset 8 × m (the
 * real device's offset m cannot be faked: APERF and MPERF are neighbours). */
static void
fake_msr(int cpu, uint64_t tsc, uint64_t aperf, uint64_t mperf)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "dev/cpu/%d", cpu);
	lca_test_root_mkdirs(root, path);
	snprintf(path, sizeof(path), "%s/dev/cpu/%d/msr", root, cpu);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &tsc, 8, 8 * 0x10), 8);
	assert_int_equal(pwrite(fd, &aperf, 8, 8 * 0xE8), 8);
	assert_int_equal(pwrite(fd, &mperf, 8, 8 * 0xE7), 8);
	close(fd);
}

/* A /proc/stat whose cpu0 and cpu1 lines both hold the given ticks. */
static void
fake_stat(uint64_t user, uint64_t idle, uint64_t irq, uint64_t softirq, uint64_t steal)
{
	fake_write("proc/stat",
		   "cpu  %" PRIu64 " 0 0 %" PRIu64 " 0 %" PRIu64 " %" PRIu64 " %" PRIu64 " 0 0\n"
		   "cpu0 %" PRIu64 " 0 0 %" PRIu64 " 0 %" PRIu64 " %" PRIu64 " %" PRIu64 " 0 0\n"
		   "cpu1 %" PRIu64 " 0 0 %" PRIu64 " 0 %" PRIu64 " %" PRIu64 " %" PRIu64 " 0 0\n"
		   "intr 155313 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
		   "ctxt 306390\n",
		   2 * user, 2 * idle, 2 * irq, 2 * softirq, 2 * steal,
		   user, idle, irq, softirq, steal, user, idle, irq, softirq, steal);
}

static int
setup_root(void **state)
{
	(void)state;
	return lca_test_root_make(root, sizeof(root), "freq");
}

static int
teardown_root(void **state)
{
	(void)state;
	return lca_test_root_remove(root);
}

/* ---- sources ---- */

static void
test_msr_compute_exact(void **state)
{
	struct lca_freq_msr a = { .tsc = 1000000000, .aperf = 500000000, .mperf = 400000000 };
	struct lca_freq_msr b;
	struct lca_freq_msr_figures fig;

	(void)state;
	/* 10 ms at 2.8 GHz, busy throughout at 3 GHz. */
	b = (struct lca_freq_msr){ a.tsc + 28000000, a.aperf + 30000000, a.mperf + 28000000 };
	assert_int_equal(lca_freq_msr_compute(&a, &b, 2800000000u, &fig), 0);
	assert_true(fig.bzy_mhz == 3000.0);
	assert_true(fig.avg_mhz == 3000.0);
	assert_true(fig.busy_pct == 100.0);

	/* Half the time in C0 at 3 GHz: Avg_MHz halves, Bzy_MHz does not. */
	b = (struct lca_freq_msr){ a.tsc + 28000000, a.aperf + 15000000, a.mperf + 14000000 };
	assert_int_equal(lca_freq_msr_compute(&a, &b, 2800000000u, &fig), 0);
	assert_true(fig.bzy_mhz == 3000.0);
	assert_true(fig.avg_mhz == 1500.0);
	assert_true(fig.busy_pct == 50.0);

	/* Counters that wrapped still give the difference. */
	a = (struct lca_freq_msr){ UINT64_MAX - 99, UINT64_MAX - 9, UINT64_MAX - 4 };
	b.tsc = a.tsc + 100;
	b.aperf = a.aperf + 20;
	b.mperf = a.mperf + 10;
	assert_true(b.aperf < a.aperf);
	assert_int_equal(lca_freq_msr_compute(&a, &b, 1000000000u, &fig), 0);
	assert_true(fig.bzy_mhz == 2000.0);
	assert_true(fig.avg_mhz == 200.0);
	assert_true(fig.busy_pct == 10.0);

	/* No MPERF ticks: nothing to say. */
	assert_int_equal(lca_freq_msr_compute(&a, &a, 1000000000u, &fig), -EINVAL);
	assert_true(isnan(fig.bzy_mhz));
}

static void
test_msr_read_fake(void **state)
{
	struct lca_freq_msr m;

	(void)state;
	fake_msr(3, 111, 222, 333);
	assert_int_equal(lca_freq_msr_read(root, 3, &m), 0);
	assert_int_equal(m.tsc, 111);
	assert_int_equal(m.aperf, 222);
	assert_int_equal(m.mperf, 333);
	assert_int_equal(lca_freq_msr_read(root, 4, &m), -ENOENT);
	assert_int_equal(lca_freq_msr_read(root, -1, &m), -EINVAL);
}

static void
test_msr_deltas_from_fake(void **state)
{
	struct lca_freq_msr a, b;
	struct lca_freq_msr_figures fig;

	(void)state;
	fake_msr(2, 5000000000ull, 7000000000ull, 4000000000ull);
	assert_int_equal(lca_freq_msr_read(root, 2, &a), 0);
	/* 1 s of a 2.1 GHz TSC, 80 % busy at 3.15 GHz. */
	fake_msr(2, 5000000000ull + 2100000000ull, 7000000000ull + 2520000000ull,
		 4000000000ull + 1680000000ull);
	assert_int_equal(lca_freq_msr_read(root, 2, &b), 0);
	assert_int_equal(lca_freq_msr_compute(&a, &b, 2100000000u, &fig), 0);
	assert_true(fig.bzy_mhz == 3150.0);
	assert_true(fig.avg_mhz == 2520.0);
	assert_true(fabs(fig.busy_pct - 80.0) < 1e-12);
}

static void
test_perf_mhz(void **state)
{
	(void)state;
	assert_true(lca_freq_perf_mhz(3000000000ull, 1000000000ull) == 3000.0);
	assert_true(lca_freq_perf_mhz(1200000, 1000000) == 1200.0);
	assert_true(isnan(lca_freq_perf_mhz(5, 0)));
}

static void
test_cpufreq_fake(void **state)
{
	uint64_t khz = 0;

	(void)state;
	fake_write("sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", "2800000\n");
	assert_int_equal(lca_freq_cpufreq_read(root, 0, &khz), 0);
	assert_int_equal(khz, 2800000);
	fake_write("sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", "<unsupported>\n");
	assert_int_equal(lca_freq_cpufreq_read(root, 0, &khz), -EINVAL);
	fake_write("sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", "12ab\n");
	assert_int_equal(lca_freq_cpufreq_read(root, 0, &khz), -EINVAL);
	assert_int_equal(lca_freq_cpufreq_read(root, 7, &khz), -ENOENT);
	fake_remove("sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq");
}

static void
test_procstat_fake(void **state)
{
	struct lca_freq_cpu_times a, b;
	double busy, steal, irq;

	(void)state;
	fake_stat(1000, 5000, 10, 20, 30);
	assert_int_equal(lca_freq_procstat_read(root, 1, &a), 0);
	assert_int_equal(a.user, 1000);
	assert_int_equal(a.idle, 5000);
	assert_int_equal(a.irq, 10);
	assert_int_equal(a.softirq, 20);
	assert_int_equal(a.steal, 30);
	/* 200 ticks: 92 user, 100 idle, 2 irq, 2 softirq, 4 steal. */
	fake_stat(1092, 5100, 12, 22, 34);
	assert_int_equal(lca_freq_procstat_read(root, 1, &b), 0);
	assert_int_equal(lca_freq_cpu_times_pct(&a, &b, &busy, &steal, &irq), 0);
	assert_true(busy == 50.0);
	assert_true(steal == 2.0);
	assert_true(irq == 2.0);
	/* No tick passed: unknown, not 0. */
	assert_int_equal(lca_freq_cpu_times_pct(&b, &b, &busy, &steal, &irq), -EINVAL);
	assert_true(isnan(steal));

	assert_int_equal(lca_freq_procstat_read(root, 2, &a), -ENOENT);
	/* "cpu1" must not match "cpu10". */
	fake_write("proc/stat", "cpu  1 2 3 4\ncpu10 9 9 9 9 9 9 9 9\ncpu1 1 2 3 4\nintr 0\n");
	assert_int_equal(lca_freq_procstat_read(root, 1, &a), 0);
	assert_int_equal(a.user, 1);
	assert_int_equal(a.idle, 4);
	assert_int_equal(a.steal, 0); /* an old kernel's line: no steal field */
	fake_write("proc/stat", "cpu1 x\n");
	assert_int_equal(lca_freq_procstat_read(root, 1, &a), -EINVAL);
	fake_remove("proc/stat");
	assert_int_equal(lca_freq_procstat_read(root, 1, &a), -ENOENT);
}

static void
test_governor_turbo_fake(void **state)
{
	char gov[LCA_FREQ_NAME_LEN];

	(void)state;
	assert_int_equal(lca_freq_governor_read(root, 0, gov, sizeof(gov)), -ENOENT);
	assert_string_equal(gov, "");
	fake_write("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
	assert_int_equal(lca_freq_governor_read(root, 0, gov, sizeof(gov)), 0);
	assert_string_equal(gov, "performance");

	assert_int_equal(lca_freq_turbo_read(root), -ENOENT);
	fake_write("sys/devices/system/cpu/cpufreq/boost", "1\n");
	assert_int_equal(lca_freq_turbo_read(root), 1);
	fake_write("sys/devices/system/cpu/cpufreq/boost", "0\n");
	assert_int_equal(lca_freq_turbo_read(root), 0);
	/* intel_pstate's knob wins, and says the opposite way round. */
	fake_write("sys/devices/system/cpu/intel_pstate/no_turbo", "0\n");
	assert_int_equal(lca_freq_turbo_read(root), 1);
	fake_write("sys/devices/system/cpu/intel_pstate/no_turbo", "1\n");
	assert_int_equal(lca_freq_turbo_read(root), 0);
	fake_remove("sys/devices/system/cpu/intel_pstate/no_turbo");
	fake_remove("sys/devices/system/cpu/cpufreq/boost");
	fake_remove("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
}

static void
test_probe_sanity(void **state)
{
	uint64_t hz = rte_get_tsc_hz();
	double mhz = 0, tsc_mhz = (double)hz / 1e6;
	struct lca_test_cpu cpu;
	int i;

	(void)state;
	/* Not a timing assertion: only that the probe measures a clock of the
	 * right order, whatever turbo or the host does. A probe descheduled
	 * half-way reads a slow clock: that is a busy machine, not the code. */
	for (i = 0; i < 10; i++) {
		lca_test_cpu_start(&cpu);
		assert_int_equal(lca_freq_probe(hz, &mhz), 0);
		lca_test_check_timed(&cpu, mhz > 0.2 * tsc_mhz);
		lca_test_check_timed(&cpu, mhz < 5.0 * tsc_mhz);
	}
	assert_int_equal(lca_freq_probe(0, &mhz), -EINVAL);
}

/* ---- verdicts ---- */

/* The table app_freq_report_print() prints, as a string to free(). */
static char *
print_report(const struct lca_freq_report *rep)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	app_freq_report_print(f, rep);
	fclose(f);
	assert_non_null(text);
	return text;
}

static const struct lca_freq_thresholds default_th = { 1.0, 2.0, 1.0, 2.0, 2.0, 5.0 };

static void
figures(struct lca_freq_lcore_report *r, const double *mhz, unsigned int n, double steal,
	const struct lca_freq_thresholds *th)
{
	memset(r, 0, sizeof(*r));
	r->steal_pct = steal;
	lca_freq_lcore_figures(r, mhz, n, th);
}

static void
test_verdict_stable(void **state)
{
	struct lca_freq_lcore_report r;
	double s[100];
	unsigned int i;

	(void)state;
	for (i = 0; i < 100; i++)
		s[i] = 3000.0;
	figures(&r, s, 100, 0.0, &default_th);
	assert_int_equal(r.verdict, LCA_FREQ_STABLE);
	assert_int_equal(r.n_samples, 100);
	assert_true(r.min_mhz == 3000.0 && r.max_mhz == 3000.0 && r.mean_mhz == 3000.0);
	assert_true(r.stdev_mhz == 0.0 && r.cv_pct == 0.0 && r.range_pct == 0.0);
	assert_string_equal(r.reason, "");

	/* +-0.5 %: cv 0.5 %, range 1 %: stable. */
	for (i = 0; i < 100; i++)
		s[i] = i % 2 ? 3015.0 : 2985.0;
	figures(&r, s, 100, 0.5, &default_th);
	assert_int_equal(r.verdict, LCA_FREQ_STABLE);
	assert_true(fabs(r.mean_mhz - 3000.0) < 1e-9);
	assert_true(fabs(r.range_pct - 1.0) < 1e-9);
	assert_true(fabs(r.stdev_mhz - 15.0 * sqrt(100.0 / 99.0)) < 1e-9);
	assert_true(r.cv_pct < 1.0);

	/* Unknown steal (no /proc/stat) is not judged. */
	figures(&r, s, 100, NAN, &default_th);
	assert_int_equal(r.verdict, LCA_FREQ_STABLE);
}

static void
test_verdict_unstable(void **state)
{
	struct lca_freq_lcore_report r;
	struct lca_freq_thresholds loose = { 10.0, 10.0, 5.0, 10.0, 10.0, 5.0 };
	double s[100];
	unsigned int i;

	(void)state;
	/* One dip of 6 % among steady samples: an outlier, counted and shown in
	 * min and range, but not judged: the p1-p99 range leaves it out. */
	for (i = 0; i < 100; i++)
		s[i] = 3000.0;
	s[50] = 2820.0;
	figures(&r, s, 100, 0.0, &default_th);
	assert_int_equal(r.verdict, LCA_FREQ_STABLE);
	assert_int_equal(r.n_outliers, 1);
	assert_true(r.min_mhz == 2820.0 && fabs(r.range_pct - 18000.0 / r.mean_mhz) < 1e-9);
	assert_true(r.median_mhz == 3000.0 && r.p99_mhz == 3000.0);
	assert_true(r.trim_range_pct < 0.1);
	/* Two dips in 100 are past p1: the clock moved (cv 0.85 %: under). */
	s[10] = 2820.0;
	figures(&r, s, 100, 0.0, &default_th);
	assert_int_equal(r.verdict, LCA_FREQ_UNSTABLE);
	assert_int_equal(r.cause, LCA_FREQ_CAUSE_CLOCK);
	assert_int_equal(r.n_outliers, 2);
	assert_non_null(strstr(r.reason, "p1-p99 range 6.00% > 2%"));
	assert_null(strstr(r.reason, "cv"));
	figures(&r, s, 100, 0.0, &loose);
	assert_int_equal(r.verdict, LCA_FREQ_STABLE);

	/* Half the run at 2 GHz, half at 3 GHz: both. */
	for (i = 0; i < 100; i++)
		s[i] = i < 50 ? 2000.0 : 3000.0;
	figures(&r, s, 100, 0.0, &default_th);
	assert_int_equal(r.verdict, LCA_FREQ_UNSTABLE);
	assert_non_null(strstr(r.reason, "cv "));
	assert_non_null(strstr(r.reason, "range 40.00%"));

	/* A steady clock but the host took 3 % of the time. */
	for (i = 0; i < 100; i++)
		s[i] = 3000.0;
	figures(&r, s, 100, 3.0, &default_th);
	assert_int_equal(r.verdict, LCA_FREQ_UNSTABLE);
	assert_string_equal(r.reason, "steal 3.00% > 1%");
	figures(&r, s, 100, 3.0, &loose);
	assert_int_equal(r.verdict, LCA_FREQ_STABLE);
	/* Exactly at the limits is still stable. */
	figures(&r, s, 100, 1.0, &default_th);
	assert_int_equal(r.verdict, LCA_FREQ_STABLE);

	/* Steal condemns even without samples. */
	figures(&r, s, 0, 3.0, &default_th);
	assert_int_equal(r.verdict, LCA_FREQ_UNSTABLE);
}

static void
test_verdict_no_data(void **state)
{
	struct lca_freq_lcore_report r;
	double s[2] = { 3000.0, NAN };

	(void)state;
	figures(&r, s, 0, 0.0, &default_th);
	assert_int_equal(r.verdict, LCA_FREQ_NO_DATA);
	assert_true(isnan(r.mean_mhz));
	assert_string_equal(r.reason, "0 samples");
	/* NAN samples (a delta source's baseline) are skipped. */
	figures(&r, s, 2, 0.0, &default_th);
	assert_int_equal(r.verdict, LCA_FREQ_NO_DATA);
	assert_int_equal(r.n_samples, 1);
	assert_true(r.mean_mhz == 3000.0);
	assert_string_equal(r.reason, "1 sample");
}

static void
test_verdict_overall(void **state)
{
	static struct lca_freq_report rep;
	double good[4] = { 3000, 3001, 2999, 3000 };
	double bad[4] = { 3000, 2500, 3000, 3000 };

	(void)state;
	memset(&rep, 0, sizeof(rep));
	rep.thresholds = default_th;
	rep.n_lcores = 2;
	rep.lcores[0].lcore_id = 0;
	rep.lcores[1].lcore_id = 1;
	rep.lcores[0].steal_pct = rep.lcores[1].steal_pct = 0.0;
	lca_freq_lcore_figures(&rep.lcores[0], good, 4, &default_th);
	lca_freq_lcore_figures(&rep.lcores[1], good, 4, &default_th);
	lca_freq_report_judge(&rep);
	assert_int_equal(rep.verdict, LCA_FREQ_STABLE);
	assert_string_equal(rep.reason, "");

	lca_freq_lcore_figures(&rep.lcores[1], bad, 4, &default_th);
	lca_freq_report_judge(&rep);
	assert_int_equal(rep.verdict, LCA_FREQ_UNSTABLE);
	assert_non_null(strstr(rep.reason, "lcore 1: cv"));
	assert_null(strstr(rep.reason, "lcore 0"));

	/* Judged again under looser limits, from the figures alone. */
	rep.thresholds.max_cv_pct = 50;
	rep.thresholds.max_range_pct = 50;
	lca_freq_report_judge(&rep);
	assert_int_equal(rep.verdict, LCA_FREQ_STABLE);

	lca_freq_lcore_figures(&rep.lcores[1], bad, 1, &default_th);
	lca_freq_report_judge(&rep);
	assert_int_equal(rep.verdict, LCA_FREQ_NO_DATA);
	assert_non_null(strstr(rep.reason, "lcore 1: 1 sample"));

	rep.n_lcores = 0;
	lca_freq_report_judge(&rep);
	assert_int_equal(rep.verdict, LCA_FREQ_NO_DATA);
}

static void
test_report_merge(void **state)
{
	static struct lca_freq_report a, b, whole;
	double s[10] = { 3000, 3010, 2990, 3005, 2995, 2800, 3000, 3020, 2980, 3000 };

	(void)state;
	memset(&a, 0, sizeof(a));
	a.thresholds = default_th;
	a.n_lcores = 1;
	a.turbo = -1;
	a.duration_s = 1.0;
	a.lcores[0].lcore_id = 4;
	b = a;
	whole = a;
	a.lcores[0].steal_pct = 0.0;
	b.lcores[0].steal_pct = 3.0;
	b.duration_s = 3.0;
	b.turbo = 1;
	whole.lcores[0].steal_pct = 2.25;
	lca_freq_lcore_figures(&a.lcores[0], s, 4, &default_th);
	lca_freq_lcore_figures(&b.lcores[0], s + 4, 6, &default_th);
	lca_freq_lcore_figures(&whole.lcores[0], s, 10, &default_th);
	assert_int_equal(a.verdict, LCA_FREQ_NO_DATA); /* not judged yet */
	assert_int_equal(lca_freq_report_merge(&a, &b), 0);
	assert_int_equal(a.lcores[0].n_samples, 10);
	assert_true(fabs(a.lcores[0].mean_mhz - whole.lcores[0].mean_mhz) < 1e-9);
	assert_true(fabs(a.lcores[0].stdev_mhz - whole.lcores[0].stdev_mhz) < 1e-9);
	assert_true(a.lcores[0].min_mhz == 2800.0);
	assert_true(a.lcores[0].max_mhz == 3020.0);
	assert_true(fabs(a.lcores[0].steal_pct - 2.25) < 1e-12);
	assert_true(a.duration_s == 4.0);
	assert_int_equal(a.turbo, 1);
	assert_int_equal(a.verdict, LCA_FREQ_UNSTABLE);

	/* Into an empty report: a copy. */
	memset(&whole, 0, sizeof(whole));
	assert_int_equal(lca_freq_report_merge(&whole, &b), 0);
	assert_int_equal(whole.lcores[0].n_samples, 6);
	/* Different lcores: refused. */
	b.lcores[0].lcore_id = 5;
	assert_int_equal(lca_freq_report_merge(&a, &b), -EINVAL);
}

static void
test_names(void **state)
{
	(void)state;
	assert_string_equal(lca_freq_source_name(LCA_FREQ_SRC_MSR), "msr");
	assert_string_equal(lca_freq_source_name(LCA_FREQ_SRC_PERF), "perf");
	assert_string_equal(lca_freq_source_name(LCA_FREQ_SRC_CPUFREQ), "cpufreq");
	assert_string_equal(lca_freq_source_name(LCA_FREQ_SRC_PROBE), "probe");
	assert_string_equal(lca_freq_source_name(LCA_FREQ_SRC_MAX), "?");
	assert_string_equal(lca_freq_verdict_name(LCA_FREQ_STABLE), "stable");
	assert_string_equal(lca_freq_verdict_name(LCA_FREQ_UNSTABLE), "UNSTABLE");
	assert_string_equal(lca_freq_verdict_name(LCA_FREQ_NO_DATA), "n/a");
}

/* ---- lost time: the lcore threads' schedstat and status, CPU pressure ---- */

static void
test_lost_readers_fake(void **state)
{
	struct lca_freq_schedstat st;
	uint64_t v;

	(void)state;
	fake_write("proc/self/task/4242/schedstat", "123456789 987654 321\n");
	assert_int_equal(lca_freq_schedstat_read(root, 4242, &st), 0);
	assert_true(st.run_ns == 123456789 && st.wait_ns == 987654 && st.slices == 321);
	assert_int_equal(lca_freq_schedstat_read(root, 4243, &st), -ENOENT);
	assert_int_equal(lca_freq_schedstat_read(root, 0, &st), -EINVAL);
	fake_write("proc/self/task/4242/schedstat", "12 x\n");
	assert_int_equal(lca_freq_schedstat_read(root, 4242, &st), -EINVAL);

	/* The involuntary switches, not the voluntary ones just above. */
	fake_write("proc/self/task/4242/status",
		   "Name:\tlcore-worker-1\nState:\tR (running)\nTgid:\t4240\n"
		   "voluntary_ctxt_switches:\t15\nnonvoluntary_ctxt_switches:\t2718\n");
	assert_int_equal(lca_freq_invol_read(root, 4242, &v), 0);
	assert_int_equal(v, 2718);
	fake_write("proc/self/task/4242/status", "Name:\tx\nvoluntary_ctxt_switches:\t15\n");
	assert_int_equal(lca_freq_invol_read(root, 4242, &v), -ENOENT);
	fake_write("proc/self/task/4242/status", "nonvoluntary_ctxt_switches:\tmany\n");
	assert_int_equal(lca_freq_invol_read(root, 4242, &v), -EINVAL);
	assert_int_equal(lca_freq_invol_read(root, 4243, &v), -ENOENT);

	assert_int_equal(lca_freq_pressure_read(root, &v), -ENOENT);
	fake_write("proc/pressure/cpu", "some avg10=10.95 avg60=15.67 avg300=9.04 total=617415623\n"
					"full avg10=0.00 avg60=0.00 avg300=0.00 total=5\n");
	assert_int_equal(lca_freq_pressure_read(root, &v), 0);
	assert_int_equal(v, 617415623); /* "some", not "full" */
	fake_write("proc/pressure/cpu", "some avg10=1.00 total=\n");
	assert_int_equal(lca_freq_pressure_read(root, &v), -EINVAL);
	fake_write("proc/pressure/cpu", "full avg10=0.00 total=5\n");
	assert_int_equal(lca_freq_pressure_read(root, &v), -EINVAL);
	fake_remove("proc/pressure/cpu");
	fake_remove("proc/self/task/4242/status");
	fake_remove("proc/self/task/4242/schedstat");
}

/* The run: cv 0.74 % and one interrupted probe (3,590 against a
 * median of 4,190 MHz) among 400 samples. The outlier is counted and stays
 * visible in min and range, and the run is stable. */
static void
test_verdict_outlier_among_400(void **state)
{
	struct lca_freq_lcore_report r;
	double s[400];
	unsigned int i;

	(void)state;
	for (i = 0; i < 400; i++)
		s[i] = 4190.0 + (double)(i % 5) * 5.0 - 10.0; /* 4180 .. 4200 */
	s[123] = 3590.0;
	figures(&r, s, 400, 0.0, &default_th);
	assert_int_equal(r.n_samples, 400);
	assert_int_equal(r.n_outliers, 1);
	assert_true(r.min_mhz == 3590.0 && r.max_mhz == 4200.0);
	assert_true(r.range_pct > 14.0);
	assert_true(r.median_mhz == 4190.0);
	assert_true(r.p1_mhz == 4180.0 && r.p99_mhz == 4200.0);
	assert_true(r.trim_range_pct < default_th.max_range_pct);
	assert_true(r.cv_pct < default_th.max_cv_pct);
	assert_int_equal(r.verdict, LCA_FREQ_STABLE);
	assert_int_equal(r.cause, LCA_FREQ_CAUSE_NONE);
	assert_string_equal(r.reason, "");
	assert_string_equal(lca_freq_lcore_verdict_name(&r), "stable");
	/* Five of them: more than 1 % of the samples, the clock moved. */
	for (i = 0; i < 5; i++)
		s[i * 80 + 7] = 3590.0;
	figures(&r, s, 400, 0.0, &default_th);
	assert_int_equal(r.n_outliers, 6);
	assert_int_equal(r.verdict, LCA_FREQ_UNSTABLE);
	assert_int_equal(r.cause, LCA_FREQ_CAUSE_CLOCK);
	assert_string_equal(lca_freq_lcore_verdict_name(&r), "CLOCK");
}

/* Figures as the monitor would give them, judged for their cause. */
static void
lost(struct lca_freq_lcore_report *r, double rq_wait, double steal, double irq, double cv_spread)
{
	double s[100];
	unsigned int i;

	for (i = 0; i < 100; i++)
		s[i] = i % 2 ? 3000.0 + cv_spread : 3000.0 - cv_spread;
	memset(r, 0, sizeof(*r));
	r->rq_wait_pct = rq_wait;
	r->avail_pct = 100.0 - rq_wait;
	r->invol_switches = 250;
	r->steal_pct = steal;
	r->irq_pct = irq;
	lca_freq_lcore_figures(r, s, 100, &default_th);
}

static void
test_verdict_causes(void **state)
{
	static struct lca_freq_report rep;
	struct lca_freq_lcore_report r;
	json_t *j, *l;

	(void)state;
	lost(&r, 0.5, 0.5, 0.5, 3.0);
	assert_int_equal(r.verdict, LCA_FREQ_STABLE);
	assert_int_equal(r.cause, LCA_FREQ_CAUSE_NONE);
	/* A competitor took half the core: PREEMPTED, whatever else is over. */
	lost(&r, 48.0, 3.0, 5.0, 60.0);
	assert_int_equal(r.verdict, LCA_FREQ_UNSTABLE);
	assert_int_equal(r.cause, LCA_FREQ_CAUSE_PREEMPTED);
	assert_string_equal(lca_freq_lcore_verdict_name(&r), "PREEMPTED");
	assert_non_null(strstr(r.reason, "rq-wait 48.00% > 2% (avail 52.0%, 250 invol)"));
	assert_non_null(strstr(r.reason, "steal 3.00% > 1%"));
	assert_non_null(strstr(r.reason, "irq 5.00% > 2%"));
	assert_non_null(strstr(r.reason, "cv "));
	lost(&r, 0.0, 3.0, 5.0, 60.0);
	assert_int_equal(r.cause, LCA_FREQ_CAUSE_STOLEN);
	lost(&r, 0.0, 0.0, 5.0, 60.0);
	assert_int_equal(r.cause, LCA_FREQ_CAUSE_IRQ);
	assert_string_equal(lca_freq_lcore_verdict_name(&r), "IRQ");
	lost(&r, 0.0, 0.0, 0.0, 60.0);
	assert_int_equal(r.cause, LCA_FREQ_CAUSE_CLOCK);
	/* Unknown figures are not judged; exactly at a limit is within it. */
	lost(&r, NAN, NAN, 2.0, 3.0);
	assert_int_equal(r.verdict, LCA_FREQ_STABLE);
	/* The time taken condemns even without samples. */
	memset(&r, 0, sizeof(r));
	r.rq_wait_pct = 30.0;
	r.avail_pct = NAN;
	r.invol_switches = -1;
	lca_freq_lcore_figures(&r, NULL, 0, &default_th);
	assert_int_equal(r.cause, LCA_FREQ_CAUSE_PREEMPTED);
	/* Unknown availability and switches are left out of the reason. */
	assert_string_equal(r.reason, "rq-wait 30.00% > 2%");
	r.invol_switches = 4;
	lca_freq_lcore_figures(&r, NULL, 0, &default_th);
	assert_string_equal(r.reason, "rq-wait 30.00% > 2% (4 invol)");

	/* The run: the first unstable lcore's cause; JSON names it per lcore. */
	memset(&rep, 0, sizeof(rep));
	rep.thresholds = default_th;
	rep.n_lcores = 2;
	lost(&rep.lcores[0], 0.0, 0.0, 0.0, 3.0);
	lost(&rep.lcores[1], 48.0, 0.0, 0.0, 3.0);
	rep.lcores[1].lcore_id = 1;
	rep.lcores[1].invol_switches = -1;
	rep.cpu_pressure_pct = NAN;
	lca_freq_report_judge(&rep);
	assert_int_equal(rep.verdict, LCA_FREQ_UNSTABLE);
	assert_int_equal(rep.cause, LCA_FREQ_CAUSE_PREEMPTED);
	j = app_freq_report_json(&rep);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "cause")), "PREEMPTED");
	assert_true(json_is_null(json_object_get(j, "cpu_pressure_pct")));
	l = json_array_get(json_object_get(j, "lcores"), 0);
	assert_string_equal(json_string_value(json_object_get(l, "cause")), "STABLE");
	assert_int_equal(json_integer_value(json_object_get(l, "invol_switches")), 250);
	assert_int_equal(json_integer_value(json_object_get(l, "outliers")), 0);
	l = json_array_get(json_object_get(j, "lcores"), 1);
	assert_string_equal(json_string_value(json_object_get(l, "cause")), "PREEMPTED");
	assert_string_equal(json_string_value(json_object_get(l, "verdict")), "unstable");
	assert_true(json_real_value(json_object_get(l, "avail_pct")) == 52.0);
	assert_true(json_real_value(json_object_get(l, "rq_wait_pct")) == 48.0);
	assert_true(json_is_null(json_object_get(l, "invol_switches")));
	assert_non_null(json_object_get(l, "trimmed_range_pct"));
	json_decref(j);

	/* The table: the new columns, and the cause as lcore 1's verdict. */
	char *text = print_report(&rep);

	assert_non_null(strstr(text, "avail% rq-wait%  invol"));
	assert_non_null(strstr(text, "Clock verdict: UNSTABLE, PREEMPTED"));
	assert_non_null(strstr(text, " PREEMPTED (rq-wait 48.00%"));
	free(text);
	assert_string_equal(lca_freq_cause_name(LCA_FREQ_CAUSE_STOLEN), "STOLEN");
	assert_string_equal(lca_freq_cause_name(LCA_FREQ_CAUSE_NONE), "");
}

/* ---- the monitor ---- */

/* Sample on the calling lcore; a non-NULL arg gets its thread id. */
static int
sample_now(void *arg)
{
	if (arg != NULL)
		*(int *)arg = rte_gettid();
	lca_freq_sample(rte_lcore_id(), rte_rdtsc());
	return 0;
}

/* Lcore 0 (CPU 0) reads a fake MSR device, lcore 1 (CPU 1) a fake cpufreq
 * file: the whole path from start to report, with figures known exactly. */
static void
test_monitor_fake_root(void **state)
{
	static struct lca_freq_report rep;
	struct lca_freq_conf conf;
	unsigned int worker = rte_get_next_lcore(-1, 1, 0);
	const uint64_t hz = rte_get_tsc_hz();
	uint64_t tsc = 1000000000ull, aperf = 3000000000ull, mperf = 2000000000ull;
	int i;

	(void)state;
	assert_int_equal(rte_lcore_to_cpu_id(rte_get_main_lcore()), 0);
	assert_int_equal(rte_lcore_to_cpu_id(worker), 1);
	fake_msr(0, tsc, aperf, mperf);
	fake_write("sys/devices/system/cpu/cpu1/cpufreq/scaling_cur_freq", "2400000\n");
	fake_write("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
	fake_write("sys/devices/system/cpu/intel_pstate/no_turbo", "1\n");
	fake_stat(1000, 5000, 10, 20, 30);

	lca_freq_conf_init(&conf);
	conf.root = root;
	conf.sources = LCA_FREQ_SRC_BIT(LCA_FREQ_SRC_MSR) | LCA_FREQ_SRC_BIT(LCA_FREQ_SRC_CPUFREQ);
	assert_int_equal(lca_freq_monitor_start(&conf), 0);
	assert_true(lca_freq_monitor_active());
	assert_int_equal(lca_freq_monitor_start(&conf), -EBUSY);

	/* Baseline, then three periods: 1.00, 1.05 and 0.95 × 1.5 × TSC, fully
	 * busy, then half busy at 1.5 × TSC. Bzy_MHz = base × ΔAPERF/ΔMPERF. */
	lca_freq_sample(0, rte_rdtsc());
	tsc += 10000000; aperf += 15000000; mperf += 10000000;
	fake_msr(0, tsc, aperf, mperf);
	lca_freq_sample(0, rte_rdtsc());
	tsc += 10000000; aperf += 15750000; mperf += 10000000;
	fake_msr(0, tsc, aperf, mperf);
	lca_freq_sample(0, rte_rdtsc());
	tsc += 10000000; aperf += 14250000; mperf += 10000000;
	fake_msr(0, tsc, aperf, mperf);
	lca_freq_sample(0, rte_rdtsc());
	tsc += 10000000; aperf += 7500000; mperf += 5000000;
	fake_msr(0, tsc, aperf, mperf);
	lca_freq_sample(0, rte_rdtsc());
	/* The worker samples on itself: twice at 2.4 GHz, once at 2.4 again. */
	for (i = 0; i < 3; i++) {
		assert_int_equal(rte_eal_remote_launch(sample_now, NULL, worker), 0);
		assert_int_equal(rte_eal_wait_lcore(worker), 0);
	}
	/* 200 ticks: 4 steal = 2 %, 3 irq+softirq = 1.5 %. */
	fake_stat(1093, 5100, 12, 21, 34);

	assert_int_equal(lca_freq_monitor_stop(&rep), 0);
	assert_false(lca_freq_monitor_active());
	assert_int_equal(lca_freq_monitor_stop(&rep), -EINVAL);

	assert_int_equal(rep.tsc_hz, hz);
	assert_int_equal(rep.turbo, 0);
	assert_int_equal(rep.n_lcores, 2);

	const struct lca_freq_lcore_report *m = &rep.lcores[0];
	double base_mhz = (double)hz / 1e6;

	assert_int_equal(m->lcore_id, rte_get_main_lcore());
	assert_int_equal(m->cpu, 0);
	assert_int_equal(m->source, LCA_FREQ_SRC_MSR);
	assert_int_equal(m->n_samples, 4);
	assert_int_equal(m->n_dropped, 0);
	/* Whole Hz from the 128-bit product: within one Hz of the exact ratio. */
	assert_true(fabs(m->max_mhz - base_mhz * 1.575) <= 1e-6);
	assert_true(fabs(m->min_mhz - base_mhz * 1.425) <= 1e-6);
	assert_true(fabs(m->mean_mhz - base_mhz * 1.5) <= 1e-6);
	/* Busy from MPERF over the whole run: 35 M of 40 M ticks. */
	assert_true(fabs(m->busy_pct - 87.5) < 1e-12);
	assert_true(m->steal_pct == 2.0);
	assert_true(m->irq_pct == 1.5);
	assert_string_equal(m->governor, "performance");
	assert_int_equal(m->verdict, LCA_FREQ_UNSTABLE);
	/* Four samples: p1 and p99 lie close to min and max. */
	assert_non_null(strstr(m->reason, "p1-p99 range 9.70% > 2%"));
	assert_int_equal(m->cause, LCA_FREQ_CAUSE_STOLEN);
	assert_int_equal(m->n_outliers, 0);
	/* No schedstat in the fake root for the lcores' threads. */
	assert_true(isnan(m->avail_pct) && isnan(m->rq_wait_pct));
	assert_true(m->invol_switches == -1);
	assert_non_null(strstr(m->reason, "steal 2.00% > 1%"));
	assert_true(m->probe_mhz > 0.2 * base_mhz && m->probe_mhz < 5 * base_mhz);

	const struct lca_freq_lcore_report *w = &rep.lcores[1];

	assert_int_equal(w->lcore_id, worker);
	assert_int_equal(w->cpu, 1);
	assert_int_equal(w->source, LCA_FREQ_SRC_CPUFREQ);
	assert_int_equal(w->n_samples, 3);
	assert_true(w->mean_mhz == 2400.0 && w->cv_pct == 0.0);
	/* Busy from /proc/stat: 100 of 200 ticks were idle. */
	assert_true(w->busy_pct == 50.0);
	assert_string_equal(w->governor, "");
	assert_int_equal(w->verdict, LCA_FREQ_UNSTABLE); /* steal alone */
	assert_string_equal(w->reason, "steal 2.00% > 1%");
	assert_int_equal(rep.verdict, LCA_FREQ_UNSTABLE);

	/* The printed table names every figure a reader needs. */
	char *text = print_report(&rep);

	assert_non_null(strstr(text, "msr"));
	assert_non_null(strstr(text, "cpufreq"));
	assert_non_null(strstr(text, "performance"));
	assert_non_null(strstr(text, "turbo off"));
	assert_non_null(strstr(text, "Clock verdict: UNSTABLE"));
	assert_non_null(strstr(text, "WARNING"));
	free(text);

	fake_remove("sys/devices/system/cpu/intel_pstate/no_turbo");
	fake_remove("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
	fake_remove("sys/devices/system/cpu/cpu1/cpufreq/scaling_cur_freq");
	fake_remove("dev/cpu/0/msr");
	fake_remove("proc/stat");
}

/* The time series: a point per series period, with busy and steal of that
 * point's own interval from /proc/stat, and a last point at the stop. The
 * samples are given TSC stamps 10 ms apart, so the points fall at known
 * samples whatever the machine's load. */
static void
test_monitor_series(void **state)
{
	static struct lca_freq_report rep;
	const uint64_t hz = rte_get_tsc_hz(), step = hz / 100;
	unsigned int main_lcore = rte_get_main_lcore();
	struct lca_freq_point pts[4];
	struct lca_freq_conf conf;
	uint64_t t0;
	int k;

	(void)state;
	fake_write("sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", "2400000\n");
	fake_stat(100, 100, 0, 0, 0);
	lca_freq_conf_init(&conf);
	conf.root = root;
	assert_true(conf.series_period_s == 0.1);
	assert_int_equal(lca_freq_monitor_start(&conf), 0);
	assert_int_equal(lca_freq_series_get(main_lcore, NULL, 0), 0);
	t0 = rte_rdtsc();
	for (k = 0; k < 25; k++) {
		if (k == 5) /* first point: 100 ticks, 40 idle, 20 stolen */
			fake_stat(140, 140, 0, 0, 20);
		if (k == 15) /* second point: 100 ticks, all idle */
			fake_stat(140, 240, 0, 0, 20);
		lca_freq_sample(main_lcore, t0 + (uint64_t)k * step);
	}
	assert_int_equal(lca_freq_monitor_stop(&rep), 0);

	/* Kept after the stop; a short buffer gets the first points only. */
	memset(pts, 0, sizeof(pts));
	assert_int_equal(lca_freq_series_get(main_lcore, pts, 1), 3);
	assert_true(pts[0].mhz == 2400.0 && pts[1].t_s == 0.0);
	assert_int_equal(lca_freq_series_get(main_lcore, pts, 4), 3);
	assert_true(pts[0].t_s >= 0.09 && fabs(pts[1].t_s - pts[0].t_s - 0.1) < 1e-6);
	assert_true(pts[0].busy_pct == 60.0 && pts[0].steal_pct == 20.0);
	assert_true(pts[0].probe_mhz > 0);
	assert_true(pts[1].mhz == 2400.0);
	assert_true(pts[1].busy_pct == 0.0 && pts[1].steal_pct == 0.0);
	/* The stop's point: no tick passed, so no busy or steal figure. */
	assert_true(pts[2].mhz == 2400.0);
	assert_true(isnan(pts[2].busy_pct) && isnan(pts[2].steal_pct));
	/* The same in the apps' JSON, under each lcore's record. */
	json_t *j = app_freq_report_json(&rep);

	assert_non_null(j);
	assert_int_equal(app_freq_json_add_series(j), 0);
	json_t *ser = json_object_get(json_array_get(json_object_get(j, "lcores"), 0), "series");

	assert_int_equal(json_array_size(json_object_get(ser, "t_s")), 3);
	assert_true(json_real_value(json_array_get(json_object_get(ser, "steal_pct"), 0)) == 20.0);
	assert_true(json_is_null(json_array_get(json_object_get(ser, "steal_pct"), 2)));
	assert_true(json_real_value(json_array_get(json_object_get(ser, "mhz"), 1)) == 2400.0);
	json_decref(j);
	j = json_object();
	assert_int_equal(app_freq_json_add_series(j), -EINVAL);
	json_decref(j);
	/* The worker never sampled: monitored, with no point. */
	assert_int_equal(lca_freq_series_get(rte_get_next_lcore(main_lcore, 1, 0), NULL, 0), 0);

	assert_int_equal(lca_freq_series_get(RTE_MAX_LCORE, NULL, 0), -EINVAL);
	assert_int_equal(lca_freq_series_get(main_lcore, NULL, 1), -EINVAL);
	assert_int_equal(lca_freq_series_get(RTE_MAX_LCORE - 1, NULL, 0), -ENOENT);
	conf.series_period_s = -1;
	assert_int_equal(lca_freq_monitor_start(&conf), -EINVAL);
	conf.series_period_s = NAN;
	assert_int_equal(lca_freq_monitor_start(&conf), -EINVAL);
	/* No series asked for: the last run's is gone, none is kept. */
	conf.series_period_s = 0;
	assert_int_equal(lca_freq_monitor_start(&conf), 0);
	assert_int_equal(lca_freq_series_get(main_lcore, NULL, 0), -ENOENT);
	assert_int_equal(lca_freq_monitor_stop(NULL), 0);
	fake_remove("sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq");
	fake_remove("proc/stat");
}

/* With no source in the fake root but the probe, and a full buffer. */
static void
test_monitor_probe_overflow(void **state)
{
	static struct lca_freq_report rep;
	struct lca_freq_conf conf;
	int i;

	(void)state;
	lca_freq_conf_init(&conf);
	conf.root = root;
	conf.max_samples = 3;
	assert_int_equal(lca_freq_monitor_start(&conf), 0);
	for (i = 0; i < 5; i++)
		lca_freq_sample(rte_get_main_lcore(), rte_rdtsc());
	assert_int_equal(lca_freq_monitor_stop(&rep), 0);
	assert_int_equal(rep.lcores[0].source, LCA_FREQ_SRC_PROBE);
	assert_int_equal(rep.lcores[0].n_samples, 3);
	assert_int_equal(rep.lcores[0].n_dropped, 2);
	assert_true(rep.lcores[0].mean_mhz == rep.lcores[0].probe_mhz);
	assert_true(isnan(rep.lcores[0].steal_pct)); /* no proc/stat in the root */
	assert_int_equal(rep.lcores[1].n_samples, 0);
	assert_int_equal(rep.lcores[1].verdict, LCA_FREQ_NO_DATA);
	assert_int_equal(rep.turbo, -1);
	/* Stopped: sampling does nothing and the deadline is cleared. */
	lca_freq_sample(rte_get_main_lcore(), rte_rdtsc());
	assert_true(lca_freq_deadlines[rte_get_main_lcore()].tsc == UINT64_MAX);
}

/* Thread tid's schedstat and status under the fake root; NULL removes. */
static void
fake_task(int tid, const char *schedstat, const char *status)
{
	char path[128];

	snprintf(path, sizeof(path), "proc/self/task/%d/schedstat", tid);
	if (schedstat != NULL)
		fake_write(path, "%s", schedstat);
	else
		fake_remove(path);
	snprintf(path, sizeof(path), "proc/self/task/%d/status", tid);
	if (status != NULL)
		fake_write(path, "%s", status);
	else
		fake_remove(path);
}

/* The lcore threads' schedstat and status under the fake root, at the TID
 * each lcore has: read at its first sample and at the stop. */
static void
test_monitor_lost_fake(void **state)
{
	static struct lca_freq_report rep;
	struct lca_freq_conf conf;
	unsigned int worker = rte_get_next_lcore(-1, 1, 0);
	int main_tid = rte_gettid(), worker_tid = 0;

	(void)state;
	/* Not monitoring: this only learns the worker's thread id. */
	assert_int_equal(rte_eal_remote_launch(sample_now, &worker_tid, worker), 0);
	assert_int_equal(rte_eal_wait_lcore(worker), 0);
	assert_true(worker_tid > 0 && worker_tid != main_tid);
	fake_task(main_tid, "1000 2000 3\n",
		  "voluntary_ctxt_switches:\t1\nnonvoluntary_ctxt_switches:\t10\n");
	fake_task(worker_tid, "5000 6000 7\n", "nonvoluntary_ctxt_switches:\t100\n");
	fake_write("proc/pressure/cpu", "some avg10=0.00 avg60=0.00 avg300=0.00 total=1000\n");

	lca_freq_conf_init(&conf);
	conf.root = root;
	assert_int_equal(lca_freq_monitor_start(&conf), 0);
	lca_freq_sample(rte_get_main_lcore(), rte_rdtsc());
	lca_freq_sample(rte_get_main_lcore(), rte_rdtsc());
	assert_int_equal(rte_eal_remote_launch(sample_now, NULL, worker), 0);
	assert_int_equal(rte_eal_wait_lcore(worker), 0);
	/* The main lcore waited on the run queue far longer than any wall
	 * time: all of it, and ran none; the worker ran all of it, with its
	 * status unchanged: no switch. */
	fake_task(main_tid, "1000 1000000000002000 9\n",
		  "voluntary_ctxt_switches:\t99\nnonvoluntary_ctxt_switches:\t17\n");
	fake_task(worker_tid, "1000000000005000 6000 8\n", "nonvoluntary_ctxt_switches:\t100\n");
	assert_int_equal(lca_freq_monitor_stop(&rep), 0);

	const struct lca_freq_lcore_report *m = &rep.lcores[0], *w = &rep.lcores[1];

	assert_true(m->avail_pct == 0.0 && m->rq_wait_pct == 100.0);
	assert_true(m->invol_switches == 7);
	assert_int_equal(m->cause, LCA_FREQ_CAUSE_PREEMPTED);
	assert_true(w->avail_pct == 100.0 && w->rq_wait_pct == 0.0);
	assert_true(w->invol_switches == 0);
	assert_int_not_equal(w->cause, LCA_FREQ_CAUSE_PREEMPTED);
	/* Pressure's total did not move. */
	assert_true(rep.cpu_pressure_pct == 0.0);
	assert_int_equal(rep.cause, LCA_FREQ_CAUSE_PREEMPTED);

	fake_remove("proc/pressure/cpu");
	fake_task(main_tid, NULL, NULL);
	fake_task(worker_tid, NULL, NULL);
}

static void
test_monitor_bad_conf(void **state)
{
	struct lca_freq_conf conf;

	(void)state;
	lca_freq_conf_init(&conf);
	conf.period_s = 0;
	assert_int_equal(lca_freq_monitor_start(&conf), -EINVAL);
	lca_freq_conf_init(&conf);
	conf.period_s = NAN;
	assert_int_equal(lca_freq_monitor_start(&conf), -EINVAL);
	lca_freq_conf_init(&conf);
	conf.max_samples = 0;
	assert_int_equal(lca_freq_monitor_start(&conf), -EINVAL);
	lca_freq_conf_init(&conf);
	conf.sources = 1u << 9;
	assert_int_equal(lca_freq_monitor_start(&conf), -EINVAL);
	lca_freq_conf_init(&conf);
	conf.thresholds.max_cv_pct = -1;
	assert_int_equal(lca_freq_monitor_start(&conf), -EINVAL);
	assert_false(lca_freq_monitor_active());
	assert_int_equal(lca_freq_monitor_stop(NULL), -EINVAL);
}

static int
spin_poll(void *arg)
{
	uint64_t end = *(const uint64_t *)arg;
	unsigned int id = rte_lcore_id();
	uint64_t now;

	while ((now = rte_rdtsc()) < end)
		lca_freq_poll(id, now);
	return 0;
}

/* This machine, the way a run loop uses it: poll on every lcore, two runs
 * between one start and one stop; samples accumulate. */
static void
test_monitor_machine(void **state)
{
	static struct lca_freq_report rep;
	const uint64_t hz = rte_get_tsc_hz();
	struct lca_freq_conf conf;
	struct lca_test_cpu cpu;
	unsigned int i, run;
	uint64_t end;

	(void)state;
	lca_freq_conf_init(&conf);
	conf.period_s = 0.002;
	lca_test_cpu_start(&cpu);
	assert_int_equal(lca_freq_monitor_start(&conf), 0);
	for (run = 0; run < 2; run++) {
		end = rte_rdtsc() + hz / 20;
		assert_int_equal(rte_eal_mp_remote_launch(spin_poll, &end, CALL_MAIN), 0);
		rte_eal_mp_wait_lcore();
	}
	assert_int_equal(lca_freq_monitor_stop(&rep), 0);
	assert_int_equal(rep.n_lcores, rte_lcore_count());
	for (i = 0; i < rep.n_lcores; i++) {
		const struct lca_freq_lcore_report *l = &rep.lcores[i];

		/* About 25 per run; loose, and only where the lcores had their
		 * CPUs: a starved lcore polls, and so samples, less. */
		lca_test_check_timed(&cpu, l->n_samples >= 4);
		lca_test_check_timed(&cpu, l->mean_mhz > 0.2 * hz / 1e6 &&
						   l->mean_mhz < 5.0 * hz / 1e6);
		assert_true(l->min_mhz <= l->mean_mhz && l->mean_mhz <= l->max_mhz);
		assert_int_not_equal(l->verdict, LCA_FREQ_NO_DATA);
		assert_true(l->verdict == LCA_FREQ_STABLE || l->reason[0] != '\0');
	}
	app_freq_report_print(stdout, &rep);
	/* Not monitoring: the poll never samples. */
	for (i = 0; i < RTE_MAX_LCORE; i++)
		assert_true(lca_freq_deadlines[i].tsc == UINT64_MAX);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_msr_compute_exact),
		cmocka_unit_test(test_msr_read_fake),
		cmocka_unit_test(test_msr_deltas_from_fake),
		cmocka_unit_test(test_perf_mhz),
		cmocka_unit_test(test_cpufreq_fake),
		cmocka_unit_test(test_procstat_fake),
		cmocka_unit_test(test_governor_turbo_fake),
		cmocka_unit_test(test_probe_sanity),
		cmocka_unit_test(test_verdict_stable),
		cmocka_unit_test(test_verdict_unstable),
		cmocka_unit_test(test_verdict_no_data),
		cmocka_unit_test(test_verdict_overall),
		cmocka_unit_test(test_report_merge),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_lost_readers_fake),
		cmocka_unit_test(test_verdict_outlier_among_400),
		cmocka_unit_test(test_verdict_causes),
		cmocka_unit_test(test_monitor_fake_root),
		cmocka_unit_test(test_monitor_series),
		cmocka_unit_test(test_monitor_probe_overflow),
		cmocka_unit_test(test_monitor_lost_fake),
		cmocka_unit_test(test_monitor_bad_conf),
		cmocka_unit_test(test_monitor_machine),
	};
	int ret;

	lca_test_eal_init("lca_test_freq");
	if (rte_lcore_count() < 2) {
		fprintf(stderr, "test_freq: needs lcores 0-1\n");
		return 1;
	}
	ret = cmocka_run_group_tests(tests, setup_root, teardown_root);
	lca_eal_cleanup();
	return lca_test_status(ret);
}
