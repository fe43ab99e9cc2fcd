/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The mock source for the driver (struct pl_source, pl_driver.c): the
 * placement of each partition's task and mock consumer, the header, one
 * pass of --messages on an engine, and its figures printed and as JSON.
 * The mock consumers themselves are pl_feed_mock.c's; the engines are
 * pl_lcactor.c, pl_eventdev.c and pl_plain.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_lcore.h>

#include "lca_topo.h"
#include "pipeline.h"

#define APP "lca-pipeline"
#define EVENT_VDEV "event_dsw0"
/* The seed's figure: SAMZA-245-3 on a 2-core MacBook Air. A 2014 figure
 * from another machine: shown as the seed's, never divided into this
 * run's, which are judged against plain. */
#define SAMZA_MSG_PER_S "756000"

static struct pl_lcore lcores_fig[RTE_MAX_LCORE];
static struct pl_result result;

/* Partition p's task on the p-th lcore, round-robin; its source there
 * (local) or on the next lcore (cross). */
static void
place(const struct pl_conf *c)
{
	unsigned int lcore_id;

	pl.conf = c;
	pl.feed = &pl_feed_mock;
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
			l->quota_process += pl.feed->quota(l->task_part[k]);
		for (unsigned int k = 0; k < l->n_src; k++)
			l->quota_produce += pl.feed->quota(l->src_part[k]);
		pl.lcores_busy += l->quota_process > 0;
	}
}

static void
print_header(const struct pl_conf *c)
{
	printf("# " APP ": Samza's TestSamzaContainerPerformance (SAMZA-245).\n"
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
	if (pl_has_engine(c, PL_ENGINE_LCACTOR))
		printf("# lcactor carries each record %s (--carrier %s).\n",
		       c->carrier == PL_CARRIER_MBUF ?
		       "in an mbuf's private area, its pointer on the packet lane; the mbufs "
		       "come from\n#   a pool on the source's node and go back to it in bulk, as "
		       "plain's buffers do" :
		       "in an envelope's inline data, on the message path",
		       pl_carrier_name(c->carrier));
	if (pl.vdev_added)
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

		if (pl_has_engine(c, PL_ENGINE_LCACTOR))
			snprintf(actor, sizeof(actor), "%u", pl_lcactor_task(p));
		if (p < 64 || p == c->partitions - 1)
			printf("%-9u %-7s %-10u %4d %4u %-12u %8u %12" PRIu64 "\n", p, actor, tl, cpu,
			       rte_lcore_to_socket_id(tl), pl.src_lcore[p], c->streams,
			       pl.feed->quota(p));
		else if (p == 64)
			printf("...\n");
		if (pl_has_engine(c, PL_ENGINE_LCACTOR)) {
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

static void
print_result(unsigned int run, unsigned int pass)
{
	const struct pl_result *r = &result;
	const struct pl_conf *c = pl.conf;
	const char *name = pl_engine_name(r->engine);
	char a[32];

	printf("\n== %s, run %u of %u", name, run + 1, c->runs);
	if (pass > 0)
		printf(", pass %u", pass + 1);
	printf(": %s", pl_engine_what(PL_SOURCE_MOCK, r->engine));
	if (r->engine == PL_ENGINE_LCACTOR)
		printf(" (records in %ss)", pl_carrier_name(c->carrier));
	if (r->engine == PL_ENGINE_EVENTDEV)
		printf(" (%s, new-event threshold %u)", pl_eventdev_driver(), pl_eventdev_threshold());
	printf(" ==\n");
	if (r->measured_s > 0)
		printf("%s: after the initial warm-up (~%.3fs), the test processes %" PRIu64
		       " messages in %.3fs (%.3fs-%.3fs). This comes out to ~%s messages/sec "
		       "(%" PRIu64 "/%.3f).\n",
		       name, r->warm_s, r->measured, r->measured_s, r->end_s, r->warm_s,
		       pl_grouped((uint64_t)(r->msg_per_s + 0.5), a, sizeof(a)), r->measured,
		       r->measured_s);
	else
		printf("%s: nothing measured: the run ended (%s) before the warm-up did\n", name,
		       r->status == 0 ? "done" : strerror(-r->status));
	printf("  %-7s %14s  %s\n", "stage", "msg/s", "(after the warm-up)");
	printf("  %-7s %14.0f  mock consumers: %" PRIu64 " batches of up to %u handed over\n",
	       "source", r->source_msg_per_s, pl.feed->polls(), c->batch);
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
result_run_json(unsigned int run, unsigned int pass)
{
	const struct pl_result *r = &result;
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
			 (json_int_t)pl.feed->polls(), "exact", r->exact, "lcores", lcs);
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
setup_engines(const struct pl_conf *c)
{
	int ret = 0;

	for (unsigned int i = 0; i < c->n_engines && ret == 0; i++) {
		switch (c->engines[i]) {
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
	const struct pl_conf *c = pl.conf;

	if (pl_has_engine(c, PL_ENGINE_EVENTDEV))
		pl_eventdev_teardown();
	if (pl_has_engine(c, PL_ENGINE_PLAIN))
		pl_plain_teardown();
	if (pl_has_engine(c, PL_ENGINE_LCACTOR))
		pl_lcactor_teardown();
	pl.feed->teardown();
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
			 "s:i, s:s, s:s, s:i, s:I, s:b, s:s, s:o}",
			 "benchmark", "samza-container", "source", pl_source_mock.name, "engines",
			 engines, "streams", (int)c->streams, "partitions", (int)c->partitions,
			 "stream_partitions", (json_int_t)c->streams * c->partitions, "batch",
			 (int)c->batch, "messages", (json_int_t)c->messages, "warmup_messages",
			 (json_int_t)(c->warmup_ms ? 0 : c->warmup_messages), "warmup_ms",
			 (json_int_t)c->warmup_ms, "burst", (int)c->burst, "throughput",
			 (int)c->throughput, "mailbox", (int)c->mailbox, "watermark",
			 (int)c->watermark, "layout",
			 c->layout == PL_LAYOUT_LOCAL ? "local" : "cross", "carrier",
			 pl_carrier_name(c->carrier), "runs", (int)c->runs,
			 "timeout_s", (json_int_t)c->timeout_s, "eventdev_vdev_added",
			 pl.vdev_added, "eventdev_driver",
			 pl_has_engine(c, PL_ENGINE_EVENTDEV) ? pl_eventdev_driver() : "",
			 "partition_lcores", map);
}


static int
mock_setup(const struct pl_conf *c)
{
	int ret;

	place(c);
	ret = pl.feed->setup(c, pl.src_lcore);
	if (ret == 0)
		set_quotas();
	return ret;
}

static int
mock_run(enum pl_engine e, unsigned int run, unsigned int pass, struct pl_outcome *o)
{
	(void)run;
	(void)pass;
	o->status = run_engine(e, &result);
	o->exact = result.exact;
	o->warm_missed = result.measured_s <= 0;
	o->measured = result.measured;
	o->measured_s = result.measured_s;
	return o->status;
}

static void
mock_what(const struct pl_conf *c, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 " messages", c->messages);
}

const struct pl_source pl_source_mock = {
	.name = "mock",
	.unit = "msg/s",
	.unit_m = "M msg/s",
	.not_exact = "the accounting is not exact",
	.passes = true,
	.setup = mock_setup,
	.print_header = print_header,
	.start = setup_engines,
	.placement = print_placement,
	.run = mock_run,
	.print_run = print_result,
	.run_json = result_run_json,
	.conf_json = conf_json,
	.what = mock_what,
	.note = "The published figure, not a ratio to this run: Samza's container in SAMZA-245-3 (a "
		"2-core MacBook Air, 2014) processed ~" SAMZA_MSG_PER_S " messages/sec.",
	.teardown = teardown_engines,
};
