/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lca-remote-bench's floor: the bare transport with the same sizes and
 * counts on the same two CPUs, a round before node 2 starts and one after
 * it has gone, so that neither shares a CPU with a busy-polling lcore; the
 * runtime's figures are read as ratios to both rounds. For --remote ucx
 * that is lca-ucx-floor (UCP active messages, ucx_floor.c), for memif
 * lca-memif-floor (DPDK's memif PMD and frames packed as lcactor packs
 * them, memif_floor.c); both beside this program's executable.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>

#include "app_floor.h"
#include "app_floor_stream.h"
#include "app_verdict.h"
#include "remote_bench.h"

/* A transport's floor: its program and what the verdict calls it. */
struct floor_prog {
	const char *transport;
	const char *label; /* "the bare LABEL floor" */
	const char *exe;
	const char *what;
};

static const struct floor_prog floors[] = {
	{ "ucx", "UCX", "lca-ucx-floor",
	  "bare UCX active messages between two processes on the same CPUs (lca-ucx-floor: one "
	  "message each, where lcactor packs many into a frame), a round before node 2 started "
	  "and one after it ended" },
	{ "memif", "memif", "lca-memif-floor",
	  "DPDK's memif PMD alone between two processes on the same CPUs (lca-memif-floor: "
	  "frames laid out as lcactor's, as many messages a frame), a round before node 2 "
	  "started and one after it ended" },
};

static const struct floor_prog *
floor_of(const char *transport)
{
	for (unsigned int i = 0; i < RTE_DIM(floors); i++)
		if (strcmp(floors[i].transport, transport) == 0)
			return &floors[i];
	return NULL;
}

const char *
rb_floor_name(const char *transport)
{
	const struct floor_prog *f = floor_of(transport);

	return f != NULL ? f->exe : NULL;
}

const char *
rb_floor_none(const char *transport)
{
	if (floor_of(transport) != NULL)
		return NULL;
	if (strcmp(transport, "ring") == 0)
		return "one process over a loopback: a test of the protocol, not of a link";
	return "none built for af_packet over veth";
}

/* The floor's program beside this program's own executable. */
static int
floor_path(const char *name, char *buf, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return -errno;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (slash == NULL)
		return -ENOENT;
	*slash = '\0';
	if ((size_t)snprintf(buf, len, "%s/%s", self, name) >= len)
		return -ENAMETOOLONG;
	return access(buf, X_OK) == 0 ? 0 : -errno;
}

/* One "# floor-result" line into its size's figures. */
static void
take_line(const char *line, const struct rb_floor_conf *fc, struct rb_floor_round *out)
{
	struct result r = { 0 };

	if (sscanf(line, "# floor-result size=%u mps=%lf p50_us=%lf p99_us=%lf p999_us=%lf",
		   &r.size, &r.mps, &r.p50_us, &r.p99_us, &r.p999_us) != 5)
		return;
	for (unsigned int i = 0; i < fc->n_sizes; i++)
		if (fc->sizes[i] == r.size)
			out->s[i] = r;
}

int
rb_floor_run(const struct rb_floor_conf *fc, struct rb_floor_round *out)
{
	const struct floor_prog *f = floor_of(fc->transport);
	char exe[PATH_MAX], cmd[PATH_MAX + 256], line[512];
	int n, status;
	FILE *p;

	memset(out, 0, sizeof(*out));
	if (f == NULL)
		return -ENOTSUP;
	if (floor_path(f->exe, exe, sizeof(exe)) != 0) {
		fprintf(stderr, "lca-remote-bench: no %s beside this program: no floor\n", f->exe);
		return -ENOENT;
	}
	n = snprintf(cmd, sizeof(cmd), "'%s' --msgs %" PRIu64 " --pings %u --timeout %u --cpus %d,%d "
		     "%s--sizes ", exe, fc->msgs, fc->pings, fc->timeout_s, fc->cpu[0], fc->cpu[1],
		     fc->jumbo ? "--jumbo " : "");
	for (unsigned int i = 0; i < fc->n_sizes && n > 0 && (size_t)n < sizeof(cmd); i++)
		n += snprintf(cmd + n, sizeof(cmd) - (size_t)n, "%s%u", i ? "," : "", fc->sizes[i]);
	fflush(stdout);
	p = popen(cmd, "r");
	if (p == NULL)
		return -errno;
	while (fgets(line, sizeof(line), p) != NULL) {
		printf("floor| %s", line);
		take_line(line, fc, out);
	}
	status = pclose(p);
	fflush(stdout);
	out->ran = status == 0;
	for (unsigned int i = 0; i < fc->n_sizes; i++)
		out->ran &= out->s[i].mps > 0 && out->s[i].p50_us > 0;
	if (!out->ran) {
		fprintf(stderr, "lca-remote-bench: %s failed (status %d): no floor\n", f->exe,
			status);
		return -EIO;
	}
	return 0;
}

/* The ratios of one figure to both floor rounds, and their record. */
static json_t *
pair_json(const double *ratios, const double *floor)
{
	double moved = app_floor_moved_pct(floor, 2);

	return json_pack("{s:[f, f], s:f, s:f, s:f, s:o}", "ratios", ratios[0], ratios[1],
			 "ratio_median", (ratios[0] + ratios[1]) / 2, "ratio_min",
			 fmin(ratios[0], ratios[1]), "ratio_max", fmax(ratios[0], ratios[1]),
			 "moved_pct", isfinite(moved) ? json_real(moved) : json_null());
}

static json_t *
round_json(const struct result *r)
{
	return json_pack("{s:f, s:f, s:f, s:f}", "mps", r->mps, "p50_us", r->p50_us, "p99_us",
			 r->p99_us, "p999_us", r->p999_us);
}

static void
add_row(json_t *record, const char *what_floor, const char *config, enum app_verdict_kind kind,
	double score, const char *unit, const double *ratios, const double *floor, double window_s)
{
	app_verdict_add(record, &(const struct app_verdict_row){
		.config = config, .kind = kind, .score = score, .ci_half = NAN, .unit = unit,
		.floor = what_floor, .ratios = ratios, .n_ratios = 2,
		.floor_moved_pct = app_floor_moved_pct(floor, 2), .window_s = window_s,
	});
}

void
rb_floor_judge(json_t *record, json_t *results, const struct rb_floor_conf *fc,
	       const struct result *res, const struct rb_floor_round *fl)
{
	const struct floor_prog *f = floor_of(fc->transport);

	if (f == NULL)
		return;
	for (unsigned int i = 0; i < fc->n_sizes; i++) {
		const struct result *r = &res[i], *a = &fl[0].s[i], *b = &fl[1].s[i];
		double fm[2] = { a->mps, b->mps }, fp[2] = { a->p50_us, b->p50_us };
		double rm[2], rp[2];
		char what[96];

		app_floor_ratios((const double[]){ r->mps, r->mps }, fm, 2, rm);
		app_floor_ratios((const double[]){ r->p50_us, r->p50_us }, fp, 2, rp);
		printf("  %4u B against the bare %s floor: one way %.2f M msg/s = %.1f%% of the "
		       "floor's (%.2f before, %.2f after); RTT p50 %.2f us = %.2fx the floor's "
		       "(%.2f, %.2f us)\n", r->size, f->label, r->mps, 50 * (rm[0] + rm[1]),
		       a->mps, b->mps, r->p50_us, (rp[0] + rp[1]) / 2, a->p50_us, b->p50_us);
		json_object_set_new(json_array_get(results, i), "floor", json_pack(
			"{s:s, s:s, s:[o, o], s:o, s:o}", "what", f->what, "order",
			"a floor round before the runtime's and one after it", "rounds",
			round_json(a), round_json(b), "one_way", pair_json(rm, fm), "rtt_p50",
			pair_json(rp, fp)));
		snprintf(what, sizeof(what), "%u B one way over %s", r->size, fc->transport);
		add_row(record, f->what, what, APP_VERDICT_RATE, r->mps, "M msg/s", rm, fm,
			r->ms / 1e3);
		snprintf(what, sizeof(what), "%u B RTT p50 over %s", r->size, fc->transport);
		add_row(record, f->what, what, APP_VERDICT_TIME, r->p50_us, "us", rp, fp,
			r->ping_ms / 1e3);
	}
}
