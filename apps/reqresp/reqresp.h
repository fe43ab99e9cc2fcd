/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef REQRESP_H
#define REQRESP_H

/*
 * lca-reqresp: Akka's AffinityPoolRequestResponseBenchmark on lcactor.
 * Pairs of a query actor Q and a service actor S; S owns a user database,
 * Q asks it for random users and keeps every one it gets.
 */

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "lca_actor.h"
#include "lca_lcore.h"

/* A user record as the benchmark defines it; replies carry a pointer to
 * S's immutable record (48 bytes do not fit the 40-byte inline payload). */
struct rr_user {
	uint32_t id;
	char first[5];
	char last[7];
	uint64_t ssn;
	uint32_t friends[5];
};

/* The "inline" dispatcher: the same work as direct calls, no messaging. */
#define RR_DISPATCH_INLINE 2
/* The name of an affinity set's floor: the same work, in flight and
 * placement as its actors, through bare queues between the lcores
 * (rr_floor.c), measured in rounds interleaved with the actors'. */
#define RR_DISPATCH_FLOOR 3

/* One parameter set. */
struct rr_set {
	unsigned int throughput;
	int dispatcher; /* enum lca_dispatcher or RR_DISPATCH_INLINE */
	enum lca_mailbox_mode mailbox;
	enum lca_placement placement; /* where the actors start (auto: and move) */
};

struct rr_conf {
	unsigned int actors;   /* even */
	uint64_t queries;      /* per query actor */
	uint32_t users;        /* per service actor's database */
	enum lca_placement placement;
	enum lca_idle_policy idle;
	uint64_t seed;
};

/* Where one actor ran, for the placement report. */
struct rr_placement {
	lca_actor_id_t id;
	char role;             /* 'Q' or 'S' */
	unsigned int pair;
	unsigned int lcore;
	int cpu;
	int node;
	int db_pages_on_node;  /* S only: % of sampled DB pages on its node, or -errno */
};

/* One invocation's outcome. */
struct rr_invocation {
	uint64_t messages;
	uint64_t cycles;
};

/* A parameter set's actors and databases, ready for invocations. */
struct rr_bench;

/* Build the actors (not for inline) and the databases on their nodes. */
int rr_bench_create(const struct rr_conf *conf, const struct rr_set *set, struct rr_bench **out);

/* One invocation: start 2 x throughput requests per pair, run until all are
 * done, then check every count; -EIO on a mismatch (after a message).
 * With @p floor (affinity sets only, else -EINVAL): the same work through
 * bare queues between the lcores the actors are on now. */
int rr_bench_invoke(struct rr_bench *b, bool floor, struct rr_invocation *out);

/* Where the last floor invocation ran each pair, as JSON:
 * [{pair, q_lcore, s_lcore}]; empty when none ran. */
json_t *rr_bench_floor_placement(const struct rr_bench *b);

/* Where each actor is; returns how many (2 per pair). */
unsigned int rr_bench_placement(const struct rr_bench *b, struct rr_placement *out, unsigned int max);

void rr_bench_destroy(struct rr_bench *b);

const char *rr_dispatcher_name(int d);

/* Print the placement of @p b's actors under policy @p placement and
 * append one JSON record an actor to @p jplace. */
void rr_print_placement(struct rr_bench *b, enum lca_placement placement, json_t *jplace);

/* With --placement auto: print the moves the runtime made and how many
 * pairs ended on one lcore. @return the same as a JSON object. */
json_t *rr_print_moves(struct rr_bench *b);

#endif /* REQRESP_H */
