/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RR_WORK_H
#define RR_WORK_H

/*
 * The benchmark's work, one copy for every way of running it: the actors,
 * the inline ceiling (direct calls) and the floor (a bare queue between the
 * same lcores, rr_floor.c).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>

#include "app_rng.h"
#include "reqresp.h"

/* Most requests in flight per pair: 2 x the largest throughput. */
#define FIFO_SIZE 4096

struct rr_service {
	const struct rr_user *db;
	uint32_t users;
	uint64_t queries;
	uint64_t answered;
	uint64_t unknown_ids;
};

struct rr_query {
	uint32_t users;
	uint64_t queries;
	uint64_t sent;
	uint64_t received;
	uint64_t bad_replies;
	const struct rr_user *db_lo; /* the service's database, to check replies */
	const struct rr_user *db_hi;
	const struct rr_user **map;  /* every user received, by id */
	uint64_t rng;
	/* Ids asked and not yet answered, in order: a pair's mailboxes are
	 * FIFO, so each reply must be for the oldest. */
	uint32_t fifo_head;
	uint32_t fifo_tail;
	uint32_t fifo[FIFO_SIZE];
};

static inline const struct rr_user *
service_lookup(struct rr_service *s, uint32_t id)
{
	s->answered++;
	if (unlikely(id >= s->users)) {
		s->unknown_ids++;
		return NULL;
	}
	return &s->db[id];
}

/* Store a received user; false when it is not the one asked for. */
static inline bool
query_store(struct rr_query *q, const struct rr_user *u, uint32_t asked)
{
	q->received++;
	if (unlikely(u == NULL || u < q->db_lo || u >= q->db_hi || u->id != asked)) {
		q->bad_replies++;
		return false;
	}
	q->map[u->id] = u;
	return true;
}

static inline uint32_t
query_ask(struct rr_query *q)
{
	uint32_t id = app_rng_below(&q->rng, q->users);

	q->fifo[q->fifo_tail++ & (FIFO_SIZE - 1)] = id;
	q->sent++;
	return id;
}

/* One pair as the floor runs it: its two sides and where each runs. */
struct rr_floor_pair {
	struct rr_query *q;
	struct rr_service *s;
	unsigned int q_lcore;
	unsigned int s_lcore;
};

/*
 * The floor: every pair's queries to the end, each side on its own lcore,
 * requests and replies through a bare single-producer, single-consumer
 * queue per direction and no runtime, with 2 x @p throughput requests in
 * flight per pair and up to @p throughput taken a turn, as the actors do.
 * The pairs must have been reset; the lcores must be waiting.
 *
 * @return
 *   0 with @p cycles set; -ENOMEM; -EBUSY when an lcore was not waiting.
 */
int rr_floor_run(const struct rr_floor_pair *pairs, unsigned int n, unsigned int throughput,
		 uint64_t *cycles);

#endif /* RR_WORK_H */
