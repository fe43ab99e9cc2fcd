/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lca-remote-bench's end report of the link: every count the runtime keeps
 * of what it dropped or refused (lca_remote_link_stats_get() for the link,
 * lca_remote_stats_get() for no link), printed and in the --json record,
 * so that a loss is read from the run's own output, not from telemetry.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>

#include "lca_remote.h"
#include "remote_bench.h"

/* A counter, its name in the record and in the printed line. */
#define RB_LINK(f, said) { #f, offsetof(struct lca_remote_link_stats, f), said }
#define RB_NODE(f, said) { #f, offsetof(struct lca_remote_stats, f), said }

struct rb_count {
	const char *key;
	size_t off;
	const char *said; /* NULL: in the record only */
};

static const struct rb_count link_counts[] = {
	RB_LINK(msgs_sent, NULL),
	RB_LINK(msgs_delivered, NULL),
	RB_LINK(undeliverable, "undeliverable"),
	RB_LINK(returned_no_actor, "returned (no actor there)"),
	RB_LINK(returned_stopped, "returned (stopped there)"),
	RB_LINK(frames_sent, NULL),
	RB_LINK(frames_rx, NULL),
	RB_LINK(acks_sent, NULL),
	RB_LINK(retransmits, NULL),
	RB_LINK(timeouts, NULL),
	RB_LINK(naks_sent, NULL),
	RB_LINK(naks_rx, NULL),
	RB_LINK(duplicates, "duplicates"),
	RB_LINK(reordered, NULL),
	RB_LINK(out_of_window, "out-of-window"),
	RB_LINK(no_credit, "no-credit refusals"),
	RB_LINK(held, "held for a full mailbox"),
	RB_LINK(lost_on_dead, "lost-at-node-down"),
	RB_LINK(retry_exhausted, "retries given up"),
	RB_LINK(ack_beyond_sent, "acks past what was sent"),
	RB_LINK(credit_beyond_window, "credits past the window"),
	RB_LINK(inj_lost, NULL),
	RB_LINK(inj_dup, NULL),
	RB_LINK(inj_reordered, NULL),
	RB_LINK(stale_session, NULL),
	RB_LINK(in_flight, "in flight"),
};

static const struct rb_count node_counts[] = {
	RB_NODE(not_for_us, "not-for-us"),
	RB_NODE(unknown_peer, "unknown-peer"),
	RB_NODE(malformed, "malformed"),
	RB_NODE(no_mbuf, "no-mbuf"),
	RB_NODE(tx_refused, "TX refused"),
	RB_NODE(tx_no_envelope, "TX without envelope"),
	RB_NODE(bad_tag, "bad-tag"),
	RB_NODE(link_downs, "link-downs"),
};

static uint64_t
count_of(const void *s, const struct rb_count *c)
{
	return *(const uint64_t *)((const char *)s + c->off);
}

int
rb_counts_print(unsigned int peer)
{
	struct lca_remote_link_stats s;
	struct lca_remote_stats g;
	const char *sep = "";

	if (lca_remote_link_stats_get(peer, &s) != 0 || lca_remote_stats_get(&g) != 0)
		return -1;
	printf("Drops and refusals, link to node %u:", peer);
	for (size_t i = 0; i < sizeof(link_counts) / sizeof(link_counts[0]); i++) {
		if (link_counts[i].said == NULL)
			continue;
		printf("%s %" PRIu64 " %s", sep, count_of(&s, &link_counts[i]), link_counts[i].said);
		sep = ",";
	}
	printf("; of no link:");
	sep = "";
	for (size_t i = 0; i < sizeof(node_counts) / sizeof(node_counts[0]); i++) {
		printf("%s %" PRIu64 " %s", sep, count_of(&g, &node_counts[i]), node_counts[i].said);
		sep = ",";
	}
	printf("\n");
	return 0;
}

json_t *
rb_counts_json(unsigned int peer)
{
	struct lca_remote_link_stats s;
	struct lca_remote_stats g;
	json_t *link, *none;

	if (lca_remote_link_stats_get(peer, &s) != 0 || lca_remote_stats_get(&g) != 0)
		return NULL;
	link = json_object();
	none = json_object();
	for (size_t i = 0; i < sizeof(link_counts) / sizeof(link_counts[0]); i++)
		json_object_set_new(link, link_counts[i].key,
				    json_integer((json_int_t)count_of(&s, &link_counts[i])));
	json_object_set_new(link, "dead", json_integer(s.dead));
	json_object_set_new(link, "connected", json_integer(s.connected));
	for (size_t i = 0; i < sizeof(node_counts) / sizeof(node_counts[0]); i++)
		json_object_set_new(none, node_counts[i].key,
				    json_integer((json_int_t)count_of(&g, &node_counts[i])));
	return json_pack("{s:i, s:i, s:o, s:o}", "node", lca_remote_self(), "peer", (int)peer,
			 "link", link, "no_link", none);
}
