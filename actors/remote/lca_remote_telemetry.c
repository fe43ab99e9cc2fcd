/* SPDX-License-Identifier: BSD-3-Clause */
/* /lcactor/links: each peer's link counters, and those of no link. */
#include <stdio.h>

#include <rte_telemetry.h>

#include "lca_remote_priv.h"

#define U64(d, s, f) rte_tel_data_add_dict_u64(d, #f, (s).f)

static void
fill_link(struct rte_tel_data *d, const struct lca_remote_link_stats *s)
{
	rte_tel_data_start_dict(d);
	U64(d, *s, msgs_sent);
	U64(d, *s, msgs_delivered);
	U64(d, *s, undeliverable);
	U64(d, *s, returned_no_actor);
	U64(d, *s, returned_stopped);
	U64(d, *s, frames_sent);
	U64(d, *s, frames_rx);
	U64(d, *s, acks_sent);
	U64(d, *s, retransmits);
	U64(d, *s, timeouts);
	U64(d, *s, naks_sent);
	U64(d, *s, naks_rx);
	U64(d, *s, duplicates);
	U64(d, *s, reordered);
	U64(d, *s, out_of_window);
	U64(d, *s, no_credit);
	U64(d, *s, held);
	/* An upper bound (lca_remote.h): named so where a reader sees it. */
	rte_tel_data_add_dict_u64(d, "lost_on_dead_at_most", s->lost_on_dead);
	U64(d, *s, retry_exhausted);
	U64(d, *s, ack_beyond_sent);
	U64(d, *s, credit_beyond_window);
	U64(d, *s, inj_lost);
	U64(d, *s, inj_dup);
	U64(d, *s, inj_reordered);
	U64(d, *s, stale_session);
	U64(d, *s, in_flight);
	rte_tel_data_add_dict_u64(d, "dead", s->dead);
	rte_tel_data_add_dict_u64(d, "connected", s->connected);
}

static int
tel_links(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct lca_remote_stats g;

	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	if (!rm.up)
		return 0;
	rte_tel_data_add_dict_u64(d, "self", rm.self.id);
	lca_remote_stats_get(&g);
	U64(d, g, malformed);
	U64(d, g, unknown_peer);
	U64(d, g, not_for_us);
	U64(d, g, no_mbuf);
	U64(d, g, tx_refused);
	U64(d, g, tx_no_envelope);
	U64(d, g, bad_tag);
	U64(d, g, link_downs);
	U64(d, g, links_down);
	for (unsigned int p = 0; p < rm.n_peers; p++) {
		struct lca_remote_link_stats s;
		struct rte_tel_data *ld = rte_tel_data_alloc();
		char key[16];

		if (ld == NULL)
			break;
		lca_remote_link_stats_get(rm.peers[p].n.id, &s);
		fill_link(ld, &s);
		snprintf(key, sizeof(key), "node%u", rm.peers[p].n.id);
		rte_tel_data_add_dict_container(d, key, ld, 0);
	}
	return 0;
}

void
rm_telemetry_register(void)
{
	static bool registered;

	/* Telemetry keeps commands for the life of the process. */
	if (!registered) {
		rte_telemetry_register_cmd("/lcactor/links", tel_links,
					   "lcactor: remote links' counters, per peer node. No parameters");
		registered = true;
	}
}
