/* SPDX-License-Identifier: BSD-3-Clause */
/* The request-response work: databases, the two actors, one invocation,
 * and the same work as plain calls (the inline ceiling). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "lca_eal.h"
#include "lca_freq.h"
#include "lca_mempool.h"
#include "app_rng.h"
#include "lca_topo.h"
#include "reqresp.h"
#include "rr_work.h"

#define MSG_REQUEST 1
#define MSG_USER 2
#define RUN_TIMEOUT_MS 120000
#define MAX_PAIRS 512

struct rr_bench {
	struct rr_conf conf;
	struct rr_set set;
	unsigned int n_pairs;
	unsigned int pair_lcore[MAX_PAIRS]; /* inline: the lcore that runs the pair */
	lca_actor_id_t q[MAX_PAIRS];
	lca_actor_id_t s[MAX_PAIRS];
	struct rr_query *inline_q[MAX_PAIRS];
	struct rr_service *inline_s[MAX_PAIRS];
	struct rr_user *db[MAX_PAIRS];
	const struct rr_user **map[MAX_PAIRS];
	uint64_t invocations;
	bool runtime_up;
	/* Where the last floor invocation ran each pair: Q's, then S's lcore. */
	unsigned int floor_lcore[MAX_PAIRS][2];
	bool floor_ran;
};

static uint32_t done_count;
static uint32_t done_target;
static uint64_t end_tsc;

const char *
rr_dispatcher_name(int d)
{
	if (d == RR_DISPATCH_INLINE)
		return "inline";
	return d == RR_DISPATCH_FLOOR ? "floor" : lca_dispatcher_name((enum lca_dispatcher)d);
}

static void
report_done(void)
{
	if (__atomic_add_fetch(&done_count, 1, __ATOMIC_ACQ_REL) == done_target) {
		end_tsc = rte_rdtsc();
		lca_runtime_stop();
	}
}

/* --- actors ------------------------------------------------------------- */

static void
service_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct rr_service *s = state;

	(void)self;
	if (unlikely(msg->type != MSG_REQUEST))
		return;
	msg->ptr = (void *)(uintptr_t)service_lookup(s, *(uint32_t *)msg->data);
	msg->type = MSG_USER;
	lca_reply(msg); /* a failure is counted by the runtime and checked after */
	if (s->answered == s->queries)
		report_done();
}

static void
query_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct rr_query *q = state;
	uint32_t asked;

	(void)self;
	if (unlikely(msg->type != MSG_USER))
		return;
	asked = q->fifo[q->fifo_head++ & (FIFO_SIZE - 1)];
	query_store(q, msg->ptr, asked);
	if (q->received == q->queries) {
		report_done();
		return;
	}
	if (q->sent < q->queries) {
		*(uint32_t *)msg->data = query_ask(q);
		msg->type = MSG_REQUEST;
		msg->len = sizeof(uint32_t);
		lca_reply(msg);
	}
}

/* --- databases ------------------------------------------------------------ */

static void
fill_name(char *dst, size_t len, uint64_t h)
{
	for (size_t i = 0; i < len; i++, h /= 26)
		dst[i] = (char)('a' + h % 26);
}

static struct rr_user *
build_db(uint32_t users, unsigned int lcore, uint64_t seed)
{
	struct rr_user *db = lca_mempool_alloc_on_lcore("rr_db", sizeof(*db) * users, lcore);
	uint64_t rng = seed;

	if (db == NULL)
		return NULL;
	for (uint32_t i = 0; i < users; i++) {
		db[i].id = i;
		fill_name(db[i].first, sizeof(db[i].first), app_rng_next(&rng));
		fill_name(db[i].last, sizeof(db[i].last), app_rng_next(&rng));
		db[i].ssn = app_rng_next(&rng) % 1000000000ull;
		for (int f = 0; f < 5; f++)
			db[i].friends[f] = app_rng_below(&rng, users);
	}
	return db;
}

/* --- setting up a parameter set ---------------------------------------------- */

static int
spawn_pairs(struct rr_bench *b)
{
	struct lca_runtime_conf rc = {
		.max_actors = b->conf.actors,
		.placement = b->conf.placement,
		.idle = (int)b->conf.idle,
		/* For --idle sleep: after 1000 empty loops, 10 us at a time. */
		.idle_sleep_after = 1000,
		.idle_sleep_us = 10,
		/* Every pair holds 2 x throughput envelopes in flight. */
		.msgs_per_node = 4095 + b->n_pairs * 2 * b->set.throughput,
	};
	int ret = lca_runtime_init(&rc);

	if (ret < 0) {
		fprintf(stderr, "lca-reqresp: runtime init failed: %s\n", strerror(-ret));
		return ret;
	}
	b->runtime_up = true;
	for (unsigned int k = 0; k < b->n_pairs; k++) {
		struct lca_actor_spec spec = {
			.lcore = LCA_LCORE_ANY,
			.mailbox_size = 1024,
			.mailbox_mode = b->set.mailbox,
			.dispatcher = (enum lca_dispatcher)b->set.dispatcher,
			.throughput = b->set.throughput,
		};

		spec.handler = query_handler;
		spec.state_size = sizeof(struct rr_query);
		spec.name = "query";
		ret = lca_actor_spawn(&spec, &b->q[k]);
		if (ret == 0) {
			spec.handler = service_handler;
			spec.state_size = sizeof(struct rr_service);
			spec.name = "service";
			ret = lca_actor_spawn(&spec, &b->s[k]);
		}
		if (ret < 0) {
			fprintf(stderr, "lca-reqresp: cannot spawn pair %u: %s\n", k, strerror(-ret));
			return ret;
		}
		b->pair_lcore[k] = (unsigned int)lca_actor_lcore(b->s[k]);
		b->inline_q[k] = lca_actor_state(b->q[k]);
		b->inline_s[k] = lca_actor_state(b->s[k]);
	}
	return 0;
}

/* Inline pairs are spread over every lcore, so the ceiling uses them all. */
static int
alloc_inline_pairs(struct rr_bench *b)
{
	unsigned int lcores[RTE_MAX_LCORE], n = 0, lcore_id;

	RTE_LCORE_FOREACH(lcore_id)
		lcores[n++] = lcore_id;
	for (unsigned int k = 0; k < b->n_pairs; k++) {
		b->pair_lcore[k] = lcores[k % n];
		b->inline_q[k] = lca_mempool_alloc_on_lcore("rr_q", sizeof(struct rr_query),
							    b->pair_lcore[k]);
		b->inline_s[k] = lca_mempool_alloc_on_lcore("rr_s", sizeof(struct rr_service),
							    b->pair_lcore[k]);
		if (b->inline_q[k] == NULL || b->inline_s[k] == NULL)
			return -ENOMEM;
	}
	return 0;
}

int
rr_bench_create(const struct rr_conf *conf, const struct rr_set *set, struct rr_bench **out)
{
	struct rr_bench *b = calloc(1, sizeof(*b));
	int ret;

	if (b == NULL)
		return -ENOMEM;
	b->conf = *conf;
	b->set = *set;
	b->n_pairs = conf->actors / 2;
	if (b->n_pairs == 0 || b->n_pairs > MAX_PAIRS || 2 * set->throughput > FIFO_SIZE) {
		free(b);
		return -EINVAL;
	}
	ret = set->dispatcher == RR_DISPATCH_INLINE ? alloc_inline_pairs(b) : spawn_pairs(b);
	for (unsigned int k = 0; ret == 0 && k < b->n_pairs; k++) {
		unsigned int q_lcore = set->dispatcher == RR_DISPATCH_INLINE ?
			b->pair_lcore[k] : (unsigned int)lca_actor_lcore(b->q[k]);

		/* Each database on its service's node; each map on its query's. */
		b->db[k] = build_db(conf->users, b->pair_lcore[k], conf->seed + k);
		b->map[k] = lca_mempool_alloc_on_lcore("rr_map", sizeof(*b->map[k]) * conf->users,
						       q_lcore);
		if (b->db[k] == NULL || b->map[k] == NULL) {
			fprintf(stderr, "lca-reqresp: no memory for a %u-user database "
					"(try -m with more MB, or fewer --users)\n", conf->users);
			ret = -ENOMEM;
		}
	}
	if (ret < 0) {
		rr_bench_destroy(b);
		return ret;
	}
	*out = b;
	return 0;
}

void
rr_bench_destroy(struct rr_bench *b)
{
	if (b == NULL)
		return;
	for (unsigned int k = 0; k < b->n_pairs; k++) {
		lca_mempool_free(b->db[k]);
		lca_mempool_free(b->map[k]);
		if (!b->runtime_up) {
			lca_mempool_free(b->inline_q[k]);
			lca_mempool_free(b->inline_s[k]);
		}
	}
	if (b->runtime_up)
		lca_runtime_cleanup();
	free(b);
}

/* --- invocations ----------------------------------------------------------- */

static void
reset_pair(struct rr_bench *b, unsigned int k)
{
	struct rr_query *q = b->inline_q[k];
	struct rr_service *s = b->inline_s[k];

	*s = (struct rr_service){
		.db = b->db[k], .users = b->conf.users, .queries = b->conf.queries,
	};
	memset(q, 0, offsetof(struct rr_query, fifo));
	q->users = b->conf.users;
	q->queries = b->conf.queries;
	q->db_lo = b->db[k];
	q->db_hi = b->db[k] + b->conf.users;
	q->map = b->map[k];
	/* A new stream per invocation and pair, reproducible from --seed. */
	q->rng = app_rng_stream(b->conf.seed, (b->invocations << 32) | k);
	memset(b->map[k], 0, sizeof(*b->map[k]) * b->conf.users);
}

/* Every count exact, every reply the user asked for. */
static int
check_pairs(const struct rr_bench *b)
{
	int bad = 0;

	for (unsigned int k = 0; k < b->n_pairs; k++) {
		const struct rr_query *q = b->inline_q[k];
		const struct rr_service *s = b->inline_s[k];

		if (q->received != b->conf.queries || q->sent != b->conf.queries ||
		    s->answered != b->conf.queries || q->bad_replies != 0 || s->unknown_ids != 0) {
			fprintf(stderr,
				"lca-reqresp: pair %u: sent %" PRIu64 ", received %" PRIu64
				", answered %" PRIu64 " of %" PRIu64 "; bad replies %" PRIu64
				", unknown ids %" PRIu64 "\n",
				k, q->sent, q->received, s->answered, b->conf.queries, q->bad_replies,
				s->unknown_ids);
			bad = 1;
		}
	}
	return bad ? -EIO : 0;
}

static uint64_t
handled_total(const struct rr_bench *b)
{
	uint64_t sum = 0;

	for (unsigned int k = 0; k < b->n_pairs; k++) {
		struct lca_actor_stats qs, ss;

		lca_actor_stats_get(b->q[k], &qs);
		lca_actor_stats_get(b->s[k], &ss);
		sum += qs.handled + ss.handled;
	}
	return sum;
}

static int
start_requests(struct rr_bench *b)
{
	uint64_t in_flight = 2ull * b->set.throughput;

	if (in_flight > b->conf.queries)
		in_flight = b->conf.queries;
	for (unsigned int k = 0; k < b->n_pairs; k++) {
		for (uint64_t i = 0; i < in_flight; i++) {
			struct lca_msg *m;
			int ret = lca_msg_alloc(&m);

			if (ret == 0) {
				*(uint32_t *)m->data = query_ask(b->inline_q[k]);
				m->type = MSG_REQUEST;
				m->len = sizeof(uint32_t);
				ret = lca_send_from(b->q[k], b->s[k], m);
				if (ret < 0)
					lca_msg_free(m);
			}
			if (ret < 0) {
				fprintf(stderr, "lca-reqresp: cannot start pair %u: %s\n", k,
					strerror(-ret));
				return ret;
			}
		}
	}
	return 0;
}

static int
invoke_actors(struct rr_bench *b, struct rr_invocation *out)
{
	uint64_t before = handled_total(b), start, expected;
	struct lca_send_errors e0, e1;
	int ret;

	lca_send_errors_get(&e0);
	done_count = 0;
	done_target = 2 * b->n_pairs;
	start = rte_rdtsc();
	ret = start_requests(b);
	if (ret == 0)
		ret = lca_runtime_run(RUN_TIMEOUT_MS);
	if (ret == -ETIMEDOUT)
		fprintf(stderr, "lca-reqresp: invocation did not finish in %d s\n",
			RUN_TIMEOUT_MS / 1000);
	if (ret < 0)
		return ret;
	out->cycles = end_tsc - start;
	out->messages = handled_total(b) - before;

	ret = check_pairs(b);
	expected = 2 * b->n_pairs * b->conf.queries;
	lca_send_errors_get(&e1);
	if (out->messages != expected) {
		fprintf(stderr, "lca-reqresp: %" PRIu64 " messages handled, expected %" PRIu64 "\n",
			out->messages, expected);
		ret = -EIO;
	}
	if (e1.mailbox_full + e1.no_actor + e1.stopped + e1.pool_empty !=
	    e0.mailbox_full + e0.no_actor + e0.stopped + e0.pool_empty) {
		fprintf(stderr, "lca-reqresp: sends failed during the invocation\n");
		ret = -EIO;
	}
	return ret;
}

static int
inline_worker(void *arg)
{
	struct rr_bench *b = arg;
	unsigned int me = rte_lcore_id();

	for (unsigned int k = 0; k < b->n_pairs; k++) {
		struct rr_query *q = b->inline_q[k];
		struct rr_service *s = b->inline_s[k];

		if (b->pair_lcore[k] != me)
			continue;
		while (q->received < q->queries) {
			uint32_t id = query_ask(q);

			q->fifo_head++;
			query_store(q, service_lookup(s, id), id);
			/* No run loop here to sample the clock or see a
			 * signal: do both as one would. */
			if ((q->received & 1023) == 0) {
				lca_freq_poll(me, rte_rdtsc());
				if (lca_eal_stop_requested())
					return -EINTR;
			}
		}
	}
	return 0;
}

static int
invoke_inline(struct rr_bench *b, struct rr_invocation *out)
{
	uint64_t start = rte_rdtsc();

	rte_eal_mp_remote_launch(inline_worker, b, CALL_MAIN);
	rte_eal_mp_wait_lcore();
	if (lca_eal_stop_requested())
		return -EINTR;
	out->cycles = rte_rdtsc() - start;
	/* A call and its return stand for a request and its reply. */
	out->messages = 2 * b->n_pairs * b->conf.queries;
	return check_pairs(b);
}

/* The actors' states, where they are now (after any move the runtime
 * made), driven without the runtime. */
static int
invoke_floor(struct rr_bench *b, struct rr_invocation *out)
{
	struct rr_floor_pair pairs[MAX_PAIRS];
	int ret;

	for (unsigned int k = 0; k < b->n_pairs; k++) {
		pairs[k] = (struct rr_floor_pair){
			.q = b->inline_q[k], .s = b->inline_s[k],
			.q_lcore = (unsigned int)lca_actor_lcore(b->q[k]),
			.s_lcore = (unsigned int)lca_actor_lcore(b->s[k]),
		};
		b->floor_lcore[k][0] = pairs[k].q_lcore;
		b->floor_lcore[k][1] = pairs[k].s_lcore;
	}
	b->floor_ran = true;
	ret = rr_floor_run(pairs, b->n_pairs, b->set.throughput, &out->cycles);
	if (ret < 0) {
		if (ret != -EINTR)
			fprintf(stderr, "lca-reqresp: the floor run failed: %s\n", strerror(-ret));
		return ret;
	}
	out->messages = 2 * b->n_pairs * b->conf.queries;
	return check_pairs(b);
}

int
rr_bench_invoke(struct rr_bench *b, bool floor, struct rr_invocation *out)
{
	if (floor && (!b->runtime_up || b->set.dispatcher != LCA_DISPATCH_AFFINITY))
		return -EINVAL;
	for (unsigned int k = 0; k < b->n_pairs; k++)
		reset_pair(b, k);
	b->invocations++;
	if (floor)
		return invoke_floor(b, out);
	return b->runtime_up ? invoke_actors(b, out) : invoke_inline(b, out);
}

json_t *
rr_bench_floor_placement(const struct rr_bench *b)
{
	json_t *a = json_array();

	for (unsigned int k = 0; b->floor_ran && k < b->n_pairs; k++)
		json_array_append_new(a, json_pack("{s:i, s:i, s:i}", "pair", (int)k, "q_lcore",
						   (int)b->floor_lcore[k][0], "s_lcore",
						   (int)b->floor_lcore[k][1]));
	return a;
}

unsigned int
rr_bench_placement(const struct rr_bench *b, struct rr_placement *out, unsigned int max)
{
	struct lca_topo *topo = NULL;
	unsigned int n = 0;

	lca_topo_load(&topo, NULL);
	for (unsigned int k = 0; k < b->n_pairs && n + 1 < max; k++) {
		for (int role = 0; role < 2; role++) {
			struct rr_placement *p = &out[n++];
			struct lca_topo_cpu cpu;
			int node;

			p->role = role == 0 ? 'Q' : 'S';
			p->pair = k;
			p->id = b->runtime_up ? (role == 0 ? b->q[k] : b->s[k]) : LCA_ACTOR_NONE;
			p->lcore = b->runtime_up ? (unsigned int)lca_actor_lcore(p->id) : b->pair_lcore[k];
			node = (int)rte_lcore_to_socket_id(p->lcore);
			p->node = node < 0 ? 0 : node;
			p->cpu = lca_topo_lcore_cpu(p->lcore);
			if (topo != NULL && p->cpu >= 0 && lca_topo_cpu_info(topo, p->cpu, &cpu) == 0)
				p->node = cpu.numa;
			p->db_pages_on_node = role == 1 ?
				lca_mempool_pages_on_node(b->db[k], sizeof(struct rr_user) * b->conf.users,
							  p->node, 64) : 0;
		}
	}
	lca_topo_free(topo);
	return n;
}
