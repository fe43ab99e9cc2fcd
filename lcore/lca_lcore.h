/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_LCORE_H
#define LCA_LCORE_H

/**
 * @file
 * The run loop on each lcore.
 *
 * Every enabled lcore, the main one included, runs one loop. The loop takes
 * runnable items (actors, to the layer above) from the lcore's own run queue
 * and from the shared dispatcher, and hands each to the turn function. Only
 * items that were scheduled are ever looked at, so idle items cost nothing.
 *
 * The shared dispatcher is work stealing: a shared item made runnable on an
 * lcore goes into that lcore's private FIFO (no atomic); an idle lcore asks
 * a busy one, which hands over the oldest half of its queue between takes
 * (lcore/lca_steal.c). Items made runnable by other threads, or between
 * runs, go into an injection ring that every lcore drains a share of.
 *
 * Other parts add hooks to an lcore's loop (lca_lcore_hook_add()): a poll
 * function at the start of every iteration, whose return value says whether
 * the iteration did work, and an end function after the turns, to flush
 * what they produced.
 *
 * An item is in at most one run queue at a time: whoever makes it runnable
 * schedules it once; when it still has work at the end of its turn, the turn
 * function says so and the loop runs it again, after what else is waiting
 * (without a run-queue round trip). The run queues are sized for every
 * item, so scheduling never fails for want of room.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_lcore.h>

#include "lca_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Target of lca_lcore_schedule() meaning "the shared dispatcher". */
#define LCA_LCORE_SHARED RTE_MAX_LCORE

/** Longest idle sleep (LCA_IDLE_SLEEP): 100 ms. */
#define LCA_IDLE_SLEEP_MAX_US 100000

/** What an lcore does when a loop finds nothing to run. */
enum lca_idle_policy {
	LCA_IDLE_SPIN,  /**< Poll again at once: lowest latency, 100% CPU. */
	LCA_IDLE_PAUSE, /**< rte_pause() between polls: kinder to an SMT sibling. */
	LCA_IDLE_SLEEP, /**< Sleep idle_sleep_us after idle_sleep_after empty loops. */
};

/**
 * The turn function: runs one item for one turn. Called on the lcore that
 * took the item from a run queue.
 *
 * @return
 *   true when the item wants another turn: the loop keeps it and runs it
 *   again after the items already waiting on this lcore; false when it is
 *   done (it is scheduled again by lca_lcore_schedule(), or not at all).
 */
typedef bool (*lca_lcore_turn_fn)(void *item);

/**
 * The poll function: called by every loop once per iteration before it
 * takes items, and once more when the loop returns, for work that is not an
 * item (moving messages between lcores).
 *
 * @return
 *   How much work it did; 0 counts the iteration as idle.
 */
typedef unsigned int (*lca_lcore_poll_fn)(unsigned int lcore_id);

/** Configuration of the run loops. */
struct lca_lcore_conf {
	lca_lcore_turn_fn turn;        /**< Runs one item (required). */
	lca_lcore_poll_fn poll;        /**< Optional, see lca_lcore_poll_fn. */
	unsigned int max_items;        /**< Most items ever runnable (sizes the queues). */
	enum lca_idle_policy idle;     /**< Idle policy. */
	unsigned int idle_sleep_after; /**< Empty loops before sleeping (LCA_IDLE_SLEEP). */
	unsigned int idle_sleep_us;    /**< Sleep length (LCA_IDLE_SLEEP), at most
					*   LCA_IDLE_SLEEP_MAX_US: a stop, a signal
					*   or the time limit waits up to one sleep. */
	unsigned int burst;            /**< Items taken from a run queue at once (0: 32). */
};

/** Most hooks on one lcore. */
#define LCA_LCORE_MAX_HOOKS 8

/**
 * A hook's poll function: called by its lcore's loop once per iteration,
 * before the loop takes items. A part that is not an actor (a port, the
 * frequency sampler) does its work here.
 *
 * @param lcore_id
 *   The calling lcore.
 * @param now_tsc
 *   rte_rdtsc() at the start of the iteration, or after the loop's poll
 *   function when that did work: never earlier than a time a handler run
 *   by that poll took (the runtime runs handlers there, straight from a
 *   channel), so `now_tsc - then` does not wrap.
 * @param arg
 *   As given in struct lca_lcore_hook.
 * @return
 *   How much work it did (packets taken, messages moved); 0 for none. An
 *   iteration in which no hook, no poll function and no item did any work
 *   is idle: it counts as idle cycles and the idle policy applies.
 */
typedef unsigned int (*lca_lcore_hook_poll_fn)(unsigned int lcore_id, uint64_t now_tsc,
					       void *arg);

/**
 * A hook's end function: called by its lcore's loop once per iteration,
 * after the turns, so that what they produced (sends to a port) leaves in
 * one burst. The last iteration before the loop returns calls it too.
 *
 * @param lcore_id
 *   The calling lcore.
 * @param arg
 *   As given in struct lca_lcore_hook.
 */
typedef void (*lca_lcore_hook_end_fn)(unsigned int lcore_id, void *arg);

/** A hook: what lca_lcore_hook_add() puts into an lcore's loop. */
struct lca_lcore_hook {
	lca_lcore_hook_poll_fn poll; /**< Start of each iteration; may be NULL. */
	lca_lcore_hook_end_fn end;   /**< End of each iteration; may be NULL. */
	void *arg;                   /**< Passed to both. */
};

/**
 * Add a hook to the loop of @p lcore_id. Hooks run in the order they were
 * added. They outlive lca_lcore_init() and lca_lcore_cleanup(): a part may
 * add its hooks before the runtime starts. Call while the loops are not
 * running (from the main lcore, between runs).
 *
 * @param lcore_id
 *   An enabled lcore.
 * @param hook
 *   The functions and their argument, copied; at least one function.
 * @return
 *   0; -EINVAL for a NULL or empty hook or an lcore that is not enabled;
 *   -EEXIST when the same hook (functions and argument) is there already;
 *   -ENOSPC when the lcore has LCA_LCORE_MAX_HOOKS; -EBUSY while the loops
 *   run.
 */
LCA_EXPERIMENTAL
LCA_API int lca_lcore_hook_add(unsigned int lcore_id, const struct lca_lcore_hook *hook);

/**
 * Remove the hook equal to @p hook (same functions, same argument) from the
 * loop of @p lcore_id. The hooks after it keep their order. Call while the
 * loops are not running.
 *
 * @return
 *   0; -EINVAL for a NULL hook or an lcore that is not enabled; -ENOENT
 *   when there is no such hook; -EBUSY while the loops run.
 */
LCA_EXPERIMENTAL
LCA_API int lca_lcore_hook_remove(unsigned int lcore_id, const struct lca_lcore_hook *hook);

/** Counters of one lcore's loop. Cycles are TSC cycles. */
struct lca_lcore_stats {
	uint64_t busy_cycles; /**< Cycles in loops that ran at least one item. */
	uint64_t idle_cycles; /**< Cycles in loops that found nothing. */
	uint64_t turns;       /**< Items run. */
	uint64_t loops;       /**< Loops, busy or idle. */
	uint64_t sleeps;      /**< Times the idle policy slept. */
	uint64_t steals;      /**< Shared items it took from other lcores' queues. */
};

/**
 * Create the run queues: one per enabled lcore, and the shared dispatcher's.
 *
 * @return
 *   0; -EINVAL for a bad configuration; -ENOMEM; -EEXIST when already done.
 */
LCA_EXPERIMENTAL
LCA_API int lca_lcore_init(const struct lca_lcore_conf *conf);

/** Free the run queues. The loops must not be running. */
LCA_EXPERIMENTAL
LCA_API void lca_lcore_cleanup(void);

/**
 * Put @p item on the run queue of @p lcore_id, or give it to the shared
 * dispatcher when @p lcore_id is LCA_LCORE_SHARED: from a running loop's
 * lcore into that lcore's own shared queue, from any other thread into the
 * injection ring. An lcore's own run queue has a single producer, so only
 * that lcore (or any one thread while the loops are not running) may fill
 * it.
 *
 * @return
 *   0; -EINVAL for an lcore that is not enabled.
 */
LCA_EXPERIMENTAL
LCA_API int lca_lcore_schedule(unsigned int lcore_id, void *item);

/**
 * @internal When each lcore's poll function next has work due (a TSC;
 * UINT64_MAX: none known), read through lca_lcore_due() and the others
 * below. A line each: other lcores lower it.
 */
struct lca_lcore_due {
	uint64_t tsc; /**< Atomic. */
} __rte_cache_aligned;

/** @internal Each lcore's, by lcore id. */
extern LCA_API struct lca_lcore_due lca_lcore_dues[RTE_MAX_LCORE];

/**
 * Say that @p lcore_id's poll function has work due at @p tsc (a timer's
 * expiry, EXPERIMENTAL): a burst of turns on that lcore that is still
 * running at @p tsc ends there, so that the poll comes when the work is
 * due and not after the burst. Keeps the earliest of those said (from any
 * thread); the loop forgets it once it has cut a burst short for it, and
 * the poll function says the next one. A loop with nothing due pays one
 * load a burst.
 */
static inline void
lca_lcore_due_lower(unsigned int lcore_id, uint64_t tsc)
{
	uint64_t *due = &lca_lcore_dues[lcore_id].tsc;
	uint64_t cur = __atomic_load_n(due, __ATOMIC_RELAXED);

	while (tsc < cur &&
	       !__atomic_compare_exchange_n(due, &cur, tsc, true, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
}

/** When @p lcore_id's poll function has work due (UINT64_MAX: none known). */
static inline uint64_t
lca_lcore_due(unsigned int lcore_id)
{
	return __atomic_load_n(&lca_lcore_dues[lcore_id].tsc, __ATOMIC_RELAXED);
}

/** Forget what @p lcore_id had due (its poll function, before it says the
 * next). */
static inline void
lca_lcore_due_clear(unsigned int lcore_id)
{
	__atomic_store_n(&lca_lcore_dues[lcore_id].tsc, UINT64_MAX, __ATOMIC_RELAXED);
}

/**
 * Run the loop on every enabled lcore, the calling (main) lcore included,
 * until lca_lcore_stop(), a signal, or the time limit. Returns when every
 * loop has returned.
 *
 * @param timeout_ms
 *   Most milliseconds to run (0: no limit). The main lcore checks it, so a
 *   run whose actors wait forever still ends.
 * @return
 *   0; -ETIMEDOUT when the limit stopped the loops; -EINTR on a signal;
 *   -EBUSY when the loops are already running; -EINVAL before init;
 *   -EPERM when not called from the main lcore.
 */
LCA_EXPERIMENTAL
LCA_API int lca_lcore_run(unsigned int timeout_ms);

/**
 * Start a guest run (EXPERIMENTAL): the application's own loops, not
 * lcactor's, drive the lcores, each calling lca_lcore_poll() on its lcore.
 * Returns at once. Every enabled lcore is expected to poll, the main one
 * included: one unpolled for longer than lca_lcore_stall_limit() is logged
 * and counted (lca_lcore_stalls()). End the run with lca_lcore_end().
 * @param timeout_ms
 *   Most milliseconds to run (0: no limit): past it, every poll returns
 *   -ESHUTDOWN. Any polling lcore checks it.
 * @return
 *   0; -EBUSY when a run is under way; -EINVAL before init; -EPERM when not
 *   called from the main lcore.
 */
LCA_EXPERIMENTAL
LCA_API int lca_lcore_start(unsigned int timeout_ms);

/**
 * One iteration of the calling lcore's loop, from the application's own
 * loop during a guest run (EXPERIMENTAL): the poll function, the hooks'
 * polls, the runnable items (at most a burst of turns), the hooks' ends.
 * The same iteration as lcactor's own loop runs; the idle policy is not
 * applied (idling is the loop's owner's), and the cycles between two polls
 * are the application's: the counters' busy cycles are those of polls that
 * did work, and empty polls count no cycles.
 * @return
 *   The work done (0: nothing to do); -ESHUTDOWN once the run was stopped
 *   (lca_lcore_stop(), a signal, the time limit): the first such return on
 *   each lcore has handed on what the lcore held, and the loop should stop
 *   polling; -EPERM on a thread that is not an lcore of the runtime;
 *   -EBUSY while lcactor's own loops run (lca_lcore_run()); -EDEADLK when
 *   called from inside a poll (a turn function or a hook).
 */
LCA_EXPERIMENTAL
LCA_API int lca_lcore_poll(void);

/**
 * End a guest run (EXPERIMENTAL), on the main lcore, once the
 * application's loops no longer call lca_lcore_poll() (after
 * rte_eal_mp_wait_lcore(), say): stops it if it was not stopped, and hands
 * on what each lcore that did not see the stop still holds.
 * @return
 *   As lca_lcore_run(): 0; -ETIMEDOUT; -EINTR on a signal; -EINVAL when no
 *   run is under way; -EBUSY during lcactor's own run; -EPERM when not
 *   called from the main lcore.
 */
LCA_EXPERIMENTAL
LCA_API int lca_lcore_end(void);

/**
 * How long a guest lcore may go unpolled before it is logged and counted
 * (EXPERIMENTAL). Set it between runs; 0 turns the watch off.
 * @return
 *   0; -EBUSY during a run.
 */
LCA_EXPERIMENTAL
LCA_API int lca_lcore_stall_limit_set(unsigned int ms);

/** The limit of lca_lcore_stall_limit_set() (default 1000 ms; EXPERIMENTAL). */
LCA_EXPERIMENTAL
LCA_API unsigned int lca_lcore_stall_limit(void);

/** Times @p lcore_id went unpolled past the limit in guest runs (EXPERIMENTAL). */
LCA_EXPERIMENTAL
LCA_API uint64_t lca_lcore_stalls(unsigned int lcore_id);

/**
 * Look at every polled lcore now (a guest run's, a service lcore's), as
 * the polling lcores do once a quarter limit (EXPERIMENTAL): for a thread
 * that polls none, such as a control thread, or telemetry.
 * @return
 *   How many lcores are unpolled past the limit now (0 when no run polls
 *   an lcore).
 */
LCA_EXPERIMENTAL
LCA_API int lca_lcore_watch(void);

/**
 * Ask every loop to return. Safe from any thread and from a turn function.
 */
LCA_EXPERIMENTAL
LCA_API void lca_lcore_stop(void);

/** Whether the loops are running (between lca_lcore_run()'s start and return). */
LCA_EXPERIMENTAL
LCA_API bool lca_lcore_running(void);

/** Whether the loops have been asked to stop (or a signal came). */
LCA_EXPERIMENTAL
LCA_API bool lca_lcore_stopping(void);

/**
 * Counters of @p lcore_id, since init or the last lca_lcore_stats_reset().
 *
 * @return
 *   0; -EINVAL for an lcore that is not enabled.
 */
LCA_EXPERIMENTAL
LCA_API int lca_lcore_stats_get(unsigned int lcore_id, struct lca_lcore_stats *out);

/** Zero every lcore's counters. The loops must not be running. */
LCA_EXPERIMENTAL
LCA_API void lca_lcore_stats_reset(void);

/** Name of an idle policy ("spin", "pause", "sleep"). */
LCA_EXPERIMENTAL
LCA_API const char *lca_idle_policy_name(enum lca_idle_policy p);

/**
 * Parse an idle policy name.
 *
 * @return
 *   0 and the policy in @p out; -EINVAL for an unknown name.
 */
LCA_EXPERIMENTAL
LCA_API int lca_idle_policy_parse(const char *name, enum lca_idle_policy *out);

#ifdef __cplusplus
}
#endif

#endif /* LCA_LCORE_H */
