/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef APP_HGRM_H
#define APP_HGRM_H

/**
 * @file
 * A histogram written as an HdrHistogram percentile-distribution file
 * (".hgrm"), the text HdrHistogram's outputPercentileDistribution() prints
 * and the tools that plot latency spectra read: a header line, one line a
 * step of the percentile spectrum (Value, Percentile, TotalCount,
 * 1/(1-Percentile); the 100 % line without the last), then the
 * Mean/StdDeviation, Max/Total count and Buckets/SubBuckets footer.
 * Values are printed divided by a scaling ratio, with as many decimals as
 * the histogram's significant digits. No DPDK: lca-load links it.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "app_hdr.h"

/** Percentile ticks per half distance, HdrHistogram's and wrk2's default. */
#define APP_HGRM_TICKS 5

/**
 * Print @p h to @p f in the .hgrm format, values divided by @p scale (for
 * values recorded in ns: 1e3 prints microseconds, 1e6 milliseconds).
 *
 * @return
 *   0; -EIO when a write fails.
 */
int app_hgrm_print(const struct app_hdr *h, FILE *f, int ticks, double scale);

/**
 * Write @p h to the file @p path (created or truncated); see app_hgrm_print().
 * A failure is reported on stderr under @p prog's name.
 *
 * @return
 *   0; -errno when the file cannot be written.
 */
int app_hgrm_write(const struct app_hdr *h, const char *path, int ticks, double scale,
		   const char *prog);

/**
 * Record @p n durations of @p cycles each (a counter at @p hz) into a
 * histogram in ns (3 significant digits, up to an hour) and write it to
 * app_hgrm_path(@p path, @p name) in microseconds; the path written is
 * printed as "  hgrm: PATH (values in us)".
 *
 * @return
 *   0; -ENOMEM; -errno when the file cannot be written.
 */
int app_hgrm_write_cycles(const uint64_t *cycles, size_t n, uint64_t hz, const char *path,
			  const char *name, const char *prog);

/**
 * The path of one of several histograms of a run: @p path with ".NAME"
 * put before its ".hgrm" ending (or after it, when it has none), so that
 * `--hgrm out.hgrm` gives out.restart.hgrm, out.timer.hgrm ...
 *
 * @return
 *   0; -ENAMETOOLONG when it does not fit in @p len.
 */
int app_hgrm_path(const char *path, const char *name, char *buf, size_t len);

#endif /* APP_HGRM_H */
