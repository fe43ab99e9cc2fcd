/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The report every source ends with, one code for the mock and the port
 * source: the engines side by side (mean rate, measured time, each one's
 * share of the io ceiling when io ran, every pairwise ratio), one result
 * per engine in the JSON record, and the verdict rows.
 */
#include <math.h>
#include <stdio.h>

#include "app_result.h"
#include "pipeline.h"

#define CONFIDENCE 0.999

static double
mean_of(const double *v, unsigned int n)
{
	double s = 0;

	for (unsigned int i = 0; i < n; i++)
		s += v[i];
	return n ? s / n : 0;
}

/* One engine's line and its result: @p io is io's mean rate, 0 if none. */
static void
side_row(json_t *root, const struct pl_conf *c, const struct pl_engine_runs *by_engine,
	 enum pl_engine e, double io, const char *unit)
{
	const struct pl_engine_runs *er = &by_engine[e];
	double mine = mean_of(er->v, er->n);
	json_t *ratios = json_object(), *res;
	bool first = true;

	printf("%-9s %14.0f %12.3f  ", pl_engine_name(e), mine, mean_of(er->measured_s, er->n));
	if (io > 0 && e != PL_ENGINE_IO)
		printf("%7.1f%%  ", 100.0 * mine / io);
	else if (io > 0)
		printf("%8s  ", "ceiling");
	for (unsigned int k = 0; k < c->n_engines; k++) {
		enum pl_engine o = c->engines[k];
		double other = mean_of(by_engine[o].v, by_engine[o].n);

		if (o == e || by_engine[o].n == 0 || other <= 0)
			continue;
		printf("%s%.2fx %s", first ? "" : ", ", mine / other, pl_engine_name(o));
		json_object_set_new(ratios, pl_engine_name(o), json_real(mine / other));
		first = false;
	}
	printf("\n");
	res = json_pack("{s:s, s:s, s:o, s:f, s:o, s:O}", "name", pl_engine_name(e), "engine",
			pl_engine_name(e), "ratios", ratios, "mean_msg_per_s", mine, "frequency",
			app_freq_total_json(&er->freq), "runs", er->runs);
	json_object_set_new(res, "throughput",
			    app_result_measure_of(er->v, er->n, CONFIDENCE, unit));
	if (io > 0)
		json_object_set_new(res, "io_share", json_real(mine / io));
	app_result_add(root, res);
}

void
pl_report_side_by_side(json_t *root, const struct pl_conf *c,
		       const struct pl_engine_runs by_engine[PL_ENGINE_COUNT], const char *what,
		       const char *unit)
{
	const struct pl_engine_runs *io_runs = &by_engine[PL_ENGINE_IO];
	double io = io_runs->n > 0 ? mean_of(io_runs->v, io_runs->n) : 0;

	printf("\nEngines side by side (lcores");
	for (unsigned int i = 0; i < pl.n_lcores; i++)
		printf("%s%u", i ? "," : " ", pl.lcores[i]);
	printf(", %s, mean of %u run%s):\n", what, c->runs, c->runs > 1 ? "s" : "");
	if (c->source == PL_SOURCE_PORT && io == 0)
		printf("(add io to --engine for each engine's share of the port's own ceiling)\n");
	printf("%-9s %14s %12s  ", "engine", unit, "measured s");
	if (io > 0)
		printf("%8s  ", "of io");
	printf("ratio\n");
	for (unsigned int i = 0; i < c->n_engines; i++)
		if (by_engine[c->engines[i]].n > 0)
			side_row(root, c, by_engine, c->engines[i], io, unit);
}

int
pl_report_verdicts(json_t *root, const struct pl_conf *c,
		   const struct pl_engine_runs by_engine[PL_ENGINE_COUNT], const char *unit_m)
{
	struct pl_engine_figs figs[PL_ENGINE_COUNT];

	for (unsigned int e = 0; e < PL_ENGINE_COUNT; e++) {
		const struct pl_engine_runs *er = &by_engine[e];
		double w = NAN;

		for (unsigned int i = 0; i < er->n; i++)
			w = i == 0 ? er->measured_s[i] : fmin(w, er->measured_s[i]);
		figs[e] = (struct pl_engine_figs){ .v = er->v, .n = er->n, .window_s = w };
	}
	return pl_verdict_add(root, c, figs, unit_m);
}
