/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Traffic-aware placement (--placement auto): actors that talk to each
 * other end up on one lcore, and the lcores stay loaded alike.
 *
 * Each affinity actor counts its own sends, within its lcore and across
 * lcores, and keeps one Misra-Gries counter of the peer it sends to across
 * lcores (lca_send.c): a peer with a majority of those sends holds it near
 * PEER_COUNT_MAX; traffic spread over many peers keeps it near 0. These
 * are written by the actor's own lcore only.
 *
 * Every period a hook on the main lcore's loop reads them (it writes none
 * of them) and takes, for the period, each lcore's load (its actors that
 * handled messages, see actor_load()) and the candidates: actors that sent more across lcores
 * than within, mostly to one peer. balance_plan() picks the moves, most
 * traffic first: the actor to its peer's lcore, or the peer to the
 * actor's, whichever leaves the lower load, and only into an lcore whose
 * load stays within (1 + balance_pct / 100) x the mean. A moved actor is
 * left where it is for HOLD_PERIODS periods, so no actor bounces.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "lca_eal.h"
#include "lca_actor_priv.h"
#include "lca_balance_priv.h"
#include "lca_migrate_priv.h"

#define DEFAULT_PERIOD_MS 10
#define DEFAULT_BALANCE_PCT 25
#define MIN_CROSS_SENDS 64 /* a period's cross-lcore sends worth a move */
#define HOLD_PERIODS 10
#define MAX_MOVES 64       /* a period */

/* What the controller saw of one actor at the end of the last period. */
struct snapshot {
	uint64_t cross;
	uint64_t local;
	uint64_t handled;
	uint64_t period_handled; /* handled during the last period */
	uint64_t moved_period;   /* 0: never moved */
};

bool balance_watching;

static struct {
	bool on;
	unsigned int main_lcore;
	uint64_t period_tsc;
	uint64_t next_tsc;
	uint64_t period;
	double bound;
	unsigned int max_actors;
	struct snapshot *snap;      /* [max_actors] */
	struct balance_cand *cand;  /* [max_actors] */
	unsigned int lcore_of_index[RTE_MAX_LCORE];
	unsigned int index_of_lcore[RTE_MAX_LCORE];
	unsigned int n_lcores;
} bal;

static int
by_cross_desc(const void *x, const void *y)
{
	const struct balance_cand *a = x, *b = y;

	return a->cross < b->cross ? 1 : a->cross > b->cross ? -1 : 0;
}

static bool
fixed(const struct balance_move *moves, unsigned int n, const struct balance_cand *c)
{
	for (unsigned int i = 0; i < n; i++)
		if (moves[i].actor == c->self || moves[i].actor == c->peer ||
		    moves[i].partner == c->self || moves[i].partner == c->peer)
			return true;
	return false;
}

unsigned int
balance_plan(struct balance_cand *cand, unsigned int n, uint64_t *load, unsigned int n_lcores,
	     double bound, struct balance_move *moves, unsigned int max_moves)
{
	uint64_t total = 0;
	double limit;
	unsigned int n_moves = 0;

	for (unsigned int l = 0; l < n_lcores; l++)
		total += load[l];
	if (total == 0 || n_lcores < 2)
		return 0;
	limit = bound * (double)total / n_lcores;
	qsort(cand, n, sizeof(*cand), by_cross_desc);
	for (unsigned int i = 0; i < n && n_moves < max_moves; i++) {
		struct balance_cand *c = &cand[i];
		double to_peer = (double)(load[c->peer_lcore] + c->weight);
		double to_self = (double)(load[c->lcore] + c->peer_weight);
		bool self_fits = to_peer <= limit, peer_fits = !c->peer_pinned && to_self <= limit;

		if (c->lcore == c->peer_lcore || fixed(moves, n_moves, c))
			continue;
		if (self_fits && (!peer_fits || to_peer <= to_self)) {
			load[c->lcore] -= c->weight;
			load[c->peer_lcore] += c->weight;
			moves[n_moves++] = (struct balance_move){
				.actor = c->self, .partner = c->peer, .to = c->peer_lcore,
			};
		} else if (peer_fits) {
			load[c->peer_lcore] -= c->peer_weight;
			load[c->lcore] += c->peer_weight;
			moves[n_moves++] = (struct balance_move){
				.actor = c->peer, .partner = c->self, .to = c->lcore,
			};
		}
	}
	return n_moves;
}

static inline uint64_t
read_u64(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/*
 * An actor's load: 1 when it handled messages in the period. Not the count
 * of messages: busy-polling lcores are all 100% busy, and a pair that moved
 * together handles many more messages than one that talks across lcores,
 * so counts would say an lcore is loaded because its actors got faster.
 */
static inline uint64_t
actor_load(const struct snapshot *s)
{
	return s->period_handled > 0;
}

/* Take the period's figures of every actor: loads, and the candidates. */
static unsigned int
survey(uint64_t *load)
{
	unsigned int count = actors_count(), n = 0;

	for (lca_actor_id_t id = 0; id < count; id++) {
		struct lca_actor *a = actor_lookup(id);
		struct snapshot *s = &bal.snap[id];
		uint64_t cross, local, handled;
		unsigned int lcore;

		if (a == NULL || actor_is_shared(a) ||
		    __atomic_load_n(&a->life, __ATOMIC_ACQUIRE) != ACTOR_ALIVE)
			continue;
		/* A pinned actor counts in its lcore's load, and is never a
		 * candidate; it may be a candidate's peer that stays put. */
		cross = read_u64(&a->cross_sends);
		local = read_u64(&a->local_sends);
		handled = read_u64(&a->handled);
		lcore = __atomic_load_n(&a->lcore, __ATOMIC_ACQUIRE);
		s->period_handled = handled - s->handled;
		load[bal.index_of_lcore[lcore]] += actor_load(s);
		if (!a->pinned &&
		    cross - s->cross >= MIN_CROSS_SENDS && cross - s->cross >= local - s->local &&
		    __atomic_load_n(&a->peer_count, __ATOMIC_RELAXED) >= PEER_COUNT_MAX / 2 &&
		    !__atomic_load_n(&a->move.migrating, __ATOMIC_ACQUIRE) &&
		    (s->moved_period == 0 || bal.period - s->moved_period > HOLD_PERIODS))
			bal.cand[n++] = (struct balance_cand){
				.self = id, .lcore = bal.index_of_lcore[lcore],
				.weight = actor_load(s),
				.peer = __atomic_load_n(&a->peer, __ATOMIC_RELAXED),
				.cross = cross - s->cross,
			};
		s->cross = cross;
		s->local = local;
		s->handled = handled;
	}
	return n;
}

/* Fill in each candidate's peer; drop those whose peer cannot move. */
static unsigned int
resolve_peers(unsigned int n)
{
	unsigned int kept = 0;

	for (unsigned int i = 0; i < n; i++) {
		struct balance_cand *c = &bal.cand[i];
		struct lca_actor *p = actor_lookup(c->peer);
		const struct snapshot *ps;

		if (p == NULL || actor_is_shared(p) || __atomic_load_n(&p->move.migrating, __ATOMIC_ACQUIRE))
			continue;
		ps = &bal.snap[c->peer];
		if (ps->moved_period != 0 && bal.period - ps->moved_period <= HOLD_PERIODS)
			continue;
		c->peer_lcore = bal.index_of_lcore[__atomic_load_n(&p->lcore, __ATOMIC_ACQUIRE)];
		c->peer_weight = actor_load(ps);
		c->peer_pinned = p->pinned;
		bal.cand[kept++] = *c;
	}
	return kept;
}

static void
balance_period(void)
{
	uint64_t load[RTE_MAX_LCORE] = { 0 };
	struct balance_move moves[MAX_MOVES];
	unsigned int n, n_moves;

	bal.period++;
	n = resolve_peers(survey(load));
	n_moves = balance_plan(bal.cand, n, load, bal.n_lcores, bal.bound, moves, MAX_MOVES);
	for (unsigned int i = 0; i < n_moves; i++) {
		struct lca_actor *a = actor_lookup(moves[i].actor);
		unsigned int to = bal.lcore_of_index[moves[i].to];
		char why[64];

		snprintf(why, sizeof(why), "auto: talks mostly to actor %u across lcores",
			 moves[i].partner);
		if (actor_migrate(a, to, why) == 0) {
			bal.snap[moves[i].actor].moved_period = bal.period;
			bal.snap[moves[i].partner].moved_period = bal.period;
		}
	}
}

static unsigned int
balance_hook(unsigned int lcore_id, uint64_t now_tsc, void *arg)
{
	(void)lcore_id;
	(void)arg;
	if (likely(now_tsc < bal.next_tsc))
		return 0;
	bal.next_tsc = now_tsc + bal.period_tsc;
	balance_period();
	return 0;
}

static const struct lca_lcore_hook hook = { .poll = balance_hook };

int
balance_init(const struct lca_runtime_conf *conf)
{
	unsigned int lcore_id, n = 0;
	int ret;

	memset(&bal, 0, sizeof(bal));
	if (conf->placement != LCA_PLACE_AUTO)
		return 0;
	if (conf->auto_balance_pct > 1000)
		return -EINVAL;
	LCA_LCORE_FOREACH(lcore_id) {
		bal.index_of_lcore[lcore_id] = n;
		bal.lcore_of_index[n++] = lcore_id;
	}
	bal.n_lcores = n;
	bal.max_actors = conf->max_actors;
	bal.main_lcore = rte_get_main_lcore();
	bal.period_tsc = rte_get_tsc_hz() / 1000 *
		(conf->auto_period_ms ? conf->auto_period_ms : DEFAULT_PERIOD_MS);
	bal.next_tsc = rte_rdtsc() + bal.period_tsc;
	bal.bound = 1.0 + (conf->auto_balance_pct ? conf->auto_balance_pct : DEFAULT_BALANCE_PCT) /
		100.0;
	bal.snap = rte_zmalloc("lca_balance", sizeof(*bal.snap) * conf->max_actors, 0);
	bal.cand = rte_zmalloc("lca_balance", sizeof(*bal.cand) * conf->max_actors, 0);
	if (bal.snap == NULL || bal.cand == NULL) {
		balance_cleanup();
		return -ENOMEM;
	}
	ret = lca_lcore_hook_add(bal.main_lcore, &hook);
	if (ret < 0) {
		balance_cleanup();
		return ret;
	}
	bal.on = true;
	balance_watching = true;
	return 0;
}

void
balance_cleanup(void)
{
	if (bal.on)
		lca_lcore_hook_remove(bal.main_lcore, &hook);
	balance_watching = false;
	rte_free(bal.snap);
	rte_free(bal.cand);
	memset(&bal, 0, sizeof(bal));
}
