/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Timers: rte_timer lists, one per lcore, managed by the actors' poll
 * while the lcore has timers armed (an idle lcore without timers pays one
 * load a loop). A timer is a slot of a table made at runtime init, handed
 * out by index with a generation, so a handle that outlived its timer
 * finds nothing instead of someone else's timer.
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
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_ring.h>
#include <rte_spinlock.h>
#include <rte_timer.h>

#include "lca_actor_priv.h"
#include "lca_control.h"
#include "lca_cycles.h"
#include "lca_eal.h"
#include "lca_timer.h"
#include "lca_trace.h"
#include "lca_logtypes.h"
#include "lca_refuse.h"
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

static struct {
	struct timer_slot *slots;
	unsigned int n;
	struct rte_ring *free; /* indices of free slots */
	uint32_t armed_on[RTE_MAX_LCORE]; /* atomic: timers on each lcore's list */
	uint64_t ran_on[RTE_MAX_LCORE];   /* callbacks each lcore ran (its own) */
	struct timer_slot *retired[RTE_MAX_LCORE]; /* ended in a callback of this manage */
	struct lca_timer_stats stats;     /* atomic fields */
	bool up;
} tm;

static inline lca_timer_id_t
make_id(unsigned int idx, uint32_t gen)
{
	return ((uint64_t)gen << 32) | (idx + 1);
}

static inline void
count(uint64_t *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

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
	__atomic_fetch_sub(&tm.stats.active, 1, __ATOMIC_RELAXED);
}

static void
slot_release(struct timer_slot *s)
{
	__atomic_fetch_sub(&tm.armed_on[s->lcore], 1, __ATOMIC_RELEASE);
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
	unsigned int lcore = rte_lcore_id();

	slot_end(s);
	s->next_retired = tm.retired[lcore];
	tm.retired[lcore] = s;
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
			count(&tm.stats.dropped);
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
		count(&tm.stats.retried);
		/* Re-arming a timer from its own callback is allowed. */
		rte_timer_reset(&s->tim, rte_get_timer_hz() / 1000000 * s->retry_us, SINGLE,
				s->lcore, timer_fire, s);
		s->retry_us = RTE_MIN(s->retry_us * 2, (uint32_t)RETRY_MAX_US);
		return;
	}
	if (err == 0) {
		count(&tm.stats.fired);
	} else {
		lca_msg_free(s->msg);
		count(&tm.stats.dropped);
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
		count(&tm.stats.missed);
		return true;
	}
	m->type = s->tmpl.type;
	m->len = s->tmpl.len;
	m->ptr = s->tmpl.ptr;
	memcpy(m->data, s->tmpl.data, RTE_MIN((unsigned int)s->tmpl.len, (unsigned int)LCA_MSG_INLINE));
	err = control_send_from(s->from, s->to, m);
	if (err == 0) {
		count(&tm.stats.ticks);
		return true;
	}
	lca_msg_free(m);
	if (err == -ENOBUFS || err == -ENOMEM) {
		count(&tm.stats.missed);
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
	tm.ran_on[s->lcore]++;
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
			count(&tm.stats.dropped);
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

/* Take a free slot and arm it on this lcore. */
static int
arm(enum slot_kind kind, lca_actor_id_t to, struct lca_msg *msg, const struct lca_msg *tmpl,
    uint64_t delay_us, lca_timer_id_t *id)
{
	unsigned int lcore = rte_lcore_id();
	uint64_t ticks;
	struct timer_slot *s;
	void *idx;

	if (!tm.up)
		return -ENOTSUP;
	if (lcore >= RTE_MAX_LCORE)
		return -EPERM;
	if (lca_cycles_of_us(delay_us, rte_get_timer_hz(), rte_get_timer_cycles(), &ticks) < 0)
		return -ERANGE;
	if (rte_ring_dequeue(tm.free, &idx) != 0)
		return -ENOSPC;
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
	__atomic_fetch_add(&tm.armed_on[lcore], 1, __ATOMIC_RELEASE);
	__atomic_fetch_add(&tm.stats.active, 1, __ATOMIC_RELAXED);
	count(&tm.stats.armed);
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
		count(&tm.stats.cancelled);
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

unsigned int
timers_poll(unsigned int lcore_id)
{
	uint64_t ran;

	if (likely(__atomic_load_n(&tm.armed_on[lcore_id], __ATOMIC_ACQUIRE) == 0))
		return 0;
	/* Armed timers that are not due are no work: the lcore may idle. */
	ran = tm.ran_on[lcore_id];
	rte_timer_manage();
	while (tm.retired[lcore_id] != NULL) {
		struct timer_slot *s = tm.retired[lcore_id];

		tm.retired[lcore_id] = s->next_retired;
		slot_release(s);
	}
	return (unsigned int)(tm.ran_on[lcore_id] - ran);
}

void
lca_timer_stats_get(struct lca_timer_stats *out)
{
	out->armed = __atomic_load_n(&tm.stats.armed, __ATOMIC_RELAXED);
	out->fired = __atomic_load_n(&tm.stats.fired, __ATOMIC_RELAXED);
	out->ticks = __atomic_load_n(&tm.stats.ticks, __ATOMIC_RELAXED);
	out->cancelled = __atomic_load_n(&tm.stats.cancelled, __ATOMIC_RELAXED);
	out->retried = __atomic_load_n(&tm.stats.retried, __ATOMIC_RELAXED);
	out->missed = __atomic_load_n(&tm.stats.missed, __ATOMIC_RELAXED);
	out->dropped = __atomic_load_n(&tm.stats.dropped, __ATOMIC_RELAXED);
	out->active = __atomic_load_n(&tm.stats.active, __ATOMIC_RELAXED);
}
