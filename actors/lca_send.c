/* SPDX-License-Identifier: BSD-3-Clause */
/* Sends: the hot path between actors (envelopes are lca_msg.c's). */
#define LCA_LOG_PART lca_logtype_actor
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "lca_actor_priv.h"
#include "lca_balance_priv.h"
#include "lca_channel_priv.h"
#include "lca_eal.h"
#include "lca_mempool.h"
#include "lca_trace_priv.h"
#include "lca_logtypes_priv.h"
#include "lca_migrate_priv.h"
#include "lca_route_priv.h"
#include "lca_refuse_priv.h"
#include "lca_msg_priv.h"
#include "lca_send_priv.h"

static struct lca_send_errors send_errors;
remote_send_fn remote_send_hook;

/* The counter of cause @p err in @p e: one for every errno a send can
 * return (docs/wire.md names -EHOSTDOWN's), and `other` for the rest. */
static uint64_t *
cause_of(struct lca_send_errors *e, int err)
{
	switch (err) {
	case -ENOBUFS:
		return &e->mailbox_full;
	case -ESRCH:
		return &e->no_actor;
	case -EPIPE:
		return &e->stopped;
	case -ENOMEM:
		return &e->pool_empty;
	case -EHOSTDOWN:
		return &e->host_down;
	case -EMSGSIZE:
		return &e->too_big;
	case -EINVAL:
		return &e->invalid;
	default:
		return &e->other;
	}
}

/* Counters in struct lca_send_errors, all uint64_t. */
#define SEND_CAUSES (sizeof(struct lca_send_errors) / sizeof(uint64_t))

/* One rate limit per cause, so that a stream of full mailboxes does not
 * keep a dead node's line quiet. */
static struct lca_refuse_site send_sites[SEND_CAUSES];

void
send_failed(int err)
{
	struct actor_lcore *here = actor_lcore_here();
	uint64_t *cause = cause_of(&send_errors, err);
	bool load = cause == &send_errors.mailbox_full || cause == &send_errors.pool_empty;

	if (err == 0)
		return;
	if (here->self != NULL)
		here->self->send_failures++;
	__atomic_fetch_add(cause, 1, __ATOMIC_RELAXED);
	/* A full mailbox and an empty pool are load, which a sender meets and
	 * handles by design: a debug line. Anything else is news. Counted
	 * above, by cause: the note only logs. */
	lca_refuse_note(&send_sites[(size_t)((char *)cause - (char *)&send_errors) / sizeof(*cause)],
		       load ? RTE_LOG_DEBUG : RTE_LOG_NOTICE, LCA_LOG_PART, "a send",
		       here->self != NULL ? here->self->id : LCA_ACTOR_NONE, err);
}

void
lca_send_errors_get(struct lca_send_errors *out)
{
	out->mailbox_full = __atomic_load_n(&send_errors.mailbox_full, __ATOMIC_RELAXED);
	out->no_actor = __atomic_load_n(&send_errors.no_actor, __ATOMIC_RELAXED);
	out->stopped = __atomic_load_n(&send_errors.stopped, __ATOMIC_RELAXED);
	out->pool_empty = __atomic_load_n(&send_errors.pool_empty, __ATOMIC_RELAXED);
	out->misuse = __atomic_load_n(&send_errors.misuse, __ATOMIC_RELAXED);
	out->host_down = __atomic_load_n(&send_errors.host_down, __ATOMIC_RELAXED);
	out->too_big = __atomic_load_n(&send_errors.too_big, __ATOMIC_RELAXED);
	out->invalid = __atomic_load_n(&send_errors.invalid, __ATOMIC_RELAXED);
	out->other = __atomic_load_n(&send_errors.other, __ATOMIC_RELAXED);
	out->packet_misuse = __atomic_load_n(&send_errors.packet_misuse, __ATOMIC_RELAXED);
}

#ifdef LCA_DEBUG_ENVELOPES
void
envelope_misuse(const struct lca_msg *m, const char *what)
{
	__atomic_fetch_add(&send_errors.misuse, 1, __ATOMIC_RELAXED);
	LCA_LOG(ERR, "envelope %p on lcore %d: %s\n", (const void *)m, (int)rte_lcore_id(), what);
}

void
packet_misuse_count(void)
{
	__atomic_fetch_add(&send_errors.packet_misuse, 1, __ATOMIC_RELAXED);
}
#endif

void
lca_send_errors_reset(void)
{
	memset(&send_errors, 0, sizeof(send_errors));
}

/* Why @p a cannot take messages, or 0. */
static inline int
refusal(const struct lca_actor *a)
{
	if (unlikely(a == NULL))
		return -ESRCH;
	if (unlikely(__atomic_load_n(&a->life, __ATOMIC_ACQUIRE) != ACTOR_ALIVE))
		return -EPIPE;
	return 0;
}

/* How a message reaches a mailbox; see actor_wake() for why. */
enum route {
	ROUTE_DIRECT,  /* into the mailbox: a shared actor, or on its home lcore */
	ROUTE_CHANNEL, /* copied into a channel, from a handler of an affinity actor elsewhere */
	ROUTE_INBOX,   /* the home lcore's inbox: any other thread or sender */
};

/*
 * A sender always takes the same route to a given receiver, so its messages
 * to it stay in order: a shared actor changes lcore from turn to turn, so
 * it never sends direct or by channel to an affinity actor. @p home is the
 * receiver's home, read once: a migration may change it.
 */
static inline enum route
route_to(const struct actor_lcore *here, const struct lca_actor *a, unsigned int home,
	 unsigned int lcore_id)
{
	const struct lca_actor *self = here->self;
	bool shared_sender = self != NULL && actor_is_shared(self);

	if (actor_is_shared(a))
		return ROUTE_DIRECT;
	if (lcore_id == home && !shared_sender)
		return ROUTE_DIRECT;
	if (self != NULL && !shared_sender)
		return ROUTE_CHANNEL;
	/* Not in a handler, but on a runtime lcore's own thread (a loop hook,
	 * or the main thread between runs): that thread is its channels' one
	 * producer, so it takes them too, and a port's RX costs one line a
	 * packet instead of a multi-producer ring operation. */
	if (self == NULL && channel_from(lcore_id))
		return ROUTE_CHANNEL;
	return ROUTE_INBOX;
}

/* Who an affinity actor talks to, for traffic-aware placement: a count of
 * its sends within its lcore, and across lcores with one Misra-Gries
 * counter of the peer (see lca_balance.c). Its own lines only. */
static inline void
note_local(struct lca_actor *self, unsigned int sent)
{
	/* One writer each (its home lcore); the controller reads them. */
	__atomic_store_n(&self->local_sends, self->local_sends + sent, __ATOMIC_RELAXED);
}

static inline void
note_cross(struct lca_actor *self, lca_actor_id_t to, unsigned int sent)
{
	uint32_t count = self->peer_count;

	if (sent == 0)
		return;
	__atomic_store_n(&self->cross_sends, self->cross_sends + sent, __ATOMIC_RELAXED);
	if (self->peer == to) {
		if (count < PEER_COUNT_MAX)
			count++;
	} else if (count == 0) {
		__atomic_store_n(&self->peer, to, __ATOMIC_RELAXED);
		count = 1;
	} else {
		count--;
	}
	__atomic_store_n(&self->peer_count, count, __ATOMIC_RELAXED);
}


/* A send that missed the local table: a remote reference goes to the remote
 * part (actors/remote), anything else is no actor. Out of line, so that the
 * hot path keeps its registers. */
static __rte_noinline __rte_cold unsigned int
send_not_local(lca_actor_id_t from, lca_actor_id_t to, struct lca_msg **msgs, unsigned int n,
	       int *err)
{
	if (to >= LCA_ACTOR_REMOTE_BASE && remote_send_hook != NULL)
		return remote_send_hook(from, to, msgs, n, err);
	send_failed(-ESRCH);
	if (err != NULL)
		*err = -ESRCH;
	return 0;
}

/* The direct route: into the mailbox of @p a, a shared actor or one of
 * this lcore, or with @p rtc straight into its handler when it is idle
 * and may take it now. @return how many went. */
static __rte_always_inline unsigned int
send_direct(struct actor_lcore *here, struct lca_actor *a, struct lca_msg **msgs, unsigned int n,
	    bool rtc)
{
	unsigned int sent;

	if (rtc && actor_direct_here() && actor_can_take_direct(a, n)) {
		/* Nothing of its waits and it is idle: no mailbox, no run
		 * queue (as a channel's drain). */
		actor_turn_direct(a, msgs, n);
		return n;
	}
	/* A single send only: a burst's sender streams through its envelopes
	 * already, its receiver takes the burst in one turn (a batch handler
	 * prefetches ahead itself), and a look at every envelope would tax
	 * bursts that carry no pointer. */
	if (n == 1)
		msg_prefetch_payload(msgs[0]);
	/* An affinity actor's mailbox is single-producer (its home fills it):
	 * no look at the ring's sync type. */
	sent = likely(!actor_is_shared(a)) ? mailbox_put_here(a, msgs, n) :
		rte_ring_enqueue_burst(a->mailbox, (void **)msgs, n, NULL);
	if (sent > 0)
		actor_wake(a);
	if (unlikely(balance_watching) && here->self != NULL && !actor_is_shared(here->self))
		note_local(here->self, sent);
	return sent;
}

/* @p msgs[0..n), stamped, to @p a (alive, @p to) by the route this thread
 * takes to it. @return how many went; the rest are still the caller's. */
static __rte_always_inline unsigned int
send_routed(struct actor_lcore *here, struct lca_actor *a, lca_actor_id_t to,
	    struct lca_msg **msgs, unsigned int n, bool rtc)
{
	unsigned int sent = 0, home = __atomic_load_n(&a->lcore, __ATOMIC_ACQUIRE);
	unsigned int lcore_id = rte_lcore_id();

	switch (route_to(here, a, home, lcore_id)) {
	case ROUTE_DIRECT:
		sent = send_direct(here, a, msgs, n, rtc);
		break;
	case ROUTE_CHANNEL:
		/* handed_over() below only compares pointers: it may run after
		 * the envelopes went back to the pool. */
		sent = channel_send(lcore_id, home, msgs, n);
		if (unlikely(balance_watching) && here->self != NULL)
			note_cross(here->self, to, sent);
		break;
	case ROUTE_INBOX:
		sent = inbox_push(a, msgs, n);
		break;
	}
	handed_over(here, msgs, sent);
	/* Refused for want of room on any route: the receiver counts it too,
	 * so its stats show the pressure it is under. */
	if (unlikely(sent < n))
		__atomic_fetch_add(&a->rejected, n - sent, __ATOMIC_RELAXED);
	return sent;
}

/* The send from @p here, the calling lcore's (actor_lcore_here()), to
 * @p a, the actor @p to names here (NULL: none, or a remote one): every
 * public send comes down to this one. @p rtc: run an idle receiver's
 * handler on the burst now, where it may (lca_send_burst_rtc()). */
static __rte_always_inline unsigned int
send_burst_to(struct actor_lcore *here, struct lca_actor *a, lca_actor_id_t from,
	      lca_actor_id_t to, struct lca_msg **msgs, unsigned int n, int *err, bool rtc)
{
	unsigned int sent = 0;
	int why;

	if (unlikely(a == NULL))
		return send_not_local(from, to, msgs, n, err);
	why = refusal(a);
	for (unsigned int i = 0; why == 0 && i < n; i++)
		if (unlikely(!envelope_sendable(msgs[i])))
			why = -EINVAL;
	if (likely(why == 0 && n > 0)) {
#pragma GCC unroll 4
		for (unsigned int i = 0; i < n; i++) {
			msgs[i]->from = from;
			msgs[i]->to = to;
			msgs[i]->flags &= (uint8_t)~LCA_MSG_F_CONTROL;
		}
		if (unlikely(here->self != NULL && here->self->settling)) {
			/* It has just moved: its older sends may still be on
			 * their way (lca_migrate.c, "settle"). */
			sent = settle_hold(here->self, msgs, n);
			handed_over(here, msgs, sent);
		} else {
			sent = send_routed(here, a, to, msgs, n, rtc);
		}
		if (sent < n)
			why = -ENOBUFS;
	}
	lca_trace_send(from, to, n, sent, why);
	if (unlikely(why != 0))
		send_failed(why);
	if (err != NULL)
		*err = why;
	return sent;
}

static __rte_always_inline unsigned int
send_burst_here(struct actor_lcore *here, lca_actor_id_t from, lca_actor_id_t to,
		struct lca_msg **msgs, unsigned int n, int *err, bool rtc)
{
	return send_burst_to(here, actor_lookup(to), from, to, msgs, n, err, rtc);
}

static inline lca_actor_id_t
self_id(const struct actor_lcore *here)
{
	const struct lca_actor *self = here->self;

	return self != NULL ? self->id : LCA_ACTOR_NONE;
}

unsigned int
lca_send_burst(lca_actor_id_t to, struct lca_msg **msgs, unsigned int n, int *err)
{
	struct actor_lcore *here = actor_lcore_here();

	return send_burst_here(here, self_id(here), to, msgs, n, err, false);
}

unsigned int
lca_send_burst_rtc(lca_actor_id_t to, struct lca_msg **msgs, unsigned int n, int *err)
{
	struct actor_lcore *here = actor_lcore_here();

	return send_burst_here(here, self_id(here), to, msgs, n, err, true);
}

unsigned int
send_burst_from(lca_actor_id_t from, lca_actor_id_t to, struct lca_msg **msgs, unsigned int n,
		bool rtc, int *err)
{
	return send_burst_here(actor_lcore_here(), from, to, msgs, n, err, rtc);
}

/*
 * The light local send: one message to an affinity actor whose home and
 * run queue are the calling lcore's, that is not moving, from a thread
 * that takes the direct route to it (not a shared actor, not one whose
 * older sends may still be on their way). None of the general send's route
 * choice, burst loops or wake: an idle receiver (not scheduled, so its
 * mailbox is empty) gets the envelope in its `first`, which its next turn
 * takes before its mailbox, and goes on this lcore's run queue, with no
 * mailbox operation on either side; a scheduled one gets it in its
 * mailbox, behind `first`, so order holds.
 * @return whether it was sent so; if not, nothing was done and the
 * general send takes it, with all its checks and counts (a refusal or a
 * full mailbox among them), unless *@p refused says why it was refused
 * here (a debug build's envelope check, which counts as it looks).
 */
static __rte_always_inline bool
send_local_light(struct actor_lcore *here, struct lca_actor *a, lca_actor_id_t from,
		 lca_actor_id_t to, struct lca_msg *msg, int *refused)
{
	struct lca_actor *self = here->self;
	const unsigned int lcore_id = rte_lcore_id();

	/* runq == this lcore: an affinity actor whose run queue is here (the
	 * first look, where a send across lcores leaves at once). */
	if (__atomic_load_n(&a->runq, __ATOMIC_RELAXED) != lcore_id ||
	    __atomic_load_n(&a->lcore, __ATOMIC_ACQUIRE) != lcore_id || a->moving ||
	    (self != NULL && (self->settling || actor_is_shared(self))) ||
	    unlikely(refusal(a) != 0))
		return false;
	/* A debug build's check counts the misuse: made once, here. */
	if (unlikely(!envelope_sendable(msg))) {
		*refused = -EINVAL;
		return false;
	}
	msg->from = from;
	msg->to = to;
	msg->flags &= (uint8_t)~LCA_MSG_F_CONTROL;
	if (a->scheduled == 0) {
		msg_prefetch_payload(msg);
		__atomic_store_n(&a->first, msg, __ATOMIC_RELAXED);
		a->scheduled = 1;
		lca_lcore_schedule(lcore_id, a);
	} else if (unlikely(mailbox_put_here(a, &msg, 1) == 0)) {
		return false;
	}
	if (here->current == msg)
		here->current = NULL;
	if (unlikely(balance_watching) && self != NULL)
		note_local(self, 1);
	lca_trace_send(from, to, 1, 1, 0);
	return true;
}

/* One message from @p here: the public single sends. The light route and
 * the general one in one frame: out of line, each in a frame of its own,
 * a send across lcores paid 30 instructions more (the second frame and the
 * look-ups again) and a local one 20 more (bench_msgpath under callgrind). */
static __rte_always_inline int
send_one_here(struct actor_lcore *here, lca_actor_id_t from, lca_actor_id_t to,
	      struct lca_msg *msg)
{
	struct lca_actor *a;
	int err = 0;

	if (unlikely(msg == NULL))
		return -EINVAL;
	a = actor_lookup(to);
	if (likely(a != NULL) && send_local_light(here, a, from, to, msg, &err))
		return 0;
	if (unlikely(err != 0)) { /* refused by the light route's own check */
		lca_trace_send(from, to, 1, 0, err);
		send_failed(err);
		return err;
	}
	send_burst_to(here, a, from, to, &msg, 1, &err, false);
	return err;
}

int
lca_send_from(lca_actor_id_t from, lca_actor_id_t to, struct lca_msg *msg)
{
	return send_one_here(actor_lcore_here(), from, to, msg);
}

int
lca_send(lca_actor_id_t to, struct lca_msg *msg)
{
	struct actor_lcore *here = actor_lcore_here();

	return send_one_here(here, self_id(here), to, msg);
}

int
lca_reply(struct lca_msg *msg)
{
	struct actor_lcore *here;

	if (unlikely(msg == NULL))
		return -EINVAL;
	if (unlikely(msg->flags & LCA_MSG_F_ASK)) /* services: an ask's reply (lca_ask.c) */
		return lca_ask_reply(msg, msg);
	here = actor_lcore_here();
	return send_one_here(here, self_id(here), msg->from, msg);
}
