/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lca-hello: the smoke app. Actors on every lcore pass tokens around a ring
 * until each token has made its hops; then the topology and the runtime's
 * counters are printed, and the message count is checked exactly.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>

#include "lca_actor.h"
#include "app_main.h"
#include "app_cli.h"
#include "lca_eal.h"
#include "app_report.h"
#include "app_result.h"
#include "lca_topo.h"
#include "app_verdict.h"

struct hello_conf {
	uint64_t tokens;
	uint64_t hops;
	uint64_t per_lcore;
	uint64_t timeout_s;
	const char *json_path;
};

struct token {
	uint64_t hops_left;
};

static unsigned int n_actors;
static uint64_t tokens_done;
static uint64_t tokens_total;
static uint64_t retries; /* atomic: forwards refused for room, tried again */

static void
hello_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct token *t = (struct token *)msg->data;

	(void)state;
	if (t->hops_left == 0) {
		if (__atomic_add_fetch(&tokens_done, 1, __ATOMIC_RELAXED) == tokens_total)
			lca_runtime_stop();
		return;
	}
	t->hops_left--;
	/* Reuse the envelope: a forward costs no allocation. A channel to
	 * another lcore may be full: then the token comes back here (every
	 * mailbox holds every token) and is forwarded again, never dropped. */
	if (lca_send((self + 1) % n_actors, msg) == 0)
		return;
	t->hops_left++;
	__atomic_add_fetch(&retries, 1, __ATOMIC_RELAXED);
	if (lca_send(self, msg) != 0)
		fprintf(stderr, "lca-hello: token lost at actor %u\n", self); /* counts tell */
}

#define AT(field) APP_OPT_AT(struct hello_conf, field)

static const struct app_opt options[] = {
	{ "tokens", 0, APP_OPT_UINT, AT(tokens), .min = 1, .max = 1u << 20, .metavar = "N",
	  .help = "tokens in flight (default 64)" },
	{ "hops", 0, APP_OPT_UINT, AT(hops), .min = 0, .max = UINT32_MAX, .metavar = "N",
	  .help = "hops per token (default 10000)" },
	{ "per-lcore", 0, APP_OPT_UINT, AT(per_lcore), .min = 1, .max = 1024, .metavar = "N",
	  .help = "actors per lcore (default 2)" },
	{ "timeout", 0, APP_OPT_UINT, AT(timeout_s), .min = 1, .max = UINT32_MAX / 1000,
	  .metavar = "SEC", .help = "give up after SEC seconds (default 120)" },
	{ "json", 0, APP_OPT_OUTPUT, AT(json_path), .metavar = "FILE",
	  .help = "write the counts as JSON (docs/json.md)" },
	{ NULL },
};

static const struct app_opt_table table = {
	.prog = "lca-hello", .opts = options, .eal = true, .column = 18,
	.about = "Smoke app: actors on every lcore pass tokens around a ring.\n",
};

static int
parse_args(int argc, char **argv, void *conf)
{
	struct hello_conf *c = conf;

	*c = (struct hello_conf){ .tokens = 64, .hops = 10000, .per_lcore = 2, .timeout_s = 120 };
	return app_opt_parse(argc, argv, &table, c, NULL);
}

static int
spawn_ring(const struct hello_conf *c)
{
	unsigned int lcore_id;

	RTE_LCORE_FOREACH(lcore_id) {
		for (uint64_t k = 0; k < c->per_lcore; k++) {
			/* Room for every token in every mailbox: a token
			 * sent back to its own actor always fits (and at
			 * least 2, the smallest mailbox: --tokens 1). */
			struct lca_actor_spec spec = {
				.handler = hello_handler,
				.lcore = lcore_id,
				.throughput = 32,
				.mailbox_size = RTE_MAX(2u, rte_align32pow2((uint32_t)c->tokens)),
				.name = "hello",
			};
			lca_actor_id_t id;
			int ret = lca_actor_spawn(&spec, &id);

			if (ret < 0) {
				fprintf(stderr, "lca-hello: spawn failed: %s\n", strerror(-ret));
				return ret;
			}
		}
	}
	n_actors = lca_actor_count();
	return 0;
}

/* Tokens start on the main lcore's actors: from the main lcore a send
 * goes straight into their mailboxes, which hold every token, while the
 * way into another lcore (its inbox) holds fewer. */
static int
send_tokens(const struct hello_conf *c)
{
	lca_actor_id_t starters[1024];
	unsigned int n_starters = 0;

	for (lca_actor_id_t id = 0; id < n_actors && n_starters < RTE_DIM(starters); id++)
		if (lca_actor_lcore(id) == (int)rte_get_main_lcore())
			starters[n_starters++] = id;
	if (n_starters == 0)
		return -ENOENT;
	for (uint64_t i = 0; i < c->tokens; i++) {
		struct lca_msg *m;
		int ret = lca_msg_alloc(&m);

		if (ret == 0) {
			((struct token *)m->data)->hops_left = c->hops;
			m->len = sizeof(struct token);
			ret = lca_send(starters[i % n_starters], m);
			if (ret < 0)
				lca_msg_free(m);
		}
		if (ret < 0) {
			fprintf(stderr, "lca-hello: cannot start token %" PRIu64 ": %s\n", i,
				strerror(-ret));
			return ret;
		}
	}
	return 0;
}

static uint64_t
handled_total(void)
{
	uint64_t handled = 0;

	for (unsigned int i = 0; i < n_actors; i++) {
		struct lca_actor_stats s;

		lca_actor_stats_get(i, &s);
		handled += s.handled;
	}
	return handled;
}

/* Every token made hops + 1 deliveries; nothing else was sent. */
static int
check_counts(const struct hello_conf *c)
{
	uint64_t handled = handled_total(), expected = c->tokens * (c->hops + 1) + retries;

	printf("messages handled: %" PRIu64 " (expected %" PRIu64 ": tokens x (hops + 1), and %"
	       PRIu64 " forwards tried again for room)\n", handled, expected, retries);
	if (handled != expected || tokens_done != c->tokens) {
		fprintf(stderr, "lca-hello: count mismatch: handled %" PRIu64 ", tokens done %" PRIu64
				"\n", handled, tokens_done);
		return -EIO;
	}
	return 0;
}

/* No measured series: the smoke app records its counts and placement, and
 * its verdict says that it times nothing. */
static int
finish(const struct hello_conf *c, bool ok)
{
	json_t *rec = app_result_new(json_pack("{s:I, s:I, s:I}", "tokens", (json_int_t)c->tokens,
					       "hops", (json_int_t)c->hops, "per_lcore",
					       (json_int_t)c->per_lcore));
	json_t *place = json_object_get(rec, "placement");
	int ret;

	for (unsigned int i = 0; i < n_actors; i++)
		json_array_append_new(place, json_pack("{s:i, s:i}", "actor", (int)i, "lcore",
						       lca_actor_lcore(i)));
	app_result_add(rec, json_pack("{s:s, s:I, s:I}", "name", "ring", "handled",
				      (json_int_t)handled_total(), "expected",
				      (json_int_t)(c->tokens * (c->hops + 1) + retries)));
	app_verdict_add(rec, &(struct app_verdict_row){
		.config = "tokens around the ring", .kind = APP_VERDICT_RATE,
		.score = (double)handled_total(), .ci_half = NAN, .unit = "messages handled",
		.no_floor_why = "a smoke run: it counts its tokens and times nothing",
		.floor_moved_pct = NAN, .window_s = NAN });
	ret = app_result_finish(rec, ok, c->json_path);
	json_decref(rec);
	return ret;
}

static int
run(void *arg)
{
	const struct hello_conf *conf = arg;
	/* Envelopes for every token, on top of the pool's default room. */
	struct lca_runtime_conf rconf = { .msgs_per_node = 65535 + (unsigned int)conf->tokens };
	int ret = lca_runtime_init(&rconf);

	if (ret < 0)
		return ret;
	tokens_total = conf->tokens;
	ret = spawn_ring(conf);
	if (ret == 0)
		ret = send_tokens(conf);
	if (ret == 0)
		ret = lca_runtime_run((unsigned int)(conf->timeout_s * 1000));
	if (ret == -ETIMEDOUT)
		fprintf(stderr, "lca-hello: not done after %" PRIu64 " s (--timeout)\n",
			conf->timeout_s);

	app_report_machine(stdout);
	lca_topo_print_eal(stdout);
	app_report_actors(stdout);
	app_report_lcores(stdout);
	app_report_send_errors(stdout);
	if (ret == 0)
		ret = check_counts(conf);
	if (finish(conf, ret == 0) < 0 && ret == 0)
		ret = -EIO;
	lca_runtime_cleanup();
	return ret;
}

int
main(int argc, char **argv)
{
	struct hello_conf conf;
	const struct app_spec app = {
		.name = "lca-hello", .parse = parse_args, .opts = &table, .run = run,
		.conf = &conf,
	};

	return app_main(argc, argv, &app);
}
