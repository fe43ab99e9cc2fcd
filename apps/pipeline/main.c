/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lca-pipeline: Samza's TestSamzaContainerPerformance (seed 004) as a
 * pipeline of stages, run on lcactor, on DPDK eventdev and as a plain DPDK
 * loop, in turn, on the same lcores, printed side by side in the seed's
 * words: "the test processes N messages in S s".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eventdev.h>
#include <rte_lcore.h>

#include "app_main.h"
#include "app_cli.h"
#include "lca_port.h"
#include "pipeline.h"

#define APP "lca-pipeline"
/* Most (stream, partition) counters: each engine keeps its own. */
#define MAX_SSPS (UINT64_C(1) << 22)
#define EVENT_VDEV "event_dsw0"

static struct pl_conf conf;
static bool vdev_added;

static int
parse_engines(char *list)
{
	char *items[8];
	int n = app_cli_split(list, items, RTE_DIM(items));

	if (n < 0) {
		fprintf(stderr, APP ": bad value for --engine: a comma-separated list of lcactor, "
				"eventdev, plain (--source port also graph, io, ring)\n");
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
			fprintf(stderr, APP ": unknown engine '%s' (lcactor, eventdev, plain; "
					"--source port also graph, io, ring, embedded, service, graph-actors)\n",
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
opt_engines(void *arg, const struct app_opt *opt, char *val)
{
	(void)arg;
	(void)opt;
	return parse_engines(val) < 0 ? APP_OPT_SAID : 0;
}

/* --warmup-messages or --warmup-ms, once. */
static int
opt_warmup(void *arg, const struct app_opt *opt, char *val)
{
	struct pl_conf *c = arg;
	bool ms = strcmp(opt->name, "warmup-ms") == 0;

	if (c->warmup_given) {
		fprintf(stderr, APP ": give --warmup-messages or --warmup-ms, not both\n");
		return APP_OPT_SAID;
	}
	c->warmup_given = true;
	return app_cli_uint(val, ms ? 1 : 0, ms ? 3600000 : UINT64_C(1) << 40,
			    ms ? &c->warmup_ms : &c->warmup_messages);
}

static int
opt_mailbox(void *arg, const struct app_opt *opt, char *val)
{
	uint64_t v;

	(void)opt;
	if (app_cli_uint(val, 2, 1u << 20, &v) < 0 || !rte_is_power_of_2((uint32_t)v))
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
		return APP_OPT_SAID;
	}
	for (unsigned int k = 0; k < c->n_ports; k++)
		if (c->ports[k] == c->ports[c->n_ports]) {
			fprintf(stderr, APP ": port %s twice in --port\n", item);
			return APP_OPT_SAID;
		}
	c->n_ports++;
	return 0;
}

static int
opt_ports(void *arg, const struct app_opt *opt, char *val)
{
	struct pl_conf *c = arg;
	char *items[PL_MAX_PORTS];
	int n = app_cli_split(val, items, RTE_DIM(items)), ret = 0;

	(void)opt;
	if (n <= 0) {
		fprintf(stderr, APP ": bad value for --port: a comma-separated list of port "
				"ids (at most %u)\n", PL_MAX_PORTS);
		return APP_OPT_SAID;
	}
	c->n_ports = 0;
	for (int i = 0; i < n && ret == 0; i++)
		ret = add_port(c, items[i]);
	return ret;
}

static int
opt_tx_port(void *arg, const struct app_opt *opt, char *val)
{
	uint16_t id;

	(void)opt;
	if (lca_port_parse_id(val, &id) < 0) {
		fprintf(stderr, APP ": --tx-port %s: no such port\n", val);
		return APP_OPT_SAID;
	}
	((struct pl_conf *)arg)->tx_port = id;
	return 0;
}

#define AT(field) APP_OPT_AT(struct pl_conf, field)
#define CHOICES(...) .choices = (const char *const[]){ __VA_ARGS__, NULL }

static const struct app_opt options[] = {
	{ "source", 0, APP_OPT_ENUM, AT(source), CHOICES("mock", "port"), .metavar = "S",
	  .help = "mock (default): the mock consumers; port: packets from the\n"
		  "ports EAL created (--vdev net_null0, net_pcap0,rx_pcap=F,\n"
		  "net_memif0, net_ring0, -a NIC): RX -> parse (Ethernet/\n"
		  "IPv4/UDP; the rest is malformed, counted and dropped) ->\n"
		  "count by key (UDP ports) in --partitions stores -> TX" },
	{ "engine", 0, APP_OPT_CUSTOM, .parse = opt_engines, .metavar = "LIST",
	  .help = "comma-separated, run in this order (default lcactor,plain:\n"
		  "plain is lcactor's floor, run beside it run by run;\n"
		  "--source port: lcactor):\n"
		  "  lcactor   sources are loop hooks, tasks are actors (--carrier)\n"
		  "  eventdev  sources enqueue NEW events (flow = partition,\n"
		  "            atomic) into event_dsw; every lcore's port\n"
		  "            dequeues and counts. Needs EAL --vdev event_dsw0:\n"
		  "            added when the EAL arguments have no event_ vdev\n"
		  "  plain     a run-to-completion loop, no actors (SPSC rte_ring\n"
		  "            where a source and its task are on two lcores)\n"
		  "  graph     (--source port) DPDK's librte_graph: RX, parse +\n"
		  "            count, TX nodes walked on each lcore\n"
		  "  io        (--source port) RX straight to TX, no stage:\n"
		  "            the port's ceiling; every engine prints its share\n"
		  "  ring      (--source port) plain's stages, each packet sent to\n"
		  "            its partition's lcore (--partition-by) over an SPSC\n"
		  "            rte_ring: lcactor's hand-offs without the runtime,\n"
		  "            and lcactor's floor when it runs\n"
		  "  embedded  (--source port) lcactor's engine driven by the\n"
		  "            application's own loop on each lcore, calling\n"
		  "            lca_runtime_poll()\n"
		  "  service   (--source port) lcactor's engine as rte_services:\n"
		  "            the worker lcores made service lcores for the run,\n"
		  "            each running its lcactor_lcore_N service; the main\n"
		  "            lcore runs its own from its loop\n"
		  "  graph-actors (--source port) graph with its count stage\n"
		  "            in lcactor's worker actors, reached through\n"
		  "            lcactor's graph nodes and back" },
	{ "streams", 0, APP_OPT_UINT, AT(streams), .min = 1, .max = PL_MAX_STREAMS,
	  .metavar = "N", .help = "input streams (default 1000)" },
	{ "partitions", 0, APP_OPT_UINT, AT(partitions), .min = 1, .max = PL_MAX_PARTITIONS,
	  .metavar = "N", .help = "partitions of each stream, one task each (default 4)" },
	{ "batch", 0, APP_OPT_UINT, AT(batch), .min = 1, .max = UINT32_MAX, .metavar = "N",
	  .help = "messages a mock consumer hands over at once (default 5000)" },
	{ "messages", 0, APP_OPT_UINT, AT(messages), .min = 1, .max = UINT64_C(1) << 40,
	  APP_OPT_GIVEN(struct pl_conf, messages_given), .metavar = "N",
	  .help = "messages in all, warm-up included (default 10000000; without\n"
		  "--messages a run repeats them until it measured 200 ms)" },
	{ "warmup-messages", 0, APP_OPT_CUSTOM, .parse = opt_warmup, .metavar = "N",
	  .help = "messages processed before the measurement starts\n"
		  "(default a tenth of --messages)" },
	{ "warmup-ms", 0, APP_OPT_CUSTOM, .parse = opt_warmup, .metavar = "MS",
	  .help = "or: warm up for MS milliseconds instead" },
	{ "layout", 0, APP_OPT_ENUM, AT(layout), CHOICES("local", "cross"), .metavar = "L",
	  .help = "local (default): a partition's source on its task's lcore;\n"
		  "cross: on the next lcore, so every message crosses lcores" },
	{ "carrier", 0, APP_OPT_ENUM, AT(carrier), CHOICES("mbuf", "envelope"),
	  APP_OPT_GIVEN(struct pl_conf, carrier_given), .metavar = "C",
	  .help = "what carries a record through lcactor (--source mock):\n"
		  "mbuf (default): the record in the private area of an mbuf\n"
		  "taken from a pool as plain takes its buffers, its pointer on\n"
		  "the packet lane (lca_send_packets(), tasks with on_packets);\n"
		  "envelope: the record in an envelope (lca_msg_alloc_bulk(),\n"
		  "lca_send_burst_rtc(), tasks with a batch handler)" },
	{ "burst", 0, APP_OPT_UINT, AT(burst), .min = 1, .max = PL_MAX_BURST, .metavar = "N",
	  .help = "most messages a source puts out at once (default 64, max "
		  RTE_STR(PL_MAX_BURST) ")" },
	{ "throughput", 0, APP_OPT_UINT, AT(throughput), .min = 1, .max = PL_MAX_BURST,
	  .metavar = "N",
	  .help = "most messages a task takes at once (default 64, max " RTE_STR(PL_MAX_BURST) ")" },
	{ "mailbox", 0, APP_OPT_CUSTOM, .parse = opt_mailbox, .metavar = "N",
	  .help = "a task's mailbox, the plain hand-off ring (power of 2,\ndefault 1024)",
	  .why = "a power of two, 2 to 1048576" },
	{ "watermark", 0, APP_OPT_UINT, AT(watermark), .min = 1, .max = 1u << 20, .metavar = "N",
	  .help = "backlog at which a source stops for a partition (default\n"
		  "half the mailbox; eventdev: partitions x N new events)" },
	{ "runs", 0, APP_OPT_UINT, AT(runs), .min = 1, .max = PL_MAX_RUNS, .metavar = "N",
	  .help = "runs of each engine, interleaved (default 1)" },
	{ "timeout", 0, APP_OPT_UINT, AT(timeout_s), .min = 1, .max = 86400, .metavar = "SEC",
	  .help = "give up on a run after SEC seconds (default 120)" },
	{ "json", 0, APP_OPT_OUTPUT, AT(json_path), .metavar = "FILE",
	  .help = "write every figure as JSON (docs/json.md)" },
	{ "port", 0, APP_OPT_CUSTOM, .parse = opt_ports, .metavar = "LIST",
	  .heading = "--source port only (--messages: packets to take in all; --partitions: "
		     "stores,\nand lcactor's worker actors):",
	  .help = "RX ports by id, comma-separated (default: every port)" },
	{ "tx-port", 0, APP_OPT_CUSTOM, .parse = opt_tx_port, .metavar = "N",
	  .help = "send every counted packet out of port N (default: out of\n"
		  "the port it came in by)" },
	{ "sink", 0, APP_OPT_ENUM, AT(sink), CHOICES("tx", "drop"), .metavar = "S",
	  .help = "tx (default): out of a port; drop: free them" },
	{ "rxq", 0, APP_OPT_UINT, AT(rxq), .min = 1, .max = 65535, .metavar = "N",
	  .help = "RX queues a port (default: one per lcore, at most what the\n"
		  "PMD has; at most one per lcore)" },
	{ "mbufs", 0, APP_OPT_UINT, AT(mbufs), .min = 1, .max = UINT32_MAX, .metavar = "N",
	  .help = "mbufs in a port's pool (default: what the rings, caches\n"
		  "and bursts need, plus 8192)" },
	{ "idle", 0, APP_OPT_CUSTOM, AT(idle), .parse = app_opt_idle, .metavar = "P",
	  .help = "lcactor's idle policy: spin (default), pause, sleep",
	  .why = "spin, pause or sleep" },
	{ "duration-ms", 0, APP_OPT_UINT, AT(duration_ms), .min = 1, .max = 86400000,
	  .metavar = "MS", .help = "stop RX after MS (with no --messages: run this long)" },
	{ "null-frames", 0, APP_OPT_ENUM, AT(null_zero), CHOICES("udp", "zero"), .metavar = "F",
	  .help = "udp (default): net_null's pool is written once with UDP\n"
		  "frames, so they parse; zero: left zeroed (all malformed)" },
	{ "keys", 0, APP_OPT_OUTPUT, AT(keys_path), .metavar = "FILE",
	  .help = "write the counts by key of every run (engine run key count)" },
	{ "partition-by", 0, APP_OPT_ENUM, AT(partition_rxq), CHOICES("key", "rxq"),
	  .metavar = "P",
	  .help = "key (default): lcactor sends a packet to its key's partition,\n"
		  "wherever that is; rxq: to one of the partitions on the\n"
		  "lcore that received it, chosen by key, as RSS keeps a flow\n"
		  "on one queue (plain counts where it receives, always)" },
	{ NULL },
};

static const struct app_opt_table table = {
	.prog = APP, .opts = options, .eal = true,
	.about = "Samza's TestSamzaContainerPerformance (SAMZA-245): a stream container\n"
		 "consumes --messages from --streams x --partitions stream partitions, each with a\n"
		 "mock consumer that hands over batches of --batch messages; one task per partition\n"
		 "counts what it processes, by stream. Prints \"the test processes N messages in S s\"\n"
		 "after a warm-up, per stage and per lcore msg/s, the message accounting (exact: every\n"
		 "message produced is processed, every stream partition in offset order) and each\n"
		 "core's clock verdict, for each engine in turn on the same lcores.\n",
	.footer = "Partition p's task runs on the p-th enabled lcore, round-robin. Every lcore polls\n"
		  "busily: give it no more lcores than CPUs.\n",
};

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
		if (c->carrier_given) {
			fprintf(stderr, APP ": --carrier goes with --source mock (--source port's "
					"packets are their own mbufs)\n");
			return -EINVAL;
		}
	} else if (pl_has_engine(&conf, PL_ENGINE_GRAPH) || pl_has_engine(&conf, PL_ENGINE_IO) ||
		   pl_has_engine(&conf, PL_ENGINE_RING) || pl_has_engine(&conf, PL_ENGINE_EMBEDDED) ||
		   pl_has_engine(&conf, PL_ENGINE_SERVICE) ||
		   pl_has_engine(&conf, PL_ENGINE_GRAPH_ACTORS)) {
		fprintf(stderr, APP ": --engine graph, io, ring, embedded, service and graph-actors "
				"go with --source port\n");
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
	if (pl_has_engine(&conf, PL_ENGINE_EVENTDEV) && rte_event_dev_count() == 0) {
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
	ret = app_opt_parse(argc, argv, &table, c, NULL);
	if (ret == 0)
		ret = check_conf(c);
	return ret;
}

static int
run(void *arg)
{
	const struct pl_conf *c = arg;

	return pl_driver_main(c, c->source == PL_SOURCE_PORT ? &pl_source_port : &pl_source_mock,
			      vdev_added);
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
	const struct app_spec app = {
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
	ret = app_main(argc, args, &app);
	if (args != argv)
		free(args);
	return ret;
}
