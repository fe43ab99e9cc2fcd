/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control lane: a second, small mailbox per actor that its turns empty
 * before the mailbox, for what must not wait behind a backed-up mailbox:
 * supervision notices, "terminated" messages, timers, a stop or a
 * reconfiguration from an operator (tonari-actor's control channel).
 *
 * It is made on the actor's node at its first control message (most actors
 * never get one), and every sender enqueues into it directly, by pointer,
 * from any thread: an RTS ring, so a preempted producer stalls no other.
 * Only the home lcore may schedule an affinity actor, so a sender elsewhere
 * asks the home with one CTL_WAKE through its control ring; the
 * control_wake flag keeps that to one in flight per actor, and the home
 * clears the flag before it looks at the lane, so a message that lands
 * after the look brings a wake of its own.
 *
 * Order: FIFO per sender within the lane; no order between the lane and
 * the mailbox, which is the point of it. During a migration a control
 * message waits for the hand-over (the old home owns the turn, the new one
 * gets the wake).
 */
#include <errno.h>
#include <stdio.h>

#include <rte_lcore.h>
#include <rte_ring.h>

#include "lca_actor_priv.h"
#include "lca_channel_priv.h"
#include "lca_control_priv.h"
#include "lca_mempool.h"
#include "lca_trace_priv.h"
#include "lca_route_priv.h"

/* The lane of @p a, made on its home's node at the first use. */
static struct rte_ring *
control_lane(struct lca_actor *a)
{
	struct rte_ring *r = __atomic_load_n(&a->control, __ATOMIC_ACQUIRE), *expected = NULL;
	char name[RTE_RING_NAMESIZE];

	if (likely(r != NULL))
		return r;
	r = lca_mempool_alloc_on_lcore("lca_control",
		rte_ring_get_memsize(rte_align32pow2(LCA_CONTROL_SIZE + 1)),
		__atomic_load_n(&a->lcore, __ATOMIC_ACQUIRE));
	if (r == NULL)
		return NULL;
	snprintf(name, sizeof(name), "lca_ctl_%u", a->id);
	if (rte_ring_init(r, name, LCA_CONTROL_SIZE,
			  RING_F_MP_RTS_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ) < 0) {
		lca_mempool_free(r);
		return NULL;
	}
	/* Two first senders at once: one ring wins, the other is freed. */
	if (!__atomic_compare_exchange_n(&a->control, &expected, r, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		lca_mempool_free(r);
		r = expected;
	}
	return r;
}

/* @p a has control mail: see that it gets a turn. */
static void
control_schedule(struct lca_actor *a)
{
	unsigned int home;

	if (actor_is_shared(a)) {
		actor_wake(a);
		return;
	}
	home = __atomic_load_n(&a->lcore, __ATOMIC_ACQUIRE);
	if (rte_lcore_id() == home && !a->moving) {
		actor_wake(a);
		return;
	}
	if (__atomic_exchange_n(&a->control_wake, 1, __ATOMIC_ACQ_REL) == 0)
		ctl_push(home, a, CTL_WAKE);
}

void
control_wake(struct lca_actor *a, unsigned int lcore_id)
{
	unsigned int home = __atomic_load_n(&a->lcore, __ATOMIC_ACQUIRE);

	/* Moved on since: the wake follows it. While it moves, the adopt
	 * looks at the lane. */
	if (home != lcore_id) {
		ctl_push(home, a, CTL_WAKE);
		return;
	}
	__atomic_store_n(&a->control_wake, 0, __ATOMIC_RELEASE);
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!a->moving && actor_has_control(a))
		actor_wake(a);
}

int
lca_send_control(lca_actor_id_t to, struct lca_msg *msg)
{
	return control_send_from(actor_self_id(), to, msg);
}

int
control_send_from(lca_actor_id_t from, lca_actor_id_t to, struct lca_msg *msg)
{
	struct lca_actor *a = actor_lookup(to);
	struct rte_ring *lane;
	int why = 0;

	if (unlikely(msg == NULL))
		return -EINVAL;
	if (unlikely(!envelope_sendable(msg)))
		return -EINVAL;
	if (a == NULL)
		why = -ESRCH;
	else if (__atomic_load_n(&a->life, __ATOMIC_ACQUIRE) != ACTOR_ALIVE)
		why = -EPIPE;
	else if ((lane = control_lane(a)) == NULL)
		why = -ENOMEM;
	if (why == 0) {
		msg->from = from;
		msg->to = to;
		msg->flags |= LCA_MSG_F_CONTROL;
		if (rte_ring_enqueue(lane, msg) != 0) {
			msg->flags &= (uint8_t)~LCA_MSG_F_CONTROL;
			__atomic_fetch_add(&a->rejected, 1, __ATOMIC_RELAXED);
			why = -ENOBUFS;
		} else {
			message_handed_over(msg);
			control_schedule(a);
			lca_trace_send(from, to, 1, 1, 0);
			return 0;
		}
	}
	lca_trace_send(from, to, 1, 0, why);
	send_failed(why);
	return why;
}
