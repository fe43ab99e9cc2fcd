/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --source port on lcactor: lca_port's RX hook classifies by flow (parse,
 * key, partition) and sends each partition's packets on the packet lane
 * (mbuf pointers, no envelope) to the partition's worker, a packet actor
 * (on_packets), which counts them and transmits them with
 * lca_port_tx_burst() into its own lcore's TX queue (rte_eth_tx_buffer,
 * flushed by the lcore's end hook). An lcore without a TX queue of the
 * port (a PMD with fewer) sends them in envelopes to another lcore's TX
 * actor.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_prefetch.h>
#include <rte_service.h>

#include "lca_actor.h"
#include "lca_graph.h"
#include "lca_lcore.h"
#include "lca_port.h"
#include "pl_port.h"
#include "pl_stages.h"

struct worker {
	struct store *st;
	struct lca_port *port[PL_MAX_PORTS + 1];              /* by port index */
	lca_actor_id_t tx[PL_MAX_PORTS + 1][RTE_MAX_LCORE]; /* by port index, lcore */
};

static lca_actor_id_t worker_id[PL_MAX_PARTITIONS];
static struct worker *workers[PL_MAX_PARTITIONS];
static bool runtime_up;
static bool to_graph; /* graph-actors: the workers hand packets to the graph */

void
pl_port_lca_to_graph(bool on)
{
	to_graph = on;
}

/* graph-actors: on through the graph of the lcore that runs the worker;
 * what its queue cannot hold is freed and counted as refused by the sink. */
static void
worker_to_graph(struct pl_fig *f, struct rte_mbuf **pkts, uint16_t n)
{
	int sent = lca_graph_send(rte_lcore_id(), pkts, n);

	if (sent < 0)
		sent = 0;
	if (sent < n) {
		rte_pktmbuf_free_bulk(pkts + sent, n - (unsigned int)sent);
		fig_add(&f->sink_refused, n - (unsigned int)sent);
	}
	pl_count(f, n, rte_rdtsc());
}
static bool workers_spawned;

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
			to[i] = worker_id[pp.conf->partition_rxq ? local_part_of(key, me) :
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
			lca_port_rx_enable(pp.ports[a->pidx].lp, q->queue, false);
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
	const struct pl_conf *c = pp.conf;
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
	if (c->sink == PL_SINK_DROP) {
		rte_pktmbuf_free_bulk(pkts, n);
		pl_count(f, n, rte_rdtsc());
		return;
	}
	if (to_graph) {
		worker_to_graph(f, pkts, n);
		return;
	}
	while (i < n) {
		uint16_t port = pkts[i]->port;
		int k = c->tx_port >= 0 ? port_index((uint16_t)c->tx_port) : port_index(port);
		unsigned int run = 1, took;
		int ret;

		if (k < 0)
			k = 0;
		while (i + run < n && (c->tx_port >= 0 || pkts[i + run]->port == port))
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
		for (unsigned int k = 0; k < pp.n_rxqs; k++)
			if (!__atomic_load_n(&pp.rxqs[k].done, __ATOMIC_ACQUIRE)) {
				struct rxq_state *q = &pp.rxqs[k];

				lca_port_rx_enable(pp.ports[q->pidx].lp, q->queue, false);
				__atomic_store_n(&q->done, true, __ATOMIC_RELEASE);
			}
	}
	for (unsigned int k = 0; k < pp.n_rxqs; k++)
		if (!__atomic_load_n(&pp.rxqs[k].done, __ATOMIC_ACQUIRE))
			return 0;
	/* RX is off; the last classify may still be sending what it took. */
	if (pl_port_sum_fig(offsetof(struct pl_fig, processed)) +
		    pl_port_sum_fig(offsetof(struct pl_fig, malformed)) !=
	    pl_port_sum_fig(offsetof(struct pl_fig, produced)))
		return 0;
	for (unsigned int i = 0; i < pp.n_ports; i++) {
		struct lca_port_stats s;

		lca_port_stats_get(pp.ports[i].lp, &s);
		if (s.held != 0)
			return 0;
		tx += s.tx + s.tx_dropped;
	}
	if (pp.conf->sink == PL_SINK_TX &&
	    tx != pl_port_sum_fig(offsetof(struct pl_fig, forwarded)))
		return 0;
	lca_runtime_stop();
	return 0;
}

static int
lcactor_setup(void)
{
	struct lca_runtime_conf rc = {
		.msgs_per_node = 65535 + pl_n_parts * (pp.conf->mailbox + pp.conf->throughput),
		.idle = (enum lca_idle_policy)pp.conf->idle,
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
	for (uint32_t p = 0; p < pl_n_parts && ret == 0; p++) {
		struct lca_actor_spec spec = {
			.on_packets = worker_packets,
			.packet_queue_size = pp.conf->mailbox,
			.state_size = sizeof(struct worker),
			.state_init = worker_init,
			.state_arg = w,
			.lcore = pl.task_lcore[p],
			.mailbox_size = pp.conf->mailbox,
			.throughput = pp.conf->throughput,
			.name = names[p],
		};

		snprintf(names[p], sizeof(names[p]), "worker p%u", p);
		w->st = pp.stores[p];
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
	for (unsigned int i = 0; i < pp.n_ports; i++) {
		if (pp.ports[i].lp != NULL)
			lca_port_stop(pp.ports[i].lp);
		pp.ports[i].lp = NULL;
	}
}

static int
lcactor_ports_start(void)
{
	for (unsigned int i = 0; i < pp.n_ports; i++) {
		struct port_info *p = &pp.ports[i];
		struct lca_port_conf pc = {
			.port_id = p->id,
			.n_rxq = (uint16_t)p->n_rxq,
			.n_txq = (uint16_t)p->n_txq,
			.rx_desc = p->rx_desc,
			.tx_desc = p->tx_desc,
			.n_mbufs = pp.conf->mbufs,
			.burst = pp.conf->burst,
			.rx_lcores = pl.lcores,
			.n_rx_lcores = pl.n_lcores,
			.classify = classify,
			.classify_arg = &cls_args[i],
			.watermark = pp.conf->watermark,
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
			rte_mempool_obj_iter(lca_port_mempool(p->lp), pl_null_fill,
					     (void *)(uintptr_t)&pp.conf->null_zero);
	}
	for (unsigned int k = 0; k < pp.n_rxqs; k++)
		cls_args[pp.rxqs[k].pidx].q[pp.rxqs[k].lcore] = &pp.rxqs[k];
	/* Each worker sends to the TX actor of its own lcore, per port. */
	for (uint32_t p = 0; p < pl_n_parts; p++)
		for (unsigned int i = 0; i < pp.n_ports; i++) {
			workers[p]->port[i] = pp.ports[i].lp;
			for (unsigned int l = 0; l < pl.n_lcores; l++)
				workers[p]->tx[i][pl.lcores[l]] =
					lca_port_tx_actor(pp.ports[i].lp, pl.lcores[l]);
		}
	return 0;
}

/* What the workers took so far: packets (on_packets), envelopes. */
static void
workers_took(uint64_t *packets, uint64_t *envelopes)
{
	*packets = *envelopes = 0;
	for (uint32_t p = 0; p < pl_n_parts; p++) {
		struct lca_actor_stats st;

		if (lca_actor_stats_get(worker_id[p], &st) == 0) {
			*packets += st.packets;
			*envelopes += st.received;
		}
	}
}

/* The application's own loop, on every lcore: lcactor's work through its
 * poll call (embedded). */
static int
own_loop(void *arg)
{
	(void)arg;
	while (lca_runtime_poll() >= 0)
		;
	return 0;
}

static int
run_embedded(unsigned int timeout_ms)
{
	int ret = lca_runtime_start(timeout_ms);

	if (ret < 0)
		return ret;
	ret = rte_eal_mp_remote_launch(own_loop, NULL, CALL_MAIN);
	rte_eal_mp_wait_lcore();
	return ret < 0 ? (lca_runtime_end(), ret) : lca_runtime_end();
}

/* Turn the worker lcores into service lcores, each running its own
 * lcactor_lcore_N service (@p on), or back into EAL lcores (!@p on). */
static int
service_lcores(bool on)
{
	int ret = 0;

	for (unsigned int i = 0; i < pl.n_lcores && ret == 0; i++) {
		unsigned int lc = pl.lcores[i];
		uint32_t id;

		if (lc == rte_get_main_lcore() || lca_runtime_service_id(lc, &id) < 0)
			continue;
		if (on) {
			ret = rte_service_lcore_add(lc);
			ret = ret == 0 ? rte_service_map_lcore_set(id, lc, 1) : ret;
			ret = ret == 0 ? rte_service_runstate_set(id, 1) : ret;
			ret = ret == 0 ? rte_service_lcore_start(lc) : ret;
		} else {
			rte_service_runstate_set(id, 0);
			rte_service_map_lcore_set(id, lc, 0);
			rte_service_lcore_stop(lc);
			rte_eal_wait_lcore(lc); /* its runner has returned */
			rte_service_lcore_del(lc);
		}
	}
	if (ret < 0)
		fprintf(stderr, APP ": --engine service: %s\n", strerror(-ret));
	return ret;
}

/* service: the workers' lcores run their services; the main lcore, which
 * EAL keeps, runs its own service from its loop until the run stops. */
static int
run_service(unsigned int timeout_ms)
{
	uint32_t main_id;
	int ret = service_lcores(true);

	if (ret == 0)
		ret = lca_runtime_service_id(rte_get_main_lcore(), &main_id);
	if (ret == 0) {
		rte_service_runstate_set(main_id, 1);
		rte_service_set_runstate_mapped_check(main_id, 0);
		ret = lca_runtime_start(timeout_ms);
	}
	if (ret == 0) {
		while (!lca_lcore_stopping())
			rte_service_run_iter_on_app_lcore(main_id, 0);
		rte_service_run_iter_on_app_lcore(main_id, 0); /* its hand-on */
		ret = lca_runtime_end();
		rte_service_runstate_set(main_id, 0);
	}
	service_lcores(false);
	return ret;
}

/* lcactor's engine, its loops driven as @p e says. */
static int
run_engine(enum pl_engine e, unsigned int timeout_ms)
{
	switch (e) {
	case PL_ENGINE_EMBEDDED:
		return run_embedded(timeout_ms);
	case PL_ENGINE_SERVICE:
		return run_service(timeout_ms);
	default:
		return lca_runtime_run(timeout_ms);
	}
}

int
pl_port_lca_run(struct port_run *r)
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
		pl_port_runs_reset();
		ret = run_engine(r->engine, (unsigned int)(pp.conf->timeout_s * 1000));
	}
	for (unsigned int i = 0; i < pl.n_lcores; i++) {
		struct lca_lcore_hook hk = { .poll = lc_watch };

		lca_lcore_hook_remove(pl.lcores[i], &hk);
	}
	r->status = ret;
	pl_port_collect(r);
	workers_took(&r->lane_packets, &r->worker_envelopes);
	r->lane_packets -= pk0;
	r->worker_envelopes -= env0;
	for (unsigned int i = 0; i < pp.n_ports; i++) {
		struct lca_port_stats s;

		if (pp.ports[i].lp == NULL)
			continue;
		lca_port_stats_get(pp.ports[i].lp, &s);
		r->port_rx += s.rx;
		r->tx += s.tx;
		r->tx_dropped += s.tx_dropped;
		for (unsigned int q = 0; q < pp.ports[i].n_txq; q++) {
			struct lca_port_stats qs;
			unsigned int lc = pl.lcores[q % pl.n_lcores];

			lca_port_queue_stats_get(pp.ports[i].lp, q, &qs);
			r->lc[lc].tx += qs.tx;
			r->lc[lc].tx_dropped += qs.tx_dropped;
		}
		r->pool_avail[i] = rte_mempool_avail_count(lca_port_mempool(pp.ports[i].lp));
		r->pool_size[i] = lca_port_mempool(pp.ports[i].lp)->size;
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
	pl_port_release();
	r->pools_kept = lca_port_pools_kept();
	/* A port probed again held mbufs of its pool until it was removed:
	 * lca_port kept the pool then, and frees it now that they are all back. */
	for (unsigned int i = 0; i < pp.n_ports; i++)
		if (pp.ports[i].reopen && r->pools_kept == 0)
			r->pool_avail[i] = r->pool_size[i];
	return ret;
}

int
pl_port_lca_setup(void)
{
	int ret;

	if (workers_spawned) /* lcactor, embedded and service share them */
		return 0;
	ret = lcactor_setup();
	return ret == 0 ? lcactor_spawn_workers() : ret;
}

void
pl_port_lca_teardown(void)
{
	if (runtime_up) {
		lcactor_ports_stop();
		lca_runtime_cleanup();
		runtime_up = false;
	}
}

uint32_t
pl_port_lca_worker(uint32_t p)
{
	return workers_spawned ? worker_id[p] : LCA_ACTOR_NONE;
}
