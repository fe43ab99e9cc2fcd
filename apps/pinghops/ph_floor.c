/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The floor of a local run: the same work with nothing between the lcores
 * but a bare single-producer single-consumer ring (rte_ring SP/SC) for each
 * ordered pair of lcores, the lcore's own pair included. Every worker and
 * the master sit on the lcore the runtime gave them; a worker draws its
 * next worker from the same splitmix64 stream as in the runtime's run of
 * that number; the master spreads the initial pings round robin, at most
 * PH_START_BATCH a loop, as its handler does a turn. An lcore buffers
 * what it pushes a destination lcore and enqueues it once a loop (or a
 * full BURST), as a bare DPDK loop buffers its TX; a ring holds every
 * ping, so a push never waits. What every lcore reads at every hop (a
 * worker's lcore) is apart from what one lcore writes (its stream), so no
 * hop pays a line the other lcore owns. No runtime does less for this
 * work.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "lca_eal.h"
#include "app_floor.h"
#include "lca_freq.h"
#include "app_rng.h"
#include "ph_floor.h"

#define BURST 64
#define TO_MASTER UINT32_MAX

/* A worker's stream: written by its lcore at every hop it takes. */
struct fl_worker {
	uint64_t rng;
} __rte_cache_aligned;

struct fl_run {
	const struct ph_conf *conf;
	struct fl_worker *w;
	/* Each worker's lcore, apart from its stream: every lcore reads it
	 * at every hop, and a line the other lcore writes would cost a
	 * transfer a hop that the runtime, whose actors keep what senders
	 * read on a line of its own, does not pay. */
	unsigned int *lcore_of;
	unsigned int master_lcore;
	struct rte_ring *ring[RTE_MAX_LCORE][RTE_MAX_LCORE]; /* [from][to], NULL where unused */
	uint64_t start_tsc, end_tsc;
	uint64_t handled; /* atomic: worker hops, then reports */
	uint32_t done;    /* atomic: the master heard of every ping */
	uint32_t broken;  /* atomic: a push found its ring full */
	uint32_t nomem;   /* atomic: an lcore could not allocate its buffers */
};

/* A ping in a ring: whom it is for, and its hops left. */
static inline void *
item(uint32_t to, uint32_t hops)
{
	return (void *)(uintptr_t)(((uint64_t)to << 32) | hops);
}

/* What an lcore will push to one lcore's ring at the end of its loop. */
struct fl_out {
	struct rte_ring *ring;
	unsigned int n;
	void *items[BURST];
};

static inline void
flush(struct fl_run *r, struct fl_out *o)
{
	if (o->n == 0)
		return;
	if (unlikely(rte_ring_sp_enqueue_bulk(o->ring, o->items, o->n, NULL) == 0))
		__atomic_store_n(&r->broken, 1, __ATOMIC_RELAXED);
	o->n = 0;
}

/* A ping to @p lcore's ring, buffered: a bare loop moves its pings in
 * bursts, one ring operation (and one look at the other side's index) a
 * destination a loop, as a DPDK pipeline buffers its TX. */
static inline void
push(struct fl_run *r, struct fl_out *out, unsigned int lcore, uint32_t to, uint32_t hops)
{
	struct fl_out *o = &out[lcore];

	o->items[o->n++] = item(to, hops);
	if (o->n == BURST)
		flush(r, o);
}

/* The master's part of a loop: spread a batch, count the reports. */
static void
master_take(struct fl_run *r, struct fl_out *out, uint32_t to_master, uint32_t *to_send,
	    uint32_t *next, uint32_t *heard)
{
	const struct ph_conf *c = r->conf;

	*heard += to_master;
	for (unsigned int b = 0; *to_send > 0 && b < PH_START_BATCH; b++) {
		push(r, out, r->lcore_of[*next], *next, c->hops);
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
	unsigned int n_in = 0, n_out = 0, from;
	struct fl_out *out = calloc(RTE_MAX_LCORE, sizeof(*out));
	unsigned int outs[RTE_MAX_LCORE];

	if (out == NULL) {
		__atomic_store_n(&r->nomem, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&r->broken, 1, __ATOMIC_RELAXED); /* the others stop */
		return -ENOMEM;
	}

	/* The rings into this lcore, found once: RTE_LCORE_FOREACH in the
	 * loop would ask every possible lcore whether it is enabled, a cost
	 * that no bare loop pays and that would flatter the runtime. */
	RTE_LCORE_FOREACH(from) {
		if (r->ring[from][me] != NULL)
			in[n_in++] = r->ring[from][me];
		if (r->ring[me][from] != NULL) {
			out[from].ring = r->ring[me][from];
			outs[n_out++] = from;
		}
	}
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
					push(r, out, r->master_lcore, TO_MASTER, 0);
					continue;
				}
				w = &r->w[to];
				dst = app_rng_below(&w->rng, c->workers);
				push(r, out, r->lcore_of[dst], dst, hops - 1);
			}
		}
		if (master)
			master_take(r, out, to_master, &to_send, &next, &heard);
		for (unsigned int k = 0; k < n_out; k++)
			flush(r, &out[outs[k]]);
		if ((++loops & 1023) == 0) {
			lca_freq_poll(me, rte_rdtsc());
			if (lca_eal_stop_requested())
				break;
		}
	}
	__atomic_fetch_add(&r->handled, handled + (master ? heard : 0), __ATOMIC_RELAXED);
	free(out);
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
		used[r->lcore_of[i]] = true;
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
	/* A line a worker: calloc() does not align to one. */
	r->w = rte_zmalloc("ph_floor", sizeof(*r->w) * conf->workers, RTE_CACHE_LINE_SIZE);
	r->lcore_of = calloc(conf->workers, sizeof(*r->lcore_of));
	ret = r->w == NULL || r->lcore_of == NULL ? -ENOMEM : 0;
	for (unsigned int i = 0; ret == 0 && i < n_place; i++) {
		if (place[i].master)
			r->master_lcore = place[i].lcore;
		else if (place[i].index < conf->workers) {
			r->w[place[i].index] = (struct fl_worker){
				/* The stream the runtime's worker has in this run. */
				.rng = app_rng_stream(conf->seed,
						      ((uint64_t)run << 32) | place[i].index),
			};
			r->lcore_of[place[i].index] = place[i].lcore;
		}
	}
	if (ret == 0)
		ret = rings_make(r, run);
	if (ret == 0)
		ret = app_floor_run_all(fl_lcore, r);
	if (ret == 0 && __atomic_load_n(&r->nomem, __ATOMIC_RELAXED))
		ret = -ENOMEM;
	else if (ret == 0 && __atomic_load_n(&r->broken, __ATOMIC_RELAXED))
		ret = -ENOBUFS;
	else if (ret == 0 && !__atomic_load_n(&r->done, __ATOMIC_RELAXED))
		ret = -EINTR;
	else if (ret == 0 && r->handled != (uint64_t)conf->pings * ((uint64_t)conf->hops + 2))
		ret = -EIO; /* every hop and every report, exactly */
	if (ret == 0)
		*cycles = r->end_tsc - r->start_tsc;
	rings_free(r);
	free(r->lcore_of);
	rte_free(r->w);
	free(r);
	return ret;
}
