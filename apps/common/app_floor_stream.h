/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef APP_FLOOR_STREAM_H
#define APP_FLOOR_STREAM_H

/**
 * @file
 * A one-way floor: messages streamed from one lcore to another through a
 * bare ring of 64-byte slots, with nothing of the runtime between them.
 * What a msg/s benchmark that sends from one lcore to another is read
 * against (lca-microbench's cross-lcore and many-to-one scenarios), where
 * app_floor_bounce()'s ping-pong would measure latency instead. And the
 * helpers every app uses to turn its alternated floor and runtime rounds
 * into the figures of a verdict row (app_verdict.h).
 */

#include <stdint.h>

/** One round of the stream. */
struct app_floor_stream {
	unsigned int producer; /**< The lcore that writes the slots. */
	unsigned int consumer; /**< The lcore that reads them. */
	uint64_t messages;     /**< Through the ring, producer to consumer. */
	/** Messages the consumer handles on its own lcore besides, a burst
	 *  between two looks at the ring: the share of a many-to-one run
	 *  whose senders sit on the receiver's lcore. */
	uint64_t local;
	unsigned int burst;    /**< Local messages handled per look; 1 at least. */
	/** Does the work of @p n local messages on the consumer's lcore, as
	 *  the runtime's local senders and receiver would without it (take,
	 *  handle, give back): 0, or a negative errno that ends the round.
	 *  NULL: they are only counted. */
	int (*local_fn)(void *arg, unsigned int n);
	void *local_arg;       /**< @p local_fn's argument. */
};

/**
 * One round: the producer writes @p s->messages 64-byte slots (the
 * sequence last, into a slot the consumer has emptied: a FastForward
 * queue of 4096 slots, as deep as a channel), the consumer takes each and
 * counts it, and handles @p s->local more of its own. Timed with the TSC
 * from the producer's first write to the consumer's last count, as
 * lca-microbench times a run. Both lcores must be enabled, distinct and
 * waiting; the caller must be the main lcore.
 *
 * @param cycles
 *   The round's TSC cycles.
 * @return
 *   0; -EINVAL for a bad lcore, no message at all, a zero burst or a NULL
 *   @p cycles; -ENOMEM; -EBUSY when an lcore could not be launched;
 *   -EINTR when a signal asked the app to stop (lca_eal_stop_requested());
 *   what @p s->local_fn returned when it failed.
 */
int app_floor_stream_run(const struct app_floor_stream *s, uint64_t *cycles);

#endif /* APP_FLOOR_STREAM_H */
