/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_FREQ_H
#define LCA_FREQ_H

/**
 * @file
 * Per-core frequency sampling and stability figures.
 *
 * A benchmark's numbers are only comparable when every core ran at the same
 * clock throughout, and, on a VM, when the host did not take the vCPU away
 * (steal time). While a benchmark measures, every lcore samples its own
 * effective clock from the best source present:
 *
 *  1. APERF/MPERF from the MSR device (as turbostat): busy clock, busy %;
 *  2. perf_event CPU cycles over task-clock, where a PMU exists;
 *  3. cpufreq's scaling_cur_freq;
 *  4. always: a short probe on the lcore itself, a chain of dependent adds of
 *     known length timed with the TSC.
 *
 * The probe is taken with every sample whatever the source, so that sources
 * can be compared. Over the same interval, /proc/stat gives each CPU's
 * steal, irq and busy time; sysfs gives the governor and the turbo state.
 * At the end, each lcore gets min/mean/max/stdev/CV of its clock and a
 * verdict: stable, or UNSTABLE with the reasons.
 *
 * Use from an app's main lcore, while the run loops are not running:
 * lca_freq_monitor_start() before the first measured iteration, the run
 * loops sample through the hook the monitor adds to them (lca_lcore.h; a
 * loop of an app's own calls lca_freq_poll()) over any number of run/stop
 * cycles, as samples accumulate,
 * lca_freq_monitor_stop() after the last one; the apps print the report with
 * app_freq_report_print() (apps/common/app_freq_print.h).
 *
 * Every reader takes a root folder (NULL or "" for this machine) under which
 * it finds sys/, proc/stat and dev/cpu/N/msr, so that tests run on fakes.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_lcore.h>

#include "lca_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Where an lcore's clock figures come from, best first. */
enum lca_freq_source {
	LCA_FREQ_SRC_MSR,     /**< APERF/MPERF via dev/cpu/N/msr. */
	LCA_FREQ_SRC_PERF,    /**< perf_event cycles / task-clock. */
	LCA_FREQ_SRC_CPUFREQ, /**< cpufreq scaling_cur_freq. */
	LCA_FREQ_SRC_PROBE,   /**< Dependent-add chain timed with the TSC. */
	LCA_FREQ_SRC_MAX,
};

/** Bit of enum lca_freq_source @p s in lca_freq_conf::sources. */
#define LCA_FREQ_SRC_BIT(s) (1u << (s))

/** Verdict on one lcore, or on all. */
enum lca_freq_verdict {
	LCA_FREQ_NO_DATA,  /**< Fewer than two samples: nothing to judge. */
	LCA_FREQ_STABLE,   /**< Within every threshold. */
	LCA_FREQ_UNSTABLE, /**< Over at least one threshold; see the reason and the cause. */
};

/**
 * What made an lcore UNSTABLE, first match in this order: the time taken
 * from it, then its clock. The reason lists every figure over its limit.
 */
enum lca_freq_cause {
	LCA_FREQ_CAUSE_NONE,      /**< Stable, or nothing to judge. */
	LCA_FREQ_CAUSE_PREEMPTED, /**< Another task took the core: run-queue wait. */
	LCA_FREQ_CAUSE_STOLEN,    /**< The hypervisor took the vCPU: steal. */
	LCA_FREQ_CAUSE_IRQ,       /**< Interrupts took the core: irq + softirq. */
	LCA_FREQ_CAUSE_CLOCK,     /**< The clock moved: trimmed range or cv. */
};

/** Limits of a stable run. A figure over any of them makes it UNSTABLE. */
struct lca_freq_thresholds {
	double max_cv_pct;    /**< Coefficient of variation, % (default 1). */
	double max_range_pct; /**< (max - min) / mean, % (default 2). */
	double max_steal_pct; /**< Steal time, % of the interval (default 1). */
	double max_rq_wait_pct; /**< Run-queue wait of the lcore's thread, % of wall time (default 2). */
	double max_irq_pct;   /**< irq + softirq time, % of the interval (default 2). */
	double outlier_pct;   /**< A sample this far from the median, %, is an outlier (default 5); 0: none. */
};

/** Monitor configuration; lca_freq_conf_init() fills the defaults. */
struct lca_freq_conf {
	double period_s;          /**< Time between samples (default 0.01). */
	unsigned int max_samples; /**< Per lcore; more are counted, not kept (default 4096). */
	double series_period_s;   /**< Time between points of the time series (default 0.1); 0: none. */
	unsigned int sources;     /**< LCA_FREQ_SRC_BIT()s allowed; 0: all. The probe always is. */
	const char *root;         /**< NULL or "": this machine; else a fake root (perf is then off). */
	struct lca_freq_thresholds thresholds; /**< Verdict limits. */
};

/** Longest governor name kept, with its NUL. */
#define LCA_FREQ_NAME_LEN 32
/** Longest verdict reason kept, with its NUL. */
#define LCA_FREQ_REASON_LEN 320

/** Figures of one lcore. A figure that could not be had is NAN. */
struct lca_freq_lcore_report {
	unsigned int lcore_id;       /**< EAL lcore id. */
	int cpu;                     /**< Its CPU; -1 when it floats over several. */
	enum lca_freq_source source; /**< Where the MHz figures come from. */
	unsigned int n_samples;      /**< Samples in the figures. */
	uint64_t n_dropped;          /**< Samples lost because the buffer was full. */
	double min_mhz;              /**< Lowest sample. */
	double mean_mhz;             /**< Mean. */
	double max_mhz;              /**< Highest sample. */
	double stdev_mhz;            /**< Sample standard deviation. */
	double cv_pct;               /**< stdev / mean, %. */
	double range_pct;            /**< (max - min) / mean, %. */
	double median_mhz;           /**< Median sample. */
	double p1_mhz;               /**< 1st percentile (linear interpolation). */
	double p99_mhz;              /**< 99th percentile. */
	double trim_range_pct;       /**< (p99 - p1) / median, %: the range the verdict judges. */
	unsigned int n_outliers;     /**< Samples farther than outlier_pct from the median. */
	double probe_mhz;            /**< Mean of the probe, whatever the source. */
	double busy_pct;             /**< C0 time (MSR) or non-idle time (/proc/stat), %. */
	double steal_pct;            /**< Steal time (/proc/stat), %. */
	double irq_pct;              /**< irq + softirq time (/proc/stat), %. */
	double avail_pct;            /**< The lcore thread's time on the CPU, % of wall time (schedstat). */
	double rq_wait_pct;          /**< Its time runnable but waiting for the CPU, % of wall time. */
	int64_t invol_switches;      /**< Its involuntary context switches; -1 unknown. */
	enum lca_freq_cause cause;   /**< Why UNSTABLE; NONE otherwise. */
	char governor[LCA_FREQ_NAME_LEN]; /**< cpufreq governor; "" when none. */
	enum lca_freq_verdict verdict;    /**< This lcore's verdict. */
	char reason[LCA_FREQ_REASON_LEN]; /**< Why UNSTABLE or NO_DATA; "" when stable. */
};

/** What the monitor saw between start and stop. */
struct lca_freq_report {
	uint64_t tsc_hz;       /**< TSC rate DPDK uses (rte_get_tsc_hz()). */
	double duration_s;     /**< From start to stop. */
	int turbo;             /**< 1 on, 0 off, -1 unknown. */
	struct lca_freq_thresholds thresholds; /**< Limits the verdicts used. */
	double cpu_pressure_pct; /**< /proc/pressure/cpu "some" time, % of the duration; NAN unknown. */
	enum lca_freq_verdict verdict;         /**< Over all lcores. */
	enum lca_freq_cause cause;             /**< The first UNSTABLE lcore's cause. */
	char reason[LCA_FREQ_REASON_LEN];      /**< Which lcores, and why. */
	unsigned int n_lcores;                 /**< Entries in lcores[]. */
	struct lca_freq_lcore_report lcores[RTE_MAX_LCORE]; /**< Main lcore first. */
};

/**
 * One point of an lcore's time series: the interval since the point before
 * (or since the start), at most series_period_s plus one sample period long.
 * A figure that could not be had is NAN.
 */
struct lca_freq_point {
	double t_s;       /**< End of the interval, seconds since lca_freq_monitor_start(). */
	double mhz;       /**< Mean of the source's samples in the interval. */
	double probe_mhz; /**< Mean of the probe's samples in the interval. */
	double busy_pct;  /**< C0 time (MSR) or non-idle time (/proc/stat), % of the interval. */
	double steal_pct; /**< Steal time (/proc/stat), % of the interval. */
};

/**
 * Per-lcore sampling deadline, read on every loop by lca_freq_poll(); one
 * cache line each so that no lcore's loop shares a line with another's.
 * Internal: written only by the monitor.
 */
struct lca_freq_deadline {
	uint64_t tsc; /**< Next sample is due at this TSC; UINT64_MAX: not monitoring. */
} __rte_cache_aligned;

/** @internal Deadlines of every lcore, indexed by lcore id. */
extern LCA_API struct lca_freq_deadline lca_freq_deadlines[RTE_MAX_LCORE];

/**
 * Fill @p conf with the defaults: 10 ms period, 4096 samples, a series point
 * every 0.1 s, every source, this machine, thresholds CV 1 %, trimmed range
 * 2 %, steal 1 %, run-queue wait 2 %, irq 2 %, outliers 5 % off the median.
 */
LCA_EXPERIMENTAL
LCA_API void lca_freq_conf_init(struct lca_freq_conf *conf);

/**
 * Start monitoring every enabled lcore: clear the samples, choose each
 * lcore's source, snapshot /proc/stat, add the sampler's hook to every
 * lcore's run loop and make a sample due at once on every lcore. Call from
 * the main lcore while the run loops are not running.
 *
 * @param conf
 *   Configuration; NULL for the defaults.
 * @return
 *   0; -EBUSY when already started or while the run loops run; -EINVAL
 *   for a bad configuration; -ENOMEM; -ENOSPC when an lcore's loop has no
 *   room for another hook.
 */
LCA_EXPERIMENTAL
LCA_API int lca_freq_monitor_start(const struct lca_freq_conf *conf);

/**
 * Stop monitoring, snapshot /proc/stat and compute the figures and verdicts.
 * Call from the main lcore while the run loops are not running.
 *
 * @param[out] report
 *   The figures; may be NULL to just stop.
 * @return
 *   0; -EINVAL when not started.
 */
LCA_EXPERIMENTAL
LCA_API int lca_freq_monitor_stop(struct lca_freq_report *report);

/** Whether the monitor is started. */
LCA_EXPERIMENTAL
LCA_API bool lca_freq_monitor_active(void);

/**
 * The time series of lcore @p lcore_id over the last monitor run: a point
 * every series_period_s while the loops sampled, and a last one at the stop
 * for the samples after the last point. /proc/stat counts in ticks of
 * 10 ms, so a point of 0.1 s gives busy and steal to 10 %. The series is
 * kept from lca_freq_monitor_stop() until the next lca_freq_monitor_start().
 * Call while the loops are not running: each lcore writes its own series
 * as it samples, without a lock.
 *
 * @param lcore_id
 *   An lcore the last run monitored.
 * @param[out] out
 *   Room for @p n points (may be NULL when @p n is 0).
 * @param n
 *   Most points to copy; call with 0 to learn how many there are.
 * @return
 *   The number of points the lcore has (more than @p n when @p out was too
 *   small: the first @p n were copied); -EINVAL for an lcore id out of range
 *   or a NULL @p out with @p n > 0; -ENOENT when the last run did not
 *   monitor that lcore, there was none, or it kept no series.
 */
LCA_EXPERIMENTAL
LCA_API int lca_freq_series_get(unsigned int lcore_id, struct lca_freq_point *out, unsigned int n);

/**
 * Take a sample on the calling lcore now and make the next one due a period
 * after @p now_tsc. Does nothing but clear the deadline when the monitor is
 * stopped. Must run on lcore @p lcore_id itself: the probe measures the core
 * it runs on. lca_freq_poll() calls it when a sample is due; a tool may call
 * it directly (each call of a delta source, MSR or perf, yields a figure
 * from the second on).
 *
 * @param lcore_id
 *   The calling lcore's id.
 * @param now_tsc
 *   rte_rdtsc() now.
 */
LCA_EXPERIMENTAL
LCA_API void lca_freq_sample(unsigned int lcore_id, uint64_t now_tsc);

/**
 * Sample if one is due. The monitor's hook calls it on every iteration of
 * the run loops (lca_lcore.h), and a loop of an app's own calls it itself:
 * when no sample is due it costs one load and one compare of a line the
 * lcore owns.
 *
 * @param lcore_id
 *   The calling lcore's id (an enabled lcore).
 * @param now_tsc
 *   rte_rdtsc() now.
 */
LCA_EXPERIMENTAL
static inline void
lca_freq_poll(unsigned int lcore_id, uint64_t now_tsc)
{
	/* Relaxed: the monitor writes the deadline while the loops are stopped;
	 * atomic only so that a late write is seen, never torn. */
	if (likely(now_tsc < __atomic_load_n(&lca_freq_deadlines[lcore_id].tsc,
					     __ATOMIC_RELAXED)))
		return;
	LCA_EXPERIMENTAL_INNER_BEGIN
	lca_freq_sample(lcore_id, now_tsc);
	LCA_EXPERIMENTAL_INNER_END
}

/**
 * Add the samples summarised by @p from into @p into, as if one monitor had
 * seen both (pooled mean and variance; time-weighted percentages), and judge
 * again. Used by a tool that reports interval by interval and sums up at the
 * end. An empty @p into (n_lcores 0) becomes a copy of @p from.
 *
 * @return
 *   0; -EINVAL when the two do not cover the same lcores.
 */
LCA_EXPERIMENTAL
LCA_API int lca_freq_report_merge(struct lca_freq_report *into, const struct lca_freq_report *from);

/**
 * Compute one lcore's figures from its MHz samples and judge them against
 * @p th. Uses r->steal_pct, irq_pct and rq_wait_pct (NAN: not judged); sets
 * n_samples, min, mean, max, stdev, cv, range, median, p1, p99, trimmed
 * range, outliers, verdict, cause and reason.
 */
LCA_EXPERIMENTAL
LCA_API void lca_freq_lcore_figures(struct lca_freq_lcore_report *r, const double *mhz,
			    unsigned int n, const struct lca_freq_thresholds *th);

/**
 * Judge @p r->lcores[i] again from their figures against r->thresholds,
 * then set the overall verdict: UNSTABLE when any lcore is, STABLE when all
 * are, NO_DATA otherwise.
 */
LCA_EXPERIMENTAL
LCA_API void lca_freq_report_judge(struct lca_freq_report *r);

/** Name of a source: "msr", "perf", "cpufreq", "probe". */
LCA_EXPERIMENTAL
LCA_API const char *lca_freq_source_name(enum lca_freq_source s);

/** Name of a verdict: "n/a", "stable", "UNSTABLE". */
LCA_EXPERIMENTAL
LCA_API const char *lca_freq_verdict_name(enum lca_freq_verdict v);

/** Name of a cause: "PREEMPTED", "STOLEN", "IRQ", "CLOCK"; "" for none. */
LCA_EXPERIMENTAL
LCA_API const char *lca_freq_cause_name(enum lca_freq_cause c);

/**
 * An lcore's verdict in words: "stable", "n/a", or its cause when
 * UNSTABLE ("PREEMPTED", "STOLEN", "IRQ", "CLOCK").
 */
LCA_EXPERIMENTAL
LCA_API const char *lca_freq_lcore_verdict_name(const struct lca_freq_lcore_report *r);

/**
 * Run the probe on the calling core: a chain of dependent register adds (one
 * cycle each on every x86-64 and Arm64 core) timed with the TSC; the best of
 * a few tries, less the cost of reading the TSC.
 *
 * @param tsc_hz
 *   TSC rate, normally rte_get_tsc_hz().
 * @param[out] mhz
 *   The core clock.
 * @return
 *   0; -ENOTSUP on an architecture without the probe; -EIO when the TSC did
 *   not advance.
 */
LCA_EXPERIMENTAL
LCA_API int lca_freq_probe(uint64_t tsc_hz, double *mhz);

/** One reading of a CPU's counters from its MSR device. */
struct lca_freq_msr {
	uint64_t tsc;   /**< IA32_TIME_STAMP_COUNTER (0x10). */
	uint64_t aperf; /**< IA32_APERF (0xE8): cycles at the actual clock, in C0. */
	uint64_t mperf; /**< IA32_MPERF (0xE7): cycles at the TSC rate, in C0. */
};

/** Figures from two MSR readings, as turbostat names them. */
struct lca_freq_msr_figures {
	double bzy_mhz;  /**< base × ΔAPERF / ΔMPERF: the clock while busy. */
	double avg_mhz;  /**< base × ΔAPERF / ΔTSC: the clock averaged over idle too. */
	double busy_pct; /**< 100 × ΔMPERF / ΔTSC: time in C0. */
};

/**
 * Read TSC, APERF and MPERF of @p cpu from root/dev/cpu/@p cpu/msr.
 *
 * @return
 *   0; a negative errno (-ENOENT without the msr module, -EACCES without
 *   root, -EIO when the CPU lacks the MSR).
 */
LCA_EXPERIMENTAL
LCA_API int lca_freq_msr_read(const char *root, int cpu, struct lca_freq_msr *out);

/**
 * Figures between two MSR readings, with MPERF ticking at @p base_hz (the
 * TSC rate on every CPU with an invariant TSC).
 *
 * @return
 *   0; -EINVAL when MPERF or the TSC did not advance.
 */
LCA_EXPERIMENTAL
LCA_API int lca_freq_msr_compute(const struct lca_freq_msr *prev, const struct lca_freq_msr *cur,
			 uint64_t base_hz, struct lca_freq_msr_figures *out);

/**
 * Clock from perf_event deltas: @p d_cycles CPU cycles in @p d_task_ns
 * nanoseconds on the CPU.
 *
 * @return
 *   MHz; NAN when @p d_task_ns is 0.
 */
LCA_EXPERIMENTAL
LCA_API double lca_freq_perf_mhz(uint64_t d_cycles, uint64_t d_task_ns);

/**
 * Read root/sys/devices/system/cpu/cpu@p cpu/cpufreq/scaling_cur_freq.
 *
 * @param[out] khz
 *   The current clock, kHz.
 * @return
 *   0; a negative errno (-ENOENT without cpufreq, -EINVAL when garbled).
 */
LCA_EXPERIMENTAL
LCA_API int lca_freq_cpufreq_read(const char *root, int cpu, uint64_t *khz);

/** One CPU's line of /proc/stat, in USER_HZ ticks. */
struct lca_freq_cpu_times {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};

/**
 * Read @p cpu's line of root/proc/stat.
 *
 * @return
 *   0; -ENOENT when there is no such file or line; -EINVAL when garbled.
 */
LCA_EXPERIMENTAL
LCA_API int lca_freq_procstat_read(const char *root, int cpu, struct lca_freq_cpu_times *out);

/**
 * Shares of the interval between two readings, in %: non-idle (everything
 * but idle and iowait), steal, and irq + softirq.
 *
 * @return
 *   0; -EINVAL when no tick passed (the figures are then NAN).
 */
LCA_EXPERIMENTAL
LCA_API int lca_freq_cpu_times_pct(const struct lca_freq_cpu_times *a, const struct lca_freq_cpu_times *b,
			   double *busy_pct, double *steal_pct, double *irq_pct);

/** A thread's scheduler figures, from /proc/self/task/TID/schedstat. */
struct lca_freq_schedstat {
	uint64_t run_ns;  /**< Time on the CPU. */
	uint64_t wait_ns; /**< Time runnable, waiting on a run queue. */
	uint64_t slices;  /**< Times it ran. */
};

/**
 * Read thread @p tid's root/proc/self/task/@p tid/schedstat.
 *
 * @return
 *   0; -ENOENT without the file (no CONFIG_SCHEDSTATS); -EINVAL when garbled.
 */
LCA_EXPERIMENTAL
LCA_API int lca_freq_schedstat_read(const char *root, int tid, struct lca_freq_schedstat *out);

/**
 * Read thread @p tid's involuntary context switches, the
 * nonvoluntary_ctxt_switches line of root/proc/self/task/@p tid/status.
 *
 * @return
 *   0; -ENOENT without the file or the line; -EINVAL when garbled.
 */
LCA_EXPERIMENTAL
LCA_API int lca_freq_invol_read(const char *root, int tid, uint64_t *out);

/**
 * Read the total of the "some" line of root/proc/pressure/cpu: microseconds
 * in which at least one task waited for a CPU, machine-wide.
 *
 * @return
 *   0; -ENOENT without the file (no PSI); -EINVAL when garbled.
 */
LCA_EXPERIMENTAL
LCA_API int lca_freq_pressure_read(const char *root, uint64_t *some_total_us);

/**
 * Read @p cpu's cpufreq governor into @p buf (trailing newline removed).
 *
 * @return
 *   0; a negative errno (-ENOENT without cpufreq).
 */
LCA_EXPERIMENTAL
LCA_API int lca_freq_governor_read(const char *root, int cpu, char *buf, size_t len);

/**
 * Turbo state: intel_pstate/no_turbo when present, else cpufreq/boost.
 *
 * @return
 *   1 on, 0 off; -ENOENT when sysfs says nothing.
 */
LCA_EXPERIMENTAL
LCA_API int lca_freq_turbo_read(const char *root);

#ifdef __cplusplus
}
#endif

#endif /* LCA_FREQ_H */
