/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef APP_WINDOW_H
#define APP_WINDOW_H

/**
 * @file
 * Windows long enough to measure. A figure taken over one or two scheduler
 * ticks is mostly the tick: every benchmark's default measures at least
 * APP_WINDOW_MIN_S per iteration (by calibrating its count, or by running
 * passes until it has), and a window under APP_VERDICT_MIN_TICKS ticks says
 * so where it is printed, as its verdict row's "short-window" flag does.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/** What a default iteration measures at least, in seconds. */
#define APP_WINDOW_MIN_S 0.2

/**
 * What a pilot run that calibrates a count lasts at least, in seconds: a
 * tick's preemption then moves its rate by a few percent, not by half.
 */
#define APP_WINDOW_PILOT_S 0.05

/**
 * What a calibrated count aims at, in seconds: 250 ms, or more where 50
 * ticks are longer (CONFIG_HZ under 250), with room above both for a run
 * a little faster than the one it was calibrated by.
 */
double app_window_target_s(void);

/** Whether @p window_s is shorter than APP_VERDICT_MIN_TICKS ticks (NAN: no). */
bool app_window_short(double window_s);

/**
 * The count that takes @p target_s (app_window_target_s(), or an app's own)
 * at the rate @p done items in @p took_s seconds showed: rounded up to a multiple of @p multiple (0 or 1:
 * any), at least @p floor_count, at most @p max.
 */
uint64_t app_window_count(uint64_t done, double took_s, double target_s, uint64_t multiple,
			  uint64_t floor_count, uint64_t max);

/**
 * End a printed window: ": shorter than 50 scheduler ticks (200 ms), too
 * short to measure well; @p hint" when @p window_s is short (@p hint may be
 * NULL), then a newline.
 */
void app_window_end_line(FILE *f, double window_s, const char *hint);

/** The shortest of @p n windows (NAN when @p n is 0). */
double app_window_min(const double *window_s, unsigned int n);

#endif /* APP_WINDOW_H */
