/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "app_floor.h"

#define SLOTS 4096 /* as a channel between two lcores */

/*
 * A hand-off: LINE writes one shared word, so the side that answers
 * already holds the line it writes; SLOTS writes a 64-byte message into a
 * ring of its own direction, its sequence last, as a channel does, so each
 * side writes a line the other one is polling.
 */
struct slot {
	uint64_t seq;
	uint8_t body[RTE_CACHE_LINE_SIZE - sizeof(uint64_t)];
} __rte_cache_aligned;

struct bounce {
	uint64_t turn __rte_cache_aligned;
	uint32_t stop __rte_cache_aligned;
	enum app_floor_kind kind;
	uint32_t handoffs;
	unsigned int rounds;      /* at most */
	unsigned int min_rounds;  /* at least, and then until min_cycles have passed */
	uint64_t min_cycles;
	unsigned int done;        /* measured rounds */
	unsigned int warmup;
	uint64_t *cycles;
	struct slot *ring[2]; /* SLOTS: [0] initiator -> responder, [1] back */
};

/* Hand-off @p v (odd: to the responder, even: back). */
static inline void
hand(struct bounce *b, uint64_t v, const uint8_t *body)
{
	struct slot *s;

	if (b->kind == APP_FLOOR_LINE) {
		__atomic_store_n(&b->turn, v, __ATOMIC_RELEASE);
		return;
	}
	s = &b->ring[!(v & 1)][(v / 2) & (SLOTS - 1)];
	memcpy(s->body, body, sizeof(s->body));
	__atomic_store_n(&s->seq, v, __ATOMIC_RELEASE);
}

/* Whether hand-off @p v has arrived; its body is copied out if so. */
static inline bool
arrived(struct bounce *b, uint64_t v, uint8_t *body)
{
	struct slot *s;

	if (b->kind == APP_FLOOR_LINE)
		return __atomic_load_n(&b->turn, __ATOMIC_ACQUIRE) == v;
	s = &b->ring[!(v & 1)][(v / 2) & (SLOTS - 1)];
	if (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != v)
		return false;
	memcpy(body, s->body, sizeof(s->body));
	return true;
}

static int
responder(void *arg)
{
	struct bounce *b = arg;
	uint8_t body[RTE_CACHE_LINE_SIZE] = { 0 };

	for (uint64_t v = 1;; v += 2) {
		while (!arrived(b, v, body))
			if (__atomic_load_n(&b->stop, __ATOMIC_ACQUIRE))
				return 0;
		hand(b, v + 1, body);
	}
}

static int
initiator(void *arg)
{
	struct bounce *b = arg;
	uint8_t body[RTE_CACHE_LINE_SIZE] = { 0 };
	uint64_t v = 0, spent = 0;
	unsigned int done = 0; /* b->done at the end: its line is the one the responder reads */

	for (unsigned int r = 0; r < b->warmup + b->rounds; r++) {
		uint64_t start = rte_rdtsc();

		for (uint32_t h = 0; h + 2 <= b->handoffs; h += 2) {
			hand(b, v + 1, body);
			while (!arrived(b, v + 2, body))
				;
			v += 2;
		}
		if (r < b->warmup)
			continue;
		b->cycles[r - b->warmup] = rte_rdtsc() - start;
		spent += b->cycles[r - b->warmup];
		done = r - b->warmup + 1;
		if (done >= b->min_rounds && spent >= b->min_cycles)
			break;
	}
	b->done = done;
	__atomic_store_n(&b->stop, 1, __ATOMIC_RELEASE);
	return 0;
}

static bool
usable(unsigned int lcore)
{
	return lcore < RTE_MAX_LCORE && rte_lcore_is_enabled(lcore);
}

int
app_floor_bounce(enum app_floor_kind kind, unsigned int init_lcore, unsigned int resp_lcore,
		 uint32_t handoffs, unsigned int rounds, uint64_t *cycles)
{
	unsigned int done;

	return app_floor_bounce_for(kind, init_lcore, resp_lcore, handoffs, 0, rounds, rounds,
				    cycles, &done);
}

int
app_floor_bounce_for(enum app_floor_kind kind, unsigned int init_lcore, unsigned int resp_lcore,
		     uint32_t handoffs, double min_s, unsigned int min_rounds,
		     unsigned int max_rounds, uint64_t *cycles, unsigned int *rounds)
{
	static struct bounce b;
	unsigned int main_lcore = rte_get_main_lcore();
	int ret = 0;

	*rounds = 0;
	if (!usable(init_lcore) || !usable(resp_lcore) || init_lcore == resp_lcore ||
	    handoffs < 2 || min_rounds == 0 || min_rounds > max_rounds || cycles == NULL ||
	    !(min_s >= 0) || (kind != APP_FLOOR_LINE && kind != APP_FLOOR_SLOTS))
		return -EINVAL;
	b = (struct bounce){
		.kind = kind, .handoffs = handoffs, .rounds = max_rounds,
		.min_rounds = min_rounds,
		.min_cycles = (uint64_t)(min_s * (double)rte_get_tsc_hz()),
		.warmup = min_rounds / 10 + 1, .cycles = cycles,
	};
	if (kind == APP_FLOOR_SLOTS) {
		/* Each ring on the node of the side that polls it. */
		b.ring[0] = rte_zmalloc_socket("app_floor", SLOTS * sizeof(struct slot), 0,
					       (int)rte_lcore_to_socket_id(resp_lcore));
		b.ring[1] = rte_zmalloc_socket("app_floor", SLOTS * sizeof(struct slot), 0,
					       (int)rte_lcore_to_socket_id(init_lcore));
		if (b.ring[0] == NULL || b.ring[1] == NULL) {
			ret = -ENOMEM;
			goto out;
		}
	}
	if (resp_lcore != main_lcore && rte_eal_remote_launch(responder, &b, resp_lcore) != 0) {
		ret = -EBUSY;
		goto out;
	}
	if (init_lcore != main_lcore && rte_eal_remote_launch(initiator, &b, init_lcore) != 0) {
		__atomic_store_n(&b.stop, 1, __ATOMIC_RELEASE);
		ret = -EBUSY;
	} else if (init_lcore == main_lcore) {
		initiator(&b);
	} else if (resp_lcore == main_lcore) {
		responder(&b);
	}
	rte_eal_mp_wait_lcore();
	*rounds = b.done;
out:
	rte_free(b.ring[0]);
	rte_free(b.ring[1]);
	return ret;
}

int
app_floor_run_all(int (*fn)(void *), void *arg)
{
	int ret = rte_eal_mp_remote_launch(fn, arg, CALL_MAIN);

	rte_eal_mp_wait_lcore();
	return ret < 0 ? -EBUSY : 0;
}

double
app_floor_moved_pct(const double *floor, unsigned int n)
{
	double lo = INFINITY, hi = -INFINITY;

	if (n < 2)
		return NAN;
	for (unsigned int i = 0; i < n; i++) {
		if (!(floor[i] > 0))
			return NAN;
		lo = fmin(lo, floor[i]);
		hi = fmax(hi, floor[i]);
	}
	return 100.0 * (hi - lo) / lo;
}

void
app_floor_ratios(const double *score, const double *floor, unsigned int n, double *ratios)
{
	for (unsigned int i = 0; i < n; i++)
		ratios[i] = floor[i] > 0 ? score[i] / floor[i] : NAN;
}
