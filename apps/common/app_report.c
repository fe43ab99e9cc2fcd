/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_lcore.h"
#include "app_report.h"
#include "lca_topo.h"

void
app_report_actors(FILE *f)
{
	unsigned int n = lca_actor_count();

	fprintf(f, "%-6s %-12s %5s %12s %12s %8s %8s %8s %6s %10s\n", "actor", "name", "lcore",
		"received", "handled", "sendfail", "rejected", "dropped", "hwm", "cyc/msg");
	for (unsigned int i = 0; i < n; i++) {
		struct lca_actor_stats s;

		if (lca_actor_stats_get(i, &s) != 0)
			continue;
		fprintf(f, "%-6u %-12.12s %5u %12" PRIu64 " %12" PRIu64 " %8" PRIu64 " %8" PRIu64
			   " %8" PRIu64 " %6u %10.1f\n",
			i, lca_actor_name(i), s.lcore, s.received, s.handled, s.send_failures,
			s.rejected, s.dropped_on_stop, s.mailbox_hwm,
			s.timed_msgs ? (double)s.handler_cycles / (double)s.timed_msgs : 0.0);
	}
}

static double
busy_percent(const struct lca_lcore_stats *s)
{
	uint64_t total = s->busy_cycles + s->idle_cycles;

	return total ? 100.0 * (double)s->busy_cycles / (double)total : 0.0;
}

void
app_report_lcores(FILE *f)
{
	unsigned int lcore_id;

	fprintf(f, "%-6s %4s %14s %14s %8s %10s\n", "lcore", "cpu", "turns", "loops", "busy%",
		"sleeps");
	RTE_LCORE_FOREACH(lcore_id) {
		struct lca_lcore_stats s;

		if (lca_lcore_stats_get(lcore_id, &s) != 0)
			continue;
		fprintf(f, "%-6u %4d %14" PRIu64 " %14" PRIu64 " %8.1f %10" PRIu64 "\n", lcore_id,
			lca_topo_lcore_cpu(lcore_id), s.turns, s.loops, busy_percent(&s),
			s.sleeps);
	}
}

void
app_report_send_errors(FILE *f)
{
	struct lca_send_errors e;

	lca_send_errors_get(&e);
	fprintf(f,
		"send failures: mailbox full %" PRIu64 ", no actor %" PRIu64 ", stopped %" PRIu64
		", pool empty %" PRIu64 ", node down %" PRIu64 ", too big %" PRIu64
		", invalid %" PRIu64 ", other %" PRIu64 "\n",
		e.mailbox_full, e.no_actor, e.stopped, e.pool_empty, e.host_down, e.too_big,
		e.invalid, e.other);
	/* Only a -Ddebug_envelopes build catches them; each is in the log. */
	if (e.misuse != 0)
		fprintf(f, "envelope misuse: %" PRIu64 " (freed twice, sent or written after "
			"the free; see the log)\n", e.misuse);
	if (e.packet_misuse != 0)
		fprintf(f, "packet misuse: %" PRIu64 " (freed twice or sent after the free "
			"by a packet handler; see the log)\n", e.packet_misuse);
}

static void
cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(buf, len, "unknown");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) == 0 && colon != NULL) {
			snprintf(buf, len, "%s", colon + 2);
			buf[strcspn(buf, "\n")] = '\0';
			break;
		}
	}
	fclose(f);
}

void
app_report_machine(FILE *f)
{
	char model[256];
	struct utsname u;

	cpu_model(model, sizeof(model));
	uname(&u);
	fprintf(f, "# machine: %s, %ld CPUs online, %s %s %s\n", model,
		sysconf(_SC_NPROCESSORS_ONLN), u.sysname, u.release, u.machine);
	fprintf(f, "# TSC %.3f MHz; %u lcores; EAL: %s%s\n", (double)rte_get_tsc_hz() / 1e6,
		rte_lcore_count(), lca_eal_args(),
		lca_eal_no_huge_fallback() ? " (--no-huge added: no free hugepages)" : "");
}

json_t *
app_report_machine_json(void)
{
	char model[256];
	struct utsname u;

	cpu_model(model, sizeof(model));
	uname(&u);
	return json_pack("{s:s, s:i, s:s, s:s, s:f, s:i, s:s, s:b}", "cpu_model", model,
			 "cpus_online", (int)sysconf(_SC_NPROCESSORS_ONLN), "kernel", u.release,
			 "arch", u.machine, "tsc_mhz", (double)rte_get_tsc_hz() / 1e6, "lcores",
			 (int)rte_lcore_count(), "eal_args", lca_eal_args(), "no_huge_fallback",
			 lca_eal_no_huge_fallback());
}

json_t *
app_report_lcores_json(void)
{
	json_t *arr = json_array();
	unsigned int lcore_id;

	RTE_LCORE_FOREACH(lcore_id) {
		struct lca_lcore_stats s;

		if (lca_lcore_stats_get(lcore_id, &s) != 0)
			continue;
		json_array_append_new(arr, json_pack("{s:i, s:i, s:I, s:I, s:f, s:I}", "lcore",
						     (int)lcore_id, "cpu",
						     lca_topo_lcore_cpu(lcore_id), "turns",
						     (json_int_t)s.turns, "loops", (json_int_t)s.loops,
						     "busy_percent", busy_percent(&s), "sleeps",
						     (json_int_t)s.sleeps));
	}
	return arr;
}

int
app_report_write_json(const char *path, json_t *root)
{
	if (json_dump_file(root, path, JSON_INDENT(2) | JSON_SORT_KEYS) != 0) {
		int err = errno ? errno : EIO;

		fprintf(stderr, "cannot write JSON to %s: %s\n", path, strerror(err));
		return -err;
	}
	return 0;
}
