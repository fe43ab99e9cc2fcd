/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef PL_PORT_H
#define PL_PORT_H

/**
 * @file
 * --source port inside: its ports and RX queues, the state of its runs,
 * and what its files share. The files, by concern:
 *
 * - pl_stages.h     parse, partition, count by key (static inline: per packet);
 * - pl_port_src.c   ports, queues, pools, RX queues and quotas, capture;
 * - pl_sink.h/.c    TX buffers and the sink (--sink tx or drop);
 * - pl_port_rtc.c   plain and io (run to completion), graph's launch;
 * - pl_port_ev.c    eventdev's workers;
 * - pl_port_ring.c  ring: plain's stages with lcactor's hand-offs;
 * - pl_port_lca.c   lcactor on the packet lane;
 * - pl_port_report.c the header, placement, each run printed and as JSON;
 * - pl_port.c       a run of an engine, its figures and exactness.
 *
 * Every engine takes its RX through pl_port_rx() and sends through the
 * sink, so the figures, the accounting and the TX path are the same code
 * for all of them.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_ethdev.h>
#include <rte_graph.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "lca_eal.h"
#include "pipeline.h"

#define APP "lca-pipeline"

/** An RX queue of a run: its port, its lcore, its quota. */
struct rxq_state {
	uint16_t port;       /* ethdev id */
	uint16_t queue;
	unsigned int pidx;   /* index in pp.ports[] */
	unsigned int lcore;
	uint64_t quota;
	uint64_t taken;      /* its lcore's */
	bool done;           /* atomic: RX off on it */
} __rte_cache_aligned;

/** A port of the runs: RX (in --port) or TX only (--tx-port). */
struct port_info {
	uint16_t id;
	bool rx;             /* in --port */
	bool is_null;        /* net_null: frames written into the pool */
	bool reopen;         /* net_pcap: removed after a run, probed again before the next */
	bool removed;        /* reopen, between two runs */
	char devargs[256];   /* its --vdev arguments, to probe it again */
	unsigned int n_rxq, n_txq;
	uint16_t rx_desc, tx_desc;
	char name[RTE_ETH_NAME_MAX_LEN];
	char driver[32];
	struct lca_port *lp;          /* lcactor, while it runs */
	struct rte_mempool *pool;     /* plain, eventdev */
	/* TX queue q shared by lcores (plain, eventdev): a line a lock, as
	 * lcores that share one queue are apart from those of another. */
	struct {
		rte_spinlock_t lock;
	} __rte_cache_aligned txlock[RTE_MAX_LCORE];
	bool tx_shared;
};

struct store;
struct txbuf;

/** The state of --source port, set up once for every run. */
struct pl_port_state {
	const struct pl_conf *conf;
	unsigned int n_ports;
	unsigned int n_rxqs;
	uint64_t quota_total;   /* packets a run takes; UINT64_MAX: --duration-ms */
	uint64_t t_rx_end;      /* TSC after which RX stops (--duration-ms), or 0 */
	struct store *stores[PL_MAX_PARTITIONS]; /* lcactor, eventdev: by partition */
	struct store *lstores[RTE_MAX_LCORE];    /* plain, graph: by lcore */
	int worker_ret[RTE_MAX_LCORE];
	struct txbuf *txbufs[RTE_MAX_LCORE][PL_MAX_PORTS + 1];
	struct port_info ports[PL_MAX_PORTS + 1];
	struct rxq_state rxqs[PL_MAX_PORTS * RTE_MAX_LCORE];
};

extern struct pl_port_state pp;

/** What a run of one engine did, summed over its lcores. */
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

/** A figure of @p f's own lcore, readable by the others while it runs. */
static inline void
fig_add(uint64_t *c, uint64_t n)
{
	__atomic_store_n(c, *c + n, __ATOMIC_RELAXED);
}

/** Sum of the figure at @p off of every lcore's struct pl_fig. */
static inline uint64_t
pl_port_sum_fig(size_t off)
{
	uint64_t s = 0;

	for (unsigned int i = 0; i < pl.n_lcores; i++)
		s += __atomic_load_n((uint64_t *)((char *)&pl.lc[pl.lcores[i]].f + off),
				     __ATOMIC_RELAXED);
	return s;
}

/**
 * Whether a run of an engine without the runtime (eventdev, ring) is over,
 * as one lcore sees it: its RX is over (@p rx_over: every queue done,
 * nothing of it waiting to be handed over), which it says once through
 * @p said into @p lcores_done; every lcore's is; and every packet taken is
 * counted or dropped as malformed.
 */
static inline bool
pl_port_all_done(bool rx_over, bool *said, unsigned int *lcores_done)
{
	if (rx_over && !*said) {
		*said = true;
		__atomic_add_fetch(lcores_done, 1, __ATOMIC_ACQ_REL);
	}
	return *said && __atomic_load_n(lcores_done, __ATOMIC_ACQUIRE) == pl.n_lcores &&
	       pl_port_sum_fig(offsetof(struct pl_fig, processed)) +
			       pl_port_sum_fig(offsetof(struct pl_fig, malformed)) ==
		       pl_port_sum_fig(offsetof(struct pl_fig, produced));
}

static inline bool
rx_time_up(uint64_t now)
{
	return pp.t_rx_end != 0 && now >= pp.t_rx_end;
}

static inline int
port_index(uint16_t id)
{
	for (unsigned int i = 0; i < pp.n_ports; i++)
		if (pp.ports[i].id == id)
			return (int)i;
	return -1;
}

/** plain and graph count in a store of each lcore; io counts nothing. */
static inline bool
lcore_stores(enum pl_engine e)
{
	return e == PL_ENGINE_PLAIN || e == PL_ENGINE_GRAPH;
}

/** The RX queues @p lcore polls, into @p mine (PL_MAX_PORTS at most). */
unsigned int pl_port_rxqs_of(unsigned int lcore, struct rxq_state **mine);

/**
 * Take a burst of at most --burst from @p q (on its lcore), counted in
 * @p f's produced. At its quota or --duration-ms the queue is done: it
 * takes nothing more, and @p ended is set the first time.
 *
 * @return the packets taken (0: none, or done).
 */
static inline unsigned int
pl_port_rx(struct rxq_state *q, uint64_t now, struct pl_fig *f, struct rte_mbuf **pkts,
	   bool *ended)
{
	unsigned int n, want = pp.conf->burst;

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

/**
 * Parse a burst and count each valid packet by key in @p lcore's store;
 * the valid ones move to the front of @p pkts, the malformed ones into
 * @p bad (counted in @p f's malformed; the caller frees them).
 *
 * @return the valid packets.
 */
unsigned int pl_port_parse_count(unsigned int lcore, struct pl_fig *f, struct rte_mbuf **pkts,
				 unsigned int n, struct rte_mbuf **bad, unsigned int *n_bad);

/**
 * Parse a burst: the valid packets move to the front of @p pkts, the
 * malformed ones are counted in @p f's malformed and freed (the engines
 * that hand packets on before they count them: eventdev, ring).
 *
 * @return the valid packets.
 */
unsigned int pl_port_parse_drop(struct pl_fig *f, struct rte_mbuf **pkts, unsigned int n);

/** Transmit (--sink tx, buffered on @p lcore's TX queue) or free @p n packets. */
void pl_port_sink(unsigned int lcore, struct pl_fig *f, struct rte_mbuf **pkts, unsigned int n);

/** Send what @p lcore's TX buffers hold. */
void pl_port_tx_flush(unsigned int lcore);

/* The source (pl_port_src.c). */

/** The ports, their queues and the RX queues' quotas. @return 0 or a negative errno. */
int pl_port_probe(void);
/** plain, eventdev: a pool for @p p like the one lca_port makes. */
int pl_port_pool(struct port_info *p);
/** plain, eventdev: configure and start @p p with its own pool. */
int pl_port_dev_up(struct port_info *p);
/** After a run: remove every port marked reopen (its files closed, its mbufs back). */
void pl_port_release(void);
/** Before a run: probe every removed port again, at its id. @return 0 or -ENODEV. */
int pl_port_reprobe(void);
/** net_null's frames: a UDP frame in every mbuf of the pool (rte_mempool_obj_iter()). */
void pl_null_fill(struct rte_mempool *mp, void *arg, void *obj, unsigned int idx);
/** --partition-by rxq's table, once the tasks are placed. */
void pl_port_local_parts_make(void);
/** dpdk-dumpcap's channel, when EAL has one. @return whether it is up. */
bool pl_port_capture_up(void);
void pl_port_capture_down(bool up);

/* Runs (pl_port.c, pl_port_rtc.c, pl_port_ev.c, pl_port_lca.c). */

/** Reset the stores, the RX queues and the run's clock before a run. */
void pl_port_runs_reset(void);
/** Sum the lcores' figures and the stores into @p r. */
void pl_port_collect(struct port_run *r);
/** plain, io, graph, eventdev, ring: the ports up with their own pools, one run. */
int pl_port_run_rtc(struct port_run *r);

int pl_port_ev_setup(void);
int pl_port_ev_worker(void *arg);
/** After an interrupted run: free what waits in the event device. */
void pl_port_ev_drain(void);
void pl_port_ev_reset(void);

/** ring (pl_port_ring.c): its rings between every two lcores. */
int pl_port_ring_setup(void);
int pl_port_ring_worker(void *arg);
/** After an interrupted run: free what waits in the rings. */
void pl_port_ring_drain(void);
void pl_port_ring_reset(void);
void pl_port_ring_teardown(void);

int pl_port_lca_setup(void);
int pl_port_lca_run(struct port_run *r);
void pl_port_lca_teardown(void);
/** Partition @p p's worker actor, or LCA_ACTOR_NONE before they are spawned. */
uint32_t pl_port_lca_worker(uint32_t p);

/* The report (pl_port_report.c). */

void pl_port_print_header(void);
json_t *pl_port_print_placement(void);
/** Run @p r printed (the driver prints its clock after it). */
void pl_port_print_run(const struct port_run *r, unsigned int run);
/** Run @p r as JSON (the driver adds its "frequency"). */
json_t *pl_port_run_json(const struct port_run *r, unsigned int run);
json_t *pl_port_conf_json(void);
/** The counts by key of run @p r, summed over the stores, into --keys. */
int pl_port_keys_write(FILE *out, const struct port_run *r, unsigned int run);

/* The graph engine (pl_graph.c). */

/** An lcore's graph and its RX queues; its own lcore writes it in a run.
 *  graph and graph-actors each keep one a lcore. */
struct pl_graph_lcore {
	struct rte_graph *graph;
	struct rxq_state *mine[PL_MAX_PORTS];
	unsigned int n_mine;
	unsigned int left; /* its RX queues not done */
	uint64_t now;      /* TSC of the walk */
} __rte_cache_aligned;

/** A graph engine's RX source node: each of @p g's RX queues, a burst
 *  each, into the node's edge 0. @return the packets taken. */
uint16_t pl_graph_rx(struct pl_graph_lcore *g, struct rte_graph *graph, struct rte_node *node);

/** One graph of @p patterns a run lcore, named PREFIX<lcore>, into @p gl
 *  and @p ids; @p made says which exist. @return 0 or a negative errno (said). */
int pl_graph_make(const char *prefix, const char **patterns, unsigned int n_patterns,
		  struct pl_graph_lcore *gl, rte_graph_t *ids, bool *made, const char *engine);

/** Destroy the graphs pl_graph_make() made. */
void pl_graph_destroy(rte_graph_t *ids, bool *made);

/** Register the nodes and make one graph an lcore. @return 0 or a negative errno. */
int pl_graph_setup(void);

/** An lcore's loop: walk its graph until its RX queues are done. @return 0, -EINTR, -ETIMEDOUT. */
int pl_graph_loop(void);

void pl_graph_teardown(void);

/* --engine graph-actors (pl_graph_actors.c): the graphs, each lcore's loop
 * (graph and lcactor's poll), their teardown. */
int pl_graph_actors_setup(void);
int pl_graph_actors_loop(void);
void pl_graph_actors_teardown(void);
/* Whether lcactor's workers hand their packets to their lcore's graph
 * (graph-actors) rather than to the port (lcactor, embedded, service). */
void pl_port_lca_to_graph(bool on);

#endif /* PL_PORT_H */
