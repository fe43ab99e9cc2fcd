/* SPDX-License-Identifier: BSD-3-Clause */
/* Where the actors of a parameter set ran, and where the runtime moved
 * them: the placement table and, with --placement auto, the moves. */
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "lca_actor.h"
#include "reqresp.h"

void
rr_print_placement(struct rr_bench *b, enum lca_placement placement, json_t *jplace)
{
	struct rr_placement p[2 * 512];
	unsigned int n = rr_bench_placement(b, p, RTE_DIM(p));

	printf("\nPlacement (%s):\n%-6s %-5s %5s %4s %5s  %s\n", lca_placement_name(placement),
	       "actor", "role", "lcore", "cpu", "node", "database pages on node");
	for (unsigned int i = 0; i < n; i++) {
		char db[48] = "-";

		if (p[i].role == 'S') {
			if (p[i].db_pages_on_node >= 0)
				snprintf(db, sizeof(db), "%d%% of sampled pages",
					 p[i].db_pages_on_node);
			else
				snprintf(db, sizeof(db), "unknown (%s)",
					 strerror(-p[i].db_pages_on_node));
		}
		printf("%-6u %c%-4u %5u %4d %5d  %s\n", p[i].id, p[i].role, p[i].pair, p[i].lcore,
		       p[i].cpu, p[i].node, db);
		json_array_append_new(jplace, json_pack("{s:i, s:s#, s:i, s:i, s:i, s:i, s:i}", "actor",
							(int)p[i].id, "role", &p[i].role, 1, "pair",
							(int)p[i].pair, "lcore", (int)p[i].lcore,
							"cpu", p[i].cpu, "node", p[i].node,
							"db_pages_on_node_pct",
							p[i].db_pages_on_node));
	}
}

json_t *
rr_print_moves(struct rr_bench *b)
{
	struct lca_migration log[64];
	struct rr_placement p[2 * 512];
	unsigned int total = lca_migrations_get(log, RTE_DIM(log));
	unsigned int n = rr_bench_placement(b, p, RTE_DIM(p)), local = 0;
	json_t *moves = json_array();

	for (unsigned int i = 0; i + 1 < n; i += 2)
		local += p[i].lcore == p[i + 1].lcore;
	printf("Moves (placement auto): %u; %u of %u pairs now on one lcore\n", total, local, n / 2);
	for (unsigned int i = 0; i < RTE_MIN(total, (unsigned int)RTE_DIM(log)); i++) {
		printf("  %8.3f s  actor %-4u lcore %u -> %u  in %.1f us  state %d%% on node  (%s)\n",
		       log[i].t_s, log[i].id, log[i].from, log[i].to, log[i].took_us,
		       log[i].state_on_node_pct, log[i].why);
		json_array_append_new(moves, json_pack("{s:f, s:f, s:i, s:i, s:i, s:i, s:s}", "t_s",
						       log[i].t_s, "took_us", log[i].took_us, "actor",
						       (int)log[i].id, "from", (int)log[i].from, "to",
						       (int)log[i].to, "state_on_node_pct",
						       log[i].state_on_node_pct, "why", log[i].why));
	}
	return json_pack("{s:i, s:i, s:o}", "count", (int)total, "pairs_local", (int)local, "log",
			 moves);
}

