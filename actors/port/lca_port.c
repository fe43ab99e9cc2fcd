/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports: set-up (queue counts, the mbuf pool, ethdev configuration, the
 * hooks and the TX actors) and stop. The counters and queries are in
 * lca_port_query.c, the hot path in lca_port_io.c.
 */
#define LCA_LOG_PART lca_logtype_port
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_memzone.h>
#include <rte_mempool.h>
#include <rte_pdump.h>

#include "lca_eal.h"
#include "lca_lcore.h"
#include "lca_mempool.h"
#include "lca_port_priv.h"
#include "lca_logtypes_priv.h"
#include "lca_refuse_priv.h"

/* Ports started by lca_port_start(), by port id; the main lcore's. */
static struct lca_port *started[RTE_MAX_ETHPORTS];
static unsigned int n_started;
static bool pdump_up;
static unsigned int pool_seq;

unsigned int
lca_port_count(void)
{
	return rte_eth_dev_count_avail();
}

static void
log_ports(void)
{
	uint16_t pid;
	char names[256] = "";
	size_t used = 0;

	RTE_ETH_FOREACH_DEV(pid) {
		char name[RTE_ETH_NAME_MAX_LEN];
		int n;

		if (rte_eth_dev_get_name_by_port(pid, name) != 0)
			snprintf(name, sizeof(name), "?");
		n = snprintf(names + used, sizeof(names) - used, "%s%u (%s)", used ? ", " : "",
			     pid, name);
		if (n < 0 || (size_t)n >= sizeof(names) - used)
			break;
		used += (size_t)n;
	}
	LCA_LOG(ERR, "ports there are: %s\n",
		used ? names : "none (create one with -a or --vdev, e.g. --vdev net_null0)");
}

int
lca_port_parse_id(const char *s, uint16_t *port_id)
{
	unsigned long v;
	char *end;

	if (s == NULL || port_id == NULL || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || v >= RTE_MAX_ETHPORTS) {
		LCA_LOG(ERR, "port '%s': not a port id (0 .. %u)\n", s, RTE_MAX_ETHPORTS - 1);
		return -EINVAL;
	}
	if (!rte_eth_dev_is_valid_port((uint16_t)v)) {
		LCA_LOG(ERR, "port %lu does not exist\n", v);
		log_ports();
		return -ENODEV;
	}
	*port_id = (uint16_t)v;
	return 0;
}

/* The enabled lcores, in order. */
static unsigned int
runtime_lcores(unsigned int *out)
{
	unsigned int n = 0, lcore;

	LCA_LCORE_FOREACH(lcore)
		out[n++] = lcore;
	return n;
}

struct dev_call {
	uint16_t port_id;
	bool close;
	int ret;
};

static void
dev_call_run(void *arg)
{
	struct dev_call *c = arg;

	c->ret = c->close ? rte_eth_dev_close(c->port_id) : rte_eth_dev_stop(c->port_id);
}

/* Under an lca_port that polls it, a stopped device's queues are still
 * polled (DPDK logs every burst, "not ready port"): lca_port_stop() first. */
static int
dev_call(uint16_t port_id, bool close)
{
	struct dev_call c = { .port_id = port_id, .close = close };

	if (port_id < RTE_MAX_ETHPORTS && __atomic_load_n(&started[port_id], __ATOMIC_ACQUIRE))
		return LCA_REFUSED(ERR, close ? "lca_port_dev_close (the port runs)" :
				   "lca_port_dev_stop (the port runs)", LCA_ACTOR_NONE, -EBUSY);
	lca_eal_on_intr_thread(dev_call_run, &c);
	return c.ret;
}

int
lca_port_dev_stop(uint16_t port_id)
{
	return dev_call(port_id, false);
}

int
lca_port_dev_close(uint16_t port_id)
{
	return dev_call(port_id, true);
}

/* Queue counts from the configuration and the PMD's limits. */
static int
queue_counts(struct lca_port *p, const struct lca_port_conf *conf,
	     const struct rte_eth_dev_info *info, unsigned int n_lcores)
{
	unsigned int n_rx_lcores = conf->rx_lcores != NULL ? conf->n_rx_lcores : n_lcores;

	if (conf->n_rxq > info->max_rx_queues) {
		LCA_LOG(ERR, "port %u: %u RX queues asked; the PMD (%s) allows at most %u\n",
			p->port_id, conf->n_rxq, p->driver, info->max_rx_queues);
		return -EINVAL;
	}
	if (conf->n_txq > info->max_tx_queues) {
		LCA_LOG(ERR, "port %u: %u TX queues asked; the PMD (%s) allows at most %u\n",
			p->port_id, conf->n_txq, p->driver, info->max_tx_queues);
		return -EINVAL;
	}
	p->n_rxq = conf->tx_only ? 0 :
		conf->n_rxq ? conf->n_rxq : RTE_MIN(n_rx_lcores, info->max_rx_queues);
	p->n_txq = conf->n_txq ? conf->n_txq : RTE_MIN(n_lcores, info->max_tx_queues);
	if ((p->n_rxq == 0 && !conf->tx_only) || p->n_txq == 0) {
		LCA_LOG(ERR, "port %u: the PMD (%s) has %u RX and %u TX queues at most\n",
			p->port_id, p->driver, info->max_rx_queues, info->max_tx_queues);
		return -EINVAL;
	}
	if (!conf->tx_only && conf->n_rxq == 0 && p->n_rxq < n_rx_lcores)
		LCA_LOG(INFO, "port %u: %u RX queues, the most the PMD (%s) has, for %u lcores\n",
			p->port_id, p->n_rxq, p->driver, n_rx_lcores);
	return 0;
}

static int
check_conf(const struct lca_port_conf *conf)
{
	unsigned int burst = conf->burst ? conf->burst : LCA_PORT_BURST_DEFAULT;

	if (conf->mbuf_size != 0 && conf->mbuf_size <= RTE_PKTMBUF_HEADROOM) {
		LCA_LOG(ERR, "port %u: mbuf_size %u leaves no room past the headroom (%u)\n",
			conf->port_id, conf->mbuf_size, RTE_PKTMBUF_HEADROOM);
		return -EINVAL;
	}
	if (burst > LCA_PORT_BURST_MAX) {
		LCA_LOG(ERR, "port %u: burst %u is above the most, %u\n", conf->port_id,
			conf->burst, LCA_PORT_BURST_MAX);
		return -EINVAL;
	}
	if (conf->tx_only) {
		if (conf->n_rxq != 0 || conf->rx_lcores != NULL || conf->classify != NULL) {
			LCA_LOG(ERR, "port %u: a TX-only port has no RX queues, RX lcores or "
				"classifier\n", conf->port_id);
			return -EINVAL;
		}
		return 0;
	}
	if ((conf->rx_lcores == NULL) != (conf->n_rx_lcores == 0)) {
		LCA_LOG(ERR, "port %u: rx_lcores and n_rx_lcores go together\n", conf->port_id);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < conf->n_rx_lcores; i++)
		if (conf->rx_lcores[i] >= RTE_MAX_LCORE || !lca_eal_lcore_in_use(conf->rx_lcores[i])) {
			LCA_LOG(ERR, "port %u: RX lcore %u is not enabled (-l)\n", conf->port_id,
				conf->rx_lcores[i]);
			return -EINVAL;
		}
	if (conf->classify == NULL && conf->dest == LCA_ACTOR_NONE) {
		LCA_LOG(ERR, "port %u: neither a classifier nor a destination actor\n",
			conf->port_id);
		return -EINVAL;
	}
	return 0;
}

/* The pool: what the rings, caches and bursts need, and room in flight. */
static int
pool_create(struct lca_port *p, const struct lca_port_conf *conf, uint16_t rx_desc,
	    uint16_t tx_desc, unsigned int n_lcores)
{
	unsigned int need, n, cache = LCA_PORT_POOL_CACHE;
	char name[RTE_MEMPOOL_NAMESIZE];

	/* A cache may hold up to 1.5 times its size (rte_mempool's flush threshold). */
	need = p->n_rxq * rx_desc + p->n_txq * tx_desc + n_lcores * cache * 3 / 2 +
	       p->n_rxq * p->burst + p->n_txq * p->burst;
	if (conf->n_mbufs != 0 && conf->n_mbufs < need) {
		LCA_LOG(ERR, "port %u: a pool of %u mbufs is too small: the rings, caches and "
			"bursts need %u (%u RX queues x %u + %u TX queues x %u descriptors, "
			"%u lcores' caches of %u, bursts of %u)\n", p->port_id, conf->n_mbufs,
			need, p->n_rxq, rx_desc, p->n_txq, tx_desc, n_lcores, cache, p->burst);
		return -ENOSPC;
	}
	if (conf->n_mbufs != 0) {
		n = conf->n_mbufs;
	} else {
		/* A mempool is most compact at 2^k - 1. */
		n = rte_align32pow2(need + LCA_PORT_IN_FLIGHT_DEFAULT + 1) - 1;
	}
	snprintf(name, sizeof(name), "lca_port%u_%u", p->port_id, pool_seq++);
	p->pool = rte_pktmbuf_pool_create(name, n, cache, 0,
					  conf->mbuf_size ? conf->mbuf_size : RTE_MBUF_DEFAULT_BUF_SIZE,
					  p->socket);
	if (p->pool == NULL) {
		LCA_LOG(ERR, "port %u: no pool of %u mbufs on socket %d: %s\n", p->port_id, n,
			p->socket, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	p->n_mbufs = n;
	return 0;
}

static int
dev_configure(struct lca_port *p, const struct rte_eth_dev_info *info)
{
	struct rte_eth_conf ec;
	int ret;

	memset(&ec, 0, sizeof(ec));
	if (p->n_rxq > 1) {
		uint64_t hf = (RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP) &
			      info->flow_type_rss_offloads;

		if (hf != 0) {
			ec.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
			ec.rx_adv_conf.rss_conf.rss_hf = hf;
		} else {
			LCA_LOG(INFO, "port %u: the PMD (%s) has no RSS: each of its %u RX queues "
				"gets what the PMD puts there\n", p->port_id, p->driver, p->n_rxq);
		}
	}
	ret = rte_eth_dev_configure(p->port_id, (uint16_t)p->n_rxq, (uint16_t)p->n_txq, &ec);
	if (ret < 0) {
		LCA_LOG(ERR, "port %u: configuring %u RX and %u TX queues failed: %s\n",
			p->port_id, p->n_rxq, p->n_txq, rte_strerror(-ret));
		return ret;
	}
	p->dev_configured = true;
	return 0;
}

/* Descriptor counts within the PMD's limits. */
static int
desc_adjust(struct lca_port *p, const struct lca_port_conf *conf, uint16_t *rx_desc,
	    uint16_t *tx_desc)
{
	int ret = rte_eth_dev_adjust_nb_rx_tx_desc(p->port_id, rx_desc, tx_desc);

	if (ret < 0) {
		LCA_LOG(ERR, "port %u: descriptor counts %u RX, %u TX: %s\n", p->port_id,
			*rx_desc, *tx_desc, rte_strerror(-ret));
		return ret;
	}
	if (conf->rx_desc != 0 && *rx_desc != conf->rx_desc)
		LCA_LOG(INFO, "port %u: %u RX descriptors, as the PMD allows, not %u\n",
			p->port_id, *rx_desc, conf->rx_desc);
	if (conf->tx_desc != 0 && *tx_desc != conf->tx_desc)
		LCA_LOG(INFO, "port %u: %u TX descriptors, as the PMD allows, not %u\n",
			p->port_id, *tx_desc, conf->tx_desc);
	return 0;
}

/* The queues' descriptors on the port's node, near the device. */
static int
queues_setup(struct lca_port *p, uint16_t rx_desc, uint16_t tx_desc)
{
	int ret;

	LCA_LOG(DEBUG, "port %u: %u RX queues of %u descriptors, %u TX of %u, on socket %d\n",
		p->port_id, p->n_rxq, rx_desc, p->n_txq, tx_desc, p->socket);
	for (unsigned int q = 0; q < p->n_rxq; q++) {
		ret = rte_eth_rx_queue_setup(p->port_id, (uint16_t)q, rx_desc,
					     (unsigned int)p->socket, NULL, p->pool);
		if (ret < 0) {
			LCA_LOG(ERR, "port %u RX queue %u: setup with %u descriptors failed: %s\n",
				p->port_id, q, rx_desc, rte_strerror(-ret));
			return ret;
		}
	}
	for (unsigned int q = 0; q < p->n_txq; q++) {
		ret = rte_eth_tx_queue_setup(p->port_id, (uint16_t)q, tx_desc,
					     (unsigned int)p->socket, NULL);
		if (ret < 0) {
			LCA_LOG(ERR, "port %u TX queue %u: setup with %u descriptors failed: %s\n",
				p->port_id, q, tx_desc, rte_strerror(-ret));
			return ret;
		}
	}
	return 0;
}

static struct port_lcore *
lcore_of(struct lca_port *p, unsigned int lcore)
{
	struct port_lcore *pl = p->lcores[lcore];

	if (pl != NULL)
		return pl;
	pl = rte_zmalloc_socket("lca_port_lcore", sizeof(*pl), RTE_CACHE_LINE_SIZE,
				(int)rte_lcore_to_socket_id(lcore));
	if (pl == NULL)
		return NULL;
	pl->port = p;
	pl->lcore = lcore;
	/* At least one entry each: rte_zmalloc() gives NULL for 0 bytes. */
	pl->rxqs = rte_zmalloc("lca_port_rxqs", RTE_MAX(p->n_rxq, 1u) * sizeof(pl->rxqs[0]), 0);
	pl->txqs = rte_zmalloc("lca_port_txqs", p->n_txq * sizeof(pl->txqs[0]), 0);
	if (pl->rxqs == NULL || pl->txqs == NULL) {
		rte_free(pl->rxqs);
		rte_free(pl->txqs);
		rte_free(pl);
		return NULL;
	}
	p->lcores[lcore] = pl;
	return pl;
}

static int
rxqs_create(struct lca_port *p, const struct lca_port_conf *conf, const unsigned int *rx_of)
{
	p->rxq = rte_zmalloc("lca_port_rxq", RTE_MAX(p->n_rxq, 1u) * sizeof(p->rxq[0]), 0);
	if (p->rxq == NULL)
		return -ENOMEM;
	for (unsigned int q = 0; q < p->n_rxq; q++) {
		int socket = (int)rte_lcore_to_socket_id(rx_of[q]);
		struct port_rxq *r = rte_zmalloc_socket("lca_port_rxq", sizeof(*r),
							RTE_CACHE_LINE_SIZE, socket);
		struct port_lcore *pl = lcore_of(p, rx_of[q]);

		if (r == NULL || pl == NULL) {
			rte_free(r);
			return -ENOMEM;
		}
		p->rxq[q] = r;
		r->port_id = p->port_id;
		r->queue_id = (uint16_t)q;
		r->lcore = rx_of[q];
		r->burst = p->burst;
		r->watermark = conf->watermark ? conf->watermark : LCA_PORT_WATERMARK_DEFAULT;
		r->classify = conf->classify;
		r->classify_arg = conf->classify_arg;
		r->dest = conf->dest;
		r->paused_on = LCA_ACTOR_NONE;
		r->pkts = rte_zmalloc_socket(NULL, p->burst * sizeof(r->pkts[0]), 0, socket);
		/* One more: the stash's end mark (port_rx_poll()). */
		r->to = rte_zmalloc_socket(NULL, (p->burst + 1) * sizeof(r->to[0]), 0, socket);
		r->msgs = rte_zmalloc_socket(NULL, p->burst * sizeof(r->msgs[0]), 0, socket);
		r->drops = rte_zmalloc_socket(NULL, p->burst * sizeof(r->drops[0]), 0, socket);
		r->grouped = rte_zmalloc_socket(NULL, p->burst * sizeof(r->grouped[0]), 0, socket);
		r->grouped_to = rte_zmalloc_socket(NULL, (p->burst + 1) * sizeof(r->grouped_to[0]),
						   0, socket);
		if (r->pkts == NULL || r->to == NULL || r->msgs == NULL || r->drops == NULL ||
		    r->grouped == NULL || r->grouped_to == NULL)
			return -ENOMEM;
		pl->rxqs[pl->n_rxq++] = r;
	}
	return 0;
}

static int
txqs_create(struct lca_port *p, const unsigned int *tx_of)
{
	p->txq = rte_zmalloc("lca_port_txq", p->n_txq * sizeof(p->txq[0]), 0);
	if (p->txq == NULL)
		return -ENOMEM;
	for (unsigned int q = 0; q < p->n_txq; q++) {
		int socket = (int)rte_lcore_to_socket_id(tx_of[q]);
		struct port_txq *t = rte_zmalloc_socket("lca_port_txq", sizeof(*t),
							RTE_CACHE_LINE_SIZE, socket);
		struct port_lcore *pl = lcore_of(p, tx_of[q]);

		if (t == NULL || pl == NULL) {
			rte_free(t);
			return -ENOMEM;
		}
		p->txq[q] = t;
		t->port_id = p->port_id;
		t->queue_id = (uint16_t)q;
		t->lcore = tx_of[q];
		t->actor = LCA_ACTOR_NONE;
		t->buf = rte_zmalloc_socket("lca_port_txbuf", RTE_ETH_TX_BUFFER_SIZE(p->burst), 0,
					    socket);
		if (t->buf == NULL)
			return -ENOMEM;
		rte_eth_tx_buffer_init(t->buf, (uint16_t)p->burst);
		rte_eth_tx_buffer_set_err_callback(t->buf, port_tx_unsent, t);
		pl->txqs[pl->n_txq++] = t;
	}
	return 0;
}

static void
tx_state_init(void *state, void *arg)
{
	*(struct port_tx_state *)state = *(struct port_tx_state *)arg;
}

static int
tx_actors_spawn(struct lca_port *p, const unsigned int *lcores, unsigned int n_lcores)
{
	for (unsigned int q = 0; q < p->n_txq; q++) {
		struct port_txq *t = p->txq[q];
		struct port_tx_state st = { .port = p, .own = t };
		char name[32];
		struct lca_actor_spec spec = {
			.batch_handler = port_tx_handler,
			.state_size = sizeof(st),
			.state_init = tx_state_init,
			.state_arg = &st,
			.lcore = t->lcore,
			.throughput = p->burst,
			.name = name,
			/* It owns its lcore's TX queue: a move would put two
			 * lcores on one queue. */
			.pinned = true,
		};
		int ret;

		snprintf(name, sizeof(name), "port%u-tx%u", p->port_id, q);
		ret = lca_actor_spawn(&spec, &t->actor);
		if (ret < 0) {
			t->actor = LCA_ACTOR_NONE;
			LCA_LOG(ERR, "port %u TX queue %u: no TX actor on lcore %u: %s\n",
				p->port_id, q, t->lcore, strerror(-ret));
			return ret;
		}
	}
	/* An lcore's TX actor: its own queue's, else queue (index mod n). */
	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++)
		p->tx_of_lcore[l] = LCA_ACTOR_NONE;
	for (unsigned int i = 0; i < n_lcores; i++) {
		const struct port_lcore *pl = p->lcores[lcores[i]];

		p->tx_of_lcore[lcores[i]] = pl != NULL && pl->n_txq > 0 ?
			pl->txqs[0]->actor : p->txq[i % p->n_txq]->actor;
	}
	return 0;
}

static int
hooks_add(struct lca_port *p)
{
	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++) {
		struct port_lcore *pl = p->lcores[l];
		struct lca_lcore_hook h;
		int ret;

		if (pl == NULL)
			continue;
		h = (struct lca_lcore_hook){
			.poll = pl->n_rxq ? port_lcore_poll : NULL,
			.end = pl->n_txq ? port_lcore_end : NULL,
			.arg = pl,
		};
		ret = lca_lcore_hook_add(l, &h);
		if (ret < 0) {
			LCA_LOG(ERR, "port %u: no hook on lcore %u: %s\n", p->port_id, l,
				strerror(-ret));
			return ret;
		}
		pl->hooked = true;
	}
	return 0;
}

static void
pdump_start(void)
{
	if (pdump_up)
		return;
	/* The app has it up already (lca-pipeline does, for engines without
	 * ports of ours): it is the app's to take down, and a second init
	 * would only fail on its statistics' memzone. */
	if (rte_memzone_lookup("rte_pdump_stats") != NULL)
		return;
	/* Without multi-process (--in-memory, --no-shconf) dpdk-dumpcap cannot
	 * attach anyway: say so, and go on. */
	if (rte_pdump_init() < 0) {
		LCA_LOG(INFO, "no packet capture (rte_pdump_init: %s): dpdk-dumpcap needs a "
			"primary process with shared config\n", rte_strerror(rte_errno));
		return;
	}
	pdump_up = true;
}

/* Whether the link of @p p comes up within @p ms (read every 10 ms). */
static bool
link_up_within(const struct lca_port *p, unsigned int ms)
{
	for (unsigned int t = 0;; t += 10) {
		struct rte_eth_link link;

		if (rte_eth_link_get_nowait(p->port_id, &link) == 0 &&
		    link.link_status == RTE_ETH_LINK_UP)
			return true;
		if (t >= ms)
			return false;
		rte_delay_us_sleep(10 * 1000);
	}
}

/*
 * rte_eth_dev_start(), tried again for up to @p wait_ms while it fails, or,
 * for a memif client, while its link does not come up within a second of
 * the start (stopped and started again: the PMD connects only at a start).
 * So either process of a memif pair may be started first. The wait is said
 * once a second, so that a peer never started shows before the deadline.
 */
static int
dev_start(const struct lca_port *p, unsigned int wait_ms)
{
	const unsigned int link_ms = 1000, step_ms = 100;
	bool client = wait_ms > 0 && port_memif_is_client(p);
	unsigned int waited_ms = 0, said_ms = 0;
	int ret;

	for (;;) {
		ret = rte_eth_dev_start(p->port_id);
		if (ret == 0 && (!client || link_up_within(p, link_ms)))
			break;
		if (ret == 0) {
			waited_ms += link_ms;
			lca_port_dev_stop(p->port_id);
			ret = -ENOTCONN;
		}
		if (waited_ms >= wait_ms) {
			LCA_LOG(ERR, "port %u (%s, %s): %s%s\n", p->port_id, p->name, p->driver,
				ret == -ENOTCONN ? "no link (is its memif server started?)" :
				"start failed: ", ret == -ENOTCONN ? "" : rte_strerror(-ret));
			return ret;
		}
		if (waited_ms == 0 || waited_ms - said_ms >= 1000) {
			said_ms = waited_ms;
			LCA_LOG(WARNING, "port %u (%s, %s): %s%s: waiting for its peer, %u of %u ms\n",
				p->port_id, p->name, p->driver,
				ret == -ENOTCONN ? "no link yet" : "cannot start yet: ",
				ret == -ENOTCONN ? "" : rte_strerror(-ret), waited_ms, wait_ms);
		}
		rte_delay_us_sleep(step_ms * 1000);
		waited_ms += step_ms;
	}
	if (waited_ms > 0)
		LCA_LOG(INFO, "port %u (%s, %s): started, link up, after %u ms of waiting\n",
			p->port_id, p->name, p->driver, waited_ms);
	return 0;
}

static int
port_setup(struct lca_port *p, const struct lca_port_conf *conf)
{
	unsigned int lcores[RTE_MAX_LCORE], n_lcores = runtime_lcores(lcores);
	unsigned int rx_of[RTE_MAX_QUEUES_PER_PORT], tx_of[RTE_MAX_QUEUES_PER_PORT];
	struct rte_eth_dev_info info;
	uint16_t rx_desc = conf->rx_desc ? conf->rx_desc : LCA_PORT_DESC_DEFAULT;
	uint16_t tx_desc = conf->tx_desc ? conf->tx_desc : LCA_PORT_DESC_DEFAULT;
	int ret;

	ret = rte_eth_dev_info_get(p->port_id, &info);
	if (ret < 0) {
		LCA_LOG(ERR, "port %u: no device info: %s\n", p->port_id, rte_strerror(-ret));
		return ret;
	}
	snprintf(p->driver, sizeof(p->driver), "%s", info.driver_name ? info.driver_name : "?");
	ret = queue_counts(p, conf, &info, n_lcores);
	if (ret < 0)
		return ret;
	for (unsigned int q = 0; q < p->n_rxq; q++)
		rx_of[q] = conf->rx_lcores ? conf->rx_lcores[q % conf->n_rx_lcores] :
					     lcores[q % n_lcores];
	for (unsigned int q = 0; q < p->n_txq; q++)
		tx_of[q] = lcores[q % n_lcores];
	p->socket = rte_eth_dev_socket_id(p->port_id);
	if (p->socket == SOCKET_ID_ANY)
		p->socket = (int)rte_lcore_to_socket_id(p->n_rxq > 0 ? rx_of[0] : tx_of[0]);

	ret = desc_adjust(p, conf, &rx_desc, &tx_desc);
	if (ret < 0)
		return ret;
	p->rx_desc = rx_desc;
	ret = pool_create(p, conf, rx_desc, tx_desc, n_lcores);
	if (ret < 0)
		return ret;
	ret = dev_configure(p, &info);
	if (ret < 0)
		return ret;
	ret = queues_setup(p, rx_desc, tx_desc);
	if (ret < 0)
		return ret;
	if (conf->promiscuous) {
		ret = rte_eth_promiscuous_enable(p->port_id);
		if (ret < 0)
			LCA_LOG(WARNING, "port %u: promiscuous mode not enabled: %s\n",
				p->port_id, rte_strerror(-ret));
	}
	ret = rxqs_create(p, conf, rx_of);
	if (ret == 0)
		ret = txqs_create(p, tx_of);
	if (ret < 0) {
		LCA_LOG(ERR, "port %u: no memory for its queues' state\n", p->port_id);
		return ret;
	}
	ret = tx_actors_spawn(p, lcores, n_lcores);
	if (ret < 0)
		return ret;
	ret = dev_start(p, conf->start_wait_ms);
	if (ret < 0)
		return ret;
	p->dev_started = true;
	ret = hooks_add(p);
	if (ret < 0)
		return ret;
	port_memif_watch_start(p);
	pdump_start();
	return 0;
}

int
lca_port_start(const struct lca_port_conf *conf, struct lca_port **port)
{
	struct lca_port *p;
	int ret;

	if (conf == NULL || port == NULL)
		return -EINVAL;
	*port = NULL;
	if (lca_mempool_count() == 0) {
		LCA_LOG(ERR, "port %u: the runtime is not up (lca_runtime_init())\n",
			conf->port_id);
		return -EINVAL;
	}
	if (lca_lcore_running()) {
		LCA_LOG(ERR, "port %u: start it before lca_runtime_run()\n", conf->port_id);
		return -EBUSY;
	}
	if (!rte_eth_dev_is_valid_port(conf->port_id)) {
		LCA_LOG(ERR, "port %u does not exist\n", conf->port_id);
		log_ports();
		return -ENODEV;
	}
	if (started[conf->port_id] != NULL) {
		LCA_LOG(ERR, "port %u is started already\n", conf->port_id);
		return -EBUSY;
	}
	ret = check_conf(conf);
	if (ret < 0)
		return ret;
	lca_port_pools_kept();
	p = rte_zmalloc("lca_port", sizeof(*p), RTE_CACHE_LINE_SIZE);
	if (p == NULL)
		return -ENOMEM;
	p->port_id = conf->port_id;
	p->burst = conf->burst ? conf->burst : LCA_PORT_BURST_DEFAULT;
	p->keep_open = conf->keep_open;
	if (rte_eth_dev_get_name_by_port(p->port_id, p->name) != 0)
		snprintf(p->name, sizeof(p->name), "port%u", p->port_id);
	ret = port_setup(p, conf);
	if (ret < 0) {
		port_free(p, false);
		return ret;
	}
	started[p->port_id] = p;
	n_started++;
	port_telemetry_add(p);
	LCA_LOG(INFO, "port %u (%s, %s): %u RX and %u TX queues%s, %u mbufs on socket %d, "
		"burst %u\n", p->port_id, p->name, p->driver, p->n_rxq, p->n_txq,
		conf->tx_only ? " (TX only)" : "", p->n_mbufs,
		p->socket, p->burst);
	*port = p;
	return 0;
}

int
lca_port_stop(struct lca_port *p)
{
	if (p == NULL)
		return -EINVAL;
	if (lca_lcore_running()) {
		LCA_LOG(ERR, "port %u: stop it while the loops are not running\n", p->port_id);
		return -EBUSY;
	}
	LCA_LOG(DEBUG, "port %u: stopping\n", p->port_id);
	port_telemetry_remove(p);
	started[p->port_id] = NULL;
	n_started--;
	port_free(p, !p->keep_open);
	if (n_started == 0 && pdump_up) {
		rte_pdump_uninit();
		pdump_up = false;
	}
	lca_port_pools_kept();
	return 0;
}

lca_actor_id_t
lca_port_tx_actor(const struct lca_port *p, unsigned int lcore)
{
	if (p == NULL || lcore >= RTE_MAX_LCORE)
		return LCA_ACTOR_NONE;
	return p->tx_of_lcore[lcore];
}
