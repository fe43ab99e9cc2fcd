/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The probe: the core's clock measured on the core itself, whatever the
 * machine lets us read, with a chain of dependent adds of known length.
 */
#include <errno.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include "lca_freq.h"

/* The probe: PROBE_ADDS_PER_ITER dependent adds per loop iteration, so the
 * loop's own counter and branch run alongside in spare ports. The window is
 * long enough that reading the TSC (about 30 ticks in a KVM guest) and its
 * 1-tick resolution stay small, short enough that an interrupt rarely lands
 * in it: the best of PROBE_TRIES then has none. */
#define PROBE_ADDS_PER_ITER 100
#define PROBE_TRIES         4
#define PROBE_WINDOW_S      1.2e-6
#define PROBE_MIN_TICKS     2000
#define PROBE_ASSUMED_HZ    3e9

#if defined(RTE_ARCH_X86_64)
#define PROBE_ADD "add %2, %0\n\t"
#define PROBE_LOOP_END "dec %1\n\tjnz 1b\n\t"

/* lfence on each side keeps the chain between the two TSC reads: rdtsc alone
 * may run before earlier instructions finish or after later ones start. */
static inline uint64_t
probe_tsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}
#elif defined(RTE_ARCH_ARM64)
#define PROBE_ADD "add %0, %0, %2\n\t"
#define PROBE_LOOP_END "subs %1, %1, #1\n\tb.ne 1b\n\t"

static inline uint64_t
probe_tsc(void)
{
	return rte_rdtsc_precise();
}
#endif

#ifdef PROBE_ADD
#define PROBE_ADD10 PROBE_ADD PROBE_ADD PROBE_ADD PROBE_ADD PROBE_ADD \
	PROBE_ADD PROBE_ADD PROBE_ADD PROBE_ADD PROBE_ADD
#define PROBE_ADD100 PROBE_ADD10 PROBE_ADD10 PROBE_ADD10 PROBE_ADD10 PROBE_ADD10 \
	PROBE_ADD10 PROBE_ADD10 PROBE_ADD10 PROBE_ADD10 PROBE_ADD10

/* Register-register adds: one cycle of latency on every core of both
 * architectures. Adds of an immediate are avoided: recent Intel cores can
 * fold those at rename and run the chain faster than one per cycle. */
static uint64_t
probe_chain(uint64_t iters)
{
	uint64_t x = 0, step = 1, t0, t1;

	t0 = probe_tsc();
	__asm__ volatile("1:\n\t" PROBE_ADD100 PROBE_LOOP_END
			 : "+r"(x), "+r"(iters)
			 : "r"(step)
			 : "cc");
	t1 = probe_tsc();
	return t1 - t0;
}

int
lca_freq_probe(uint64_t tsc_hz, double *mhz)
{
	uint64_t best = UINT64_MAX, empty = UINT64_MAX, iters, ticks;
	double window_s;
	int i;

	if (tsc_hz == 0 || mhz == NULL)
		return -EINVAL;
	/* A slow timer (Arm's is often 25-100 MHz) needs a longer window. */
	window_s = RTE_MAX(PROBE_WINDOW_S, (double)PROBE_MIN_TICKS / (double)tsc_hz);
	iters = (uint64_t)(window_s * PROBE_ASSUMED_HZ / PROBE_ADDS_PER_ITER) + 1;
	for (i = 0; i < PROBE_TRIES; i++) {
		uint64_t t0 = probe_tsc();
		uint64_t t1 = probe_tsc();

		/* Interrupts only ever lengthen a window: keep the shortest. */
		empty = RTE_MIN(empty, t1 - t0);
		best = RTE_MIN(best, probe_chain(iters));
	}
	if (best <= empty)
		return -EIO;
	ticks = best - empty;
	*mhz = (double)tsc_hz * (double)(iters * PROBE_ADDS_PER_ITER) / (double)ticks / 1e6;
	return 0;
}
#else
int
lca_freq_probe(uint64_t tsc_hz, double *mhz)
{
	RTE_SET_USED(tsc_hz);
	RTE_SET_USED(mhz);
	return -ENOTSUP;
}
#endif
