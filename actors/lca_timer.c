/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Timers: rte_timer lists, one per lcore, managed by the actors' poll
 * while the lcore has timers armed (an idle lcore without timers pays one
 * load a loop). A timer is a slot of a table made at runtime init, handed
 * out by index with a generation, so a handle that outlived its timer
 * finds nothing instead of someone else's timer.
 *
 * What an lcore's fires write (counters, the retired list, the count of
 * its armed timers) is on lines of its own (struct timer_lcore, struct
 * timer_counts), so that two lcores firing timers do not pass lines to and
 * fro.
 *
 * A slot whose timer ended in its own callback is not reused until
 * rte_timer_manage() has returned: until then rte_timer holds it RUNNING,
 * and an rte_timer_reset() of it from another lcore would fail. So a
 * callback retires the slot to its lcore's list, and timers_poll() frees
 * the list after the manage.
 *
 * Cancel and fire meet on the slot's lock. A cancel that finds the
 * callback running on another lcore (rte_timer_stop() fails) marks the
 * slot cancelled and leaves; the callback, which takes the lock first
 * thing, sees the mark and finishes the cancel itself. The lock is never
 * held while waiting for the other side, so neither waits on the other.
 */
#define LCA_LOG_PART lca_logtype_timer
/* rte_timer_next_ticks() is experimental in DPDK 22.11 (the build defines
 * this already unless tracepoints are off). */
#ifndef ALLOW_EXPERIMENTAL_API
#define ALLOW_EXPERIMENTAL_API
#endif
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_ring.h>
#include <rte_spinlock.h>
#include <rte_timer.h>

#include "lca_actor_priv.h"
#include "lca_control_priv.h"
#include "lca_cycles_priv.h"
#include "lca_eal.h"
#include "lca_lcore.h"
#include "lca_timer.h"
#include "lca_trace_priv.h"
#include "lca_logtypes_priv.h"
#include "lca_refuse_priv.h"
#include "lca_timer_priv.h"

#define RETRY_MIN_US 10   /* a one-shot's first try again when the lane was full, */
#define RETRY_MAX_US 1000 /* doubled up to this, so a full lane is no storm */

static void timer_fire(struct rte_timer *tim, void *arg);

enum slot_kind {
	SLOT_ONCE,  /* msg, once */
	SLOT_EVERY, /* a copy of tmpl, each period */
	SLOT_WAKE,  /* no message: put the actor back in its run queue */
};

struct timer_slot {
	struct rte_timer tim;
	rte_spinlock_t lock;
	uint32_t gen;       /* bumped when the slot is freed; atomic */
	bool armed;         /* under lock */
	bool cancelled;     /* under lock: finish the cancel at the callback */
	enum slot_kind kind;
	unsigned int lcore; /* whose list holds it */
	lca_actor_id_t to;
	lca_actor_id_t from;
	struct lca_msg *msg;  /* SLOT_ONCE */
	uint32_t retry_us;    /* SLOT_ONCE: its next try when the lane is full */
	struct timer_slot *next_retired;
	struct lca_msg tmpl;  /* SLOT_EVERY */
} __rte_cache_aligned;

/* What one thread's timer calls counted: an lcore's entry written by that
 * lcore, the last entry of tm.counts by threads without an lcore id (they
 * may cancel). Summed by lca_timer_stats_get(); active = armed - ended. */
struct timer_counts {
	uint64_t armed;
	uint64_t fired;
	uint64_t ticks;
	uint64_t cancelled;
	uint64_t retried;
	uint64_t missed;
	uint64_t dropped;
	uint64_t ended; /* timers over: fired, cancelled or dropped */
} __rte_cache_aligned;

/* One lcore's list: how many timers it holds (written by whichever lcore
 * arms one there and by this one as they end), and the callbacks this
 * lcore ran and the slots they retired (its own). */
struct timer_lcore {
	uint32_t armed; /* atomic */
	uint64_t ran;
	struct timer_slot *retired; /* ended in a callback of this manage */
} __rte_cache_aligned;

static struct {
	struct timer_slot *slots;
	unsigned int n;
	struct rte_ring *free; /* indices of free slots */
	struct timer_lcore on[RTE_MAX_LCORE];
	struct timer_counts counts[RTE_MAX_LCORE + 1];
	bool up;
} tm;

static inline lca_timer_id_t
make_id(unsigned int idx, uint32_t gen)
{
	return ((uint64_t)gen << 32) | (idx + 1);
}

/* The calling thread's counters. */
static inline struct timer_counts *
counts_here(void)
{
	unsigned int lcore = rte_lcore_id();

	return &tm.counts[lcore < RTE_MAX_LCORE ? lcore : RTE_MAX_LCORE];
}

/* Atomic, relaxed: the last entry has several writers, and any thread may
 * read the counters while the loops run. */
#define COUNT(field) __atomic_fetch_add(&counts_here()->field, 1, __ATOMIC_RELAXED)

int
timers_init(unsigned int max_timers)
{
	int ret = rte_timer_subsystem_init();

	if (ret < 0 && ret != -EALREADY)
		return ret;
	memset(&tm, 0, sizeof(tm));
	tm.n = max_timers;
	tm.slots = rte_zmalloc("lca_timers", sizeof(*tm.slots) * tm.n, RTE_CACHE_LINE_SIZE);
	tm.free = rte_ring_create("lca_timers_free", tm.n, SOCKET_ID_ANY, RING_F_EXACT_SZ);
	if (tm.slots == NULL || tm.free == NULL) {
		timers_cleanup();
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < tm.n; i++) {
		rte_timer_init(&tm.slots[i].tim);
		rte_spinlock_init(&tm.slots[i].lock);
		rte_ring_enqueue(tm.free, (void *)(uintptr_t)i);
	}
	tm.up = true;
	return 0;
}

/* The timer is over: its handle finds nothing from now on. Under the
 * slot's lock. */
static void
slot_end(struct timer_slot *s)
{
	s->armed = false;
	s->cancelled = false;
	s->msg = NULL;
	__atomic_fetch_add(&s->gen, 1, __ATOMIC_RELEASE);
	COUNT(ended);
}

static void
slot_release(struct timer_slot *s)
{
	__atomic_fetch_sub(&tm.on[s->lcore].armed, 1, __ATOMIC_RELEASE);
	rte_ring_enqueue(tm.free, (void *)(uintptr_t)(s - tm.slots));
}

/* Ended by a cancel, its rte_timer stopped: reusable at once. */
static void
slot_free(struct timer_slot *s)
{
	slot_end(s);
	slot_release(s);
}

/* Ended in its own callback: reusable once rte_timer_manage() returns. */
static void
slot_retire(struct timer_slot *s)
{
	struct timer_lcore *on = &tm.on[rte_lcore_id()];

	slot_end(s);
	s->next_retired = on->retired;
	on->retired = s;
}

void
timers_cleanup(void)
{
	for (unsigned int i = 0; tm.slots != NULL && i < tm.n; i++) {
		struct timer_slot *s = &tm.slots[i];

		if (!s->armed)
			continue;
		rte_timer_stop(&s->tim);
		if (s->kind == SLOT_ONCE) {
			lca_msg_free(s->msg);
			COUNT(dropped);
		}
	}
	rte_free(tm.slots);
	rte_ring_free(tm.free);
	memset(&tm, 0, sizeof(tm));
}

/* A one-shot's delivery; under the lock. */
static void
fire_once(struct timer_slot *s)
{
	int err = control_send_from(s->from, s->to, s->msg);

	if (err == -ENOBUFS || err == -ENOMEM) {
		COUNT(retried);
		/* Re-arming a timer from its own callback is allowed. */
		rte_timer_reset(&s->tim, rte_get_timer_hz() / 1000000 * s->retry_us, SINGLE,
				s->lcore, timer_fire, s);
		s->retry_us = RTE_MIN(s->retry_us * 2, (uint32_t)RETRY_MAX_US);
		return;
	}
	if (err == 0) {
		COUNT(fired);
	} else {
		lca_msg_free(s->msg);
		COUNT(dropped);
	}
	slot_retire(s);
}

/* A periodic tick; under the lock. @return false once the actor is gone. */
static bool
fire_every(struct timer_slot *s)
{
	struct lca_msg *m;
	int err;

	if (lca_msg_alloc(&m) != 0) {
		COUNT(missed);
		return true;
	}
	m->type = s->tmpl.type;
	m->len = s->tmpl.len;
	m->ptr = s->tmpl.ptr;
	memcpy(m->data, s->tmpl.data, RTE_MIN((unsigned int)s->tmpl.len, (unsigned int)LCA_MSG_INLINE));
	err = control_send_from(s->from, s->to, m);
	if (err == 0) {
		COUNT(ticks);
		return true;
	}
	lca_msg_free(m);
	if (err == -ENOBUFS || err == -ENOMEM) {
		COUNT(missed);
		return true;
	}
	return false;
}

static void
timer_fire(struct rte_timer *tim, void *arg)
{
	struct timer_slot *s = arg;
	struct lca_actor *a;

	(void)tim;
	tm.on[s->lcore].ran++;
	lca_trace_timer_fire(s->to, s->lcore, s->kind);
	rte_spinlock_lock(&s->lock);
	if (s->cancelled) {
		rte_timer_stop(&s->tim); /* a periodic one: allowed in its callback */
		if (s->kind == SLOT_ONCE)
			lca_msg_free(s->msg);
		slot_retire(s);
	} else if (s->kind == SLOT_ONCE) {
		fire_once(s);
	} else if (s->kind == SLOT_EVERY) {
		if (!fire_every(s)) {
			rte_timer_stop(&s->tim);
			COUNT(dropped);
			slot_retire(s);
		}
	} else {
		/* The lcore that paused it (its turn ran there) owns its
		 * flag, even if a migration switched its home meanwhile. */
		a = actor_lookup(s->to);
		if (a != NULL)
			lca_lcore_schedule(actor_is_shared(a) ? LCA_LCORE_SHARED : s->lcore, a);
		slot_retire(s);
	}
	rte_spinlock_unlock(&s->lock);
}

/*
 * Whose list a timer for @p to goes on: its home lcore's, where its
 * message is received, so that the fire hands the message to the
 * receiver's turn in the same loop iteration instead of sending it across
 * to another lcore's. A shared receiver has no home, and a wake-up stays
 * with @p here, the lcore that paused the actor and holds its flag. A
 * receiver that moves after this fires on its old home, and its message
 * follows it as any control message does.
 */
static unsigned int
fire_lcore(enum slot_kind kind, lca_actor_id_t to, unsigned int here)
{
	const struct lca_actor *a;
	unsigned int home;

	if (kind == SLOT_WAKE)
		return here;
	a = actor_lookup(to);
	if (a == NULL || actor_is_shared(a))
		return here;
	home = __atomic_load_n(&a->lcore, __ATOMIC_ACQUIRE);
	return home < RTE_MAX_LCORE ? home : here;
}

/* @p ticks from @p t0, counted from now: rte_timer_reset() counts from its
 * own clock read, after the arm's work, which a one-shot's delay includes. */
static inline uint64_t
ticks_left(uint64_t ticks, uint64_t t0)
{
	uint64_t spent = rte_get_timer_cycles() - t0;

	return ticks > spent ? ticks - spent : 0;
}

/* Take a free slot and arm it on fire_lcore()'s list. */
static int
arm(enum slot_kind kind, lca_actor_id_t to, struct lca_msg *msg, const struct lca_msg *tmpl,
    uint64_t delay_us, lca_timer_id_t *id)
{
	unsigned int lcore = rte_lcore_id();
	uint64_t ticks, due, t0 = rte_get_timer_cycles();
	struct timer_slot *s;
	void *idx;

	if (!tm.up)
		return -ENOTSUP;
	if (lcore >= RTE_MAX_LCORE)
		return -EPERM;
	if (lca_cycles_of_us(delay_us, rte_get_timer_hz(), t0, &ticks) < 0)
		return -ERANGE;
	if (rte_ring_dequeue(tm.free, &idx) != 0)
		return -ENOSPC;
	lcore = fire_lcore(kind, to, lcore);
	s = &tm.slots[(uintptr_t)idx];
	rte_spinlock_lock(&s->lock);
	s->kind = kind;
	s->lcore = lcore;
	s->to = to;
	s->from = actor_self_id();
	s->msg = msg;
	if (tmpl != NULL)
		s->tmpl = *tmpl;
	s->retry_us = RETRY_MIN_US;
	due = t0 + ticks;
	/* A period stays whole: rte_timer takes it from the same ticks. */
	if (kind != SLOT_EVERY)
		ticks = ticks_left(ticks, t0);
	if (rte_timer_reset(&s->tim, ticks, kind == SLOT_EVERY ? PERIODICAL : SINGLE, lcore,
			    timer_fire, s) != 0) {
		/* Cannot happen while retired slots wait for their manage to
		 * end; if it does, say so rather than lose the timer. */
		rte_spinlock_unlock(&s->lock);
		rte_ring_enqueue(tm.free, idx);
		LCA_LOG(ERR, "timer slot %u: rte_timer_reset refused\n", (unsigned int)(uintptr_t)idx);
		return -EBUSY;
	}
	s->armed = true;
	s->cancelled = false;
	__atomic_fetch_add(&tm.on[lcore].armed, 1, __ATOMIC_RELEASE);
	/* Its lcore's burst of turns ends when it is due (no later than its
	 * expiry: rte_timer's clock read came after t0). */
	lca_lcore_due_lower(lcore, due);
	COUNT(armed);
	if (id != NULL)
		*id = make_id((unsigned int)(uintptr_t)idx, __atomic_load_n(&s->gen, __ATOMIC_RELAXED));
	rte_spinlock_unlock(&s->lock);
	LCA_LOG(DEBUG, "timer %u armed on lcore %u for actor %u: %s in %" PRIu64 " us\n",
		(unsigned int)(uintptr_t)idx, lcore, to,
		kind == SLOT_ONCE ? "once" : kind == SLOT_EVERY ? "every period" : "wake-up",
		delay_us);
	return 0;
}

/* Why @p to cannot get a timer's messages, or 0. */
static int
receiver_refusal(lca_actor_id_t to)
{
	const struct lca_actor *a = actor_lookup(to);

	if (a == NULL)
		return -ESRCH;
	if (__atomic_load_n(&a->life, __ATOMIC_ACQUIRE) != ACTOR_ALIVE)
		return -EPIPE;
	return 0;
}

int
lca_send_after(lca_actor_id_t to, struct lca_msg *msg, uint64_t delay_us, lca_timer_id_t *id)
{
	int err;

	if (msg == NULL || !envelope_sendable(msg))
		return LCA_REFUSED(NOTICE, "lca_send_after", to, -EINVAL);
	err = receiver_refusal(to);
	if (err == 0)
		err = arm(SLOT_ONCE, to, msg, NULL, delay_us, id);
	if (err == 0)
		message_handed_over(msg);
	else
		LCA_REFUSED(NOTICE, "lca_send_after", to, err);
	return err;
}

int
lca_send_every(lca_actor_id_t to, const struct lca_msg *tmpl, uint64_t period_us,
	       lca_timer_id_t *id)
{
	int err;

	if (tmpl == NULL || period_us == 0 || (tmpl->flags & LCA_MSG_F_MBUF))
		return LCA_REFUSED(NOTICE, "lca_send_every", to, -EINVAL);
	err = receiver_refusal(to);
	if (err == 0)
		err = arm(SLOT_EVERY, to, NULL, tmpl, period_us, id);
	return err < 0 ? LCA_REFUSED(NOTICE, "lca_send_every", to, err) : 0;
}

int
timer_wake_after(struct lca_actor *a, uint64_t delay_us)
{
	return arm(SLOT_WAKE, a->id, NULL, NULL, delay_us, NULL);
}

int
lca_timer_cancel(lca_timer_id_t id)
{
	unsigned int idx = (unsigned int)(id & UINT32_MAX);
	struct timer_slot *s;
	int ret = -ENOENT;

	if (!tm.up || idx == 0 || idx > tm.n)
		return -ENOENT;
	s = &tm.slots[idx - 1];
	rte_spinlock_lock(&s->lock);
	if (s->armed && !s->cancelled && s->kind != SLOT_WAKE &&
	    __atomic_load_n(&s->gen, __ATOMIC_ACQUIRE) == (uint32_t)(id >> 32)) {
		ret = 0;
		COUNT(cancelled);
		LCA_LOG(DEBUG, "timer %u for actor %u cancelled\n", idx - 1, s->to);
		if (rte_timer_stop(&s->tim) == 0) {
			if (s->kind == SLOT_ONCE)
				lca_msg_free(s->msg);
			slot_free(s);
		} else {
			s->cancelled = true; /* running elsewhere: it finishes this */
		}
	}
	rte_spinlock_unlock(&s->lock);
	return ret;
}

/* Tell this lcore's loop when its next timer is due, so that a burst of
 * turns then running ends there (lca_lcore_due_lower()). A lock and a
 * clock read, paid once the loop has used the last due time up (it forgets
 * one when it cuts a burst for it), not after each fire: a fired timer's
 * due time, past, stays until the next burst uses it, so that nothing is
 * paid between a fire and its message's turn, and an idle loop (which
 * cuts no burst) pays nothing at all. */
static void
due_next(unsigned int lcore_id)
{
	uint64_t now = rte_get_timer_cycles();
	int64_t left;

	lca_lcore_due_clear(lcore_id);
	left = rte_timer_next_ticks();
	if (left >= 0)
		lca_lcore_due_lower(lcore_id, now + (uint64_t)left);
}

/* The manage of an lcore with timers armed, apart from timers_poll() so
 * that a loop with none pays no register saves for it. */
static __rte_noinline unsigned int
timers_manage(struct timer_lcore *on, unsigned int lcore_id)
{
	uint64_t ran = on->ran;

	/* Armed timers that are not due are no work: the lcore may idle. */
	rte_timer_manage();
	while (on->retired != NULL) {
		struct timer_slot *s = on->retired;

		on->retired = s->next_retired;
		slot_release(s);
	}
	if (lca_lcore_due(lcore_id) == UINT64_MAX)
		due_next(lcore_id);
	return (unsigned int)(on->ran - ran);
}

unsigned int
timers_poll(unsigned int lcore_id)
{
	struct timer_lcore *on = &tm.on[lcore_id];

	if (likely(__atomic_load_n(&on->armed, __ATOMIC_ACQUIRE) == 0))
		return 0;
	return timers_manage(on, lcore_id);
}

/* The sum of every thread's @p field. */
static uint64_t
counts_sum(size_t field)
{
	uint64_t sum = 0;

	for (unsigned int i = 0; i < RTE_DIM(tm.counts); i++)
		sum += __atomic_load_n((uint64_t *)((char *)&tm.counts[i] + field),
				       __ATOMIC_ACQUIRE);
	return sum;
}

void
lca_timer_stats_get(struct lca_timer_stats *out)
{
	/* The ends first: every timer counted as ended then was counted as
	 * armed before it, so active cannot read below zero. */
	uint64_t ended = counts_sum(offsetof(struct timer_counts, ended));

	out->armed = counts_sum(offsetof(struct timer_counts, armed));
	out->fired = counts_sum(offsetof(struct timer_counts, fired));
	out->ticks = counts_sum(offsetof(struct timer_counts, ticks));
	out->cancelled = counts_sum(offsetof(struct timer_counts, cancelled));
	out->retried = counts_sum(offsetof(struct timer_counts, retried));
	out->missed = counts_sum(offsetof(struct timer_counts, missed));
	out->dropped = counts_sum(offsetof(struct timer_counts, dropped));
	out->active = (uint32_t)(out->armed > ended ? out->armed - ended : 0);
}
