/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef APP_FREQ_JSON_H
#define APP_FREQ_JSON_H

/**
 * @file
 * The frequency report (lca_freq.h) as JSON, for the record every benchmark
 * app writes. Kept out of the runtime library so that it needs no jansson.
 */

#include <jansson.h>

#include "lca_freq.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Build the JSON form of @p r:
 *
 *     { "tsc_hz", "duration_s", "turbo": "on"|"off"|null,
 *       "verdict": "stable"|"unstable"|"no_data", "reason",
 *       "thresholds": { "max_cv_pct", "max_range_pct", "max_steal_pct" },
 *       "lcores": [ { "lcore", "cpu", "source", "samples", "dropped",
 *                     "min_mhz", "mean_mhz", "max_mhz", "stdev_mhz",
 *                     "cv_pct", "range_pct", "probe_mhz", "busy_pct",
 *                     "steal_pct", "irq_pct", "governor",
 *                     "verdict", "reason" } ] }
 *
 * A figure that could not be had (NAN), a CPU of -1 and an empty governor
 * are null.
 *
 * @return
 *   A new reference, for example for json_object_set_new(record, "frequency", ...);
 *   NULL when out of memory.
 */
json_t *app_freq_report_json(const struct lca_freq_report *r);

/**
 * The time series of @p lcore_id over the last monitor run
 * (lca_freq_series_get()) as arrays of one length, a point each:
 *
 *     { "t_s", "mhz", "probe_mhz", "busy_pct", "steal_pct" }
 *
 * with an unknown figure null. The library keeps the series from
 * lca_freq_monitor_stop() to the next lca_freq_monitor_start(): build it in
 * between.
 *
 * @return
 *   A new reference; NULL when the lcore has no series, or out of memory.
 */
json_t *app_freq_series_json(unsigned int lcore_id);

/**
 * Add "series" (app_freq_series_json()) to every record in the "lcores"
 * array of @p freq, an object app_freq_report_json() built from the report
 * of the last monitor run. A record whose lcore has no series gets none.
 * Call between lca_freq_monitor_stop() and the next start.
 *
 * @return
 *   0; -EINVAL when @p freq has no "lcores" array; -ENOMEM.
 */
int app_freq_json_add_series(json_t *freq);

/** JSON name of a verdict: "stable", "unstable", "no_data". */
const char *app_freq_verdict_json_name(enum lca_freq_verdict v);

#ifdef __cplusplus
}
#endif

#endif /* APP_FREQ_JSON_H */
