/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_TIMER_H
#define LCA_TIMER_H

/**
 * @file
 * Timers and delayed messages.
 *
 * A timer sends a message into an actor's control lane (lca_send_control())
 * when it expires, so it fires on time even when the actor's mailbox is
 * backed up. Each lcore keeps one rte_timer list, which its loop manages
 * (rte_timer_manage()) while it has timers armed; a timer lives on the
 * lcore that armed it. Timers are armed from runtime lcores and registered
 * threads (an EAL lcore id), not from other threads.
 *
 * Nothing is lost silently: a one-shot message that finds the control lane
 * full is tried again a little later, 10 us then doubling up to 1 ms
 * (counted in `retried`); one whose
 * actor is gone is freed (counted in `dropped`); a periodic tick that finds
 * the lane full or the pool empty is counted in `missed`.
 */

#include <stdint.h>

#include "lca_actor.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A timer's handle; 0 is none. A handle outlives its timer safely. */
typedef uint64_t lca_timer_id_t;

/** No timer. */
#define LCA_TIMER_NONE 0

/** Counters of the timers, runtime-wide. */
struct lca_timer_stats {
	uint64_t armed;     /**< Timers armed. */
	uint64_t fired;     /**< One-shot messages delivered. */
	uint64_t ticks;     /**< Periodic ticks delivered. */
	uint64_t cancelled; /**< Timers cancelled before they were done. */
	uint64_t retried;   /**< One-shot deliveries that found the lane full, tried again. */
	uint64_t missed;    /**< Periodic ticks not delivered (lane full, pool empty). */
	uint64_t dropped;   /**< Messages freed: the receiver had stopped or was gone. */
	uint32_t active;    /**< Timers armed now. */
};

/**
 * Send @p msg to @p to's control lane in @p delay_us microseconds. The timer
 * owns @p msg from a 0 return on (as a send would).
 *
 * @param[out] id
 *   The timer's handle for lca_timer_cancel(); may be NULL.
 * @return
 *   0; -EINVAL (NULL message, a message carrying an mbuf is fine);
 *   -ESRCH (no such actor); -EPIPE (stopped); -ENOSPC (every timer of
 *   lca_runtime_conf.max_timers is armed); -EPERM (called from a thread
 *   without an EAL lcore id); -ENOTSUP (the runtime is not up); -ERANGE
 *   (@p delay_us is further than the timer's 64-bit cycle counter reaches
 *   from now: about 254 years at 2.3 GHz); -EBUSY (rte_timer refused the
 *   slot: logged, never expected).
 */
LCA_API int lca_send_after(lca_actor_id_t to, struct lca_msg *msg, uint64_t delay_us,
			   lca_timer_id_t *id);

/**
 * Send a copy of @p tmpl (type, len, inline data, ptr) to @p to's control
 * lane every @p period_us microseconds, the first in @p period_us, until
 * cancelled or until the actor stops. @p tmpl stays the caller's.
 *
 * @return
 *   As lca_send_after(); -EINVAL also for a zero period or a template that
 *   carries an mbuf (it cannot be shared by every tick).
 */
LCA_API int lca_send_every(lca_actor_id_t to, const struct lca_msg *tmpl, uint64_t period_us,
			   lca_timer_id_t *id);

/**
 * Cancel a timer: a one-shot's message is freed unsent. From any lcore;
 * a timer firing at that moment elsewhere finishes that delivery first.
 *
 * @return
 *   0; -ENOENT when it has fired (one-shot) or was cancelled already, or
 *   for LCA_TIMER_NONE.
 */
LCA_API int lca_timer_cancel(lca_timer_id_t id);

/** The timers' counters. */
LCA_API void lca_timer_stats_get(struct lca_timer_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* LCA_TIMER_H */
