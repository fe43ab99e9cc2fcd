/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lca-hello: the smoke app. Actors on every lcore pass tokens around a ring
 * until each token has made its hops; then the topology and the runtime's
 * counters are printed, and the message count is checked exactly.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>

#include "lca_actor.h"
#include "lca_app.h"
#include "lca_cli.h"
#include "lca_eal.h"
#include "lca_report.h"
#include "lca_topo.h"

struct hello_conf {
	uint64_t tokens;
	uint64_t hops;
	uint64_t per_lcore;
};

struct token {
	uint64_t hops_left;
};

static unsigned int n_actors;
static uint64_t tokens_done;
static uint64_t tokens_total;

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
	/* Reuse the envelope: a forward costs no allocation. */
	if (lca_send((self + 1) % n_actors, msg) != 0)
		fprintf(stderr, "lca-hello: forward from %u failed\n", self);
}

static void
usage(const char *prog)
{
	printf("Usage: %s [EAL args] -- [options]\n"
	       "Smoke app: actors on every lcore pass tokens around a ring.\n"
	       "  --tokens N      tokens in flight (default 64)\n"
	       "  --hops N        hops per token (default 10000)\n"
	       "  --per-lcore N   actors per lcore (default 2)\n"
	       "  --topology      print the lcores' topology and exit\n"
	       "  --help          this text\n",
	       prog);
}

static int
parse_args(int argc, char **argv, void *conf)
{
	struct hello_conf *c = conf;
	static const struct option opts[] = {
		{ "tokens", required_argument, NULL, 't' },
		{ "hops", required_argument, NULL, 'H' },
		{ "per-lcore", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, idx = 0;

	*c = (struct hello_conf){ .tokens = 64, .hops = 10000, .per_lcore = 2 };
	optind = 1;
	while ((opt = getopt_long(argc, argv, "", opts, &idx)) != -1) {
		int ret = 0;

		switch (opt) {
		case 't':
			ret = lca_cli_uint(optarg, 1, 1u << 20, &c->tokens);
			break;
		case 'H':
			ret = lca_cli_uint(optarg, 0, UINT32_MAX, &c->hops);
			break;
		case 'p':
			ret = lca_cli_uint(optarg, 1, 1024, &c->per_lcore);
			break;
		case 'h':
			usage(argv[0]);
			return LCA_APP_DONE;
		default:
			return -EINVAL;
		}
		if (ret < 0) {
			fprintf(stderr, "lca-hello: bad value '%s' for --%s\n", optarg,
				opts[idx].name);
			return ret;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "lca-hello: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

static int
spawn_ring(const struct hello_conf *c)
{
	unsigned int lcore_id;

	RTE_LCORE_FOREACH(lcore_id) {
		for (uint64_t k = 0; k < c->per_lcore; k++) {
			struct lca_actor_spec spec = {
				.handler = hello_handler,
				.lcore = lcore_id,
				.throughput = 32,
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

static int
send_tokens(const struct hello_conf *c)
{
	for (uint64_t i = 0; i < c->tokens; i++) {
		struct lca_msg *m;
		int ret = lca_msg_alloc(&m);

		if (ret == 0) {
			((struct token *)m->data)->hops_left = c->hops;
			m->len = sizeof(struct token);
			ret = lca_send((lca_actor_id_t)(i % n_actors), m);
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

/* Every token made hops + 1 deliveries; nothing else was sent. */
static int
check_counts(const struct hello_conf *c)
{
	uint64_t handled = 0, expected = c->tokens * (c->hops + 1);

	for (unsigned int i = 0; i < n_actors; i++) {
		struct lca_actor_stats s;

		lca_actor_stats_get(i, &s);
		handled += s.handled;
	}
	printf("messages handled: %" PRIu64 " (expected %" PRIu64 ")\n", handled, expected);
	if (handled != expected || tokens_done != c->tokens) {
		fprintf(stderr, "lca-hello: count mismatch: handled %" PRIu64 ", tokens done %" PRIu64
				"\n", handled, tokens_done);
		return -EIO;
	}
	return 0;
}

static int
run(void *arg)
{
	const struct hello_conf *conf = arg;
	struct lca_runtime_conf rconf = { 0 };
	int ret = lca_runtime_init(&rconf);

	if (ret < 0)
		return ret;
	tokens_total = conf->tokens;
	ret = spawn_ring(conf);
	if (ret == 0)
		ret = send_tokens(conf);
	if (ret == 0)
		ret = lca_runtime_run(0);

	lca_report_machine(stdout);
	lca_topo_print_eal(stdout);
	lca_report_actors(stdout);
	lca_report_lcores(stdout);
	lca_report_send_errors(stdout);
	if (ret == 0)
		ret = check_counts(conf);
	lca_runtime_cleanup();
	return ret;
}

int
main(int argc, char **argv)
{
	struct hello_conf conf;
	const struct lca_app app = {
		.name = "lca-hello", .parse = parse_args, .run = run, .conf = &conf,
	};

	return lca_app_main(argc, argv, &app);
}
