/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Channels: how messages between actors on different lcores cross cores.
 *
 * A hop between lcores should cost what the hardware charges for moving the
 * message's one cache line, nothing more. A ring of pointers costs four
 * transfers a message: the producer's tail, the slot, the envelope the slot
 * points to (read only once the slot is), and the consumer's tail the next
 * enqueue reads. So a channel carries messages by value, one 64-byte
 * envelope to a 64-byte slot, and a slot says itself whether it is full:
 * its `pool` byte, which the receiver rewrites anyway, carries the lap tag
 * of the position it was written for, stored last with release. So on the
 * fast path neither side reads a line the other side writes, but for the
 * slot itself:
 *
 * - the consumer polls the slot at its own tail: while the channel is empty
 *   that is a hit in its own cache; the producer's write is the one
 *   transfer a message costs. It copies the slot into an envelope from its
 *   own lcore's pool cache and never writes the slot: it publishes its tail
 *   on a line of its own instead;
 * - the producer writes at its own head into slots it knows are free: it
 *   reads the consumer's tail only when it has used up the room it learnt
 *   last time (a whole channel's worth, less what was still in it), so once
 *   in about a channel's worth of messages. The sender's envelope goes back to its
 *   own pool cache at once.
 *
 * A send is visible as soon as it is made, with no flush: the loop does not
 * trade latency for batching. Under load the consumer takes up to
 * DRAIN_BURST consecutive slots a poll (the hardware prefetcher sees the
 * stream) and delivers runs to one actor with one mailbox operation.
 *
 * Order: one channel per lcore pair, FIFO, and an affinity sender never
 * changes lcore, so a sender's messages to one receiver stay in order.
 * Loss: a message whose mailbox is full when it arrives waits, with the
 * rest of its channel behind it, until the mailbox has room; so does one
 * that finds its lcore's pool empty, in its slot. Never dropped.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/membarrier.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_prefetch.h>

#include "lca_actor_priv.h"
#include "lca_channel.h"
#include "lca_control.h"
#include "lca_lane.h"
#include "lca_mempool.h"
#include "lca_migrate.h"

/* Slots a channel: room to stream without the sender waiting, within
 * CHANNEL_BYTES_IN of channels into each lcore (4096 slots, 256 KiB, a
 * channel up to 16 lcores; 1024 with 64). */
#define CHANNEL_SLOTS_MAX 4096
#define CHANNEL_SLOTS_MIN 256
#define CHANNEL_BYTES_IN (4u << 20)
#define INBOX_SIZE 16384
#define DRAIN_BURST 64
#define PUT_AHEAD 8
/* A channel is parked (see struct bell) once its tail stood still, with
 * nothing held, for PARK_CHECKS checks in a row, one each IDLE_CHECK_EVERY
 * polls: after 192 to 256 polls without a message. */
#define IDLE_CHECK_EVERY 64
#define PARK_CHECKS 3
/* A bell's bits: one a source lcore's index, then the inbox's and the
 * control ring's (bell_inbox(), bell_ctl()); one word up to 62 lcores. */
#define BELL_WORDS ((RTE_MAX_LCORE + 2 + 63) / 64)
#define PARK_MAX 8 /* channels parked at most a poll (the rest the next) */

static inline void
prefetch_for_write(const void *p)
{
#if defined(RTE_ARCH_X86)
	/* PREFETCHW (a no-op where the CPU lacks it): the line comes owned. */
	asm volatile("prefetchw %0" : : "m"(*(const char *)p));
#else
	__builtin_prefetch(p, 1, 3);
#endif
}

/*
 * The tag a slot's `pool` byte holds once it is written for position @p pos:
 * its lap, with the top bit set. A pool index never has it (there are far
 * fewer than 128 nodes), so neither a zeroed slot nor the envelope bytes
 * copied before the tag look full; a slot from the lap before has another
 * tag, and the producer is never more than a lap ahead.
 */
/* Set once by channels_init(): every channel has ch_mask + 1 slots. */
static uint32_t ch_mask;
static unsigned int ch_shift;

static inline uint8_t
lap_tag(uint32_t pos)
{
	return (uint8_t)(0x80u | ((pos >> ch_shift) & 0x7fu));
}

_Static_assert(sizeof(struct lca_msg) == RTE_CACHE_LINE_SIZE,
	       "an envelope crosses as one cache line");
_Static_assert(RTE_MAX_NUMA_NODES < 0x80, "a pool index never looks like a lap tag");

/*
 * An lcore's doorbell: what an idle poll reads instead of every channel.
 *
 * With many lcores most channels into one are empty most of the time, and
 * polling each costs a line or two a channel a poll. So the consumer polls
 * only the sources in `polled`; a channel found idle about 256 polls in
 * a row is *parked*: its producer, which reads the channel's `parked` flag
 * after each slot it writes (a line of its own, written only when the
 * flag changes, so a hit), then rings: sets the channel's bit in `rung`.
 * The inbox and the control ring, whose producers are many and rare, ring
 * on every push. The consumer takes the bits that rang (exchange, acquire:
 * the pushes before each ring are then visible) into `polled`, and an idle
 * poll reads two lines, its lcore_links and `rung`, whatever the lcores.
 *
 * No message is stranded: parking is Dekker's protocol. The consumer
 * stores `parked`, then a full barrier for every thread of the process
 * (membarrier(2), or a fence in each producer where the kernel has none),
 * then reads the slot at its tail again; the producer stores the slot's
 * tag, then reads `parked`. Either the producer's read sees `parked`, and
 * it rings, or the consumer's read sees the slot full, and it keeps
 * polling the channel: both reads missing both stores would need the two
 * orders reversed, which the barrier forbids. A ring is cleared only by the
 * consumer's exchange, which takes it; a bit that rang after that stays
 * for the next poll. A source leaves `polled` only when it was found empty
 * with nothing held after the exchange that took its last ring, so a push
 * that rang before it is seen, and one that rings after it rings again.
 */
struct bell {
	uint64_t rung[BELL_WORDS];                       /* producers set, consumer takes */
	uint64_t polled[BELL_WORDS] __rte_cache_aligned; /* the consumer's alone */
	uint32_t polls; /* the consumer's: polls of sources, for idle_check() */
};

struct channel {
	struct {
		uint32_t head;    /* next position to fill */
		uint32_t free_to; /* positions before it are known free */
	} prod __rte_cache_aligned;
	struct {
		uint32_t tail;    /* next position to take; read by the producer */
	} cons __rte_cache_aligned;
	struct {
		uint32_t parked;  /* atomic: the consumer waits for a ring */
		unsigned int bit; /* this channel's bit in the destination's bell */
		struct bell *bell;
	} watch __rte_cache_aligned;
	struct lca_msg slots[];
};

/* What a destination lcore took in but could not put in a mailbox yet. */
struct held {
	unsigned int head;
	unsigned int n;
	uint32_t seen_tail;       /* the channel's tail at the last idle check */
	unsigned int idle_checks; /* in a row that found it still, nothing held */
	struct lca_msg *msgs[DRAIN_BURST];
};

/* One lcore's ends of its links; only that lcore touches it once set up
 * (but for `lanes`, set once by a spawn). An idle poll reads this line and
 * the bell's `rung` line. */
struct lcore_links {
	uint16_t index;           /* dense index among enabled lcores */
	uint16_t n_polled;        /* bits in bell->polled */
	uint8_t lanes;            /* atomic: a packet actor exists */
	uint8_t bell_words;       /* words of the bell in use */
	uint8_t bells;            /* a copy of `bells`, on this line */
	struct channel **out;     /* [dst index]: this lcore -> dst */
	struct channel **in;      /* [src index]: src -> this lcore */
	struct held **held;       /* [src index], and [n_links] for the inbox */
	struct rte_ring *inbox;   /* from any other thread, by pointer */
	struct rte_ring *ctl;     /* enum ctl_kind work about one actor */
	struct bell *bell;
} __rte_cache_aligned;

_Static_assert(sizeof(struct lcore_links) == RTE_CACHE_LINE_SIZE, "an idle poll reads one line");

/* Whether membarrier(2) gives the consumer's barrier for every producer;
 * if not, each producer fences between its slot and `parked`. */
static bool asym_barrier;
/*
 * Whether the lcores use their bells: with one channel into each (two
 * lcores) an idle poll reads that channel, no more lines than a bell, and
 * polling it directly kept circular's hop at its cost (about 180 ns a hop
 * on dev against 200-260 ns through the bell's bookkeeping, ABAB runs in
 * the same minutes): there the poll is the one it was.
 */
static bool bells;
#define BELLS_FROM_LCORES 3

static struct lcore_links links[RTE_MAX_LCORE];
static unsigned int lcore_of_index[RTE_MAX_LCORE];
static unsigned int n_links;

static inline unsigned int
bell_inbox(void)
{
	return n_links;
}

static inline unsigned int
bell_ctl(void)
{
	return n_links + 1;
}

static void *
zalloc(size_t size, unsigned int lcore)
{
	return lca_mempool_alloc_on_lcore("lca_channel", size, lcore);
}

static struct channel *
channel_create(unsigned int dst_lcore, unsigned int src_index)
{
	/* The destination polls its slots most; they live on its node. Zeroed:
	 * no slot is full. */
	struct channel *c = zalloc(sizeof(*c) + (ch_mask + 1) * sizeof(c->slots[0]), dst_lcore);

	if (c != NULL) {
		c->prod.free_to = ch_mask + 1;
		c->watch.bit = src_index;
		c->watch.bell = links[dst_lcore].bell;
	}
	return c;
}

static inline void
bell_ring(struct bell *b, unsigned int bit)
{
	/* Release: the consumer's exchange that takes it sees the push. */
	__atomic_fetch_or(&b->rung[bit / 64], UINT64_C(1) << (bit % 64), __ATOMIC_RELEASE);
}

static inline void
polled_set(struct lcore_links *l, unsigned int bit, bool on)
{
	uint64_t m = UINT64_C(1) << (bit % 64), *w = &l->bell->polled[bit / 64];

	if (((*w & m) != 0) == on)
		return;
	*w ^= m;
	l->n_polled = (uint16_t)(l->n_polled + (on ? 1 : -1));
}

/* A full barrier on every thread of the process (see struct bell). */
static void
barrier_everywhere(void)
{
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (asym_barrier)
		syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
}

static int
links_init(struct lcore_links *l, unsigned int me, unsigned int max_actors)
{
	l->bell = zalloc(sizeof(*l->bell), me);
	l->bell_words = (uint8_t)((n_links + 2 + 63) / 64);
	l->bells = bells;
	l->in = zalloc(sizeof(*l->in) * n_links, me);
	l->out = zalloc(sizeof(*l->out) * n_links, me);
	l->held = zalloc(sizeof(*l->held) * (n_links + 1), me);
	if (l->bell == NULL || l->in == NULL || l->out == NULL || l->held == NULL)
		return -ENOMEM;
	for (unsigned int s = 0; s <= n_links; s++) {
		l->held[s] = zalloc(sizeof(struct held), me);
		if (l->held[s] == NULL)
			return -ENOMEM;
	}
	l->inbox = zalloc(rte_ring_get_memsize(INBOX_SIZE), me);
	/* One entry of each kind an actor at most: a queued entry never
	 * waits for room. */
	l->ctl = zalloc(rte_ring_get_memsize(rte_align32pow2(CTL_KINDS * max_actors + 1)), me);
	if (l->inbox == NULL || l->ctl == NULL)
		return -ENOMEM;
	/* Its producers are threads that may be preempted mid-enqueue, with
	 * more of them than CPUs: with relaxed tail sync (RTS) the others
	 * need not wait for the preempted one's tail. */
	rte_ring_init(l->inbox, "lca_inbox", INBOX_SIZE, RING_F_MP_RTS_ENQ | RING_F_SC_DEQ);
	rte_ring_init(l->ctl, "lca_ctl", CTL_KINDS * max_actors, RING_F_SC_DEQ | RING_F_EXACT_SZ);
	return 0;
}

int
channels_init(unsigned int max_actors)
{
	unsigned int lcore_id, n = 0;
	uint32_t slots;
	int ret;

	RTE_LCORE_FOREACH(lcore_id) {
		links[lcore_id].index = (uint16_t)n;
		lcore_of_index[n++] = lcore_id;
	}
	/* Registered once a process; where the kernel lacks it, the
	 * producers fence instead. */
	bells = n >= BELLS_FROM_LCORES;
	asym_barrier = bells &&
		       syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
	n_links = n;
	slots = n > 1 ? CHANNEL_BYTES_IN / sizeof(struct lca_msg) / (n - 1) : CHANNEL_SLOTS_MIN;
	slots = RTE_MAX(rte_align32prevpow2(slots), (uint32_t)CHANNEL_SLOTS_MIN);
	slots = RTE_MIN(slots, (uint32_t)CHANNEL_SLOTS_MAX);
	ch_mask = slots - 1;
	ch_shift = (unsigned int)rte_log2_u32(slots);
	for (unsigned int d = 0; d < n; d++) {
		ret = links_init(&links[lcore_of_index[d]], lcore_of_index[d], max_actors);
		if (ret < 0)
			return ret;
	}
	for (unsigned int d = 0; d < n; d++) {
		struct lcore_links *dst = &links[lcore_of_index[d]];

		for (unsigned int s = 0; s < n; s++) {
			if (s == d)
				continue;
			dst->in[s] = channel_create(lcore_of_index[d], s);
			if (dst->in[s] == NULL)
				return -ENOMEM;
			links[lcore_of_index[s]].out[d] = dst->in[s];
			/* Polled from the start, parked once found idle. */
			polled_set(dst, s, true);
		}
	}
	return 0;
}

/* A message that reached an actor that had stopped: it was accepted, so it
 * is counted where a stopped actor's pending messages are. */
static void
drop_for_stopped(struct lca_actor *a, struct lca_msg *m)
{
	/* Counted by whichever lcore drops it: atomic, as a moving actor's
	 * old and new homes may both. */
	if (a != NULL)
		__atomic_fetch_add(&a->dropped_on_stop, 1, __ATOMIC_RELAXED);
	lca_msg_free(m);
}

static inline bool
slot_full(const struct channel *c, uint32_t pos)
{
	return __atomic_load_n(&c->slots[pos & ch_mask].pool, __ATOMIC_ACQUIRE) ==
	       lap_tag(pos);
}

/* Count a message still in a slot at teardown as dropped, and free what it
 * owns. */
static void
drop_slot(const struct lca_msg *m)
{
	struct lca_actor *a = actor_lookup(m->to);

	if (a != NULL)
		__atomic_fetch_add(&a->dropped_on_stop, 1, __ATOMIC_RELAXED);
	if (m->flags & LCA_MSG_F_MBUF)
		rte_pktmbuf_free(m->ptr);
}

static void
channel_destroy(struct channel *c)
{
	if (c == NULL)
		return;
	for (uint32_t pos = c->cons.tail; slot_full(c, pos); pos++)
		drop_slot(&c->slots[pos & ch_mask]);
	lca_mempool_free(c);
}

static void
held_destroy(struct held *h)
{
	if (h == NULL)
		return;
	for (unsigned int k = 0; k < h->n; k++)
		drop_for_stopped(actor_lookup(h->msgs[h->head + k]->to), h->msgs[h->head + k]);
	lca_mempool_free(h);
}

void
channels_cleanup(void)
{
	for (unsigned int i = 0; i < n_links; i++) {
		struct lcore_links *l = &links[lcore_of_index[i]];
		void *entry;

		for (unsigned int j = 0; l->in != NULL && j < n_links; j++)
			channel_destroy(l->in[j]);
		for (unsigned int j = 0; l->held != NULL && j <= n_links; j++)
			held_destroy(l->held[j]);
		while (l->inbox != NULL && rte_ring_sc_dequeue(l->inbox, &entry) == 0)
			drop_for_stopped(actor_lookup(((struct lca_msg *)entry)->to), entry);
		lca_mempool_free(l->inbox);
		lca_mempool_free(l->ctl);
		lca_mempool_free(l->in);
		lca_mempool_free(l->out);
		lca_mempool_free(l->held);
		lca_mempool_free(l->bell);
		memset(l, 0, sizeof(*l));
	}
	n_links = 0;
}

/*
 * Write @p m into slot @p s, then its tag with release: the consumer that
 * reads the tag with acquire sees every other byte. The copied pool index
 * never looks like a tag, so the slot is not full until the tag is in.
 */
static inline void
slot_write(struct lca_msg *s, const struct lca_msg *m, uint8_t tag)
{
	memcpy(s, m, sizeof(*s));
	__atomic_store_n(&s->pool, tag, __ATOMIC_RELEASE);
}

/* Whether the producer has a free slot, learning of freed ones if not. */
static inline bool
channel_room(struct channel *c)
{
	if (likely(c->prod.head != c->prod.free_to))
		return true;
	c->prod.free_to = __atomic_load_n(&c->cons.tail, __ATOMIC_ACQUIRE) + ch_mask + 1;
	return c->prod.head != c->prod.free_to;
}

/* After a slot: ring if the consumer parked the channel (struct bell). */
static inline void
bell_after_put(struct channel *c)
{
	/* The tag before `parked`, in this order: membarrier makes the
	 * compiler's order the CPU's. */
	if (likely(asym_barrier))
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	else
		rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (unlikely(__atomic_load_n(&c->watch.parked, __ATOMIC_RELAXED)))
		bell_ring(c->watch.bell, c->watch.bit);
}

int
channel_put_to(unsigned int src_lcore, unsigned int dst_lcore, const struct lca_msg *m)
{
	struct channel *c = links[src_lcore].out[links[dst_lcore].index];
	uint32_t head = c->prod.head;

	if (unlikely(!channel_room(c)))
		return -ENOBUFS;
	/* Ask for the line of a slot a few ahead now: under a stream each
	 * store otherwise waits for its line from the consumer's cache. Not
	 * the next one, which an idle consumer is polling. */
	prefetch_for_write(&c->slots[(head + PUT_AHEAD) & ch_mask]);
	slot_write(&c->slots[head & ch_mask], m, lap_tag(head));
	c->prod.head = head + 1;
	if (unlikely(bells))
		bell_after_put(c);
	return 0;
}

bool
channel_from(unsigned int lcore_id)
{
	return lcore_id < RTE_MAX_LCORE && links[lcore_id].out != NULL;
}

unsigned int
channel_backlog(unsigned int src_lcore, unsigned int dst_lcore)
{
	const struct channel *c = links[src_lcore].out[links[dst_lcore].index];

	return c->prod.head - __atomic_load_n(&c->cons.tail, __ATOMIC_ACQUIRE);
}

unsigned int
inbox_backlog(unsigned int lcore_id)
{
	return ring_count(links[lcore_id].inbox);
}

unsigned int
channel_index(unsigned int lcore_id)
{
	return links[lcore_id].index;
}

unsigned int
channel_lcore(unsigned int index)
{
	return lcore_of_index[index];
}

int
deliver_from(struct lca_msg *m, unsigned int lcore_id)
{
	struct lca_actor *r = actor_lookup(m->to);
	unsigned int home;

	if (r == NULL || __atomic_load_n(&r->life, __ATOMIC_ACQUIRE) != ACTOR_ALIVE) {
		drop_for_stopped(r, m);
		return 0;
	}
	home = __atomic_load_n(&r->lcore, __ATOMIC_ACQUIRE);
	if (actor_is_shared(r) || home == lcore_id) {
		if (rte_ring_enqueue(r->mailbox, m) != 0)
			return -ENOBUFS;
		actor_wake(r);
		return 0;
	}
	if (channel_put_to(lcore_id, home, m) != 0)
		return -ENOBUFS;
	envelope_recycle(m);
	return 0;
}

unsigned int
channels_lcores(void)
{
	return n_links;
}

/*
 * Put the front run of @p msgs that goes to one actor into its mailbox with
 * one ring operation and one wake.
 * @return
 *   How many were taken (delivered, dropped for a stopped actor, or sent on
 *   to where it moved); 0 when the mailbox was full.
 */
static inline unsigned int
deliver_run(struct lca_msg **msgs, unsigned int n, unsigned int lcore_id)
{
	lca_actor_id_t to;
	struct lca_actor *a;
	unsigned int run = 1, done, home;

	to = msgs[0]->to;
	a = actor_lookup(to);
	/* A migration's fence or mark: never delivered. */
	if (unlikely(msgs[0]->flags & MSG_F_CONTROL))
		return migration_on_arrival(a, msgs, 1, lcore_id, lcore_id);
	while (run < n && msgs[run]->to == to && !(msgs[run]->flags & MSG_F_CONTROL))
		run++;
	if (unlikely(__atomic_load_n(&a->life, __ATOMIC_ACQUIRE) != ACTOR_ALIVE)) {
		for (unsigned int i = 0; i < run; i++)
			drop_for_stopped(a, msgs[i]);
		return run;
	}
	home = __atomic_load_n(&a->lcore, __ATOMIC_ACQUIRE);
	if (unlikely(home != lcore_id))
		done = migration_on_arrival(a, msgs, run, lcore_id, home);
	else if ((done = rte_ring_enqueue_burst(a->mailbox, (void **)msgs, run, NULL)) > 0)
		actor_wake(a);
	if (unlikely(done < run))
		__atomic_fetch_add(&a->deferred, 1, __ATOMIC_RELAXED);
	return done;
}

/* Deliver what @p h holds. @return how many; stops at a full mailbox. */
static unsigned int
deliver_held(struct held *h, unsigned int lcore_id)
{
	unsigned int moved = 0;

	while (h->n > 0) {
		unsigned int done = deliver_run(h->msgs + h->head, h->n, lcore_id);

		if (done == 0)
			break; /* a mailbox is full: try again next loop */
		h->head += done;
		h->n -= done;
		moved += done;
	}
	return moved;
}

/* Take up to DRAIN_BURST full slots into envelopes from this lcore's pool.
 * @return how many; 0 when none is full, or when the pool is empty (they
 * wait in their slots). */
static __rte_always_inline unsigned int
channel_take(void *src, struct lca_msg **msgs)
{
	struct channel *c = src;
	uint32_t tail = c->cons.tail;
	unsigned int n = 0, pool;

	while (n < DRAIN_BURST && slot_full(c, tail + n)) {
		rte_prefetch0(&c->slots[(tail + n + 1) & ch_mask]);
		n++;
	}
	if (n == 0)
		return 0;
	pool = lca_mempool_local_index();
	if (rte_mempool_get_bulk(lca_mempool_by_index(pool), (void **)msgs, n) != 0)
		return 0;
	for (unsigned int i = 0; i < n; i++) {
		envelope_taken(msgs[i]);
		memcpy(msgs[i], &c->slots[(tail + i) & ch_mask], sizeof(*msgs[i]));
		msgs[i]->pool = (uint8_t)pool;
	}
	/* Release: the producer reuses these slots only after the copies. */
	__atomic_store_n(&c->cons.tail, tail + n, __ATOMIC_RELEASE);
	return n;
}

/* Take what other threads pushed into the inbox, by pointer. */
static __rte_always_inline unsigned int
inbox_take(void *src, struct lca_msg **msgs)
{
	unsigned int n = rte_ring_sc_dequeue_burst(src, (void **)msgs, DRAIN_BURST, NULL);

	/* Other threads wrote them: fetch every line now, not one at a time
	 * as deliver_run() reads `to`. */
	for (unsigned int i = 0; i < n; i++)
		rte_prefetch0(msgs[i]);
	return n;
}

/* Deliver what @p h holds, then what @p take brings from @p src, until
 * there is nothing more or a mailbox is full (the rest waits in @p h). */
static __rte_always_inline unsigned int
drain(struct held *h, unsigned int (*take)(void *, struct lca_msg **), void *src,
      unsigned int lcore_id)
{
	unsigned int moved = 0;

	for (;;) {
		moved += deliver_held(h, lcore_id);
		if (h->n > 0)
			return moved;
		h->head = 0;
		h->n = take(src, h->msgs);
		if (h->n == 0)
			return moved;
	}
}

bool
inbox_quiet(unsigned int lcore_id)
{
	const struct lcore_links *l = &links[lcore_id];

	return l->held[n_links]->n == 0 && ring_empty(l->inbox);
}

/* Do what other threads queued for this lcore about one actor each. What
 * cannot be done yet goes back to the end of the queue for the next poll. */
static unsigned int
ctl_poll(struct lcore_links *l, unsigned int lcore_id)
{
	unsigned int n = ring_count(l->ctl);
	void *entry;

	for (unsigned int i = 0; i < n && rte_ring_sc_dequeue(l->ctl, &entry) == 0; i++) {
		struct lca_actor *a = (void *)((uintptr_t)entry & ~(uintptr_t)CTL_KIND_MASK);
		enum ctl_kind kind = (enum ctl_kind)((uintptr_t)entry & CTL_KIND_MASK);

		switch (kind) {
		case CTL_STOP: {
			unsigned int home = __atomic_load_n(&a->lcore, __ATOMIC_ACQUIRE);

			/* Only its home wakes it, and a moving actor is
			 * drained where it lands. */
			if (home != lcore_id || a->moving)
				ctl_push(home, a, CTL_STOP);
			else
				actor_wake(a);
			break;
		}
		case CTL_WAKE:
			control_wake(a, lcore_id);
			break;
		default:
			migration_ctl(a, kind, lcore_id);
			break;
		}
	}
	return n;
}

/* Take the rings into `polled`; a channel that rang is unparked.
 * @return whether the control ring rang. */
static bool
bell_answer(struct lcore_links *l)
{
	bool ctl = false;

	for (unsigned int i = 0; i < l->bell_words; i++) {
		uint64_t w;

		if (__atomic_load_n(&l->bell->rung[i], __ATOMIC_RELAXED) == 0)
			continue;
		w = __atomic_exchange_n(&l->bell->rung[i], 0, __ATOMIC_ACQUIRE);
		while (w != 0) {
			unsigned int bit = i * 64 + (unsigned int)__builtin_ctzll(w);

			w &= w - 1;
			if (bit == bell_ctl()) {
				ctl = true;
				continue;
			}
			if (bit < bell_inbox()) {
				__atomic_store_n(&l->in[bit]->watch.parked, 0, __ATOMIC_RELAXED);
				l->held[bit]->idle_checks = 0;
			}
			polled_set(l, bit, true);
		}
	}
	return ctl;
}

/* Park the channels of @p park (see struct bell): @return how many. */
static unsigned int
park(struct lcore_links *l, const unsigned int *park, unsigned int n)
{
	unsigned int parked = 0;

	for (unsigned int k = 0; k < n; k++)
		__atomic_store_n(&l->in[park[k]]->watch.parked, 1, __ATOMIC_RELAXED);
	barrier_everywhere();
	for (unsigned int k = 0; k < n; k++) {
		struct channel *c = l->in[park[k]];

		if (slot_full(c, c->cons.tail)) {
			/* A send came in between: keep polling it. */
			__atomic_store_n(&c->watch.parked, 0, __ATOMIC_RELAXED);
			l->held[park[k]]->idle_checks = 0;
			continue;
		}
		polled_set(l, park[k], false);
		parked++;
	}
	return parked;
}

/*
 * Every IDLE_CHECK_EVERY polls: park the polled channels whose tail has not
 * moved, with nothing held, for PARK_CHECKS checks in a row. Counting here
 * rather than in every poll keeps the busy poll as it was.
 */
static __rte_noinline void
idle_check(struct lcore_links *l)
{
	unsigned int n = 0, list[PARK_MAX];

	for (unsigned int i = 0; i < l->bell_words; i++) {
		for (uint64_t w = l->bell->polled[i]; w != 0; w &= w - 1) {
			unsigned int s = i * 64 + (unsigned int)__builtin_ctzll(w);
			struct held *h;
			uint32_t tail;

			if (s >= bell_inbox())
				continue;
			h = l->held[s];
			tail = l->in[s]->cons.tail;
			if (h->n > 0 || tail != h->seen_tail) {
				h->seen_tail = tail;
				h->idle_checks = 0;
			} else if (++h->idle_checks >= PARK_CHECKS && n < PARK_MAX) {
				list[n++] = s;
			}
		}
	}
	if (n > 0)
		park(l, list, n);
}

/* Poll what `polled` holds: channels, then the inbox. */
static unsigned int
poll_sources(struct lcore_links *l, unsigned int lcore_id)
{
	unsigned int moved = 0;

	for (unsigned int i = 0; i < l->bell_words; i++) {
		for (uint64_t w = l->bell->polled[i]; w != 0; w &= w - 1) {
			unsigned int bit = i * 64 + (unsigned int)__builtin_ctzll(w);
			struct held *h;

			if (likely(bit < bell_inbox())) {
				moved += drain(l->held[bit], channel_take, l->in[bit], lcore_id);
				continue;
			}
			h = l->held[n_links];
			moved += drain(h, inbox_take, l->inbox, lcore_id);
			/* After the exchange that took its ring: a push
			 * since then rings again. */
			if (h->n == 0 && ring_empty(l->inbox))
				polled_set(l, bell_inbox(), false);
		}
	}
	if (unlikely((++l->bell->polls & (IDLE_CHECK_EVERY - 1)) == 0))
		idle_check(l);
	return moved;
}

/* The poll with bells: the sources that rang or are still busy. Out of
 * line, so that the poll without them compiles as it did. */
static __rte_noinline unsigned int
poll_bells(struct lcore_links *l, unsigned int lcore_id)
{
	unsigned int moved = 0;
	bool ctl = false;

	for (unsigned int i = 0; i < l->bell_words; i++)
		if (unlikely(__atomic_load_n(&l->bell->rung[i], __ATOMIC_RELAXED) != 0)) {
			ctl = bell_answer(l);
			break;
		}
	if (l->n_polled > 0)
		moved += poll_sources(l, lcore_id);
	/* No call at all until a packet actor exists: no tax on messages. */
	if (unlikely(__atomic_load_n(&l->lanes, __ATOMIC_RELAXED)))
		moved += lanes_poll(lcore_id);
	if (unlikely(ctl))
		moved += ctl_poll(l, lcore_id);
	return moved;
}

unsigned int
channels_poll(unsigned int lcore_id)
{
	struct lcore_links *l = &links[lcore_id];
	unsigned int moved = 0;

	if (l->bells)
		return poll_bells(l, lcore_id);
	/* Without bells (two lcores): every channel, the inbox, the control
	 * ring, as each poll did before the bells. */
	for (unsigned int s = 0; s < n_links; s++)
		if (l->in[s] != NULL)
			moved += drain(l->held[s], channel_take, l->in[s], lcore_id);
	moved += drain(l->held[n_links], inbox_take, l->inbox, lcore_id);
	if (unlikely(__atomic_load_n(&l->lanes, __ATOMIC_RELAXED)))
		moved += lanes_poll(lcore_id);
	if (unlikely(!ring_empty(l->ctl)))
		moved += ctl_poll(l, lcore_id);
	return moved;
}

void
channels_lanes_on(void)
{
	for (unsigned int i = 0; i < n_links; i++)
		__atomic_store_n(&links[lcore_of_index[i]].lanes, 1, __ATOMIC_RELAXED);
}

unsigned int
inbox_push(struct lca_actor *a, struct lca_msg **msgs, unsigned int n)
{
	struct pusher *p = migration_push_begin(a);
	unsigned int lcore = __atomic_load_n(&a->lcore, __ATOMIC_ACQUIRE);
	unsigned int sent;

	migration_push_home(p, lcore);
	/* The generic call: the ring's own (RTS) producer sync. */
	sent = rte_ring_enqueue_burst(links[lcore].inbox, (void **)msgs, n, NULL);
	if (sent > 0 && bells)
		bell_ring(links[lcore].bell, bell_inbox());
	migration_push_end(p);
	return sent;
}

void
ctl_push(unsigned int lcore, struct lca_actor *a, enum ctl_kind kind)
{
	/* Actors are cache-line aligned: the low bits carry the kind. */
	rte_ring_mp_enqueue(links[lcore].ctl, (void *)((uintptr_t)a | kind));
	if (bells)
		bell_ring(links[lcore].bell, bell_ctl());
}
