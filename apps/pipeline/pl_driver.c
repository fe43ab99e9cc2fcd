/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The driver of every source (struct pl_source): the engines' runs, ABAB
 * (engine after engine within a run, run after run), each run under one
 * frequency series, and the report they all end with: the side-by-side
 * table (pl_report.c), the frequency over every run, lcactor's runtime
 * when it ran, the accounting's rule (a run not exact fails the command:
 * -EIO), the verdict rows and the record (app_result_finish()).
 *
 * A source calls nothing per message through here: run() runs an engine
 * once in the source's own loops, and the rest is printing.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "app_report.h"
#include "app_result.h"
#include "app_series.h"
#include "app_verdict.h"
#include "pipeline.h"

#define APP "lca-pipeline"
/* A run's measured time at least, when --messages is not given (sources
 * with passes: the mock's default 10 M take 14-42 ms at 200-600 M msg/s,
 * one or two scheduler ticks). */
#define MIN_WINDOW_S 0.2
#define MAX_PASSES 64

static const struct pl_source *src;
static struct pl_engine_runs by_engine[PL_ENGINE_COUNT];
static struct app_series series;
static bool series_open;

static const char *const what_of[][PL_ENGINE_COUNT] = {
	[PL_SOURCE_MOCK] = {
		[PL_ENGINE_LCACTOR] = "sources are loop hooks, tasks are actors",
		[PL_ENGINE_EVENTDEV] = "sources enqueue NEW events (flow = partition, atomic), "
				       "each lcore's port dequeues and counts",
		[PL_ENGINE_PLAIN] = "a run-to-completion loop per lcore, no actors",
	},
	[PL_SOURCE_PORT] = {
		[PL_ENGINE_LCACTOR] = "lca_port RX hooks classify by flow onto the packet lane; "
				      "worker actors (on_packets) count and lca_port_tx_burst()",
		[PL_ENGINE_EVENTDEV] = "each lcore's rx_burst enqueues NEW events (flow = "
				       "partition, atomic); each lcore's port dequeues, counts, "
				       "transmits",
		[PL_ENGINE_PLAIN] = "rx_burst -> parse -> count -> tx_burst on each lcore, no "
				    "actors",
		[PL_ENGINE_GRAPH] = "librte_graph on each lcore: an RX source node -> parse + "
				    "count node -> TX node (malformed -> drop node)",
		[PL_ENGINE_IO] = "rx_burst -> tx_burst on each lcore, no stage: the port's "
				 "ceiling",
		[PL_ENGINE_RING] = "rx_burst -> parse -> SPSC rte_ring to the partition's lcore "
				   "-> count -> tx_burst, no actors",
		[PL_ENGINE_EMBEDDED] = "lcactor's engine in the application's own loop on "
				       "each lcore, which calls lca_runtime_poll()",
		[PL_ENGINE_SERVICE] = "lcactor's engine as rte_services: each worker lcore a "
				      "service lcore running its lcactor_lcore_N, the main "
				      "lcore running its own from its loop",
		[PL_ENGINE_GRAPH_ACTORS] = "graph's nodes with the count in actors: RX -> "
					   "parse and classify -> lcactor_to_actors -> worker "
					   "actors -> lcactor_from_actors -> TX",
	},
};

const char *
pl_carrier_name(enum pl_carrier carrier)
{
	return carrier == PL_CARRIER_MBUF ? "mbuf" : "envelope";
}

const char *
pl_engine_what(enum pl_source_kind s, enum pl_engine e)
{
	if ((unsigned int)s >= RTE_DIM(what_of) || (unsigned int)e >= PL_ENGINE_COUNT ||
	    what_of[s][e] == NULL)
		return "";
	return what_of[s][e];
}

const char *
pl_grouped(uint64_t v, char *buf, size_t len)
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

void
pl_driver_abort(void)
{
	if (series_open) {
		app_series_end(&series);
		app_series_release(&series);
		series_open = false;
	}
}

/* The window of engine @p e's run @p run, and whether it is too short. */
static void
print_window(enum pl_engine e, unsigned int run)
{
	const struct pl_engine_runs *er = &by_engine[e];
	double tick = app_verdict_tick_s(), w = er->measured_s[er->n - 1];

	printf("  window: %s run %u measured %.1f ms over %u pass%s of --messages", pl_engine_name(e),
	       run + 1, w * 1e3, er->passes[er->n - 1], er->passes[er->n - 1] > 1 ? "es" : "");
	if (w < APP_VERDICT_MIN_TICKS * tick)
		printf(": shorter than %d scheduler ticks (%.0f ms), too short to measure well; "
		       "give more --messages", APP_VERDICT_MIN_TICKS, APP_VERDICT_MIN_TICKS * tick * 1e3);
	printf("\n");
}

/* The run's clock: its verdict and frequency printed, into the totals and
 * into each of its passes' JSON. */
static void
series_close(struct pl_engine_runs *er, struct app_freq_total *all, json_t *passes)
{
	char verdict[320];
	json_t *freq, *p;
	size_t k;

	app_series_end(&series);
	series_open = false;
	app_series_verdict_text(&series, verdict, sizeof(verdict));
	printf("  clock: %s\n", verdict);
	app_series_print_freq(stdout, &series);
	app_freq_total_add(&er->freq, &series);
	app_freq_total_add(all, &series);
	freq = app_series_freq_json(&series);
	json_array_foreach(passes, k, p)
		json_object_set(p, "frequency", freq);
	json_decref(freq);
	json_array_extend(er->runs, passes);
	app_series_release(&series);
}

/*
 * Run @p run of engine @p e under one frequency series: one pass, or, for
 * a source with passes and no --messages, passes until they measured
 * MIN_WINDOW_S together, each counted exactly. @return the run's status;
 * *ok false when a pass was not exact or measured nothing.
 */
static int
one_run(const struct pl_conf *c, enum pl_engine e, unsigned int run, struct app_freq_total *all,
	bool *ok)
{
	struct pl_engine_runs *er = &by_engine[e];
	json_t *passes = json_array();
	struct pl_outcome o;
	uint64_t measured = 0;
	double measured_s = 0;
	unsigned int pass = 0;
	char label[48];
	int ret;

	snprintf(label, sizeof(label), "%s run %u", pl_engine_name(e), run + 1);
	fflush(stdout);
	app_series_begin(&series, label, 0);
	series_open = true;
	do {
		memset(&o, 0, sizeof(o));
		ret = src->run(e, run, pass, &o);
		if (ret == -ETIMEDOUT)
			fprintf(stderr, APP ": %s not done after %" PRIu64 " s (--timeout)\n",
				label, c->timeout_s);
		src->print_run(run, pass);
		json_array_append_new(passes, src->run_json(run, pass));
		*ok &= o.exact;
		if (ret == 0 && o.warm_missed) {
			fprintf(stderr, APP ": %s ended before its warm-up did: nothing "
					"measured (shorten the warm-up)\n", label);
			*ok = false;
			break;
		}
		measured += o.measured;
		measured_s += o.measured_s;
		pass++;
	} while (src->passes && ret == 0 && o.exact && !c->messages_given &&
		 measured_s < MIN_WINDOW_S && pass < MAX_PASSES);
	series_close(er, all, passes);
	json_decref(passes);
	if (ret == 0 && measured_s > 0 && pass > 0) {
		er->v[er->n] = (double)measured / measured_s;
		er->measured_s[er->n] = measured_s;
		er->passes[er->n] = pass;
		er->n++;
		if (src->passes)
			print_window(e, run);
	}
	return ret;
}

/* After every run: the side-by-side table, the frequency, the runtime's
 * counters, the verdict and the record. */
static int
report(const struct pl_conf *c, json_t *placement, struct app_freq_total *all, bool ok, int ret)
{
	json_t *root = app_result_new(src->conf_json(c));
	char what[256];

	json_object_set_new(root, "placement", placement);
	if (ret == 0) {
		src->what(c, what, sizeof(what));
		pl_report_side_by_side(root, c, by_engine, what, src->unit);
		if (src->note != NULL)
			printf("%s\n", src->note);
	}
	printf("\nFrequency over every run:\n");
	app_freq_total_print(stdout, "All engines' runs together:", all);
	json_object_set_new(root, "frequency", app_freq_total_json(all));
	if (pl_has_engine(c, PL_ENGINE_LCACTOR) || pl_has_engine(c, PL_ENGINE_EMBEDDED) ||
	    pl_has_engine(c, PL_ENGINE_SERVICE)) {
		printf("\nlcactor's runtime after its last run:\n");
		app_report_actors(stdout);
		app_report_lcores(stdout);
		app_report_send_errors(stdout);
	}
	if (ret == 0 && !ok) {
		fprintf(stderr, APP ": %s\n", src->not_exact);
		ret = -EIO;
	}
	if (ret == 0 && pl_report_verdicts(root, c, by_engine, src->unit_m) < 0)
		ret = -ENOMEM;
	if (app_result_finish(root, ret == 0, c->json_path) < 0 && ret == 0)
		ret = -EIO;
	json_decref(root);
	return ret;
}

int
pl_driver_main(const struct pl_conf *c, const struct pl_source *s, bool vdev_added)
{
	struct app_freq_total all = { 0 };
	json_t *placement;
	bool ok = true;
	int ret;

	src = s;
	pl.conf = c;
	pl.vdev_added = vdev_added;
	ret = src->setup(c);
	if (ret < 0)
		return ret;
	app_report_machine(stdout);
	src->print_header(c);
	ret = src->start(c);
	if (ret < 0) {
		src->teardown();
		return ret;
	}
	placement = src->placement(c);
	for (unsigned int i = 0; i < c->n_engines; i++)
		by_engine[c->engines[i]].runs = json_array();
	for (unsigned int run = 0; run < c->runs && ret == 0; run++)
		for (unsigned int i = 0; i < c->n_engines && ret == 0; i++)
			ret = one_run(c, c->engines[i], run, &all, &ok);
	ret = report(c, placement, &all, ok, ret);
	for (unsigned int i = 0; i < PL_ENGINE_COUNT; i++) {
		json_decref(by_engine[i].runs);
		by_engine[i].runs = NULL;
	}
	src->teardown();
	return ret;
}
