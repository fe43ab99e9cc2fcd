/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "lca_eal.h"
#include "app_floor_stream.h"

#define SLOTS 4096 /* as deep as a channel between two lcores */
/* The producer looks at the stop flag once in this many messages: a
 * signal stops a floor round of billions within a millisecond or so. */
#define STOP_EVERY 65536

/* Slots the producer asks for ahead of the one it writes (as a channel's
 * PUT_AHEAD): under a stream each store would otherwise wait for its line
 * from the consumer's cache. A plain prefetch (PREFETCHT0 here): the
 * channel's PREFETCHW, which asks for the line owned, made this floor
 * 16-20 % slower in the host's slow mode and no faster in its fast one. */
#define PUT_AHEAD 8
/* Slots the consumer takes before it publishes its tail. */
#define TAKE_BURST 64

/*
 * A message, as a runtime channel carries one: `seq` is the message's
 * number, stored last, so a slot is full for message v when it holds v
 * (a lap earlier it held v - SLOTS). The consumer never writes a slot; it
 * publishes how far it has read on a line of its own, which the producer
 * reads once it has used up the room it learnt last time, about once a
 * ring. So on the fast path the one line a message moves is its slot.
 */
struct slot {
	uint64_t seq;
	uint8_t body[RTE_CACHE_LINE_SIZE - sizeof(uint64_t)];
} __rte_cache_aligned;

struct stream {
	struct app_floor_stream s;
	struct slot *ring;
	uint64_t tail __rte_cache_aligned; /* atomic: next message the consumer wants */
	uint64_t t_start __rte_cache_aligned;
	uint64_t t_end;
	uint64_t counted;
	uint64_t checksum;
	bool stopped; /* a signal, or local_fn's failure, cut the round short */
	int local_ret; /* what local_fn returned last */
};

static int
producer(void *arg)
{
	struct stream *st = arg;
	uint8_t body[sizeof(st->ring[0].body)] = { 0 };
	uint64_t free_to = 1 + SLOTS; /* messages before it have a free slot */

	st->t_start = rte_rdtsc();
	for (uint64_t v = 1; v <= st->s.messages; v++) {
		struct slot *sl = &st->ring[v & (SLOTS - 1)];

		if ((v & (STOP_EVERY - 1)) == 0 && lca_eal_stop_requested()) {
			__atomic_store_n(&st->stopped, true, __ATOMIC_RELEASE);
			return 0;
		}
		/* A full ring: the consumer may have stopped on a signal. */
		while (v >= free_to) {
			free_to = __atomic_load_n(&st->tail, __ATOMIC_ACQUIRE) + SLOTS;
			if (v >= free_to && __atomic_load_n(&st->stopped, __ATOMIC_ACQUIRE))
				return 0;
		}
		__builtin_prefetch(&st->ring[(v + PUT_AHEAD) & (SLOTS - 1)], 1, 3);
		/* The number straight into the slot: written into `body`
		 * first, the copy's wide load of it would wait on the byte
		 * store (a failed store forward, a stall a message). */
		memcpy(sl->body, body, sizeof(sl->body));
		sl->body[0] = (uint8_t)v;
		__atomic_store_n(&sl->seq, v, __ATOMIC_RELEASE);
	}
	return 0;
}

static int
consumer(void *arg)
{
	struct stream *st = arg;
	uint8_t body[sizeof(st->ring[0].body)];
	uint64_t next = 1, local = 0, sum = 0, rounds = 0;
	const uint64_t total = st->s.messages + st->s.local;

	while (next - 1 + local < total) {
		/* What has arrived, a burst at a time, then a burst of the
		 * lcore's own. */
		for (;;) {
			uint64_t from = next;

			while (next - from < TAKE_BURST && next <= st->s.messages) {
				struct slot *sl = &st->ring[next & (SLOTS - 1)];

				if (__atomic_load_n(&sl->seq, __ATOMIC_ACQUIRE) != next)
					break;
				memcpy(body, sl->body, sizeof(body));
				sum += body[0];
				next++;
			}
			if (next == from) {
				/* Only while it waits: the flag's line stays in
				 * its cache until a signal writes it. */
				if (__atomic_load_n(&st->stopped, __ATOMIC_ACQUIRE))
					goto out;
				break;
			}
			/* Release: the producer reuses them after the reads. */
			__atomic_store_n(&st->tail, next, __ATOMIC_RELEASE);
		}
		if (local < st->s.local) {
			unsigned int n = (unsigned int)RTE_MIN((uint64_t)st->s.burst,
							       st->s.local - local);

			if (st->s.local_fn != NULL) {
				st->local_ret = st->s.local_fn(st->s.local_arg, n);
				if (st->local_ret != 0) {
					__atomic_store_n(&st->stopped, true, __ATOMIC_RELEASE);
					goto out;
				}
			}
			local += n;
		}
		if ((++rounds & (STOP_EVERY - 1)) == 0 && lca_eal_stop_requested())
			__atomic_store_n(&st->stopped, true, __ATOMIC_RELEASE);
	}
out:
	st->t_end = rte_rdtsc();
	st->counted = next - 1 + local;
	st->checksum = sum; /* the bodies are read, not only their sequence */
	return 0;
}

static bool
usable(unsigned int lcore)
{
	return lcore < RTE_MAX_LCORE && rte_lcore_is_enabled(lcore);
}

static int
launch(struct stream *st)
{
	unsigned int main_lcore = rte_get_main_lcore();
	int ret = 0;

	/* The consumer first, so that it polls before the first write. */
	if (st->s.consumer != main_lcore &&
	    rte_eal_remote_launch(consumer, st, st->s.consumer) != 0)
		return -EBUSY;
	if (st->s.producer != main_lcore) {
		if (rte_eal_remote_launch(producer, st, st->s.producer) != 0)
			ret = -EBUSY;
		else if (st->s.consumer == main_lcore)
			consumer(st);
	} else {
		producer(st);
	}
	if (ret == -EBUSY && st->s.consumer != main_lcore) {
		/* Its producer never came: feed it, so that it ends. */
		producer(st);
	}
	rte_eal_mp_wait_lcore();
	return ret;
}

int
app_floor_stream_run(const struct app_floor_stream *s, uint64_t *cycles)
{
	struct stream *st;
	int ret;

	if (s == NULL || cycles == NULL || !usable(s->producer) || !usable(s->consumer) ||
	    s->producer == s->consumer || s->messages + s->local == 0 || s->burst == 0)
		return -EINVAL;
	st = rte_zmalloc_socket("app_floor_stream", sizeof(*st), RTE_CACHE_LINE_SIZE,
			       (int)rte_lcore_to_socket_id(s->consumer));
	if (st == NULL)
		return -ENOMEM;
	st->s = *s;
	st->tail = 1;
	/* On the node of the side that polls it. */
	st->ring = rte_zmalloc_socket("app_floor_stream", SLOTS * sizeof(struct slot), 0,
				      (int)rte_lcore_to_socket_id(s->consumer));
	ret = st->ring == NULL ? -ENOMEM : launch(st);
	if (ret == 0 && st->local_ret != 0)
		ret = st->local_ret;
	else if (ret == 0 && st->stopped)
		ret = -EINTR;
	if (ret == 0)
		*cycles = st->t_end - st->t_start;
	rte_free(st->ring);
	rte_free(st);
	return ret;
}
