/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef APP_JMH_H
#define APP_JMH_H

/**
 * @file
 * Results printed the way JMH prints them, so that an lcactor run and a
 * published JMH run can be read side by side.
 */

#include <stdio.h>

#include "app_stats.h"

/** Most parameters of one benchmark row. */
#define APP_JMH_MAX_PARAMS 6

/** One row of the closing table. */
struct app_jmh_row {
	const char *benchmark;                 /**< e.g. "RequestResponse.queryUserServiceActor" */
	const char *params[APP_JMH_MAX_PARAMS]; /**< Values, in the order of the names. */
	const char *mode;                      /**< "thrpt" */
	struct app_stats stats;                /**< Score = mean, Error = half-width. */
	const char *unit;                      /**< "ops/s" */
	const double *values;                  /**< The measured iterations' scores (JSON's rawData). */
	unsigned int n_values;                 /**< How many. */
};

/**
 * Print JMH's Result block for one parameter set:
 *   Result "NAME":
 *     MEAN ±(99.9%) ERROR UNIT [Average]
 *     (min, avg, max) = (...), stdev = ...
 *     CI (99.9%): [LOW, HIGH] (assumes normal distribution)
 */
void app_jmh_result(FILE *f, const char *name, const struct app_stats *s, const char *unit);

/**
 * Print JMH's closing table: a header of Benchmark, each "(name)", Mode,
 * Cnt, Score, Error, Units; then one aligned row per result.
 *
 * @param names
 *   The parameter names, in column order.
 * @param n_names
 *   How many (at most APP_JMH_MAX_PARAMS).
 */
void app_jmh_table(FILE *f, const char *const *names, unsigned int n_names,
		   const struct app_jmh_row *rows, unsigned int n_rows);

#endif /* APP_JMH_H */
