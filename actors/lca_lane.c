/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The packet lane: packets between actors as mbuf pointers, no envelope.
 *
 * A channel (lca_channel.c) copies a 64-byte envelope a message, which is
 * right for a small message and eight times what a packet needs: the mbuf
 * is already the packet's own message. So each ordered pair of runtime
 * lcores also has a lane, a single-producer single-consumer rte_ring of
 * mbuf pointers (8 bytes a packet, eight to a cache line, moved in bursts
 * as a plain DPDK pipeline moves them), and every lcore a packet inbox for
 * the other threads. What the runtime must know of a packet travels in the
 * mbuf itself, in a dynamic field (struct lca_pkt_meta): its receiver.
 *
 * - a sender on the receiver's lcore puts the burst straight into the
 *   receiver's packet queue (an SPSC ring: only the home lcore fills it,
 *   as with the mailbox) and wakes it;
 * - a sender on another runtime lcore's thread (its handlers, its hooks:
 *   that thread is the lane's one producer) enqueues the burst into the
 *   lane to the receiver's home;
 * - any other thread, and a shared actor's handler (which changes lcore
 *   from turn to turn, so only one lane-independent route keeps its order)
 *   go through the home's packet inbox (multi-producer, RTS).
 * The home's poll (lanes_poll(), at the end of channels_poll()) takes up
 * to LANE_BURST pointers a lane, and puts each run of consecutive packets
 * for one actor into its packet queue with one ring operation and one
 * wake. A run whose queue is full is held, with the rest of its lane
 * behind it, and tried again at the next poll: nothing is dropped but for
 * a stopped receiver (counted in its dropped_on_stop and packets_dropped).
 *
 * Order: one lane per lcore pair, FIFO; a packet actor never moves (it is
 * pinned, see lca_actor_migrate()), so a sender's packets to one receiver
 * stay in order. A sending actor that has just moved waits until its
 * older sends are delivered (lca_migrate.c, "settle"): until then its
 * lca_send_packets() takes nothing, as with no room.
 */
#define LCA_LOG_PART lca_logtype_actor
#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_ring.h>

#include "lca_actor_priv.h"
#include "lca_channel_priv.h"
#include "lca_eal.h"
#include "lca_lane_priv.h"
#include "lca_mempool.h"
#include "lca_logtypes_priv.h"
#include "lca_route_priv.h"

/* Pointers a lane holds: room for a stream, within LANE_BYTES_IN of lanes
 * into one lcore (4096 up to 129 lcores). */
#define LANE_SLOTS_MAX 4096
#define LANE_SLOTS_MIN 256
#define LANE_BYTES_IN (4u << 20)
#define PKT_INBOX_SIZE 4096
#define LANE_BURST 64

int lca_pkt_meta_offset = -1;
bool lanes_used;

/* What a destination took from one lane but could not queue yet. */
struct pkt_held {
	unsigned int head;
	unsigned int n;
	struct rte_mbuf *pkts[LANE_BURST];
};

/* One lcore's ends of its lanes; only that lcore touches it once set up. */
struct lane_links {
	struct rte_ring **out;   /* [dst index]: this lcore -> dst */
	struct rte_ring **in;    /* [src index]: src -> this lcore */
	struct pkt_held **held;  /* [src index], and [n] for the inbox */
	struct rte_ring *inbox;  /* from any other thread */
} __rte_cache_aligned;

static struct lane_links lanes[RTE_MAX_LCORE];
static unsigned int n_lanes; /* lcores with lanes */
static unsigned int lane_size;

static void *
zalloc(size_t size, unsigned int lcore)
{
	return lca_mempool_alloc_on_lcore("lca_lane", size, lcore);
}

/* A ring that holds @p size exactly: a lane fills in whole bursts, so a
 * burst that fits is never cut in two. */
static struct rte_ring *
ring_on(unsigned int size, unsigned int lcore, const char *name, unsigned int flags)
{
	struct rte_ring *r = zalloc(rte_ring_get_memsize(rte_align32pow2(size + 1)), lcore);

	if (r != NULL && rte_ring_init(r, name, size, flags | RING_F_EXACT_SZ) < 0) {
		lca_mempool_free(r);
		return NULL;
	}
	return r;
}

static int
meta_register(void)
{
	static const struct rte_mbuf_dynfield desc = {
		.name = "lca_pkt_meta",
		.size = sizeof(struct lca_pkt_meta),
		.align = __alignof__(struct lca_pkt_meta),
	};
	/* Registering again (a later runtime) gives the same offset. */
	int off = rte_mbuf_dynfield_register(&desc);

	if (off < 0) {
		LCA_LOG(ERR, "no mbuf dynamic field for the packet lane: %s\n",
			rte_strerror(rte_errno));
		return -rte_errno;
	}
	lca_pkt_meta_offset = off;
	return 0;
}

static int
links_init(struct lane_links *l, unsigned int me)
{
	l->in = zalloc(sizeof(*l->in) * n_lanes, me);
	l->out = zalloc(sizeof(*l->out) * n_lanes, me);
	l->held = zalloc(sizeof(*l->held) * (n_lanes + 1), me);
	if (l->in == NULL || l->out == NULL || l->held == NULL)
		return -ENOMEM;
	for (unsigned int s = 0; s <= n_lanes; s++) {
		l->held[s] = zalloc(sizeof(struct pkt_held), me);
		if (l->held[s] == NULL)
			return -ENOMEM;
	}
	/* Preempted producers, more of them than CPUs: relaxed tail sync. */
	l->inbox = ring_on(PKT_INBOX_SIZE, me, "lca_pkt_inbox", RING_F_MP_RTS_ENQ | RING_F_SC_DEQ);
	return l->inbox == NULL ? -ENOMEM : 0;
}

int
lanes_init(void)
{
	unsigned int n = channels_lcores(), slots;
	int ret = meta_register();

	if (ret < 0)
		return ret;
	n_lanes = n;
	slots = n > 1 ? LANE_BYTES_IN / sizeof(void *) / (n - 1) : LANE_SLOTS_MIN;
	slots = RTE_MAX(rte_align32prevpow2(slots), (uint32_t)LANE_SLOTS_MIN);
	lane_size = RTE_MIN(slots, (uint32_t)LANE_SLOTS_MAX);
	for (unsigned int d = 0; d < n; d++) {
		ret = links_init(&lanes[channel_lcore(d)], channel_lcore(d));
		if (ret < 0)
			return ret;
	}
	for (unsigned int d = 0; d < n; d++) {
		struct lane_links *dst = &lanes[channel_lcore(d)];

		for (unsigned int s = 0; s < n; s++) {
			if (s == d)
				continue;
			/* On the destination's node, which polls it. */
			dst->in[s] = ring_on(lane_size, channel_lcore(d), "lca_lane",
					     RING_F_SP_ENQ | RING_F_SC_DEQ);
			if (dst->in[s] == NULL)
				return -ENOMEM;
			lanes[channel_lcore(s)].out[d] = dst->in[s];
		}
	}
	return 0;
}

void
packets_drop(struct lca_actor *a, struct rte_mbuf **pkts, unsigned int n)
{
	if (a != NULL) {
		__atomic_fetch_add(&a->dropped_on_stop, n, __ATOMIC_RELAXED);
		__atomic_fetch_add(&a->pkts_dropped, n, __ATOMIC_RELAXED);
	}
	rte_pktmbuf_free_bulk(pkts, n);
}

static void
pkts_drop_each(struct rte_mbuf **pkts, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		packets_drop(actor_lookup(lca_pkt_meta(pkts[i])->to), &pkts[i], 1);
}

static void
ring_destroy(struct rte_ring *r)
{
	struct rte_mbuf *pkts[LANE_BURST];
	unsigned int n;

	if (r == NULL)
		return;
	while ((n = rte_ring_sc_dequeue_burst(r, (void **)pkts, LANE_BURST, NULL)) > 0)
		pkts_drop_each(pkts, n);
	lca_mempool_free(r);
}

void
lanes_cleanup(void)
{
	for (unsigned int i = 0; i < n_lanes; i++) {
		struct lane_links *l = &lanes[channel_lcore(i)];

		for (unsigned int j = 0; l->in != NULL && j < n_lanes; j++)
			ring_destroy(l->in[j]);
		for (unsigned int j = 0; l->held != NULL && j <= n_lanes; j++) {
			if (l->held[j] != NULL)
				pkts_drop_each(l->held[j]->pkts + l->held[j]->head, l->held[j]->n);
			lca_mempool_free(l->held[j]);
		}
		ring_destroy(l->inbox);
		lca_mempool_free(l->in);
		lca_mempool_free(l->out);
		lca_mempool_free(l->held);
		memset(l, 0, sizeof(*l));
	}
	n_lanes = 0;
	__atomic_store_n(&lanes_used, false, __ATOMIC_RELAXED);
}

unsigned int
lane_backlog(unsigned int src_lcore, unsigned int dst_lcore)
{
	if (src_lcore == dst_lcore)
		return 0;
	if (channel_from(src_lcore))
		return ring_count(lanes[src_lcore].out[channel_index(dst_lcore)]);
	return ring_count(lanes[dst_lcore].inbox);
}

/*
 * Put the front run of @p pkts that goes to one actor into its packet
 * queue with one ring operation and one wake.
 * @return how many were taken (queued, or dropped for a stopped actor);
 * 0 when the queue was full.
 */
static inline unsigned int
deliver_run(struct rte_mbuf **pkts, unsigned int n, int off)
{
	lca_actor_id_t to = lca_pkt_meta_at(pkts[0], off)->to;
	struct lca_actor *a = actor_lookup(to);
	unsigned int run = 1, done;

	while (run < n && lca_pkt_meta_at(pkts[run], off)->to == to)
		run++;
	if (unlikely(a == NULL || __atomic_load_n(&a->life, __ATOMIC_ACQUIRE) != ACTOR_ALIVE)) {
		packets_drop(a, pkts, run);
		return run;
	}
	if (actor_packets_direct(a, pkts, run))
		return run;
	done = rte_ring_sp_enqueue_burst(a->pkt_box, (void **)pkts, run, NULL);
	if (likely(done > 0))
		actor_wake(a);
	if (unlikely(done < run))
		__atomic_fetch_add(&a->deferred, 1, __ATOMIC_RELAXED);
	return done;
}

/* Deliver what @p h holds, then what @p src brings, until there is nothing
 * more or a packet queue is full (the rest waits in @p h). */
static __rte_noinline unsigned int
drain(struct pkt_held *h, struct rte_ring *src)
{
	const int off = lca_pkt_meta_offset;
	unsigned int moved = 0;

	for (;;) {
		while (h->n > 0) {
			unsigned int done = deliver_run(h->pkts + h->head, h->n, off);

			if (done == 0)
				return moved; /* full: try again next poll */
			h->head += done;
			h->n -= done;
			moved += done;
		}
		h->head = 0;
		/* No prefetch pass: deliver_run()'s loads of the fields do not
		 * depend on each other, so an out-of-order core overlaps them,
		 * and a pass would cost instructions a packet. */
		h->n = rte_ring_sc_dequeue_burst(src, (void **)h->pkts, LANE_BURST, NULL);
		if (h->n == 0)
			return moved;
	}
}

unsigned int
lanes_poll(unsigned int lcore_id)
{
	const struct lane_links *l = &lanes[lcore_id];
	unsigned int moved = 0;

	/* The idle case, a lane or the inbox with nothing in it or held, in
	 * a few loads and no call. */
	for (unsigned int s = 0; s < n_lanes; s++)
		if (l->in[s] != NULL && (l->held[s]->n > 0 || !ring_empty(l->in[s])))
			moved += drain(l->held[s], l->in[s]);
	if (l->held[n_lanes]->n > 0 || !ring_empty(l->inbox))
		moved += drain(l->held[n_lanes], l->inbox);
	return moved;
}

/* Count a refused or short send. @return @p err. */
static int
refused(int err)
{
	send_failed(err);
	return err;
}

/* Stamp @p to (and @p type when @p typed) on each packet, in one pass. */
static inline void
pkts_stamp(struct rte_mbuf **pkts, unsigned int n, lca_actor_id_t to, bool typed, uint32_t type)
{
	const int off = lca_pkt_meta_offset;

	/* Unrolled: a store a packet, so the loop's own steps were half of it. */
	if (typed) {
#pragma GCC unroll 4
		for (unsigned int i = 0; i < n; i++) {
			struct lca_pkt_meta *m = lca_pkt_meta_at(pkts[i], off);

			m->to = to;
			m->type = type;
		}
	} else {
#pragma GCC unroll 4
		for (unsigned int i = 0; i < n; i++)
			lca_pkt_meta_at(pkts[i], off)->to = to;
	}
}

static inline int
send_packets(lca_actor_id_t to, struct rte_mbuf **pkts, unsigned int n, bool typed,
	     uint32_t type)
{
	const struct actor_lcore *here = actor_lcore_here();
	const struct lca_actor *self = here->self;
	struct lca_actor *a = actor_lookup(to);
	unsigned int me = rte_lcore_id(), home, sent;
	bool shared_sender;

	if (unlikely(a == NULL))
		/* A remote reference takes envelopes (actors/remote). */
		return refused(to >= LCA_ACTOR_REMOTE_BASE && remote_send_hook != NULL ?
			       -EPROTOTYPE : -ESRCH);
	if (unlikely(__atomic_load_n(&a->life, __ATOMIC_ACQUIRE) != ACTOR_ALIVE))
		return refused(-EPIPE);
	if (unlikely(a->pkt_box == NULL))
		return refused(-EPROTOTYPE);
	if (unlikely(pkts == NULL && n > 0))
		return refused(-EINVAL);
	if (unlikely(n == 0))
		return 0;
	if (unlikely(self != NULL && self->settling)) {
		send_failed(-ENOBUFS);
		return 0;
	}
#ifdef LCA_DEBUG_ENVELOPES
	pkt_guard_send(pkts, n);
#endif
	pkts_stamp(pkts, n, to, typed, type);
	home = __atomic_load_n(&a->lcore, __ATOMIC_RELAXED); /* pinned: never changes */
	shared_sender = self != NULL && actor_is_shared(self);
	if (likely(!shared_sender && me == home)) {
		/* From its lcore's own hook, to an idle actor: run to
		 * completion, no packet queue between. */
		if (likely(actor_packets_direct(a, pkts, n)))
			return (int)n;
		sent = rte_ring_sp_enqueue_burst(a->pkt_box, (void **)pkts, n, NULL);
		if (sent > 0)
			actor_wake(a);
	} else if (likely(!shared_sender && channel_from(me))) {
		sent = rte_ring_sp_enqueue_burst(lanes[me].out[channel_index(home)], (void **)pkts,
						 n, NULL);
	} else {
		/* The generic call: the ring's own (RTS) producer sync. */
		sent = rte_ring_enqueue_burst(lanes[home].inbox, (void **)pkts, n, NULL);
	}
	if (unlikely(sent < n)) {
		__atomic_fetch_add(&a->rejected, n - sent, __ATOMIC_RELAXED);
		send_failed(-ENOBUFS);
	}
	return (int)sent;
}

int
lca_send_packets(lca_actor_id_t to, struct rte_mbuf **pkts, unsigned int n)
{
	return send_packets(to, pkts, n, false, 0);
}

int
lca_send_packets_typed(lca_actor_id_t to, uint32_t type, struct rte_mbuf **pkts, unsigned int n)
{
	return send_packets(to, pkts, n, true, type);
}

bool
packets_turn(struct lca_actor *a)
{
	struct rte_mbuf *pkts[ACTOR_THROUGHPUT_MAX];
	unsigned int n, left;

	n = rte_ring_sc_dequeue_burst(a->pkt_box, (void **)pkts, a->throughput, &left);
	if (n > 0)
		packets_handle(a, pkts, n);
	return left > 0;
}

void
packets_drain(struct lca_actor *a)
{
	struct rte_mbuf *pkts[LANE_BURST];
	unsigned int n;

	while ((n = rte_ring_sc_dequeue_burst(a->pkt_box, (void **)pkts, LANE_BURST, NULL)) > 0)
		packets_drop(a, pkts, n);
}

void
packets_unhandled(lca_actor_id_t self, void *state, struct lca_msg **msgs, unsigned int n)
{
	struct lca_actor *a = actor_lookup(self);

	(void)state;
	__atomic_store_n(&a->unhandled, a->unhandled + n, __ATOMIC_RELAXED);
	lca_msg_free_bulk(msgs, n);
}
