/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_CHANNEL_PRIV_H
#define LCA_CHANNEL_PRIV_H

/* Channels between lcores, and each lcore's inbox and control ring
 * (lca_channel.c). Private to the actor core. */

#include "lca_actor_priv.h"
#include "lca_stash_priv.h"

int channels_init(unsigned int max_actors);
void channels_cleanup(void);
/* Push @p n messages for affinity actor @p a into its home lcore's inbox,
 * from any thread; returns how many fit. */
unsigned int inbox_push(struct lca_actor *a, struct lca_msg **msgs, unsigned int n);
/* Work for an lcore's poll that is about one actor, queued from any
 * thread into that lcore's control ring. */
enum ctl_kind {
	CTL_STOP,    /* it was stopped from another thread: drain it */
	CTL_MIGRATE, /* move it to a->move.to (its home lcore) */
	CTL_FENCE,   /* it is moving: send its old home a fence (every other lcore) */
	CTL_ADOPT,   /* it has moved here: schedule it if it has mail */
	CTL_HAND_OVER, /* its fences are in here, its old home: hand it over */
	CTL_MARK,    /* it was handed over from here: mark the channels to the rest */
	CTL_SETTLED, /* every mark is delivered: send what it sent meanwhile */
	CTL_WAKE,    /* its control lane has mail, sent from another lcore */
	CTL_KINDS,
};
/* Actors are cache-line aligned: a control entry's low bits are its kind. */
#define CTL_KIND_MASK 63u
_Static_assert(CTL_KINDS <= CTL_KIND_MASK + 1, "a kind fits in an actor's low bits");
/* Queue @p kind for @p a on @p lcore; cannot fail (the ring holds an
 * entry of each kind for every actor, and an actor has at most one of each
 * kind queued on an lcore). */
void ctl_push(unsigned int lcore, struct lca_actor *a, enum ctl_kind kind);
/* Copy @p m into the channel from @p src_lcore to @p dst_lcore;
 * 0 or -ENOBUFS. */
int channel_put_to(unsigned int src_lcore, unsigned int dst_lcore, const struct lca_msg *m);
/* Whether @p lcore_id has channels to the others: a runtime lcore, whose
 * own thread (loop, hooks, or the main thread between runs) is the one
 * producer of its channels. */
bool channel_from(unsigned int lcore_id);
/* Messages in the channel from @p src_lcore to @p dst_lcore; call on
 * @p src_lcore (it reads the producer's own head). */
unsigned int channel_backlog(unsigned int src_lcore, unsigned int dst_lcore);
/* Messages waiting in @p lcore_id's inbox. */
unsigned int inbox_backlog(unsigned int lcore_id);
/* Lcores with channels between them, and the count. */
unsigned int channels_lcores(void);
/* The dense index of @p lcore_id among the runtime lcores, and back. */
unsigned int channel_index(unsigned int lcore_id);
unsigned int channel_lcore(unsigned int index);
/* Whether nothing from other threads waits in @p lcore_id's inbox, taken
 * or not; on that lcore. */
bool inbox_quiet(unsigned int lcore_id);
/* Deliver @p m from @p lcore_id by the route its actor would take there:
 * 0, or -ENOBUFS (no room yet: it stays the caller's). A stopped receiver
 * drops it, counted. */
int deliver_from(struct lca_msg *m, unsigned int lcore_id);

/* Have every lcore's channels_poll() call lanes_poll() from now on: a
 * packet actor exists. */
void channels_lanes_on(void);
/* The lcore poll function: deliver what other lcores and threads sent
 * this one. Also called by the main thread
 * for any lcore while the loops are not running. */
unsigned int channels_poll(unsigned int lcore_id);

/* An envelope whose bytes crossed in a channel: back to the pool it came
 * from, through this lcore's stash @p s (lca_stash_here()). What it owned
 * (ptr) went with the copy. */
static inline void
envelope_recycle(struct lca_stash *s, struct lca_msg *m)
{
	uint8_t pool = m->pool;

	if (!envelope_giving_back(m))
		return;
	envelope_poison(m);
	lca_stash_put(s, pool, m);
}

/* @p msgs[0..n) into the channel from @p src_lcore to @p dst_lcore, in
 * order, each envelope back to this thread's stash once its bytes are in a
 * slot. @return how many went (the rest are still the caller's). */
static inline unsigned int
channel_send(unsigned int src_lcore, unsigned int dst_lcore, struct lca_msg **msgs,
	     unsigned int n)
{
	struct lca_stash *s = lca_stash_here();
	unsigned int sent = 0;

	while (sent < n && channel_put_to(src_lcore, dst_lcore, msgs[sent]) == 0)
		envelope_recycle(s, msgs[sent++]);
	return sent;
}

#endif /* LCA_CHANNEL_PRIV_H */
