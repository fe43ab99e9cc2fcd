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
#include "lca_channel_priv.h"
#include "lca_channel_links_priv.h"
#include "lca_control_priv.h"
#include "lca_lane_priv.h"
#include "lca_mempool.h"
#include "lca_migrate_priv.h"

/*
 * A slot's line, asked for ahead of its write. GCC emits PREFETCHT0 for
 * this on x86 without PRFCHW, and that is what is wanted: PREFETCHW (the
 * line owned at once) streamed 8 % slower across lcores on the 2-vCPU
 * EPYC guest, and slowed the floor stream by 16-20 % when the host made
 * line transfers dear (docs/benchmarks.md, "PREFETCHW out of the channel").
 */
static inline void
prefetch_for_write(const void *p)
{
	__builtin_prefetch(p, 1, 3);
}

/* A full barrier on every thread of the process (see struct bell). */
static void
barrier_everywhere(void)
{
	rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (chan_asym)
		syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
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
	if (likely(chan_asym))
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	else
		rte_atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (unlikely(__atomic_load_n(&c->watch.parked, __ATOMIC_RELAXED)))
		bell_ring(c->watch.bell, c->watch.bit);
}

int
channel_put_to(unsigned int src_lcore, unsigned int dst_lcore, const struct lca_msg *m)
{
	struct channel *c = chan_links[src_lcore].out[chan_links[dst_lcore].index];
	uint32_t head = c->prod.head;

	if (unlikely(!channel_room(c)))
		return -ENOBUFS;
	/* Ask for the line of a slot a few ahead now: under a stream each
	 * store otherwise waits for its line from the consumer's cache. Not
	 * the next one, which an idle consumer is polling. */
	prefetch_for_write(&c->slots[(head + PUT_AHEAD) & ch_mask]);
	slot_write(&c->slots[head & ch_mask], m, lap_tag(head));
	c->prod.head = head + 1;
	if (unlikely(chan_bells))
		bell_after_put(c);
	return 0;
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
		if ((actor_is_shared(r) ? rte_ring_enqueue_burst(r->mailbox, (void **)&m, 1, NULL) :
					  mailbox_put_here(r, &m, 1)) != 1)
			return -ENOBUFS;
		actor_wake(r);
		return 0;
	}
	return channel_send(lcore_id, home, &m, 1) == 1 ? 0 : -ENOBUFS;
}

/*
 * Put the front run of @p msgs that goes to one actor into its mailbox with
 * one ring operation and one wake.
 * @return
 *   How many were taken (delivered, dropped for a stopped actor, or sent on
 *   to where it moved); 0 when the mailbox was full.
 */
static inline unsigned int
deliver_run(struct lca_msg **msgs, unsigned int n, unsigned int lcore_id, bool direct)
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
	if (unlikely(home != lcore_id)) {
		done = migration_on_arrival(a, msgs, run, lcore_id, home);
	} else if (likely(direct) && likely(actor_can_take_direct(a, run))) {
		/* Nothing of its waits and it is idle: no mailbox, no queue. */
		actor_turn_direct(a, msgs, run);
		return run;
	} else {
		/* Single-producer: what a channel or an inbox carries is for
		 * an affinity actor, and its home is this lcore. */
		done = mailbox_put_here(a, msgs, run);
		if (done > 0)
			actor_wake(a);
	}
	if (unlikely(done < run))
		__atomic_fetch_add(&a->deferred, 1, __ATOMIC_RELAXED);
	return done;
}

/* Deliver what @p h holds. @return how many; stops at a full mailbox. */
static unsigned int
deliver_held(struct held *h, unsigned int lcore_id)
{
	unsigned int moved = 0;
	bool direct;

	if (h->n == 0)
		return 0;
	/* Idle actors' handlers run from the drain only on an lcore's own
	 * loop: asked once a burst, not once a run. */
	direct = lcore_id == rte_lcore_id() && actor_direct_here();
	while (h->n > 0) {
		unsigned int done = deliver_run(h->msgs + h->head, h->n, lcore_id, direct);

		if (done == 0)
			break; /* a mailbox is full: try again next loop */
		h->head += done;
		h->n -= done;
		moved += done;
	}
	return moved;
}

/* Take up to DRAIN_BURST full slots into envelopes from this thread's
 * stash (its lcore's pool behind it). @return how many; 0 when none is
 * full, or when the pool is empty (they wait in their slots). */
static __rte_always_inline unsigned int
channel_take(void *src, struct lca_msg **msgs)
{
	struct channel *c = src;
	uint32_t tail = c->cons.tail;
	struct lca_stash *s;
	unsigned int n = 0;

	while (n < DRAIN_BURST && slot_full(c, tail + n)) {
		rte_prefetch0(&c->slots[(tail + n + 1) & ch_mask]);
		n++;
	}
	if (n == 0)
		return 0;
	/* An lcore's own thread drains (its loop, or the main lcore between
	 * runs), so there is a stash. */
	s = lca_stash_here();
	if (unlikely(s == NULL) || lca_stash_get(s, (void **)msgs, n) != 0)
		return 0;
	for (unsigned int i = 0; i < n; i++) {
		envelope_taken(msgs[i]);
		memcpy(msgs[i], &c->slots[(tail + i) & ch_mask], sizeof(*msgs[i]));
		msgs[i]->pool = s->pool;
		msg_prefetch_payload(msgs[i]);
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
	const struct lcore_links *l = &chan_links[lcore_id];

	return l->held[chan_n_links]->n == 0 && ring_empty(l->inbox);
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
			h = l->held[chan_n_links];
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
	struct lcore_links *l = &chan_links[lcore_id];
	const unsigned int n_links = chan_n_links;
	unsigned int moved = 0;

	if (l->bells)
		return poll_bells(l, lcore_id);
	/* Without bells (two lcores): every channel, the inbox, the control
	 * ring, as each poll did before the bells. A source with nothing held
	 * and nothing new costs one look: a message that arrives waits half
	 * an idle loop, on average, to be seen. */
	for (unsigned int s = 0; s < n_links; s++) {
		struct channel *c = l->in[s];
		struct held *h = l->held[s];

		if (c == NULL || (h->n == 0 && !slot_full(c, c->cons.tail)))
			continue;
		moved += drain(h, channel_take, c, lcore_id);
	}
	if (l->held[n_links]->n > 0 || !ring_empty(l->inbox))
		moved += drain(l->held[n_links], inbox_take, l->inbox, lcore_id);
	if (unlikely(__atomic_load_n(&l->lanes, __ATOMIC_RELAXED)))
		moved += lanes_poll(lcore_id);
	if (unlikely(!ring_empty(l->ctl)))
		moved += ctl_poll(l, lcore_id);
	return moved;
}

unsigned int
inbox_push(struct lca_actor *a, struct lca_msg **msgs, unsigned int n)
{
	struct pusher *p = migration_push_begin(a);
	unsigned int lcore = __atomic_load_n(&a->lcore, __ATOMIC_ACQUIRE);
	unsigned int sent;

	migration_push_home(p, lcore);
	/* The generic call: the ring's own (RTS) producer sync. */
	sent = rte_ring_enqueue_burst(chan_links[lcore].inbox, (void **)msgs, n, NULL);
	if (sent > 0 && chan_bells)
		bell_ring(chan_links[lcore].bell, bell_inbox());
	migration_push_end(p);
	return sent;
}

void
ctl_push(unsigned int lcore, struct lca_actor *a, enum ctl_kind kind)
{
	/* Actors are cache-line aligned: the low bits carry the kind. */
	rte_ring_mp_enqueue(chan_links[lcore].ctl, (void *)((uintptr_t)a | kind));
	if (chan_bells)
		bell_ring(chan_links[lcore].bell, bell_ctl());
}
