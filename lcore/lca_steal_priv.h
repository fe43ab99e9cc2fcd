/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_STEAL_PRIV_H
#define LCA_STEAL_PRIV_H

/* The shared dispatcher's work stealing (lca_steal.c), private to lcore/. */

#include <stdbool.h>
#include <stdint.h>

/* Queues for @p max_items items on every enabled lcore. 0 or -ENOMEM. */
int steal_init(unsigned int max_items);
void steal_cleanup(void);

/* Set once an item goes to the shared dispatcher, so that loops of apps
 * that never use it do not look at it. Read inline: every loop asks, up
 * to once a batch of turns. */
extern uint32_t steal_used;

/* Whether any item ever went to the shared dispatcher. */
static inline bool
steal_in_use(void)
{
	return __atomic_load_n(&steal_used, __ATOMIC_RELAXED) != 0;
}

/* Make @p item runnable: on the calling lcore's own queue when it runs
 * its loop (@p in_loop), else on the injection ring. */
int steal_push(void *item, bool in_loop);

/* Up to @p room items (at most a few) for @p lcore_id: its own queue
 * first, oldest first, then a share of the injection ring. */
unsigned int steal_take(unsigned int lcore_id, void **items, unsigned int room);

/* Between takes: answer a thief, and advertise what is held. */
void steal_tick(unsigned int lcore_id);

/* Once a loop: answer a thief, advertise what is held, and when @p idle
 * ask another lcore for work or take in what it handed over.
 * @return how many items were taken in by stealing. */
unsigned int steal_balance(unsigned int lcore_id, bool idle);

#endif /* LCA_STEAL_PRIV_H */
