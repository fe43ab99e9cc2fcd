/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef APP_VERDICT_H
#define APP_VERDICT_H

/**
 * @file
 * The answer of a run, in its last lines: each configuration's score with
 * its ratio to the floor it was measured beside (or why none applies), the
 * clock verdict in one word with its cause, and the record's path. A reader
 * who looks only at the end of a 400-line run sees what it measured and
 * whether to trust it.
 *
 * An app adds one row per configuration it judges with app_verdict_add()
 * and ends with app_result_finish(), which writes the record and prints
 * the block. The rows are kept in the record too, as "verdict", so that
 * scripts/lca-plot draws the same headline the terminal shows.
 */

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

/** How a score reads against its floor. */
enum app_verdict_kind {
	APP_VERDICT_RATE, /**< Higher is better; printed as % of the floor. */
	APP_VERDICT_TIME, /**< Lower is better; printed as × the floor. */
};

/** One configuration's answer. */
struct app_verdict_row {
	const char *config;       /**< What ran, e.g. "affinity tp=1". */
	enum app_verdict_kind kind;
	double score;             /**< The headline figure (median over iterations). */
	double ci_half;           /**< Half-width of its confidence interval; NAN if none. */
	const char *unit;         /**< "M msg/s", "ms", "ns/hop"... */
	const char *floor;        /**< What the floor is, in words; NULL when none applies. */
	const char *no_floor_why; /**< Required when @p floor is NULL: why none applies. */
	const double *ratios;     /**< One per floor/runtime pair: score_i / floor_i. */
	unsigned int n_ratios;    /**< Entries of @p ratios. */
	double floor_moved_pct;   /**< (max - min) / min of the floor's rounds, %; NAN if one. */
	double window_s;          /**< The shortest measured iteration, s; NAN if unknown. */
};

/** A floor that moved more than this between its rounds ran on other CPUs. */
#define APP_VERDICT_MOVED_PCT 20.0
/** A window shorter than this many scheduler ticks is one or two of them. */
#define APP_VERDICT_MIN_TICKS 50

/**
 * Append @p row to @p record's "verdict" rows, as
 *
 *     { "config", "kind": "rate"|"time", "score", "ci_half", "unit",
 *       "floor", "no_floor_why", "ratios", "ratio_median", "ratio_min",
 *       "ratio_max", "floor_moved_pct", "moved", "window_s", "flags" }
 *
 * with the flags it earns: "unreliable" (interval wider than half the
 * score), "moved" (floor moved over APP_VERDICT_MOVED_PCT), "short-window"
 * (under APP_VERDICT_MIN_TICKS scheduler ticks).
 *
 * @return
 *   0; -EINVAL for a NULL config or unit, or a row with neither a floor
 *   nor a reason for none; -ENOMEM.
 */
int app_verdict_add(json_t *record, const struct app_verdict_row *row);

/**
 * The scheduler tick in seconds: 1 / CONFIG_HZ of the running kernel when
 * its config says, else Debian's default 1/250.
 */
double app_verdict_tick_s(void);

/**
 * Print @p record's verdict rows and its clock verdict on @p f, as
 * app_result_finish() ends a run (without the record line).
 */
void app_verdict_print(FILE *f, const json_t *record);

/**
 * End a run: write @p record to @p path (app_result_write()) when @p path is
 * not NULL, then print the verdict block as the last lines of stdout: each
 * row, "clock: WORD (cause)" from the record's "frequency", and
 * "record: PATH" (or "record: none"). Call it last, once.
 *
 * @return
 *   What app_result_write() returns; 0 when there is no @p path.
 */
int app_result_finish(json_t *record, bool ok, const char *path);

#endif /* APP_VERDICT_H */
