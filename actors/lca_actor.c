/* SPDX-License-Identifier: BSD-3-Clause */
/* The data model: the actor table, an actor's life cycle from spawn to
 * free, its queries, and one actor's turn. The runtime that puts the
 * subsystems around it together is lca_runtime.c. */
#define LCA_LOG_PART lca_logtype_actor
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_mempool.h>

#include "lca_actor_priv.h"
#include "lca_ask_priv.h"      /* asks and names: hooks marked "services" */
#include "lca_channel_priv.h"
#include "lca_control_priv.h"
#include "lca_deadline_priv.h"
#include "lca_eal.h"
#include "lca_lane_priv.h"
#include "lca_mempool.h"
#include "lca_topo.h"
#include "lca_trace_priv.h"
#include "lca_logtypes_priv.h"
#include "lca_migrate_priv.h"
#include "lca_registry_priv.h"
#include "lca_supervise_priv.h"

#define MAX_THROUGHPUT ACTOR_THROUGHPUT_MAX
#define MAX_MAILBOX (1u << 28)
#define HANDLER_SAMPLE 16 /* a power of two */

struct actor_table lca_actors;
__thread struct actor_lcore lca_actor_here;

static struct {
	enum lca_placement placement;
	unsigned int n_lcores;
	unsigned int lcores[RTE_MAX_LCORE]; /* in spread order */
	uint32_t placed;                    /* atomic: actors placed by policy */
} rt;

/* An affinity actor's mailbox has one writer, its home lcore (see
 * actor_wake()), so it is single-producer whatever mode was asked: no CAS
 * per send. The mode is the producer side of a shared actor's mailbox. */
static unsigned int
mailbox_flags(enum lca_mailbox_mode mode, enum lca_dispatcher dispatcher)
{
	/* One consumer always: an actor runs on one lcore at a time. */
	static const unsigned int enq[] = {
		[LCA_MAILBOX_MP] = 0,
		[LCA_MAILBOX_SP] = RING_F_SP_ENQ,
		[LCA_MAILBOX_RTS] = RING_F_MP_RTS_ENQ,
		[LCA_MAILBOX_HTS] = RING_F_MP_HTS_ENQ,
	};
	unsigned int producer = dispatcher == LCA_DISPATCH_AFFINITY ? RING_F_SP_ENQ : enq[mode];

	return producer | RING_F_SC_DEQ | RING_F_EXACT_SZ;
}

static void
mailbox_drain(struct lca_actor *a, struct rte_ring *mb)
{
	void *msgs[64];
	unsigned int n;

	while ((n = rte_ring_sc_dequeue_burst(mb, msgs, RTE_DIM(msgs), NULL)) > 0) {
		for (unsigned int i = 0; i < n; i++)
			lca_msg_free(msgs[i]);
		__atomic_fetch_add(&a->dropped_on_stop, n, __ATOMIC_RELAXED);
	}
}

static void
actor_drain(struct lca_actor *a)
{
	struct rte_ring *control = __atomic_load_n(&a->control, __ATOMIC_ACQUIRE);

	if (control != NULL)
		mailbox_drain(a, control);
	if (a->move.old_mailbox != NULL)
		mailbox_drain(a, a->move.old_mailbox);
	if (a->first != NULL) {
		lca_msg_free(a->first);
		__atomic_store_n(&a->first, NULL, __ATOMIC_RELAXED);
		__atomic_fetch_add(&a->dropped_on_stop, 1, __ATOMIC_RELAXED);
	}
	mailbox_drain(a, a->mailbox);
	if (a->pkt_box != NULL)
		packets_drain(a);
}

/*
 * End of a turn with an empty mailbox as far as this lcore knows.
 * @return
 *   Whether the actor wants another turn at once (an affinity actor whose
 *   handler sent to itself).
 */
static inline bool
actor_unschedule(struct lca_actor *a)
{
	uint32_t expected = 0;

	if (likely(!actor_is_shared(a))) {
		/* Only this lcore fills the mailbox: nothing can race. A
		 * control message from elsewhere after this look comes with a
		 * CTL_WAKE (lca_control.c). */
		if (a->first != NULL || !ring_empty(turn_mailbox(a)) || actor_has_control(a) ||
		    (a->pkt_box != NULL && !ring_empty(a->pkt_box)))
			return true;
		a->scheduled = 0;
		/* Not scheduled, so in no queue: its new home may take it,
		 * once the poll has drained the inbox. */
		if (unlikely(a->handover_pending)) {
			a->handover_pending = false;
			ctl_push(rte_lcore_id(), a, CTL_HAND_OVER);
		}
		return false;
	}
	/* Release: the lcore that runs it next sees this turn's writes. */
	__atomic_store_n(&a->scheduled, 0, __ATOMIC_RELEASE);
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (ring_empty(a->mailbox) && !actor_has_control(a))
		return false;
	if (__atomic_compare_exchange_n(&a->scheduled, &expected, 1, false, __ATOMIC_ACQ_REL,
					__ATOMIC_RELAXED))
		lca_lcore_schedule(__atomic_load_n(&a->runq, __ATOMIC_RELAXED), a);
	return false;
}

/* mailbox_put_here() where `first` takes the mailbox's last place: what
 * fits beside it. Out of line: rare, and its count is not the caller's. */
__rte_noinline unsigned int
mailbox_put_short(struct lca_actor *a, struct lca_msg **msgs, unsigned int n)
{
	unsigned int room = rte_ring_free_count(a->mailbox);

	n = RTE_MIN(n, room > 0 ? room - 1 : 0);
	return rte_ring_sp_enqueue_burst(a->mailbox, (void **)msgs, n, NULL);
}

static void
actor_finish_stop(struct lca_actor *a)
{
	actor_drain(a);
	__atomic_store_n(&a->life, ACTOR_STOPPED, __ATOMIC_RELEASE);
	LCA_LOG(DEBUG, "actor %u '%s' stopped on lcore %u after %" PRIu64 " messages%s\n",
		a->id, a->name, rte_lcore_id(), a->handled,
		a->by_supervision ? ", by its supervision" : "");
	actor_services_stopped(a->id); /* services: its name goes, its asks end */
	actor_tell_watchers(a);
}

/* A turn took @p n messages, @p left stay: count them, and drop the late
 * replies to its asks. @return how many the handler gets. */
static __rte_always_inline unsigned int
turn_count(struct lca_actor *a, struct lca_msg **msgs, unsigned int n, unsigned int left)
{
	if (n + left > a->mailbox_hwm)
		a->mailbox_hwm = n + left;
	a->received += n;
	a->turns++;
	/* services: replies to its asks, late ones dropped */
	if (unlikely(__atomic_load_n(&asks_used, __ATOMIC_RELAXED)))
		n = asks_filter(a->id, msgs, n);
	return n;
}

/* A turn's messages: its control lane's first (it never waits behind the
 * mailbox), then the one a light local send left it (sent before anything
 * in the mailbox: it found the actor idle), then its mailbox's, up to
 * throughput. @return how many; @p left says how many stay. */
static __rte_always_inline unsigned int
turn_take(struct lca_actor *a, struct lca_msg **msgs, unsigned int *left)
{
	struct rte_ring *control = __atomic_load_n(&a->control, __ATOMIC_ACQUIRE);
	struct lca_msg *first = a->first;
	unsigned int n;

	n = unlikely(control != NULL) ?
		rte_ring_sc_dequeue_burst(control, (void **)msgs, a->throughput, NULL) : 0;
	if (first != NULL && likely(n < a->throughput)) {
		msgs[n++] = first;
		__atomic_store_n(&a->first, NULL, __ATOMIC_RELAXED);
		first = NULL;
	}
	n += rte_ring_sc_dequeue_burst(turn_mailbox(a), (void **)msgs + n, a->throughput - n,
				       left);
	*left += first != NULL;
	return turn_count(a, msgs, n, *left);
}

/* @p msgs[0..n) to the handler, but for those past their deadline.
 * @return how many it was given. */
static __rte_always_inline unsigned int
turn_handle(struct lca_actor *a, struct actor_lcore *here, struct lca_msg **msgs, unsigned int n)
{
	const bool deadlines = __atomic_load_n(&deadlines_used, __ATOMIC_RELAXED);
	unsigned int expired = 0, done = 0;

	if (a->batch) {
		for (unsigned int i = 0; unlikely(deadlines) && i < n; i++)
			if (unlikely(msgs[i]->flags & LCA_MSG_F_DEADLINE)) {
				n = i + deadlines_filter(a, msgs + i, n - i);
				break;
			}
		if (n > 0)
			a->handler.batch(a->id, a->state, msgs, n);
		if (unlikely(here->failed))
			actor_failed(a, here, NULL);
		return n;
	}
	for (unsigned int i = 0; i < n; i++) {
		struct lca_msg *m = msgs[i];

		if (unlikely(deadlines) && unlikely(m->flags & LCA_MSG_F_DEADLINE) &&
		    deadlines_filter(a, msgs + i, 1) == 0) {
			expired++;
			continue;
		}
		here->current = m;
		a->handler.one(a->id, a->state, m);
		if (unlikely(here->failed))
			actor_failed(a, here, m);
		/* What the handler left is the runtime's: gathered at the
		 * front of the turn's array (slots already handled) and freed
		 * in one call after the turn, not one call a message. */
		if (here->current != NULL)
			msgs[done++] = here->current;
	}
	here->current = NULL;
	if (done > 0)
		lca_msg_free_bulk(msgs, done);
	return n - expired;
}

/* After the handler: whether the actor wants another turn at once (the
 * lcore loop keeps an affinity actor that has mail left; a shared one
 * goes back to the shared queue, where any lcore may take it). */
static __rte_always_inline bool
turn_end(struct lca_actor *a, bool more)
{
	if (unlikely(__atomic_load_n(&a->life, __ATOMIC_ACQUIRE) != ACTOR_ALIVE))
		actor_finish_stop(a);
	else if (unlikely(a->paused))
		return false; /* its flag stays held: the backoff timer queues it */
	else if (more) {
		if (!actor_is_shared(a))
			return true;
		lca_lcore_schedule(__atomic_load_n(&a->runq, __ATOMIC_RELAXED), a);
		return false;
	}
	return actor_unschedule(a);
}

/* The handler's part of a turn on @p msgs[0..n), however they came: its
 * envelopes, then its packets (@p pkts[0..n_pkts) when given, else its
 * packet queue's), timed one turn in HANDLER_SAMPLE.
 * @return whether packets are left. */
static __rte_always_inline bool
turn_run(struct lca_actor *a, struct actor_lcore *here, struct lca_msg **msgs, unsigned int n,
	 struct rte_mbuf **pkts, unsigned int n_pkts)
{
	uint64_t start = 0, pkts_before = 0;
	bool timed, pkts_left = false;

	here->self = a;
	/* Reading the TSC costs as much as a small handler (two reads, ~20 ns
	 * in a VM), so one turn in HANDLER_SAMPLE is timed. */
	timed = (a->turns & (HANDLER_SAMPLE - 1)) == 0;
	if (timed)
		start = rte_rdtsc();
	if (unlikely(a->paused))
		a->paused = 0; /* the backoff timer woke it */
	lca_trace_handle_begin(a->id, n);
	n = turn_handle(a, here, msgs, n);
	lca_trace_handle_end(a->id, n);
	/* Its packets, unless its envelopes stopped or paused it. */
	if (unlikely(a->pkt_box != NULL) && likely(!a->paused) &&
	    __atomic_load_n(&a->life, __ATOMIC_ACQUIRE) == ACTOR_ALIVE) {
		pkts_before = a->pkts_handled;
		if (pkts != NULL)
			packets_handle(a, pkts, n_pkts);
		else
			pkts_left = packets_turn(a);
		if (unlikely(here->failed))
			actor_failed(a, here, NULL);
	} else if (unlikely(pkts != NULL)) {
		/* Stopped since the sender looked: as its queue's would be. */
		packets_drop(a, pkts, n_pkts);
	}
	if (timed) {
		a->handler_cycles += rte_rdtsc() - start;
		a->timed_msgs += n + (a->pkts_handled - pkts_before);
	}
	/* One writer; the placement controller reads it from its lcore. */
	__atomic_store_n(&a->handled, a->handled + n, __ATOMIC_RELAXED);
	here->current = NULL;
	here->self = NULL;
	return pkts_left;
}

bool
actor_turn(void *item)
{
	struct lca_actor *a = item;
	struct actor_lcore *here = actor_lcore_here();
	struct lca_msg *msgs[MAX_THROUGHPUT];
	unsigned int n, left;
	bool pkts_left;

	if (unlikely(__atomic_load_n(&a->life, __ATOMIC_ACQUIRE) != ACTOR_ALIVE)) {
		actor_finish_stop(a);
		return actor_unschedule(a);
	}
	n = turn_take(a, msgs, &left);
	pkts_left = turn_run(a, here, msgs, n, NULL, 0);
	return turn_end(a, left > 0 || pkts_left);
}

/* What a direct turn needs but for the packet queue: see
 * actor_can_take_direct(). */
static __rte_always_inline bool
idle_for_direct(const struct lca_actor *a, unsigned int n)
{
	/* `moving` first: while it moves, its old home owns `scheduled` (as
	 * in actor_wake()). */
	return !a->moving && a->scheduled == 0 && n <= a->throughput && !actor_is_shared(a) &&
	       !actor_has_control(a) && ring_empty(a->mailbox);
}

bool
actor_direct_here(void)
{
	return actor_lcore_here()->self == NULL && lca_lcore_running();
}

bool
actor_can_take_direct(const struct lca_actor *a, unsigned int n)
{
	return a->pkt_box == NULL && idle_for_direct(a, n);
}

/* After a direct turn: mail it sent itself goes on from the run queue. */
static __rte_always_inline void
direct_end(struct lca_actor *a)
{
	if (turn_end(a, false))
		lca_lcore_schedule(__atomic_load_n(&a->runq, __ATOMIC_RELAXED), a);
}

void
actor_turn_direct(struct lca_actor *a, struct lca_msg **msgs, unsigned int n)
{
	/* Held for the turn, as the run queue's turns hold it: a send to
	 * itself meanwhile queues nothing, and a backoff keeps it. */
	a->scheduled = 1;
	n = turn_count(a, msgs, n, 0);
	turn_run(a, actor_lcore_here(), msgs, n, NULL, 0);
	direct_end(a);
}

bool
actor_packets_direct(struct lca_actor *a, struct rte_mbuf **pkts, unsigned int n)
{
	if (!ring_empty(a->pkt_box) || !idle_for_direct(a, n) || !actor_direct_here())
		return false;
	a->scheduled = 1; /* as in actor_turn_direct() */
	a->turns++;
	turn_run(a, actor_lcore_here(), NULL, 0, pkts, n);
	direct_end(a);
	return true;
}

static void
actor_free(struct lca_actor *a)
{
	migration_release(a);
	lca_mempool_free(a->control);
	lca_mempool_free(a->pkt_box);
	lca_mempool_free(a->mailbox);
	lca_mempool_free(a->state);
	lca_mempool_free(a);
}

int
actors_init(unsigned int max_actors, enum lca_placement placement, const unsigned int *lcores,
	    unsigned int n_lcores)
{
	lca_actors.actors = rte_zmalloc("lca_actors", sizeof(*lca_actors.actors) * max_actors, 0);
	if (lca_actors.actors == NULL)
		return -ENOMEM;
	lca_actors.max = max_actors;
	lca_actors.count = 0;
	memset(&lca_actor_here, 0, sizeof(lca_actor_here));
	memcpy(rt.lcores, lcores, sizeof(rt.lcores[0]) * n_lcores);
	rt.n_lcores = n_lcores;
	rt.placement = placement;
	rt.placed = 0;
	return 0;
}

void
actors_cleanup(void)
{
	for (unsigned int i = 0; i < lca_actors.count; i++) {
		struct lca_actor *a = lca_actors.actors[i];

		if (a == NULL)
			continue;
		actor_finish_stop(a);
		actor_free(a);
	}
	rte_free(lca_actors.actors);
	lca_actors.actors = NULL;
	lca_actors.max = 0;
	lca_actors.count = 0;
}

static int
choose_lcore(const struct lca_actor_spec *spec, unsigned int *lcore)
{
	if (spec->lcore != LCA_LCORE_ANY) {
		if (spec->lcore >= RTE_MAX_LCORE || !lca_eal_lcore_in_use(spec->lcore)) {
			/* A zeroed spec asks for lcore 0, which -l may leave out. */
			LCA_LOG(ERR, "cannot spawn on lcore %u: not enabled (use LCA_LCORE_ANY "
				"to let the placement choose)\n", spec->lcore);
			return -EINVAL;
		}
		*lcore = spec->lcore;
		return 0;
	}
	*lcore = rt.lcores[lca_place_slot(rt.placement, rt.n_lcores,
					  __atomic_fetch_add(&rt.placed, 1, __ATOMIC_RELAXED))];
	return 0;
}

static int
check_spec(const struct lca_actor_spec *spec)
{
	unsigned int mb = spec->mailbox_size;

	unsigned int pq = spec->packet_queue_size;

	if (spec->handler != NULL && spec->batch_handler != NULL)
		return -EINVAL;
	if (spec->handler == NULL && spec->batch_handler == NULL && spec->on_packets == NULL)
		return -EINVAL;
	/* A packet actor is fed on its home lcore only (lca_lane.c). */
	if (spec->on_packets != NULL &&
	    (spec->dispatcher == LCA_DISPATCH_SHARED || (pq != 0 && !rte_is_power_of_2(pq)) ||
	     pq == 1 || pq > MAX_MAILBOX))
		return -EINVAL;
	/* The ring holds mb exactly, so it is allocated at 2 x mb slots. */
	if (mb != 0 && (!rte_is_power_of_2(mb) || mb < 2 || mb > MAX_MAILBOX))
		return -EINVAL;
	if (spec->supervision != NULL &&
	    (unsigned int)spec->supervision->strategy > LCA_SUPERVISE_STOP)
		return -EINVAL;
	if ((unsigned int)spec->mailbox_mode > LCA_MAILBOX_HTS ||
	    (unsigned int)spec->dispatcher > LCA_DISPATCH_SHARED ||
	    spec->throughput > MAX_THROUGHPUT)
		return -EINVAL;
	return 0;
}

/* An actor, its mailbox's memory and its state, on @p lcore's node. */
static struct lca_actor *
actor_alloc(const struct lca_actor_spec *spec, unsigned int lcore, unsigned int mb)
{
	struct lca_actor *a = lca_mempool_alloc_on_lcore("lca_actor", sizeof(*a), lcore);

	if (a == NULL)
		return NULL;
	a->mailbox = lca_mempool_alloc_on_lcore("lca_mailbox",
						rte_ring_get_memsize(rte_align32pow2(mb + 1)), lcore);
	if (spec->state_size > 0)
		a->state = lca_mempool_alloc_on_lcore("lca_state", spec->state_size, lcore);
	if (a->mailbox == NULL || (spec->state_size > 0 && a->state == NULL)) {
		actor_free(a);
		return NULL;
	}
	return a;
}

/* The next id: 0, or -ENOSPC when the table is full. */
static int
slot_take(uint32_t *slot)
{
	*slot = __atomic_fetch_add(&lca_actors.count, 0, __ATOMIC_RELAXED);
	do {
		if (*slot >= lca_actors.max)
			return -ENOSPC;
	} while (!__atomic_compare_exchange_n(&lca_actors.count, slot, *slot + 1, false,
					      __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
	return 0;
}

/* Its mailbox ring and, for a packet actor, its packet queue. */
static int
actor_rings_init(struct lca_actor *a, const struct lca_actor_spec *spec, unsigned int lcore,
		 uint32_t slot, unsigned int mb)
{
	char name[RTE_RING_NAMESIZE];
	int ret;

	/* Ring names are not registered (rte_ring_init), so they need not be
	 * unique; there is no memzone per actor, so 10,000s of actors fit. */
	snprintf(name, sizeof(name), "lca_mb_%u", slot);
	ret = rte_ring_init(a->mailbox, name, mb, mailbox_flags(spec->mailbox_mode, spec->dispatcher));
	if (ret < 0)
		return ret;
	if (spec->on_packets != NULL) {
		a->pkt_box = spsc_ring_on(spec->packet_queue_size ? spec->packet_queue_size :
					  LCA_PACKET_QUEUE_DEFAULT, lcore, "lca_pk", slot);
		if (a->pkt_box == NULL)
			return -ENOMEM;
	}
	return 0;
}

/* Everything else of @p spec into @p a, which gets id @p slot. */
static void
actor_fill(struct lca_actor *a, const struct lca_actor_spec *spec, unsigned int lcore,
	   uint32_t slot, unsigned int mb)
{
	a->id = slot;
	a->mailbox_size = mb;
	a->state_size = spec->state_size;
	a->move.fill_old_on = RTE_MAX_LCORE;
	a->batch = spec->batch_handler != NULL || spec->handler == NULL;
	if (spec->batch_handler != NULL)
		a->handler.batch = spec->batch_handler;
	else if (spec->handler != NULL)
		a->handler.one = spec->handler;
	else
		a->handler.batch = packets_unhandled;
	a->on_packets = spec->on_packets;
	a->throughput = spec->throughput ? spec->throughput :
		a->batch || a->on_packets ? LCA_BATCH_DEFAULT : 1;
	a->lcore = lcore;
	a->runq = spec->dispatcher == LCA_DISPATCH_SHARED ? LCA_LCORE_SHARED : lcore;
	a->life = ACTOR_ALIVE;
	snprintf(a->name, sizeof(a->name), "%s", spec->name ? spec->name : "");
	/* A lane carries no migration fences: a packet actor stays. */
	a->pinned = spec->pinned || spec->on_packets != NULL;
	a->state_init = spec->state_init;
	a->state_arg = spec->state_arg;
	rte_spinlock_init(&a->watch_lock);
	if (spec->supervision != NULL)
		a->sup = *spec->supervision;
	else
		a->sup = (struct lca_supervision){ .supervisor = LCA_ACTOR_NONE };
}

int
lca_actor_spawn(const struct lca_actor_spec *spec, lca_actor_id_t *id)
{
	struct lca_actor *a;
	unsigned int lcore, mb;
	uint32_t slot;
	int ret;

	if (!lca_actors.up)
		return -EINVAL;
	if (spec == NULL || id == NULL)
		return -EINVAL;
	ret = check_spec(spec);
	if (ret == 0)
		ret = choose_lcore(spec, &lcore);
	if (ret < 0)
		return ret;
	mb = spec->mailbox_size ? spec->mailbox_size : LCA_MAILBOX_DEFAULT;
	a = actor_alloc(spec, lcore, mb);
	if (a == NULL)
		return -ENOMEM;
	ret = slot_take(&slot);
	/* After a failure here the slot stays empty: lookups of it say "no
	 * such actor". */
	if (ret == 0)
		ret = actor_rings_init(a, spec, lcore, slot, mb);
	if (ret < 0) {
		actor_free(a);
		return ret;
	}
	actor_fill(a, spec, lcore, slot, mb);
	if (spec->state_init != NULL)
		spec->state_init(a->state, spec->state_arg);
	if (a->pkt_box != NULL) {
		__atomic_store_n(&lanes_used, true, __ATOMIC_RELAXED);
		channels_lanes_on();
	}
	__atomic_store_n(&lca_actors.actors[slot], a, __ATOMIC_RELEASE);
	*id = slot;
	LCA_LOG(DEBUG, "actor %u '%s' spawned on lcore %u (%s), throughput %u%s\n",
		slot, a->name, lcore, a->runq == LCA_LCORE_SHARED ? "shared" : "affinity",
		a->throughput, a->pinned ? ", pinned" : "");
	return 0;
}

int
actor_stop_begin(struct lca_actor *a)
{
	uint32_t alive = ACTOR_ALIVE;

	if (!__atomic_compare_exchange_n(&a->life, &alive, ACTOR_STOPPING, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return -EALREADY;
	return 0;
}

void
actor_stop_now(struct lca_actor *a)
{
	actor_finish_stop(a);
}

void
actor_stop_ask(struct lca_actor *a)
{
	/* The lcore that runs it drains it (the mailbox has one consumer):
	 * at the end of this turn when it stops itself, at its next turn
	 * otherwise (at the latest in lca_runtime_cleanup). */
	if (actor_lcore_here()->self == a)
		return;
	/* A moving actor's home wakes nothing: the control ring holds the
	 * stop until the move is over. */
	if (actor_is_shared(a) || (rte_lcore_id() == a->lcore && !a->moving))
		actor_wake(a);
	else
		ctl_push(a->lcore, a, CTL_STOP);
}

bool
lca_actor_alive(lca_actor_id_t id)
{
	struct lca_actor *a = actor_lookup(id);

	return a != NULL && __atomic_load_n(&a->life, __ATOMIC_ACQUIRE) == ACTOR_ALIVE;
}

int
lca_actor_lcore(lca_actor_id_t id)
{
	struct lca_actor *a = actor_lookup(id);

	return a == NULL ? -ESRCH : (int)__atomic_load_n(&a->lcore, __ATOMIC_ACQUIRE);
}

void *
lca_actor_state(lca_actor_id_t id)
{
	struct lca_actor *a = actor_lookup(id);

	return a == NULL ? NULL : a->state;
}

const char *
lca_actor_name(lca_actor_id_t id)
{
	struct lca_actor *a = actor_lookup(id);

	return a == NULL ? "" : a->name;
}

int
lca_actor_stats_get(lca_actor_id_t id, struct lca_actor_stats *out)
{
	struct lca_actor *a = actor_lookup(id);

	if (out == NULL)
		return -EINVAL;
	if (a == NULL)
		return -ESRCH;
	*out = (struct lca_actor_stats){
		.received = a->received,
		.handled = a->handled,
		.send_failures = a->send_failures,
		.rejected = __atomic_load_n(&a->rejected, __ATOMIC_RELAXED),
		.dropped_on_stop = a->dropped_on_stop,
		.deferred = a->deferred,
		.turns = a->turns,
		.handler_cycles = a->handler_cycles,
		.timed_msgs = a->timed_msgs,
		.failures = a->failures,
		.failed_msgs = a->failed_msgs,
		.restarts = a->restarts,
		.expired = a->expired,
		.mailbox_hwm = a->mailbox_hwm,
		.lcore = a->lcore,
		.packets = __atomic_load_n(&a->pkts_handled, __ATOMIC_RELAXED),
		.packets_dropped = __atomic_load_n(&a->pkts_dropped, __ATOMIC_RELAXED),
		.unhandled = __atomic_load_n(&a->unhandled, __ATOMIC_RELAXED),
	};
	return 0;
}

int
lca_actor_backlog(lca_actor_id_t id)
{
	const struct lca_actor *a = actor_lookup(id);
	unsigned int here = rte_lcore_id(), home, n;

	if (a == NULL)
		return -ESRCH;
	n = ring_count(a->mailbox) + (__atomic_load_n(&a->first, __ATOMIC_RELAXED) != NULL);
	if (actor_is_shared(a))
		return (int)n;
	home = __atomic_load_n(&a->lcore, __ATOMIC_ACQUIRE);
	if (a->pkt_box != NULL)
		n += ring_count(a->pkt_box);
	if (here == home)
		return (int)n;
	if (a->pkt_box != NULL)
		n += lane_backlog(here, home);
	if (channel_from(here))
		return (int)(n + channel_backlog(here, home));
	return (int)(n + inbox_backlog(home));
}

lca_actor_id_t
lca_actor_self(void)
{
	return actor_self_id();
}

unsigned int
lca_actor_count(void)
{
	return actors_count();
}
