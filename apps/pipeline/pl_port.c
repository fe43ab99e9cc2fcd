/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --source port: packets from the ports EAL created, through the same
 * stages on each engine, on the same lcores:
 *
 *   RX -> parse (Ethernet/IPv4/UDP; anything else is malformed: counted,
 *   dropped by policy) -> keyed count (key = UDP source port << 16 | UDP
 *   destination port; partition = a hash of the key) in the partition's
 *   store, an open-addressing table on its lcore's node -> TX (--sink tx)
 *   or free (--sink drop).
 *
 * - lcactor:  lca_port: its RX hook classifies by flow (parse, key,
 *             partition) and sends each partition's packets on the packet
 *             lane (mbuf pointers, no envelope) to the partition's worker,
 *             a packet actor (on_packets), which counts them and transmits
 *             them with lca_port_tx_burst() into its own lcore's TX queue
 *             (rte_eth_tx_buffer, flushed by the lcore's end hook). An
 *             lcore without a TX queue of the port (a PMD with fewer) sends
 *             them in envelopes to another lcore's TX actor.
 * - plain:    the same stages as a run-to-completion loop on each lcore
 *             (rx_burst -> parse -> count -> tx_burst), no actors; each
 *             lcore counts what its own RX queue takes in a store of its
 *             own (no hand-off between lcores: that is what plain means).
 * - eventdev: each lcore takes from its RX queue itself, parses, and
 *             enqueues NEW events (flow = the partition, atomic) into
 *             event_dsw; every lcore's event port dequeues, counts in the
 *             partition's store and transmits.
 * - graph:    DPDK's librte_graph, a graph an lcore of RX, parse + count,
 *             TX and drop nodes (pl_graph.c) over the stages plain uses.
 * - io:       rx_burst -> tx_burst, no stage: the port's own ceiling, which
 *             every other engine's rate is given as a share of.
 *
 * A run takes --messages packets (split over the RX queues) or runs until
 * --duration-ms, then stops RX and drains: at the end nothing is in
 * flight, and rx = counted + malformed exactly.
 *
 * net_null leaves the data of the mbufs it hands out as the pool has them
 * (copy=0, its default): the pool's mbufs are written once, before each
 * run, with UDP frames (key from the mbuf's index, 1024 keys), so net_null
 * delivers valid frames at no cost per packet. --null-frames zero leaves
 * them zeroed: every frame is then malformed (as with copy=1).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_eventdev.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#if __has_include(<rte_pdump.h>)
#include <rte_pdump.h>
#define PL_HAVE_PDUMP 1
#endif
#include <rte_prefetch.h>
#include <rte_spinlock.h>
#include <rte_udp.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_freq.h"
#include "lca_lcore.h"
#include "lca_mempool.h"
#include "lca_port.h"
#include "lca_report.h"
#include "lca_result.h"
#include "lca_series.h"
#include "lca_topo.h"
#include "lca_verdict.h"
#include "pipeline.h"
#include "pl_port.h"

#define APP "lca-pipeline"
#define STORE_SLOTS 65536u /* keys a partition's store holds */
#define NULL_KEYS 1024u
#define DESC 1024
#define POOL_CACHE 256
#define IN_FLIGHT 8192

/* ---- The stages every engine shares ---------------------------------- */

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

static struct store *
store_new(unsigned int lcore)
{
	struct store *s = lca_mempool_alloc_on_lcore(
		"pl_store", sizeof(*s) + STORE_SLOTS * sizeof(struct store_ent), lcore);

	if (s != NULL) {
		s->mask = STORE_SLOTS - 1;
		s->lcore = lcore;
	}
	return s;
}

static void
store_reset(struct store *s)
{
	s->processed = s->overflow = 0;
	s->n_keys = 0;
	memset(s->e, 0, STORE_SLOTS * sizeof(struct store_ent));
}

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

static uint32_t n_parts;

static inline uint32_t
part_of(uint32_t key)
{
	return (uint32_t)(((uint64_t)(key * 2654435761u) * n_parts) >> 32);
}

/* --partition-by rxq: the partitions whose task is on each lcore. */
static uint32_t local_parts[RTE_MAX_LCORE][PL_MAX_PARTITIONS];
static unsigned int n_local_parts[RTE_MAX_LCORE];

static void
local_parts_make(void)
{
	memset(n_local_parts, 0, sizeof(n_local_parts));
	for (uint32_t p = 0; p < n_parts; p++) {
		unsigned int lc = pl.task_lcore[p];

		local_parts[lc][n_local_parts[lc]++] = p;
	}
}

/* The partition of @p key among those on @p lcore (all, when none is). */
static inline uint32_t
local_part_of(uint32_t key, unsigned int lcore)
{
	unsigned int n = n_local_parts[lcore];

	if (unlikely(n == 0))
		return part_of(key);
	return local_parts[lcore][((uint64_t)(key * 2654435761u) * n) >> 32];
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

/* net_null's frames: a UDP frame in every mbuf of the pool, once. */
static void
null_fill(struct rte_mempool *mp, void *arg, void *obj, unsigned int idx)
{
	struct rte_mbuf *m = obj;
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)((char *)m->buf_addr +
							     RTE_PKTMBUF_HEADROOM);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	bool zero = *(const bool *)arg;

	(void)mp;
	memset(eth, 0, sizeof(*eth) + sizeof(*ip) + sizeof(*udp));
	if (zero)
		return;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	eth->src_addr.addr_bytes[0] = 0x02;
	eth->dst_addr.addr_bytes[0] = 0x02;
	eth->dst_addr.addr_bytes[5] = 1;
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->total_length = rte_cpu_to_be_16(sizeof(*ip) + sizeof(*udp));
	ip->src_addr = rte_cpu_to_be_32(0xc6120001);
	ip->dst_addr = rte_cpu_to_be_32(0xc6120002);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->src_port = rte_cpu_to_be_16((uint16_t)(10000 + (idx % NULL_KEYS) / 32));
	udp->dst_port = rte_cpu_to_be_16((uint16_t)(20000 + idx % 32));
	udp->dgram_len = rte_cpu_to_be_16(sizeof(*udp));
}

/* ---- Ports, queues and quotas ----------------------------------------- */

struct rxq_state {
	uint16_t port;       /* ethdev id */
	uint16_t queue;
	unsigned int pidx;   /* index in ports[] */
	unsigned int lcore;
	uint64_t quota;
	uint64_t taken;      /* its lcore's */
	bool done;           /* atomic: RX off on it */
} __rte_cache_aligned;

struct port_info {
	uint16_t id;
	bool rx;             /* in --port */
	bool is_null;        /* net_null: frames written into the pool */
	unsigned int n_rxq, n_txq;
	uint16_t rx_desc, tx_desc;
	char name[RTE_ETH_NAME_MAX_LEN];
	char driver[32];
	struct lca_port *lp;          /* lcactor, while it runs */
	struct rte_mempool *pool;     /* plain, eventdev */
	rte_spinlock_t txlock[RTE_MAX_LCORE]; /* TX queue q shared by lcores (plain, eventdev) */
	bool tx_shared;
};

static const struct pl_conf *conf;
static struct port_info ports[PL_MAX_PORTS + 1];
static unsigned int n_ports;
static struct rxq_state rxqs[PL_MAX_PORTS * RTE_MAX_LCORE];
static unsigned int n_rxqs;
static uint64_t quota_total;
static uint64_t t_rx_end;      /* TSC after which RX stops (--duration-ms), or 0 */
static bool vdev_was_added;
static bool workers_spawned;

static bool has_lcactor_engine(void);

/* plain and graph count in a store of each lcore; io counts nothing. */
static bool
lcore_stores(enum pl_engine e)
{
	return e == PL_ENGINE_PLAIN || e == PL_ENGINE_GRAPH;
}

static int
port_index(uint16_t id)
{
	for (unsigned int i = 0; i < n_ports; i++)
		if (ports[i].id == id)
			return (int)i;
	return -1;
}

/* The RX ports: --port's, else every port but --tx-port. */
static unsigned int
rx_port_ids(const struct pl_conf *c, uint16_t *ids)
{
	unsigned int n = 0;
	uint16_t pid;

	if (c->n_ports > 0) {
		memcpy(ids, c->ports, c->n_ports * sizeof(ids[0]));
		return c->n_ports;
	}
	RTE_ETH_FOREACH_DEV(pid) {
		if (n == PL_MAX_PORTS)
			break;
		if (pid != c->tx_port)
			ids[n++] = pid;
	}
	return n;
}

/* A port's driver, queues (RX: --rxq or one per lcore, within what the
 * PMD has) and descriptors. */
static int
port_queues(const struct pl_conf *c, struct port_info *p)
{
	struct rte_eth_dev_info info;
	unsigned int want = c->rxq ? c->rxq : pl.n_lcores;
	int ret = rte_eth_dev_info_get(p->id, &info);

	if (ret < 0) {
		fprintf(stderr, APP ": port %u: no device info: %s\n", p->id, strerror(-ret));
		return ret;
	}
	snprintf(p->driver, sizeof(p->driver), "%s", info.driver_name);
	rte_eth_dev_get_name_by_port(p->id, p->name);
	p->is_null = strcmp(info.driver_name, "net_null") == 0;
	if (!p->rx) {
		p->n_rxq = 1;
	} else if (c->rxq > info.max_rx_queues) {
		fprintf(stderr, APP ": port %u (%s): --rxq %u: the PMD (%s) allows at most %u "
				"RX queues\n", p->id, p->name, c->rxq, info.driver_name,
			info.max_rx_queues);
		return -EINVAL;
	} else {
		p->n_rxq = RTE_MIN(want, (unsigned int)info.max_rx_queues);
	}
	p->n_txq = RTE_MIN(pl.n_lcores, (unsigned int)info.max_tx_queues);
	if (p->n_rxq == 0 || p->n_txq == 0) {
		fprintf(stderr, APP ": port %u (%s): the PMD (%s) has %u RX and %u TX queues\n",
			p->id, p->name, info.driver_name, info.max_rx_queues, info.max_tx_queues);
		return -EINVAL;
	}
	p->tx_shared = p->n_txq < pl.n_lcores;
	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++)
		rte_spinlock_init(&p->txlock[l]);
	p->rx_desc = DESC;
	p->tx_desc = DESC;
	ret = rte_eth_dev_adjust_nb_rx_tx_desc(p->id, &p->rx_desc, &p->tx_desc);
	if (ret < 0)
		fprintf(stderr, APP ": port %u: descriptors: %s\n", p->id, strerror(-ret));
	return ret;
}

/* RX queue q of a port on the q-th lcore; quotas over every RX queue. */
static void
place_rxqs(const struct pl_conf *c)
{
	n_rxqs = 0;
	for (unsigned int i = 0; i < n_ports; i++)
		for (unsigned int q = 0; ports[i].rx && q < ports[i].n_rxq; q++)
			rxqs[n_rxqs++] = (struct rxq_state){
				.port = ports[i].id, .queue = (uint16_t)q, .pidx = i,
				.lcore = pl.lcores[q % pl.n_lcores],
			};
	quota_total = c->messages_given || c->duration_ms == 0 ? c->messages : UINT64_MAX;
	for (unsigned int k = 0; k < n_rxqs; k++)
		rxqs[k].quota = quota_total == UINT64_MAX ? UINT64_MAX :
				quota_total / n_rxqs + (k < quota_total % n_rxqs);
}

static int
ports_probe(void)
{
	const struct pl_conf *c = conf;
	uint16_t ids[PL_MAX_PORTS + 1];
	unsigned int n = rx_port_ids(c, ids);
	int ret = 0;

	if (n == 0) {
		fprintf(stderr, APP ": --source port: no port to read (give EAL --vdev net_null0, "
				"--vdev net_pcap0,rx_pcap=FILE, ... and --port N)\n");
		return -ENODEV;
	}
	n_ports = 0;
	for (unsigned int i = 0; i < n; i++)
		ports[n_ports++] = (struct port_info){ .id = ids[i], .rx = true };
	if (c->tx_port >= 0 && port_index((uint16_t)c->tx_port) < 0)
		ports[n_ports++] = (struct port_info){ .id = (uint16_t)c->tx_port, .rx = false };
	for (unsigned int i = 0; i < n_ports && ret == 0; i++)
		ret = port_queues(c, &ports[i]);
	if (ret == 0)
		place_rxqs(c);
	return ret;
}

/* The pool plain and eventdev use: what lca_port computes, the same way. */
static int
pool_for(struct port_info *p)
{
	unsigned int need = p->n_rxq * p->rx_desc + p->n_txq * p->tx_desc +
			    pl.n_lcores * POOL_CACHE * 3 / 2 + (p->n_rxq + p->n_txq) * conf->burst +
			    conf->partitions * conf->watermark, n;
	char name[RTE_MEMPOOL_NAMESIZE];

	if (conf->mbufs != 0 && conf->mbufs < need) {
		fprintf(stderr, APP ": port %u: --mbufs %u is too small: the rings, caches, bursts "
				"and events need %u\n", p->id, conf->mbufs, need);
		return -ENOSPC;
	}
	n = conf->mbufs ? conf->mbufs : rte_align32pow2(need + IN_FLIGHT + 1) - 1;
	snprintf(name, sizeof(name), "pl_port%u", p->id);
	p->pool = rte_pktmbuf_pool_create(name, n, POOL_CACHE, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
					  rte_eth_dev_socket_id(p->id));
	if (p->pool == NULL) {
		fprintf(stderr, APP ": port %u: no pool of %u mbufs: %s\n", p->id, n,
			rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

/* plain, eventdev: configure and start the port with its own pool. */
static int
dev_up(struct port_info *p)
{
	struct rte_eth_dev_info info;
	struct rte_eth_conf ec;
	int ret;

	memset(&ec, 0, sizeof(ec));
	rte_eth_dev_info_get(p->id, &info);
	if (p->n_rxq > 1) {
		uint64_t hf = (RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP) &
			      info.flow_type_rss_offloads;

		if (hf != 0) {
			ec.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
			ec.rx_adv_conf.rss_conf.rss_hf = hf;
		}
	}
	ret = rte_eth_dev_configure(p->id, (uint16_t)p->n_rxq, (uint16_t)p->n_txq, &ec);
	if (ret < 0) {
		fprintf(stderr, APP ": port %u: configuring %u RX and %u TX queues: %s\n", p->id,
			p->n_rxq, p->n_txq, strerror(-ret));
		return ret;
	}
	for (unsigned int q = 0; q < p->n_rxq && ret == 0; q++)
		ret = rte_eth_rx_queue_setup(p->id, (uint16_t)q, p->rx_desc,
					     (unsigned int)rte_eth_dev_socket_id(p->id), NULL,
					     p->pool);
	for (unsigned int q = 0; q < p->n_txq && ret == 0; q++)
		ret = rte_eth_tx_queue_setup(p->id, (uint16_t)q, p->tx_desc,
					     (unsigned int)rte_eth_dev_socket_id(p->id), NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(p->id);
	if (ret < 0)
		fprintf(stderr, APP ": port %u: queues or start: %s\n", p->id, strerror(-ret));
	return ret;
}

/* ---- Per-run state ---------------------------------------------------- */

static struct store *stores[PL_MAX_PARTITIONS];   /* lcactor, eventdev: by partition */
static struct store *lstores[RTE_MAX_LCORE];       /* plain: by lcore */
static unsigned int lcores_rx_done;                /* atomic (eventdev) */
static int worker_ret[RTE_MAX_LCORE];

static inline void
fig_add(uint64_t *c, uint64_t n)
{
	__atomic_store_n(c, *c + n, __ATOMIC_RELAXED);
}

static bool
rx_time_up(uint64_t now)
{
	return t_rx_end != 0 && now >= t_rx_end;
}

/* ---- TX buffers for plain and eventdev -------------------------------- */

struct txbuf {
	struct port_info *p;
	uint16_t queue;
	struct pl_fig *f;
	struct rte_eth_dev_tx_buffer *buf;
};

static struct txbuf *txbufs[RTE_MAX_LCORE][PL_MAX_PORTS + 1];

static void
tx_unsent(struct rte_mbuf **unsent, uint16_t count, void *userdata)
{
	struct txbuf *t = userdata;
	uint16_t sent = rte_eth_tx_burst(t->p->id, t->queue, unsent, count);

	fig_add(&t->f->tx, sent);
	if (sent < count) {
		rte_pktmbuf_free_bulk(unsent + sent, count - sent);
		fig_add(&t->f->tx_dropped, count - sent);
	}
}

static inline void
tx_one(struct txbuf *t, struct rte_mbuf *m)
{
	uint16_t sent;

	if (t->p->tx_shared)
		rte_spinlock_lock(&t->p->txlock[t->queue]);
	sent = rte_eth_tx_buffer(t->p->id, t->queue, t->buf, m);
	if (t->p->tx_shared)
		rte_spinlock_unlock(&t->p->txlock[t->queue]);
	if (sent)
		fig_add(&t->f->tx, sent);
}

static void
tx_flush_all(unsigned int lcore)
{
	for (unsigned int i = 0; i < n_ports; i++) {
		struct txbuf *t = txbufs[lcore][i];
		uint16_t sent;

		if (t == NULL || t->buf->length == 0)
			continue;
		if (t->p->tx_shared)
			rte_spinlock_lock(&t->p->txlock[t->queue]);
		sent = rte_eth_tx_buffer_flush(t->p->id, t->queue, t->buf);
		if (t->p->tx_shared)
			rte_spinlock_unlock(&t->p->txlock[t->queue]);
		fig_add(&t->f->tx, sent);
	}
}

static int
txbufs_make(void)
{
	for (unsigned int i = 0; i < pl.n_lcores; i++) {
		unsigned int lc = pl.lcores[i];

		for (unsigned int k = 0; k < n_ports; k++) {
			struct txbuf *t = txbufs[lc][k];

			if (t == NULL) {
				t = rte_zmalloc_socket("pl_txbuf", sizeof(*t), 0,
						       (int)rte_lcore_to_socket_id(lc));
				if (t == NULL)
					return -ENOMEM;
				t->buf = rte_zmalloc_socket("pl_txbuf",
							    RTE_ETH_TX_BUFFER_SIZE(PL_MAX_BURST), 0,
							    (int)rte_lcore_to_socket_id(lc));
				if (t->buf == NULL)
					return -ENOMEM;
				txbufs[lc][k] = t;
			}
			t->p = &ports[k];
			t->queue = (uint16_t)(i % ports[k].n_txq);
			t->f = &pl.lc[lc].f;
			rte_eth_tx_buffer_init(t->buf, (uint16_t)conf->burst);
			rte_eth_tx_buffer_set_err_callback(t->buf, tx_unsent, t);
		}
	}
	return 0;
}

static inline struct txbuf *
txbuf_for(unsigned int lcore, const struct rte_mbuf *m)
{
	int k = conf->tx_port >= 0 ? port_index((uint16_t)conf->tx_port) : port_index(m->port);

	return txbufs[lcore][k < 0 ? 0 : k];
}

/* Count, then send or free, what a stage holds: @p f's lcore. */
static inline void
sink_burst(unsigned int lcore, struct pl_fig *f, struct rte_mbuf **m, unsigned int n)
{
	if (conf->sink == PL_SINK_DROP) {
		rte_pktmbuf_free_bulk(m, n);
		return;
	}
	fig_add(&f->forwarded, n);
	for (unsigned int i = 0; i < n; i++)
		tx_one(txbuf_for(lcore, m[i]), m[i]);
}

/* ---- The run-to-completion engines: plain, io ------------------------- */

unsigned int
pl_port_rxqs_of(unsigned int lcore, struct rxq_state **mine)
{
	unsigned int n = 0;

	for (unsigned int k = 0; k < n_rxqs; k++)
		if (rxqs[k].lcore == lcore && n < PL_MAX_PORTS)
			mine[n++] = &rxqs[k];
	return n;
}

unsigned int
pl_port_rx(struct rxq_state *q, uint64_t now, struct pl_fig *f, struct rte_mbuf **pkts,
	   bool *ended)
{
	unsigned int n, want = conf->burst;

	*ended = false;
	if (q->done)
		return 0;
	if (q->taken >= q->quota || rx_time_up(now)) {
		q->done = true;
		*ended = true;
		return 0;
	}
	if (q->quota - q->taken < want)
		want = (unsigned int)(q->quota - q->taken);
	n = rte_eth_rx_burst(q->port, q->queue, pkts, (uint16_t)want);
	q->taken += n;
	if (n)
		fig_add(&f->produced, n);
	return n;
}

unsigned int
pl_port_parse_count(unsigned int lcore, struct pl_fig *f, struct rte_mbuf **pkts, unsigned int n,
		    struct rte_mbuf **bad, unsigned int *n_bad)
{
	struct store *st = lstores[lcore];
	unsigned int ok = parse_burst(pkts, n, bad, n_bad);

	if (*n_bad)
		fig_add(&f->malformed, *n_bad);
	for (unsigned int k = 0; k < ok; k++)
		store_count(st, pkts[k]->hash.usr);
	st->processed += ok;
	return ok;
}

void
pl_port_sink(unsigned int lcore, struct pl_fig *f, struct rte_mbuf **pkts, unsigned int n)
{
	sink_burst(lcore, f, pkts, n);
}

void
pl_port_tx_flush(unsigned int lcore)
{
	tx_flush_all(lcore);
}

int
pl_port_should_stop(uint64_t now)
{
	if (unlikely(lca_eal_stop_requested()))
		return -EINTR;
	if (unlikely(now > pl.deadline))
		return -ETIMEDOUT;
	return 0;
}

/* plain (parse and count) or io (neither): RX -> [stages] -> TX. */
static int
rtc_worker(bool stages)
{
	unsigned int me = rte_lcore_id();
	struct pl_fig *f = &pl.lc[me].f;
	struct rte_mbuf *pkts[PL_MAX_BURST], *bad[PL_MAX_BURST];
	struct rxq_state *mine[PL_MAX_PORTS];
	unsigned int n_mine = pl_port_rxqs_of(me, mine), left = n_mine;
	int ret = 0;

	while (left > 0) {
		uint64_t now = rte_rdtsc();
		unsigned int counted = 0;

		f->loops++;
		lca_freq_poll(me, now);
		pl_warm_check(f, now);
		if ((ret = pl_port_should_stop(now)) != 0)
			break;
		for (unsigned int i = 0; i < n_mine; i++) {
			bool ended;
			unsigned int n = pl_port_rx(mine[i], now, f, pkts, &ended), ok = n, nb = 0;

			left -= ended;
			if (n == 0)
				continue;
			if (stages) {
				ok = pl_port_parse_count(me, f, pkts, n, bad, &nb);
				if (nb)
					rte_pktmbuf_free_bulk(bad, nb);
			}
			sink_burst(me, f, pkts, ok);
			counted += ok;
		}
		tx_flush_all(me);
		if (counted > 0)
			pl_count(f, counted, rte_rdtsc());
	}
	tx_flush_all(me);
	worker_ret[me] = ret;
	return ret;
}

static int
plain_worker(void *arg)
{
	(void)arg;
	return rtc_worker(true);
}

static int
io_worker(void *arg)
{
	(void)arg;
	return rtc_worker(false);
}

static int
graph_worker(void *arg)
{
	unsigned int me = rte_lcore_id();

	(void)arg;
	worker_ret[me] = pl_graph_loop();
	return worker_ret[me];
}

/* ---- eventdev --------------------------------------------------------- */

static uint8_t ev_dev, ev_port_of[RTE_MAX_LCORE];
static unsigned int ev_enq, ev_deq;

static uint64_t
sum_fig(size_t off)
{
	uint64_t s = 0;

	for (unsigned int i = 0; i < pl.n_lcores; i++)
		s += __atomic_load_n((uint64_t *)((char *)&pl.lc[pl.lcores[i]].f + off),
				     __ATOMIC_RELAXED);
	return s;
}

/* An eventdev lcore: its RX queues, and the events RX made that the
 * device has not taken yet. */
struct ev_lcore {
	unsigned int me;
	struct pl_fig *f;
	uint8_t port;
	struct rxq_state *mine[PL_MAX_PORTS];
	unsigned int n_mine, left; /* queues, and those not done */
	struct rte_event stash[PL_MAX_BURST];
	unsigned int st_n, st_head;
	bool said_done;
};

static void
ev_make_events(struct ev_lcore *w, struct rte_mbuf **pkts, unsigned int ok)
{
	for (unsigned int k = 0; k < ok; k++) {
		struct rte_event *e = &w->stash[k];

		e->event = 0;
		e->flow_id = part_of(pkts[k]->hash.usr);
		e->op = RTE_EVENT_OP_NEW;
		e->sched_type = RTE_SCHED_TYPE_ATOMIC;
		e->queue_id = 0;
		e->event_type = RTE_EVENT_TYPE_ETHDEV;
		e->priority = RTE_EVENT_DEV_PRIORITY_NORMAL;
		e->mbuf = pkts[k];
	}
	w->st_n = ok;
	w->st_head = 0;
}

/* RX, parsed into NEW events: only when what was refused before is in. */
static void
ev_rx(struct ev_lcore *w, uint64_t now)
{
	struct rte_mbuf *pkts[PL_MAX_BURST], *bad[PL_MAX_BURST];

	for (unsigned int i = 0; i < w->n_mine && w->st_head == w->st_n; i++) {
		struct rxq_state *q = w->mine[i];
		unsigned int nr, ok, nb, want = RTE_MIN(conf->burst, ev_enq);

		if (q->done)
			continue;
		if (q->taken >= q->quota || rx_time_up(now)) {
			q->done = true;
			w->left--;
			continue;
		}
		if (q->quota - q->taken < want)
			want = (unsigned int)(q->quota - q->taken);
		nr = rte_eth_rx_burst(q->port, q->queue, pkts, (uint16_t)want);
		if (nr == 0)
			continue;
		q->taken += nr;
		fig_add(&w->f->produced, nr);
		ok = parse_burst(pkts, nr, bad, &nb);
		if (nb) {
			rte_pktmbuf_free_bulk(bad, nb);
			fig_add(&w->f->malformed, nb);
		}
		ev_make_events(w, pkts, ok);
	}
	if (w->st_head < w->st_n) {
		uint16_t sent = rte_event_enqueue_new_burst(ev_dev, w->port, w->stash + w->st_head,
							    (uint16_t)(w->st_n - w->st_head));

		w->st_head += sent;
		if (w->st_head < w->st_n) {
			w->f->refused += w->st_n - w->st_head;
			w->f->held++;
		}
	}
}

/* What the device scheduled to this lcore: counted in its store, sent on. */
static uint16_t
ev_count(struct ev_lcore *w)
{
	struct rte_mbuf *out[PL_MAX_BURST];
	struct rte_event ev[PL_MAX_BURST];
	uint16_t n = rte_event_dequeue_burst(ev_dev, w->port, ev, ev_deq, 0);

	if (n == 0)
		return 0;
	for (uint16_t j = 0; j < n; j++) {
		struct store *s = stores[ev[j].flow_id];

		out[j] = ev[j].mbuf;
		store_count(s, out[j]->hash.usr);
		s->processed++;
	}
	sink_burst(w->me, w->f, out, n);
	tx_flush_all(w->me);
	pl_count(w->f, n, rte_rdtsc());
	return n;
}

/* Done when every lcore's RX is, and every packet taken is counted or
 * dropped as malformed. */
static bool
ev_all_done(struct ev_lcore *w)
{
	if (w->left == 0 && w->st_head == w->st_n && !w->said_done) {
		w->said_done = true;
		__atomic_add_fetch(&lcores_rx_done, 1, __ATOMIC_ACQ_REL);
	}
	return w->said_done &&
	       __atomic_load_n(&lcores_rx_done, __ATOMIC_ACQUIRE) == pl.n_lcores &&
	       sum_fig(offsetof(struct pl_fig, processed)) +
			       sum_fig(offsetof(struct pl_fig, malformed)) ==
		       sum_fig(offsetof(struct pl_fig, produced));
}

static int
ev_worker(void *arg)
{
	static struct ev_lcore lcs[RTE_MAX_LCORE];
	unsigned int me = rte_lcore_id();
	struct ev_lcore *w = &lcs[me];
	int ret = 0;

	(void)arg;
	*w = (struct ev_lcore){ .me = me, .f = &pl.lc[me].f, .port = ev_port_of[me] };
	for (unsigned int k = 0; k < n_rxqs; k++)
		if (rxqs[k].lcore == me && w->n_mine < PL_MAX_PORTS)
			w->mine[w->n_mine++] = &rxqs[k];
	w->left = w->n_mine;
	for (;;) {
		uint64_t now = rte_rdtsc();

		w->f->loops++;
		lca_freq_poll(me, now);
		pl_warm_check(w->f, now);
		if (unlikely(lca_eal_stop_requested())) {
			ret = -EINTR;
			break;
		}
		if (unlikely(now > pl.deadline)) {
			ret = -ETIMEDOUT;
			break;
		}
		ev_rx(w, now);
		if (ev_count(w) > 0)
			continue;
		if (ev_all_done(w))
			break;
	}
	/* Stopped early: what waits in the device is freed by the drain below. */
	tx_flush_all(me);
	worker_ret[me] = ret;
	return ret;
}

/* ---- lcactor ---------------------------------------------------------- */

struct worker {
	struct store *st;
	struct lca_port *port[PL_MAX_PORTS + 1];              /* by port index */
	lca_actor_id_t tx[PL_MAX_PORTS + 1][RTE_MAX_LCORE]; /* by port index, lcore */
};

static lca_actor_id_t worker_id[PL_MAX_PARTITIONS];
static struct worker *workers[PL_MAX_PARTITIONS];
static bool runtime_up;

struct cls_arg {
	unsigned int pidx;
	struct rxq_state *q[RTE_MAX_LCORE]; /* the port's RX queue on each lcore */
};

static struct cls_arg cls_args[PL_MAX_PORTS + 1];

static void
classify(struct rte_mbuf **pkts, lca_actor_id_t *to, unsigned int n, void *arg)
{
	struct cls_arg *a = arg;
	unsigned int me = rte_lcore_id();
	struct rxq_state *q = a->q[me];
	struct pl_fig *f = &pl.lc[me].f;
	unsigned int bad = 0;

	for (unsigned int i = 0; i < n && i < 4; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (unsigned int i = 0; i < n; i++) {
		uint32_t key;

		if (i + 4 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 4], void *));
		if (likely(parse(pkts[i], &key))) {
			pkts[i]->hash.usr = key;
			to[i] = worker_id[conf->partition_rxq ? local_part_of(key, me) :
								part_of(key)];
		} else {
			to[i] = LCA_ACTOR_NONE; /* counted in dropped_policy */
			bad++;
		}
	}
	fig_add(&f->produced, n);
	if (bad)
		fig_add(&f->malformed, bad);
	if (q != NULL) {
		q->taken += n;
		if (q->taken >= q->quota) {
			lca_port_rx_enable(ports[a->pidx].lp, q->queue, false);
			__atomic_store_n(&q->done, true, __ATOMIC_RELEASE);
		}
	}
}

/* An lcore with no TX queue of the port (the PMD has fewer than lcores):
 * the packets go to the TX actor of another lcore's queue, in envelopes,
 * as senders that want a mailbox do. @return those it took. */
static unsigned int
worker_tx_by_actor(lca_actor_id_t to, struct rte_mbuf **pkts, unsigned int n)
{
	struct lca_msg *msgs[PL_MAX_BURST];
	unsigned int done = 0;

	while (done < n) {
		unsigned int k = RTE_MIN(n - done, (unsigned int)PL_MAX_BURST), sent;
		int err;

		if (lca_msg_from_mbuf_bulk(pkts + done, msgs, k) < 0)
			break;
		sent = lca_send_burst(to, msgs, k, &err);
		if (sent < k) {
			/* The mbufs stay ours: freed and counted by the caller. */
			for (unsigned int i = sent; i < k; i++)
				lca_msg_detach_mbuf(msgs[i]);
			lca_msg_free_bulk(msgs + sent, k - sent);
			return done + sent;
		}
		done += k;
	}
	return done;
}

/* The packet lane: a burst of mbufs, no envelope; counted, then into this
 * lcore's TX queue with lca_port_tx_burst(), one call per run of packets
 * for one port. */
static void
worker_packets(lca_actor_id_t self, void *state, struct rte_mbuf **pkts, uint16_t n)
{
	struct worker *w = state;
	unsigned int me = rte_lcore_id();
	struct pl_fig *f = &pl.lc[me].f;
	struct store *st = w->st;
	uint64_t refused = 0;
	unsigned int i = 0;

	(void)self;
	for (unsigned int k = 0; k < n; k++)
		store_count(st, pkts[k]->hash.usr);
	st->processed += n;
	if (conf->sink == PL_SINK_DROP) {
		rte_pktmbuf_free_bulk(pkts, n);
		pl_count(f, n, rte_rdtsc());
		return;
	}
	while (i < n) {
		uint16_t port = pkts[i]->port;
		int k = conf->tx_port >= 0 ? port_index((uint16_t)conf->tx_port) : port_index(port);
		unsigned int run = 1, took;
		int ret;

		if (k < 0)
			k = 0;
		while (i + run < n && (conf->tx_port >= 0 || pkts[i + run]->port == port))
			run++;
		ret = lca_port_tx_burst(w->port[k], pkts + i, run);
		took = ret >= 0 ? run : worker_tx_by_actor(w->tx[k][me], pkts + i, run);
		if (took < run) {
			rte_pktmbuf_free_bulk(pkts + i + took, run - took);
			refused += run - took;
		}
		i += run;
	}
	fig_add(&f->forwarded, n - refused);
	if (refused)
		fig_add(&f->sink_refused, refused);
	pl_count(f, n, rte_rdtsc());
}

static void
worker_init(void *state, void *arg)
{
	memcpy(state, arg, sizeof(struct worker));
}

/* Every lcore: the warm-up; the main lcore also ends the run: RX off at
 * --duration-ms, and once every queue is off, every packet taken counted
 * or dropped and every forwarded one sent or refused, the stop. */
static unsigned int
lc_watch(unsigned int lcore_id, uint64_t now, void *arg)
{
	struct pl_fig *f = &pl.lc[lcore_id].f;
	uint64_t tx = 0;

	(void)arg;
	pl_warm_check(f, now);
	if (lcore_id != rte_get_main_lcore())
		return 0;
	if (rx_time_up(now)) {
		for (unsigned int k = 0; k < n_rxqs; k++)
			if (!__atomic_load_n(&rxqs[k].done, __ATOMIC_ACQUIRE)) {
				lca_port_rx_enable(ports[rxqs[k].pidx].lp, rxqs[k].queue, false);
				__atomic_store_n(&rxqs[k].done, true, __ATOMIC_RELEASE);
			}
	}
	for (unsigned int k = 0; k < n_rxqs; k++)
		if (!__atomic_load_n(&rxqs[k].done, __ATOMIC_ACQUIRE))
			return 0;
	/* RX is off; the last classify may still be sending what it took. */
	if (sum_fig(offsetof(struct pl_fig, processed)) +
		    sum_fig(offsetof(struct pl_fig, malformed)) !=
	    sum_fig(offsetof(struct pl_fig, produced)))
		return 0;
	for (unsigned int i = 0; i < n_ports; i++) {
		struct lca_port_stats s;

		lca_port_stats_get(ports[i].lp, &s);
		if (s.held != 0)
			return 0;
		tx += s.tx + s.tx_dropped;
	}
	if (conf->sink == PL_SINK_TX && tx != sum_fig(offsetof(struct pl_fig, forwarded)))
		return 0;
	lca_runtime_stop();
	return 0;
}

static int
lcactor_setup(void)
{
	struct lca_runtime_conf rc = {
		.msgs_per_node = 65535 + n_parts * (conf->mailbox + conf->throughput),
		.idle = (enum lca_idle_policy)conf->idle,
	};
	int ret = lca_runtime_init(&rc);

	if (ret < 0) {
		fprintf(stderr, APP ": lcactor runtime: %s\n", strerror(-ret));
		return ret;
	}
	runtime_up = true;
	return 0;
}

static int
lcactor_spawn_workers(void)
{
	static char names[PL_MAX_PARTITIONS][24];
	struct worker *w = calloc(1, sizeof(*w));
	int ret = 0;

	if (w == NULL)
		return -ENOMEM;
	for (uint32_t p = 0; p < n_parts && ret == 0; p++) {
		struct lca_actor_spec spec = {
			.on_packets = worker_packets,
			.packet_queue_size = conf->mailbox,
			.state_size = sizeof(struct worker),
			.state_init = worker_init,
			.state_arg = w,
			.lcore = pl.task_lcore[p],
			.mailbox_size = conf->mailbox,
			.throughput = conf->throughput,
			.name = names[p],
		};

		snprintf(names[p], sizeof(names[p]), "worker p%u", p);
		w->st = stores[p];
		ret = lca_actor_spawn(&spec, &worker_id[p]);
		if (ret < 0)
			fprintf(stderr, APP ": cannot spawn the worker of partition %u: %s\n", p,
				strerror(-ret));
		else
			workers[p] = lca_actor_state(worker_id[p]);
	}
	free(w);
	workers_spawned = ret == 0;
	return ret;
}

static void
lcactor_ports_stop(void)
{
	for (unsigned int i = 0; i < n_ports; i++) {
		if (ports[i].lp != NULL)
			lca_port_stop(ports[i].lp);
		ports[i].lp = NULL;
	}
}

static int
lcactor_ports_start(void)
{
	for (unsigned int i = 0; i < n_ports; i++) {
		struct port_info *p = &ports[i];
		struct lca_port_conf pc = {
			.port_id = p->id,
			.n_rxq = (uint16_t)p->n_rxq,
			.n_txq = (uint16_t)p->n_txq,
			.rx_desc = p->rx_desc,
			.tx_desc = p->tx_desc,
			.n_mbufs = conf->mbufs,
			.burst = conf->burst,
			.rx_lcores = pl.lcores,
			.n_rx_lcores = pl.n_lcores,
			.classify = classify,
			.classify_arg = &cls_args[i],
			.watermark = conf->watermark,
			.keep_open = true,
		};
		int ret = lca_port_start(&pc, &p->lp);

		if (ret < 0) {
			fprintf(stderr, APP ": port %u (%s): lca_port_start: %s\n", p->id, p->name,
				strerror(-ret));
			return ret;
		}
		cls_args[i].pidx = i;
		memset(cls_args[i].q, 0, sizeof(cls_args[i].q));
		if (!p->rx)
			lca_port_rx_enable(p->lp, -1, false);
		if (p->is_null)
			rte_mempool_obj_iter(lca_port_mempool(p->lp), null_fill,
					     (void *)(uintptr_t)&conf->null_zero);
	}
	for (unsigned int k = 0; k < n_rxqs; k++)
		cls_args[rxqs[k].pidx].q[rxqs[k].lcore] = &rxqs[k];
	/* Each worker sends to the TX actor of its own lcore, per port. */
	for (uint32_t p = 0; p < n_parts; p++)
		for (unsigned int i = 0; i < n_ports; i++) {
			workers[p]->port[i] = ports[i].lp;
			for (unsigned int l = 0; l < pl.n_lcores; l++)
				workers[p]->tx[i][pl.lcores[l]] =
					lca_port_tx_actor(ports[i].lp, pl.lcores[l]);
		}
	return 0;
}

/* ---- Runs ------------------------------------------------------------- */

struct port_run {
	enum pl_engine engine;
	int status;
	struct pl_fig lc[RTE_MAX_LCORE];
	uint64_t rx, processed, malformed, forwarded, tx, tx_dropped, sink_refused, in_flight;
	uint64_t overflow, keys, port_rx; /* port_rx: lca_port's or the ethdev's count */
	uint64_t lane_packets, worker_envelopes; /* lcactor: what its workers took, each way */
	uint64_t measured, rx_measured, tx_measured;
	double warm_s, end_s, measured_s, pkt_per_s, rx_per_s, tx_per_s;
	double busy_pct[RTE_MAX_LCORE];
	bool busy_known;
	uint64_t pool_avail[PL_MAX_PORTS + 1], pool_size[PL_MAX_PORTS + 1];
	unsigned int pools_kept;
	bool exact, pools_full;
};

static struct port_run run_res;

static void
runs_reset(void)
{
	for (uint32_t p = 0; p < n_parts; p++)
		if (stores[p] != NULL)
			store_reset(stores[p]);
	for (unsigned int i = 0; i < pl.n_lcores; i++)
		if (lstores[pl.lcores[i]] != NULL)
			store_reset(lstores[pl.lcores[i]]);
	for (unsigned int k = 0; k < n_rxqs; k++) {
		rxqs[k].taken = 0;
		rxqs[k].done = false;
	}
	lcores_rx_done = 0;
	pl_run_reset();
	t_rx_end = conf->duration_ms ? pl.t0 + conf->duration_ms * rte_get_tsc_hz() / 1000 : 0;
}

static void
collect(struct port_run *r)
{
	double hz = (double)rte_get_tsc_hz();
	uint64_t t_end = 0, rx_warm = 0;

	for (unsigned int i = 0; i < pl.n_lcores; i++) {
		unsigned int lc = pl.lcores[i];
		const struct pl_fig *f = &pl.lc[lc].f;

		r->lc[lc] = *f;
		r->rx += f->produced;
		r->processed += f->processed;
		r->malformed += f->malformed;
		r->forwarded += f->forwarded;
		r->sink_refused += f->sink_refused;
		if (r->engine != PL_ENGINE_LCACTOR) {
			r->tx += f->tx;
			r->tx_dropped += f->tx_dropped;
		}
		if (f->warm_seen) {
			r->measured += f->processed - f->processed_warm;
			rx_warm += f->produced_warm;
		} else {
			rx_warm += f->produced;
		}
		if (f->t_last > t_end)
			t_end = f->t_last;
	}
	r->in_flight = r->rx - r->processed - r->malformed;
	r->rx_measured = r->rx - rx_warm;
	r->warm_s = pl.warm ? (double)(pl.t_warm - pl.t0) / hz : 0;
	r->end_s = t_end > pl.t0 ? (double)(t_end - pl.t0) / hz : 0;
	r->measured_s = pl.warm && t_end > pl.t_warm ? (double)(t_end - pl.t_warm) / hz : 0;
	r->pkt_per_s = r->measured_s > 0 ? (double)r->measured / r->measured_s : 0;
	r->rx_per_s = r->measured_s > 0 ? (double)r->rx_measured / r->measured_s : 0;
	for (uint32_t p = 0; p < n_parts; p++) {
		const struct store *s = r->engine == PL_ENGINE_LCACTOR ||
						r->engine == PL_ENGINE_EVENTDEV ? stores[p] : NULL;

		if (s != NULL) {
			r->overflow += s->overflow;
			r->keys += s->n_keys;
		}
	}
	if (lcore_stores(r->engine))
		for (unsigned int i = 0; i < pl.n_lcores; i++) {
			r->overflow += lstores[pl.lcores[i]]->overflow;
			r->keys += lstores[pl.lcores[i]]->n_keys;
		}
}

/* The counts by key of a run, summed over the stores, into --keys. */
static int
keys_write(FILE *out, const struct port_run *r, unsigned int run)
{
	struct store *all[PL_MAX_PARTITIONS + RTE_MAX_LCORE];
	unsigned int n = 0;
	struct store *sum = store_new(rte_get_main_lcore());

	if (sum == NULL)
		return -ENOMEM;
	if (r->engine == PL_ENGINE_IO)
		n = 0;
	else if (lcore_stores(r->engine))
		for (unsigned int i = 0; i < pl.n_lcores; i++)
			all[n++] = lstores[pl.lcores[i]];
	else
		for (uint32_t p = 0; p < n_parts; p++)
			all[n++] = stores[p];
	for (unsigned int k = 0; k < n; k++)
		for (uint32_t i = 0; i <= all[k]->mask; i++) {
			const struct store_ent *e = &all[k]->e[i];

			for (uint64_t c = 0; e->used && c < e->count; c++)
				store_count(sum, e->key);
		}
	for (uint32_t i = 0; i <= sum->mask; i++)
		if (sum->e[i].used)
			fprintf(out, "%s %u %u %" PRIu64 "\n", pl_engine_name(r->engine), run + 1,
				sum->e[i].key, sum->e[i].count);
	lca_mempool_free(sum);
	return 0;
}

static int
run_plain_or_eventdev(struct port_run *r)
{
	int ret = 0;

	for (unsigned int i = 0; i < n_ports && ret == 0; i++) {
		ret = dev_up(&ports[i]);
		if (ret == 0 && ports[i].is_null)
			rte_mempool_obj_iter(ports[i].pool, null_fill,
					     (void *)(uintptr_t)&conf->null_zero);
		if (ret == 0)
			rte_eth_stats_reset(ports[i].id);
	}
	if (ret == 0)
		ret = txbufs_make();
	if (ret < 0) {
		for (unsigned int i = 0; i < n_ports; i++)
			rte_eth_dev_stop(ports[i].id);
		return ret;
	}
	runs_reset();
	ret = pl_launch(r->engine == PL_ENGINE_PLAIN ? plain_worker :
			r->engine == PL_ENGINE_IO    ? io_worker :
			r->engine == PL_ENGINE_GRAPH ? graph_worker : ev_worker,
			worker_ret);
	r->status = ret;
	if (r->engine == PL_ENGINE_EVENTDEV) {
		/* An interrupted run leaves events in the device: take them out. */
		struct rte_event ev[64];
		uint16_t n;
		unsigned int idle = 0;

		while (ret != 0 && idle < 1000) {
			idle++;
			for (unsigned int i = 0; i < pl.n_lcores; i++)
				while ((n = rte_event_dequeue_burst(ev_dev, ev_port_of[pl.lcores[i]],
								    ev, 64, 0)) > 0) {
					for (uint16_t j = 0; j < n; j++)
						rte_pktmbuf_free(ev[j].mbuf);
					idle = 0;
				}
		}
	}
	collect(r);
	for (unsigned int i = 0; i < n_ports; i++) {
		struct rte_eth_stats es;

		if (ports[i].rx && rte_eth_stats_get(ports[i].id, &es) == 0)
			r->port_rx += es.ipackets;
		rte_eth_dev_stop(ports[i].id);
		r->pool_avail[i] = rte_mempool_avail_count(ports[i].pool);
		r->pool_size[i] = ports[i].pool->size;
	}
	return ret;
}

/* What the workers took so far: packets (on_packets), envelopes. */
static void
workers_took(uint64_t *packets, uint64_t *envelopes)
{
	*packets = *envelopes = 0;
	for (uint32_t p = 0; p < n_parts; p++) {
		struct lca_actor_stats st;

		if (lca_actor_stats_get(worker_id[p], &st) == 0) {
			*packets += st.packets;
			*envelopes += st.received;
		}
	}
}

static int
run_lcactor(struct port_run *r)
{
	int ret = lcactor_ports_start();
	uint64_t pk0, env0;

	workers_took(&pk0, &env0);
	for (unsigned int i = 0; i < pl.n_lcores && ret == 0; i++) {
		struct lca_lcore_hook hk = { .poll = lc_watch };

		ret = lca_lcore_hook_add(pl.lcores[i], &hk);
	}
	if (ret == 0) {
		lca_lcore_stats_reset();
		runs_reset();
		ret = lca_runtime_run((unsigned int)(conf->timeout_s * 1000));
	}
	for (unsigned int i = 0; i < pl.n_lcores; i++) {
		struct lca_lcore_hook hk = { .poll = lc_watch };

		lca_lcore_hook_remove(pl.lcores[i], &hk);
	}
	r->status = ret;
	collect(r);
	workers_took(&r->lane_packets, &r->worker_envelopes);
	r->lane_packets -= pk0;
	r->worker_envelopes -= env0;
	for (unsigned int i = 0; i < n_ports; i++) {
		struct lca_port_stats s;

		if (ports[i].lp == NULL)
			continue;
		lca_port_stats_get(ports[i].lp, &s);
		r->port_rx += s.rx;
		r->tx += s.tx;
		r->tx_dropped += s.tx_dropped;
		for (unsigned int q = 0; q < ports[i].n_txq; q++) {
			struct lca_port_stats qs;
			unsigned int lc = pl.lcores[q % pl.n_lcores];

			lca_port_queue_stats_get(ports[i].lp, q, &qs);
			r->lc[lc].tx += qs.tx;
			r->lc[lc].tx_dropped += qs.tx_dropped;
		}
		r->pool_avail[i] = rte_mempool_avail_count(lca_port_mempool(ports[i].lp));
		r->pool_size[i] = lca_port_mempool(ports[i].lp)->size;
	}
	r->busy_known = true;
	for (unsigned int i = 0; i < pl.n_lcores; i++) {
		struct lca_lcore_stats s;
		unsigned int lc = pl.lcores[i];

		if (lca_lcore_stats_get(lc, &s) == 0 && s.busy_cycles + s.idle_cycles > 0)
			r->busy_pct[lc] = 100.0 * (double)s.busy_cycles /
					  (double)(s.busy_cycles + s.idle_cycles);
	}
	lcactor_ports_stop();
	r->pools_kept = lca_port_pools_kept();
	return ret;
}

/* ---- Printing --------------------------------------------------------- */

static const char *
engine_what(enum pl_engine e)
{
	switch (e) {
	case PL_ENGINE_LCACTOR:
		return "lca_port RX hooks classify by flow onto the packet lane; worker actors "
		       "(on_packets) count and lca_port_tx_burst()";
	case PL_ENGINE_EVENTDEV:
		return "each lcore's rx_burst enqueues NEW events (flow = partition, atomic); "
		       "each lcore's port dequeues, counts, transmits";
	case PL_ENGINE_PLAIN:
		return "rx_burst -> parse -> count -> tx_burst on each lcore, no actors";
	case PL_ENGINE_GRAPH:
		return "librte_graph on each lcore: an RX source node -> parse + count node -> TX "
		       "node (malformed -> drop node)";
	case PL_ENGINE_IO:
		return "rx_burst -> tx_burst on each lcore, no stage: the port's ceiling";
	default:
		return "";
	}
}

static const char *
grouped(uint64_t v, char *buf, size_t len)
{
	char digits[32];
	int n = snprintf(digits, sizeof(digits), "%" PRIu64, v), o = 0;

	for (int i = 0; i < n && o + 2 < (int)len; i++) {
		if (i > 0 && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

static void
print_header(void)
{
	const struct pl_conf *c = conf;
	double load[3] = { 0 };
	FILE *f = fopen("/proc/loadavg", "r");

	if (f != NULL) {
		if (fscanf(f, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3)
			load[0] = -1;
		fclose(f);
	}
	printf("# " APP " --source port: RX -> parse (Ethernet/IPv4/UDP; anything else is "
	       "malformed, dropped by policy)\n#   -> keyed count (key = UDP sport<<16 | dport; "
	       "%u partition stores of %u slots) -> %s.\n",
	       n_parts, STORE_SLOTS,
	       c->sink == PL_SINK_TX ? (c->tx_port >= 0 ? "TX out of --tx-port" :
						       "TX out of the port it came in by")
				     : "drop (--sink drop)");
	if (quota_total != UINT64_MAX)
		printf("# A run takes %" PRIu64 " packets (split over %u RX queues)%s, then stops "
		       "RX and drains.\n", quota_total, n_rxqs,
		       c->duration_ms ? " or runs --duration-ms" : "");
	else
		printf("# A run takes packets for %" PRIu64 " ms, then stops RX and drains.\n",
		       c->duration_ms);
	if (has_lcactor_engine())
		printf("#   lcactor: lca_port's RX takes whole bursts; it stops at the burst that "
		       "reaches its queue's quota, so it may take up to a burst-1 more.\n");
	printf("# Warm-up: ");
	if (c->warmup_ms)
		printf("%" PRIu64 " ms", c->warmup_ms);
	else
		printf("until %" PRIu64 " packets are counted", c->warmup_messages);
	printf("; then measured to the last packet counted. Burst %u, worker throughput %u, "
	       "mailbox %u, watermark %u.\n", c->burst, c->throughput, c->mailbox, c->watermark);
	printf("# Load average before the run: %.2f %.2f %.2f on %ld CPUs%s\n", load[0], load[1],
	       load[2], sysconf(_SC_NPROCESSORS_ONLN),
	       load[0] > 0.5 ? " (other jobs share the machine: the figures are theirs too)" : "");
	if (vdev_was_added)
		printf("# EAL: added --vdev event_dsw0 for --engine eventdev.\n");
	for (unsigned int i = 0; i < n_ports; i++) {
		const struct port_info *p = &ports[i];

		printf("# port %u (%s, %s): %s, %u RX and %u TX queues, %u/%u descriptors%s\n",
		       p->id, p->name, p->driver, p->rx ? "RX" : "TX only (--tx-port)", p->n_rxq,
		       p->n_txq, p->rx_desc, p->tx_desc,
		       p->tx_shared ? "; fewer TX queues than lcores: plain and eventdev lcores "
				      "share one under a lock" : "");
		if (p->is_null)
			printf("#   net_null hands out the pool's mbufs as they are (copy=0): %s\n",
			       c->null_zero ? "left zeroed (--null-frames zero), so every frame is "
					      "malformed"
					    : "each mbuf is written once with a UDP frame (1024 keys, "
					      "by mbuf index), so every frame parses (--null-frames "
					      "udp); with copy=1 they would be zeroed: malformed");
	}
}

static bool
has_lcactor_engine(void)
{
	for (unsigned int i = 0; i < conf->n_engines; i++)
		if (conf->engines[i] == PL_ENGINE_LCACTOR)
			return true;
	return false;
}

static json_t *
print_placement(void)
{
	json_t *arr = json_array();
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int cpus_used = 0;
	int seen[RTE_MAX_LCORE];

	printf("\nPlacement (%u lcore%s on %ld online CPU%s):\n", pl.n_lcores,
	       pl.n_lcores > 1 ? "s" : "", cpus, cpus > 1 ? "s" : "");
	for (unsigned int i = 0; i < pl.n_lcores; i++) {
		unsigned int lc = pl.lcores[i];
		int cpu = lca_topo_lcore_cpu(lc);
		bool dup = false;

		for (unsigned int k = 0; k < i; k++)
			dup |= seen[k] == cpu;
		seen[i] = cpu;
		cpus_used += !dup;
		printf("  lcore %u (cpu %d, node %u): RX", lc, cpu, rte_lcore_to_socket_id(lc));
		for (unsigned int k = 0; k < n_rxqs; k++)
			if (rxqs[k].lcore == lc)
				printf(" port %u q%u", rxqs[k].port, rxqs[k].queue);
		printf("; lcactor workers");
		for (uint32_t p = 0; p < n_parts; p++)
			if (pl.task_lcore[p] == lc) {
				printf(" p%u", p);
				if (workers_spawned) {
					char role[48];

					snprintf(role, sizeof(role), "worker p%u", p);
					json_array_append_new(arr, json_pack(
						"{s:i, s:i, s:i, s:i, s:s}", "actor", (int)worker_id[p],
						"lcore", (int)lc, "cpu", cpu, "node",
						(int)rte_lcore_to_socket_id(lc), "role", role));
				}
			}
		printf("; TX queue %u of each port; plain: counts its own RX queue's packets\n",
		       i);
	}
	printf("  Every engine polls all %u lcore%s busily (lcactor: --idle %s).", pl.n_lcores,
	       pl.n_lcores > 1 ? "s" : "", lca_idle_policy_name((enum lca_idle_policy)conf->idle));
	if ((long)pl.n_lcores >= cpus)
		printf(" %u busy lcores on %ld CPUs: nothing is left for the kernel or other jobs, "
		       "which take turns with them;\n  a run on fewer lcores than CPUs (plain on "
		       "one lcore) has a CPU to spare for them.\n", pl.n_lcores, cpus);
	else
		printf(" %ld CPUs, %u busy: %ld left for the kernel and other jobs.\n", cpus,
		       pl.n_lcores, cpus - (long)pl.n_lcores);
	if (cpus_used < pl.n_lcores || (long)pl.n_lcores > cpus)
		printf("WARNING: %u busy-polling lcores on %u CPUs (%ld online): they take turns on "
		       "a CPU, so the figures are not per core\n", pl.n_lcores, cpus_used, cpus);
	return arr;
}

static void
print_run(const struct port_run *r, unsigned int run, const struct lca_series *s)
{
	const char *name = pl_engine_name(r->engine);
	char verdict[320], a[32];

	printf("\n== %s, run %u of %u: %s ==\n", name, run + 1, conf->runs, engine_what(r->engine));
	if (r->measured_s > 0)
		printf("%s: after the warm-up (~%.3fs), %" PRIu64 " packets counted in %.3fs "
		       "(%.3fs-%.3fs): ~%s packets/sec\n", name, r->warm_s, r->measured,
		       r->measured_s, r->warm_s, r->end_s,
		       grouped((uint64_t)(r->pkt_per_s + 0.5), a, sizeof(a)));
	else
		printf("%s: nothing measured: the run ended (%s) before the warm-up did%s\n", name,
		       r->status == 0 ? "done" : strerror(-r->status),
		       r->rx == 0 ? " (no packet came)" : "");
	printf("  %-7s %14s  %s\n", "stage", "pkt/s", "(after the warm-up)");
	printf("  %-7s %14.0f  taken from %u RX queue%s\n", "rx", r->rx_per_s, n_rxqs,
	       n_rxqs == 1 ? "" : "s");
	printf("  %-7s %14.0f  Ethernet/IPv4/UDP; %" PRIu64 " malformed in all, dropped by "
	       "policy\n", "parse", r->pkt_per_s, r->malformed);
	printf("  %-7s %14.0f  %" PRIu64 " keys in %s%s\n", "count", r->pkt_per_s, r->keys,
	       r->engine == PL_ENGINE_IO	 ? "no store (io: no stage; counted = forwarded)" :
	       lcore_stores(r->engine) ? "the lcores' stores" : "the partitions' stores",
	       r->overflow ? " (SOME KEYS FOUND A STORE FULL)" : "");
	if (conf->sink == PL_SINK_TX)
		printf("  %-7s %14.0f  sent %" PRIu64 " (mean over the measured time)\n", "tx",
		       r->measured_s > 0 ? (double)r->tx * r->measured / (r->processed ? r->processed : 1) / r->measured_s : 0,
		       r->tx);
	else
		printf("  %-7s %14s  --sink drop\n", "drop", "-");
	printf("  %-5s %4s %12s %10s %12s %12s %12s %10s %14s %6s\n", "lcore", "cpu", "rx",
	       "malformed", "counted", "forwarded", "tx", "tx_drop", "pkt/s counted", "busy%");
	for (unsigned int i = 0; i < pl.n_lcores; i++) {
		unsigned int lc = pl.lcores[i];
		const struct pl_fig *f = &r->lc[lc];
		double rate;
		char busy[16] = "-";

		rate = pl_fig_rate(f);
		if (r->busy_known)
			snprintf(busy, sizeof(busy), "%.1f", r->busy_pct[lc]);
		printf("  %-5u %4d %12" PRIu64 " %10" PRIu64 " %12" PRIu64 " %12" PRIu64
		       " %12" PRIu64 " %10" PRIu64 " %14.0f %6s\n", lc, lca_topo_lcore_cpu(lc),
		       f->produced, f->malformed, f->processed, f->forwarded, f->tx, f->tx_dropped,
		       rate, busy);
	}
	if (!r->busy_known)
		printf("  (busy%%: %s polls busily, with no idle policy: 100%% of its lcores)\n",
		       name);
	printf("  accounting: rx %" PRIu64 " = counted %" PRIu64 " + dropped by policy (malformed) "
	       "%" PRIu64 " + in flight %" PRIu64 "; port rx %" PRIu64 "; ",
	       r->rx, r->processed, r->malformed, r->in_flight, r->port_rx);
	if (conf->sink == PL_SINK_TX)
		printf("forwarded %" PRIu64 " = tx %" PRIu64 " + tx_dropped %" PRIu64
		       " (refused by a TX actor's mailbox: %" PRIu64 "): ", r->forwarded, r->tx,
		       r->tx_dropped, r->sink_refused);
	printf("%s\n", r->exact ? "exact" : "NOT EXACT");
	for (unsigned int i = 0; i < n_ports; i++)
		printf("  pool of port %u: %" PRIu64 " of %" PRIu64 " mbufs back%s\n", ports[i].id,
		       r->pool_avail[i], r->pool_size[i],
		       r->pool_avail[i] == r->pool_size[i] ? " (full)" : " (SOME ARE OUT)");
	if (r->engine == PL_ENGINE_LCACTOR) {
		printf("  lca_port pools kept after the stop: %u\n", r->pools_kept);
		printf("  packet lane: the workers took %" PRIu64 " packets in on_packets and %"
		       PRIu64 " envelopes\n", r->lane_packets, r->worker_envelopes);
	}
	lca_series_verdict_text(s, verdict, sizeof(verdict));
	printf("  clock: %s\n", verdict);
	lca_series_print_freq(stdout, s);
}

static json_t *
run_json(const struct port_run *r, unsigned int run, json_t *freq)
{
	json_t *lcs = json_array(), *o;

	for (unsigned int i = 0; i < pl.n_lcores; i++) {
		unsigned int lc = pl.lcores[i];
		const struct pl_fig *f = &r->lc[lc];
		double rate;

		rate = pl_fig_rate(f);
		json_array_append_new(lcs, json_pack(
			"{s:i, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:f}", "lcore", (int)lc,
			"cpu", lca_topo_lcore_cpu(lc), "rx", (json_int_t)f->produced, "malformed",
			(json_int_t)f->malformed, "processed", (json_int_t)f->processed,
			"forwarded", (json_int_t)f->forwarded, "tx", (json_int_t)f->tx,
			"tx_dropped", (json_int_t)f->tx_dropped, "pkt_per_s", rate, "busy_percent",
			r->busy_known ? r->busy_pct[lc] : 100.0));
	}
	o = json_pack("{s:i, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
			 "s:f, s:f, s:f, s:f, s:f, s:b, s:b, s:o, s:o}",
			 "run", (int)run + 1, "status",
			 r->status == 0 ? "done" : strerror(-r->status), "rx", (json_int_t)r->rx,
			 "port_rx", (json_int_t)r->port_rx, "processed",
			 (json_int_t)r->processed, "malformed", (json_int_t)r->malformed,
			 "in_flight", (json_int_t)r->in_flight, "forwarded",
			 (json_int_t)r->forwarded, "tx", (json_int_t)r->tx, "tx_dropped",
			 (json_int_t)r->tx_dropped, "sink_refused", (json_int_t)r->sink_refused,
			 "keys", (json_int_t)r->keys, "measured", (json_int_t)r->measured,
			 "warmup_s", r->warm_s, "end_s", r->end_s, "measured_s", r->measured_s,
			 "msg_per_s", r->pkt_per_s, "rx_per_s", r->rx_per_s, "exact", r->exact,
			 "pools_full", r->pools_full, "lcores", lcs, "frequency", freq);
	if (o != NULL && r->engine == PL_ENGINE_LCACTOR) {
		json_object_set_new(o, "lane_packets", json_integer((json_int_t)r->lane_packets));
		json_object_set_new(o, "worker_envelopes",
				    json_integer((json_int_t)r->worker_envelopes));
	}
	return o;
}

/* ---- Main ------------------------------------------------------------- */

static struct pl_engine_runs by_engine[PL_ENGINE_COUNT];

static void
print_side_by_side(json_t *root)
{
	char what[256];
	int o = snprintf(what, sizeof(what), "ports");

	for (unsigned int i = 0; i < n_ports && o < (int)sizeof(what); i++)
		o += snprintf(what + o, sizeof(what) - (size_t)o, "%s%u (%s)", i ? "," : " ",
			      ports[i].id, ports[i].driver);
	pl_report_side_by_side(root, conf, by_engine, what, "pkt/s");
}

/* The verdict: a row per engine, lcactor's against plain run by run. */
static int
add_verdicts(json_t *root)
{
	return pl_report_verdicts(root, conf, by_engine, "M pkt/s");
}

static json_t *
conf_json(void)
{
	json_t *engines = json_array(), *pa = json_array();

	for (unsigned int i = 0; i < conf->n_engines; i++)
		json_array_append_new(engines, json_string(pl_engine_name(conf->engines[i])));
	for (unsigned int i = 0; i < n_ports; i++)
		json_array_append_new(pa, json_pack("{s:i, s:s, s:s, s:b, s:i, s:i}", "id",
						    (int)ports[i].id, "name", ports[i].name,
						    "driver", ports[i].driver, "rx", ports[i].rx,
						    "rx_queues", (int)ports[i].n_rxq, "tx_queues",
						    (int)ports[i].n_txq));
	return json_pack("{s:s, s:s, s:o, s:o, s:i, s:I, s:I, s:I, s:i, s:i, s:i, s:i, s:s, "
			 "s:s, s:s, s:s, s:i, s:b, s:i}",
			 "benchmark", "packet-pipeline", "source", "port", "engines", engines,
			 "ports", pa, "partitions", (int)n_parts, "messages",
			 (json_int_t)(quota_total == UINT64_MAX ? 0 : quota_total), "warmup_messages",
			 (json_int_t)(conf->warmup_ms ? 0 : conf->warmup_messages), "duration_ms",
			 (json_int_t)conf->duration_ms, "burst", (int)conf->burst, "throughput",
			 (int)conf->throughput, "mailbox", (int)conf->mailbox, "watermark",
			 (int)conf->watermark, "sink", conf->sink == PL_SINK_TX ? "tx" : "drop",
			 "idle", lca_idle_policy_name((enum lca_idle_policy)conf->idle),
			 "null_frames", conf->null_zero ? "zero" : "udp", "partition_by",
			 conf->partition_rxq ? "rxq" : "key", "tx_port", conf->tx_port,
			 "eventdev_vdev_added", vdev_was_added, "runs", (int)conf->runs);
}

static void
teardown(void)
{
	if (runtime_up) {
		lcactor_ports_stop();
		lca_runtime_cleanup();
		runtime_up = false;
	}
	for (unsigned int e = 0; e < conf->n_engines; e++) {
		if (conf->engines[e] == PL_ENGINE_EVENTDEV)
			pl_eventdev_teardown();
		if (conf->engines[e] == PL_ENGINE_GRAPH)
			pl_graph_teardown();
	}
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		for (unsigned int k = 0; k < PL_MAX_PORTS + 1; k++) {
			if (txbufs[i][k] != NULL) {
				rte_free(txbufs[i][k]->buf);
				rte_free(txbufs[i][k]);
			}
			txbufs[i][k] = NULL;
		}
		lca_mempool_free(lstores[i]);
		lstores[i] = NULL;
	}
	for (uint32_t p = 0; p < PL_MAX_PARTITIONS; p++) {
		lca_mempool_free(stores[p]);
		stores[p] = NULL;
	}
	for (unsigned int i = 0; i < n_ports; i++) {
		if (ports[i].pool != NULL) {
			rte_mempool_free(ports[i].pool);
			ports[i].pool = NULL;
		}
	}
}

static void
src_noop(void)
{
}

static const struct pl_source pl_source_port = {
	.name = "port",
	.reset = src_noop,
	.teardown = src_noop,
};

static int
setup(void)
{
	unsigned int lc;
	int ret;

	static struct pl_lcore figs[RTE_MAX_LCORE];

	pl.conf = conf;
	pl.src = &pl_source_port;
	pl.lc = figs;
	pl.n_lcores = 0;
	RTE_LCORE_FOREACH(lc)
		pl.lcores[pl.n_lcores++] = lc;
	n_parts = conf->partitions;
	for (uint32_t p = 0; p < n_parts; p++) {
		pl.task_lcore[p] = pl.src_lcore[p] = pl.lcores[p % pl.n_lcores];
		stores[p] = store_new(pl.task_lcore[p]);
		if (stores[p] == NULL)
			return -ENOMEM;
	}
	local_parts_make();
	for (unsigned int i = 0; i < pl.n_lcores; i++) {
		lstores[pl.lcores[i]] = store_new(pl.lcores[i]);
		if (lstores[pl.lcores[i]] == NULL)
			return -ENOMEM;
	}
	ret = ports_probe();
	if (ret < 0)
		return ret;
	for (unsigned int e = 0; e < conf->n_engines; e++) {
		switch (conf->engines[e]) {
		case PL_ENGINE_LCACTOR:
			ret = lcactor_setup();
			if (ret == 0)
				ret = lcactor_spawn_workers();
			break;
		case PL_ENGINE_EVENTDEV:
			ret = pl_eventdev_setup();
			if (ret == 0)
				pl_eventdev_ports(&ev_dev, ev_port_of, &ev_enq, &ev_deq);
			break;
		case PL_ENGINE_GRAPH:
			ret = pl_graph_setup();
			break;
		default:
			break;
		}
		if (ret < 0)
			return ret;
	}
	for (unsigned int e = 0; e < conf->n_engines; e++)
		if (conf->engines[e] != PL_ENGINE_LCACTOR)
			for (unsigned int i = 0; i < n_ports; i++)
				if (ports[i].pool == NULL && (ret = pool_for(&ports[i])) < 0)
					return ret;
	return 0;
}

/* A failure the command line caused (a port, queue count or pool the PMD
 * or lca_port refuses): exit 2, as for any bad argument. */
static int
usage_error(int ret)
{
	return ret == -ENODEV || ret == -EINVAL || ret == -ENOSPC;
}

/* Capture: dpdk-dumpcap and dpdk-pdump, secondary processes, ask the
 * primary over its multi-process channel to copy what every engine's RX
 * and TX queues pass; without shared config (--in-memory) there is no
 * channel, which is said once and is no error. Up for the whole run, not
 * only while lca_port's ports are (it calls rte_pdump_init() too, and
 * finds it done). */
static bool
capture_up(void)
{
#ifdef PL_HAVE_PDUMP
	char sock[PATH_MAX];

	/* A secondary process reaches the primary by its mp_socket; without
	 * shared config (--in-memory, --no-shconf) EAL makes none. */
	snprintf(sock, sizeof(sock), "%s/mp_socket", rte_eal_get_runtime_dir());
	if (access(sock, F_OK) != 0) {
		printf("# Capture: none (no multi-process channel: dpdk-dumpcap needs a run "
		       "with hugepages, without --in-memory).\n");
		return false;
	}
	if (rte_pdump_init() == 0) {
		printf("# Capture: dpdk-dumpcap --file-prefix <this EAL's --file-prefix> -i <port> "
		       "can attach.\n");
		/* dumpcap's EAL takes all CPUs, so its main lcore is lcore 0, and
		 * it frees into its pool's cache of lcore 0 while our lcore 0's
		 * pdump callback allocates from that same cache: the two race. */
		if (rte_lcore_is_enabled(0))
			printf("# Capture: lcore 0 is one of this run's lcores, and DPDK 22.11's "
			       "dpdk-dumpcap runs as lcore 0 too, sharing its pool's lcore-0 "
			       "cache with it: give lcore ids from 1 (--lcores '1@0,2@1') for a "
			       "safe capture (docs/usage.md).\n");
		return true;
	}
	printf("# Capture: none (rte_pdump_init: %s).\n", rte_strerror(rte_errno));
#else
	printf("# Capture: none (built without librte_pdump).\n");
#endif
	return false;
}

static void
capture_down(bool up)
{
#ifdef PL_HAVE_PDUMP
	if (up)
		rte_pdump_uninit();
#else
	(void)up;
#endif
}

/* Whether run @p r of engine @p e counted every packet exactly. */
static bool
run_exact(const struct pl_conf *c, enum pl_engine e, const struct port_run *r)
{
	return r->status == 0 && r->in_flight == 0 && r->port_rx == r->rx &&
	       (e == PL_ENGINE_IO ? r->keys == 0 : (r->keys > 0) == (r->processed > 0)) &&
	       r->overflow == 0 && (quota_total == UINT64_MAX || r->rx >= quota_total) &&
	       (c->sink == PL_SINK_DROP || r->forwarded == r->tx + r->tx_dropped) &&
	       r->forwarded + r->sink_refused == (c->sink == PL_SINK_TX ? r->processed : 0) &&
	       (e == PL_ENGINE_LCACTOR || quota_total == UINT64_MAX || r->rx == quota_total);
}

/* Run @p run of engine @p e under the frequency monitor; its figures,
 * JSON and keys. @return the run's status; *ok false when inexact. */
static int
one_run(const struct pl_conf *c, enum pl_engine e, unsigned int run, struct lca_freq_total *all,
	FILE *keys, bool *ok)
{
	static struct lca_series series;
	struct pl_engine_runs *er = &by_engine[e];
	struct port_run *r = &run_res;
	char label[48];
	int ret;

	snprintf(label, sizeof(label), "%s run %u", pl_engine_name(e), run + 1);
	memset(r, 0, sizeof(*r));
	r->engine = e;
	fflush(stdout);
	lca_series_begin(&series, label, 0);
	ret = e == PL_ENGINE_LCACTOR ? run_lcactor(r) : run_plain_or_eventdev(r);
	lca_series_end(&series);
	r->pools_full = r->pools_kept == 0;
	for (unsigned int k = 0; k < n_ports; k++)
		r->pools_full &= r->pool_avail[k] == r->pool_size[k];
	r->exact = run_exact(c, e, r);
	if (ret == -ETIMEDOUT)
		fprintf(stderr, APP ": %s not done after %" PRIu64 " s (--timeout)\n", label,
			c->timeout_s);
	if (usage_error(ret)) {
		lca_series_release(&series);
		teardown();
		fprintf(stderr, APP ": %s: cannot start the ports (%s): see above\n", label,
			strerror(-ret));
		exit(2);
	}
	print_run(r, run, &series);
	lca_freq_total_add(&er->freq, &series);
	lca_freq_total_add(all, &series);
	json_array_append_new(er->runs, run_json(r, run, lca_series_freq_json(&series)));
	lca_series_release(&series);
	*ok &= r->exact && r->pools_full;
	if (keys != NULL)
		keys_write(keys, r, run);
	if (ret == 0 && r->measured_s > 0) {
		er->measured_s[er->n] = r->measured_s;
		er->v[er->n++] = r->pkt_per_s;
	} else if (ret == 0 && c->duration_ms == 0 && r->processed > 0) {
		fprintf(stderr, APP ": %s ended before its warm-up did: nothing measured (shorten "
				"the warm-up)\n", label);
		*ok = false;
	}
	return ret;
}

/* The ports up, or exit 2 when the command line asked for what cannot be. */
static int
ports_up(const struct pl_conf *c, FILE **keys)
{
	int ret = setup();

	if (ret < 0) {
		teardown();
		if (usage_error(ret)) {
			fprintf(stderr, APP ": --source port: cannot set up the ports (%s): see "
					"above\n", strerror(-ret));
			exit(2);
		}
		return ret;
	}
	print_header();
	if (c->keys_path != NULL && (*keys = fopen(c->keys_path, "w")) == NULL) {
		fprintf(stderr, APP ": --keys %s: cannot be written\n", c->keys_path);
		teardown();
		exit(2);
	}
	return 0;
}

/* After every run: the side-by-side table, the frequency, the runtime's
 * counters, the verdict and the record. */
static int
report(const struct pl_conf *c, json_t *placement, struct lca_freq_total *all, bool ok, int ret)
{
	json_t *root = lca_result_new(conf_json());

	json_object_set_new(root, "placement", placement);
	if (ret == 0)
		print_side_by_side(root);
	printf("\nFrequency over every run:\n");
	lca_freq_total_print(stdout, "All engines' runs together:", all);
	json_object_set_new(root, "frequency", lca_freq_total_json(all));
	if (has_lcactor_engine()) {
		printf("\nlcactor's runtime after its last run:\n");
		lca_report_actors(stdout);
		lca_report_lcores(stdout);
		lca_report_send_errors(stdout);
	}
	if (ret == 0 && !ok) {
		fprintf(stderr, APP ": the packet accounting is not exact, or mbufs are out\n");
		ret = -EIO;
	}
	if (ret == 0 && add_verdicts(root) < 0)
		ret = -ENOMEM;
	if (lca_result_finish(root, ret == 0, c->json_path) < 0 && ret == 0)
		ret = -EIO;
	json_decref(root);
	return ret;
}

int
pl_port_main(const struct pl_conf *c, bool vdev_added)
{
	struct lca_freq_total all = { 0 };
	json_t *placement;
	FILE *keys = NULL;
	bool ok = true, capture;
	int ret;

	conf = c;
	vdev_was_added = vdev_added;
	lca_report_machine(stdout);
	ret = ports_up(c, &keys);
	if (ret < 0)
		return ret;
	capture = capture_up();
	placement = print_placement();
	for (unsigned int i = 0; i < c->n_engines; i++)
		by_engine[c->engines[i]].runs = json_array();
	/* Engine after engine within a run, run after run (ABAB). */
	for (unsigned int run = 0; run < c->runs && ret == 0; run++)
		for (unsigned int i = 0; i < c->n_engines && ret == 0; i++)
			ret = one_run(c, c->engines[i], run, &all, keys, &ok);
	if (keys != NULL)
		fclose(keys);
	ret = report(c, placement, &all, ok, ret);
	for (unsigned int i = 0; i < PL_ENGINE_COUNT; i++) {
		json_decref(by_engine[i].runs);
		by_engine[i].runs = NULL;
	}
	teardown();
	capture_down(capture);
	return ret;
}
