/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_FREQ_JSON_H
#define LCA_FREQ_JSON_H

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
 *   A new reference, for example for json_object_set_new(record, "freq", ...);
 *   NULL when out of memory.
 */
json_t *lca_freq_report_json(const struct lca_freq_report *r);

/** JSON name of a verdict: "stable", "unstable", "no_data". */
const char *lca_freq_verdict_json_name(enum lca_freq_verdict v);

#ifdef __cplusplus
}
#endif

#endif /* LCA_FREQ_JSON_H */
