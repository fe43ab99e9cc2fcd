/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --source port on the engines that run to completion, each lcore over its
 * own RX queues with no hand-off between lcores (that is what plain
 * means), and the run of every engine but lcactor: the ports up with the
 * app's own pools, the workers launched on every lcore, the figures.
 *
 * - plain: rx_burst -> parse -> count in the lcore's store -> tx_burst;
 * - io:    rx_burst -> tx_burst, no stage: the port's own ceiling, which
 *          every other engine's rate is given as a share of;
 * - graph: librte_graph (pl_graph.c) over the same stages;
 * - eventdev's workers are in pl_port_ev.c.
 */
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "lca_freq.h"
#include "lca_port.h"
#include "pl_port.h"
#include "pl_sink.h"
#include "pl_stages.h"

unsigned int
pl_port_parse_count(unsigned int lcore, struct pl_fig *f, struct rte_mbuf **pkts, unsigned int n,
		    struct rte_mbuf **bad, unsigned int *n_bad)
{
	struct store *st = pp.lstores[lcore];
	unsigned int ok = parse_burst(pkts, n, bad, n_bad);

	if (*n_bad)
		fig_add(&f->malformed, *n_bad);
	for (unsigned int k = 0; k < ok; k++)
		store_count(st, pkts[k]->hash.usr);
	st->processed += ok;
	return ok;
}

unsigned int
pl_port_parse_drop(struct pl_fig *f, struct rte_mbuf **pkts, unsigned int n)
{
	struct rte_mbuf *bad[PL_MAX_BURST];
	unsigned int nb, ok = parse_burst(pkts, n, bad, &nb);

	if (nb) {
		rte_pktmbuf_free_bulk(bad, nb);
		fig_add(&f->malformed, nb);
	}
	return ok;
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

		if ((ret = pl_loop_tick(f, me, now)) != 0)
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
	pp.worker_ret[me] = ret;
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
	pp.worker_ret[me] = pl_graph_loop();
	return pp.worker_ret[me];
}

static int
graph_actors_worker(void *arg)
{
	unsigned int me = rte_lcore_id();

	(void)arg;
	pp.worker_ret[me] = pl_graph_actors_loop();
	return pp.worker_ret[me];
}

/* graph-actors: lcactor's workers in a guest run, the graphs' loops polling. */
static int
launch_graph_actors(void)
{
	int ret = lca_runtime_start((unsigned int)(pp.conf->timeout_s * 1000));

	if (ret < 0)
		return ret;
	pl_port_lca_to_graph(true);
	ret = pl_launch(graph_actors_worker, pp.worker_ret);
	lca_runtime_end();
	pl_port_lca_to_graph(false);
	return ret;
}

int
pl_port_run_rtc(struct port_run *r)
{
	int ret = 0;

	for (unsigned int i = 0; i < pp.n_ports && ret == 0; i++) {
		ret = pl_port_dev_up(&pp.ports[i]);
		if (ret == 0 && pp.ports[i].is_null)
			rte_mempool_obj_iter(pp.ports[i].pool, pl_null_fill,
					     (void *)(uintptr_t)&pp.conf->null_zero);
		if (ret == 0)
			rte_eth_stats_reset(pp.ports[i].id);
	}
	if (ret == 0)
		ret = pl_sink_make();
	if (ret < 0) {
		for (unsigned int i = 0; i < pp.n_ports; i++)
			lca_port_dev_stop(pp.ports[i].id);
		return ret;
	}
	pl_port_runs_reset();
	ret = r->engine == PL_ENGINE_GRAPH_ACTORS ? launch_graph_actors() :
	      pl_launch(r->engine == PL_ENGINE_PLAIN ? plain_worker :
			r->engine == PL_ENGINE_IO    ? io_worker :
			r->engine == PL_ENGINE_GRAPH ? graph_worker :
			r->engine == PL_ENGINE_RING  ? pl_port_ring_worker : pl_port_ev_worker,
			pp.worker_ret);
	r->status = ret;
	if (r->engine == PL_ENGINE_EVENTDEV && ret != 0)
		pl_port_ev_drain();
	if (r->engine == PL_ENGINE_RING && ret != 0)
		pl_port_ring_drain();
	pl_port_collect(r);
	for (unsigned int i = 0; i < pp.n_ports; i++) {
		struct rte_eth_stats es;

		if (pp.ports[i].rx && rte_eth_stats_get(pp.ports[i].id, &es) == 0)
			r->port_rx += es.ipackets;
		lca_port_dev_stop(pp.ports[i].id);
	}
	pl_port_release();
	for (unsigned int i = 0; i < pp.n_ports; i++) {
		r->pool_avail[i] = rte_mempool_avail_count(pp.ports[i].pool);
		r->pool_size[i] = pp.ports[i].pool->size;
	}
	return ret;
}

