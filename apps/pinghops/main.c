/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lca-pinghops: Akka's random ping with hops (the "local" case), printed as
 * the published run is: one line per run, then the average; then the
 * message accounting of every run, the placement and the frequency report.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "lca_topo.h"
#include "app_main.h"
#include "app_cli.h"
#include "lca_eal.h"
#include "app_floor.h"
#include "lca_freq.h"
#include "app_freq_json.h"
#include "app_freq_print.h"
#include "app_pair.h"
#include "app_report.h"
#include "app_result.h"
#include "app_series.h"
#include "app_stats.h"
#include "app_verdict.h"
#include "ph_floor.h"
#include "pinghops.h"

#define MAX_WORKERS 1024
#define MAX_RUNS 1000
#define CONFIDENCE 0.999
#define FLOOR_WHAT "the same pings, hops and random streams over bare SPSC rings " \
	"(rte_ring) between the same lcores, alternating with the runs"

struct app_conf {
	struct ph_conf ph;
	const char *json_path;
	const char *remote;      /* --remote memif: two processes */
	const char *peer_lcores; /* -l of the second process */
};

/* The second process of --remote, and how this one was started. */
static struct app_pair g_pair;

static int
opt_remote(void *conf, const struct app_opt *opt, char *val)
{
	(void)opt;
	if (strcmp(val, "memif") != 0 && strcmp(val, "af_packet") != 0 && strcmp(val, "ucx") != 0) {
		fprintf(stderr, "lca-pinghops: --remote %s: the transports are memif, "
			"af_packet and ucx\n", val);
		return APP_OPT_SAID;
	}
	((struct app_conf *)conf)->remote = val;
	return 0;
}

#define AT(field) APP_OPT_AT(struct app_conf, field)

static const struct app_opt options[] = {
	{ "workers", 0, APP_OPT_UINT, AT(ph.workers), .min = 1, .max = MAX_WORKERS,
	  .metavar = "N", .help = "workers (default 8)" },
	{ "pings", 0, APP_OPT_UINT, AT(ph.pings), .min = 1, .max = 1000000, .metavar = "N",
	  .help = "initial pings (default 10000)" },
	{ "hops", 0, APP_OPT_UINT, AT(ph.hops), .min = 0, .max = 100000000, .metavar = "N",
	  .help = "hops of each ping (default 100)" },
	{ "runs", 0, APP_OPT_UINT, AT(ph.runs), .min = 1, .max = MAX_RUNS, .metavar = "N",
	  .help = "repetitions (default 5)" },
	{ "window-ms", 0, APP_OPT_UINT, AT(ph.window_ms), .min = 0, .max = 3600000,
	  .metavar = "N",
	  .help = "a run repeats the benchmark's pings (passes, each counted\n"
		  "exactly) until they took N ms, and its time is the mean\n"
		  "pass; its floor round likewise (default 200; 0: one pass,\n"
		  "the published run's own, about 15-30 ms here)" },
	{ "seed", 0, APP_OPT_UINT, AT(ph.seed), .min = 0, .max = UINT64_MAX, .metavar = "N",
	  .help = "seed of the workers' random streams (default 1)" },
	{ "throughput", 0, APP_OPT_UINT, AT(ph.throughput), .min = 1, .max = 1024,
	  .metavar = "N", .help = "messages an actor handles per turn (default 64)" },
	{ "placement", 0, APP_OPT_CUSTOM, AT(ph.placement), .parse = app_opt_placement,
	  .metavar = "P",
	  .help = "round-robin (default), pack, pairs-local, auto (the runtime\n"
		  "moves actors that talk mostly to one peer together)",
	  .why = "round-robin, pack, pairs-local or auto" },
	{ "remote", 0, APP_OPT_CUSTOM, .parse = opt_remote, .metavar = "T",
	  .help = "the remote case of Akka's ping-hops: half the workers in a\n"
		  "second process\n"
		  "(started and stopped by this one; T: memif, af_packet over\n"
		  "a veth pair between two network namespaces (root), or ucx:\n"
		  "UCX active messages over 127.0.0.1, UCX_TLS=shm,tcp), the\n"
		  "master here; a local run with all the workers here comes\n"
		  "first, and the ratio is printed with the base it uses" },
	{ "peer-lcores", 0, APP_OPT_STRING, AT(peer_lcores), .metavar = "L",
	  .help = "-l of the second process (default 1), and of each other\n"
		  "with --remote-nodes" },
	{ "remote-nodes", 0, APP_OPT_UINT, AT(ph.remote_nodes), .min = 2,
	  .max = APP_PAIR_MAX_NODES, .metavar = "N",
	  .help = "--remote: N processes (default 2), each linked to every\n"
		  "other (memif or ucx for more than 2), the workers spread\n"
		  "over them in order, the master in the first; each far\n"
		  "node's counts sent back to it and checked" },
	/* app_pair.h's: the veth's faults, and the second process's own
	 * argument; app_pair reads them. */
	{ "netem", 0, APP_OPT_IGNORE, .no_value = true,
	  .help = "af_packet: tc netem loss, reorder, duplicate 1% on the veth\n"
		  "(lcactor's injector where the kernel has no netem)" },
	{ "pair-netem-on", 0, APP_OPT_IGNORE, .no_value = true, .hidden = true },
	{ "pair-peer", 0, APP_OPT_IGNORE, .hidden = true },
	{ "pair-node", 0, APP_OPT_IGNORE, .hidden = true },
	{ "json", 0, APP_OPT_OUTPUT, AT(json_path), .metavar = "FILE",
	  .help = "write every figure as JSON" },
	{ NULL },
};

static const struct app_opt_table table = {
	.prog = "lca-pinghops", .opts = options, .eal = true, .column = 19,
	.about = "Akka's random ping with hops on lcactor: a master spreads pings over the\n"
		 "workers; a worker sends a ping with hops > 0 on, hops - 1, to a random\n"
		 "worker; at 0 it tells the master. A run ends when the master heard of all.\n",
};

static int
parse_args(int argc, char **argv, void *conf)
{
	struct app_conf *c = conf;
	int ret;

	*c = (struct app_conf){
		.ph = { .workers = 8, .pings = 10000, .hops = 100, .runs = 5, .seed = 1,
			.throughput = 64, .placement = LCA_PLACE_ROUND_ROBIN, .window_ms = 200 },
	};
	ret = app_opt_parse(argc, argv, &table, c, NULL);
	if (ret == 0 && c->ph.remote_nodes != 0 && c->remote == NULL) {
		fprintf(stderr, "lca-pinghops: --remote-nodes needs --remote\n");
		return -EINVAL;
	}
	if (c->ph.remote_nodes == 0)
		c->ph.remote_nodes = 2;
	return ret;
}

/* The date as the published run shows it (Java's Date.toString()). */
static void
print_date(const char *label)
{
	char buf[64];
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%a %b %d %H:%M:%S %Z %Y", &tm);
	printf("%s%s\n", label, buf);
}

static void
print_header(const struct ph_conf *c)
{
	printf("# lca-pinghops: Akka's random ping with hops, local. The master is an actor; it "
	       "sends the initial pings\n#   spread over the workers (%u a turn at most), "
	       "each worker picks the next worker with its own\n#   splitmix64 stream seeded "
	       "from --seed %" PRIu64 " (the streams are reproducible, their interleaving "
	       "is not).\n",
	       PH_START_BATCH, c->seed);
	printf("# Time of a run: TSC on the master's lcore from its start message to the last "
	       "report (launching the lcores\n#   is not in it). Throughput %u messages per "
	       "actor turn; placement %s.\n\n",
	       c->throughput, lca_placement_name(c->placement));
	printf("Parameters\nNumber of actors / workers: %u\nNumber of initial messages: %" PRIu32
	       "\nNumber of hops: %" PRIu32 "\nRepetitions: %u\n\nLocal:\n\n",
	       c->workers, c->pings, c->hops, c->runs);
}

static void
print_accounting(const struct ph_conf *c, const struct ph_run *runs, unsigned int n)
{
	printf("\nMessage accounting, checked exactly in every run (handled counters of the "
	       "runtime):\n"
	       "  workers = pings x (hops + 1) = %" PRIu64 " x %" PRIu64 " = %" PRIu64
	       ", + flushes (tokens a worker sends itself\n"
	       "            to send again what a full channel refused)\n"
	       "  master  = pings (reports) + 1 (start) + continues (its turns spreading the "
	       "initial pings)\n"
	       "  refusals (-ENOBUFS) counted by the runtime = those the actors saw and kept "
	       "for later (nothing dropped);\n"
	       "  no other send failure\n",
	       (uint64_t)c->pings, (uint64_t)c->hops + 1,
	       (uint64_t)c->pings * ((uint64_t)c->hops + 1));
	printf("%4s %14s %14s %10s %10s %9s %8s %8s %9s %6s\n", "run", "worker handled",
	       "expected", "master", "expected", "refusals", "flushes", "master", "continues",
	       "check");
	printf("%4s %14s %14s %10s %10s %9s %8s %8s %9s %6s\n", "", "", "", "handled", "", "",
	       "", "refusals", "", "");
	for (unsigned int i = 0; i < n; i++)
		printf("%4u %14" PRIu64 " %14" PRIu64 " %10" PRIu64 " %10" PRIu64 " %9" PRIu64
		       " %8" PRIu64 " %8" PRIu64 " %9" PRIu64 " %6s\n",
		       i + 1, runs[i].worker_handled, runs[i].worker_expected,
		       runs[i].master_handled, runs[i].master_expected, runs[i].worker_refused,
		       runs[i].flushes, runs[i].master_refused, runs[i].continues, "ok");
}

static json_t *
print_placement(const struct ph_bench *b, const struct ph_conf *c)
{
	struct ph_place p[MAX_WORKERS + 1];
	unsigned int n = ph_bench_placement(b, p, RTE_DIM(p));
	json_t *arr = json_array();

	printf("\nPlacement (%s):\n%-6s %-10s %5s %4s\n", lca_placement_name(c->placement),
	       "actor", "role", "lcore", "cpu");
	for (unsigned int i = 0; i < n; i++) {
		char role[16];

		if (p[i].master)
			snprintf(role, sizeof(role), "master");
		else
			snprintf(role, sizeof(role), "worker %u", p[i].index);
		printf("%-6u %-10s %5u %4d\n", p[i].id, role, p[i].lcore, lca_topo_lcore_cpu(p[i].lcore));
		json_array_append_new(arr, json_pack("{s:i, s:s, s:i, s:i}", "actor", (int)p[i].id,
						     "role", role, "lcore", (int)p[i].lcore, "cpu",
						     lca_topo_lcore_cpu(p[i].lcore)));
	}
	return arr;
}

static json_t *
runs_json(const struct ph_run *runs, unsigned int n)
{
	json_t *arr = json_array();
	double ns_per_cycle = 1e9 / (double)rte_get_tsc_hz();

	for (unsigned int i = 0; i < n; i++)
		json_array_append_new(arr, json_pack("{s:i, s:f, s:I, s:I, s:I, s:I, s:I, s:I, "
						     "s:I, s:I}",
						     "run", (int)i + 1, "ms",
						     (double)runs[i].cycles * ns_per_cycle / 1e6,
						     "worker_handled",
						     (json_int_t)runs[i].worker_handled,
						     "worker_expected",
						     (json_int_t)runs[i].worker_expected,
						     "master_handled",
						     (json_int_t)runs[i].master_handled,
						     "master_expected",
						     (json_int_t)runs[i].master_expected,
						     "worker_refused",
						     (json_int_t)runs[i].worker_refused,
						     "flushes", (json_int_t)runs[i].flushes,
						     "master_refused",
						     (json_int_t)runs[i].master_refused,
						     "continues", (json_int_t)runs[i].continues));
	/* The second process's share of a remote run (0 in a local run). */
	for (unsigned int i = 0; i < n; i++)
		json_object_update_new(json_array_get(arr, i),
				       json_pack("{s:I, s:I, s:I}", "far_handled",
						 (json_int_t)runs[i].far_handled, "far_refused",
						 (json_int_t)runs[i].far_refused, "far_flushes",
						 (json_int_t)runs[i].far_flushes));
	return arr;
}

/* The runs of a series, as app_series_run() calls them. */
struct runs {
	struct ph_bench *b;
	const struct ph_conf *pc;
	struct ph_run *runs;
	bool with_floor;          /* a floor round before each run (ABAB) */
	uint64_t window_cycles;   /* passes of a run until they took this long */
	double ms[MAX_RUNS];      /* a run's mean pass */
	double window_ms[MAX_RUNS];
	unsigned int passes[MAX_RUNS];
	unsigned int floor_passes[MAX_RUNS];
	double msgs_per_s[MAX_RUNS];
	double floor_ms[MAX_RUNS];
	double ratio[MAX_RUNS];   /* ms / floor_ms */
	double average_ms;
};

/* A floor round on the lcores the runtime has the actors on now. */
static int
floor_one(struct runs *r, unsigned int i)
{
	static struct ph_place place[MAX_WORKERS + 1];
	unsigned int n = ph_bench_placement(r->b, place, RTE_DIM(place)), passes = 0;
	uint64_t cycles, total = 0;
	int ret;

	do {
		ret = ph_floor_run(r->pc, place, n, i, &cycles);
		if (ret < 0) {
			if (ret != -EINTR) /* a signal: the app says "interrupted" */
				fprintf(stderr, "lca-pinghops: floor round %u failed: %s\n",
					i + 1, strerror(-ret));
			return ret;
		}
		total += cycles;
		passes++;
	} while (total < r->window_cycles);
	r->floor_passes[i] = passes;
	r->floor_ms[i] = (double)total * 1e3 / (double)rte_get_tsc_hz() / passes;
	return 0;
}

static uint64_t
window_cycles(const struct ph_conf *pc)
{
	return (uint64_t)pc->window_ms * (rte_get_tsc_hz() / 1000);
}

/* The seed's run of 10,000 pings takes 15-30 ms here, a few scheduler
 * ticks: the same run (the same random streams) is repeated until the
 * passes took the window, each pass counted exactly, and the run's time
 * is their mean, so that "Time =" stays the seed's figure. */
static int
runtime_passes(struct runs *r, unsigned int i, struct ph_run *pr)
{
	uint64_t total = 0, handled = 0;
	unsigned int passes = 0;
	int ret;

	do {
		ret = ph_bench_run(r->b, i, pr);
		if (ret < 0)
			return ret;
		total += pr->cycles;
		handled += pr->worker_handled + pr->master_handled;
		passes++;
	} while (total < r->window_cycles);
	r->passes[i] = passes;
	r->window_ms[i] = (double)total * 1e3 / (double)rte_get_tsc_hz();
	/* The record's "ms" of a run is its mean pass, to the cycle. */
	pr->cycles = total / passes;
	r->ms[i] = (double)pr->cycles * 1e3 / (double)rte_get_tsc_hz();
	r->msgs_per_s[i] = (double)handled / r->window_ms[i] * 1e3;
	return 0;
}

static int
run_one(void *arg, unsigned int i)
{
	struct runs *r = arg;
	struct ph_run *pr = &r->runs[i];
	int ret;

	if (r->with_floor) {
		ret = floor_one(r, i);
		if (ret < 0)
			return ret;
	}
	printf("Master start run #%u\n", i + 1);
	fflush(stdout);
	ret = runtime_passes(r, i, pr);
	if (ret < 0)
		return ret;
	printf("Run #%u ended! Time = %.3fms\n", i + 1, r->ms[i]);
	printf("  window: %u pass%s in %.1f ms, every pass's counts exact\n", r->passes[i],
	       r->passes[i] == 1 ? "" : "es", r->window_ms[i]);
	if (r->with_floor) {
		r->ratio[i] = r->ms[i] / r->floor_ms[i];
		printf("  floor round #%u: %.3f ms a pass over %u pass%s; runtime / floor = %.2fx\n",
		       i + 1, r->floor_ms[i], r->floor_passes[i],
		       r->floor_passes[i] == 1 ? "" : "es", r->ratio[i]);
	}
	return 0;
}

/* The ratios' median and spread, and whether the floor moved. */
static void
print_floor(const struct runs *r, unsigned int n)
{
	struct app_stats st;
	double moved = app_floor_moved_pct(r->floor_ms, n);

	if (!r->with_floor || app_stats_compute(r->ratio, n, CONFIDENCE, &st) < 0)
		return;
	printf("Runtime / floor (%s): median %.2fx, spread %.2fx - %.2fx over %u pairs",
	       FLOOR_WHAT, st.p50, st.min, st.max, n);
	if (!isnan(moved))
		printf("; the floor's rounds moved %.1f%%%s", moved,
		       moved > APP_VERDICT_MOVED_PCT ? ": the CPUs moved during the run" : "");
	printf("\n");
}

/* The shortest run's window: what the verdict judges as too short. */
static double
shortest_window_s(const struct runs *r, unsigned int n)
{
	double w = INFINITY;

	for (unsigned int i = 0; i < n; i++)
		w = fmin(w, r->window_ms[i] / 1e3);
	return n > 0 ? w : NAN;
}

/* The verdict row of a local series against its floor. */
static int
verdict_local(json_t *root, const char *config, const struct runs *r, unsigned int n)
{
	struct app_stats st;
	struct app_verdict_row row = {
		.config = config, .kind = APP_VERDICT_TIME, .unit = "ms",
		.floor = FLOOR_WHAT, .ratios = r->ratio, .n_ratios = n,
		.floor_moved_pct = app_floor_moved_pct(r->floor_ms, n),
	};

	if (app_stats_compute(r->ms, n, CONFIDENCE, &st) < 0)
		return -EINVAL;
	row.score = st.p50;
	row.ci_half = st.p50_error;
	row.window_s = shortest_window_s(r, n);
	return app_verdict_add(root, &row);
}

static json_t *
doubles_json(const double *v, unsigned int n)
{
	json_t *arr = json_array();

	for (unsigned int i = 0; i < n; i++)
		json_array_append_new(arr, json_real(v[i]));
	return arr;
}

static json_t *
result_json(const char *name, const struct ph_conf *pc, const struct runs *r)
{
	json_t *res = json_pack("{s:s, s:o, s:o, s:o, s:f}", "name", name, "time",
				app_result_measure_of(r->ms, pc->runs, CONFIDENCE, "ms"),
				"throughput",
				app_result_measure_of(r->msgs_per_s, pc->runs, CONFIDENCE, "msg/s"),
				"runs", runs_json(r->runs, pc->runs), "average_ms", r->average_ms);
	json_t *passes = json_array();

	for (unsigned int i = 0; i < pc->runs; i++)
		json_array_append_new(passes, json_integer(r->passes[i]));
	json_object_set_new(res, "window_ms", doubles_json(r->window_ms, pc->runs));
	json_object_set_new(res, "passes", passes);
	double moved = app_floor_moved_pct(r->floor_ms, pc->runs);

	if (r->with_floor) {
		struct app_stats st;
		json_t *fl = json_pack("{s:s, s:s, s:o, s:o, s:o, s:o}", "what", FLOOR_WHAT, "order",
				       "a floor round before each run (ABAB)", "time",
				       app_result_measure_of(r->floor_ms, pc->runs, CONFIDENCE,
							     "ms"),
				       "ms", doubles_json(r->floor_ms, pc->runs), "ratios",
				       doubles_json(r->ratio, pc->runs), "moved_pct",
				       isnan(moved) ? json_null() : json_real(moved));

		if (app_stats_compute(r->ratio, pc->runs, CONFIDENCE, &st) == 0)
			json_object_update_new(fl, json_pack("{s:f, s:f, s:f}", "ratio_median",
							     st.p50, "ratio_min", st.min,
							     "ratio_max", st.max));
		json_object_set_new(res, "floor", fl);
	}
	return res;
}

/* A local series (all the workers in this process) with its floor
 * rounds: @p pc's placement, on this process's lcores. */
static int
local_series(const struct ph_conf *pc, const char *name, struct runs *r, struct ph_run *runs,
	     struct app_series *series)
{
	int ret = ph_bench_create(pc, &r->b);

	if (ret < 0)
		return ret;
	r->pc = pc;
	r->runs = runs;
	r->with_floor = true;
	r->window_cycles = window_cycles(pc);
	ret = app_series_run(series, name, pc->runs, run_one, r);
	ph_bench_destroy(r->b);
	r->b = NULL;
	if (ret < 0)
		return ret;
	r->average_ms = 0;
	for (unsigned int i = 0; i < pc->runs; i++)
		r->average_ms += r->ms[i] / pc->runs;
	printf("Average execution time = %.4f ms\n", r->average_ms);
	print_floor(r, pc->runs);
	printf("Frequency during the runs:\n");
	app_series_print_freq(stdout, series);
	printf("\n");
	return 0;
}

/* CPUs of the remote run: both nodes' lcores (-l N runs lcore N on CPU N). */
static unsigned int
remote_cpus(const struct lca_remote_conf *rc)
{
	bool seen[RTE_MAX_LCORE] = { false };
	unsigned int n = 0;

	for (unsigned int i = 0; i < rc->n_nodes; i++)
		for (unsigned int k = 0; k < rc->nodes[i].n_lcores; k++)
			if (rc->nodes[i].lcores[k] < RTE_MAX_LCORE && !seen[rc->nodes[i].lcores[k]]) {
				seen[rc->nodes[i].lcores[k]] = true;
				n++;
			}
	return n;
}

static json_t *
conf_json(const struct app_conf *c)
{
	const struct ph_conf *pc = &c->ph;
	json_t *conf = json_pack("{s:s, s:i, s:I, s:I, s:i, s:i, s:I, s:i, s:s, s:s?}", "benchmark",
			 "pinghops", "workers", (int)pc->workers, "pings", (json_int_t)pc->pings,
			 "hops", (json_int_t)pc->hops, "runs", (int)pc->runs, "window_ms",
			 (int)pc->window_ms, "seed",
			 (json_int_t)pc->seed, "throughput", (int)pc->throughput, "placement",
			 lca_placement_name(pc->placement), "remote", c->remote);

	if (conf != NULL && c->remote != NULL)
		json_object_set_new(conf, "remote_nodes", json_integer(pc->remote_nodes));
	return conf;
}

/* Whether node 1's link to each of the other @p nodes is up. */
static bool
links_connected(unsigned int nodes)
{
	struct lca_remote_link_stats ls;

	for (unsigned int k = 2; k <= nodes; k++)
		if (lca_remote_link_stats_get((uint16_t)k, &ls) != 0 || !ls.connected)
			return false;
	return true;
}

/* The remote series: the workers spread over the processes, the master
 * here. */
static int
remote_series(const struct app_conf *c, struct lca_remote_conf *rconf, struct runs *r,
	      struct ph_run *runs, struct app_series *series)
{
	static struct ph_conf pc;
	struct lca_remote_link_stats ls;
	int ret;

	pc = c->ph;
	pc.remote = rconf;
	pc.remote_node = 1;
	r->pc = &pc;
	r->runs = runs;
	r->with_floor = false;
	r->window_cycles = window_cycles(&pc);
	ret = ph_bench_create(&pc, &r->b);
	if (ret < 0)
		return ret;
	/* The other processes start their EAL and connect first: not part
	 * of any run. */
	for (unsigned int i = 0; i < 3000 && ret == 0; i++) {
		if (links_connected(pc.remote_nodes))
			break;
		ret = lca_runtime_run(10);
		ret = ret == -ETIMEDOUT ? 0 : ret;
	}
	print_date("Start pinging around @ ");
	if (ret == 0)
		ret = app_series_run(series, "pinghops-remote", pc.runs, run_one, r);
	if (ret == 0) {
		r->average_ms = 0;
		for (unsigned int i = 0; i < pc.runs; i++)
			r->average_ms += r->ms[i] / pc.runs;
		printf("Repetitions reached. Broadcasting shutdown...\n");
		print_date("End: ");
		printf("Average execution time = %.4f ms\n", r->average_ms);
		printf("Frequency during the remote runs (this process's lcores; the other "
		       "processes' are their own):\n");
		app_series_print_freq(stdout, series);
		print_accounting(&pc, runs, pc.runs);
	}
	ph_bench_quit_peer(r->b);
	printf("\n");
	for (unsigned int k = 2; k <= pc.remote_nodes; k++)
		if (lca_remote_link_stats_get((uint16_t)k, &ls) == 0)
			printf("Link to node %u: %" PRIu64 " msgs sent in %" PRIu64 " data frames "
			       "(%.1f a frame), %" PRIu64 " delivered from it, %" PRIu64
			       " retransmits, %" PRIu64 " duplicates, %" PRIu64
			       " no-credit refusals\n", k, ls.msgs_sent, ls.frames_sent,
			       ls.frames_sent ? (double)ls.msgs_sent / (double)ls.frames_sent : 0.0,
			       ls.msgs_delivered, ls.retransmits, ls.duplicates, ls.no_credit);
	ph_bench_destroy(r->b);
	r->b = NULL;
	return ret;
}

/* "4+4" or "2+2+2+2": the workers of each node of a remote run. */
static const char *
workers_split(const struct ph_conf *pc)
{
	static char split[48];
	size_t off = 0;

	for (unsigned int k = 1; k <= pc->remote_nodes && off < sizeof(split); k++)
		off += (size_t)snprintf(split + off, sizeof(split) - off, "%s%u", k > 1 ? "+" : "",
					ph_node_workers(pc, k));
	return split;
}

/* Busy-polling lcores of every process against the CPUs they run on:
 * said when the processes share CPUs, as they must here. */
static void
crowded_say(const struct lca_remote_conf *rc)
{
	unsigned int lcores = 0, cpus = remote_cpus(rc);

	for (unsigned int i = 0; i < rc->n_nodes; i++)
		lcores += rc->nodes[i].n_lcores;
	if (lcores > cpus)
		printf("NOTE: %u busy-polling lcores in %u processes share %u CPUs: each CPU "
		       "runs more than one, so the remote figure is of shared CPUs.\n\n",
		       lcores, rc->n_nodes, cpus);
}

/* The verdict of the remote series: against the local series it is read
 * with, run by run (not interleaved: the local runs come first). */
static int
verdict_remote(json_t *root, const struct runs *rem, const struct runs *base, unsigned int n,
	       const char *config, const char *floor)
{
	static double ratios[MAX_RUNS];
	struct app_stats st;
	struct app_verdict_row row = {
		.config = config, .kind = APP_VERDICT_TIME, .unit = "ms", .floor = floor,
		.ratios = ratios, .n_ratios = n,
	};

	/* The local runs are the floor here: how far they moved. */
	row.floor_moved_pct = app_floor_moved_pct(base->ms, n);
	app_floor_ratios(rem->ms, base->ms, n, ratios);
	if (app_stats_compute(rem->ms, n, CONFIDENCE, &st) < 0)
		return -EINVAL;
	row.score = st.p50;
	row.ci_half = st.p50_error;
	row.window_s = shortest_window_s(rem, n);
	return app_verdict_add(root, &row);
}

/* The series of --remote: on 1 lcore, on this process's lcores, remote. */
static struct ph_run g_runs1[MAX_RUNS], g_runsn[MAX_RUNS], g_runsr[MAX_RUNS];
static struct runs g_r1, g_rn, g_rr;
static struct app_series g_s1, g_sn, g_sr;
static char g_cfg[3][128];

/* One local series of --remote, its result and its verdict row. */
static int
remote_local(json_t *root, const struct ph_conf *pc, const char *name, struct runs *r,
	     struct ph_run *runs, struct app_series *series, char *cfg, unsigned int lcores)
{
	int ret = local_series(pc, name, r, runs, series);
	json_t *res;

	if (ret < 0)
		return ret;
	snprintf(cfg, sizeof(g_cfg[0]), "local, %u workers on %u lcore%s", pc->workers, lcores,
		 lcores > 1 ? "s" : "");
	res = result_json(name, pc, r);
	json_object_set_new(res, "frequency", app_series_freq_json(series));
	app_result_add(root, res);
	return verdict_local(root, cfg, r, pc->runs);
}

/* Both local figures, and the remote one read against @p base. */
static int
remote_answer(json_t *root, const struct app_conf *c, unsigned int n_here, unsigned int cpus,
	      const struct runs *base)
{
	bool like = base == &g_rn;
	json_t *res = result_json("remote", &c->ph, &g_rr);

	json_object_set_new(res, "cpus", json_integer(cpus));
	json_object_set_new(res, "baseline", json_string(like ? "local-n-lcores"
								: "local-1-lcore"));
	json_object_set_new(res, "frequency", app_series_freq_json(&g_sr));
	json_object_set_new(root, "frequency", app_series_freq_json(&g_sr));
	app_result_add(root, res);
	printf("\nLocal on 1 lcore: %.4f ms; local on %u lcores: ", g_r1.average_ms, n_here);
	if (n_here > 1)
		printf("%.4f ms\n", g_rn.average_ms);
	else
		printf("not measured (this process has 1 lcore: give it -l with %u lcores to "
		       "measure a base on as many CPUs as the remote run)\n", cpus);
	/* The base is named in the line itself, and the other local figure
	 * beside it: on a VM the 1-lcore run can be several times faster than
	 * the n-lcore one, so a ratio read without its base misleads. */
	printf("Remote / local = %.4f / %.4f ms = %.1fx local (Akka: 102x); base: the local run "
	       "on %u lcore%s, %s the remote run's %u CPUs; not interleaved (the local runs came "
	       "first)\n",
	       g_rr.average_ms, base->average_ms, g_rr.average_ms / base->average_ms,
	       like ? n_here : 1, like && n_here > 1 ? "s" : "",
	       like ? "as many as" : "fewer than", cpus);
	if (like)
		printf("Remote / local on 1 lcore = %.4f / %.4f ms = %.1fx\n", g_rr.average_ms,
		       g_r1.average_ms, g_rr.average_ms / g_r1.average_ms);
	snprintf(g_cfg[2], sizeof(g_cfg[2]), "remote, %s workers over %s", workers_split(&c->ph),
		 g_pair.transport);
	return verdict_remote(root, &g_rr, base, c->ph.runs, g_cfg[2],
			      like ? "the local run on as many CPUs, in this process (run before "
				     "the remote runs, not interleaved)"
				   : "the local run on 1 lcore, fewer CPUs than the remote run's "
				     "(run before it, not interleaved)");
}

/* A far node of --remote: serve node 1 until it says quit. */
static int
run_peer(const struct app_conf *c, const struct lca_remote_conf *rconf)
{
	struct ph_conf pc = c->ph;
	struct ph_bench *b;
	int ret;

	pc.remote = rconf;
	pc.remote_node = g_pair.self_node;
	ret = ph_bench_create(&pc, &b);
	if (ret < 0)
		return ret;
	ret = ph_bench_serve(b, 0);
	ph_bench_destroy(b);
	return ret == -EINTR ? 0 : ret;
}

/*
 * --remote: local series first, in this process, each with its floor: on
 * one lcore (every actor on the main lcore), and, when this process has
 * more, on all its lcores; then the remote series. The ratio uses the
 * local series on as many CPUs as the remote run used when there is one,
 * the one-lcore series otherwise, and names its base.
 */
static int
run_remote(const struct app_conf *c)
{
	static struct lca_remote_conf rconf;
	struct ph_conf one = c->ph;
	unsigned int n_here = rte_lcore_count(), cpus = 0;
	json_t *root;
	int ret, peer;

	app_pair_conf(&g_pair, &rconf);
	rconf.connect_ms = 30000;
	if (g_pair.is_peer)
		return run_peer(c, &rconf);
	app_report_machine(stdout);
	print_header(&c->ph);
	root = app_result_new(conf_json(c));
	printf("# Local run on 1 lcore first: all %u workers and the master on the main lcore "
	       "of this process.\n", one.workers);
	if (n_here > 1)
		one.placement = LCA_PLACE_PACK;
	ret = remote_local(root, &one, "local-1-lcore", &g_r1, g_runs1, &g_s1, g_cfg[0], 1);
	if (ret == 0 && n_here > 1) {
		printf("# Local run on this process's %u lcores (%s placement).\n", n_here,
		       lca_placement_name(c->ph.placement));
		ret = remote_local(root, &c->ph, "local-n-lcores", &g_rn, g_runsn, &g_sn,
				   g_cfg[1], n_here);
	}
	if (ret == 0) {
		app_pair_set_peer_lcores(&g_pair, c->peer_lcores ? c->peer_lcores : "1");
		app_pair_conf(&g_pair, &rconf);
		rconf.connect_ms = 30000;
		cpus = remote_cpus(&rconf);
		ret = app_pair_spawn(&g_pair);
	}
	if (ret == 0 && c->ph.remote_nodes == 2)
		printf("Remote: %u workers here and %u in the second process (lcores %s), over %s; "
		       "the master here; %u CPUs in all.\n\n",
		       ph_node_workers(&c->ph, 1), ph_node_workers(&c->ph, 2), g_pair.peer_lcores,
		       g_pair.transport, cpus);
	else if (ret == 0)
		printf("Remote: %s workers in %u processes (this one first, the others on lcores "
		       "%s each), each linked to every other over %s; the master here; %u CPUs "
		       "in all.\n\n", workers_split(&c->ph), c->ph.remote_nodes,
		       g_pair.peer_lcores, g_pair.transport, cpus);
	if (ret == 0) {
		crowded_say(&rconf);
		ret = remote_series(c, &rconf, &g_rr, g_runsr, &g_sr);
	}
	if (g_pair.child > 0) {
		peer = app_pair_finish(&g_pair, lca_eal_stop_requested() ? 0 : 5000);
		if (c->ph.remote_nodes == 2)
			printf("Second process exited with status %d\n", peer);
		else
			printf("Other processes exited with status %d\n", peer);
		if (ret == 0 && peer != 0)
			ret = -EIO;
	}
	if (ret == 0)
		ret = remote_answer(root, c, n_here, cpus, n_here > 1 && n_here == cpus ? &g_rn
										       : &g_r1);
	app_series_release(&g_s1);
	app_series_release(&g_sn);
	app_series_release(&g_sr);
	if (app_result_finish(root, ret == 0, c->json_path) < 0 && ret == 0)
		ret = -EIO;
	json_decref(root);
	return ret;
}

static int
run(void *conf)
{
	const struct app_conf *c = conf;
	static struct ph_run runs[MAX_RUNS];
	static struct app_series series;
	static struct runs r;
	const struct ph_conf *pc = &c->ph;
	json_t *root, *result;
	int ret;

	if (c->remote != NULL)
		return run_remote(c);
	app_report_machine(stdout);
	print_header(pc);
	ret = ph_bench_create(pc, &r.b);
	if (ret < 0)
		return ret;
	r.pc = pc;
	r.runs = runs;
	r.with_floor = true;
	r.window_cycles = window_cycles(pc);
	print_date("Start pinging around: ");
	ret = app_series_run(&series, "pinghops", pc->runs, run_one, &r);
	if (ret < 0) {
		ph_bench_destroy(r.b);
		return ret;
	}
	r.average_ms = 0;
	for (unsigned int i = 0; i < pc->runs; i++)
		r.average_ms += r.ms[i] / pc->runs;
	printf("Repetitions reached. Broadcasting shutdown...\n");
	print_date("End: ");
	printf("Average execution time = %.4f ms\n", r.average_ms);
	print_floor(&r, pc->runs);

	print_accounting(pc, runs, pc->runs);
	root = app_result_new(conf_json(c));
	result = result_json("pinghops", pc, &r);
	json_object_set_new(root, "placement", print_placement(r.b, pc));
	printf("\n");
	app_report_actors(stdout);
	printf("\n");
	app_report_lcores(stdout);
	printf("\n");
	app_report_send_errors(stdout);
	printf("\nFrequency during the runs:\n");
	app_series_print_freq(stdout, &series);
	json_object_set_new(result, "frequency", app_series_freq_json(&series));
	json_object_set_new(root, "frequency", app_series_freq_json(&series));
	app_result_add(root, result);
	ph_bench_destroy(r.b);
	app_series_release(&series);
	if (verdict_local(root, "local", &r, pc->runs) < 0)
		ret = -ENOMEM;
	if (app_result_finish(root, ret == 0, c->json_path) < 0 && ret == 0)
		ret = -EIO;
	json_decref(root);
	return ret;
}

int
main(int argc, char **argv)
{
	struct app_conf conf;
	const struct app_spec app = {
		.name = "lca-pinghops", .parse = parse_args, .opts = &table, .run = run,
		.conf = &conf,
	};

	return app_pair_main(argc, argv, &g_pair, &app);
}
