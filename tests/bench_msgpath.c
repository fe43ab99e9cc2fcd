/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_msgpath: the cross-lcore message path alone, for instructions per
 * message under callgrind (no test: figures only; docs/benchmarks.md,
 * "Where a message's instructions go").
 *
 *   reqresp   reqresp's round-robin tp1 affinity shape: 4 query actors on
 *             the main lcore, 4 services on the next, 2 requests in flight
 *             a pair; each side answers with the envelope it got, as
 *             lca-reqresp's handlers do (its lookup work left out: the
 *             handler here is a counter);
 *   local     the reqresp shape with each pair on the main lcore, as
 *             lca-reqresp's pairs-local and auto placements put them: the
 *             local path (mailbox, run queue, turn), no channel;
 *   circular  lca-circular's 2 actors across lcores: one message in flight,
 *             each hop forwards the envelope with the count less one;
 *   idle      no message: --ms of loops, for what an empty poll costs.
 *
 * --guest drives the loops as an application would (lca_runtime_start(),
 * a loop on each lcore calling lca_runtime_poll(), lca_runtime_end()) in
 * place of lca_runtime_run(): the idle scenario then gives what a poll
 * from someone else's loop costs, beside lcactor's own empty loop.
 *
 * The measured window is between CALLGRIND_ZERO_STATS and
 * CALLGRIND_DUMP_STATS. Under valgrind one thread runs at a time, so an
 * lcore waiting for the other spins for its whole time slice: --sleepy
 * makes an lcore sleep 50 us after one empty loop (LCA_IDLE_SLEEP), which
 * hands the CPU over, so the dump counts what the messages cost plus one
 * empty loop per sleep; the program prints the loops and sleeps of each
 * lcore, so that the idle loops can be counted apart (the idle scenario
 * gives the cost of one).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <valgrind/callgrind.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_lcore.h"

#define PAIRS 4
#define IN_FLIGHT 2
#define SLEEP_US 50
#define RUN_LIMIT_MS 600000
#define T_REQ 1
#define T_REP 2

struct peer {
	lca_actor_id_t to;
	uint64_t left;   /* requests still to ask (query) */
	uint64_t got;
	uint64_t expect; /* replies that end it (query) */
};

static uint32_t actors_done;
static uint32_t actors_total;

static void
one_done(void)
{
	if (__atomic_add_fetch(&actors_done, 1, __ATOMIC_ACQ_REL) == actors_total)
		lca_runtime_stop();
}

static void
service_handler(lca_actor_id_t self, void *state, struct lca_msg *m)
{
	struct peer *p = state;

	(void)self;
	p->got++;
	m->type = T_REP;
	lca_reply(m);
}

static void
query_handler(lca_actor_id_t self, void *state, struct lca_msg *m)
{
	struct peer *p = state;

	(void)self;
	if (++p->got == p->expect) {
		lca_msg_free(m);
		one_done();
		return;
	}
	if (p->left > 0) {
		p->left--;
		m->type = T_REQ;
		lca_send(p->to, m);
	}
}

/* The hop count travels in the message; 0 ends the round. */
static void
hop_handler(lca_actor_id_t self, void *state, struct lca_msg *m)
{
	struct peer *p = state;
	uint64_t *hops = (uint64_t *)m->data;

	(void)self;
	p->got++;
	if (*hops == 0) {
		lca_msg_free(m);
		lca_runtime_stop();
		return;
	}
	(*hops)--;
	lca_send(p->to, m);
}

static lca_actor_id_t
spawn(lca_handler_fn h, unsigned int lcore)
{
	struct lca_actor_spec spec = {
		.handler = h,
		.state_size = sizeof(struct peer),
		.lcore = lcore,
		.mailbox_size = 1024,
		.pinned = true,
	};
	lca_actor_id_t id;

	if (lca_actor_spawn(&spec, &id) < 0) {
		fprintf(stderr, "bench_msgpath: spawn failed\n");
		exit(1);
	}
	return id;
}

static void
send_new(lca_actor_id_t from, lca_actor_id_t to, uint32_t type, uint64_t word)
{
	struct lca_msg *m;

	if (lca_msg_alloc(&m) != 0) {
		fprintf(stderr, "bench_msgpath: no envelope\n");
		exit(1);
	}
	m->type = type;
	memcpy(m->data, &word, sizeof(word));
	if (lca_send_from(from, to, m) != 0) {
		fprintf(stderr, "bench_msgpath: send failed\n");
		exit(1);
	}
}

/* Set the scenario up. @return the messages it carries (across lcores but
 * in the local scenario). */
static uint64_t
setup(const char *scenario, uint64_t n, unsigned int a, unsigned int b)
{
	if (strcmp(scenario, "reqresp") == 0 || strcmp(scenario, "local") == 0) {
		uint64_t per_pair = n / PAIRS / 2;
		unsigned int s_lcore = strcmp(scenario, "local") == 0 ? a : b;

		actors_total = PAIRS;
		for (unsigned int k = 0; k < PAIRS; k++) {
			lca_actor_id_t q = spawn(query_handler, a), s = spawn(service_handler, s_lcore);
			struct peer *qs = lca_actor_state(q);

			*qs = (struct peer){ .to = s, .left = per_pair - IN_FLIGHT,
					     .expect = per_pair };
			for (unsigned int i = 0; i < IN_FLIGHT; i++)
				send_new(q, s, T_REQ, 0);
		}
		return per_pair * PAIRS * 2;
	}
	if (strcmp(scenario, "circular") == 0) {
		lca_actor_id_t x = spawn(hop_handler, a), y = spawn(hop_handler, b);

		((struct peer *)lca_actor_state(x))->to = y;
		((struct peer *)lca_actor_state(y))->to = x;
		send_new(x, y, 0, n - 1);
		return n;
	}
	if (strcmp(scenario, "idle") == 0) {
		spawn(hop_handler, a);
		spawn(hop_handler, b);
		return 0;
	}
	return UINT64_MAX;
}

/* The application's own loop of --guest. */
static int
guest_loop(void *arg)
{
	(void)arg;
	while (lca_runtime_poll() >= 0)
		;
	return 0;
}

/* One run, lcactor's loops or (@p guest) the application's. */
static int
run(bool guest, unsigned int timeout_ms)
{
	int ret;

	if (!guest)
		return lca_runtime_run(timeout_ms);
	ret = lca_runtime_start(timeout_ms);
	if (ret < 0)
		return ret;
	rte_eal_mp_remote_launch(guest_loop, NULL, CALL_MAIN);
	rte_eal_mp_wait_lcore();
	return lca_runtime_end();
}

static int
usage(void)
{
	fprintf(stderr, "usage: bench_msgpath [EAL args] -- --scenario reqresp|local|circular|idle "
		"[--messages N] [--ms MS] [--sleepy] [--guest]\n");
	return 2;
}

int
main(int argc, char **argv)
{
	int app_argc, ret = lca_eal_init(argc, argv, &app_argc, &argv);
	const char *scenario = NULL;
	uint64_t n = 200000, msgs, t0, t1, loops = 0, sleeps = 0;
	unsigned int ms = 200, a, b, lcore_id;
	bool sleepy = false, guest = false;

	if (ret < 0)
		return 2;
	for (int i = 1; i < app_argc; i++) {
		if (strcmp(argv[i], "--scenario") == 0 && i + 1 < app_argc)
			scenario = argv[++i];
		else if (strcmp(argv[i], "--messages") == 0 && i + 1 < app_argc)
			n = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--ms") == 0 && i + 1 < app_argc)
			ms = (unsigned int)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--sleepy") == 0)
			sleepy = true;
		else if (strcmp(argv[i], "--guest") == 0)
			guest = true;
		else
			return usage();
	}
	if (scenario == NULL || n < 4 * PAIRS * IN_FLIGHT || rte_lcore_count() < 2)
		return usage();
	{
		struct lca_runtime_conf rc = { .idle = LCA_IDLE_SLEEP, .idle_sleep_after = 1,
					       .idle_sleep_us = SLEEP_US };

		if (lca_runtime_init(sleepy ? &rc : NULL) < 0)
			return 1;
	}
	a = rte_get_main_lcore();
	b = rte_get_next_lcore(a, 1, 0);
	msgs = setup(scenario, n, a, b);
	if (msgs == UINT64_MAX)
		return usage();
	lca_lcore_stats_reset();
	CALLGRIND_ZERO_STATS;
	t0 = rte_rdtsc();
	ret = run(guest, msgs == 0 ? ms : RUN_LIMIT_MS);
	t1 = rte_rdtsc();
	CALLGRIND_DUMP_STATS_AT(scenario);
	RTE_LCORE_FOREACH(lcore_id) {
		struct lca_lcore_stats st;

		if (lca_lcore_stats_get(lcore_id, &st) == 0) {
			printf("lcore %u: loops %" PRIu64 " sleeps %" PRIu64 " turns %" PRIu64 "\n",
			       lcore_id, st.loops, st.sleeps, st.turns);
			loops += st.loops;
			sleeps += st.sleeps;
		}
	}
	printf("bench_msgpath %s: %" PRIu64 " messages, %" PRIu64 " loops, %" PRIu64
	       " sleeps, %.1f ns a message (noisy; under valgrind meaningless)\n", scenario, msgs,
	       loops, sleeps, msgs ? (double)(t1 - t0) * 1e9 / rte_get_tsc_hz() / msgs : 0.0);
	lca_runtime_cleanup();
	lca_eal_cleanup();
	return ret < 0 && msgs != 0 ? 1 : 0;
}
