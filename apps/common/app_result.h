/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef APP_RESULT_H
#define APP_RESULT_H

/**
 * @file
 * The one shape of every app's --json record, documented in docs/json.md
 * and checked against docs/lcactor-result.schema.json by the e2e tests:
 *
 *     { "schema", "app", "version", "date", "machine", "eal_args",
 *       "app_args", "conf", "placement", "results", "frequency",
 *       "lcores", "ok" }
 *
 * and "isolation" where the app printed it (app_isol_print_eal()).
 *
 * An app builds it with app_result_new(), adds its results (each with a
 * "name", and "throughput", "time" and "frequency" where it has them) and
 * writes it with app_result_write().
 */

#include <stdbool.h>

#include <jansson.h>

#include "app_stats.h"

/** Value of "schema": bumped when a key changes meaning or goes away. */
#define APP_RESULT_SCHEMA "lcactor-result/1"

/**
 * Remember the app's name and arguments (after "--") for every record;
 * app_main() calls it before the arguments are parsed, since getopt
 * reorders them.
 */
void app_result_context(const char *app, int argc, char **argv);

/**
 * A record with "schema", "app", "version", "date", "machine", "eal_args"
 * and "app_args" set, @p conf as "conf" (taken), and empty "placement" and
 * "results" arrays.
 *
 * @return
 *   A new reference; NULL when out of memory.
 */
json_t *app_result_new(json_t *conf);

/** Append @p result (taken) to the record's "results". */
void app_result_add(json_t *record, json_t *result);

/**
 * Set "lcores", "ok", "isolation" (what app_isol_print_eal() last read,
 * when it ran) and, when the app set none, a "frequency" that says no
 * series was measured; then write @p record to @p path.
 *
 * @return
 *   0; a negative errno, after a message on stderr naming the file.
 */
int app_result_write(json_t *record, bool ok, const char *path);

/**
 * A measured quantity per iteration, as every app records it:
 *
 *     { "unit", "values": [...], "n", "mean", "min", "max", "stdev",
 *       "p50", "p90", "p99", "ci_low", "ci_high", "confidence", "ci_method" }
 *
 * The interval is Student's t over @p s (ci_method "student-t"); its
 * bounds are null when there are fewer than two values.
 */
json_t *app_result_measure(const struct app_stats *s, const double *values, const char *unit);

/**
 * Summarise @p n values (Student's t at @p confidence) and build their
 * measure, as app_result_measure(); NULL when n is 0.
 */
json_t *app_result_measure_of(const double *values, unsigned int n, double confidence,
			      const char *unit);

#endif /* APP_RESULT_H */
