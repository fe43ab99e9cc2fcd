/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_MEMPOOL_H
#define LCA_MEMPOOL_H

/**
 * @file
 * Node-local memory for lcactor: one message pool per NUMA node that has
 * enabled lcores, and allocation of actor state and app data on the node of
 * the lcore that owns it.
 *
 * Message envelopes are fixed-size objects of an rte_mempool with a
 * per-lcore cache, so that allocating and freeing one on the hot path is a
 * few instructions on the lcore's own cache and never a lock or a malloc.
 */

#include <stddef.h>
#include <stdint.h>

#include "lca_api.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rte_mempool;

/** Most NUMA nodes that lcactor keeps a pool for. */
#define LCA_MEMPOOL_MAX_NODES 8

/** Configuration of the per-node message pools. */
struct lca_mempool_conf {
	unsigned int elt_size;   /**< Size of one element (bytes). */
	unsigned int per_node;   /**< Elements in each node's pool. */
	unsigned int cache_size; /**< Per-lcore cache (0: DPDK's largest). */
};

/**
 * Create one pool for every NUMA node that has an enabled lcore.
 *
 * @return
 *   0 on success; -EEXIST when already created; -ENOMEM when a node's pool
 *   could not be created (the message names the node and the size).
 */
LCA_EXPERIMENTAL
LCA_API int lca_mempool_init(const struct lca_mempool_conf *conf);

/** Free every pool. Objects still out are the caller's leak: counted and logged. */
LCA_EXPERIMENTAL
LCA_API void lca_mempool_cleanup(void);

/** Number of pools created (one per node with lcores). */
LCA_EXPERIMENTAL
LCA_API unsigned int lca_mempool_count(void);

/**
 * The pool of NUMA node @p node, or NULL when that node has no lcores.
 */
LCA_EXPERIMENTAL
LCA_API struct rte_mempool *lca_mempool_of_node(int node);

/**
 * Index (0..lca_mempool_count()-1) of the pool of @p node, or -ENOENT.
 * Envelopes store this index so that freeing one needs no lookup.
 */
LCA_EXPERIMENTAL
LCA_API int lca_mempool_index_of_node(int node);

/** Pool number @p index, as stored in an envelope. */
LCA_EXPERIMENTAL
LCA_API struct rte_mempool *lca_mempool_by_index(unsigned int index);

/** Index of the calling lcore's pool; non-EAL threads get the first pool. */
LCA_EXPERIMENTAL
LCA_API unsigned int lca_mempool_local_index(void);

/** Objects available in all pools together (for leak checks in tests). */
LCA_EXPERIMENTAL
LCA_API unsigned int lca_mempool_avail(void);

/**
 * Allocate zeroed, cache-aligned memory on the NUMA node of @p lcore_id.
 *
 * @param name
 *   A name for rte_malloc's statistics.
 * @param size
 *   Bytes.
 * @param lcore_id
 *   The lcore that will own the memory.
 * @return
 *   The memory, or NULL when the node has no room.
 */
LCA_EXPERIMENTAL
LCA_API void *lca_mempool_alloc_on_lcore(const char *name, size_t size, unsigned int lcore_id);

/** Free memory from lca_mempool_alloc_on_lcore(). NULL is ignored. */
LCA_EXPERIMENTAL
LCA_API void lca_mempool_free(void *ptr);

/**
 * The NUMA node on which the page holding @p addr really is, asked of the
 * kernel (move_pages(2) through libnuma). The page is touched first, so a
 * page not yet faulted in gets placed.
 *
 * @return
 *   The node (>= 0), or a negative errno (-ENOSYS without NUMA support).
 */
LCA_EXPERIMENTAL
LCA_API int lca_mempool_page_node(const void *addr);

/**
 * Share of the pages of [@p addr, @p addr + @p len) that are on @p node, in
 * percent, sampling at most @p max_pages pages evenly.
 *
 * @return
 *   Percent 0..100, or a negative errno.
 */
LCA_EXPERIMENTAL
LCA_API int lca_mempool_pages_on_node(const void *addr, size_t len, int node, unsigned int max_pages);

#ifdef __cplusplus
}
#endif

#endif /* LCA_MEMPOOL_H */
