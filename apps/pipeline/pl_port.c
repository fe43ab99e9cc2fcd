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
 * pl_port_ev.c (eventdev) and pl_port_lca.c (lcactor); what they share is
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
#include "lca_report.h"
#include "lca_result.h"
#include "lca_series.h"
#include "lca_verdict.h"
#include "pl_port.h"
#include "pl_sink.h"
#include "pl_stages.h"

static bool
has_lcactor_engine(void)
{
	for (unsigned int i = 0; i < pp.conf->n_engines; i++)
		if (pp.conf->engines[i] == PL_ENGINE_LCACTOR)
			return true;
	return false;
}

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
	for (uint32_t p = 0; p < pl_n_parts; p++) {
		const struct store *s = r->engine == PL_ENGINE_LCACTOR ||
						r->engine == PL_ENGINE_EVENTDEV ? pp.stores[p] : NULL;

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


static struct pl_engine_runs by_engine[PL_ENGINE_COUNT];

static void
print_side_by_side(json_t *root)
{
	char what[256];
	int o = snprintf(what, sizeof(what), "ports");

	for (unsigned int i = 0; i < pp.n_ports && o < (int)sizeof(what); i++)
		o += snprintf(what + o, sizeof(what) - (size_t)o, "%s%u (%s)", i ? "," : " ",
			      pp.ports[i].id, pp.ports[i].driver);
	pl_report_side_by_side(root, pp.conf, by_engine, what, "pkt/s");
}

/* The verdict: a row per engine, lcactor's against plain run by run. */
static int
add_verdicts(json_t *root)
{
	return pl_report_verdicts(root, pp.conf, by_engine, "M pkt/s");
}

static void
teardown(void)
{
	pl_port_lca_teardown();
	for (unsigned int e = 0; e < pp.conf->n_engines; e++) {
		if (pp.conf->engines[e] == PL_ENGINE_EVENTDEV)
			pl_eventdev_teardown();
		if (pp.conf->engines[e] == PL_ENGINE_GRAPH)
			pl_graph_teardown();
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

	pl.conf = pp.conf;
	pl.src = &pl_source_port;
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
			ret = pl_port_lca_setup();
			break;
		case PL_ENGINE_EVENTDEV:
			ret = pl_port_ev_setup();
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
	for (unsigned int e = 0; e < pp.conf->n_engines; e++)
		if (pp.conf->engines[e] != PL_ENGINE_LCACTOR)
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
	       (e == PL_ENGINE_LCACTOR || pp.quota_total == UINT64_MAX || r->rx == pp.quota_total);
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
	ret = e == PL_ENGINE_LCACTOR ? pl_port_lca_run(r) : pl_port_run_rtc(r);
	lca_series_end(&series);
	r->pools_full = r->pools_kept == 0;
	for (unsigned int k = 0; k < pp.n_ports; k++)
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
	pl_port_print_run(r, run, &series);
	lca_freq_total_add(&er->freq, &series);
	lca_freq_total_add(all, &series);
	json_array_append_new(er->runs, pl_port_run_json(r, run, lca_series_freq_json(&series)));
	lca_series_release(&series);
	*ok &= r->exact && r->pools_full;
	if (keys != NULL)
		pl_port_keys_write(keys, r, run);
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
	pl_port_print_header();
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
	json_t *root = lca_result_new(pl_port_conf_json());

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

	pp.conf = c;
	pp.vdev_added = vdev_added;
	lca_report_machine(stdout);
	ret = ports_up(c, &keys);
	if (ret < 0)
		return ret;
	capture = pl_port_capture_up();
	placement = pl_port_print_placement();
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
	pl_port_capture_down(capture);
	return ret;
}
