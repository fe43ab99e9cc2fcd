/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_LCORE_PRIV_H
#define LCA_LCORE_PRIV_H

/*
 * The run loop's per-lcore context, shared by the loop (lca_lcore.c) and the
 * watch on lcores the application stopped polling (lca_lcore_watch.c).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_lcore.h>

#include "lca_lcore.h"

#define LCA_LCORE_MAX_BURST 256

/* Items whose turn asked for another: they run after what is queued,
 * without going through the run queue. */
struct again_list {
	unsigned int n;
	void *items[LCA_LCORE_MAX_BURST];
};

enum poll_state {
	POLL_OFF,      /* no run, or no lcore of the runtime: refused */
	POLL_READY,    /* a run polls it: an iteration may run */
	POLL_INSIDE,   /* an iteration runs: a poll from a handler is refused */
	POLL_OWN_LOOP, /* lcactor's own loop runs it this run: refused */
};

struct lcore_ctx {
	/* Its run queue: a plain FIFO, filled and emptied by this lcore only
	 * (or by one thread while the loops are not running), sized for every
	 * item, so no atomic and no ring header lines on the hot path. */
	void **runq;
	uint32_t head;
	uint32_t tail;
	uint32_t mask;
	struct lca_lcore_stats stats;
	uint64_t empty_loops;
	/* The loop's state from one iteration to the next, here rather than in
	 * run_loop()'s frame, so that an application's own loop calling
	 * lca_lcore_poll() runs the same iteration as lcactor's loop. */
	uint64_t prev;  /* TSC at the end of the last iteration */
	bool stale;     /* empty loops ran since `prev` was read */
	bool own_loop;  /* this run, lcactor's loop runs it (else it is polled) */
	/* Whether lca_lcore_poll() may run an iteration: one compare on its
	 * way in for every refusal. Set by a run's start and end (the main
	 * lcore), and by the poll itself around its iteration. */
	uint8_t poll_state;
	uint32_t ended; /* what it held was handed on after a stop (guest) */
	/* The watch (lca_lcore_watch.c): written by this lcore at each clock
	 * read of a guest poll, read by the other lcores. */
	uint64_t seen_tsc;
	uint64_t stalls;  /* times it went unpolled past the limit */
	uint32_t stalled; /* unpolled now, and said so */
	struct again_list again;
} __rte_cache_aligned;

extern struct lcore_ctx lca_lcores[RTE_MAX_LCORE];

/* The watch on guest lcores: a run's start arms it at @p now (@p on: a
 * guest run), or leaves it off. */
void lcore_watch_start(uint64_t now, bool on);
/* Called by a guest poll that read the clock: looks at every lcore once a
 * watch period, from whichever lcore gets there first. */
void lcore_watch_check(uint64_t now);
/* When the next look is due (TSC): the guest poll compares its clock read. */
extern uint64_t lcore_watch_next_tsc;

#endif /* LCA_LCORE_PRIV_H */
