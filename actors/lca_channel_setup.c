/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Channels (lca_channel.c): their set-up and teardown, and the counts that
 * other parts ask of them. Nothing here is on the message path.
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/membarrier.h>

#include <rte_mbuf.h>

#include "lca_eal.h"
#include "lca_actor_priv.h"
#include "lca_channel_priv.h"
#include "lca_channel_links_priv.h"
#include "lca_mempool.h"

uint32_t ch_mask;
unsigned int ch_shift;
bool chan_asym;
bool chan_bells;
struct lcore_links chan_links[RTE_MAX_LCORE];
unsigned int chan_lcore_of[RTE_MAX_LCORE];
unsigned int chan_n_links;

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
		c->watch.bell = chan_links[dst_lcore].bell;
	}
	return c;
}

static int
links_init(struct lcore_links *l, unsigned int me, unsigned int max_actors)
{
	l->bell = zalloc(sizeof(*l->bell), me);
	l->bell_words = (uint8_t)((chan_n_links + 2 + 63) / 64);
	l->bells = chan_bells;
	l->in = zalloc(sizeof(*l->in) * chan_n_links, me);
	l->out = zalloc(sizeof(*l->out) * chan_n_links, me);
	l->held = zalloc(sizeof(*l->held) * (chan_n_links + 1), me);
	if (l->bell == NULL || l->in == NULL || l->out == NULL || l->held == NULL)
		return -ENOMEM;
	for (unsigned int s = 0; s <= chan_n_links; s++) {
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

	LCA_LCORE_FOREACH(lcore_id) {
		chan_links[lcore_id].index = (uint16_t)n;
		chan_lcore_of[n++] = lcore_id;
	}
	/* Registered once a process; where the kernel lacks it, the
	 * producers fence instead. */
	chan_bells = n >= BELLS_FROM_LCORES;
	chan_asym = chan_bells &&
		       syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
	chan_n_links = n;
	slots = n > 1 ? CHANNEL_BYTES_IN / sizeof(struct lca_msg) / (n - 1) : CHANNEL_SLOTS_MIN;
	slots = RTE_MAX(rte_align32prevpow2(slots), (uint32_t)CHANNEL_SLOTS_MIN);
	slots = RTE_MIN(slots, (uint32_t)CHANNEL_SLOTS_MAX);
	ch_mask = slots - 1;
	ch_shift = (unsigned int)rte_log2_u32(slots);
	for (unsigned int d = 0; d < n; d++) {
		ret = links_init(&chan_links[chan_lcore_of[d]], chan_lcore_of[d], max_actors);
		if (ret < 0)
			return ret;
	}
	for (unsigned int d = 0; d < n; d++) {
		struct lcore_links *dst = &chan_links[chan_lcore_of[d]];

		for (unsigned int s = 0; s < n; s++) {
			if (s == d)
				continue;
			dst->in[s] = channel_create(chan_lcore_of[d], s);
			if (dst->in[s] == NULL)
				return -ENOMEM;
			chan_links[chan_lcore_of[s]].out[d] = dst->in[s];
			/* Polled from the start, parked once found idle. */
			polled_set(dst, s, true);
		}
	}
	return 0;
}

/* A message that reached an actor that had stopped: it was accepted, so it
 * is counted where a stopped actor's pending messages are. */
void
drop_for_stopped(struct lca_actor *a, struct lca_msg *m)
{
	/* Counted by whichever lcore drops it: atomic, as a moving actor's
	 * old and new homes may both. */
	if (a != NULL)
		__atomic_fetch_add(&a->dropped_on_stop, 1, __ATOMIC_RELAXED);
	lca_msg_free(m);
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
	for (unsigned int i = 0; i < chan_n_links; i++) {
		struct lcore_links *l = &chan_links[chan_lcore_of[i]];
		void *entry;

		for (unsigned int j = 0; l->in != NULL && j < chan_n_links; j++)
			channel_destroy(l->in[j]);
		for (unsigned int j = 0; l->held != NULL && j <= chan_n_links; j++)
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
	chan_n_links = 0;
}

bool
channel_from(unsigned int lcore_id)
{
	return lcore_id < RTE_MAX_LCORE && chan_links[lcore_id].out != NULL;
}

unsigned int
channel_backlog(unsigned int src_lcore, unsigned int dst_lcore)
{
	const struct channel *c = chan_links[src_lcore].out[chan_links[dst_lcore].index];

	return c->prod.head - __atomic_load_n(&c->cons.tail, __ATOMIC_ACQUIRE);
}

unsigned int
inbox_backlog(unsigned int lcore_id)
{
	return ring_count(chan_links[lcore_id].inbox);
}

unsigned int
channel_index(unsigned int lcore_id)
{
	return chan_links[lcore_id].index;
}

unsigned int
channel_lcore(unsigned int index)
{
	return chan_lcore_of[index];
}

unsigned int
channels_lcores(void)
{
	return chan_n_links;
}

void
channels_lanes_on(void)
{
	for (unsigned int i = 0; i < chan_n_links; i++)
		__atomic_store_n(&chan_links[chan_lcore_of[i]].lanes, 1, __ATOMIC_RELAXED);
}
