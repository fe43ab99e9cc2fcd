/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verdict rows of lca-pipeline, for --source mock and port alike:
 * lcactor judged run by run against its floor, run right beside it in the
 * same round of runs: ring where it runs (the same stages and the same
 * hand-offs between lcores, no actors), else plain (the same stages with no
 * actors); the other engines saying why they have no floor; with io in the
 * runs, every row its share of it.
 */
#include <math.h>
#include <stdio.h>

#include "app_floor.h"
#include "app_stats.h"
#include "app_verdict.h"
#include "pipeline.h"

#define CONFIDENCE 0.999

static const char *const floor_what[PL_ENGINE_COUNT] = {
	[PL_ENGINE_PLAIN] = "plain: the same stages run to completion, no actors, run beside it",
	[PL_ENGINE_RING] = "ring: the same stages and the same hand-offs between lcores "
			   "(SPSC rte_rings), no actors, run beside it",
};

static const char *
no_floor_why(enum pl_engine e, enum pl_engine floor_e, const struct pl_engine_figs *floor)
{
	if (e == PL_ENGINE_PLAIN && floor_e == PL_ENGINE_RING)
		return "plain counts where a packet arrives (no hand-off between lcores); ring, "
		       "which hands over as lcactor does, is lcactor's floor in this run";
	if (e == PL_ENGINE_PLAIN)
		return "plain is the floor: the same stages run to completion, no actors";
	if (e == PL_ENGINE_RING)
		return "ring is the floor: the same stages and hand-offs as lcactor, no actors";
	if (e == PL_ENGINE_EVENTDEV)
		return "eventdev is DPDK's scheduler, set beside lcactor for comparison (its "
		       "ratios are in the side-by-side table); it is not lcactor's floor";
	if (e == PL_ENGINE_GRAPH)
		return "graph is DPDK's graph library, set beside lcactor for comparison (its "
		       "ratios are in the side-by-side table); it is not lcactor's floor";
	if (e == PL_ENGINE_IO)
		return "io is the port's own ceiling (RX straight to TX, no stage): every other "
		       "row gives its share of it (io_share)";
	if (floor == NULL)
		return "its floor (ring with --source port, else plain) was not run: add it to "
		       "--engine";
	return "a run of its floor measured nothing, so runs cannot be paired";
}

/* The row just added gets its share of the io ceiling, run by run (the
 * same round's io run), and their median: what of the port's own rate the
 * engine's stages leave. */
static void
add_io_share(json_t *root, const struct pl_engine_figs *f, const struct pl_engine_figs *io)
{
	json_t *rows = json_object_get(json_object_get(root, "verdict"), "rows");
	json_t *row = json_array_get(rows, json_array_size(rows) - 1), *arr;
	double share[PL_MAX_RUNS];
	struct app_stats st;

	if (row == NULL || io == NULL || io->n != f->n || f->n == 0)
		return;
	arr = json_array();
	for (unsigned int i = 0; i < f->n; i++) {
		share[i] = io->v[i] > 0 ? f->v[i] / io->v[i] : NAN;
		json_array_append_new(arr, json_real(share[i]));
	}
	app_stats_compute(share, f->n, CONFIDENCE, &st);
	json_object_set_new(row, "io_share", json_real(st.p50));
	json_object_set_new(row, "io_shares", arr);
}

static int
add_row(json_t *root, enum pl_engine e, const struct pl_engine_figs *f, enum pl_engine floor_e,
	const struct pl_engine_figs *floor, const char *unit)
{
	double ratios[PL_MAX_RUNS];
	bool paired = pl_engine_is_lcactor(e) && floor != NULL && floor->n == f->n;
	struct app_stats st;
	char config[64];

	app_stats_compute(f->v, f->n, CONFIDENCE, &st);
	for (unsigned int i = 0; paired && i < f->n; i++)
		ratios[i] = floor->v[i] > 0 ? f->v[i] / floor->v[i] : NAN;
	snprintf(config, sizeof(config), "%s", pl_engine_name(e));
	return app_verdict_add(root, &(struct app_verdict_row){
		.config = config, .kind = APP_VERDICT_RATE,
		.score = st.p50 / 1e6, .ci_half = st.p50_error / 1e6, .unit = unit,
		.floor = paired ? floor_what[floor_e] : NULL,
		.no_floor_why = no_floor_why(e, floor_e, floor != NULL && floor->n > 0 ? floor : NULL),
		.ratios = paired ? ratios : NULL,
		.n_ratios = paired ? f->n : 0,
		.floor_moved_pct = paired ? app_floor_moved_pct(floor->v, floor->n) : NAN,
		.window_s = paired ? fmin(f->window_s, floor->window_s) : f->window_s,
	});
}

int
pl_verdict_add(json_t *root, const struct pl_conf *c,
	       const struct pl_engine_figs figs[PL_ENGINE_COUNT], const char *unit)
{
	const struct pl_engine_figs *floor = NULL, *io = NULL;
	enum pl_engine floor_e = PL_ENGINE_PLAIN;
	int ret = 0;

	for (unsigned int i = 0; i < c->n_engines; i++)
		if (c->engines[i] == PL_ENGINE_RING)
			floor_e = PL_ENGINE_RING;
	for (unsigned int i = 0; i < c->n_engines; i++) {
		if (c->engines[i] == floor_e)
			floor = &figs[floor_e];
		if (c->engines[i] == PL_ENGINE_IO)
			io = &figs[PL_ENGINE_IO];
	}
	for (unsigned int i = 0; i < c->n_engines && ret == 0; i++) {
		enum pl_engine e = c->engines[i];

		if (figs[e].n == 0)
			continue;
		ret = add_row(root, e, &figs[e], floor_e, floor, unit);
		if (ret == 0 && e != PL_ENGINE_IO)
			add_io_share(root, &figs[e], io);
	}
	return ret;
}
