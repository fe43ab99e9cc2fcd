/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef REMOTE_BENCH_H
#define REMOTE_BENCH_H

/*
 * lca-remote-bench: main.c runs the runtime's measurement between two
 * processes; rb_floor.c runs the bare floor beside it (lca-ucx-floor for
 * --remote ucx, lca-memif-floor for memif) and judges the one against the
 * other; rb_counts.c reports the link's drop and refusal counts;
 * rb_node2.c holds node 2's actors.
 */

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "lca_actor.h"

#define MAX_SIZES 8

/* The messages between node 1's driver and node 2's actors. */
enum { T_DATA = 1, T_END, T_END_ACK, T_PING, T_PONG, T_QUIT, T_GO };

/* Node 2's actors are spawned first, so their ids are known to node 1. */
#define SINK_ID 0
#define ECHO_ID 1
/* Bytes of the sink's state (its count). */
#define RB_SINK_STATE 8

/* Node 2's sink: counts T_DATA, answers T_END with the count, stops the
 * runtime at T_QUIT. */
void rb_sink_handler(lca_actor_id_t self, void *state, struct lca_msg *msg);
/* Node 2's echo: each T_PING back as a T_PONG. */
void rb_echo_handler(lca_actor_id_t self, void *state, struct lca_msg *msg);
/* Node 2's watch on node 1: says when its link goes down and rejoins. */
void rb_watcher_handler(lca_actor_id_t self, void *state, struct lca_msg *msg);
/* Whether node 1's link is down now (node 2). */
bool rb_node1_down(void);

/* The runtime's figures of one message size. */
struct result {
	unsigned int size;
	double ms;            /* one way: every pass together, the window */
	double mps;
	uint64_t sink_count;  /* every pass together */
	unsigned int passes;  /* of --msgs, until they took 200 ms (the default) */
	double p50_us, p99_us, p999_us;
	unsigned int pings;   /* round trips: --pings, or more until they took 200 ms */
	double ping_ms;       /* their window */
};

/* One round of the floor: the same figures, per size. */
struct rb_floor_round {
	bool ran;
	struct result s[MAX_SIZES];
};

/* What the floor runs with: the runtime's sizes and counts, the CPUs of
 * node 1's main lcore and of node 2's first lcore. */
struct rb_floor_conf {
	const char *transport;
	const unsigned int *sizes;
	unsigned int n_sizes;
	uint64_t msgs;
	unsigned int pings;
	int cpu[2];
	unsigned int timeout_s;
	bool jumbo; /* memif: --jumbo's buffers and frames */
};

/* Why @p transport has no floor here, or NULL when it has one. */
const char *rb_floor_none(const char *transport);

/* The program of @p transport's floor (lca-ucx-floor, lca-memif-floor), or
 * NULL. */
const char *rb_floor_name(const char *transport);

/* A round of the floor (its program beside this one), its lines
 * echoed behind "floor| "; 0, or a negative errno after a line saying why. */
int rb_floor_run(const struct rb_floor_conf *fc, struct rb_floor_round *out);

/* Print each size against the floor's rounds before and after it, set each
 * result's "floor" in @p results and add the verdict rows to @p record. */
void rb_floor_judge(json_t *record, json_t *results, const struct rb_floor_conf *fc,
		    const struct result *res, const struct rb_floor_round *fl);

/* Print one line of every drop and refusal count of the link to node
 * @p peer and of no link; 0, or -1 when the remote part is not up. */
int rb_counts_print(unsigned int peer);

/* Every counter of the link to node @p peer and of no link, for the
 * record's "link_counts" (docs/json.md); NULL when the remote part is not
 * up. */
json_t *rb_counts_json(unsigned int peer);

#endif /* REMOTE_BENCH_H */
