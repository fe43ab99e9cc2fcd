/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shared dispatcher: items any lcore may run, one at a time, spread by
 * work stealing with private queues (after Acar, Charguéraud and Rainey,
 * "Scheduling parallel programs by work stealing with private deques").
 *
 * Each lcore keeps the shared items it made runnable in a private FIFO
 * that only it touches: scheduling an item and taking one cost a store and
 * a load of its own lines, no atomic at all. The woken item runs on the
 * waker's lcore, as a fork-join worker runs the task it forked, which is
 * where the data it was sent is warm. FIFO, not LIFO: a chain of actors
 * waking each other cannot starve the items queued before it.
 *
 * An lcore with nothing to run asks one that advertises work: it swaps its
 * id into the victim's request word (the only CAS, and a thief's). The
 * victim reads that word between its takes of TAKE_MAX items, as a load
 * of its own line; when it is set, it hands the oldest half of its queue
 * (at most STEAL_MAX items) to the thief's box, and publishes it with a
 * release store. So the owner pays nothing per item for stealing, and a
 * thief waits at most TAKE_MAX turns of its victim.
 *
 * Threads that are not lcores (and lcores outside the loops) put items
 * into an injection ring, which every lcore drains a share of.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "lca_eal.h"
#include "lca_steal_priv.h"

#define STEAL_MAX 64
#define TAKE_MAX 8
#define NO_THIEF UINT32_MAX

struct steal_lcore {
	/* The owner's private FIFO. */
	void **q;
	uint32_t head;
	uint32_t tail;
	uint32_t mask;
	uint32_t advertised;   /* what it last told thieves it holds */
	bool asked;            /* its own request is out */
	unsigned int next_victim;
	/* A thief's id, swapped in by the thief; read every loop by the owner. */
	uint32_t thief __rte_cache_aligned;
	/* How many items it holds, for thieves to choose a victim. */
	uint32_t advert __rte_cache_aligned;
	/* Filled by a victim, then ready is set; emptied by the owner. */
	struct {
		uint32_t ready;
		uint32_t n;
		void *items[STEAL_MAX];
	} box __rte_cache_aligned;
} __rte_cache_aligned;

static struct steal_lcore sl[RTE_MAX_LCORE];
static struct rte_ring *injector;
static unsigned int lcore_list[RTE_MAX_LCORE];
static unsigned int n_lcores;
uint32_t steal_used;

int
steal_init(unsigned int max_items)
{
	unsigned int lcore_id, size = rte_align32pow2(max_items + 1);

	memset(sl, 0, sizeof(sl));
	n_lcores = 0;
	steal_used = 0;
	LCA_LCORE_FOREACH(lcore_id) {
		struct steal_lcore *s = &sl[lcore_id];

		/* Room for every item: each is queued once, wherever it is. */
		s->q = rte_zmalloc_socket("lca_steal", sizeof(void *) * size, 0,
					  (int)rte_lcore_to_socket_id(lcore_id));
		if (s->q == NULL)
			return -ENOMEM;
		s->mask = size - 1;
		s->thief = NO_THIEF;
		lcore_list[n_lcores++] = lcore_id;
	}
	injector = rte_ring_create("lca_steal_inject", max_items, SOCKET_ID_ANY, RING_F_EXACT_SZ);
	return injector == NULL ? -ENOMEM : 0;
}

void
steal_cleanup(void)
{
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++)
		rte_free(sl[i].q);
	memset(sl, 0, sizeof(sl));
	rte_ring_free(injector);
	injector = NULL;
}

int
steal_push(void *item, bool in_loop)
{
	unsigned int me = rte_lcore_id();
	struct steal_lcore *s = me < RTE_MAX_LCORE ? &sl[me] : NULL;

	if (unlikely(!steal_in_use()))
		__atomic_store_n(&steal_used, 1, __ATOMIC_RELEASE);
	if (in_loop && s != NULL && s->q != NULL) {
		s->q[s->tail++ & s->mask] = item;
		return 0;
	}
	/* Cannot fail: the ring holds every item and each is queued once. */
	return rte_ring_mp_enqueue(injector, item) == 0 ? 0 : -ENOSPC;
}

/* A share of the injection ring: what is queued divided by the lcores. */
static unsigned int
take_injected(void **items, unsigned int room)
{
	unsigned int queued = rte_ring_count(injector);
	unsigned int share = RTE_MAX((queued + n_lcores - 1) / n_lcores, 1u);

	if (queued == 0 || room == 0)
		return 0;
	return rte_ring_mc_dequeue_burst(injector, items, RTE_MIN(share, room), NULL);
}

unsigned int
steal_take(unsigned int lcore_id, void **items, unsigned int room)
{
	struct steal_lcore *s = &sl[lcore_id];
	unsigned int n = 0;

	/* A few at a time: what is taken can no longer be stolen, and the
	 * owner answers thieves between takes (steal_tick()). */
	room = RTE_MIN(room, (unsigned int)TAKE_MAX);
	while (n < room && s->head != s->tail)
		items[n++] = s->q[s->head++ & s->mask];
	return n + take_injected(items + n, room - n);
}

/* Hand the oldest half of this lcore's queue to the thief that asked. */
static void
serve(struct steal_lcore *s, uint32_t thief_id)
{
	struct steal_lcore *t = &sl[thief_id];
	uint32_t held = s->tail - s->head;
	uint32_t n = RTE_MIN((held + 1) / 2, (uint32_t)STEAL_MAX);

	for (uint32_t i = 0; i < n; i++)
		t->box.items[i] = s->q[s->head++ & s->mask];
	t->box.n = n;
	/* Release: the thief sees the items, and whatever their last turn
	 * wrote, before it sees ready. */
	__atomic_store_n(&t->box.ready, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&s->thief, NO_THIEF, __ATOMIC_RELEASE);
}

/* Ask the next lcore that says it holds items for some of them. */
static void
ask(struct steal_lcore *s, unsigned int lcore_id)
{
	for (unsigned int k = 0; k < n_lcores; k++) {
		unsigned int v = lcore_list[(s->next_victim + k) % n_lcores];
		uint32_t none = NO_THIEF;

		if (v == lcore_id || __atomic_load_n(&sl[v].advert, __ATOMIC_RELAXED) == 0)
			continue;
		if (__atomic_compare_exchange_n(&sl[v].thief, &none, lcore_id, false,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			s->asked = true;
			s->next_victim = (s->next_victim + k + 1) % n_lcores;
			return;
		}
	}
}

/* Take in what a victim handed over. @return how many items. */
static unsigned int
receive(struct steal_lcore *s)
{
	uint32_t n;

	if (!__atomic_load_n(&s->box.ready, __ATOMIC_ACQUIRE))
		return 0;
	n = s->box.n;
	for (uint32_t i = 0; i < n; i++)
		s->q[s->tail++ & s->mask] = s->box.items[i];
	__atomic_store_n(&s->box.ready, 0, __ATOMIC_RELAXED);
	s->asked = false;
	return n;
}

void
steal_tick(unsigned int lcore_id)
{
	struct steal_lcore *s = &sl[lcore_id];
	uint32_t thief = __atomic_load_n(&s->thief, __ATOMIC_ACQUIRE);
	uint32_t held;

	if (unlikely(thief != NO_THIEF))
		serve(s, thief);
	held = s->tail - s->head;
	if (held != s->advertised) {
		s->advertised = held;
		__atomic_store_n(&s->advert, held, __ATOMIC_RELAXED);
	}
}

unsigned int
steal_balance(unsigned int lcore_id, bool idle)
{
	struct steal_lcore *s = &sl[lcore_id];

	steal_tick(lcore_id);
	if (s->asked)
		return receive(s);
	if (idle && s->head == s->tail)
		ask(s, lcore_id);
	return 0;
}
