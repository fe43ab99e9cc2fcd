/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdbool.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "lca_floor.h"

#define STOP UINT64_MAX

/* The line that bounces, alone on its cache line. */
struct bounce {
	uint64_t turn __rte_cache_aligned;
	uint8_t pad[RTE_CACHE_LINE_SIZE - sizeof(uint64_t)];
	uint32_t handoffs;
	unsigned int rounds;
	unsigned int warmup;
	uint64_t *cycles;
};

/* Odd values are the responder's to answer, even ones the initiator's. */
static int
responder(void *arg)
{
	struct bounce *b = arg;
	uint64_t expect = 1;

	for (;;) {
		uint64_t v = __atomic_load_n(&b->turn, __ATOMIC_ACQUIRE);

		if (v == expect) {
			__atomic_store_n(&b->turn, expect + 1, __ATOMIC_RELEASE);
			expect += 2;
		} else if (v == STOP) {
			return 0;
		}
	}
}

static int
initiator(void *arg)
{
	struct bounce *b = arg;
	uint64_t v = 0;

	for (unsigned int r = 0; r < b->warmup + b->rounds; r++) {
		uint64_t start = rte_rdtsc();

		for (uint32_t h = 0; h + 2 <= b->handoffs; h += 2) {
			__atomic_store_n(&b->turn, v + 1, __ATOMIC_RELEASE);
			while (__atomic_load_n(&b->turn, __ATOMIC_ACQUIRE) != v + 2)
				;
			v += 2;
		}
		if (r >= b->warmup)
			b->cycles[r - b->warmup] = rte_rdtsc() - start;
	}
	__atomic_store_n(&b->turn, STOP, __ATOMIC_RELEASE);
	return 0;
}

static bool
usable(unsigned int lcore)
{
	return lcore < RTE_MAX_LCORE && rte_lcore_is_enabled(lcore);
}

int
lca_floor_bounce(unsigned int init_lcore, unsigned int resp_lcore, uint32_t handoffs,
		 unsigned int rounds, uint64_t *cycles)
{
	static struct bounce b;
	unsigned int main_lcore = rte_get_main_lcore();
	int ret = 0;

	if (!usable(init_lcore) || !usable(resp_lcore) || init_lcore == resp_lcore ||
	    handoffs < 2 || rounds == 0 || cycles == NULL)
		return -EINVAL;
	b = (struct bounce){
		.turn = 0, .handoffs = handoffs, .rounds = rounds,
		.warmup = rounds / 10 + 1, .cycles = cycles,
	};
	if (resp_lcore != main_lcore && rte_eal_remote_launch(responder, &b, resp_lcore) != 0)
		return -EBUSY;
	if (init_lcore != main_lcore && rte_eal_remote_launch(initiator, &b, init_lcore) != 0) {
		__atomic_store_n(&b.turn, STOP, __ATOMIC_RELEASE);
		ret = -EBUSY;
	} else if (init_lcore == main_lcore) {
		initiator(&b);
	} else if (resp_lcore == main_lcore) {
		responder(&b);
	}
	rte_eal_mp_wait_lcore();
	return ret;
}

int
lca_floor_run_all(int (*fn)(void *), void *arg)
{
	int ret = rte_eal_mp_remote_launch(fn, arg, CALL_MAIN);

	rte_eal_mp_wait_lcore();
	return ret < 0 ? -EBUSY : 0;
}
