/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Moving an affinity actor from one lcore to another, with nothing lost and
 * every sender's messages still in order.
 *
 * A sender on lcore C reaches actor X through the channel C -> home(X), or
 * straight into X's mailbox when C is X's home. Moving X from A to B:
 *
 * 1. switch, on A between turns: X gets a new mailbox on B's node and its
 *    home becomes B. Whatever waits in the mailbox stays there, now the
 *    old mailbox. From now on every sender reaches B, which fills the new
 *    mailbox but does not run X.
 * 2. fences: every lcore but A sends A a fence through its channel to A.
 *    It goes after anything that lcore sent X before it saw the switch;
 *    what A's own actors sent before went straight into the mailbox. Until
 *    every fence is in, A puts what reaches it for X into the old mailbox
 *    and goes on running X on it: a full mailbox moves as well as an empty
 *    one, and nothing waits for the move.
 * 3. hand-over: with every fence in, nothing any lcore's actor sent before
 *    the switch is still on its way. A's poll then drains its inbox (what
 *    other threads pushed to A) into the old mailbox too. Once X has run
 *    out of its old mailbox, every push that read A as X's home has ended
 *    and A's inbox is empty, A moves X's state to
 *    B's node if the nodes differ, logs the move and hands X to B, which
 *    runs it on the new mailbox. Later arrivals at A are sent on to B.
 *
 * 4. settle: what X itself sent from A may still wait in a channel out of
 *    A, or in a receiver lcore's held list, when X, now on B, sends to the
 *    same receiver by another way (straight into its mailbox, or through
 *    B's channel). So at the hand-over A puts a mark into its channel to
 *    every other lcore, after everything X sent from there; each lcore
 *    counts the mark off when it delivers it, in order, behind what it
 *    holds. Until the last mark is in, X runs on B but its sends wait in
 *    its settle queue, by pointer, in order (-ENOBUFS when that is full,
 *    as for a full mailbox); then B sends them on by X's routes from B and
 *    the move is over. X is not kept from running: B may hold messages to
 *    X, in front of A's mark, that only X's run makes room for.
 *
 * A sender's messages before the switch are in the old mailbox, its
 * messages after it in the new one, which X reads only after the old one;
 * X's own messages from A are delivered before any it sends from B: per
 * sender order holds both ways. That includes a sender that pushes into
 * A's inbox (a thread that is not an lcore, a shared actor) and is
 * preempted between reading X's home and its push for as long as the whole
 * hand-over takes: the hand-over also waits until every push that may
 * have read A as the home is in A's inbox ("pushes" below).
 *
 * The channel knows of none of this but for two hooks:
 * migration_on_arrival() for what reaches an lcore that is not its actor's
 * home (and the fences and marks), and migration_ctl() for the control
 * entries of a move.
 */
#define LCA_LOG_PART lca_logtype_migrate
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/membarrier.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_spinlock.h>

#include "lca_actor_priv.h"
#include "lca_channel_priv.h"
#include "lca_control_priv.h"
#include "lca_eal.h"
#include "lca_mempool.h"
#include "lca_trace_priv.h"
#include "lca_logtypes_priv.h"
#include "lca_migrate_priv.h"

#define LOG_SIZE 256 /* a power of two */
#define SETTLE_MIN 256u /* sends a settling actor can have held back */

static void migration_hand_over(struct lca_actor *a, unsigned int from);
static void migration_marks_send(struct lca_actor *a, unsigned int lcore_id);

static struct {
	rte_spinlock_t lock;
	uint64_t count;
	uint64_t start_tsc;
	struct lca_migration entries[LOG_SIZE];
} log_ring;

RTE_DEFINE_PER_LCORE(struct pusher *, pusher_self);
bool pushers_asym;
static struct pusher *pushers; /* atomic: the list's head; it only grows */
static pthread_key_t pusher_key;
static pthread_once_t pusher_once = PTHREAD_ONCE_INIT;

int
migrations_init(void)
{
	/* Registered once a process (the channels' bells may have already);
	 * where the kernel lacks it, each push fences instead. */
	pushers_asym = syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
	rte_spinlock_init(&log_ring.lock);
	log_ring.count = 0;
	log_ring.start_tsc = rte_rdtsc();
	return 0;
}

void
migrations_cleanup(void)
{
	log_ring.count = 0;
}

static void
log_move(const struct lca_actor *a, unsigned int from, int pages_pct)
{
	struct lca_migration *e;

	rte_spinlock_lock(&log_ring.lock);
	e = &log_ring.entries[log_ring.count++ % LOG_SIZE];
	*e = (struct lca_migration){
		.t_s = (double)(a->move.switch_tsc - log_ring.start_tsc) / (double)rte_get_tsc_hz(),
		.took_us = (double)(rte_rdtsc() - a->move.switch_tsc) * 1e6 / (double)rte_get_tsc_hz(),
		.id = a->id,
		.from = from,
		.to = a->lcore,
		.state_on_node_pct = pages_pct,
	};
	snprintf(e->why, sizeof(e->why), "%s", a->move.why);
	rte_spinlock_unlock(&log_ring.lock);
}

unsigned int
lca_migrations_get(struct lca_migration *out, unsigned int max)
{
	unsigned int n, first;
	uint64_t count;

	rte_spinlock_lock(&log_ring.lock);
	count = log_ring.count;
	n = (unsigned int)RTE_MIN(count, (uint64_t)LOG_SIZE);
	first = (unsigned int)(count - n);
	for (unsigned int i = 0; out != NULL && i < n && i < max; i++)
		out[i] = log_ring.entries[(first + i) % LOG_SIZE];
	rte_spinlock_unlock(&log_ring.lock);
	return (unsigned int)RTE_MIN(count, (uint64_t)UINT32_MAX);
}

int
actor_migrate(struct lca_actor *a, unsigned int lcore, const char *why)
{
	if (a == NULL)
		return -ESRCH;
	if (lcore >= RTE_MAX_LCORE || !lca_eal_lcore_in_use(lcore) || actor_is_shared(a))
		return -EINVAL;
	if (a->pinned) {
		if (a->pkt_box != NULL)
			LCA_LOG(ERR, "actor %u takes packets: packet actors are pinned (a packet "
				"lane carries no migration fences), not moved\n", a->id);
		return -EPERM;
	}
	if (__atomic_load_n(&a->life, __ATOMIC_ACQUIRE) != ACTOR_ALIVE)
		return -EPIPE;
	if (__atomic_load_n(&a->lcore, __ATOMIC_ACQUIRE) == lcore)
		return -EALREADY;
	/* One move at a time: the home lcore clears it at the hand-over. */
	if (__atomic_exchange_n(&a->move.migrating, 1, __ATOMIC_ACQ_REL) != 0)
		return -EBUSY;
	a->move.to = lcore;
	snprintf(a->move.why, sizeof(a->move.why), "%s", why != NULL ? why : "asked");
	LCA_LOG(DEBUG, "migrate actor %u: lcore %u to %u asked (%s)\n",
		a->id, a->lcore, lcore, a->move.why);
	ctl_push(__atomic_load_n(&a->lcore, __ATOMIC_ACQUIRE), a, CTL_MIGRATE);
	return 0;
}

int
lca_actor_migrate(lca_actor_id_t id, unsigned int lcore)
{
	return actor_migrate(actor_lookup(id), lcore, "lca_actor_migrate()");
}

/* The switch, on the home lcore between turns: from now on senders reach
 * the new home. Whatever waits in the mailbox stays there, as the old
 * mailbox, and the actor goes on running here on it. */
static void
migration_request(struct lca_actor *a, unsigned int lcore_id)
{
	unsigned int to = a->move.to, lcore;
	struct rte_ring *mb;

	/* Stopped, or already there (a move that ended since it was asked). */
	if (__atomic_load_n(&a->life, __ATOMIC_ACQUIRE) != ACTOR_ALIVE || to == lcore_id) {
		__atomic_store_n(&a->move.migrating, 0, __ATOMIC_RELEASE);
		return;
	}
	mb = spsc_ring_on(a->mailbox_size, to, "lca_mb", a->id);
	a->move.settle_q = spsc_ring_on(RTE_MAX(a->mailbox_size, SETTLE_MIN), to, "lca_settle", a->id);
	if (mb == NULL || a->move.settle_q == NULL) {
		LCA_LOG(ERR, "actor %u stays on lcore %u: no memory for a mailbox on lcore %u\n",
			a->id, lcore_id, to);
		lca_mempool_free(mb);
		lca_mempool_free(a->move.settle_q);
		a->move.settle_q = NULL;
		__atomic_store_n(&a->move.migrating, 0, __ATOMIC_RELEASE);
		return;
	}
	a->move.switch_tsc = rte_rdtsc();
	a->move.old_mailbox = a->mailbox;
	a->move.fill_old_on = lcore_id;
	a->move.fences = 0;
	a->moving = 1;
	a->mailbox = mb;
	__atomic_store_n(&a->runq, to, __ATOMIC_RELAXED);
	/* Release: a sender that reads the new home sees the new mailbox and
	 * that it is moving. */
	__atomic_store_n(&a->lcore, to, __ATOMIC_RELEASE);
	/* The new home before any pusher's slot is read ("pushes"). */
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (pushers_asym)
		syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
	LCA_LCORE_FOREACH(lcore)
		if (lcore != lcore_id)
			ctl_push(lcore, a, CTL_FENCE);
}

static void
migration_fence_send(struct lca_actor *a, unsigned int lcore_id)
{
	struct lca_msg fence = {
		.from = LCA_ACTOR_NONE, .to = a->id, .flags = MSG_F_FENCE,
	};

	/* Channel full: the fence waits its turn, after what fills it. */
	if (channel_put_to(lcore_id, a->move.fill_old_on, &fence) < 0)
		ctl_push(lcore_id, a, CTL_FENCE);
}

/* With its node's memory, an actor's state follows it. Nobody runs it
 * meanwhile, so the copy is whole. @return % of its pages on the node. */
static int
move_state(struct lca_actor *a, unsigned int from)
{
	unsigned int to = a->lcore;
	int node = (int)rte_lcore_to_socket_id(to);
	void *state;

	if (a->state == NULL)
		return 100;
	if (rte_lcore_to_socket_id(from) != (unsigned int)node) {
		state = lca_mempool_alloc_on_lcore("lca_state", a->state_size, to);
		if (state != NULL) {
			memcpy(state, a->state, a->state_size);
			lca_mempool_free(a->state);
			a->state = state;
		} else {
			LCA_LOG(WARNING, "actor %u: no memory on node %d, its state stays\n",
				a->id, node);
		}
	}
	return lca_mempool_pages_on_node(a->state, a->state_size, node < 0 ? 0 : node, 16);
}

/* On the old home: every lcore's messages sent before the switch are in
 * the old mailbox. The hand-over waits for this lcore's poll, which drains
 * the inbox first, so what other threads pushed here before the switch
 * goes into the old mailbox too. */
static void
migration_fence_arrived(struct lca_actor *a, unsigned int lcore_id)
{
	if (++a->move.fences + 1 < channels_lcores())
		return;
	ctl_push(lcore_id, a, CTL_HAND_OVER);
}

/*
 * Pushes. A thread that pushes into X's home's inbox (struct pusher) stores
 * X into its slot's `to`, then reads X's home, stores the home it read into
 * `home`, pushes there and clears `to` (release). The switch stores the new
 * home, then a full barrier on every thread of the process (membarrier(2),
 * or where the kernel has none a full fence here and in every push); the
 * old home's hand-over reads the slots after it. That is Dekker's
 * protocol: either the push's read of the home comes after the barrier,
 * and it reads the new home, or its store of `to` comes before it, and the
 * hand-over sees X in the slot, reads `home` (acquire, after `to`: as
 * unread or as the home this push or a later one read) and waits while it
 * is unread or the old home. A slot seen free or with another actor (with
 * acquire) is one whose push into the old home, if any, is in its inbox.
 * A push that read the new home is not waited for: a thread that keeps
 * pushing to X does not hold up its hand-over. A flag read once a push
 * ("is X moving?") would not do: a push preempted between that read and
 * its push could land in the old home's inbox after the hand-over, behind
 * the sender's later messages to the new home.
 */
static void
pusher_free(void *slot)
{
	struct pusher *p = slot;

	__atomic_store_n(&p->taken, 0, __ATOMIC_RELEASE);
}

static void
pusher_key_make(void)
{
	if (pthread_key_create(&pusher_key, pusher_free) != 0)
		rte_panic("lcactor: no thread key for the inbox's pushers\n");
}

/* This thread's slot: a free one from a thread that has ended, or a new
 * one on the list. Never freed: a hand-over may be reading it. */
struct pusher *
pusher_register(void)
{
	struct pusher *p;

	pthread_once(&pusher_once, pusher_key_make);
	for (p = __atomic_load_n(&pushers, __ATOMIC_ACQUIRE); p != NULL; p = p->next) {
		uint32_t free = 0;

		if (__atomic_load_n(&p->taken, __ATOMIC_RELAXED) == 0 &&
		    __atomic_compare_exchange_n(&p->taken, &free, 1, false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			break;
	}
	if (p == NULL) {
		if (posix_memalign((void **)&p, RTE_CACHE_LINE_SIZE, sizeof(*p)) != 0)
			rte_panic("lcactor: no memory for an inbox pusher's slot\n");
		*p = (struct pusher){ .home = PUSH_HOME_UNREAD, .taken = 1 };
		p->next = __atomic_load_n(&pushers, __ATOMIC_RELAXED);
		while (!__atomic_compare_exchange_n(&pushers, &p->next, p, true, __ATOMIC_RELEASE,
						    __ATOMIC_RELAXED))
			;
	}
	pthread_setspecific(pusher_key, p);
	RTE_PER_LCORE(pusher_self) = p;
	return p;
}

/* On @p a's old home @p lcore_id, after its switch: whether every push
 * that may have read this lcore as its home is in the inbox. */
static bool
migration_pushes_ended(const struct lca_actor *a, unsigned int lcore_id)
{
	for (const struct pusher *p = __atomic_load_n(&pushers, __ATOMIC_ACQUIRE); p != NULL;
	     p = p->next) {
		unsigned int home;

		if (__atomic_load_n(&p->to, __ATOMIC_ACQUIRE) != a)
			continue;
		home = __atomic_load_n(&p->home, __ATOMIC_ACQUIRE);
		if (home == PUSH_HOME_UNREAD || home == lcore_id)
			return false;
	}
	return true;
}

/* From this lcore's poll, after its inbox was drained: hand the actor over
 * once it has run out of its old mailbox and the inbox holds nothing
 * more (else try again at the next poll, or at the end of its turn). */
static void
migration_try_hand_over(struct lca_actor *a, unsigned int lcore_id)
{
	if (a->scheduled)
		a->handover_pending = true; /* actor_unschedule() asks again */
	/* In this order: a push still on its way to the inbox is not in it
	 * yet. */
	else if (!migration_pushes_ended(a, lcore_id) || !inbox_quiet(lcore_id))
		ctl_push(lcore_id, a, CTL_HAND_OVER);
	else
		migration_hand_over(a, lcore_id);
}

static void
migration_hand_over(struct lca_actor *a, unsigned int from)
{
	a->handover_pending = false;
	a->move.fill_old_on = RTE_MAX_LCORE;
	log_move(a, from, move_state(a, from));
	lca_trace_migrate(a->id, from, a->lcore);
	LCA_LOG(DEBUG, "migrate actor %u: handed over by lcore %u to %u\n", a->id, from, a->lcore);
	/* Settling from before the adopt: the new home's ctl ring has the
	 * adopt before any lcore's "settled". */
	a->settling = 1;
	a->move.old_home = from;
	a->move.marks_next = 0;
	__atomic_store_n(&a->move.settle_wait, channels_lcores() - 1, __ATOMIC_RELEASE);
	ctl_push(a->lcore, a, CTL_ADOPT);
	migration_marks_send(a, from);
}

/* On the old home, after the hand-over: a mark into the channel to every
 * other lcore, behind everything the actor sent from here. In lcore
 * order; a full channel is tried again at the next poll. */
static void
migration_marks_send(struct lca_actor *a, unsigned int lcore_id)
{
	struct lca_msg mark = {
		.from = LCA_ACTOR_NONE, .to = a->id, .flags = MSG_F_MARK,
	};

	for (; a->move.marks_next < channels_lcores(); a->move.marks_next++) {
		unsigned int to = channel_lcore(a->move.marks_next);

		if (to == lcore_id)
			continue;
		if (channel_put_to(lcore_id, to, &mark) < 0) {
			ctl_push(lcore_id, a, CTL_MARK);
			return;
		}
	}
}

/* On any lcore but the old home, delivering in order: everything the
 * old home had sent through its channel to here before the mark is in a
 * mailbox now. The last one tells the new home. */
static void
migration_mark_arrived(struct lca_actor *a)
{
	if (__atomic_sub_fetch(&a->move.settle_wait, 1, __ATOMIC_ACQ_REL) == 0)
		ctl_push(__atomic_load_n(&a->lcore, __ATOMIC_ACQUIRE), a, CTL_SETTLED);
}

/* On the new home, once every mark is in: what the actor sent meanwhile
 * goes on, in order, by its routes from here; then it sends as usual and
 * may move again. What does not fit yet is tried at the next poll. */
static void
migration_settle(struct lca_actor *a, unsigned int lcore_id)
{
	for (;;) {
		if (a->move.settle_next == NULL &&
		    rte_ring_sc_dequeue(a->move.settle_q, (void **)&a->move.settle_next) != 0)
			break;
		if (deliver_from(a->move.settle_next, lcore_id) != 0) {
			ctl_push(lcore_id, a, CTL_SETTLED);
			return;
		}
		a->move.settle_next = NULL;
	}
	a->settling = 0;
	lca_mempool_free(a->move.settle_q);
	a->move.settle_q = NULL;
	__atomic_store_n(&a->move.migrating, 0, __ATOMIC_RELEASE);
	LCA_LOG(DEBUG, "migrate actor %u: settled on lcore %u, free to move again\n",
		a->id, lcore_id);
}

/* What a settling actor sends: held back, in order, till it has settled.
 * @return how many of @p msgs it took. */
unsigned int
settle_hold(struct lca_actor *a, struct lca_msg **msgs, unsigned int n)
{
	return rte_ring_sp_enqueue_burst(a->move.settle_q, (void **)msgs, n, NULL);
}

/* On the new home. The old mailbox is empty: the old home handed the actor
 * over once it had run out of it, and nothing goes into it after. */
static void
migration_adopt(struct lca_actor *a, unsigned int lcore_id)
{
	lca_mempool_free(a->move.old_mailbox);
	a->move.old_mailbox = NULL;
	a->moving = 0;
	LCA_LOG(DEBUG, "migrate actor %u: adopted by lcore %u\n", a->id, lcore_id);
	/* Still migrating until it has settled (migration_settle()). */
	/* A stop asked for while it moved needs a turn too, to drain it. */
	if (!ring_empty(a->mailbox) || actor_has_control(a) ||
	    __atomic_load_n(&a->life, __ATOMIC_ACQUIRE) != ACTOR_ALIVE) {
		a->scheduled = 1;
		lca_lcore_schedule(lcore_id, a);
	}
}

/*
 * A run that reached an lcore that is not its actor's home: the actor has
 * moved. Until the switch's fences are all in, its old home puts what was
 * sent before the switch into the old mailbox and runs it there; after,
 * it sends stragglers on to the new home.
 * @return how many were taken.
 */
static unsigned int
deliver_elsewhere(struct lca_actor *a, struct lca_msg **msgs, unsigned int run,
		  unsigned int lcore_id, unsigned int home)
{
	unsigned int done = 0;

	if (a->move.fill_old_on == lcore_id) {
		done = rte_ring_enqueue_burst(a->move.old_mailbox, (void **)msgs, run, NULL);
		if (done > 0 && a->scheduled == 0) {
			a->scheduled = 1;
			lca_lcore_schedule(lcore_id, a);
		}
		return done;
	}
	/* @p home as read once by the caller: read again, it could be this
	 * lcore by now, which has no channel to itself. */
	done = channel_send(lcore_id, home, msgs, run);
	__atomic_fetch_add(&a->move.forwarded, done, __ATOMIC_RELAXED);
	return done;
}

unsigned int
migration_on_arrival(struct lca_actor *a, struct lca_msg **msgs, unsigned int n,
		     unsigned int lcore_id, unsigned int home)
{
	if (likely(!(msgs[0]->flags & MSG_F_CONTROL)))
		return deliver_elsewhere(a, msgs, n, lcore_id, home);
	if (msgs[0]->flags & MSG_F_FENCE)
		migration_fence_arrived(a, lcore_id);
	else
		migration_mark_arrived(a);
	lca_msg_free(msgs[0]);
	return 1;
}

void
migration_ctl(struct lca_actor *a, enum ctl_kind kind, unsigned int lcore_id)
{
	switch (kind) {
	case CTL_MIGRATE:
		migration_request(a, lcore_id);
		break;
	case CTL_FENCE:
		migration_fence_send(a, lcore_id);
		break;
	case CTL_ADOPT:
		migration_adopt(a, lcore_id);
		break;
	case CTL_HAND_OVER:
		migration_try_hand_over(a, lcore_id);
		break;
	case CTL_MARK:
		migration_marks_send(a, lcore_id);
		break;
	case CTL_SETTLED:
		migration_settle(a, lcore_id);
		break;
	default:
		break;
	}
}

void
migration_release(struct lca_actor *a)
{
	struct lca_msg *m;

	/* Held back by a move that had not settled: the runtime is going. */
	lca_msg_free(a->move.settle_next);
	while (a->move.settle_q != NULL &&
	       rte_ring_sc_dequeue(a->move.settle_q, (void **)&m) == 0)
		lca_msg_free(m);
	lca_mempool_free(a->move.settle_q);
	lca_mempool_free(a->move.old_mailbox);
}
