/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_CYCLES_PRIV_H
#define LCA_CYCLES_PRIV_H

/*
 * Microseconds to cycles of a counter, for timers and deadlines. The
 * plain us * hz / 1e6 wraps past 2^64, which at 2.3 GHz is a delay of 2.2
 * hours: a timer for a day then fired at a time chosen by the wrap. Split
 * into whole seconds and the rest, nothing wraps, and a delay the counter
 * cannot reach from now is refused instead.
 */

#include <errno.h>
#include <stdint.h>

/*
 * The cycles of a @p hz counter in @p us microseconds, into @p cycles.
 * @return 0; -ERANGE when now + that many cycles does not fit 64 bits.
 */
static inline int
lca_cycles_of_us(uint64_t us, uint64_t hz, uint64_t now, uint64_t *cycles)
{
	const uint64_t us_per_s = 1000000;
	uint64_t whole = us / us_per_s, rest = us % us_per_s, c;

	if (whole != 0 && hz > UINT64_MAX / whole)
		return -ERANGE;
	c = whole * hz;
	/* rest < 10^6: the product fits below 2^64 for any hz under 18 THz. */
	if (c > UINT64_MAX - rest * hz / us_per_s)
		return -ERANGE;
	c += rest * hz / us_per_s;
	if (c > UINT64_MAX - now)
		return -ERANGE;
	*cycles = c;
	return 0;
}

#endif /* LCA_CYCLES_PRIV_H */
