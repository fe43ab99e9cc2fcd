/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef APP_SERIES_H
#define APP_SERIES_H

/**
 * @file
 * A series of measured iterations under the frequency monitor, the same way
 * in every app. When the monitor cannot start (no lcore may sample, the
 * monitor already runs, ...) the series is still measured: the apps carry
 * on, print "no frequency report (...)" where the report would be, and
 * write a "frequency" record whose "monitor" says "did not run" and whose
 * "reason" says why.
 *
 * While a series runs, progress (label, iteration k of n, elapsed time)
 * goes to stderr when stderr is a terminal, and never otherwise, so that
 * logs and pipes see only the results: one line updated in place when the
 * results go elsewhere, a line per iteration among them when they go to
 * the same terminal.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "lca_freq.h"

/** Progress of a long run, on stderr when it is a terminal. */
struct app_progress {
	const char *label; /**< e.g. "same-lcore burst 32". */
	unsigned int n;    /**< Steps in all; 0 when unknown. */
	uint64_t t0_ns;    /**< When it started (CLOCK_MONOTONIC). */
	bool shown;        /**< A line is on the terminal. */
	bool in_place;     /**< It is updated in place (stdout is elsewhere), to be cleared. */
};

/** Start @p p: nothing is printed until the first step. */
void app_progress_start(struct app_progress *p, const char *label, unsigned int n);

/** Show "label: iteration k of n, S s elapsed" (k counts from 1). */
void app_progress_step(struct app_progress *p, unsigned int k);

/** Clear the line, so that results print on a clean one. */
void app_progress_done(struct app_progress *p);

/** A series of iterations measured under the frequency monitor. */
struct app_series {
	struct app_progress progress;
	int freq_err;                /**< 0, or why the monitor gave no report (-errno). */
	struct lca_freq_report freq; /**< The report, when freq_err is 0 after the end. */
	/** The report's record with each lcore's time series, built at the end:
	 *  the library keeps a series only until the monitor starts again. */
	json_t *freq_json;
};

/**
 * Start the monitor (default configuration) and the progress line. A
 * monitor that will not start is reported on stderr, not returned.
 */
void app_series_begin(struct app_series *s, const char *label, unsigned int n);

/** Stop the monitor into s->freq and s->freq_json, and clear the progress line. */
void app_series_end(struct app_series *s);

/** Drop what app_series_end() built; @p s may be begun again. */
void app_series_release(struct app_series *s);

/** Run one iteration (@p k from 0); @return 0 or a negative errno. */
typedef int (*app_series_fn)(void *arg, unsigned int k);

/**
 * app_series_begin(), @p n iterations of @p one with progress, then
 * app_series_end().
 *
 * @return
 *   0; the first iteration's error, which ends the series.
 */
int app_series_run(struct app_series *s, const char *label, unsigned int n, app_series_fn one,
		   void *arg);

/** Whether the series has a frequency report. */
static inline bool
app_series_has_report(const struct app_series *s)
{
	return s->freq_err == 0;
}

/**
 * The verdict in a few words: "stable", "unstable: REASON", or "no
 * frequency report (the monitor did not run: ERROR)".
 */
void app_series_verdict_text(const struct app_series *s, char *buf, size_t len);

/** Print the full frequency report, or the one line that says why there is none. */
void app_series_print_freq(FILE *f, const struct app_series *s);

/**
 * The "frequency" record of the series (docs/json.md): the report, with
 * "monitor": "ran" and each lcore's "series"; or, without one, "monitor":
 * "did not run", verdict "no_data", the reason and no lcores. A new
 * reference each call.
 */
json_t *app_series_freq_json(const struct app_series *s);

/** The "frequency" record of a report the monitor gave ("monitor": "ran"). */
json_t *app_freq_ran_json(const struct lca_freq_report *r);

/** The "frequency" record for a run without a report, saying @p why. */
json_t *app_freq_none_json(const char *why);

/** The frequency over several series: their reports merged. */
struct app_freq_total {
	struct lca_freq_report all; /**< Merged reports. */
	unsigned int merged;        /**< Series merged into it. */
	unsigned int series;        /**< Series added, with a report or not. */
};

/** Merge the report of @p s into @p t, when it has one. */
void app_freq_total_add(struct app_freq_total *t, const struct app_series *s);

/** Print @p title and the merged report, or a line saying there is none. */
void app_freq_total_print(FILE *f, const char *title, const struct app_freq_total *t);

/** The record's top-level "frequency": the merged report, or why there is none. */
json_t *app_freq_total_json(const struct app_freq_total *t);

#endif /* APP_SERIES_H */
