/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef PINGHOPS_H
#define PINGHOPS_H

/*
 * lca-pinghops: Akka's "random ping with hops" benchmark on lcactor. A
 * master sends pings, spread over the workers; a worker that gets a ping
 * with hops > 0 sends it on, hops - 1, to a uniformly random worker (itself
 * included); at 0 it tells the master. A run ends when the master has heard
 * of every ping.
 */

#include <stdbool.h>
#include <stdint.h>

#include "lca_actor.h"
#include "lca_remote.h"
#include "lca_topo.h"

/* Most initial pings the master sends in one turn. */
#define PH_START_BATCH 1024

struct ph_conf {
	unsigned int workers;
	uint32_t pings;
	uint32_t hops;
	unsigned int runs;
	unsigned int window_ms;  /* a run's passes until they took this (main.c) */
	uint64_t seed;
	unsigned int throughput; /* messages an actor handles per turn */
	enum lca_placement placement;
	/* Remote run (lca_remote.h): 0 for none; else this process's node, of
	 * remote_nodes (2 to 4). The workers are spread over the nodes in
	 * order (node 1 the first, the first nodes one more when they do not
	 * divide evenly); node 1 has the master. Each spawns its workers first
	 * (ids 0 ..), node 1 its master next, the others a quitter next. */
	unsigned int remote_node;
	unsigned int remote_nodes;
	const struct lca_remote_conf *remote;
};

/* One run's time and its message accounting. */
struct ph_run {
	uint64_t cycles;          /* master's start message to the last report */
	uint64_t worker_handled;  /* messages handled by the workers in this run */
	uint64_t master_handled;  /* by the master */
	uint64_t worker_expected; /* pings x (hops + 1) + flushes */
	uint64_t master_expected; /* pings + 1 (start) + continues */
	uint64_t worker_refused;  /* worker sends refused (-ENOBUFS), kept and sent later */
	uint64_t flushes;         /* flush tokens the workers sent themselves */
	uint64_t master_refused;  /* initial pings refused (-ENOBUFS), sent later */
	uint64_t continues;       /* master turns spent spreading the initial pings */
	uint64_t mailbox_full;    /* the runtime's -ENOBUFS count in this run */
	uint64_t other_failures;  /* any other failed send: never expected */
	/* A remote run: the other processes' share of the counts above
	 * (already in them), as they reported them at the end of the run. */
	uint64_t far_handled;     /* its workers' handled messages */
	uint64_t far_refused;
	uint64_t far_flushes;
};

/* Where one actor is, for the placement report. */
struct ph_place {
	lca_actor_id_t id;
	bool master;
	unsigned int index;       /* worker number */
	unsigned int lcore;
};

struct ph_bench;

/* Workers on node @p k (1 ..) of a remote run of @p c over remote_nodes. */
unsigned int ph_node_workers(const struct ph_conf *c, unsigned int k);

/* Start the runtime and spawn the workers, then the master. */
int ph_bench_create(const struct ph_conf *conf, struct ph_bench **out);

/*
 * One run: reset the counters, start the master, run the loops until it
 * has heard of every ping, and check every count.
 *
 * @return
 *   0; -EIO when a count does not match (after a message); another
 *   negative errno from the runtime (-ETIMEDOUT, -EINTR, ...).
 */
int ph_bench_run(struct ph_bench *b, unsigned int run, struct ph_run *out);

/* Where each actor is (workers, then the master); returns how many. */
unsigned int ph_bench_placement(const struct ph_bench *b, struct ph_place *out, unsigned int max);

void ph_bench_destroy(struct ph_bench *b);

/* A far node of a remote run (2 ..): run the loops until node 1 says quit
 * (or is declared dead, or @p timeout_ms pass). Before each run node 1 has
 * it reset its workers; after each, it reports their counts to node 1. */
int ph_bench_serve(struct ph_bench *b, unsigned int timeout_ms);

/* Node 1 of a remote run: tell every far node to quit, and let the frames
 * leave. */
void ph_bench_quit_peer(struct ph_bench *b);

#endif /* PINGHOPS_H */
