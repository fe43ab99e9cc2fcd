/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef CIRCULAR_H
#define CIRCULAR_H

/*
 * lca-circular: the circular hop benchmark of tonarino/actor. N actors in a
 * ring, each knowing the next; the number of hops is sent to the first, an
 * actor that gets n > 0 sends n - 1 to the next, and the round ends at 0.
 * One message is in flight: it measures the cost of a hop.
 */

#include <stdint.h>

#include "lca_actor.h"
#include "lca_topo.h"

/* One ring size to measure. */
struct circ_conf {
	unsigned int actors;
	uint32_t hops;          /* per round */
	unsigned int warmup;    /* rounds before the measured ones */
	unsigned int iterations; /* measured launches of the loops */
	unsigned int min_rounds; /* measured rounds an iteration, at least... */
	double window_s;        /* ...and until they have taken this long... */
	unsigned int max_rounds; /* ...but no more than this */
	enum lca_placement placement;
};

/* What one ring size gave. */
struct circ_outcome {
	uint64_t *cycles;       /* [max_rounds]: an iteration's rounds, TSC cycles (caller's) */
	unsigned int *lcore_of; /* [actors]: home lcore of each actor (caller's) */
	unsigned int cross_links; /* ring links whose two ends are on different lcores */
	uint64_t handled;       /* messages handled by the ring's actors, all rounds */
	uint64_t expected;      /* rounds x (hops + 1) */
	uint64_t rounds;        /* rounds run: warm-up, launch rounds and measured */
};

/* Called with the loops stopped: with @p n 0 before the measured
 * iterations (to start the frequency monitor), with @p n > 0 after
 * iteration @p k whose @p n rounds are in out->cycles (to read them and
 * measure a floor), and with @p k = conf->iterations after the last (to
 * stop the monitor). @return 0, or a negative errno that ends the run. */
typedef int (*circ_phase_fn)(unsigned int k, unsigned int n, void *arg);

/*
 * Set up the runtime with conf->actors actors in a ring, run the warm-up
 * rounds (one launch of the loops), then conf->iterations launches, each
 * one round not counted and the measured rounds, calling @p phase around
 * and between them; check every count and tear the runtime down.
 *
 * @return
 *   0; -EIO when a count is wrong or a send failed (after a message);
 *   another negative errno from the runtime (-ETIMEDOUT, -EINTR, ...) or
 *   from @p phase.
 */
int circ_run(const struct circ_conf *conf, circ_phase_fn phase, void *arg,
	     struct circ_outcome *out);

#endif /* CIRCULAR_H */
