/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Channels: how messages between actors on different lcores cross cores.
 *
 * Moving a cache line between two cores costs hundreds of nanoseconds on
 * some machines (716 ns for a round trip on the 2-core KVM guest this was
 * built on). A send straight into a remote mailbox touches five or so lines
 * the other core owns (ring head and tail, slot, scheduled flag, run queue),
 * each a stall for the sender. So a handler's send to an actor on another
 * lcore is staged in a plain per-destination array on the sending lcore;
 * once per loop the lcore flushes each array into a single-producer,
 * single-consumer rte_ring to that lcore with one burst; the destination
 * lcore drains its channels in bursts and puts each message into its
 * actor's mailbox, where every line is local. Per burst, a few lines cross
 * instead of five per message.
 *
 * Order: one channel per lcore pair, FIFO, and an affinity sender never
 * changes lcore, so a sender's messages to one receiver stay in order.
 * Loss: a message whose mailbox is full when it arrives waits, with the
 * rest of its channel behind it, until the mailbox has room; never dropped.
 */
#include <errno.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_prefetch.h>

#include "lca_actor_priv.h"
#include "lca_mempool.h"

#define CHANNEL_SIZE 4096
#define INBOX_SIZE 16384
#define OUTBOX_SIZE 256
#define DRAIN_BURST 64


struct outbox {
	unsigned int n;
	bool listed; /* in its lcore's dirty list, to be flushed */
	struct lca_msg *msgs[OUTBOX_SIZE];
};

/* What a destination lcore took from a channel but could not deliver yet. */
struct held {
	unsigned int head;
	unsigned int n;
	struct lca_msg *msgs[DRAIN_BURST];
};

struct lcore_links {
	unsigned int index;          /* dense index among enabled lcores */
	unsigned int n_dirty;        /* outboxes with staged messages */
	unsigned int dirty[RTE_MAX_LCORE];
	struct rte_ring **in;        /* [src index]: channel src -> this lcore;
				      * [n_links]: the inbox, from any thread */
	struct rte_ring **out;       /* [dst index]: channel this lcore -> dst */
	struct outbox **outbox;      /* [dst index] */
	struct held **held;          /* [src index], and [n_links] for the inbox */
	struct rte_ring *stops;      /* actors stopped from elsewhere, to drain */
} __rte_cache_aligned;

static struct lcore_links links[RTE_MAX_LCORE];
static unsigned int lcore_of_index[RTE_MAX_LCORE];
static unsigned int n_links;

static void *
zalloc(size_t size, unsigned int lcore)
{
	return lca_mempool_alloc_on_lcore("lca_channel", size, lcore);
}

int
channels_init(unsigned int max_actors)
{
	unsigned int lcore_id, n = 0;

	RTE_LCORE_FOREACH(lcore_id) {
		links[lcore_id].index = n;
		lcore_of_index[n++] = lcore_id;
	}
	n_links = n;
	for (unsigned int d = 0; d < n; d++) {
		struct lcore_links *l = &links[lcore_of_index[d]];
		unsigned int me = lcore_of_index[d];

		l->n_dirty = 0;
		l->in = zalloc(sizeof(*l->in) * (n + 1), me);
		l->out = zalloc(sizeof(*l->out) * n, me);
		l->outbox = zalloc(sizeof(*l->outbox) * n, me);
		l->held = zalloc(sizeof(*l->held) * (n + 1), me);
		if (l->in == NULL || l->out == NULL || l->outbox == NULL || l->held == NULL)
			return -ENOMEM;
		l->in[n] = zalloc(rte_ring_get_memsize(INBOX_SIZE), me);
		l->held[n] = zalloc(sizeof(struct held), me);
		if (l->in[n] == NULL || l->held[n] == NULL)
			return -ENOMEM;
		rte_ring_init(l->in[n], "lca_inbox", INBOX_SIZE, RING_F_SC_DEQ);
		/* An actor is stopped once: room for all means a stop never
		 * waits for room. */
		l->stops = zalloc(rte_ring_get_memsize(rte_align32pow2(max_actors + 1)), me);
		if (l->stops == NULL)
			return -ENOMEM;
		rte_ring_init(l->stops, "lca_stops", max_actors, RING_F_SC_DEQ | RING_F_EXACT_SZ);
		for (unsigned int s = 0; s < n; s++) {
			size_t ring_bytes = rte_ring_get_memsize(CHANNEL_SIZE);

			if (s == d)
				continue;
			/* The destination reads the ring most; it lives there. */
			l->in[s] = zalloc(ring_bytes, me);
			l->held[s] = zalloc(sizeof(struct held), me);
			if (l->in[s] == NULL || l->held[s] == NULL)
				return -ENOMEM;
			rte_ring_init(l->in[s], "lca_chan", CHANNEL_SIZE,
				      RING_F_SP_ENQ | RING_F_SC_DEQ);
		}
	}
	for (unsigned int s = 0; s < n; s++) {
		struct lcore_links *l = &links[lcore_of_index[s]];

		for (unsigned int d = 0; d < n; d++) {
			if (s == d)
				continue;
			l->out[d] = links[lcore_of_index[d]].in[s];
			l->outbox[d] = zalloc(sizeof(struct outbox), lcore_of_index[s]);
			if (l->outbox[d] == NULL)
				return -ENOMEM;
		}
	}
	return 0;
}

/* A message that reached an actor that had stopped: it was accepted, so it
 * is counted where a stopped actor's pending messages are. */
static void
drop_for_stopped(struct lca_actor *a, struct lca_msg *m)
{
	a->dropped_on_stop++;
	lca_msg_free(m);
}

/* Free a message still in flight at teardown, and count it. */
static void
drop_entry(void *entry)
{
	struct lca_msg *m = entry;

	drop_for_stopped(actor_lookup(m->to), m);
}

void
channels_cleanup(void)
{
	for (unsigned int i = 0; i < n_links; i++) {
		struct lcore_links *l = &links[lcore_of_index[i]];

		for (unsigned int j = 0; l->in != NULL && j <= n_links; j++) {
			void *entry;

			if (j < n_links && l->outbox != NULL && l->outbox[j] != NULL) {
				for (unsigned int k = 0; k < l->outbox[j]->n; k++)
					drop_entry(l->outbox[j]->msgs[k]);
				lca_mempool_free(l->outbox[j]);
			}
			if (l->held != NULL && l->held[j] != NULL) {
				struct held *h = l->held[j];

				for (unsigned int k = 0; k < h->n; k++)
					drop_entry(h->msgs[h->head + k]);
				lca_mempool_free(h);
			}
			while (l->in[j] != NULL && rte_ring_sc_dequeue(l->in[j], &entry) == 0)
				drop_entry(entry);
			lca_mempool_free(l->in[j]);
		}
		lca_mempool_free(l->stops);
		lca_mempool_free(l->in);
		lca_mempool_free(l->out);
		lca_mempool_free(l->outbox);
		lca_mempool_free(l->held);
		memset(l, 0, sizeof(*l));
	}
	n_links = 0;
}

static unsigned int
flush_outbox(struct lcore_links *l, unsigned int d)
{
	struct outbox *o = l->outbox[d];
	unsigned int sent = rte_ring_sp_enqueue_burst(l->out[d], (void **)o->msgs, o->n, NULL);

	if (sent < o->n)
		memmove(o->msgs, o->msgs + sent, (o->n - sent) * sizeof(o->msgs[0]));
	o->n -= sent;
	return sent;
}

int
channel_stage(unsigned int src_lcore, const struct lca_actor *a, struct lca_msg *m)
{
	struct lcore_links *l = &links[src_lcore];
	unsigned int d = links[a->lcore].index;
	struct outbox *o = l->outbox[d];

	if (unlikely(o->n == OUTBOX_SIZE)) {
		flush_outbox(l, d);
		if (o->n == OUTBOX_SIZE)
			return -ENOBUFS;
	}
	if (!o->listed) {
		o->listed = true;
		l->dirty[l->n_dirty++] = d;
	}
	o->msgs[o->n++] = m;
	return 0;
}

/*
 * Put the front run of @p msgs that goes to one actor into its mailbox with
 * one ring operation and one wake.
 * @return
 *   How many were taken (delivered, or dropped for a stopped actor); 0 when
 *   the mailbox was full.
 */
static inline unsigned int
deliver_run(struct lca_msg **msgs, unsigned int n)
{
	lca_actor_id_t to;
	struct lca_actor *a;
	unsigned int run = 1, done;

	to = msgs[0]->to;
	a = actor_lookup(to);
	while (run < n && msgs[run]->to == to)
		run++;
	if (unlikely(__atomic_load_n(&a->life, __ATOMIC_ACQUIRE) != ACTOR_ALIVE)) {
		for (unsigned int i = 0; i < run; i++)
			drop_for_stopped(a, msgs[i]);
		return run;
	}
	done = rte_ring_enqueue_burst(a->mailbox, (void **)msgs, run, NULL);
	if (done > 0)
		actor_wake(a);
	if (unlikely(done < run))
		a->deferred++;
	return done;
}

static unsigned int
drain(struct held *h, struct rte_ring *in)
{
	unsigned int moved = 0;

	for (;;) {
		if (h->n == 0) {
			h->head = 0;
			h->n = rte_ring_sc_dequeue_burst(in, (void **)h->msgs, DRAIN_BURST, NULL);
			if (h->n == 0)
				return moved;
			/* The other core wrote them: start fetching every line now,
			 * not one at a time as deliver_run() reads `to`. */
			for (unsigned int i = 0; i < h->n; i++)
				rte_prefetch0(h->msgs[i]);
		}
		while (h->n > 0) {
			unsigned int done = deliver_run(h->msgs + h->head, h->n);

			h->head += done;
			h->n -= done;
			moved += done;
			if (h->n > 0 && done == 0)
				return moved; /* a mailbox is full: try again next loop */
		}
	}
}

unsigned int
channels_poll(unsigned int lcore_id)
{
	struct lcore_links *l = &links[lcore_id];
	unsigned int moved = 0, still = 0;
	void *stopped;

	for (unsigned int i = 0; i < l->n_dirty; i++) {
		unsigned int d = l->dirty[i];

		moved += flush_outbox(l, d);
		if (l->outbox[d]->n > 0)
			l->dirty[still++] = d;
		else
			l->outbox[d]->listed = false;
	}
	l->n_dirty = still;
	for (unsigned int s = 0; s <= n_links; s++)
		if (l->in[s] != NULL)
			moved += drain(l->held[s], l->in[s]);
	/* Stopped from elsewhere: their turn drains them. */
	while (rte_ring_sc_dequeue(l->stops, &stopped) == 0) {
		actor_wake(stopped);
		moved++;
	}
	return moved;
}

unsigned int
inbox_push(const struct lca_actor *a, struct lca_msg **msgs, unsigned int n)
{
	return rte_ring_mp_enqueue_burst(links[a->lcore].in[n_links], (void **)msgs, n, NULL);
}

void
stop_request(struct lca_actor *a)
{
	/* Cannot fail: the ring holds every actor, and each is stopped once. */
	rte_ring_mp_enqueue(links[a->lcore].stops, a);
}
