/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_TIMER_PRIV_H
#define LCA_TIMER_PRIV_H

/* Timers (lca_timer.c): what the runtime and supervision call. Private
 * to the actor core. */

#include "lca_actor_priv.h"

int timers_init(unsigned int max_timers);
void timers_cleanup(void);
/* Run this lcore's due timers; @return how many ran. */
unsigned int timers_poll(unsigned int lcore_id);
/* Put @p a (paused, its flag held) back in this lcore's run queue in
 * @p delay_us. */
int timer_wake_after(struct lca_actor *a, uint64_t delay_us);

#endif /* LCA_TIMER_PRIV_H */
