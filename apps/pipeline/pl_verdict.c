/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verdict rows of lca-pipeline, for --source mock and port alike:
 * lcactor judged against plain run by run (the same stages with no actors,
 * run right beside it in the same round of runs), the other engines saying
 * why they have no floor; with io in the runs, every row its share of it.
 */
#include <math.h>
#include <stdio.h>

#include "lca_floor.h"
#include "lca_stats.h"
#include "lca_verdict.h"
#include "pipeline.h"

#define CONFIDENCE 0.999

static const char *
no_floor_why(enum pl_engine e, const struct pl_engine_figs *plain)
{
	if (e == PL_ENGINE_PLAIN)
		return "plain is the floor: the same stages run to completion, no actors";
	if (e == PL_ENGINE_EVENTDEV)
		return "eventdev is DPDK's scheduler, set beside lcactor for comparison (its "
		       "ratios are in the side-by-side table); plain is lcactor's floor";
	if (e == PL_ENGINE_GRAPH)
		return "graph is DPDK's graph library, set beside lcactor for comparison (its "
		       "ratios are in the side-by-side table); plain is lcactor's floor";
	if (e == PL_ENGINE_IO)
		return "io is the port's own ceiling (RX straight to TX, no stage): every other "
		       "row gives its share of it (io_share)";
	if (plain == NULL)
		return "plain, its floor, was not run: add it to --engine";
	return "a run of plain measured nothing, so runs cannot be paired";
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
	struct lca_stats st;

	if (row == NULL || io == NULL || io->n != f->n || f->n == 0)
		return;
	arr = json_array();
	for (unsigned int i = 0; i < f->n; i++) {
		share[i] = io->v[i] > 0 ? f->v[i] / io->v[i] : NAN;
		json_array_append_new(arr, json_real(share[i]));
	}
	lca_stats_compute(share, f->n, CONFIDENCE, &st);
	json_object_set_new(row, "io_share", json_real(st.p50));
	json_object_set_new(row, "io_shares", arr);
}

static int
add_row(json_t *root, enum pl_engine e, const struct pl_engine_figs *f,
	const struct pl_engine_figs *plain, const char *unit)
{
	double ratios[PL_MAX_RUNS];
	bool paired = e == PL_ENGINE_LCACTOR && plain != NULL && plain->n == f->n;
	struct lca_stats st;
	char config[64];

	lca_stats_compute(f->v, f->n, CONFIDENCE, &st);
	for (unsigned int i = 0; paired && i < f->n; i++)
		ratios[i] = plain->v[i] > 0 ? f->v[i] / plain->v[i] : NAN;
	snprintf(config, sizeof(config), "%s", pl_engine_name(e));
	return lca_verdict_add(root, &(struct lca_verdict_row){
		.config = config, .kind = LCA_VERDICT_RATE,
		.score = st.p50 / 1e6, .ci_half = st.error / 1e6, .unit = unit,
		.floor = paired ? "plain: the same stages run to completion, no actors, run "
				  "beside it" : NULL,
		.no_floor_why = no_floor_why(e, plain != NULL && plain->n > 0 ? plain : NULL),
		.ratios = paired ? ratios : NULL,
		.n_ratios = paired ? f->n : 0,
		.floor_moved_pct = paired ? lca_floor_moved_pct(plain->v, plain->n) : NAN,
		.window_s = paired ? fmin(f->window_s, plain->window_s) : f->window_s,
	});
}

int
pl_verdict_add(json_t *root, const struct pl_conf *c,
	       const struct pl_engine_figs figs[PL_ENGINE_COUNT], const char *unit)
{
	const struct pl_engine_figs *plain = NULL, *io = NULL;
	int ret = 0;

	for (unsigned int i = 0; i < c->n_engines; i++) {
		if (c->engines[i] == PL_ENGINE_PLAIN)
			plain = &figs[PL_ENGINE_PLAIN];
		if (c->engines[i] == PL_ENGINE_IO)
			io = &figs[PL_ENGINE_IO];
	}
	for (unsigned int i = 0; i < c->n_engines && ret == 0; i++) {
		enum pl_engine e = c->engines[i];

		if (figs[e].n == 0)
			continue;
		ret = add_row(root, e, &figs[e], plain, unit);
		if (ret == 0 && e != PL_ENGINE_IO)
			add_io_share(root, &figs[e], io);
	}
	return ret;
}
