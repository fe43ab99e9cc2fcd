/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef PL_STAGES_H
#define PL_STAGES_H

/**
 * @file
 * The stages of --source port that every engine runs on each packet: parse
 * (Ethernet/IPv4/UDP -> a key), the partition of a key, and the count by
 * key in a store. Static inline: they are the per-packet work, and each
 * engine's loop (in its own file) must inline them as it did when they
 * shared one file.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_udp.h>

#include "pipeline.h"

#define PL_STORE_SLOTS 65536u /* keys a partition's store holds */

struct store_ent {
	uint32_t key;
	uint32_t used;
	uint64_t count;
};

/* A partition's (plain: an lcore's) counts by key. */
struct store {
	uint64_t processed;
	uint64_t overflow; /* keys that found the table full: counted here */
	uint32_t n_keys;
	uint32_t mask;
	unsigned int lcore;
	struct store_ent e[];
} __rte_cache_aligned;

/** A store of @p PL_STORE_SLOTS keys on @p lcore's node (lca_mempool_free() it). */
struct store *pl_store_new(unsigned int lcore);
void pl_store_reset(struct store *s);

/* What the stages read: set before the runs (pl_port_src.c). */
extern uint32_t pl_n_parts;
/* --partition-by rxq: the partitions whose task is on each lcore. */
extern uint32_t pl_local_parts[RTE_MAX_LCORE][PL_MAX_PARTITIONS];
extern unsigned int pl_n_local_parts[RTE_MAX_LCORE];

static inline void
store_count(struct store *s, uint32_t key)
{
	uint32_t i = (key * 2654435761u) >> 16 & s->mask;

	for (uint32_t probe = 0; probe <= s->mask; probe++, i = (i + 1) & s->mask) {
		struct store_ent *e = &s->e[i];

		if (likely(e->used && e->key == key)) {
			e->count++;
			return;
		}
		if (!e->used) {
			e->used = 1;
			e->key = key;
			e->count = 1;
			s->n_keys++;
			return;
		}
	}
	s->overflow++;
}

/* Ethernet/IPv4/UDP, unfragmented, lengths consistent: key, or false. */
static inline bool
parse(const struct rte_mbuf *m, uint32_t *key)
{
	const struct rte_ether_hdr *eth;
	const struct rte_ipv4_hdr *ip;
	const struct rte_udp_hdr *udp;
	unsigned int len = rte_pktmbuf_data_len(m), ihl, tot;

	if (unlikely(len < sizeof(*eth) + sizeof(*ip) + sizeof(*udp)))
		return false;
	eth = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	if (unlikely(eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4)))
		return false;
	ip = (const struct rte_ipv4_hdr *)(eth + 1);
	ihl = (ip->version_ihl & 0xf) * 4u;
	tot = rte_be_to_cpu_16(ip->total_length);
	if (unlikely((ip->version_ihl >> 4) != 4 || ihl < sizeof(*ip) ||
		     ip->next_proto_id != IPPROTO_UDP || tot < ihl + sizeof(*udp) ||
		     tot > len - sizeof(*eth) ||
		     (ip->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG |
							     RTE_IPV4_HDR_OFFSET_MASK))))
		return false;
	udp = (const struct rte_udp_hdr *)((const uint8_t *)ip + ihl);
	if (unlikely(rte_be_to_cpu_16(udp->dgram_len) < sizeof(*udp) ||
		     rte_be_to_cpu_16(udp->dgram_len) > tot - ihl))
		return false;
	*key = (uint32_t)rte_be_to_cpu_16(udp->src_port) << 16 | rte_be_to_cpu_16(udp->dst_port);
	return true;
}

static inline uint32_t
part_of(uint32_t key)
{
	return (uint32_t)(((uint64_t)(key * 2654435761u) * pl_n_parts) >> 32);
}

/* The partition of @p key among those on @p lcore (all, when none is). */
static inline uint32_t
local_part_of(uint32_t key, unsigned int lcore)
{
	unsigned int n = pl_n_local_parts[lcore];

	if (unlikely(n == 0))
		return part_of(key);
	return pl_local_parts[lcore][((uint64_t)(key * 2654435761u) * n) >> 32];
}

/* Parse a burst: valid packets to the front of @p pkts (key in
 * hash.usr), malformed ones to @p bad. @return the valid ones. */
static inline unsigned int
parse_burst(struct rte_mbuf **pkts, unsigned int n, struct rte_mbuf **bad, unsigned int *n_bad)
{
	unsigned int ok = 0, nb = 0;

	for (unsigned int i = 0; i < n && i < 4; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (unsigned int i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint32_t key;

		if (i + 4 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 4], void *));
		if (likely(parse(m, &key))) {
			m->hash.usr = key;
			pkts[ok++] = m;
		} else {
			bad[nb++] = m;
		}
	}
	*n_bad = nb;
	return ok;
}

#endif /* PL_STAGES_H */
