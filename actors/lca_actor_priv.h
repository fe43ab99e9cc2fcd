/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_ACTOR_PRIV_H
#define LCA_ACTOR_PRIV_H

/* Internals shared by lca_actor.c (life cycle, turns) and lca_send.c. */

#include <rte_atomic.h>
#include <rte_lcore.h>
#include <rte_ring.h>

#include "lca_actor.h"
#include "lca_lcore.h"

enum actor_life {
	ACTOR_ALIVE,
	ACTOR_STOPPING, /* stopped; its lcore has still to drain the mailbox */
	ACTOR_STOPPED,
};

struct lca_actor {
	/* Read by every sender, written almost never: a sender on another
	 * lcore reads this line only, and it stays in every reader's cache.
	 * Nothing its home lcore writes per turn may sit here. */
	struct rte_ring *mailbox;
	uint32_t life;       /* enum actor_life */
	uint32_t runq;       /* lcore whose run queue takes it, or LCA_LCORE_SHARED */
	unsigned int lcore;  /* home lcore */
	uint64_t rejected;   /* atomic: senders count full-mailbox refusals */

	/* 1 while the actor is in a run queue or running. Senders set it
	 * (0 -> 1) and schedule; the turn clears it when the mailbox is empty.
	 * Own cache line: it is written by other lcores. */
	uint32_t scheduled __rte_cache_aligned;

	/* Only the lcore running the actor touches these. */
	lca_handler_fn handler __rte_cache_aligned;
	void *state;
	lca_actor_id_t id;
	unsigned int throughput;
	uint32_t mailbox_hwm;
	uint64_t received;
	uint64_t handled;
	uint64_t send_failures;
	uint64_t dropped_on_stop;
	uint64_t deferred;
	uint64_t turns;
	uint64_t handler_cycles;
	uint64_t timed_msgs;
	char name[32];
} __rte_cache_aligned;

/* What the running handler on an lcore is: for from, and for freeing. */
struct actor_lcore {
	struct lca_actor *self;  /* running actor, or NULL */
	struct lca_msg *current; /* message being handled, until sent or kept */
} __rte_cache_aligned;

struct actor_table {
	struct lca_actor **actors;
	unsigned int max;
	uint32_t count; /* atomic: ids handed out */
};

extern struct actor_table lca_actors;
extern struct actor_lcore lca_actor_lcores[RTE_MAX_LCORE + 1];

static inline struct actor_lcore *
actor_lcore_here(void)
{
	unsigned int id = rte_lcore_id();

	return &lca_actor_lcores[id < RTE_MAX_LCORE ? id : RTE_MAX_LCORE];
}

static inline struct lca_actor *
actor_lookup(lca_actor_id_t id)
{
	if (unlikely(id >= __atomic_load_n(&lca_actors.count, __ATOMIC_ACQUIRE)))
		return NULL;
	return __atomic_load_n(&lca_actors.actors[id], __ATOMIC_ACQUIRE);
}

/*
 * Who may put a message into a mailbox, and so who schedules its actor:
 *
 * - an affinity actor's mailbox is filled only on its home lcore: by a
 *   send from that lcore, or by the home lcore's poll, which delivers what
 *   other lcores staged in channels and what other threads pushed into its
 *   inbox (lca_channel.c). So its `scheduled` flag and its lcore's run
 *   queue have one writer: plain loads and stores, no fence, no CAS;
 * - a shared actor's mailbox is filled by any thread, and any lcore runs
 *   it: the flag is taken with a CAS, and each side writes (mailbox tail or
 *   flag), fences, then reads the other's (actor_unschedule), so at least
 *   one sees the other and no message is left in an unscheduled mailbox.
 */
static inline bool
actor_is_shared(const struct lca_actor *a)
{
	return a->runq == LCA_LCORE_SHARED;
}

/* Make sure @p a, which has mail, is in a run queue. For an affinity actor,
 * only on its home lcore (or while the loops are not running). */
static inline void
actor_wake(struct lca_actor *a)
{
	uint32_t expected = 0;

	if (likely(!actor_is_shared(a))) {
		if (a->scheduled == 0) {
			a->scheduled = 1;
			lca_lcore_schedule(a->runq, a);
		}
		return;
	}
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&a->scheduled, __ATOMIC_RELAXED) != 0)
		return;
	if (__atomic_compare_exchange_n(&a->scheduled, &expected, 1, false, __ATOMIC_ACQ_REL,
					__ATOMIC_RELAXED))
		lca_lcore_schedule(a->runq, a);
}

/* Free every message waiting in a's mailbox; count them as dropped. */
void actor_drain(struct lca_actor *a);

/* Count a failed send: on the sending actor and in the runtime's causes. */
void send_failed(int err);

/* Zero the runtime-wide counters of failed sends (at runtime init). */
void lca_send_errors_reset(void);

/* Say whether the runtime is up to the telemetry commands (lca_telemetry.c). */
void telemetry_runtime_up(bool up);

/* Channels between lcores (lca_channel.c). */
int channels_init(unsigned int max_actors);
void channels_cleanup(void);
/* Copy @p m, sent by a handler on @p src_lcore to actor @p a homed on
 * another lcore, into their channel; 0, or -ENOBUFS when the channel is
 * full. On 0 the envelope @p m is the sender's to recycle. */
int channel_put(unsigned int src_lcore, const struct lca_actor *a, const struct lca_msg *m);
/* Push @p n messages for affinity actor @p a into its home lcore's inbox,
 * from any thread; returns how many fit. */
unsigned int inbox_push(const struct lca_actor *a, struct lca_msg **msgs, unsigned int n);
/* Ask @p a's home lcore to drain it: it was stopped from another thread. */
void stop_request(struct lca_actor *a);
/* The lcore poll function: deliver what other lcores and threads sent
 * this one. Also called by the main thread
 * for any lcore while the loops are not running. */
unsigned int channels_poll(unsigned int lcore_id);

#endif /* LCA_ACTOR_PRIV_H */
