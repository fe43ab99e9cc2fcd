/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef APP_FLOOR_H
#define APP_FLOOR_H

/**
 * @file
 * Floors: what the hardware alone charges for the work an app measures,
 * taken in the same run, so that the runtime's figure is read as a ratio to
 * it and never as an absolute time that the machine may have moved.
 */

#include <stdint.h>

/** What is handed back and forth. */
enum app_floor_kind {
	/** One shared cache line: the side that answers writes the line it
	 *  has just read, so a hand-off is the hardware's least, one
	 *  transfer. The floor issue 8 sets hop targets against. */
	APP_FLOOR_LINE,
	/** A 64-byte message into a ring of slots of its own direction, its
	 *  sequence written last, as lcactor's channels carry envelopes: each
	 *  side writes a line the other is polling. What any one-way message
	 *  protocol between two cores pays, without a runtime. */
	APP_FLOOR_SLOTS,
};

/**
 * Hand-offs between two lcores: @p handoffs a round (an odd count is
 * rounded down), @p rounds rounds timed with the TSC from the first
 * hand-off to the last, as lca-circular times a round of hops. A few
 * unrecorded rounds warm the lines up first. Both lcores must be enabled,
 * distinct and waiting (the runtime's loops not running); the calling
 * thread must be the main lcore.
 *
 * @param cycles
 *   [rounds]: TSC cycles of each round (the caller's).
 * @return
 *   0; -EINVAL for a bad kind or lcore, fewer than 2 hand-offs, 0 rounds
 *   or a NULL @p cycles; -ENOMEM;
 *   -EBUSY when an lcore could not be launched.
 */
int app_floor_bounce(enum app_floor_kind kind, unsigned int initiator, unsigned int responder,
		     uint32_t handoffs, unsigned int rounds, uint64_t *cycles);

/**
 * Launch @p fn on every worker lcore and run it on the main one, then wait
 * for all: the shape of a floor that runs the same work on every lcore
 * without the runtime. @return 0, or -EBUSY when an lcore was not waiting.
 */
int app_floor_run_all(int (*fn)(void *), void *arg);

/**
 * As app_floor_bounce(), but for at least @p min_s seconds: rounds go on
 * past @p min_rounds until the measured ones have taken @p min_s, up to
 * @p max_rounds, so that a floor's window is as long as the window of the
 * figure it judges.
 *
 * @param cycles
 *   [max_rounds]: TSC cycles of each round (the caller's).
 * @param rounds
 *   Out: rounds measured.
 * @return
 *   As app_floor_bounce(); -EINVAL also when @p min_rounds is 0 or over
 *   @p max_rounds.
 */
int app_floor_bounce_for(enum app_floor_kind kind, unsigned int initiator,
			 unsigned int responder, uint32_t handoffs, double min_s,
			 unsigned int min_rounds, unsigned int max_rounds, uint64_t *cycles,
			 unsigned int *rounds);

/**
 * How far a floor moved between its rounds: (max - min) / min of @p floor,
 * in %. Over APP_VERDICT_MOVED_PCT the rounds ran on CPUs that changed.
 *
 * @return
 *   The spread; NAN with fewer than 2 rounds or a round <= 0.
 */
double app_floor_moved_pct(const double *floor, unsigned int n);

/**
 * The ratio of each alternated pair, @p score[i] / @p floor[i], into
 * @p ratios; a pair whose floor is not positive gets NAN.
 */
void app_floor_ratios(const double *score, const double *floor, unsigned int n, double *ratios);

#endif /* APP_FLOOR_H */
