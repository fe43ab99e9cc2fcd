/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_STASH_PRIV_H
#define LCA_STASH_PRIV_H

/*
 * An lcore's stash of spare envelopes, in front of its node's pool.
 *
 * On the message path an envelope goes round on one lcore: a handler sends
 * the one it got across a channel (its bytes go in the slot, so it is free
 * at once), and the next poll of that lcore wants a fresh one to copy a
 * slot into. Through the mempool each of those is a call through its cache
 * (the pool's lookup, the cache's bounds and flush checks): about 40
 * instructions a message in reqresp, 86 in circular. The stash is a LIFO
 * of pointers that only its own lcore's thread touches, so the envelope
 * that just left is the next one handed out, still in this core's cache,
 * for a load and a store.
 *
 * Only envelopes of the lcore's own pool go in; the rest (and threads that
 * are not EAL lcores) use the pools as before. Private to the library; the
 * pool file fills and empties the stashes (lca_mempool.c), and
 * lca_mempool_avail() counts what they hold.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_lcore.h>
#include <rte_mempool.h>

#include "lca_mempool.h"

/* Spares an lcore keeps: a drain's burst. At most this many sit outside
 * the pool an lcore, so the runtime sizes its pools for them. */
#define LCA_STASH_SIZE 64
/* The pool index of a stash while there are no pools: no envelope has it. */
#define LCA_STASH_OFF 0xff

struct lca_stash {
	uint32_t n;             /* atomic for lca_mempool_avail(); one writer */
	uint8_t pool;           /* the index of the lcore's pool; LCA_STASH_OFF: none */
	struct rte_mempool *mp; /* that pool */
	void *objs[LCA_STASH_SIZE];
} __rte_cache_aligned;

extern __attribute__((visibility("hidden"))) struct lca_stash lca_stashes[RTE_MAX_LCORE];

/* The calling thread's stash, or NULL when it has none: a thread that is
 * not an lcore of the runtime's (an lcore id it registered for later
 * has none either). */
static inline struct lca_stash *
lca_stash_here(void)
{
	unsigned int lcore_id = rte_lcore_id();
	struct lca_stash *s;

	if (unlikely(lcore_id >= RTE_MAX_LCORE))
		return NULL;
	s = &lca_stashes[lcore_id];
	return likely(s->pool != LCA_STASH_OFF) ? s : NULL;
}

/* Everything @p s holds back into its pool. */
static inline void
lca_stash_flush(struct lca_stash *s)
{
	if (s == NULL || s->n == 0)
		return;
	rte_mempool_put_bulk(s->mp, s->objs, s->n);
	__atomic_store_n(&s->n, 0, __ATOMIC_RELAXED);
}

/* @p n pointers from @p src to @p dst: a drain's single message by hand,
 * a burst with one copy (a loop a pointer cost 4 instructions each). */
static __rte_always_inline void
lca_stash_copy(void **dst, void *const *src, unsigned int n)
{
	if (n <= 4) {
		for (unsigned int i = 0; i < n; i++)
			dst[i] = src[i];
		return;
	}
	memcpy(dst, src, sizeof(dst[0]) * n);
}

/* @p n objects of the stash's pool into @p objs: from the stash when it
 * holds them, else from the pool. @return 0, or -ENOENT (nothing taken). */
static __rte_always_inline int
lca_stash_get(struct lca_stash *s, void **objs, unsigned int n)
{
	uint32_t have = s->n;

	if (unlikely(have < n))
		return rte_mempool_get_bulk(s->mp, objs, n);
	/* The n last in, as a block. */
	lca_stash_copy(objs, &s->objs[have - n], n);
	__atomic_store_n(&s->n, have - n, __ATOMIC_RELAXED);
	return 0;
}

/* The last object in @p s, or NULL when it is empty. */
static __rte_always_inline void *
lca_stash_pop(struct lca_stash *s)
{
	uint32_t have = s->n;
	void *obj;

	if (unlikely(have == 0))
		return NULL;
	obj = s->objs[have - 1];
	__atomic_store_n(&s->n, have - 1, __ATOMIC_RELAXED);
	return obj;
}

/* Put @p obj, of pool @p pool, back: into @p s when it is of the stash's
 * pool (@p s may be NULL: a thread that is not an lcore). A full stash
 * spills its older half into the pool first. */
static __rte_always_inline void
lca_stash_put(struct lca_stash *s, uint8_t pool, void *obj)
{
	uint32_t have;

	if (unlikely(s == NULL || pool != s->pool)) {
		rte_mempool_put(lca_mempool_by_index(pool), obj);
		return;
	}
	have = s->n;
	if (unlikely(have == LCA_STASH_SIZE)) {
		rte_mempool_put_bulk(s->mp, s->objs, LCA_STASH_SIZE / 2);
		memmove(s->objs, s->objs + LCA_STASH_SIZE / 2,
			sizeof(s->objs[0]) * (LCA_STASH_SIZE / 2));
		have = LCA_STASH_SIZE / 2;
	}
	s->objs[have] = obj;
	__atomic_store_n(&s->n, have + 1, __ATOMIC_RELAXED);
}

/* Put @p n objects of pool @p pool back: into @p s when they are of its
 * pool and fit, else into the pool with one call. */
static __rte_always_inline void
lca_stash_put_bulk(struct lca_stash *s, uint8_t pool, void **objs, unsigned int n)
{
	uint32_t have;

	if (unlikely(s == NULL || pool != s->pool || s->n + n > LCA_STASH_SIZE)) {
		rte_mempool_put_bulk(lca_mempool_by_index(pool), objs, n);
		return;
	}
	have = s->n;
	lca_stash_copy(&s->objs[have], objs, n);
	__atomic_store_n(&s->n, have + n, __ATOMIC_RELAXED);
}

#endif /* LCA_STASH_PRIV_H */
