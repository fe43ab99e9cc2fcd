/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef APP_JMH_JSON_H
#define APP_JMH_JSON_H

/**
 * @file
 * Results written as JMH writes them with `-rf json`: an array with one
 * object a benchmark row (jmhVersion, benchmark, mode, threads, forks, the
 * VM fields, warm-up and measurement settings, params, primaryMetric with
 * score, scoreError, scoreConfidence, scorePercentiles, scoreUnit and
 * rawData, secondaryMetrics), so that JMH's readers and visualisers take
 * an lcactor run beside a published JMH run.
 *
 * As JMH computes them: score is the mean of the measured iterations,
 * scoreError the half-width of the Student's t interval at 99.9 %
 * ("NaN" with 2 iterations or fewer), scoreConfidence score -/+ error,
 * scorePercentiles by the estimator JMH's statistics use (position
 * p (n + 1) / 100, interpolated). One process is one fork: rawData holds
 * one array, the measured iterations in order.
 */

#include "app_jmh.h"

/** What a run's rows share. */
struct app_jmh_run {
	const char *prefix;           /**< Put before each row's benchmark, e.g. "lcactor." */
	unsigned int threads;         /**< JMH's benchmark threads. */
	unsigned int warmups;         /**< Warm-up iterations. */
	unsigned int iterations;      /**< Measured iterations. */
	const char *warmup_time;      /**< e.g. "1 s" */
	const char *measurement_time; /**< e.g. "1 s" */
};

/**
 * Write @p rows to @p path as JMH's JSON result file. Each row's params
 * are named by @p names (values as JMH writes them, strings); its
 * rawData is its values. A failure is reported on stderr under @p prog.
 *
 * @return
 *   0; -ENOMEM; -EIO when the file cannot be written.
 */
int app_jmh_json_write(const char *path, const struct app_jmh_run *run,
		       const char *const *names, unsigned int n_names,
		       const struct app_jmh_row *rows, unsigned int n_rows, const char *prog);

#endif /* APP_JMH_JSON_H */
