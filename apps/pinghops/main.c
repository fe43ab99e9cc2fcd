/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lca-pinghops: Akka's random ping with hops (the "local" case), printed as
 * the published run is: one line per run, then the average; then the
 * message accounting of every run, the placement and the frequency report.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "lca_topo.h"
#include "lca_app.h"
#include "lca_cli.h"
#include "lca_eal.h"
#include "lca_freq.h"
#include "lca_freq_json.h"
#include "lca_freq_print.h"
#include "lca_pair.h"
#include "lca_report.h"
#include "lca_result.h"
#include "lca_series.h"
#include "pinghops.h"

#define MAX_WORKERS 1024
#define MAX_RUNS 1000
#define CONFIDENCE 0.999

struct app_conf {
	struct ph_conf ph;
	const char *json_path;
	const char *remote;      /* --remote memif: two processes */
	const char *peer_lcores; /* -l of the second process */
};

/* The second process of --remote, and how this one was started. */
static struct lca_pair g_pair;

static void
usage(const char *prog)
{
	printf("Usage: %s [EAL args] -- [options]\n"
	       "Akka's random ping with hops on lcactor: a master spreads pings over the\n"
	       "workers; a worker sends a ping with hops > 0 on, hops - 1, to a random\n"
	       "worker; at 0 it tells the master. A run ends when the master heard of all.\n"
	       "  --workers N      workers (default 8)\n"
	       "  --pings N        initial pings (default 10000)\n"
	       "  --hops N         hops of each ping (default 100)\n"
	       "  --runs N         repetitions (default 5)\n"
	       "  --seed N         seed of the workers' random streams (default 1)\n"
	       "  --throughput N   messages an actor handles per turn (default 64)\n"
	       "  --placement P    round-robin (default), pack, pairs-local, auto (the runtime\n"
	       "                   moves actors that talk mostly to one peer together)\n"
	       "  --remote T       seed 001's remote case: half the workers in a second process\n"
	       "                   (started and stopped by this one; T: memif, af_packet over\n"
	       "                   a veth pair between two network namespaces (root), or ucx:\n"
	       "                   UCX active messages over 127.0.0.1, UCX_TLS=shm,tcp), the\n"
	       "                   master here; a local run with all the workers here comes\n"
	       "                   first, and the ratio is printed\n"
	       "  --peer-lcores L  -l of the second process (default 1)\n"
	       "  --netem          af_packet: tc netem loss, reorder, duplicate 1%% on the veth\n"
	       "                   (lcactor's injector where the kernel has no netem)\n"
	       "  --json FILE      write every figure as JSON\n"
	       "  --topology       print the lcores' topology and exit\n"
	       "  --help           this text\n",
	       prog);
}

static int
parse_option(void *conf, const char *name, char *val)
{
	struct app_conf *c = conf;
	uint64_t v;
	int ret = 0;

	if (strcmp(name, "workers") == 0) {
		ret = lca_cli_uint(val, 1, MAX_WORKERS, &v);
		c->ph.workers = (unsigned int)v;
	} else if (strcmp(name, "pings") == 0) {
		ret = lca_cli_uint(val, 1, 1000000, &v);
		c->ph.pings = (uint32_t)v;
	} else if (strcmp(name, "hops") == 0) {
		ret = lca_cli_uint(val, 0, 100000000, &v);
		c->ph.hops = (uint32_t)v;
	} else if (strcmp(name, "runs") == 0) {
		ret = lca_cli_uint(val, 1, MAX_RUNS, &v);
		c->ph.runs = (unsigned int)v;
	} else if (strcmp(name, "seed") == 0) {
		ret = lca_cli_uint(val, 0, UINT64_MAX, &c->ph.seed);
	} else if (strcmp(name, "throughput") == 0) {
		ret = lca_cli_uint(val, 1, 1024, &v);
		c->ph.throughput = (unsigned int)v;
	} else if (strcmp(name, "placement") == 0) {
		ret = lca_placement_parse(val, &c->ph.placement);
	} else if (strcmp(name, "remote") == 0) {
		if (strcmp(val, "memif") != 0 && strcmp(val, "af_packet") != 0 &&
		    strcmp(val, "ucx") != 0) {
			fprintf(stderr, "lca-pinghops: --remote %s: the transports are memif, "
				"af_packet and ucx\n", val);
			return -EINVAL;
		}
		c->remote = val;
	} else if (strcmp(name, "netem") == 0 || strcmp(name, "pair-netem-on") == 0) {
		/* lca_pair.h's: the veth's faults. */
	} else if (strcmp(name, "pair-peer") == 0) {
		/* The second process's own argument (lca_pair.h). */
	} else if (strcmp(name, "peer-lcores") == 0) {
		c->peer_lcores = val;
	} else if (strcmp(name, "json") == 0) {
		if (lca_cli_output_path("--json", val) < 0)
			return -EINVAL;
		c->json_path = val;
	} else {
		return -EINVAL;
	}
	if (ret < 0) {
		fprintf(stderr, "lca-pinghops: bad value '%s' for --%s\n", val, name);
		return -EINVAL;
	}
	return 0;
}

static int
parse_args(int argc, char **argv, void *conf)
{
	struct app_conf *c = conf;
	static const struct option opts[] = {
		{ "workers", required_argument, NULL, 0 },
		{ "pings", required_argument, NULL, 0 },
		{ "hops", required_argument, NULL, 0 },
		{ "runs", required_argument, NULL, 0 },
		{ "seed", required_argument, NULL, 0 },
		{ "throughput", required_argument, NULL, 0 },
		{ "placement", required_argument, NULL, 0 },
		{ "json", required_argument, NULL, 0 },
		{ "remote", required_argument, NULL, 0 },
		{ "pair-peer", required_argument, NULL, 0 },
		{ "netem", no_argument, NULL, 0 },
		{ "pair-netem-on", no_argument, NULL, 0 },
		{ "peer-lcores", required_argument, NULL, 0 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	*c = (struct app_conf){
		.ph = { .workers = 8, .pings = 10000, .hops = 100, .runs = 5, .seed = 1,
			.throughput = 64, .placement = LCA_PLACE_ROUND_ROBIN },
	};
	return lca_app_getopt(argc, argv, opts, false, parse_option, usage, c);
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
	return arr;
}

/* The runs of a series, as lca_series_run() calls them. */
struct runs {
	struct ph_bench *b;
	struct ph_run *runs;
	double ms[MAX_RUNS];
	double msgs_per_s[MAX_RUNS];
};

static int
run_one(void *arg, unsigned int i)
{
	struct runs *r = arg;
	struct ph_run *pr = &r->runs[i];
	int ret;

	printf("Master start run #%u\n", i + 1);
	fflush(stdout);
	ret = ph_bench_run(r->b, i, pr);
	if (ret < 0)
		return ret;
	r->ms[i] = (double)pr->cycles * 1e3 / (double)rte_get_tsc_hz();
	r->msgs_per_s[i] = (double)(pr->worker_handled + pr->master_handled) / r->ms[i] * 1e3;
	printf("Run #%u ended! Time = %.3fms\n", i + 1, r->ms[i]);
	return 0;
}

static json_t *
result_json(const struct ph_conf *pc, const struct runs *r, double average_ms)
{
	return json_pack("{s:s, s:o, s:o, s:o, s:f}", "name", "pinghops", "time",
			 lca_result_measure_of(r->ms, pc->runs, CONFIDENCE, "ms"), "throughput",
			 lca_result_measure_of(r->msgs_per_s, pc->runs, CONFIDENCE, "msg/s"),
			 "runs", runs_json(r->runs, pc->runs), "average_ms", average_ms);
}

/* Both runs of --remote: all the workers here, then half here and half in
 * the second process; the ratio of their averages. */
static int
run_remote(const struct app_conf *c)
{
	static struct ph_run runs[MAX_RUNS];
	static struct lca_series series;
	static struct runs r;
	struct lca_remote_conf rconf;
	struct lca_remote_link_stats ls;
	struct ph_conf pc = c->ph;
	double local_ms = 0, remote_ms = 0;
	int ret, peer;

	lca_pair_conf(&g_pair, &rconf);
	rconf.connect_ms = 30000;
	pc.remote = &rconf;
	if (g_pair.is_peer) {
		pc.remote_node = 2;
		ret = ph_bench_create(&pc, &r.b);
		if (ret < 0)
			return ret;
		ret = ph_bench_serve(r.b, 0);
		ph_bench_destroy(r.b);
		return ret == -EINTR ? 0 : ret;
	}
	lca_report_machine(stdout);
	print_header(&c->ph);
	printf("# Local run first: all %u workers and the master in this process (lcores %s).\n",
	       pc.workers, g_pair.self_lcores[0] ? g_pair.self_lcores : "all");
	ret = ph_bench_create(&c->ph, &r.b);
	if (ret < 0)
		return ret;
	r.runs = runs;
	ret = lca_series_run(&series, "pinghops-local", pc.runs, run_one, &r);
	ph_bench_destroy(r.b);
	if (ret < 0) {
		lca_series_release(&series);
		return ret;
	}
	for (unsigned int i = 0; i < pc.runs; i++)
		local_ms += r.ms[i] / pc.runs;
	printf("Average execution time = %.4f ms\n", local_ms);
	printf("Frequency during the local runs:\n");
	lca_series_print_freq(stdout, &series);
	printf("\n");
	lca_series_release(&series);
	lca_pair_set_peer_lcores(&g_pair, c->peer_lcores ? c->peer_lcores : "1");
	ret = lca_pair_spawn(&g_pair);
	if (ret < 0)
		return ret;
	printf("Remote: %u workers here and %u in the second process (lcores %s), over %s; the "
	       "master here.\n\n",
	       (pc.workers + 1) / 2, pc.workers / 2, g_pair.peer_lcores, g_pair.transport);
	pc.remote_node = 1;
	ret = ph_bench_create(&pc, &r.b);
	if (ret == 0) {
		/* The second process starts its EAL and connects first: not
		 * part of any run. */
		for (unsigned int i = 0; i < 3000 && ret == 0; i++) {
			if (lca_remote_link_stats_get(2, &ls) == 0 && ls.connected)
				break;
			ret = lca_runtime_run(10);
			ret = ret == -ETIMEDOUT ? 0 : ret;
		}
		print_date("Start pinging around @ ");
		if (ret == 0)
			ret = lca_series_run(&series, "pinghops-remote", pc.runs, run_one, &r);
		if (ret == 0) {
			for (unsigned int i = 0; i < pc.runs; i++)
				remote_ms += r.ms[i] / pc.runs;
			printf("Repetitions reached. Broadcasting shutdown...\n");
			print_date("End: ");
			printf("Average execution time = %.4f ms\n", remote_ms);
			printf("Frequency during the remote runs (this process's lcores; the "
			       "second process's are its own):\n");
			lca_series_print_freq(stdout, &series);
		}
		ph_bench_quit_peer(r.b);
		if (lca_remote_link_stats_get(2, &ls) == 0)
			printf("\nLink to node 2: %" PRIu64 " msgs sent in %" PRIu64
			       " data frames (%.1f a frame), %" PRIu64 " delivered from it, %" PRIu64
			       " retransmits, %" PRIu64 " duplicates, %" PRIu64 " no-credit "
			       "refusals\n",
			       ls.msgs_sent, ls.frames_sent,
			       ls.frames_sent ? (double)ls.msgs_sent / (double)ls.frames_sent : 0.0,
			       ls.msgs_delivered, ls.retransmits, ls.duplicates, ls.no_credit);
		ph_bench_destroy(r.b);
		lca_series_release(&series);
	}
	peer = lca_pair_finish(&g_pair, lca_eal_stop_requested() ? 0 : 5000);
	printf("Second process exited with status %d\n", peer);
	if (ret == 0 && peer != 0)
		ret = -EIO;
	if (ret == 0)
		printf("\nRemote / local = %.4f / %.4f ms = %.1fx local (Akka, seed 001: 102x)\n",
		       remote_ms, local_ms, remote_ms / local_ms);
	return ret;
}

static int
run(void *conf)
{
	const struct app_conf *c = conf;
	static struct ph_run runs[MAX_RUNS];
	static struct lca_series series;
	static struct runs r;
	const struct ph_conf *pc = &c->ph;
	double total_ms = 0;
	json_t *root, *result;
	int ret;

	if (c->remote != NULL)
		return run_remote(c);
	lca_report_machine(stdout);
	print_header(pc);
	ret = ph_bench_create(pc, &r.b);
	if (ret < 0)
		return ret;
	r.runs = runs;
	print_date("Start pinging around: ");
	ret = lca_series_run(&series, "pinghops", pc->runs, run_one, &r);
	if (ret < 0) {
		ph_bench_destroy(r.b);
		return ret;
	}
	for (unsigned int i = 0; i < pc->runs; i++)
		total_ms += r.ms[i];
	printf("Repetitions reached. Broadcasting shutdown...\n");
	print_date("End: ");
	printf("Average execution time = %.4f ms\n", total_ms / pc->runs);

	print_accounting(pc, runs, pc->runs);
	root = lca_result_new(json_pack("{s:s, s:i, s:I, s:I, s:i, s:I, s:i, s:s}", "benchmark",
					"pinghops", "workers", (int)pc->workers, "pings",
					(json_int_t)pc->pings, "hops", (json_int_t)pc->hops, "runs",
					(int)pc->runs, "seed", (json_int_t)pc->seed, "throughput",
					(int)pc->throughput, "placement",
					lca_placement_name(pc->placement)));
	result = result_json(pc, &r, total_ms / pc->runs);
	json_object_set_new(root, "placement", print_placement(r.b, pc));
	printf("\n");
	lca_report_actors(stdout);
	printf("\n");
	lca_report_lcores(stdout);
	printf("\n");
	lca_report_send_errors(stdout);
	printf("\nFrequency during the runs:\n");
	lca_series_print_freq(stdout, &series);
	json_object_set_new(result, "frequency", lca_series_freq_json(&series));
	json_object_set_new(root, "frequency", lca_series_freq_json(&series));
	lca_result_add(root, result);
	ph_bench_destroy(r.b);
	lca_series_release(&series);
	if (c->json_path != NULL && lca_result_write(root, true, c->json_path) < 0)
		ret = -EIO;
	json_decref(root);
	return ret;
}

int
main(int argc, char **argv)
{
	struct app_conf conf;
	const struct lca_app app = {
		.name = "lca-pinghops", .parse = parse_args, .usage = usage, .run = run,
		.conf = &conf,
	};
	int ret;

	/* --remote memif: this process's vdev, and the second process's
	 * arguments (lca_pair.h). */
	switch (lca_pair_prepare(argc, argv, "1", &g_pair)) {
	case 0:
		break;
	case -EPERM:
		return 77; /* af_packet where namespaces are not allowed: skipped */
	default:
		return 2;
	}
	ret = lca_app_main(g_pair.argc, g_pair.argv, &app);
	lca_pair_release(&g_pair);
	return ret;
}
