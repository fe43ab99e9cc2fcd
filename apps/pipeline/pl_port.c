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
 * The engines' loops are in pl_port_rtc.c (plain, io, graph's launch),
 * pl_port_ev.c (eventdev), pl_port_ring.c (ring) and pl_port_lca.c (lcactor); what they share is
 * listed in pl_port.h. This file sets them up, runs one engine once, and
 * tells whether the run was exact.
 *
 * A run takes --messages packets (split over the RX queues) or runs until
 * --duration-ms, then stops RX and drains: at the end nothing is in
 * flight, and rx = counted + malformed exactly.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mempool.h>

#include "lca_mempool.h"
#include "app_report.h"
#include "app_result.h"
#include "app_series.h"
#include "app_verdict.h"
#include "pl_port.h"
#include "pl_sink.h"
#include "pl_stages.h"

static struct port_run run_res;

void
pl_port_runs_reset(void)
{
	for (uint32_t p = 0; p < pl_n_parts; p++)
		if (pp.stores[p] != NULL)
			pl_store_reset(pp.stores[p]);
	for (unsigned int i = 0; i < pl.n_lcores; i++)
		if (pp.lstores[pl.lcores[i]] != NULL)
			pl_store_reset(pp.lstores[pl.lcores[i]]);
	for (unsigned int k = 0; k < pp.n_rxqs; k++) {
		pp.rxqs[k].taken = 0;
		pp.rxqs[k].done = false;
	}
	pl_port_ev_reset();
	pl_port_ring_reset();
	pl_run_reset();
	pp.t_rx_end = pp.conf->duration_ms ? pl.t0 + pp.conf->duration_ms * rte_get_tsc_hz() / 1000 : 0;
}

void
pl_port_collect(struct port_run *r)
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
		if (!pl_engine_is_lcactor(r->engine)) {
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
	for (uint32_t p = 0; p < pl_n_parts; p++) {
		const struct store *s = pl_engine_is_lcactor(r->engine) ||
						r->engine == PL_ENGINE_GRAPH_ACTORS ||
						r->engine == PL_ENGINE_EVENTDEV ||
						r->engine == PL_ENGINE_RING ? pp.stores[p] : NULL;

		if (s != NULL) {
			r->overflow += s->overflow;
			r->keys += s->n_keys;
		}
	}
	if (lcore_stores(r->engine))
		for (unsigned int i = 0; i < pl.n_lcores; i++) {
			r->overflow += pp.lstores[pl.lcores[i]]->overflow;
			r->keys += pp.lstores[pl.lcores[i]]->n_keys;
		}
}


static struct port_run run_res;
static FILE *keys;      /* --keys */
static bool capture;    /* dpdk-dumpcap's channel is up */

static void
teardown(void)
{
	if (keys != NULL)
		fclose(keys);
	keys = NULL;
	pl_port_lca_teardown();
	for (unsigned int e = 0; e < pp.conf->n_engines; e++) {
		if (pp.conf->engines[e] == PL_ENGINE_EVENTDEV)
			pl_eventdev_teardown();
		if (pp.conf->engines[e] == PL_ENGINE_GRAPH)
			pl_graph_teardown();
		if (pp.conf->engines[e] == PL_ENGINE_GRAPH_ACTORS)
			pl_graph_actors_teardown();
		if (pp.conf->engines[e] == PL_ENGINE_RING)
			pl_port_ring_teardown();
	}
	pl_sink_free();
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		lca_mempool_free(pp.lstores[i]);
		pp.lstores[i] = NULL;
	}
	for (uint32_t p = 0; p < PL_MAX_PARTITIONS; p++) {
		lca_mempool_free(pp.stores[p]);
		pp.stores[p] = NULL;
	}
	for (unsigned int i = 0; i < pp.n_ports; i++) {
		if (pp.ports[i].pool != NULL) {
			rte_mempool_free(pp.ports[i].pool);
			pp.ports[i].pool = NULL;
		}
	}
}

static int
setup(void)
{
	static struct pl_lcore figs[RTE_MAX_LCORE];
	unsigned int lc;
	int ret;

	pl.conf = pp.conf;
	pl.feed = NULL;
	pl.lc = figs;
	pl.n_lcores = 0;
	RTE_LCORE_FOREACH(lc)
		pl.lcores[pl.n_lcores++] = lc;
	pl_n_parts = pp.conf->partitions;
	for (uint32_t p = 0; p < pl_n_parts; p++) {
		pl.task_lcore[p] = pl.src_lcore[p] = pl.lcores[p % pl.n_lcores];
		pp.stores[p] = pl_store_new(pl.task_lcore[p]);
		if (pp.stores[p] == NULL)
			return -ENOMEM;
	}
	pl_port_local_parts_make();
	for (unsigned int i = 0; i < pl.n_lcores; i++) {
		pp.lstores[pl.lcores[i]] = pl_store_new(pl.lcores[i]);
		if (pp.lstores[pl.lcores[i]] == NULL)
			return -ENOMEM;
	}
	ret = pl_port_probe();
	if (ret < 0)
		return ret;
	for (unsigned int e = 0; e < pp.conf->n_engines; e++) {
		switch (pp.conf->engines[e]) {
		case PL_ENGINE_LCACTOR:
		case PL_ENGINE_EMBEDDED:
		case PL_ENGINE_SERVICE:
			ret = pl_port_lca_setup();
			break;
		case PL_ENGINE_EVENTDEV:
			ret = pl_port_ev_setup();
			break;
		case PL_ENGINE_GRAPH:
			ret = pl_graph_setup();
			break;
		case PL_ENGINE_GRAPH_ACTORS:
			ret = pl_port_lca_setup();
			if (ret == 0)
				ret = pl_graph_actors_setup();
			break;
		case PL_ENGINE_RING:
			ret = pl_port_ring_setup();
			break;
		default:
			break;
		}
		if (ret < 0)
			return ret;
	}
	for (unsigned int e = 0; e < pp.conf->n_engines; e++)
		if (!pl_engine_is_lcactor(pp.conf->engines[e]))
			for (unsigned int i = 0; i < pp.n_ports; i++)
				if (pp.ports[i].pool == NULL && (ret = pl_port_pool(&pp.ports[i])) < 0)
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

/* Whether run @p r of engine @p e counted every packet exactly. */
static bool
run_exact(const struct pl_conf *c, enum pl_engine e, const struct port_run *r)
{
	return r->status == 0 && r->in_flight == 0 && r->port_rx == r->rx &&
	       (e == PL_ENGINE_IO ? r->keys == 0 : (r->keys > 0) == (r->processed > 0)) &&
	       r->overflow == 0 && (pp.quota_total == UINT64_MAX || r->rx >= pp.quota_total) &&
	       (c->sink == PL_SINK_DROP || r->forwarded == r->tx + r->tx_dropped) &&
	       r->forwarded + r->sink_refused == (c->sink == PL_SINK_TX ? r->processed : 0) &&
	       (pl_engine_is_lcactor(e) || pp.quota_total == UINT64_MAX || r->rx == pp.quota_total);
}

/* Run engine @p e once; its figures, exactness and keys. */
static int
port_run(enum pl_engine e, unsigned int run, unsigned int pass, struct pl_outcome *o)
{
	const struct pl_conf *c = pp.conf;
	struct port_run *r = &run_res;
	int ret;

	(void)pass;
	memset(r, 0, sizeof(*r));
	r->engine = e;
	ret = pl_port_reprobe();
	if (ret == 0)
		ret = pl_engine_is_lcactor(e) ? pl_port_lca_run(r) : pl_port_run_rtc(r);
	r->pools_full = r->pools_kept == 0;
	for (unsigned int k = 0; k < pp.n_ports; k++)
		r->pools_full &= r->pool_avail[k] == r->pool_size[k];
	r->exact = run_exact(c, e, r);
	if (usage_error(ret)) {
		pl_driver_abort();
		teardown();
		fprintf(stderr, APP ": %s run %u: cannot start the ports (%s): see above\n",
			pl_engine_name(e), run + 1, strerror(-ret));
		exit(2);
	}
	if (keys != NULL)
		pl_port_keys_write(keys, r, run);
	o->status = ret;
	o->exact = r->exact && r->pools_full;
	o->measured = r->measured;
	o->measured_s = r->measured_s;
	o->warm_missed = r->measured_s <= 0 && c->duration_ms == 0 && r->processed > 0;
	return ret;
}

/* The ports up, or exit 2 when the command line asked for what cannot be. */
static int
port_setup(const struct pl_conf *c)
{
	int ret;

	pp.conf = c;
	ret = setup();
	if (ret < 0) {
		teardown();
		if (usage_error(ret)) {
			fprintf(stderr, APP ": --source port: cannot set up the ports (%s): see "
					"above\n", strerror(-ret));
			exit(2);
		}
	}
	return ret;
}

/* After the header: --keys, and capture for the whole run. */
static int
port_start(const struct pl_conf *c)
{
	if (c->keys_path != NULL && (keys = fopen(c->keys_path, "w")) == NULL) {
		fprintf(stderr, APP ": --keys %s: cannot be written\n", c->keys_path);
		teardown();
		exit(2);
	}
	capture = pl_port_capture_up();
	return 0;
}

static void
port_teardown(void)
{
	teardown();
	pl_port_capture_down(capture);
	capture = false;
}

static void
port_header(const struct pl_conf *c)
{
	(void)c;
	pl_port_print_header();
}

static json_t *
port_placement(const struct pl_conf *c)
{
	(void)c;
	return pl_port_print_placement();
}

static void
port_print_run(unsigned int run, unsigned int pass)
{
	(void)pass;
	pl_port_print_run(&run_res, run);
}

static json_t *
port_run_json(unsigned int run, unsigned int pass)
{
	(void)pass;
	return pl_port_run_json(&run_res, run);
}

static json_t *
port_conf_json(const struct pl_conf *c)
{
	(void)c;
	return pl_port_conf_json();
}

/* The ports and their drivers, for the side-by-side table. */
static void
port_what(const struct pl_conf *c, char *what, size_t len)
{
	int o = snprintf(what, len, "ports");

	(void)c;
	for (unsigned int i = 0; i < pp.n_ports && o < (int)len; i++)
		o += snprintf(what + o, len - (size_t)o, "%s%u (%s)", i ? "," : " ",
			      pp.ports[i].id, pp.ports[i].driver);
}

const struct pl_source pl_source_port = {
	.name = "port",
	.unit = "pkt/s",
	.unit_m = "M pkt/s",
	.not_exact = "the packet accounting is not exact, or mbufs are out",
	.passes = false,
	.setup = port_setup,
	.print_header = port_header,
	.start = port_start,
	.placement = port_placement,
	.run = port_run,
	.print_run = port_print_run,
	.run_json = port_run_json,
	.conf_json = port_conf_json,
	.what = port_what,
	.teardown = port_teardown,
};
