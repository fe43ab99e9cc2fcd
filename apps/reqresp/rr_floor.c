/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The floor row: the request-response work with nothing between the two
 * sides of a pair but a hand-written queue per direction. An item carries
 * its sequence number, stored last, so the consumer never writes an item
 * and the producer never reads one; the consumer publishes how far it has
 * read on a line of its own once a poll, and the producer reads that only
 * when it has used up the room it learnt last time. Four items share a
 * line, so a burst costs a line per four messages. No runtime does less:
 * it is the ceiling for the placement.
 */
#include <errno.h>
#include <stdlib.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>

#include "lca_eal.h"
#include "app_floor.h"
#include "lca_freq.h"
#include "lca_mempool.h"
#include "rr_work.h"

struct floor_item {
	uint32_t seq; /* the message's number (mod 2^32), stored last */
	uint32_t id;
	const struct rr_user *user;
};

struct floor_queue {
	struct {
		uint64_t head;    /* the next message's number, from 1 */
		uint64_t room_to; /* numbers before it have a free item */
		uint32_t mask;
	} prod __rte_cache_aligned;
	struct {
		uint64_t next;    /* the number it waits for */
		uint64_t told;    /* the last `next` it published */
		uint32_t mask;
	} cons __rte_cache_aligned;
	uint64_t tail __rte_cache_aligned; /* atomic: cons.next, published */
	struct floor_item items[] __rte_cache_aligned;
};

struct floor_link {
	struct floor_queue *req; /* Q -> S */
	struct floor_queue *rsp; /* S -> Q */
};

struct floor_run {
	const struct rr_floor_pair *pairs;
	struct floor_link *links;
	unsigned int n;
	unsigned int throughput;
	uint32_t broken; /* atomic: a push found its queue full */
};

static struct floor_queue *
queue_create(uint32_t size, unsigned int lcore)
{
	struct floor_queue *fq = lca_mempool_alloc_on_lcore(
		"rr_floor", sizeof(*fq) + size * sizeof(struct floor_item), lcore);

	if (fq != NULL) {
		fq->prod.mask = fq->cons.mask = size - 1;
		fq->prod.head = fq->cons.next = fq->cons.told = fq->tail = 1;
		fq->prod.room_to = 1 + size;
	}
	return fq;
}

static inline bool
queue_push(struct floor_queue *fq, uint32_t id, const struct rr_user *user)
{
	uint64_t v = fq->prod.head;
	struct floor_item *it;

	if (unlikely(v >= fq->prod.room_to)) {
		fq->prod.room_to = __atomic_load_n(&fq->tail, __ATOMIC_ACQUIRE) +
				   fq->prod.mask + 1;
		if (v >= fq->prod.room_to)
			return false;
	}
	it = &fq->items[v & fq->prod.mask];
	it->id = id;
	it->user = user;
	__atomic_store_n(&it->seq, (uint32_t)v, __ATOMIC_RELEASE);
	fq->prod.head = v + 1;
	return true;
}

static inline bool
queue_pop(struct floor_queue *fq, uint32_t *id, const struct rr_user **user)
{
	const struct floor_item *it = &fq->items[fq->cons.next & fq->cons.mask];

	if (__atomic_load_n(&it->seq, __ATOMIC_ACQUIRE) != (uint32_t)fq->cons.next)
		return false;
	*id = it->id;
	*user = it->user;
	fq->cons.next++;
	return true;
}

/* After a poll: the items it took may be written again (release: after
 * the reads). */
static inline void
queue_publish(struct floor_queue *fq)
{
	if (fq->cons.next != fq->cons.told) {
		fq->cons.told = fq->cons.next;
		__atomic_store_n(&fq->tail, fq->cons.next, __ATOMIC_RELEASE);
	}
}

/* The service side: answer up to throughput requests, as its handler does. */
static void
serve(struct floor_run *r, unsigned int k)
{
	struct rr_service *s = r->pairs[k].s;
	const struct rr_user *unused;
	uint32_t id;

	for (unsigned int i = 0; i < r->throughput && queue_pop(r->links[k].req, &id, &unused); i++)
		if (!queue_push(r->links[k].rsp, id, service_lookup(s, id)))
			__atomic_store_n(&r->broken, 1, __ATOMIC_RELAXED);
	queue_publish(r->links[k].req);
}

/* The query side: take up to throughput replies and ask again, as its
 * handler does. */
static void
collect(struct floor_run *r, unsigned int k)
{
	struct rr_query *q = r->pairs[k].q;
	const struct rr_user *user;
	uint32_t id;

	for (unsigned int i = 0; i < r->throughput && queue_pop(r->links[k].rsp, &id, &user);
	     i++) {
		query_store(q, user, q->fifo[q->fifo_head++ & (FIFO_SIZE - 1)]);
		if (q->received == q->queries)
			break;
		if (q->sent < q->queries && !queue_push(r->links[k].req, query_ask(q), NULL))
			__atomic_store_n(&r->broken, 1, __ATOMIC_RELAXED);
	}
	queue_publish(r->links[k].rsp);
}

static int
floor_worker(void *arg)
{
	struct floor_run *r = arg;
	unsigned int me = rte_lcore_id();
	uint64_t loops = 0;
	bool busy = true;

	while (busy && !__atomic_load_n(&r->broken, __ATOMIC_RELAXED)) {
		busy = false;
		for (unsigned int k = 0; k < r->n; k++) {
			const struct rr_floor_pair *p = &r->pairs[k];

			if (p->s_lcore == me) {
				serve(r, k);
				busy |= p->s->answered < p->s->queries;
			}
			if (p->q_lcore == me) {
				collect(r, k);
				busy |= p->q->received < p->q->queries;
			}
		}
		/* No run loop here to sample the clock or see a signal: do
		 * both as one would. */
		if ((++loops & 1023) == 0) {
			lca_freq_poll(me, rte_rdtsc());
			if (lca_eal_stop_requested())
				break;
		}
	}
	return 0;
}

static void
links_free(struct floor_link *links, unsigned int n)
{
	for (unsigned int k = 0; k < n; k++) {
		lca_mempool_free(links[k].req);
		lca_mempool_free(links[k].rsp);
	}
	free(links);
}

int
rr_floor_run(const struct rr_floor_pair *pairs, unsigned int n, unsigned int throughput,
	     uint64_t *cycles)
{
	struct floor_run r = {
		.pairs = pairs, .n = n, .throughput = throughput,
		.links = calloc(n, sizeof(struct floor_link)),
	};
	/* Room for every request in flight twice over: a push never waits. */
	uint32_t size = rte_align32pow2(RTE_MAX(8u, 4 * throughput));
	uint64_t start;
	int ret = r.links == NULL ? -ENOMEM : 0;

	for (unsigned int k = 0; ret == 0 && k < n; k++) {
		/* Each queue on the node of the side that polls it. */
		r.links[k].req = queue_create(size, pairs[k].s_lcore);
		r.links[k].rsp = queue_create(size, pairs[k].q_lcore);
		if (r.links[k].req == NULL || r.links[k].rsp == NULL)
			ret = -ENOMEM;
	}
	if (ret < 0) {
		links_free(r.links, n);
		return ret;
	}
	start = rte_rdtsc();
	for (unsigned int k = 0; k < n; k++) {
		uint64_t in_flight = RTE_MIN(2ull * throughput, pairs[k].q->queries);

		for (uint64_t i = 0; i < in_flight; i++)
			queue_push(r.links[k].req, query_ask(pairs[k].q), NULL);
	}
	ret = app_floor_run_all(floor_worker, &r);
	*cycles = rte_rdtsc() - start;
	links_free(r.links, n);
	if (ret == 0 && r.broken)
		ret = -EIO;
	if (ret == 0 && lca_eal_stop_requested())
		ret = -EINTR;
	return ret;
}
