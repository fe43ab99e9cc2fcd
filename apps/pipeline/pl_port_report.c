/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --source port's report: the header, the placement, each run printed and
 * as JSON (docs/json.md), the settings as JSON and the counts by key.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "lca_actor.h"
#include "lca_mempool.h"
#include "app_series.h"
#include "lca_topo.h"
#include "pl_port.h"
#include "pl_stages.h"

static bool
has_lcactor_engine(void)
{
	for (unsigned int i = 0; i < pp.conf->n_engines; i++)
		if (pl_engine_is_lcactor(pp.conf->engines[i]))
			return true;
	return false;
}

void
pl_port_print_header(void)
{
	const struct pl_conf *c = pp.conf;
	double load[3] = { 0 };
	FILE *f = fopen("/proc/loadavg", "r");

	if (f != NULL) {
		if (fscanf(f, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3)
			load[0] = -1;
		fclose(f);
	}
	printf("# " APP " --source port: RX -> parse (Ethernet/IPv4/UDP; anything else is "
	       "malformed, dropped by policy)\n#   -> keyed count (key = UDP sport<<16 | dport; "
	       "%u partition stores of %u slots) -> %s.\n",
	       pl_n_parts, PL_STORE_SLOTS,
	       c->sink == PL_SINK_TX ? (c->tx_port >= 0 ? "TX out of --tx-port" :
						       "TX out of the port it came in by")
				     : "drop (--sink drop)");
	if (pp.quota_total != UINT64_MAX)
		printf("# A run takes %" PRIu64 " packets (split over %u RX queues)%s, then stops "
		       "RX and drains.\n", pp.quota_total, pp.n_rxqs,
		       c->duration_ms ? " or runs --duration-ms" : "");
	else
		printf("# A run takes packets for %" PRIu64 " ms, then stops RX and drains.\n",
		       c->duration_ms);
	if (has_lcactor_engine())
		printf("#   lcactor: lca_port's RX takes whole bursts; it stops at the burst that "
		       "reaches its queue's quota, so it may take up to a burst-1 more.\n");
	printf("# Warm-up: ");
	if (c->warmup_ms)
		printf("%" PRIu64 " ms", c->warmup_ms);
	else
		printf("until %" PRIu64 " packets are counted", c->warmup_messages);
	printf("; then measured to the last packet counted. Burst %u, worker throughput %u, "
	       "mailbox %u, watermark %u.\n", c->burst, c->throughput, c->mailbox, c->watermark);
	printf("# Load average before the run: %.2f %.2f %.2f on %ld CPUs%s\n", load[0], load[1],
	       load[2], sysconf(_SC_NPROCESSORS_ONLN),
	       load[0] > 0.5 ? " (other jobs share the machine: the figures are theirs too)" : "");
	if (pl.vdev_added)
		printf("# EAL: added --vdev event_dsw0 for --engine eventdev.\n");
	for (unsigned int i = 0; i < pp.n_ports; i++) {
		const struct port_info *p = &pp.ports[i];

		printf("# port %u (%s, %s): %s, %u RX and %u TX queues, %u/%u descriptors%s\n",
		       p->id, p->name, p->driver, p->rx ? "RX" : "TX only (--tx-port)", p->n_rxq,
		       p->n_txq, p->rx_desc, p->tx_desc,
		       p->tx_shared ? "; fewer TX queues than lcores: plain and eventdev lcores "
				      "share one under a lock" : "");
		if (p->is_null)
			printf("#   net_null hands out the pool's mbufs as they are (copy=0): %s\n",
			       c->null_zero ? "left zeroed (--null-frames zero), so every frame is "
					      "malformed"
					    : "each mbuf is written once with a UDP frame (1024 keys, "
					      "by mbuf index), so every frame parses (--null-frames "
					      "udp); with copy=1 they would be zeroed: malformed");
	}
}

json_t *
pl_port_print_placement(void)
{
	json_t *arr = json_array();
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int cpus_used = 0;
	int seen[RTE_MAX_LCORE];

	printf("\nPlacement (%u lcore%s on %ld online CPU%s):\n", pl.n_lcores,
	       pl.n_lcores > 1 ? "s" : "", cpus, cpus > 1 ? "s" : "");
	for (unsigned int i = 0; i < pl.n_lcores; i++) {
		unsigned int lc = pl.lcores[i];
		int cpu = lca_topo_lcore_cpu(lc);
		bool dup = false;

		for (unsigned int k = 0; k < i; k++)
			dup |= seen[k] == cpu;
		seen[i] = cpu;
		cpus_used += !dup;
		printf("  lcore %u (cpu %d, node %u): RX", lc, cpu, rte_lcore_to_socket_id(lc));
		for (unsigned int k = 0; k < pp.n_rxqs; k++)
			if (pp.rxqs[k].lcore == lc)
				printf(" port %u q%u", pp.rxqs[k].port, pp.rxqs[k].queue);
		printf("; lcactor workers");
		for (uint32_t p = 0; p < pl_n_parts; p++)
			if (pl.task_lcore[p] == lc) {
				printf(" p%u", p);
				if (pl_port_lca_worker(p) != LCA_ACTOR_NONE) {
					char role[48];

					snprintf(role, sizeof(role), "worker p%u", p);
					json_array_append_new(arr, json_pack(
						"{s:i, s:i, s:i, s:i, s:s}", "actor", (int)pl_port_lca_worker(p),
						"lcore", (int)lc, "cpu", cpu, "node",
						(int)rte_lcore_to_socket_id(lc), "role", role));
				}
			}
		printf("; TX queue %u of each port; plain: counts its own RX queue's packets\n",
		       i);
	}
	printf("  Every engine polls all %u lcore%s busily (lcactor: --idle %s).", pl.n_lcores,
	       pl.n_lcores > 1 ? "s" : "", lca_idle_policy_name((enum lca_idle_policy)pp.conf->idle));
	if ((long)pl.n_lcores >= cpus)
		printf(" %u busy lcores on %ld CPUs: nothing is left for the kernel or other jobs, "
		       "which take turns with them;\n  a run on fewer lcores than CPUs (plain on "
		       "one lcore) has a CPU to spare for them.\n", pl.n_lcores, cpus);
	else
		printf(" %ld CPUs, %u busy: %ld left for the kernel and other jobs.\n", cpus,
		       pl.n_lcores, cpus - (long)pl.n_lcores);
	if (cpus_used < pl.n_lcores || (long)pl.n_lcores > cpus)
		printf("WARNING: %u busy-polling lcores on %u CPUs (%ld online): they take turns on "
		       "a CPU, so the figures are not per core\n", pl.n_lcores, cpus_used, cpus);
	return arr;
}

void
pl_port_print_run(const struct port_run *r, unsigned int run)
{
	const char *name = pl_engine_name(r->engine);
	char a[32];

	printf("\n== %s, run %u of %u: %s ==\n", name, run + 1, pp.conf->runs,
	       pl_engine_what(PL_SOURCE_PORT, r->engine));
	if (r->measured_s > 0)
		printf("%s: after the warm-up (~%.3fs), %" PRIu64 " packets counted in %.3fs "
		       "(%.3fs-%.3fs): ~%s packets/sec\n", name, r->warm_s, r->measured,
		       r->measured_s, r->warm_s, r->end_s,
		       pl_grouped((uint64_t)(r->pkt_per_s + 0.5), a, sizeof(a)));
	else
		printf("%s: nothing measured: the run ended (%s) before the warm-up did%s\n", name,
		       r->status == 0 ? "done" : strerror(-r->status),
		       r->rx == 0 ? " (no packet came)" : "");
	printf("  %-7s %14s  %s\n", "stage", "pkt/s", "(after the warm-up)");
	printf("  %-7s %14.0f  taken from %u RX queue%s\n", "rx", r->rx_per_s, pp.n_rxqs,
	       pp.n_rxqs == 1 ? "" : "s");
	printf("  %-7s %14.0f  Ethernet/IPv4/UDP; %" PRIu64 " malformed in all, dropped by "
	       "policy\n", "parse", r->pkt_per_s, r->malformed);
	printf("  %-7s %14.0f  %" PRIu64 " keys in %s%s\n", "count", r->pkt_per_s, r->keys,
	       r->engine == PL_ENGINE_IO	 ? "no store (io: no stage; counted = forwarded)" :
	       lcore_stores(r->engine) ? "the lcores' stores" : "the partitions' stores",
	       r->overflow ? " (SOME KEYS FOUND A STORE FULL)" : "");
	if (pp.conf->sink == PL_SINK_TX)
		printf("  %-7s %14.0f  sent %" PRIu64 " (mean over the measured time)\n", "tx",
		       r->measured_s > 0 ? (double)r->tx * r->measured / (r->processed ? r->processed : 1) / r->measured_s : 0,
		       r->tx);
	else
		printf("  %-7s %14s  --sink drop\n", "drop", "-");
	printf("  %-5s %4s %12s %10s %12s %12s %12s %10s %14s %6s\n", "lcore", "cpu", "rx",
	       "malformed", "counted", "forwarded", "tx", "tx_drop", "pkt/s counted", "busy%");
	for (unsigned int i = 0; i < pl.n_lcores; i++) {
		unsigned int lc = pl.lcores[i];
		const struct pl_fig *f = &r->lc[lc];
		double rate;
		char busy[16] = "-";

		rate = pl_fig_rate(f);
		if (r->busy_known)
			snprintf(busy, sizeof(busy), "%.1f", r->busy_pct[lc]);
		printf("  %-5u %4d %12" PRIu64 " %10" PRIu64 " %12" PRIu64 " %12" PRIu64
		       " %12" PRIu64 " %10" PRIu64 " %14.0f %6s\n", lc, lca_topo_lcore_cpu(lc),
		       f->produced, f->malformed, f->processed, f->forwarded, f->tx, f->tx_dropped,
		       rate, busy);
	}
	if (!r->busy_known)
		printf("  (busy%%: %s polls busily, with no idle policy: 100%% of its lcores)\n",
		       name);
	printf("  accounting: rx %" PRIu64 " = counted %" PRIu64 " + dropped by policy (malformed) "
	       "%" PRIu64 " + in flight %" PRIu64 "; port rx %" PRIu64 "; ",
	       r->rx, r->processed, r->malformed, r->in_flight, r->port_rx);
	if (pp.conf->sink == PL_SINK_TX)
		printf("forwarded %" PRIu64 " = tx %" PRIu64 " + tx_dropped %" PRIu64
		       " (refused by a TX actor's mailbox: %" PRIu64 "): ", r->forwarded, r->tx,
		       r->tx_dropped, r->sink_refused);
	printf("%s\n", r->exact ? "exact" : "NOT EXACT");
	for (unsigned int i = 0; i < pp.n_ports; i++)
		printf("  pool of port %u: %" PRIu64 " of %" PRIu64 " mbufs back%s\n", pp.ports[i].id,
		       r->pool_avail[i], r->pool_size[i],
		       r->pool_avail[i] == r->pool_size[i] ? " (full)" : " (SOME ARE OUT)");
	if (pl_engine_is_lcactor(r->engine)) {
		printf("  lca_port pools kept after the stop: %u\n", r->pools_kept);
		printf("  packet lane: the workers took %" PRIu64 " packets in on_packets and %"
		       PRIu64 " envelopes\n", r->lane_packets, r->worker_envelopes);
	}
}

json_t *
pl_port_run_json(const struct port_run *r, unsigned int run)
{
	json_t *lcs = json_array(), *o;

	for (unsigned int i = 0; i < pl.n_lcores; i++) {
		unsigned int lc = pl.lcores[i];
		const struct pl_fig *f = &r->lc[lc];
		double rate;

		rate = pl_fig_rate(f);
		json_array_append_new(lcs, json_pack(
			"{s:i, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:f}", "lcore", (int)lc,
			"cpu", lca_topo_lcore_cpu(lc), "rx", (json_int_t)f->produced, "malformed",
			(json_int_t)f->malformed, "processed", (json_int_t)f->processed,
			"forwarded", (json_int_t)f->forwarded, "tx", (json_int_t)f->tx,
			"tx_dropped", (json_int_t)f->tx_dropped, "pkt_per_s", rate, "busy_percent",
			r->busy_known ? r->busy_pct[lc] : 100.0));
	}
	o = json_pack("{s:i, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
			 "s:f, s:f, s:f, s:f, s:f, s:b, s:b, s:o}",
			 "run", (int)run + 1, "status",
			 r->status == 0 ? "done" : strerror(-r->status), "rx", (json_int_t)r->rx,
			 "port_rx", (json_int_t)r->port_rx, "processed",
			 (json_int_t)r->processed, "malformed", (json_int_t)r->malformed,
			 "in_flight", (json_int_t)r->in_flight, "forwarded",
			 (json_int_t)r->forwarded, "tx", (json_int_t)r->tx, "tx_dropped",
			 (json_int_t)r->tx_dropped, "sink_refused", (json_int_t)r->sink_refused,
			 "keys", (json_int_t)r->keys, "measured", (json_int_t)r->measured,
			 "warmup_s", r->warm_s, "end_s", r->end_s, "measured_s", r->measured_s,
			 "msg_per_s", r->pkt_per_s, "rx_per_s", r->rx_per_s, "exact", r->exact,
			 "pools_full", r->pools_full, "lcores", lcs);
	if (o != NULL && pl_engine_is_lcactor(r->engine)) {
		json_object_set_new(o, "lane_packets", json_integer((json_int_t)r->lane_packets));
		json_object_set_new(o, "worker_envelopes",
				    json_integer((json_int_t)r->worker_envelopes));
	}
	return o;
}

json_t *
pl_port_conf_json(void)
{
	json_t *engines = json_array(), *pa = json_array();

	for (unsigned int i = 0; i < pp.conf->n_engines; i++)
		json_array_append_new(engines, json_string(pl_engine_name(pp.conf->engines[i])));
	for (unsigned int i = 0; i < pp.n_ports; i++)
		json_array_append_new(pa, json_pack("{s:i, s:s, s:s, s:b, s:i, s:i}", "id",
						    (int)pp.ports[i].id, "name", pp.ports[i].name,
						    "driver", pp.ports[i].driver, "rx", pp.ports[i].rx,
						    "rx_queues", (int)pp.ports[i].n_rxq, "tx_queues",
						    (int)pp.ports[i].n_txq));
	return json_pack("{s:s, s:s, s:o, s:o, s:i, s:I, s:I, s:I, s:i, s:i, s:i, s:i, s:s, "
			 "s:s, s:s, s:s, s:i, s:b, s:i}",
			 "benchmark", "packet-pipeline", "source", "port", "engines", engines,
			 "ports", pa, "partitions", (int)pl_n_parts, "messages",
			 (json_int_t)(pp.quota_total == UINT64_MAX ? 0 : pp.quota_total), "warmup_messages",
			 (json_int_t)(pp.conf->warmup_ms ? 0 : pp.conf->warmup_messages), "duration_ms",
			 (json_int_t)pp.conf->duration_ms, "burst", (int)pp.conf->burst, "throughput",
			 (int)pp.conf->throughput, "mailbox", (int)pp.conf->mailbox, "watermark",
			 (int)pp.conf->watermark, "sink", pp.conf->sink == PL_SINK_TX ? "tx" : "drop",
			 "idle", lca_idle_policy_name((enum lca_idle_policy)pp.conf->idle),
			 "null_frames", pp.conf->null_zero ? "zero" : "udp", "partition_by",
			 pp.conf->partition_rxq ? "rxq" : "key", "tx_port", pp.conf->tx_port,
			 "eventdev_vdev_added", pl.vdev_added, "runs", (int)pp.conf->runs);
}

/* The counts by key of a run, summed over the stores, into --keys. */
int
pl_port_keys_write(FILE *out, const struct port_run *r, unsigned int run)
{
	struct store *all[PL_MAX_PARTITIONS + RTE_MAX_LCORE];
	unsigned int n = 0;
	struct store *sum = pl_store_new(rte_get_main_lcore());

	if (sum == NULL)
		return -ENOMEM;
	if (r->engine == PL_ENGINE_IO)
		n = 0;
	else if (lcore_stores(r->engine))
		for (unsigned int i = 0; i < pl.n_lcores; i++)
			all[n++] = pp.lstores[pl.lcores[i]];
	else
		for (uint32_t p = 0; p < pl_n_parts; p++)
			all[n++] = pp.stores[p];
	for (unsigned int k = 0; k < n; k++)
		for (uint32_t i = 0; i <= all[k]->mask; i++) {
			const struct store_ent *e = &all[k]->e[i];

			for (uint64_t c = 0; e->used && c < e->count; c++)
				store_count(sum, e->key);
		}
	for (uint32_t i = 0; i <= sum->mask; i++)
		if (sum->e[i].used)
			fprintf(out, "%s %u %u %" PRIu64 "\n", pl_engine_name(r->engine), run + 1,
				sum->e[i].key, sum->e[i].count);
	lca_mempool_free(sum);
	return 0;
}
