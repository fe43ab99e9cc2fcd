/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_TEST_PORT_H
#define LCA_TEST_PORT_H

/* What the port tests share (test_port.c, test_packets.c): net_ring ports
 * of their own, their wire rings, numbered packets, the accounting check.
 * Include after cmocka.h. */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "lca_port.h"

/* A net_ring port of its own, probed now. */
static inline uint16_t
new_ring_port(char *name, size_t len)
{
	static unsigned int seq = 1;
	uint16_t pid;

	snprintf(name, len, "net_ring%u", seq++);
	assert_int_equal(rte_dev_probe(name), 0);
	assert_int_equal(rte_eth_dev_get_port_by_name(name, &pid), 0);
	return pid;
}

static inline struct rte_ring *
port_ring(const char *name, unsigned int q)
{
	char rname[RTE_RING_NAMESIZE];
	struct rte_ring *r;

	snprintf(rname, sizeof(rname), "ETH_RXTX%u_%s", q, name);
	r = rte_ring_lookup(rname);
	assert_non_null(r);
	return r;
}

/* What a test packet carries. */
struct pkt_data {
	uint32_t flow;
	uint32_t seq;
};

static inline struct rte_mbuf *
make_pkt(struct rte_mempool *mp, uint32_t flow, uint32_t seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct pkt_data *d;

	assert_non_null(m);
	d = (struct pkt_data *)rte_pktmbuf_append(m, 64);
	assert_non_null(d);
	d->flow = flow;
	d->seq = seq;
	return m;
}

static inline const struct pkt_data *
pkt_of(const struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod(m, const struct pkt_data *);
}

static inline bool
pool_is_full(struct rte_mempool *mp)
{
	return rte_mempool_avail_count(mp) == mp->size;
}

static inline void
assert_accounting(const struct lca_port_stats *s)
{
	assert_int_equal(s->rx, s->delivered + s->dropped_policy + s->dropped_dest + s->held);
}

#endif /* LCA_TEST_PORT_H */
