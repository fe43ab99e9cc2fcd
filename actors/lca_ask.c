/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ask with a timeout: a request that wants one reply within a time, or a
 * LCA_TYPE_TIMEOUT notice on the asker's control lane instead (Akka's ask,
 * Orleans' response timeout).
 *
 * Each asker has a table of LCA_ASK_PENDING_MAX slots, made at its first
 * ask, or of as many as lca_ask_pending_max_set() asked for before it. A
 * request id names its asker (high 32 bits), a sequence number and its
 * slot (the low log2(slots) bits), so a reply finds its slot in one look and a reply
 * to an ask that is over (timed out, or a slot used again since) does not
 * match. The timeout is a one-shot timer carrying the notice; whichever of
 * reply and notice reaches the asker's turn first ends the ask and is
 * given to the handler, and the other is dropped there: a late reply is
 * counted, a notice whose cancel lost the race is not (it is no event).
 *
 * A table is touched by lca_ask() (the asker's handler, or another thread
 * asking on its behalf) and by the asker's turns: a spinlock, never
 * contended in the usual case of a handler that asks.
 */
#define LCA_LOG_PART lca_logtype_actor
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_spinlock.h>

#include "lca_actor_priv.h"
#include "lca_ask_priv.h"
#include "lca_refuse_priv.h"
#include "lca_timer.h"

#define REQ_ID_OFF LCA_MSG_INLINE_ASK
/* The most slot bits: 2^20 asks between two uses of one id in one slot. */
_Static_assert(LCA_ASK_PENDING_LIMIT <= 1u << 12, "a slot index leaves the sequence 20 bits");
_Static_assert(LCA_ASK_PENDING_MAX <= LCA_ASK_PENDING_LIMIT, "the default is within the limit");
_Static_assert(REQ_ID_OFF + 8 <= LCA_MSG_INLINE_WITH_DEADLINE, "the id leaves the deadline free");
_Static_assert(sizeof(struct lca_timeout) <= LCA_MSG_INLINE_ASK, "a notice fits beside its id");

struct ask_slot {
	uint64_t req_id; /* 0: free */
	lca_timer_id_t timer;
};

/* An asker's slots, with a stack of the free ones: taking a slot costs
 * the same with 4096 as with 64. */
struct ask_table {
	rte_spinlock_t lock;
	uint32_t seq;
	uint32_t waiting;
	uint32_t mask;       /* slots - 1 */
	uint32_t slot_bits;  /* log2(slots) */
	uint32_t n_free;
	uint16_t *free;      /* n_free indexes of free slots, after slots[] */
	struct ask_slot slots[];
};

bool asks_used;

static struct {
	struct ask_table **tables; /* by actor id; atomic: made at the first ask */
	unsigned int max;
	struct lca_ask_stats st;  /* atomic, all of it */
} asks;

static void
count(uint64_t *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

int
asks_init(unsigned int max_actors)
{
	asks.tables = rte_zmalloc("lca_asks", sizeof(*asks.tables) * max_actors, 0);
	if (asks.tables == NULL)
		return -ENOMEM;
	asks.max = max_actors;
	memset(&asks.st, 0, sizeof(asks.st));
	return 0;
}

void
asks_cleanup(void)
{
	for (unsigned int i = 0; asks.tables != NULL && i < asks.max; i++)
		rte_free(asks.tables[i]);
	rte_free(asks.tables);
	asks.tables = NULL;
	asks.max = 0;
	__atomic_store_n(&asks_used, false, __ATOMIC_RELAXED);
}

static uint64_t
msg_id_read(const struct lca_msg *m)
{
	uint64_t id;

	memcpy(&id, &m->data[REQ_ID_OFF], sizeof(id));
	return id;
}

static void
msg_id_write(struct lca_msg *m, uint64_t id)
{
	memcpy(&m->data[REQ_ID_OFF], &id, sizeof(id));
}

uint64_t
lca_msg_req_id(const struct lca_msg *msg)
{
	if (msg == NULL || !(msg->flags & (LCA_MSG_F_ASK | LCA_MSG_F_REPLY)))
		return 0;
	return msg_id_read(msg);
}

static struct ask_table *
table_of(lca_actor_id_t self)
{
	return self < asks.max ? __atomic_load_n(&asks.tables[self], __ATOMIC_ACQUIRE) : NULL;
}

/* A table of @p slots (a power of two) on @p self's socket. */
static struct ask_table *
table_alloc(lca_actor_id_t self, uint32_t slots)
{
	int lcore = lca_actor_lcore(self);
	size_t size = sizeof(struct ask_table) + slots * sizeof(struct ask_slot) +
		      slots * sizeof(uint16_t);
	struct ask_table *t = rte_zmalloc_socket("lca_ask_table", size, RTE_CACHE_LINE_SIZE,
						  lcore < 0 ? SOCKET_ID_ANY :
						  (int)rte_lcore_to_socket_id((unsigned int)lcore));

	if (t == NULL)
		return NULL;
	rte_spinlock_init(&t->lock);
	t->mask = slots - 1;
	t->slot_bits = (uint32_t)rte_bsf32(slots);
	t->free = (uint16_t *)&t->slots[slots];
	/* Popped from the top: slot 0 first, as a scan would. */
	for (uint32_t i = 0; i < slots; i++)
		t->free[i] = (uint16_t)(slots - 1 - i);
	t->n_free = slots;
	return t;
}

/* Install @p t as @p self's table unless one is there. @return the one in
 * place (@p t, or the other, @p t freed). */
static struct ask_table *
table_install(lca_actor_id_t self, struct ask_table *t)
{
	struct ask_table *expected = NULL;

	if (!__atomic_compare_exchange_n(&asks.tables[self], &expected, t, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		rte_free(t);
		return expected;
	}
	return t;
}

/* The asker's table, made at its first ask (on its home node). */
static struct ask_table *
table_make(lca_actor_id_t self)
{
	struct ask_table *t = table_of(self);

	if (t != NULL)
		return t;
	t = table_alloc(self, LCA_ASK_PENDING_MAX);
	return t == NULL ? NULL : table_install(self, t);
}

int
lca_ask_pending_max_set(lca_actor_id_t asker, unsigned int max)
{
	struct ask_table *t;
	uint32_t slots;

	if (max == 0 || max > LCA_ASK_PENDING_LIMIT || asker >= LCA_ACTOR_REMOTE_BASE)
		return -EINVAL;
	if (asks.tables == NULL)
		return -ENOTSUP;
	if (asker >= asks.max || lca_actor_lcore(asker) < 0)
		return -ESRCH;
	slots = rte_align32pow2(max);
	t = table_of(asker);
	if (t == NULL) {
		t = table_alloc(asker, slots);
		if (t == NULL)
			return -ENOMEM;
		t = table_install(asker, t);
	}
	return t->mask + 1 == slots ? 0 : -EBUSY;
}

/* A free slot of @p t and the id of an ask in it, or 0 when full. */
static uint64_t
slot_take(struct ask_table *t, lca_actor_id_t self)
{
	uint32_t seq_mask = (1u << (32 - t->slot_bits)) - 1;
	uint64_t id = 0;
	uint32_t s;

	rte_spinlock_lock(&t->lock);
	if (t->n_free > 0) {
		s = t->free[--t->n_free];
		t->seq = (t->seq + 1) & seq_mask;
		if (t->seq == 0)
			t->seq = 1;
		id = (uint64_t)self << 32 | (uint64_t)t->seq << t->slot_bits | s;
		t->slots[s] = (struct ask_slot){ .req_id = id, .timer = LCA_TIMER_NONE };
		t->waiting++;
		__atomic_fetch_add(&asks.st.pending, 1, __ATOMIC_RELAXED);
	}
	rte_spinlock_unlock(&t->lock);
	return id;
}

/* Free slot @p s of @p t; under its lock. */
static void
slot_free(struct ask_table *t, uint32_t s)
{
	t->slots[s].req_id = 0;
	t->free[t->n_free++] = (uint16_t)s;
	t->waiting--;
}

/* End the ask @p id if it is still waiting. @return whether it was, and
 * its timer in @p timer. */
static bool
slot_end(struct ask_table *t, uint64_t id, lca_timer_id_t *timer)
{
	uint32_t idx = (uint32_t)id & t->mask;
	struct ask_slot *s = &t->slots[idx];
	bool waiting;

	rte_spinlock_lock(&t->lock);
	waiting = s->req_id == id;
	if (waiting) {
		*timer = s->timer;
		slot_free(t, idx);
		__atomic_fetch_sub(&asks.st.pending, 1, __ATOMIC_RELAXED);
	}
	rte_spinlock_unlock(&t->lock);
	return waiting;
}

static void
slot_set_timer(struct ask_table *t, uint64_t id, lca_timer_id_t timer)
{
	struct ask_slot *s = &t->slots[(uint32_t)id & t->mask];

	rte_spinlock_lock(&t->lock);
	if (s->req_id == id)
		s->timer = timer;
	rte_spinlock_unlock(&t->lock);
}

/* Arm the ask's timeout: its notice to @p from's control lane. */
static int
timeout_arm(lca_actor_id_t from, lca_actor_id_t to, const struct lca_msg *msg, uint64_t id,
	    uint64_t timeout_us, lca_timer_id_t *timer)
{
	struct lca_timeout body = { .req_id = id, .target = to, .msg_type = msg->type };
	struct lca_msg *notice;
	int ret = lca_msg_alloc(&notice);

	if (ret < 0)
		return ret;
	memcpy(body.head, msg->data, sizeof(body.head));
	notice->type = LCA_TYPE_TIMEOUT;
	notice->flags = LCA_MSG_F_REPLY;
	notice->len = sizeof(body);
	memcpy(notice->data, &body, sizeof(body));
	msg_id_write(notice, id);
	ret = lca_send_after(from, notice, timeout_us, timer);
	if (ret < 0)
		lca_msg_free(notice);
	return ret;
}

static int
ask_check(lca_actor_id_t from, const struct lca_msg *msg, uint64_t timeout_us)
{
	if (msg == NULL || timeout_us == 0 || from >= LCA_ACTOR_REMOTE_BASE)
		return -EINVAL;
	if (asks.tables == NULL)
		return -ENOTSUP;
	if (msg->len > LCA_MSG_INLINE_ASK)
		return -EMSGSIZE;
	if (!lca_actor_alive(from))
		return lca_actor_lcore(from) < 0 ? -ESRCH : -EPIPE;
	return 0;
}

/* lca_ask(); *by_send: the refusal was the send's, which send_failed()
 * has counted and logged already. */
static int
ask_do(lca_actor_id_t from, lca_actor_id_t to, struct lca_msg *msg, uint64_t timeout_us,
       uint64_t *req_id, bool *by_send)
{
	lca_timer_id_t timer = LCA_TIMER_NONE;
	struct ask_table *t;
	uint64_t id;
	int ret = ask_check(from, msg, timeout_us);

	if (ret < 0)
		return ret;
	t = table_make(from);
	if (t == NULL)
		return -ENOMEM;
	id = slot_take(t, from);
	if (id == 0) {
		count(&asks.st.full);
		return -ENOSPC;
	}
	/* Armed before the send: a reply may come back before the send returns
	 * (an ask on behalf of an actor that runs elsewhere). The timer fires
	 * on this lcore, after this call. */
	ret = timeout_arm(from, to, msg, id, timeout_us, &timer);
	if (ret == 0) {
		slot_set_timer(t, id, timer);
		__atomic_store_n(&asks_used, true, __ATOMIC_RELAXED);
		/* A reply's envelope asked with again is an ask, not a reply. */
		msg->flags = (uint8_t)((msg->flags & ~LCA_MSG_F_REPLY) | LCA_MSG_F_ASK);
		msg_id_write(msg, id);
		ret = lca_send_from(from, to, msg);
		*by_send = ret < 0;
		if (ret < 0)
			msg->flags &= (uint8_t)~LCA_MSG_F_ASK;
	}
	if (ret < 0) {
		if (slot_end(t, id, &timer))
			lca_timer_cancel(timer);
		return ret;
	}
	count(&asks.st.asked);
	if (req_id != NULL)
		*req_id = id;
	return 0;
}

int
lca_ask(lca_actor_id_t from, lca_actor_id_t to, struct lca_msg *msg, uint64_t timeout_us,
	uint64_t *req_id)
{
	bool by_send = false;
	int ret = ask_do(from, to, msg, timeout_us, req_id, &by_send);

	if (unlikely(ret < 0) && !by_send)
		LCA_REFUSED(NOTICE, "lca_ask", from, ret);
	return ret;
}

int
lca_ask_reply(const struct lca_msg *request, struct lca_msg *reply)
{
	lca_actor_id_t asker;
	uint64_t id;
	int ret;

	if (request == NULL || reply == NULL || !(request->flags & LCA_MSG_F_ASK))
		return -EINVAL;
	if (reply->len > LCA_MSG_INLINE_ASK)
		return -EMSGSIZE;
	/* Read first: @p reply may be @p request's own envelope. */
	id = msg_id_read(request);
	asker = request->from;
	reply->flags = (uint8_t)((reply->flags & ~LCA_MSG_F_ASK) | LCA_MSG_F_REPLY);
	msg_id_write(reply, id);
	ret = lca_send(asker, reply);
	if (ret < 0)
		reply->flags &= (uint8_t)~LCA_MSG_F_REPLY;
	return ret;
}

/* A reply or notice @p m reached @p self: @return whether its handler
 * gets it. */
static bool
reply_arrived(lca_actor_id_t self, struct lca_msg *m)
{
	uint64_t id = msg_id_read(m);
	lca_timer_id_t timer;
	struct ask_table *t;

	/* Not its own ask: a reply it forwards, or one sent to a proxy. */
	if ((lca_actor_id_t)(id >> 32) != self)
		return true;
	t = table_of(self);
	if (t != NULL && slot_end(t, id, &timer)) {
		if (m->type == LCA_TYPE_TIMEOUT) {
			count(&asks.st.timed_out);
		} else {
			/* -ENOENT: it fired meanwhile; its notice is dropped here. */
			lca_timer_cancel(timer);
			count(&asks.st.replied);
		}
		return true;
	}
	if (m->type != LCA_TYPE_TIMEOUT)
		count(&asks.st.late);
	lca_msg_free(m);
	return false;
}

unsigned int
asks_filter(lca_actor_id_t self, struct lca_msg **msgs, unsigned int n)
{
	unsigned int kept = 0;

	for (unsigned int i = 0; i < n; i++)
		if (likely(!(msgs[i]->flags & LCA_MSG_F_REPLY)) || reply_arrived(self, msgs[i]))
			msgs[kept++] = msgs[i];
	return kept;
}

/* End up to @p max of @p t's waiting asks; their timers in @p timers.
 * @return how many. */
static unsigned int
slots_end_some(struct ask_table *t, lca_timer_id_t *timers, unsigned int max)
{
	unsigned int n = 0;

	rte_spinlock_lock(&t->lock);
	for (uint32_t s = 0; s <= t->mask && n < max; s++) {
		if (t->slots[s].req_id == 0)
			continue;
		timers[n++] = t->slots[s].timer;
		slot_free(t, s);
	}
	__atomic_fetch_sub(&asks.st.pending, n, __ATOMIC_RELAXED);
	rte_spinlock_unlock(&t->lock);
	return n;
}

void
asks_actor_stopped(lca_actor_id_t self)
{
	lca_timer_id_t timers[64];
	struct ask_table *t = table_of(self);
	unsigned int n;

	if (t == NULL)
		return;
	/* Cancelled outside the lock: a cancel waits for a timer firing
	 * elsewhere. */
	do {
		n = slots_end_some(t, timers, RTE_DIM(timers));
		for (unsigned int i = 0; i < n; i++)
			lca_timer_cancel(timers[i]);
	} while (n == RTE_DIM(timers));
}

int
lca_ask_cancel(lca_actor_id_t asker, uint64_t req_id)
{
	lca_timer_id_t timer;
	struct ask_table *t;

	if (req_id == 0 || (lca_actor_id_t)(req_id >> 32) != asker)
		return -EINVAL;
	t = table_of(asker);
	if (t == NULL || !slot_end(t, req_id, &timer))
		return -ENOENT;
	/* -ENOENT: it fired meanwhile; its notice is dropped at the turn. */
	lca_timer_cancel(timer);
	count(&asks.st.cancelled);
	return 0;
}

void
lca_ask_stats_get(struct lca_ask_stats *out)
{
	if (out == NULL)
		return;
	*out = (struct lca_ask_stats){
		.asked = __atomic_load_n(&asks.st.asked, __ATOMIC_RELAXED),
		.replied = __atomic_load_n(&asks.st.replied, __ATOMIC_RELAXED),
		.timed_out = __atomic_load_n(&asks.st.timed_out, __ATOMIC_RELAXED),
		.late = __atomic_load_n(&asks.st.late, __ATOMIC_RELAXED),
		.full = __atomic_load_n(&asks.st.full, __ATOMIC_RELAXED),
		.cancelled = __atomic_load_n(&asks.st.cancelled, __ATOMIC_RELAXED),
		.pending = __atomic_load_n(&asks.st.pending, __ATOMIC_RELAXED),
	};
}
