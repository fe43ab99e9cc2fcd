/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_ACTOR_PRIV_H
#define LCA_ACTOR_PRIV_H

/* What every part of the actor core shares: the actor, the per-lcore
 * state of the running handler, the actor table, and the few inline
 * helpers over them (lookup, wake, ring counts). Each subsystem's own
 * functions are in its own private header (lca_channel_priv.h, lca_migrate_priv.h,
 * lca_control_priv.h ...), included by the files that use them. */

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_lcore.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include <rte_mempool.h>
#include <rte_prefetch.h>

#include "lca_actor.h"
#include "lca_envelope_priv.h"
#include "lca_lcore.h"
#include "lca_mempool.h"

enum actor_life {
	ACTOR_ALIVE,
	ACTOR_STOPPING, /* stopped; its lcore has still to drain the mailbox */
	ACTOR_STOPPED,
};

/*
 * A migration of one actor (lca_migrate.c). From the switch to the
 * hand-over the old home fills old_mailbox with what was sent before the
 * switch and runs the actor on it; the new home fills mailbox with what was
 * sent after, without a wake. Then it runs on its new home.
 */
struct actor_move {
	struct rte_ring *old_mailbox; /* NULL but while moving */
	unsigned int fill_old_on; /* old home until its fences are in; else RTE_MAX_LCORE */
	unsigned int to;          /* asked for by lca_actor_migrate() */
	uint32_t migrating;       /* atomic: 1 from the request to the hand-over */
	unsigned int fences;      /* lcores whose pre-switch messages are all in */
	uint64_t switch_tsc;
	uint64_t forwarded;       /* reached a former home after the move, sent on */
	/* After the hand-over, until every lcore has delivered what it sent
	 * from its old home: see "settle" in lca_migrate.c. */
	struct rte_ring *settle_q;   /* its sends meanwhile, by pointer, in order */
	struct lca_msg *settle_next; /* taken from settle_q, not yet delivered */
	uint32_t settle_wait;        /* atomic: lcores whose mark is still to come */
	unsigned int old_home;       /* where the marks come from */
	unsigned int marks_next;     /* dense index of the next lcore to mark */
	char why[64];             /* why it was asked to move, for the log */
};

struct lca_actor {
	/* Read by every sender, written almost never: a sender on another
	 * lcore reads this line only, and it stays in every reader's cache.
	 * Nothing its home lcore writes per turn may sit here. */
	struct rte_ring *mailbox;
	uint32_t life;       /* enum actor_life */
	uint32_t runq;       /* lcore whose run queue takes it, or LCA_LCORE_SHARED */
	unsigned int lcore;  /* home lcore: where senders send; atomic (migration) */
	uint64_t rejected;   /* atomic: senders count full-mailbox refusals */
	struct rte_ring *control; /* atomic: the control lane, made at its first
				   * control message (lca_control.c), or NULL */
	uint32_t control_wake;    /* atomic: 1 while a CTL_WAKE is queued for it */
	struct rte_ring *pkt_box; /* its packet queue (on_packets), or NULL: mbuf
				   * pointers, filled on its home lcore only */
	/* Read by a turn, written at spawn (and the high-water mark at most
	 * once a message of mailbox, as it climbs): here, in the line's last
	 * 8 bytes, so that `first` fits on the turn's line. */
	unsigned int throughput;
	uint32_t mailbox_hwm;

	/* What a turn touches, on one line: a message costs as few lines as
	 * it can while a workload's own data crowds the caches. Written by the
	 * lcore that runs it (and, for a shared actor, its wakers). */
	uint32_t scheduled __rte_cache_aligned; /* 1 while in a queue or running:
						 * wakers set it 0 -> 1, the turn
						 * clears it when the mailbox is empty */
	lca_actor_id_t id;
	union {
		lca_handler_fn one;          /* unless batch */
		lca_batch_handler_fn batch;  /* if batch */
	} handler;
	void *state;
	/* The light local send's: one message sent on its own lcore while it
	 * was idle (not scheduled, its mailbox empty), taken by its next turn
	 * before its mailbox, so that such a send and its turn cost no ring
	 * operation. Written and read by its home lcore only (atomic for the
	 * backlog's look from elsewhere). */
	struct lca_msg *first;
	uint64_t received;
	uint64_t handled;
	uint64_t turns;
	/* A migration's three flags that a turn or a send reads: here, on
	 * the turn's line; the rest of a move is in `move`. */
	uint8_t moving;           /* 1 from a migration's switch to its hand-over */
	bool handover_pending;    /* fences in while scheduled: at its turn's end */
	bool batch;               /* handler.batch, which owns what it is given */
	uint8_t paused;           /* restarted with a backoff: its flag stays held and
				   * a timer queues it again (lca_supervise.c) */
	uint8_t settling;         /* moved, but its older sends may still be on their
				   * way: its sends wait in settle_q (lca_migrate.c) */

	/* Counted now and then: failures, sampled timings, and who it sends
	 * to for traffic-aware placement (lca_balance.c, only while that
	 * runs): sends across lcores and within its lcore, and the peer it
	 * sends to most (one Misra-Gries counter: a peer with a majority of
	 * the sends holds it near PEER_COUNT_MAX, uniform traffic near 0). */
	uint64_t send_failures __rte_cache_aligned;
	uint64_t dropped_on_stop;
	uint64_t deferred;
	uint64_t handler_cycles;
	uint64_t timed_msgs;
	uint64_t cross_sends;
	uint64_t local_sends;
	lca_actor_id_t peer;
	uint32_t peer_count;
	char name[32];

	/* A migration (lca_migrate.c), apart from the flags above. */
	struct actor_move move __rte_cache_aligned;
	unsigned int mailbox_size;
	size_t state_size;

	/* Packets (lca_lane.c): what a turn of a packet actor touches
	 * besides the line above; written by its home lcore. */
	lca_packet_handler_fn on_packets __rte_cache_aligned;
	uint64_t pkts_handled;
	uint64_t pkts_dropped;    /* atomic: any lcore that drops its packets */
	uint64_t unhandled;       /* envelopes it had no handler for */

	/* Supervision (lca_supervise.c): written by the lcore that runs it,
	 * but for the watchers, which any thread adds under watch_lock. */
	struct lca_supervision sup __rte_cache_aligned;
	void (*state_init)(void *state, void *arg);
	void *state_arg;
	uint64_t failures;
	uint64_t failed_msgs;
	uint64_t restarts;
	uint64_t expired;
	uint64_t window_tsc;      /* start of the max_restarts window */
	uint32_t window_restarts;
	bool by_supervision;      /* its strategy stopped it */
	bool pinned;              /* never migrated */
	bool told_watchers;       /* under watch_lock */
	rte_spinlock_t watch_lock;
	uint32_t n_watchers;
	lca_actor_id_t watchers[LCA_WATCHERS_MAX];
} __rte_cache_aligned;

_Static_assert(offsetof(struct lca_actor, batch) <
	       offsetof(struct lca_actor, scheduled) + RTE_CACHE_LINE_SIZE,
	       "a turn's fields share one line");
_Static_assert(offsetof(struct lca_actor, settling) <
	       offsetof(struct lca_actor, scheduled) + RTE_CACHE_LINE_SIZE,
	       "a turn's flags, `first` among them, share one line");
_Static_assert(offsetof(struct lca_actor, mailbox_hwm) < RTE_CACHE_LINE_SIZE,
	       "what senders read stays on its own line");

#define PEER_COUNT_MAX 64

/* Most messages (and packets) a turn takes. */
#define ACTOR_THROUGHPUT_MAX 1024

/* Internal flags of a message (lca_migrate.c): a migration fence, sent to
 * the old home by every other lcore; a settle mark, sent by the old home
 * to every other lcore after the hand-over. Neither is ever delivered. */
#define MSG_F_FENCE 0x80
#define MSG_F_MARK 0x40
#define MSG_F_CONTROL (MSG_F_FENCE | MSG_F_MARK)

/* What the running handler on an lcore is: for from, and for freeing. */
struct actor_lcore {
	struct lca_actor *self;  /* running actor, or NULL */
	struct lca_msg *current; /* message being handled, until sent or kept */
	bool failed;             /* the handler called lca_actor_fail() */
	int fail_reason;
} __rte_cache_aligned;

struct actor_table {
	struct lca_actor **actors;
	unsigned int max;
	uint32_t count; /* atomic: ids handed out */
	bool up;        /* between lca_runtime_init() and its cleanup */
};

extern struct actor_table lca_actors;
/* The calling thread's: thread-local, so that finding it is one
 * fs-relative address (initial-exec), not rte_lcore_id()'s TLS read, a
 * bounds check and an index, as an array by lcore id was (17 of a local
 * message's 382 instructions). Only its own thread reads or writes it, and
 * a turn leaves it cleared. */
extern __thread struct actor_lcore lca_actor_here
	__attribute__((tls_model("initial-exec"), visibility("hidden")));

static inline struct actor_lcore *
actor_lcore_here(void)
{
	struct actor_lcore *here = &lca_actor_here;

#ifdef LCA_SANITIZE_UNDEFINED
	__asm__("" : "+r"(here)); /* see meson.build */
#endif
	return here;
}

/* The running actor's id (lca_actor_self()), or LCA_ACTOR_NONE. */
static inline lca_actor_id_t
actor_self_id(void)
{
	const struct lca_actor *a = actor_lcore_here()->self;

	return a == NULL ? LCA_ACTOR_NONE : a->id;
}

/* Ids handed out so far (lca_actor_count()). */
static inline unsigned int
actors_count(void)
{
	return __atomic_load_n(&lca_actors.count, __ATOMIC_ACQUIRE);
}

static inline struct lca_actor *
actor_lookup(lca_actor_id_t id)
{
	if (unlikely(id >= __atomic_load_n(&lca_actors.count, __ATOMIC_ACQUIRE)))
		return NULL;
	return __atomic_load_n(&lca_actors.actors[id], __ATOMIC_ACQUIRE);
}

/*
 * Ask for the first line of what @p m points to (a payload, an mbuf, a
 * record of the app's): its handler's first read, and a miss that stalls
 * the handler when nothing asked before. A handler sits behind hundreds of
 * the runtime's instructions, more than the CPU looks ahead, so without
 * this the misses of a burst come one after another; the floor's loop is
 * short enough that they overlap by themselves. Packet loops prefetch
 * packet data for the same reason. Called where a message is queued for a
 * later turn: a channel's drain, and a single send into a mailbox on its
 * own lcore (a burst is left alone: see send_burst_here()).
 */
static inline void
msg_prefetch_payload(const struct lca_msg *m)
{
	if (m->ptr != NULL)
		rte_prefetch0(m->ptr);
}

/*
 * Who may put a message into a mailbox, and so who schedules its actor:
 *
 * - an affinity actor's mailbox is filled only on its home lcore: by a
 *   send from that lcore, or by the home lcore's poll, which delivers what
 *   other lcores copied into channels and what other threads pushed into its
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
	/* Relaxed: a migration rewrites runq (one affinity lcore for another)
	 * while senders read it; whether it is shared never changes. */
	return __atomic_load_n(&a->runq, __ATOMIC_RELAXED) == LCA_LCORE_SHARED;
}

/* Make sure @p a, which has mail, is in a run queue. For an affinity actor,
 * only on its home lcore (or while the loops are not running). */
static inline void
actor_wake(struct lca_actor *a)
{
	uint32_t expected = 0;

	if (likely(!actor_is_shared(a))) {
		/* While it moves, its old home runs it and owns the flag;
		 * the hand-over schedules it here (migration_adopt()). */
		if (likely(!a->moving) && a->scheduled == 0) {
			a->scheduled = 1;
			lca_lcore_schedule(__atomic_load_n(&a->runq, __ATOMIC_RELAXED), a);
		}
		return;
	}
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&a->scheduled, __ATOMIC_RELAXED) != 0)
		return;
	if (__atomic_compare_exchange_n(&a->scheduled, &expected, 1, false, __ATOMIC_ACQ_REL,
					__ATOMIC_RELAXED))
		lca_lcore_schedule(__atomic_load_n(&a->runq, __ATOMIC_RELAXED), a);
}

/*
 * What a ring holds, as rte_ring_count() says, but with atomic loads of its
 * tails: other threads move them while this looks (a snapshot is all any
 * caller needs), and a plain read of them is a data race to the C11 model
 * and to ThreadSanitizer. The tails sit at the same place in every sync
 * mode's head/tail struct (MP/SP, RTS, HTS), as rte_ring_count() relies on.
 */
static inline unsigned int
ring_count(const struct rte_ring *r)
{
	uint32_t prod = __atomic_load_n(&r->prod.tail, __ATOMIC_ACQUIRE);
	uint32_t cons = __atomic_load_n(&r->cons.tail, __ATOMIC_ACQUIRE);
	uint32_t n = (prod - cons) & r->mask;

	return n > r->capacity ? r->capacity : n;
}

static inline bool
ring_empty(const struct rte_ring *r)
{
	return ring_count(r) == 0;
}

/* @p msgs[0..n) into affinity actor @p a's mailbox, from its home lcore
 * (its one producer), behind the message a light local send left it in
 * `first`: the two hold mailbox_size together, as the mailbox alone did,
 * so that a full mailbox refuses at the same count whatever the route.
 * @return how many went (the rest are still the caller's). */
unsigned int mailbox_put_short(struct lca_actor *a, struct lca_msg **msgs, unsigned int n);

static inline unsigned int
mailbox_put_here(struct lca_actor *a, struct lca_msg **msgs, unsigned int n)
{
	if (unlikely(__atomic_load_n(&a->first, __ATOMIC_RELAXED) != NULL) &&
	    rte_ring_free_count(a->mailbox) <= n)
		return mailbox_put_short(a, msgs, n);
	return rte_ring_sp_enqueue_burst(a->mailbox, (void **)msgs, n, NULL);
}

/* @p msg is the receiver's now: the running handler no longer owns it. */
static inline void
message_handed_over(struct lca_msg *msg)
{
	struct actor_lcore *here = actor_lcore_here();

	if (here->current == msg)
		here->current = NULL;
}

/* The mailbox a turn of @p a takes from: while it moves, it runs on its
 * old home, on what was sent before the switch. */
static inline struct rte_ring *
turn_mailbox(const struct lca_actor *a)
{
	return unlikely(a->moving) ? a->move.old_mailbox : a->mailbox;
}

/* The actor table and the turn (lca_actor.c), for the composition root
 * (lca_runtime.c). */
/* The lcore turn function: up to throughput messages of one actor.
 * @return whether it wants another turn. */
bool actor_turn(void *item);
/* Whether the calling thread may run handlers from what it drains: not
 * from a handler, and in a run (between runs the main thread polls for
 * the other lcores, and nothing runs). A poll asks once. */
bool actor_direct_here(void);
/* Whether @p a can take @p n messages straight from the channel being
 * drained by its home lcore's own thread (actor_direct_here() said yes),
 * with no mailbox: an affinity actor neither queued nor running, with
 * nothing in its mailbox, control lane or packet queue (so nothing it got
 * before waits). */
bool actor_can_take_direct(const struct lca_actor *a, unsigned int n);
/* A turn of @p a on @p msgs[0..n) (actor_can_take_direct() said yes): run
 * to completion during the drain, as Seastar's smp queue and DPDK's graph
 * walk do, with what a turn from its mailbox does. */
void actor_turn_direct(struct lca_actor *a, struct lca_msg **msgs, unsigned int n);
/* The same for a packet actor and @p n packets, from its lcore's own RX
 * hook or lane drain, with nothing in its packet queue either: a turn of
 * @p a on @p pkts[0..n) with no packet queue between, when it can take
 * one. @return whether it took them (else they are still the caller's). */
bool actor_packets_direct(struct lca_actor *a, struct rte_mbuf **pkts, unsigned int n);
/* An empty table of @p max_actors, placed by @p placement over @p lcores
 * (in spread order); actors_cleanup() stops and frees every actor in it. */
int actors_init(unsigned int max_actors, enum lca_placement placement, const unsigned int *lcores,
		unsigned int n_lcores);
void actors_cleanup(void);
/* lca_actor_stop() in steps: begin (-EALREADY unless alive), then either
 * now, where nothing else runs it, or ask whoever runs it to. */
int actor_stop_begin(struct lca_actor *a);
void actor_stop_now(struct lca_actor *a);
void actor_stop_ask(struct lca_actor *a);

/* A single-producer, single-consumer ring of @p size entries on
 * @p lcore's node, or NULL: a packet queue, a moving actor's mailbox. */
static inline struct rte_ring *
spsc_ring_on(unsigned int size, unsigned int lcore, const char *what, lca_actor_id_t id)
{
	struct rte_ring *r = lca_mempool_alloc_on_lcore(what,
		rte_ring_get_memsize(rte_align32pow2(size + 1)), lcore);
	char name[RTE_RING_NAMESIZE];

	snprintf(name, sizeof(name), "%s_%u", what, id);
	if (r != NULL && rte_ring_init(r, name, size,
				       RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ) < 0) {
		lca_mempool_free(r);
		return NULL;
	}
	return r;
}

#endif /* LCA_ACTOR_PRIV_H */
