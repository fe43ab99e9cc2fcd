/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lca-pipeline: Samza's TestSamzaContainerPerformance (seed 004) as a
 * pipeline of stages, run on lcactor, on DPDK eventdev and as a plain DPDK
 * loop, in turn, on the same lcores, printed side by side in the seed's
 * words: "the test processes N messages in S s".
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eventdev.h>
#include <rte_lcore.h>

#include "lca_actor.h"
#include "lca_app.h"
#include "lca_cli.h"
#include "lca_eal.h"
#include "lca_lcore.h"
#include "lca_port.h"
#include "lca_report.h"
#include "lca_result.h"
#include "lca_series.h"
#include "lca_topo.h"
#include "lca_verdict.h"
#include "pipeline.h"

#define APP "lca-pipeline"
/* The seed's figure: SAMZA-245-3 on a 2-core MacBook Air. */
#define SAMZA_MSG_PER_S 756000.0
/* A run's measured time at least, when --messages is not given. */
#define MIN_WINDOW_S 0.2
#define MAX_PASSES 64
/* Most (stream, partition) counters: each engine keeps its own. */
#define MAX_SSPS (UINT64_C(1) << 22)
#define EVENT_VDEV "event_dsw0"

static struct pl_conf conf;
static bool vdev_added;
static struct pl_lcore lcores_fig[RTE_MAX_LCORE];

static int
parse_engines(char *list)
{
	char *items[8];
	int n = lca_cli_split(list, items, RTE_DIM(items));

	if (n < 0) {
		fprintf(stderr, APP ": bad value for --engine: a comma-separated list of lcactor, "
				"eventdev, plain (--source port also graph, io)\n");
		return -EINVAL;
	}
	conf.n_engines = 0;
	conf.engines_given = true;
	for (int i = 0; i < n; i++) {
		enum pl_engine e;

		for (e = 0; e < PL_ENGINE_COUNT; e++)
			if (strcmp(items[i], pl_engine_name(e)) == 0)
				break;
		if (e == PL_ENGINE_COUNT) {
			fprintf(stderr, APP ": unknown engine '%s' (lcactor, eventdev, plain)\n",
				items[i]);
			return -EINVAL;
		}
		for (unsigned int k = 0; k < conf.n_engines; k++)
			if (conf.engines[k] == e) {
				fprintf(stderr, APP ": engine '%s' twice in --engine\n", items[i]);
				return -EINVAL;
			}
		conf.engines[conf.n_engines++] = e;
	}
	return 0;
}

static int
opt_engines(void *arg, const struct lca_opt *opt, char *val)
{
	(void)arg;
	(void)opt;
	return parse_engines(val) < 0 ? LCA_OPT_SAID : 0;
}

/* --warmup-messages or --warmup-ms, once. */
static int
opt_warmup(void *arg, const struct lca_opt *opt, char *val)
{
	struct pl_conf *c = arg;
	bool ms = strcmp(opt->name, "warmup-ms") == 0;

	if (c->warmup_given) {
		fprintf(stderr, APP ": give --warmup-messages or --warmup-ms, not both\n");
		return LCA_OPT_SAID;
	}
	c->warmup_given = true;
	return lca_cli_uint(val, ms ? 1 : 0, ms ? 3600000 : UINT64_C(1) << 40,
			    ms ? &c->warmup_ms : &c->warmup_messages);
}

static int
opt_mailbox(void *arg, const struct lca_opt *opt, char *val)
{
	uint64_t v;

	(void)opt;
	if (lca_cli_uint(val, 2, 1u << 20, &v) < 0 || !rte_is_power_of_2((uint32_t)v))
		return -EINVAL;
	((struct pl_conf *)arg)->mailbox = (unsigned int)v;
	return 0;
}

static int
add_port(struct pl_conf *c, const char *item)
{
	int r = lca_port_parse_id(item, &c->ports[c->n_ports]);

	if (r < 0) {
		fprintf(stderr, APP ": --port %s: %s\n", item,
			r == -ENODEV ? "no such port (EAL made the ports listed above)" :
				       "not a port id");
		return LCA_OPT_SAID;
	}
	for (unsigned int k = 0; k < c->n_ports; k++)
		if (c->ports[k] == c->ports[c->n_ports]) {
			fprintf(stderr, APP ": port %s twice in --port\n", item);
			return LCA_OPT_SAID;
		}
	c->n_ports++;
	return 0;
}

static int
opt_ports(void *arg, const struct lca_opt *opt, char *val)
{
	struct pl_conf *c = arg;
	char *items[PL_MAX_PORTS];
	int n = lca_cli_split(val, items, RTE_DIM(items)), ret = 0;

	(void)opt;
	if (n <= 0) {
		fprintf(stderr, APP ": bad value for --port: a comma-separated list of port "
				"ids (at most %u)\n", PL_MAX_PORTS);
		return LCA_OPT_SAID;
	}
	c->n_ports = 0;
	for (int i = 0; i < n && ret == 0; i++)
		ret = add_port(c, items[i]);
	return ret;
}

static int
opt_tx_port(void *arg, const struct lca_opt *opt, char *val)
{
	uint16_t id;

	(void)opt;
	if (lca_port_parse_id(val, &id) < 0) {
		fprintf(stderr, APP ": --tx-port %s: no such port\n", val);
		return LCA_OPT_SAID;
	}
	((struct pl_conf *)arg)->tx_port = id;
	return 0;
}

#define AT(field) LCA_OPT_AT(struct pl_conf, field)
#define CHOICES(...) .choices = (const char *const[]){ __VA_ARGS__, NULL }

static const struct lca_opt options[] = {
	{ "source", 0, LCA_OPT_ENUM, AT(source), CHOICES("mock", "port"), .metavar = "S",
	  .help = "mock (default): the mock consumers; port: packets from the\n"
		  "ports EAL created (--vdev net_null0, net_pcap0,rx_pcap=F,\n"
		  "net_memif0, net_ring0, -a NIC): RX -> parse (Ethernet/\n"
		  "IPv4/UDP; the rest is malformed, counted and dropped) ->\n"
		  "count by key (UDP ports) in --partitions stores -> TX" },
	{ "engine", 0, LCA_OPT_CUSTOM, .parse = opt_engines, .metavar = "LIST",
	  .help = "comma-separated, run in this order (default lcactor,plain:\n"
		  "plain is lcactor's floor, run beside it run by run;\n"
		  "--source port: lcactor):\n"
		  "  lcactor   sources are loop hooks, tasks are actors with a\n"
		  "            batch handler\n"
		  "  eventdev  sources enqueue NEW events (flow = partition,\n"
		  "            atomic) into event_dsw; every lcore's port\n"
		  "            dequeues and counts. Needs EAL --vdev event_dsw0:\n"
		  "            added when the EAL arguments have no event_ vdev\n"
		  "  plain     a run-to-completion loop, no actors (SPSC rte_ring\n"
		  "            where a source and its task are on two lcores)\n"
		  "  graph     (--source port) DPDK's librte_graph: RX, parse +\n"
		  "            count, TX nodes walked on each lcore\n"
		  "  io        (--source port) RX straight to TX, no stage:\n"
		  "            the port's ceiling; every engine prints its share" },
	{ "streams", 0, LCA_OPT_UINT, AT(streams), .min = 1, .max = PL_MAX_STREAMS,
	  .metavar = "N", .help = "input streams (default 1000)" },
	{ "partitions", 0, LCA_OPT_UINT, AT(partitions), .min = 1, .max = PL_MAX_PARTITIONS,
	  .metavar = "N", .help = "partitions of each stream, one task each (default 4)" },
	{ "batch", 0, LCA_OPT_UINT, AT(batch), .min = 1, .max = UINT32_MAX, .metavar = "N",
	  .help = "messages a mock consumer hands over at once (default 5000)" },
	{ "messages", 0, LCA_OPT_UINT, AT(messages), .min = 1, .max = UINT64_C(1) << 40,
	  LCA_OPT_GIVEN(struct pl_conf, messages_given), .metavar = "N",
	  .help = "messages in all, warm-up included (default 10000000; without\n"
		  "--messages a run repeats them until it measured 200 ms)" },
	{ "warmup-messages", 0, LCA_OPT_CUSTOM, .parse = opt_warmup, .metavar = "N",
	  .help = "messages processed before the measurement starts\n"
		  "(default a tenth of --messages)" },
	{ "warmup-ms", 0, LCA_OPT_CUSTOM, .parse = opt_warmup, .metavar = "MS",
	  .help = "or: warm up for MS milliseconds instead" },
	{ "layout", 0, LCA_OPT_ENUM, AT(layout), CHOICES("local", "cross"), .metavar = "L",
	  .help = "local (default): a partition's source on its task's lcore;\n"
		  "cross: on the next lcore, so every message crosses lcores" },
	{ "burst", 0, LCA_OPT_UINT, AT(burst), .min = 1, .max = PL_MAX_BURST, .metavar = "N",
	  .help = "most messages a source puts out at once (default 64, max "
		  RTE_STR(PL_MAX_BURST) ")" },
	{ "throughput", 0, LCA_OPT_UINT, AT(throughput), .min = 1, .max = PL_MAX_BURST,
	  .metavar = "N",
	  .help = "most messages a task takes at once (default 64, max " RTE_STR(PL_MAX_BURST) ")" },
	{ "mailbox", 0, LCA_OPT_CUSTOM, .parse = opt_mailbox, .metavar = "N",
	  .help = "a task's mailbox, the plain hand-off ring (power of 2,\ndefault 1024)",
	  .why = "a power of two, 2 to 1048576" },
	{ "watermark", 0, LCA_OPT_UINT, AT(watermark), .min = 1, .max = 1u << 20, .metavar = "N",
	  .help = "backlog at which a source stops for a partition (default\n"
		  "half the mailbox; eventdev: partitions x N new events)" },
	{ "runs", 0, LCA_OPT_UINT, AT(runs), .min = 1, .max = PL_MAX_RUNS, .metavar = "N",
	  .help = "runs of each engine, interleaved (default 1)" },
	{ "timeout", 0, LCA_OPT_UINT, AT(timeout_s), .min = 1, .max = 86400, .metavar = "SEC",
	  .help = "give up on a run after SEC seconds (default 120)" },
	{ "json", 0, LCA_OPT_OUTPUT, AT(json_path), .metavar = "FILE",
	  .help = "write every figure as JSON (docs/json.md)" },
	{ "port", 0, LCA_OPT_CUSTOM, .parse = opt_ports, .metavar = "LIST",
	  .heading = "--source port only (--messages: packets to take in all; --partitions: "
		     "stores,\nand lcactor's worker actors):",
	  .help = "RX ports by id, comma-separated (default: every port)" },
	{ "tx-port", 0, LCA_OPT_CUSTOM, .parse = opt_tx_port, .metavar = "N",
	  .help = "send every counted packet out of port N (default: out of\n"
		  "the port it came in by)" },
	{ "sink", 0, LCA_OPT_ENUM, AT(sink), CHOICES("tx", "drop"), .metavar = "S",
	  .help = "tx (default): out of a port; drop: free them" },
	{ "rxq", 0, LCA_OPT_UINT, AT(rxq), .min = 1, .max = 65535, .metavar = "N",
	  .help = "RX queues a port (default: one per lcore, at most what the\n"
		  "PMD has; at most one per lcore)" },
	{ "mbufs", 0, LCA_OPT_UINT, AT(mbufs), .min = 1, .max = UINT32_MAX, .metavar = "N",
	  .help = "mbufs in a port's pool (default: what the rings, caches\n"
		  "and bursts need, plus 8192)" },
	{ "idle", 0, LCA_OPT_CUSTOM, AT(idle), .parse = lca_app_opt_idle, .metavar = "P",
	  .help = "lcactor's idle policy: spin (default), pause, sleep",
	  .why = "spin, pause or sleep" },
	{ "duration-ms", 0, LCA_OPT_UINT, AT(duration_ms), .min = 1, .max = 86400000,
	  .metavar = "MS", .help = "stop RX after MS (with no --messages: run this long)" },
	{ "null-frames", 0, LCA_OPT_ENUM, AT(null_zero), CHOICES("udp", "zero"), .metavar = "F",
	  .help = "udp (default): net_null's pool is written once with UDP\n"
		  "frames, so they parse; zero: left zeroed (all malformed)" },
	{ "keys", 0, LCA_OPT_OUTPUT, AT(keys_path), .metavar = "FILE",
	  .help = "write the counts by key of every run (engine run key count)" },
	{ "partition-by", 0, LCA_OPT_ENUM, AT(partition_rxq), CHOICES("key", "rxq"),
	  .metavar = "P",
	  .help = "key (default): lcactor sends a packet to its key's partition,\n"
		  "wherever that is; rxq: to one of the partitions on the\n"
		  "lcore that received it, chosen by key, as RSS keeps a flow\n"
		  "on one queue (plain counts where it receives, always)" },
	{ NULL },
};

static const struct lca_opt_table table = {
	.prog = APP, .opts = options, .eal = true,
	.about = "Samza's TestSamzaContainerPerformance (SAMZA-245, seed 004): a stream container\n"
		 "consumes --messages from --streams x --partitions stream partitions, each with a\n"
		 "mock consumer that hands over batches of --batch messages; one task per partition\n"
		 "counts what it processes, by stream. Prints \"the test processes N messages in S s\"\n"
		 "after a warm-up, per stage and per lcore msg/s, the message accounting (exact: every\n"
		 "message produced is processed, every stream partition in offset order) and each\n"
		 "core's clock verdict, for each engine in turn on the same lcores.\n",
	.footer = "Partition p's task runs on the p-th enabled lcore, round-robin. Every lcore polls\n"
		  "busily: give it no more lcores than CPUs.\n",
};

static bool
has_engine(enum pl_engine e)
{
	for (unsigned int i = 0; i < conf.n_engines; i++)
		if (conf.engines[i] == e)
			return true;
	return false;
}

/* What only the whole command line can tell. */
static int
check_conf(struct pl_conf *c)
{
	if (c->source == PL_SOURCE_PORT) {
		/* The port runs keep their default engine: plain beside it is
		 * asked for with --engine (its verdict says so). */
		if (!c->engines_given)
			c->n_engines = 1;
		if (c->rxq > rte_lcore_count()) {
			fprintf(stderr, APP ": --rxq %u: at most one RX queue a port on each lcore "
					"(%u lcores)\n", c->rxq, rte_lcore_count());
			return -EINVAL;
		}
		if (c->duration_ms != 0 && !c->messages_given && !c->warmup_given) {
			c->warmup_ms = c->duration_ms / 10 ? c->duration_ms / 10 : 1;
			c->warmup_given = true;
		}
	} else if (has_engine(PL_ENGINE_GRAPH) || has_engine(PL_ENGINE_IO)) {
		fprintf(stderr, APP ": --engine graph and io go with --source port\n");
		return -EINVAL;
	} else if (c->n_ports || c->tx_port >= 0 || c->sink != PL_SINK_TX || c->rxq || c->mbufs ||
		   c->idle || c->duration_ms || c->null_zero || c->keys_path || c->partition_rxq) {
		fprintf(stderr, APP ": --port, --tx-port, --sink, --rxq, --mbufs, --idle, "
				"--duration-ms, --null-frames, --keys and --partition-by go with "
				"--source port\n");
		return -EINVAL;
	}
	if (!c->warmup_given)
		c->warmup_messages = c->messages / 10;
	if (c->warmup_ms == 0 && c->warmup_messages >= c->messages) {
		fprintf(stderr, APP ": --warmup-messages %" PRIu64 " leaves nothing of --messages %"
				PRIu64 " to measure\n", c->warmup_messages, c->messages);
		return -EINVAL;
	}
	if (c->watermark == 0)
		c->watermark = c->mailbox / 2;
	if (c->watermark >= c->mailbox) {
		fprintf(stderr, APP ": --watermark %u must be below --mailbox %u\n", c->watermark,
			c->mailbox);
		return -EINVAL;
	}
	if ((uint64_t)c->streams * c->partitions > MAX_SSPS) {
		fprintf(stderr, APP ": --streams x --partitions = %" PRIu64 " stream partitions, "
				"more than the %" PRIu64 " counters a task state may hold\n",
			(uint64_t)c->streams * c->partitions, MAX_SSPS);
		return -EINVAL;
	}
	if (c->layout == PL_LAYOUT_CROSS && rte_lcore_count() < 2) {
		fprintf(stderr, APP ": --layout cross needs two lcores or more (EAL -l)\n");
		return -EINVAL;
	}
	if (rte_lcore_count() > 64) {
		fprintf(stderr, APP ": %u lcores: at most 64 (one event port each)\n",
			rte_lcore_count());
		return -EINVAL;
	}
	if (has_engine(PL_ENGINE_EVENTDEV) && rte_event_dev_count() == 0) {
		fprintf(stderr, APP ": --engine eventdev: no event device; give EAL --vdev "
				EVENT_VDEV "\n");
		return -EINVAL;
	}
	return 0;
}

static int
parse_args(int argc, char **argv, void *arg)
{
	struct pl_conf *c = arg;
	int ret;

	*c = (struct pl_conf){
		.source = PL_SOURCE_MOCK,
		.engines = { PL_ENGINE_LCACTOR, PL_ENGINE_PLAIN },
		.n_engines = 2,
		.streams = 1000,
		.partitions = 4,
		.batch = 5000,
		.messages = 10000000,
		.burst = 64,
		.throughput = 64,
		.mailbox = 1024,
		.layout = PL_LAYOUT_LOCAL,
		.runs = 1,
		.timeout_s = 120,
		.tx_port = -1,
		.sink = PL_SINK_TX,
	};
	ret = lca_opt_parse(argc, argv, &table, c, NULL);
	if (ret == 0)
		ret = check_conf(c);
	return ret;
}

/* Partition p's task on the p-th lcore, round-robin; its source there
 * (local) or on the next lcore (cross). */
static void
place(void)
{
	const struct pl_conf *c = &conf;
	unsigned int lcore_id;

	pl.conf = c;
	pl.src = &pl_source_mock;
	pl.lc = lcores_fig;
	pl.n_lcores = 0;
	RTE_LCORE_FOREACH(lcore_id)
		pl.lcores[pl.n_lcores++] = lcore_id;
	for (uint32_t p = 0; p < c->partitions; p++) {
		unsigned int t = p % pl.n_lcores;
		unsigned int s = c->layout == PL_LAYOUT_LOCAL ? t : (t + 1) % pl.n_lcores;
		struct pl_lcore *tl = &pl.lc[pl.lcores[t]], *sl = &pl.lc[pl.lcores[s]];

		pl.task_lcore[p] = pl.lcores[t];
		pl.src_lcore[p] = pl.lcores[s];
		tl->task_part[tl->n_task++] = p;
		sl->src_part[sl->n_src++] = p;
	}
}

/* Quotas, once the source knows its partitions. */
static void
set_quotas(void)
{
	pl.lcores_busy = 0;
	for (unsigned int i = 0; i < pl.n_lcores; i++) {
		struct pl_lcore *l = &pl.lc[pl.lcores[i]];

		l->quota_process = l->quota_produce = 0;
		for (unsigned int k = 0; k < l->n_task; k++)
			l->quota_process += pl.src->quota(l->task_part[k]);
		for (unsigned int k = 0; k < l->n_src; k++)
			l->quota_produce += pl.src->quota(l->src_part[k]);
		pl.lcores_busy += l->quota_process > 0;
	}
}

static void
print_header(const struct pl_conf *c)
{
	printf("# " APP ": Samza's TestSamzaContainerPerformance (SAMZA-245, seed 004).\n"
	       "#   %" PRIu32 " input streams x %" PRIu32 " partitions = %" PRIu64 " stream "
	       "partitions, each with a mock consumer that hands\n#   over batches of %" PRIu32
	       " messages; the chooser takes one message at a time from a partition's streams\n"
	       "#   in turn (Samza's round-robin chooser); one task per partition counts what it "
	       "processes, by stream.\n#   %" PRIu64 " messages in all.\n",
	       c->streams, c->partitions, (uint64_t)c->streams * c->partitions, c->batch,
	       c->messages);
	if (c->warmup_ms != 0)
		printf("# Warm-up: %" PRIu64 " ms, then measured to the last message counted.\n",
		       c->warmup_ms);
	else
		printf("# Warm-up: until %" PRIu64 " messages are processed, then measured to the "
		       "last message counted.\n", c->warmup_messages);
	printf("# Time: TSC, from the warm-up's end (the first lcore to see it) to the last "
	       "message counted on any lcore;\n#   N = messages counted after each lcore saw "
	       "the warm-up end.\n");
	printf("# A source puts out at most %u messages at once and stops for a partition whose "
	       "backlog reaches %u\n#   (tasks' mailboxes and hand-off rings: %u); a task takes "
	       "at most %u at once.\n",
	       c->burst, c->watermark, c->mailbox, c->throughput);
	printf("# Engines, in turn on the same lcores:");
	for (unsigned int i = 0; i < c->n_engines; i++)
		printf("%s %s", i ? "," : "", pl_engine_name(c->engines[i]));
	printf("; %u run%s each.\n", c->runs, c->runs > 1 ? "s" : "");
	if (vdev_added)
		printf("# EAL: added --vdev " EVENT_VDEV " for --engine eventdev (no event_ vdev "
		       "was given).\n");
}

static json_t *
print_placement(const struct pl_conf *c)
{
	json_t *arr = json_array();
	unsigned int cpus_used = 0;
	int seen[RTE_MAX_LCORE];

	printf("\nPlacement (layout %s: %s):\n", c->layout == PL_LAYOUT_LOCAL ? "local" : "cross",
	       c->layout == PL_LAYOUT_LOCAL ? "each partition's source on its task's lcore"
					    : "each partition's source on the next lcore");
	printf("%-9s %-7s %-10s %4s %4s %-12s %8s %12s\n", "partition", "task", "task lcore",
	       "cpu", "node", "source lcore", "streams", "messages");
	for (uint32_t p = 0; p < c->partitions; p++) {
		unsigned int tl = pl.task_lcore[p];
		int cpu = lca_topo_lcore_cpu(tl);
		char actor[16] = "-";

		if (has_engine(PL_ENGINE_LCACTOR))
			snprintf(actor, sizeof(actor), "%u", pl_lcactor_task(p));
		if (p < 64 || p == c->partitions - 1)
			printf("%-9u %-7s %-10u %4d %4u %-12u %8u %12" PRIu64 "\n", p, actor, tl, cpu,
			       rte_lcore_to_socket_id(tl), pl.src_lcore[p], c->streams,
			       pl.src->quota(p));
		else if (p == 64)
			printf("...\n");
		if (has_engine(PL_ENGINE_LCACTOR)) {
			char role[48];

			snprintf(role, sizeof(role), "task p%u, source on lcore %u", p,
				 pl.src_lcore[p]);
			json_array_append_new(arr, json_pack("{s:i, s:i, s:i, s:i, s:s}", "actor",
							     (int)pl_lcactor_task(p), "lcore",
							     (int)tl, "cpu", cpu, "node",
							     (int)rte_lcore_to_socket_id(tl), "role",
							     role));
		}
	}
	printf("lcores:");
	for (unsigned int i = 0; i < pl.n_lcores; i++) {
		int cpu = lca_topo_lcore_cpu(pl.lcores[i]);
		bool dup = false;

		for (unsigned int k = 0; k < i; k++)
			dup |= seen[k] == cpu;
		seen[i] = cpu;
		cpus_used += !dup;
		printf(" %u (cpu %d: %u source%s, %u task%s)", pl.lcores[i], cpu,
		       pl.lc[pl.lcores[i]].n_src, pl.lc[pl.lcores[i]].n_src == 1 ? "" : "s",
		       pl.lc[pl.lcores[i]].n_task, pl.lc[pl.lcores[i]].n_task == 1 ? "" : "s");
	}
	printf("; every engine polls all %u busily\n", pl.n_lcores);
	if (cpus_used < pl.n_lcores || pl.n_lcores > (unsigned int)rte_lcore_count() ||
	    (long)pl.n_lcores > sysconf(_SC_NPROCESSORS_ONLN))
		printf("WARNING: %u busy-polling lcores on %u CPUs (%ld online): they take turns on "
		       "a CPU, so the figures are not per core\n",
		       pl.n_lcores, cpus_used, sysconf(_SC_NPROCESSORS_ONLN));
	return arr;
}

/* 12345678 as "12,345,678", the seed's way of writing rates. */
static const char *
grouped(uint64_t v, char *buf, size_t len)
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

static const char *
engine_what(enum pl_engine e)
{
	switch (e) {
	case PL_ENGINE_LCACTOR:
		return "sources are loop hooks, tasks are actors with a batch handler";
	case PL_ENGINE_EVENTDEV:
		return "sources enqueue NEW events (flow = partition, atomic), each lcore's port "
		       "dequeues and counts";
	case PL_ENGINE_PLAIN:
		return "a run-to-completion loop per lcore, no actors";
	default:
		return "";
	}
}

static void
print_result(const struct pl_result *r, unsigned int run, unsigned int pass)
{
	const struct pl_conf *c = &conf;
	const char *name = pl_engine_name(r->engine);
	char a[32];

	printf("\n== %s, run %u of %u", name, run + 1, c->runs);
	if (pass > 0)
		printf(", pass %u", pass + 1);
	printf(": %s", engine_what(r->engine));
	if (r->engine == PL_ENGINE_EVENTDEV)
		printf(" (%s, new-event threshold %u)", pl_eventdev_driver(), pl_eventdev_threshold());
	printf(" ==\n");
	if (r->measured_s > 0)
		printf("%s: after the initial warm-up (~%.3fs), the test processes %" PRIu64
		       " messages in %.3fs (%.3fs-%.3fs). This comes out to ~%s messages/sec "
		       "(%" PRIu64 "/%.3f).\n",
		       name, r->warm_s, r->measured, r->measured_s, r->end_s, r->warm_s,
		       grouped((uint64_t)(r->msg_per_s + 0.5), a, sizeof(a)), r->measured,
		       r->measured_s);
	else
		printf("%s: nothing measured: the run ended (%s) before the warm-up did\n", name,
		       r->status == 0 ? "done" : strerror(-r->status));
	printf("  %-7s %14s  %s\n", "stage", "msg/s", "(after the warm-up)");
	printf("  %-7s %14.0f  mock consumers: %" PRIu64 " batches of up to %u handed over\n",
	       "source", r->source_msg_per_s, pl.src->polls(), c->batch);
	printf("  %-7s %14.0f  count by stream\n", "task", r->msg_per_s);
	printf("  %-5s %4s %12s %12s %14s %10s %10s\n", "lcore", "cpu", "produced", "processed",
	       "msg/s counted", "held", "refused");
	for (unsigned int i = 0; i < pl.n_lcores; i++) {
		unsigned int lc = pl.lcores[i];
		const struct pl_fig *f = &r->lc[lc];
		double rate;

		rate = pl_fig_rate(f);
		printf("  %-5u %4d %12" PRIu64 " %12" PRIu64 " %14.0f %10" PRIu64 " %10" PRIu64 "\n",
		       lc, lca_topo_lcore_cpu(lc), f->produced, f->processed, rate, f->held,
		       f->refused);
	}
	printf("  accounting: produced %" PRIu64 " = processed %" PRIu64 " + in flight %" PRIu64
	       " (of %" PRIu64 "): %s; %" PRIu64 " (stream, partition) counts off, %" PRIu64
	       " out of offset order%s\n",
	       r->produced, r->processed, r->in_flight, c->messages,
	       r->exact ? "exact" : "NOT EXACT", r->count_errors, r->out_of_order,
	       r->pool_empty ? ", pool empty" : "");
}

static json_t *
result_run_json(const struct pl_result *r, unsigned int run, unsigned int pass)
{
	json_t *lcs = json_array();

	for (unsigned int i = 0; i < pl.n_lcores; i++) {
		unsigned int lc = pl.lcores[i];
		const struct pl_fig *f = &r->lc[lc];
		double rate;

		rate = pl_fig_rate(f);
		json_array_append_new(lcs, json_pack("{s:i, s:i, s:I, s:I, s:f, s:I, s:I, s:I}",
						     "lcore", (int)lc, "cpu",
						     lca_topo_lcore_cpu(lc), "produced",
						     (json_int_t)f->produced, "processed",
						     (json_int_t)f->processed, "msg_per_s", rate,
						     "held", (json_int_t)f->held, "refused",
						     (json_int_t)f->refused, "loops",
						     (json_int_t)f->loops));
	}
	return json_pack("{s:i, s:i, s:s, s:I, s:I, s:I, s:I, s:f, s:f, s:f, s:f, s:f, s:I, s:I, "
			 "s:I, s:I, s:b, s:o}",
			 "run", (int)run + 1, "pass", (int)pass + 1, "status",
			 r->status == 0 ? "done" : strerror(-r->status), "produced",
			 (json_int_t)r->produced, "processed", (json_int_t)r->processed,
			 "in_flight", (json_int_t)r->in_flight, "measured",
			 (json_int_t)r->measured, "warmup_s", r->warm_s, "end_s", r->end_s,
			 "measured_s", r->measured_s, "msg_per_s", r->msg_per_s,
			 "source_msg_per_s", r->source_msg_per_s, "out_of_order",
			 (json_int_t)r->out_of_order, "count_errors", (json_int_t)r->count_errors,
			 "pool_empty", (json_int_t)r->pool_empty, "polls",
			 (json_int_t)pl.src->polls(), "exact", r->exact, "lcores", lcs);
}

static struct pl_engine_runs by_engine[PL_ENGINE_COUNT];
static struct pl_result result;

static void
print_side_by_side(json_t *root)
{
	char what[64];

	snprintf(what, sizeof(what), "%" PRIu64 " messages", conf.messages);
	pl_report_side_by_side(root, &conf, by_engine, what, "msg/s");
	/* A 2014 figure from another machine: shown as the seed's, never
	 * divided into this run's, which are judged against plain. */
	printf("The seed's figure, not a ratio to this run: Samza's container in SAMZA-245-3 (a "
	       "2-core MacBook Air, 2014) processed ~%.0f messages/sec.\n", SAMZA_MSG_PER_S);
}

/* The window of engine @p e's run @p run, and whether it is too short. */
static void
print_window(enum pl_engine e, unsigned int run)
{
	const struct pl_engine_runs *er = &by_engine[e];
	double tick = lca_verdict_tick_s(), w = er->measured_s[er->n - 1];

	printf("  window: %s run %u measured %.1f ms over %u pass%s of --messages", pl_engine_name(e),
	       run + 1, w * 1e3, er->passes[er->n - 1], er->passes[er->n - 1] > 1 ? "es" : "");
	if (w < LCA_VERDICT_MIN_TICKS * tick)
		printf(": shorter than %d scheduler ticks (%.0f ms), too short to measure well; "
		       "give more --messages", LCA_VERDICT_MIN_TICKS, LCA_VERDICT_MIN_TICKS * tick * 1e3);
	printf("\n");
}

/* The verdict: a row per engine, lcactor's against plain run by run. */
static int
add_verdicts(json_t *root)
{
	return pl_report_verdicts(root, &conf, by_engine, "M msg/s");
}

static int run_engine(enum pl_engine e, struct pl_result *r);

/*
 * Run @p run of engine @p e: passes of --messages, each counted exactly,
 * until their measured time together is MIN_WINDOW_S when --messages was
 * not given (the default's 10 M take 14-42 ms at 200-600 M msg/s, one or
 * two scheduler ticks), under one frequency series.
 */
static int
run_passes(enum pl_engine e, unsigned int run, struct lca_freq_total *all, bool *ok)
{
	const struct pl_conf *c = &conf;
	struct pl_engine_runs *er = &by_engine[e];
	static struct lca_series series;
	json_t *passes = json_array(), *freq, *p;
	uint64_t measured = 0;
	double measured_s = 0;
	unsigned int pass = 0;
	char label[48], verdict[320];
	size_t k;
	int ret;

	snprintf(label, sizeof(label), "%s run %u", pl_engine_name(e), run + 1);
	fflush(stdout);
	lca_series_begin(&series, label, 0);
	do {
		ret = run_engine(e, &result);
		if (ret == -ETIMEDOUT)
			fprintf(stderr, APP ": %s not done after %" PRIu64 " s (--timeout)\n",
				label, c->timeout_s);
		print_result(&result, run, pass);
		json_array_append_new(passes, result_run_json(&result, run, pass));
		*ok &= result.exact;
		if (ret == 0 && result.measured_s <= 0) {
			fprintf(stderr, APP ": %s ended before its warm-up did: nothing "
					"measured (shorten the warm-up)\n", label);
			*ok = false;
			break;
		}
		measured += result.measured;
		measured_s += result.measured_s;
		pass++;
	} while (ret == 0 && result.exact && !c->messages_given && measured_s < MIN_WINDOW_S &&
		 pass < MAX_PASSES);
	lca_series_end(&series);
	lca_series_verdict_text(&series, verdict, sizeof(verdict));
	printf("  clock: %s\n", verdict);
	lca_series_print_freq(stdout, &series);
	lca_freq_total_add(&er->freq, &series);
	lca_freq_total_add(all, &series);
	freq = lca_series_freq_json(&series);
	json_array_foreach(passes, k, p)
		json_object_set(p, "frequency", freq);
	json_decref(freq);
	json_array_extend(er->runs, passes);
	json_decref(passes);
	lca_series_release(&series);
	if (ret == 0 && measured_s > 0 && pass > 0) {
		er->v[er->n] = (double)measured / measured_s;
		er->measured_s[er->n] = measured_s;
		er->passes[er->n] = pass;
		er->n++;
		print_window(e, run);
	}
	return ret;
}

static int
run_engine(enum pl_engine e, struct pl_result *r)
{
	memset(r, 0, sizeof(*r));
	r->engine = e;
	switch (e) {
	case PL_ENGINE_LCACTOR:
		return pl_lcactor_run(r);
	case PL_ENGINE_EVENTDEV:
		return pl_eventdev_run(r);
	case PL_ENGINE_PLAIN:
		return pl_plain_run(r);
	default:
		return -EINVAL;
	}
}

static int
setup_engines(void)
{
	int ret = 0;

	for (unsigned int i = 0; i < conf.n_engines && ret == 0; i++) {
		switch (conf.engines[i]) {
		case PL_ENGINE_LCACTOR:
			ret = pl_lcactor_setup();
			break;
		case PL_ENGINE_EVENTDEV:
			ret = pl_eventdev_setup();
			break;
		case PL_ENGINE_PLAIN:
			ret = pl_plain_setup();
			break;
		default:
			ret = -EINVAL;
		}
	}
	return ret;
}

static void
teardown_engines(void)
{
	if (has_engine(PL_ENGINE_EVENTDEV))
		pl_eventdev_teardown();
	if (has_engine(PL_ENGINE_PLAIN))
		pl_plain_teardown();
	if (has_engine(PL_ENGINE_LCACTOR))
		pl_lcactor_teardown();
	pl.src->teardown();
}

static json_t *
conf_json(const struct pl_conf *c)
{
	json_t *engines = json_array(), *map = json_array();

	for (unsigned int i = 0; i < c->n_engines; i++)
		json_array_append_new(engines, json_string(pl_engine_name(c->engines[i])));
	for (uint32_t p = 0; p < c->partitions; p++)
		json_array_append_new(map, json_pack("{s:i, s:i, s:i}", "partition", (int)p,
						     "source_lcore", (int)pl.src_lcore[p],
						     "task_lcore", (int)pl.task_lcore[p]));
	return json_pack("{s:s, s:s, s:o, s:i, s:i, s:I, s:i, s:I, s:I, s:I, s:i, s:i, s:i, "
			 "s:i, s:s, s:i, s:I, s:b, s:s, s:o}",
			 "benchmark", "samza-container", "source", pl.src->name, "engines",
			 engines, "streams", (int)c->streams, "partitions", (int)c->partitions,
			 "stream_partitions", (json_int_t)c->streams * c->partitions, "batch",
			 (int)c->batch, "messages", (json_int_t)c->messages, "warmup_messages",
			 (json_int_t)(c->warmup_ms ? 0 : c->warmup_messages), "warmup_ms",
			 (json_int_t)c->warmup_ms, "burst", (int)c->burst, "throughput",
			 (int)c->throughput, "mailbox", (int)c->mailbox, "watermark",
			 (int)c->watermark, "layout",
			 c->layout == PL_LAYOUT_LOCAL ? "local" : "cross", "runs", (int)c->runs,
			 "timeout_s", (json_int_t)c->timeout_s, "eventdev_vdev_added",
			 vdev_added, "eventdev_driver",
			 has_engine(PL_ENGINE_EVENTDEV) ? pl_eventdev_driver() : "",
			 "partition_lcores", map);
}

static int
run(void *arg)
{
	const struct pl_conf *c = arg;
	struct lca_freq_total all = { 0 };
	json_t *root = NULL, *placement;
	bool ok = true;
	int ret;

	if (c->source == PL_SOURCE_PORT)
		return pl_port_main(c, vdev_added);
	place();
	ret = pl.src->setup(c, pl.src_lcore);
	if (ret < 0)
		return ret;
	set_quotas();
	lca_report_machine(stdout);
	print_header(c);
	ret = setup_engines();
	if (ret < 0) {
		teardown_engines();
		return ret;
	}
	placement = print_placement(c);
	for (unsigned int i = 0; i < c->n_engines; i++)
		by_engine[c->engines[i]].runs = json_array();
	for (unsigned int run = 0; run < c->runs && ret == 0; run++)
		for (unsigned int i = 0; i < c->n_engines && ret == 0; i++)
			ret = run_passes(c->engines[i], run, &all, &ok);
	root = lca_result_new(conf_json(c));
	json_object_set_new(root, "placement", placement);
	if (ret == 0)
		print_side_by_side(root);
	printf("\nFrequency over every run:\n");
	lca_freq_total_print(stdout, "All engines' runs together:", &all);
	json_object_set_new(root, "frequency", lca_freq_total_json(&all));
	if (has_engine(PL_ENGINE_LCACTOR)) {
		printf("\nlcactor's runtime after its last run:\n");
		lca_report_actors(stdout);
		lca_report_lcores(stdout);
		lca_report_send_errors(stdout);
	}
	if (ret == 0 && !ok) {
		fprintf(stderr, APP ": the accounting is not exact\n");
		ret = -EIO;
	}
	if (ret == 0 && add_verdicts(root) < 0)
		ret = -ENOMEM;
	if (lca_result_finish(root, ret == 0, c->json_path) < 0 && ret == 0)
		ret = -EIO;
	json_decref(root);
	for (unsigned int i = 0; i < PL_ENGINE_COUNT; i++) {
		json_decref(by_engine[i].runs);
		by_engine[i].runs = NULL;
	}
	teardown_engines();
	return ret;
}

/* --engine's value among the app's arguments (after "--"), or NULL. */
static const char *
engine_arg(int argc, char **argv, int sep)
{
	const char *v = NULL;

	for (int i = sep + 1; i < argc; i++) {
		if (strcmp(argv[i], "--engine") == 0 && i + 1 < argc)
			v = argv[i + 1];
		else if (strncmp(argv[i], "--engine=", 9) == 0)
			v = argv[i] + 9;
	}
	return v;
}

int
main(int argc, char **argv)
{
	const struct lca_app app = {
		.name = APP, .parse = parse_args, .opts = &table, .run = run, .conf = &conf,
	};
	char **args = argv;
	int sep = -1, ret;

	for (int i = 1; i < argc && sep < 0; i++)
		if (strcmp(argv[i], "--") == 0)
			sep = i;
	/* --engine eventdev needs an event device: add event_dsw's vdev to
	 * EAL's arguments when they name no event_ vdev (and say so). */
	if (sep > 0) {
		const char *engines = engine_arg(argc, argv, sep);
		bool vdev = false;

		for (int i = 1; i < sep; i++)
			vdev |= (strcmp(argv[i], "--vdev") == 0 && i + 1 < sep &&
				 strncmp(argv[i + 1], "event_", 6) == 0) ||
				strncmp(argv[i], "--vdev=event_", 13) == 0;
		if (engines != NULL && strstr(engines, "eventdev") != NULL && !vdev) {
			args = calloc((size_t)argc + 3, sizeof(*args));
			if (args == NULL)
				return 1;
			memcpy(args, argv, sizeof(*args) * (size_t)sep);
			args[sep] = (char *)(uintptr_t)"--vdev";
			args[sep + 1] = (char *)(uintptr_t)EVENT_VDEV;
			memcpy(args + sep + 2, argv + sep, sizeof(*args) * (size_t)(argc - sep));
			argc += 2;
			vdev_added = true;
		}
	}
	ret = lca_app_main(argc, args, &app);
	if (args != argv)
		free(args);
	return ret;
}
