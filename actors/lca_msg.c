/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Envelopes: allocation from the lcore's stash (or the node's pool), the
 * frees (single, burst, and the general one for mixed pools and mbufs) and
 * keeping the one a handler was given. The send path (lca_send.c) only
 * moves envelopes; this file is where they come from and go back to.
 */
#define LCA_LOG_PART lca_logtype_actor
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "lca_actor_priv.h"
#include "lca_eal.h"
#include "lca_logtypes_priv.h"
#include "lca_mempool.h"
#include "lca_msg_priv.h"
#include "lca_route_priv.h"
#include "lca_stash_priv.h"

/* Envelopes (and mbufs) handed back to their pools with one call. */
#define FREE_CHUNK 64

/* A fresh envelope's header but its pool: a constant, so the copy below
 * reads it from rodata (or as immediates). Built on the stack with the
 * pool in it, the 16-byte load of it met the narrower stores that had just
 * built it, and waited for them (a failed store forward) at every alloc. */
static const struct lca_msg fresh_header = {
	.from = LCA_ACTOR_NONE,
	.to = LCA_ACTOR_NONE,
};

/* A fresh envelope's header, written with one copy and the pool's byte:
 * field by field it was seven stores an envelope. */
static inline void
msg_reset_bulk(struct lca_msg **msgs, unsigned int n, unsigned int pool)
{
#pragma GCC unroll 4
	for (unsigned int i = 0; i < n; i++) {
		struct lca_msg *m = msgs[i];

		envelope_taken(m);
		memcpy(m, &fresh_header, offsetof(struct lca_msg, data));
		m->pool = (uint8_t)pool;
	}
}

int
lca_msg_alloc_bulk(struct lca_msg **msgs, unsigned int n)
{
	struct lca_stash *s = lca_stash_here();
	unsigned int pool;
	int ret;

	if (likely(s != NULL)) {
		/* An lcore's stash knows its pool: no lookup (two calls an
		 * alloc, a fifth of what a single one cost). */
		pool = s->pool;
		ret = lca_stash_get(s, (void **)msgs, n);
	} else {
		struct rte_mempool *mp;

		pool = lca_mempool_local_index();
		mp = lca_mempool_by_index(pool);
		if (unlikely(mp == NULL)) {
			LCA_LOG(ERR, "lca_msg_alloc: the runtime is not up "
				"(lca_runtime_init() first)\n");
			return -EINVAL;
		}
		ret = rte_mempool_get_bulk(mp, (void **)msgs, n);
	}
	if (unlikely(ret != 0)) {
		send_failed(-ENOMEM);
		return -ENOMEM;
	}
	msg_reset_bulk(msgs, n, pool);
	return 0;
}

int
lca_msg_alloc(struct lca_msg **msg)
{
	struct lca_stash *s = lca_stash_here();
	struct lca_msg *m;

	/* One from a stash that has one: the common single alloc without the
	 * bulk path's block copy and loop (68 instructions, now about half). */
	if (likely(s != NULL) && (m = lca_stash_pop(s)) != NULL) {
		msg_reset_bulk(&m, 1, s->pool);
		*msg = m;
		return 0;
	}
	return lca_msg_alloc_bulk(msg, 1);
}

/* @p msg (not NULL) and the mbuf it owns back: the single free's, and a
 * burst of one's. */
static __rte_always_inline void
msg_free_one(struct lca_msg *msg)
{
	uint8_t pool;

	if (!envelope_giving_back(msg))
		return;
	if (msg->flags & LCA_MSG_F_MBUF)
		rte_pktmbuf_free(msg->ptr);
	pool = msg->pool;
	envelope_poison(msg);
	lca_stash_put(lca_stash_here(), pool, msg);
}

void
lca_msg_free(struct lca_msg *msg)
{
	struct actor_lcore *here = actor_lcore_here();

	if (msg == NULL)
		return;
	/* A handler that frees the message it handles (after a failed send,
	 * say) must not have the runtime free it again. */
	if (msg == here->current)
		here->current = NULL;
	msg_free_one(msg);
}

#ifndef LCA_DEBUG_ENVELOPES
/* Whether @p msgs[0..n) (msgs[0] not NULL) are envelopes of msgs[0]'s pool
 * with no mbuf, none NULL: the burst a free puts back in one call. The
 * differences are gathered and tested once, not a branch a field. */
static inline bool
one_pool_no_mbuf(struct lca_msg *const *msgs, unsigned int n)
{
	const unsigned int first = msgs[0]->pool | (unsigned int)msgs[0]->flags << 8;
	unsigned int odd = first & (LCA_MSG_F_MBUF << 8);

#pragma GCC unroll 4
	for (unsigned int i = 0; i < n; i++) {
		const struct lca_msg *m = msgs[i];

		if (unlikely(m == NULL))
			return false;
		odd |= (m->pool | (unsigned int)m->flags << 8) ^ first;
	}
	return (odd & (0xffu | LCA_MSG_F_MBUF << 8)) == 0;
}
#endif

/* The general free: envelopes of several pools, with mbufs, NULLs, and in
 * a debug build each checked. Apart from the common burst, so that the
 * common burst's call does not set up these arrays (a single free from a
 * transport cost 93 instructions with them, 17 of them the frame). */
static __rte_noinline void
free_mixed(struct lca_msg **msgs, unsigned int n)
{
	struct rte_mbuf *mbufs[FREE_CHUNK];
	void *run[FREE_CHUNK];
	unsigned int n_mbufs = 0, n_run = 0, run_pool = 0;

	for (unsigned int i = 0; i < n; i++) {
		struct lca_msg *m = msgs[i];

		if (m == NULL)
			continue;
		if (!envelope_giving_back(m))
			continue;
		if (m->flags & LCA_MSG_F_MBUF) {
			mbufs[n_mbufs++] = m->ptr;
			if (n_mbufs == FREE_CHUNK) {
				rte_pktmbuf_free_bulk(mbufs, n_mbufs);
				n_mbufs = 0;
			}
		}
		if (n_run > 0 && (m->pool != run_pool || n_run == FREE_CHUNK)) {
			lca_stash_put_bulk(lca_stash_here(), (uint8_t)run_pool, run, n_run);
			n_run = 0;
		}
		run_pool = m->pool;
		envelope_poison(m);
		run[n_run++] = m;
	}
	if (n_mbufs > 0)
		rte_pktmbuf_free_bulk(mbufs, n_mbufs);
	if (n_run > 0)
		lca_stash_put_bulk(lca_stash_here(), (uint8_t)run_pool, run, n_run);
}

void
lca_msg_free_bulk(struct lca_msg **msgs, unsigned int n)
{
	struct actor_lcore *here = actor_lcore_here();

	if (unlikely(here->current != NULL))
		handed_over(here, msgs, n);
	/* One, as a transport frees each single send it copied: no loop. */
	if (n == 1) {
		if (msgs[0] != NULL)
			msg_free_one(msgs[0]);
		return;
	}
#ifndef LCA_DEBUG_ENVELOPES
	/* The common burst: envelopes of one pool without mbufs go back with
	 * one put of the caller's array, no copy. */
	if (likely(n > 0 && msgs[0] != NULL) && one_pool_no_mbuf(msgs, n)) {
		lca_stash_put_bulk(lca_stash_here(), msgs[0]->pool, (void **)msgs, n);
		return;
	}
#endif
	if (n > 0)
		free_mixed(msgs, n);
}

void
lca_msg_keep(struct lca_msg *msg)
{
	struct actor_lcore *here = actor_lcore_here();

	if (here->current == msg)
		here->current = NULL;
}
