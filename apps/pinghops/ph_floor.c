/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The floor of a local run: the same work with nothing between the lcores
 * but a bare single-producer single-consumer ring (rte_ring SP/SC) for each
 * ordered pair of lcores, the lcore's own pair included. Every worker and
 * the master sit on the lcore the runtime gave them; a worker draws its
 * next worker from the same splitmix64 stream as in the runtime's run of
 * that number; the master spreads the initial pings round robin, at most
 * PH_START_BATCH a loop, as its handler does a turn. A ring holds every
 * ping, so a push never waits. No runtime does less for this work.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_ring.h>

#include "lca_eal.h"
#include "lca_floor.h"
#include "lca_freq.h"
#include "lca_rng.h"
#include "ph_floor.h"

#define BURST 64
#define TO_MASTER UINT32_MAX

struct fl_worker {
	uint64_t rng;
	unsigned int lcore;
} __rte_cache_aligned;

struct fl_run {
	const struct ph_conf *conf;
	struct fl_worker *w;
	unsigned int master_lcore;
	struct rte_ring *ring[RTE_MAX_LCORE][RTE_MAX_LCORE]; /* [from][to], NULL where unused */
	uint64_t start_tsc, end_tsc;
	uint64_t handled; /* atomic: worker hops, then reports */
	uint32_t done;    /* atomic: the master heard of every ping */
	uint32_t broken;  /* atomic: a push found its ring full */
};

/* A ping in a ring: whom it is for, and its hops left. */
static inline void *
item(uint32_t to, uint32_t hops)
{
	return (void *)(uintptr_t)(((uint64_t)to << 32) | hops);
}

static inline void
push(struct fl_run *r, unsigned int me, unsigned int lcore, uint32_t to, uint32_t hops)
{
	if (unlikely(rte_ring_sp_enqueue(r->ring[me][lcore], item(to, hops)) != 0))
		__atomic_store_n(&r->broken, 1, __ATOMIC_RELAXED);
}

/* The master's part of a loop: spread a batch, count the reports. */
static void
master_take(struct fl_run *r, uint32_t to_master, uint32_t *to_send, uint32_t *next,
	    uint32_t *heard)
{
	const struct ph_conf *c = r->conf;

	*heard += to_master;
	for (unsigned int b = 0; *to_send > 0 && b < PH_START_BATCH; b++) {
		push(r, r->master_lcore, r->w[*next].lcore, *next, c->hops);
		*next = *next + 1 == c->workers ? 0 : *next + 1;
		(*to_send)--;
	}
	if (*heard == c->pings && !__atomic_load_n(&r->done, __ATOMIC_RELAXED)) {
		r->end_tsc = rte_rdtsc();
		__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	}
}

static int
fl_lcore(void *arg)
{
	struct fl_run *r = arg;
	const struct ph_conf *c = r->conf;
	unsigned int me = rte_lcore_id();
	bool master = me == r->master_lcore;
	uint32_t to_send = master ? c->pings : 0, next = 0, heard = 0;
	uint64_t handled = 0, loops = 0;
	void *items[BURST];
	struct rte_ring *in[RTE_MAX_LCORE];
	unsigned int n_in = 0, from;

	/* The rings into this lcore, found once: RTE_LCORE_FOREACH in the
	 * loop would ask every possible lcore whether it is enabled, a cost
	 * that no bare loop pays and that would flatter the runtime. */
	RTE_LCORE_FOREACH(from)
		if (r->ring[from][me] != NULL)
			in[n_in++] = r->ring[from][me];
	if (master)
		r->start_tsc = rte_rdtsc();
	while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&r->broken, __ATOMIC_RELAXED)) {
		uint32_t to_master = 0;

		for (unsigned int k = 0; k < n_in; k++) {
			unsigned int n = rte_ring_sc_dequeue_burst(in[k], items, BURST, NULL);

			for (unsigned int i = 0; i < n; i++) {
				uint64_t v = (uintptr_t)items[i];
				uint32_t to = (uint32_t)(v >> 32), hops = (uint32_t)v;
				struct fl_worker *w;
				uint32_t dst;

				if (to == TO_MASTER) {
					to_master++;
					continue;
				}
				handled++;
				if (hops == 0) {
					push(r, me, r->master_lcore, TO_MASTER, 0);
					continue;
				}
				w = &r->w[to];
				dst = lca_rng_below(&w->rng, c->workers);
				push(r, me, r->w[dst].lcore, dst, hops - 1);
			}
		}
		if (master)
			master_take(r, to_master, &to_send, &next, &heard);
		if ((++loops & 1023) == 0) {
			lca_freq_poll(me, rte_rdtsc());
			if (lca_eal_stop_requested())
				break;
		}
	}
	__atomic_fetch_add(&r->handled, handled + (master ? heard : 0), __ATOMIC_RELAXED);
	return 0;
}

static void
rings_free(struct fl_run *r)
{
	for (unsigned int a = 0; a < RTE_MAX_LCORE; a++)
		for (unsigned int b = 0; b < RTE_MAX_LCORE; b++)
			rte_ring_free(r->ring[a][b]);
}

/* A ring for each pair of lcores that hold a worker or the master. */
static int
rings_make(struct fl_run *r, unsigned int round)
{
	bool used[RTE_MAX_LCORE] = { false };
	unsigned int size = rte_align32pow2(r->conf->pings + 1);

	used[r->master_lcore] = true;
	for (unsigned int i = 0; i < r->conf->workers; i++)
		used[r->w[i].lcore] = true;
	for (unsigned int a = 0; a < RTE_MAX_LCORE; a++)
		for (unsigned int b = 0; b < RTE_MAX_LCORE; b++) {
			char name[RTE_RING_NAMESIZE];

			if (!used[a] || !used[b])
				continue;
			snprintf(name, sizeof(name), "phf%u_%u_%u", round, a, b);
			r->ring[a][b] = rte_ring_create(name, size, (int)rte_lcore_to_socket_id(b),
							RING_F_SP_ENQ | RING_F_SC_DEQ);
			if (r->ring[a][b] == NULL)
				return -ENOMEM;
		}
	return 0;
}

int
ph_floor_run(const struct ph_conf *conf, const struct ph_place *place, unsigned int n_place,
	     unsigned int run, uint64_t *cycles)
{
	struct fl_run *r = calloc(1, sizeof(*r));
	int ret;

	if (r == NULL)
		return -ENOMEM;
	r->conf = conf;
	r->w = calloc(conf->workers, sizeof(*r->w));
	ret = r->w == NULL ? -ENOMEM : 0;
	for (unsigned int i = 0; ret == 0 && i < n_place; i++) {
		if (place[i].master)
			r->master_lcore = place[i].lcore;
		else if (place[i].index < conf->workers)
			r->w[place[i].index] = (struct fl_worker){
				/* The stream the runtime's worker has in this run. */
				.rng = lca_rng_stream(conf->seed,
						      ((uint64_t)run << 32) | place[i].index),
				.lcore = place[i].lcore,
			};
	}
	if (ret == 0)
		ret = rings_make(r, run);
	if (ret == 0)
		ret = lca_floor_run_all(fl_lcore, r);
	if (ret == 0 && __atomic_load_n(&r->broken, __ATOMIC_RELAXED))
		ret = -ENOBUFS;
	else if (ret == 0 && !__atomic_load_n(&r->done, __ATOMIC_RELAXED))
		ret = -EINTR;
	else if (ret == 0 && r->handled != (uint64_t)conf->pings * ((uint64_t)conf->hops + 2))
		ret = -EIO; /* every hop and every report, exactly */
	if (ret == 0)
		*cycles = r->end_tsc - r->start_tsc;
	rings_free(r);
	free(r->w);
	free(r);
	return ret;
}
