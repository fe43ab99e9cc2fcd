/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_TOPO_H
#define LCA_TOPO_H

/**
 * @file
 * The machine's topology, from hwloc, as lcactor needs it: for each CPU its
 * core, SMT siblings, package, NUMA node and caches; and the placement of
 * actors on lcores that follows from it.
 *
 * The topology can be the real machine's or an hwloc synthetic one (for
 * example "pack:2 numa:2 core:4 pu:2"), so that multi-socket placement is
 * tested on a one-node machine.
 */

#include <stdint.h>
#include <stdio.h>

#include "lca_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque loaded topology. */
struct lca_topo;

/** Most SMT siblings recorded per CPU. */
#define LCA_TOPO_MAX_SIBLINGS 8

/** Where one CPU sits. An id is -1 when the machine has no such level. */
struct lca_topo_cpu {
	int cpu;       /**< OS CPU number. */
	int core;      /**< Logical index of its core. */
	int package;   /**< Logical index of its package (socket). */
	int numa;      /**< OS index of its NUMA node (the lowest of the nearest ones). */
	int l2;        /**< Logical index of its L2 cache. */
	int l3;        /**< Logical index of its L3 cache. */
	unsigned int l2_kb; /**< L2 size (KiB), 0 when unknown. */
	unsigned int l3_kb; /**< L3 size (KiB), 0 when unknown. */
	/** CPUs of its core, itself included, at most LCA_TOPO_MAX_SIBLINGS;
	 *  just itself when the topology has no core level. */
	unsigned int n_siblings;
	int siblings[LCA_TOPO_MAX_SIBLINGS]; /**< Their OS numbers, ascending. */
};

/** Placement policies for actors spawned without an explicit home lcore. */
enum lca_placement {
	LCA_PLACE_ROUND_ROBIN, /**< Actor i on lcore i mod n, in spread order. */
	LCA_PLACE_PACK,        /**< All on the first lcore. */
	LCA_PLACE_PAIRS_LOCAL, /**< Actors 2k and 2k+1 together on one lcore. */
	LCA_PLACE_AUTO,        /**< Round-robin at first; the runtime then moves actors
				*   that talk to each other onto one lcore. */
};

/**
 * Load a topology.
 *
 * @param[out] topo
 *   The topology; free with lca_topo_free(). NULL on failure.
 * @param synthetic
 *   NULL for this machine, or an hwloc synthetic description.
 * @return
 *   0; -EINVAL for a NULL @p topo or a bad synthetic description; -ENOMEM;
 *   -EIO when hwloc could not read the machine.
 */
LCA_EXPERIMENTAL
LCA_API int lca_topo_load(struct lca_topo **topo, const char *synthetic);

/** Free a topology. NULL is ignored. */
LCA_EXPERIMENTAL
LCA_API void lca_topo_free(struct lca_topo *topo);

/** Number of CPUs (PUs) in the topology; 0 for NULL. */
LCA_EXPERIMENTAL
LCA_API unsigned int lca_topo_cpu_count(const struct lca_topo *topo);

/** Number of NUMA nodes in the topology (1 when hwloc reports none); 0 for NULL. */
LCA_EXPERIMENTAL
LCA_API unsigned int lca_topo_numa_count(const struct lca_topo *topo);

/**
 * Where CPU @p cpu sits.
 *
 * @return
 *   0; -ENOENT when the topology has no such CPU; -EINVAL for NULL pointers.
 */
LCA_EXPERIMENTAL
LCA_API int lca_topo_cpu_info(const struct lca_topo *topo, int cpu, struct lca_topo_cpu *out);

/**
 * Order lcores so that consecutive entries spread across NUMA nodes first,
 * then across cores, with SMT siblings of a used core last.
 *
 * Nodes take turns in the order their first lcore appears, and lcores of one
 * node keep their lcore order, so the result is deterministic and an already
 * spread list is left as it is. A CPU whose core is unknown (-1) counts as a
 * core of its own. Needs no topology: it only reads @p cpus.
 *
 * @param cpus
 *   The lcores' CPUs, in lcore order.
 * @param n
 *   Their number.
 * @param[out] order
 *   n indices into @p cpus; the input order when out of memory. Nothing is
 *   written when @p cpus or @p order is NULL.
 */
LCA_EXPERIMENTAL
LCA_API void lca_topo_spread_order(const struct lca_topo_cpu *cpus, unsigned int n, unsigned int *order);

/**
 * Which slot of the spread order the @p actor_index-th placed actor gets.
 *
 * @return
 *   An index in 0 .. n_lcores-1 (0 when @p n_lcores is 0).
 */
LCA_EXPERIMENTAL
LCA_API unsigned int lca_place_slot(enum lca_placement policy, unsigned int n_lcores, unsigned int actor_index);

/** Name of a placement policy ("round-robin", "pack", "pairs-local", "auto"; "unknown"). */
LCA_EXPERIMENTAL
LCA_API const char *lca_placement_name(enum lca_placement p);

/** Parse a placement policy name, exactly. @return 0 or -EINVAL (NULL included). */
LCA_EXPERIMENTAL
LCA_API int lca_placement_parse(const char *name, enum lca_placement *out);

/**
 * Print a table of the given lcores: lcore, CPU, core, SMT siblings,
 * package, NUMA node, L2 and L3 (id and size), aligned under a header line,
 * "-" where unknown.
 *
 * @param f
 *   Where to print.
 * @param lcore_ids
 *   The lcores' ids (printed in the first column), or NULL ("-").
 * @param cpus
 *   Where each sits.
 * @param n
 *   Their number.
 */
LCA_EXPERIMENTAL
LCA_API void lca_topo_print(FILE *f, const unsigned int *lcore_ids, const struct lca_topo_cpu *cpus,
		    unsigned int n);

/**
 * Fill @p out with where each enabled EAL lcore sits on this machine.
 *
 * The CPU is taken from the lcore's cpuset, not rte_lcore_to_cpu_id(), which
 * returns the sysfs core id of the CPU numbered like the lcore and so is wrong
 * with SMT, several packages or --lcores remapping. An lcore spanning several
 * CPUs is shown at the lowest, with only the ids they all share.
 *
 * @param topo
 *   A topology of this machine.
 * @param[out] lcore_ids
 *   The enabled lcores: main first, then the workers in id order
 *   (main is not always the lowest id, with --main-lcore).
 * @param[out] out
 *   Where each sits.
 * @param max
 *   Room in both arrays.
 * @return
 *   Number filled; -EINVAL for NULL pointers; -ENODEV before rte_eal_init();
 *   -ENOSPC when @p max is too small.
 */
LCA_EXPERIMENTAL
LCA_API int lca_topo_eal_lcores(const struct lca_topo *topo, unsigned int *lcore_ids,
			struct lca_topo_cpu *out, unsigned int max);

/**
 * The OS CPU that lcore @p lcore_id runs on: the lowest CPU of its cpuset.
 * (rte_lcore_to_cpu_id() gives the sysfs core id instead, which SMT
 * siblings share and --lcores remapping ignores.)
 *
 * @return
 *   The CPU; -1 when the lcore has no CPU.
 */
LCA_EXPERIMENTAL
LCA_API int lca_topo_lcore_cpu(unsigned int lcore_id);

/**
 * Print the enabled lcores' table for this machine (what `--topology`
 * shows in every app).
 *
 * @return
 *   0; -EINVAL for a NULL @p f; a negative errno from loading the topology
 *   or from lca_topo_eal_lcores().
 */
LCA_EXPERIMENTAL
LCA_API int lca_topo_print_eal(FILE *f);

#ifdef __cplusplus
}
#endif

#endif /* LCA_TOPO_H */
