/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_MIGRATE_PRIV_H
#define LCA_MIGRATE_PRIV_H

/* Migration (lca_migrate.c): what the rest of the core calls. The channel
 * calls two hooks, migration_on_arrival() and migration_ctl(); a push into
 * an inbox is bracketed by migration_push_begin()/_end(). Private. */

#include <stdbool.h>

#include <rte_atomic.h>
#include <rte_per_lcore.h>

#include "lca_actor_priv.h"
#include "lca_channel_priv.h"

int migrations_init(void);
void migrations_cleanup(void);

/* Ask for @p a to move to @p lcore (see lca_actor_migrate()); @p why goes
 * into the migration log. */
int actor_migrate(struct lca_actor *a, unsigned int lcore, const char *why);

/* The channel's hooks. A run of @p n messages to @p a reached @p lcore_id
 * that is not its home @p home (as the caller read it), or a fence or mark
 * (MSG_F_CONTROL, then n is 1): @return how many it took. */
unsigned int migration_on_arrival(struct lca_actor *a, struct lca_msg **msgs, unsigned int n,
				  unsigned int lcore_id, unsigned int home);
/* A control entry of a migration's kind (CTL_MIGRATE .. CTL_SETTLED) for
 * @p a, on @p lcore_id's poll. */
void migration_ctl(struct lca_actor *a, enum ctl_kind kind, unsigned int lcore_id);

/* A settling actor's sends: held back, in order, till it has settled.
 * @return how many of @p msgs it took. */
unsigned int settle_hold(struct lca_actor *a, struct lca_msg **msgs, unsigned int n);

/* Free what a move left (runtime cleanup): held-back sends, rings. */
void migration_release(struct lca_actor *a);

/*
 * A push into a home's inbox from a thread that is not that home: every
 * thread that pushes has a slot of its own, on a line no other thread
 * writes, which says what it is pushing to and which home it read. The old
 * home's hand-over looks at the slots (migration_pushes_ended()) instead of
 * each push counting itself in the actor: four stores a push on the
 * thread's own line (one relaxed, three release: plain moves on x86), no
 * atomic read-modify-write, and no fence where membarrier(2) is there. Why that is safe against a move that starts meanwhile is in
 * lca_migrate.c, "pushes".
 */
struct pusher {
	struct lca_actor *to; /* atomic: the actor being pushed to, or NULL */
	unsigned int home;    /* atomic: the home it read, or PUSH_HOME_UNREAD */
	uint32_t taken;       /* atomic: a live thread owns the slot */
	struct pusher *next;  /* set before it is on the list, never after */
} __rte_cache_aligned;

#define PUSH_HOME_UNREAD (~0u)

/* This thread's slot, once it pushed; whether membarrier(2) gives the
 * switch's barrier on every thread (else each push fences). */
RTE_DECLARE_PER_LCORE(struct pusher *, pusher_self);
extern bool pushers_asym;
struct pusher *pusher_register(void);

/* Before reading @p a's home for a push into that home's inbox. */
static inline struct pusher *
migration_push_begin(struct lca_actor *a)
{
	struct pusher *p = RTE_PER_LCORE(pusher_self);

	if (unlikely(p == NULL))
		p = pusher_register();
	__atomic_store_n(&p->home, PUSH_HOME_UNREAD, __ATOMIC_RELAXED);
	/* Release: a hand-over that reads `to` as @p a reads `home` as
	 * unread or as what this push reads below. */
	__atomic_store_n(&p->to, a, __ATOMIC_RELEASE);
	/* `to` before the home is read (lca_migrate.c, "pushes"). */
	if (likely(pushers_asym))
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	else
		rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	return p;
}

/* The home the push read, before it pushes there. */
static inline void
migration_push_home(struct pusher *p, unsigned int home)
{
	__atomic_store_n(&p->home, home, __ATOMIC_RELEASE);
}

/* After the push. Release: whoever sees the slot free sees the push. */
static inline void
migration_push_end(struct pusher *p)
{
	__atomic_store_n(&p->to, NULL, __ATOMIC_RELEASE);
}

#endif /* LCA_MIGRATE_PRIV_H */
