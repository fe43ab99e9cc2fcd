/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_BALANCE_PRIV_H
#define LCA_BALANCE_PRIV_H

/* Traffic-aware placement (lca_balance.c): the controller the runtime
 * starts, and its planner, apart from the runtime so that it can be
 * tested on made-up figures. Private. */

#include <stdbool.h>
#include <stdint.h>

#include "lca_actor.h"

/* The controller on the main lcore's loop. */
int balance_init(const struct lca_runtime_conf *conf);
void balance_cleanup(void);
/* Whether the controller runs, so that senders count who they send to. */
extern bool balance_watching;

/* An actor that sent more across lcores than within, mostly to one peer.
 * Lcores are dense indices (0 .. n_lcores - 1). */
struct balance_cand {
	uint32_t self;
	uint32_t lcore;
	uint64_t weight;      /* its load in the period */
	uint32_t peer;
	uint32_t peer_lcore;
	uint64_t peer_weight;
	bool peer_pinned;     /* the peer never moves: only self may */
	uint64_t cross;       /* its sends across lcores in the period */
};

struct balance_move {
	uint32_t actor;   /* moves */
	uint32_t partner; /* the peer it moves to, or that moves to it */
	uint32_t to;      /* dense lcore index */
};

/*
 * Pick the moves of one period, most traffic first: each candidate to its
 * peer's lcore or its peer to the candidate's, whichever leaves the lower
 * load, and only into an lcore whose load then stays within @p bound x the
 * mean load. An actor or peer moves at most once. @p cand is sorted and
 * @p load updated as moves are taken.
 * @return how many moves were written to @p moves.
 */
unsigned int balance_plan(struct balance_cand *cand, unsigned int n, uint64_t *load,
			  unsigned int n_lcores, double bound, struct balance_move *moves,
			  unsigned int max_moves);

#endif /* LCA_BALANCE_PRIV_H */
