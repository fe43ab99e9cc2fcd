/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_XORSHIFT_H
#define LCA_XORSHIFT_H

/* The tests' seeded generators (Marsaglia's xorshift64): the same sequence
 * from the same seed, on every machine, so a failing run can be run again. */

#include <stdint.h>

/* The next number of the sequence in @p x (never 0: seed it non-zero). */
static inline uint64_t
lca_xorshift64(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

#endif /* LCA_XORSHIFT_H */
