/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_ACTOR_PRIV_H
#define LCA_ACTOR_PRIV_H

/* Internals shared by lca_actor.c (life cycle, turns) and lca_send.c. */

#include <stddef.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_lcore.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include <rte_mempool.h>

#include "lca_actor.h"
#include "lca_envelope.h"
#include "lca_lcore.h"
#include "lca_mempool.h"
#include "lca_route.h"

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
	unsigned int throughput;
	uint32_t mailbox_hwm;
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

/* Whether @p a has messages in its control lane. */
static inline bool
actor_has_control(const struct lca_actor *a)
{
	const struct rte_ring *c = __atomic_load_n(&a->control, __ATOMIC_ACQUIRE);

	return unlikely(c != NULL) && !ring_empty(c);
}

/* Control lane (lca_control.c): on the actor's home lcore, a CTL_WAKE. */
void control_wake(struct lca_actor *a, unsigned int lcore_id);
/* lca_send_control() on behalf of @p from. */
int control_send_from(lca_actor_id_t from, lca_actor_id_t to, struct lca_msg *msg);

/* Where a message's deadline is (lca_msg_set_deadline()). */
static inline uint64_t
msg_deadline(const struct lca_msg *m)
{
	uint64_t tsc;

	memcpy(&tsc, &m->data[LCA_MSG_INLINE_WITH_DEADLINE], sizeof(tsc));
	return tsc;
}

/* Drop the messages of @p msgs[0..n) that are past their deadline,
 * counted on @p a; the rest close up, in order. @return how many are
 * left. Only called when one of them has a deadline. */
unsigned int deadlines_filter(struct lca_actor *a, struct lca_msg **msgs, unsigned int n);

/* Supervision (lca_supervise.c). After a handler that failed: drop
 * @p msg (NULL for a batch) unless sent or kept, apply the strategy, tell
 * the supervisor. */
void actor_failed(struct lca_actor *a, struct actor_lcore *here, struct lca_msg *msg);
/* Tell @p a's watchers it stopped (once). */
void actor_tell_watchers(struct lca_actor *a);
/* Between lca_runtime_cleanup()'s start and the next init: no notices
 * (the actors they would go to are being freed). */
void supervision_quiet(bool quiet);

/* Timers (lca_timer.c). */
int timers_init(unsigned int max_timers);
void timers_cleanup(void);
/* Run this lcore's due timers; @return how many ran. */
unsigned int timers_poll(unsigned int lcore_id);
/* Put @p a (paused, its flag held) back in this lcore's run queue in
 * @p delay_us. */
int timer_wake_after(struct lca_actor *a, uint64_t delay_us);

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

/* Free every message waiting in a's mailbox; count them as dropped. */
void actor_drain(struct lca_actor *a);


/* Zero the runtime-wide counters of failed sends (at runtime init). */
void lca_send_errors_reset(void);

/* Say whether the runtime is up to the telemetry commands (lca_telemetry.c). */
void telemetry_runtime_up(bool up);

/* Channels between lcores (lca_channel.c). */
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
/* Count @p m, which reached @p a after it stopped, as dropped; free it. */
void drop_for_stopped(struct lca_actor *a, struct lca_msg *m);

/* Traffic-aware placement (lca_balance.c): the controller on the main
 * lcore's loop. */
int balance_init(const struct lca_runtime_conf *conf);
void balance_cleanup(void);
/* Whether the controller runs, so that senders count who they send to. */
extern bool balance_watching;

/* An envelope whose bytes crossed in a channel: back to the pool it came
 * from, through this lcore's cache. What it owned (ptr) went with the copy. */
static inline void
envelope_recycle(struct lca_msg *m)
{
	struct rte_mempool *mp;

	if (!envelope_giving_back(m))
		return;
	mp = lca_mempool_by_index(m->pool);
	envelope_poison(m);
	rte_mempool_put(mp, m);
}
/* The packet lane (lca_lane.c). */
int lanes_init(void);
void lanes_cleanup(void);
/* Deliver what reached @p lcore_id on its lanes and its packet inbox; the
 * end of channels_poll(), once lanes_used. */
unsigned int lanes_poll(unsigned int lcore_id);
/* Have every lcore's channels_poll() call lanes_poll() from now on: a
 * packet actor exists. */
void channels_lanes_on(void);
/* Packets in the lane from @p src_lcore to @p dst_lcore (call on the
 * source), or in @p dst_lcore's packet inbox when @p src_lcore has no
 * lanes. */
unsigned int lane_backlog(unsigned int src_lcore, unsigned int dst_lcore);
/* A turn's packet part: up to throughput packets to on_packets.
 * @return whether packets are left. */
bool packets_turn(struct lca_actor *a);
/* Free what @p a's packet queue holds, counted as dropped. */
void packets_drain(struct lca_actor *a);
/* An on_packets actor's envelopes when it has no envelope handler. */
void packets_unhandled(lca_actor_id_t self, void *state, struct lca_msg **msgs, unsigned int n);
/* Whether any packet actor was spawned: until then no lane is polled. */
extern bool lanes_used;

/* A single-producer, single-consumer ring of @p size entries on
 * @p lcore's node (lca_migrate.c), or NULL. */
struct rte_ring *spsc_ring_on(unsigned int size, unsigned int lcore, const char *what,
			      lca_actor_id_t id);

/* The lcore poll function: deliver what other lcores and threads sent
 * this one. Also called by the main thread
 * for any lcore while the loops are not running. */
unsigned int channels_poll(unsigned int lcore_id);

#endif /* LCA_ACTOR_PRIV_H */
