/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef APP_RNG_H
#define APP_RNG_H

/**
 * @file
 * The one random generator of the apps: splitmix64. It is as fast as
 * xorshift64* on the hot path, accepts any seed (0 included, so a stream
 * derived from --seed never needs a "| 1"), and its output function doubles
 * as a mixer that turns (seed, run, actor) into independent streams.
 * Inline, because actors draw from it once per message.
 */

#include <stdint.h>

/** splitmix64's output function: a bijective mix of @p x. */
static inline uint64_t
app_rng_mix(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

/** Next 64 random bits of the stream whose state is @p *s. */
static inline uint64_t
app_rng_next(uint64_t *s)
{
	return app_rng_mix(*s += 0x9E3779B97F4A7C15ull);
}

/** Uniform in [0, @p n), without a division (Lemire's multiply-shift). */
static inline uint32_t
app_rng_below(uint64_t *s, uint32_t n)
{
	return (uint32_t)(((app_rng_next(s) >> 32) * (uint64_t)n) >> 32);
}

/** A stream's starting state for item @p k of @p seed, e.g. a worker per run. */
static inline uint64_t
app_rng_stream(uint64_t seed, uint64_t k)
{
	return app_rng_mix(seed ^ app_rng_mix(k + 0x9E3779B97F4A7C15ull));
}

#endif /* APP_RNG_H */
