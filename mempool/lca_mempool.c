/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mempool.h>

#include "lca_eal.h"
#include "lca_mempool.h"
#include "lca_stash_priv.h"

#define DEFAULT_CACHE 512

/* Pools indexed by creation order; node_to_pool maps a node to that index. */
static struct rte_mempool *pools[LCA_MEMPOOL_MAX_NODES];
static int pool_node[LCA_MEMPOOL_MAX_NODES];
static unsigned int n_pools;
static unsigned int pool_size;
/* Each lcore's pool index, looked up once: every allocation asks. */
static uint8_t pool_of_lcore[RTE_MAX_LCORE];

/* Off from the start, not only from the first stashes_off(): a caller
 * before any runtime (an alloc that must fail cleanly) finds none. */
struct lca_stash lca_stashes[RTE_MAX_LCORE] = {
	[0 ... RTE_MAX_LCORE - 1] = { .pool = LCA_STASH_OFF },
};

/* Every stash off: nothing goes in, nothing is taken from it. */
static void
stashes_off(void)
{
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++)
		lca_stashes[i] = (struct lca_stash){ .pool = LCA_STASH_OFF };
}

/* What the stashes hold back into their pools (the runtime's loops have
 * stopped: nothing else touches them). */
static void
stashes_empty(void)
{
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++)
		lca_stash_flush(&lca_stashes[i]);
}

static int
node_of_lcore(unsigned int lcore_id)
{
	int node = (int)rte_lcore_to_socket_id(lcore_id);

	/* SOCKET_ID_ANY (-1) on a machine without NUMA: everything is node 0. */
	return node < 0 ? 0 : node;
}

int
lca_mempool_index_of_node(int node)
{
	for (unsigned int i = 0; i < n_pools; i++)
		if (pool_node[i] == node)
			return (int)i;
	return -ENOENT;
}

/*
 * A pool whose ring uses relaxed tail sync (RTS). Threads that are not
 * lcores have no per-lcore cache and take envelopes from the ring itself;
 * with more of them than CPUs, one preempted between reserving and
 * publishing held every other one spinning on the classic ring's tail
 * (issue 13, defect 4). RTS lets the others go on.
 */
static struct rte_mempool *
pool_create(const char *name, unsigned int n, unsigned int elt_size, unsigned int cache, int node)
{
	struct rte_mempool *mp = rte_mempool_create_empty(name, n, elt_size, cache, 0, node, 0);

	if (mp == NULL)
		return NULL;
	if (rte_mempool_set_ops_byname(mp, "ring_mt_rts", NULL) != 0 ||
	    rte_mempool_populate_default(mp) < 0) {
		rte_mempool_free(mp);
		rte_errno = EINVAL;
		return NULL;
	}
	return mp;
}

int
lca_mempool_init(const struct lca_mempool_conf *conf)
{
	unsigned int lcore_id, cache;

	if (conf == NULL || conf->elt_size == 0 || conf->per_node == 0)
		return -EINVAL;
	if (n_pools > 0)
		return -EEXIST;

	cache = conf->cache_size ? conf->cache_size : DEFAULT_CACHE;
	if (cache > RTE_MEMPOOL_CACHE_MAX_SIZE)
		cache = RTE_MEMPOOL_CACHE_MAX_SIZE;
	/* DPDK refuses a cache larger than size / 1.5 per lcore. */
	if (cache * 3 / 2 > conf->per_node)
		cache = conf->per_node * 2 / 3;

	pool_size = conf->per_node;
	LCA_LCORE_FOREACH(lcore_id) {
		int node = node_of_lcore(lcore_id);
		char name[RTE_MEMPOOL_NAMESIZE];

		if (lca_mempool_index_of_node(node) >= 0)
			continue;
		if (n_pools == LCA_MEMPOOL_MAX_NODES) {
			LCA_LOG(ERR, "more than %d NUMA nodes with lcores\n",
				LCA_MEMPOOL_MAX_NODES);
			lca_mempool_cleanup();
			return -ENOSPC;
		}
		snprintf(name, sizeof(name), "lca_msg_n%d", node);
		pools[n_pools] = pool_create(name, conf->per_node, conf->elt_size, cache, node);
		if (pools[n_pools] == NULL) {
			int err = rte_errno;

			/* EINVAL here is mostly a missing mempool driver: EAL
			 * loads librte_mempool_ring as a plugin. */
			LCA_LOG(ERR, "cannot create message pool on node %d (%u x %u bytes): %s%s\n",
				node, conf->per_node, conf->elt_size, rte_strerror(err),
				err == EINVAL ? " (is the ring mempool driver loaded? EAL -d "
						"librte_mempool_ring.so)" : "");
			lca_mempool_cleanup();
			return -ENOMEM;
		}
		pool_node[n_pools] = node;
		n_pools++;
	}
	memset(pool_of_lcore, 0, sizeof(pool_of_lcore));
	stashes_off();
	LCA_LCORE_FOREACH(lcore_id) {
		pool_of_lcore[lcore_id] = (uint8_t)lca_mempool_index_of_node(node_of_lcore(lcore_id));
		lca_stashes[lcore_id].pool = pool_of_lcore[lcore_id];
		lca_stashes[lcore_id].mp = pools[pool_of_lcore[lcore_id]];
	}
	return 0;
}

void
lca_mempool_cleanup(void)
{
	stashes_empty();
	stashes_off();
	for (unsigned int i = 0; i < n_pools; i++) {
		unsigned int out = pool_size - rte_mempool_avail_count(pools[i]);

		if (out != 0)
			LCA_LOG(WARNING, "pool of node %d freed with %u objects out\n",
				pool_node[i], out);
		rte_mempool_free(pools[i]);
		pools[i] = NULL;
	}
	n_pools = 0;
}

unsigned int
lca_mempool_count(void)
{
	return n_pools;
}

struct rte_mempool *
lca_mempool_of_node(int node)
{
	int i = lca_mempool_index_of_node(node);

	return i < 0 ? NULL : pools[i];
}

struct rte_mempool *
lca_mempool_by_index(unsigned int index)
{
	return index < n_pools ? pools[index] : NULL;
}

unsigned int
lca_mempool_local_index(void)
{
	unsigned int lcore_id = rte_lcore_id();

	return lcore_id < RTE_MAX_LCORE ? pool_of_lcore[lcore_id] : 0;
}

unsigned int
lca_mempool_avail(void)
{
	unsigned int total = 0;

	for (unsigned int i = 0; i < n_pools; i++)
		total += rte_mempool_avail_count(pools[i]);
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++)
		total += __atomic_load_n(&lca_stashes[i].n, __ATOMIC_RELAXED);
	return total;
}

void *
lca_mempool_alloc_on_lcore(const char *name, size_t size, unsigned int lcore_id)
{
	int node = lcore_id < RTE_MAX_LCORE ? node_of_lcore(lcore_id) : SOCKET_ID_ANY;

	return rte_zmalloc_socket(name, size, RTE_CACHE_LINE_SIZE, node);
}

void
lca_mempool_free(void *ptr)
{
	rte_free(ptr);
}

int
lca_mempool_page_node(const void *addr)
{
	long page = sysconf(_SC_PAGESIZE);
	void *pages[1];
	int status[1] = { -1 };

	if (addr == NULL)
		return -EINVAL;
	if (numa_available() < 0)
		return -ENOSYS;
	/* Reading it faults the page in, so the kernel has placed it. */
	(void)*(const volatile char *)addr;
	pages[0] = (void *)((uintptr_t)addr & ~((uintptr_t)page - 1));
	if (move_pages(0, 1, pages, NULL, status, 0) != 0)
		return -errno;
	return status[0];
}

int
lca_mempool_pages_on_node(const void *addr, size_t len, int node, unsigned int max_pages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t n_pages, step;
	unsigned int seen = 0, on_node = 0;

	if (addr == NULL || len == 0 || max_pages == 0)
		return -EINVAL;
	n_pages = (len + page - 1) / page;
	step = n_pages > max_pages ? n_pages / max_pages : 1;
	for (size_t p = 0; p < n_pages; p += step) {
		int n = lca_mempool_page_node((const char *)addr + p * page);

		if (n < 0)
			return n;
		seen++;
		on_node += (n == node);
	}
	return (int)(on_node * 100u / seen);
}
