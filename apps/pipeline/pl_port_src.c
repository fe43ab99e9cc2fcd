/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --source port's source: the ports EAL created, their queues and pools,
 * the RX queues (one a port on each lcore) and their quotas, net_null's
 * frames, and capture (dpdk-dumpcap) for the whole run.
 *
 * net_null leaves the data of the mbufs it hands out as the pool has them
 * (copy=0, its default): the pool's mbufs are written once, before each
 * run, with UDP frames (key from the mbuf's index, 1024 keys), so net_null
 * delivers valid frames at no cost per packet. --null-frames zero leaves
 * them zeroed: every frame is then malformed (as with copy=1).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#if __has_include(<rte_pdump.h>)
#include <rte_pdump.h>
#define PL_HAVE_PDUMP 1
#endif

#include "lca_mempool.h"
#include "pl_port.h"
#include "pl_stages.h"

#define NULL_KEYS 1024u
#define DESC 1024
#define POOL_CACHE 256
#define IN_FLIGHT 8192

struct pl_port_state pp;
uint32_t pl_n_parts;
uint32_t pl_local_parts[RTE_MAX_LCORE][PL_MAX_PARTITIONS];
unsigned int pl_n_local_parts[RTE_MAX_LCORE];

struct store *
pl_store_new(unsigned int lcore)
{
	struct store *s = lca_mempool_alloc_on_lcore(
		"pl_store", sizeof(*s) + PL_STORE_SLOTS * sizeof(struct store_ent), lcore);

	if (s != NULL) {
		s->mask = PL_STORE_SLOTS - 1;
		s->lcore = lcore;
	}
	return s;
}

void
pl_store_reset(struct store *s)
{
	s->processed = s->overflow = 0;
	s->n_keys = 0;
	memset(s->e, 0, PL_STORE_SLOTS * sizeof(struct store_ent));
}

void
pl_port_local_parts_make(void)
{
	memset(pl_n_local_parts, 0, sizeof(pl_n_local_parts));
	for (uint32_t p = 0; p < pl_n_parts; p++) {
		unsigned int lc = pl.task_lcore[p];

		pl_local_parts[lc][pl_n_local_parts[lc]++] = p;
	}
}

/* net_null's frames: a UDP frame in every mbuf of the pool, once. */
void
pl_null_fill(struct rte_mempool *mp, void *arg, void *obj, unsigned int idx)
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
	p->reopen = strcmp(info.driver_name, "net_pcap") == 0;
	if (p->reopen) {
		const struct rte_devargs *da = rte_dev_devargs(info.device);

		if (da == NULL || da->args == NULL ||
		    (size_t)snprintf(p->devargs, sizeof(p->devargs), "%s", da->args) >=
			    sizeof(p->devargs)) {
			fprintf(stderr, APP ": port %u (%s): its arguments are missing or longer "
					"than %zu bytes\n", p->id, p->name, sizeof(p->devargs) - 1);
			return -EINVAL;
		}
	}
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
		rte_spinlock_init(&p->txlock[l].lock);
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
	pp.n_rxqs = 0;
	for (unsigned int i = 0; i < pp.n_ports; i++)
		for (unsigned int q = 0; pp.ports[i].rx && q < pp.ports[i].n_rxq; q++)
			pp.rxqs[pp.n_rxqs++] = (struct rxq_state){
				.port = pp.ports[i].id, .queue = (uint16_t)q, .pidx = i,
				.lcore = pl.lcores[q % pl.n_lcores],
			};
	pp.quota_total = c->messages_given || c->duration_ms == 0 ? c->messages : UINT64_MAX;
	for (unsigned int k = 0; k < pp.n_rxqs; k++)
		pp.rxqs[k].quota = pp.quota_total == UINT64_MAX ? UINT64_MAX :
				pp.quota_total / pp.n_rxqs + (k < pp.quota_total % pp.n_rxqs);
}

int
pl_port_probe(void)
{
	const struct pl_conf *c = pp.conf;
	uint16_t ids[PL_MAX_PORTS + 1];
	unsigned int n = rx_port_ids(c, ids);
	int ret = 0;

	if (n == 0) {
		fprintf(stderr, APP ": --source port: no port to read (give EAL --vdev net_null0, "
				"--vdev net_pcap0,rx_pcap=FILE, ... and --port N)\n");
		return -ENODEV;
	}
	pp.n_ports = 0;
	for (unsigned int i = 0; i < n; i++)
		pp.ports[pp.n_ports++] = (struct port_info){ .id = ids[i], .rx = true };
	if (c->tx_port >= 0 && port_index((uint16_t)c->tx_port) < 0)
		pp.ports[pp.n_ports++] = (struct port_info){ .id = (uint16_t)c->tx_port, .rx = false };
	for (unsigned int i = 0; i < pp.n_ports && ret == 0; i++)
		ret = port_queues(c, &pp.ports[i]);
	if (ret == 0)
		place_rxqs(c);
	return ret;
}

/* The pool plain and eventdev use: what lca_port computes, the same way. */
int
pl_port_pool(struct port_info *p)
{
	unsigned int need = p->n_rxq * p->rx_desc + p->n_txq * p->tx_desc +
			    pl.n_lcores * POOL_CACHE * 3 / 2 + (p->n_rxq + p->n_txq) * pp.conf->burst +
			    pp.conf->partitions * pp.conf->watermark, n;
	char name[RTE_MEMPOOL_NAMESIZE];

	if (pp.conf->mbufs != 0 && pp.conf->mbufs < need) {
		fprintf(stderr, APP ": port %u: --mbufs %u is too small: the rings, caches, bursts "
				"and events need %u\n", p->id, pp.conf->mbufs, need);
		return -ENOSPC;
	}
	n = pp.conf->mbufs ? pp.conf->mbufs : rte_align32pow2(need + IN_FLIGHT + 1) - 1;
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
int
pl_port_dev_up(struct port_info *p)
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

/* net_pcap closes its files when it stops, so it cannot set its RX queues
 * up for the next engine; with infinite_rx it also keeps the file's frames
 * in mbufs of the run's pool until it is closed. So after each run such a
 * port is removed (its files are closed, its mbufs go back), and before the
 * next it is probed again with the same arguments: each engine replays the
 * same file from its first frame, and a tx_pcap file holds the last run's. */
void
pl_port_release(void)
{
	for (unsigned int i = 0; i < pp.n_ports; i++) {
		struct port_info *p = &pp.ports[i];
		int ret;

		if (!p->reopen || p->removed)
			continue;
		ret = rte_eal_hotplug_remove("vdev", p->name);
		if (ret < 0)
			fprintf(stderr, APP ": port %u (%s): removing it after the run: %s\n", p->id,
				p->name, strerror(-ret));
		p->removed = ret == 0;
	}
}

int
pl_port_reprobe(void)
{
	for (unsigned int i = 0; i < pp.n_ports; i++) {
		struct port_info *p = &pp.ports[i];
		uint16_t id = RTE_MAX_ETHPORTS;
		int ret;

		if (!p->removed)
			continue;
		ret = rte_eal_hotplug_add("vdev", p->name, p->devargs);
		if (ret == 0 && rte_eth_dev_get_port_by_name(p->name, &id) != 0)
			ret = -ENODEV;
		if (ret == 0 && id != p->id) {
			fprintf(stderr, APP ": port %u (%s): probed again, it came back as port %u\n",
				p->id, p->name, id);
			return -ENODEV;
		}
		if (ret < 0) {
			fprintf(stderr, APP ": port %u (%s): probing it again for the next run: %s\n",
				p->id, p->name, strerror(-ret));
			return -ENODEV;
		}
		p->removed = false;
	}
	return 0;
}

unsigned int
pl_port_rxqs_of(unsigned int lcore, struct rxq_state **mine)
{
	unsigned int n = 0;

	for (unsigned int k = 0; k < pp.n_rxqs; k++)
		if (pp.rxqs[k].lcore == lcore && n < PL_MAX_PORTS)
			mine[n++] = &pp.rxqs[k];
	return n;
}

/* Capture: dpdk-dumpcap and dpdk-pdump, secondary processes, ask the
 * primary over its multi-process channel to copy what every engine's RX
 * and TX queues pass; without shared config (--in-memory) there is no
 * channel, which is said once and is no error. Up for the whole run, not
 * only while lca_port's ports are (it calls rte_pdump_init() too, and
 * finds it done). */
bool
pl_port_capture_up(void)
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

void
pl_port_capture_down(bool up)
{
#ifdef PL_HAVE_PDUMP
	if (up)
		rte_pdump_uninit();
#else
	(void)up;
#endif
}
