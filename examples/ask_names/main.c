/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ask_names: find an actor by its name, ask it, and get the answer or a
 * timeout.
 *
 * Three actors, each registered under a name (lca_actor_register()), so
 * that none needs another's id in a global:
 *   - "store", on the lcore after the main one, answers a GET of a key
 *     with the key's value (its square) in the same envelope (lca_reply());
 *   - "mute", beside it, takes every question and never answers;
 *   - "client", on the main lcore, looks both up (lca_actor_lookup()),
 *     asks the store for keys 1 .. --keys and the mute once (lca_ask():
 *     the store within 5 s, the mute within 100 ms), and counts what
 *     comes back: a reply, with LCA_MSG_F_REPLY and the ask's id, or an
 *     LCA_TYPE_TIMEOUT notice, never both. A name nobody has is looked up
 *     too: -ENOENT.
 * When every ask has its reply or its timeout, the client stops the run.
 *
 *   ask_names -l 0-1 --no-huge --no-pci --in-memory -- --keys 5
 *
 * ends with "client: 5 answers, 5 right; 1 timeout" and the runtime's
 * ask counters ("asks: 6 asked, 5 replied, 1 timed out, 0 late").
 */
#define ALLOW_EXPERIMENTAL_API 1 /* lca_ask() and the names are EXPERIMENTAL */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>

#include <lca_actor.h>
#include <lca_eal.h>

#define GET 1   /* data: a uint32_t key */
#define VALUE 2 /* data: the key, then its uint32_t value */
#define START 3
/* The store answers at once; 5 s covers an lcore descheduled on a busy
 * host. The mute never answers: its ask ends at its timeout. */
#define STORE_TIMEOUT_US (5000 * 1000)
#define MUTE_TIMEOUT_US (100 * 1000)
#define KEYS_MAX 60 /* within the asks an actor may have waiting (64) */

struct client_state {
	unsigned int keys;     /* asks to the store */
	unsigned int answers;  /* replies */
	unsigned int right;    /* replies with the right value */
	unsigned int timeouts; /* LCA_TYPE_TIMEOUT notices */
};

/* The store: each GET answered with the same envelope; the ask's id rides
 * in it (data[24..32)), so lca_reply() makes it the ask's reply. */
static void
store(lca_actor_id_t self, void *state, struct lca_msg *m)
{
	uint32_t kv[2];

	(void)self;
	(void)state;
	if (m->type != GET)
		return;
	memcpy(&kv[0], m->data, sizeof(kv[0]));
	kv[1] = kv[0] * kv[0];
	memcpy(m->data, kv, sizeof(kv));
	m->len = sizeof(kv);
	m->type = VALUE;
	lca_reply(m); /* refused: the runtime frees m, the asker gets a timeout */
}

/* The mute: takes every question, answers none. */
static void
mute(lca_actor_id_t self, void *state, struct lca_msg *m)
{
	(void)self;
	(void)state;
	(void)m;
}

/* Ask the actor named @p name for @p key, to answer within @p timeout_us.
 * @return 0, or a negative errno (the name not found, the ask refused). */
static int
ask_by_name(lca_actor_id_t self, const char *name, uint32_t key, uint64_t timeout_us)
{
	lca_actor_id_t to;
	struct lca_msg *m;
	int ret = lca_actor_lookup(name, &to);

	if (ret < 0 || (ret = lca_msg_alloc(&m)) < 0)
		return ret;
	m->type = GET;
	m->len = sizeof(key);
	memcpy(m->data, &key, sizeof(key));
	ret = lca_ask(self, to, m, timeout_us, NULL);
	if (ret < 0)
		lca_msg_free(m); /* a refused ask leaves the message ours */
	return ret;
}

static void
start_asking(lca_actor_id_t self, struct client_state *c)
{
	lca_actor_id_t store_id;
	int ret = lca_actor_lookup("store", &store_id);

	if (ret == 0)
		printf("client: \"store\" is actor %" PRIu32 " on lcore %d\n", store_id,
		       lca_actor_lcore(store_id));
	ret = lca_actor_lookup("nobody", &store_id);
	printf("client: \"nobody\": %s\n", ret == -ENOENT ? "no actor has that name" : "?");
	for (uint32_t key = 1; key <= c->keys; key++)
		if ((ret = ask_by_name(self, "store", key, STORE_TIMEOUT_US)) < 0)
			printf("client: ask for key %u refused: %s\n", key, strerror(-ret));
	if ((ret = ask_by_name(self, "mute", 7, MUTE_TIMEOUT_US)) < 0)
		printf("client: ask of mute refused: %s\n", strerror(-ret));
}

static void
client(lca_actor_id_t self, void *state, struct lca_msg *m)
{
	struct client_state *c = state;
	uint32_t kv[2];

	if (m->type == START) {
		start_asking(self, c);
		return;
	}
	if (m->type == VALUE && (m->flags & LCA_MSG_F_REPLY)) {
		memcpy(kv, m->data, sizeof(kv));
		printf("client: key %u is %u (ask %#" PRIx64 ")\n", kv[0], kv[1],
		       lca_msg_req_id(m));
		c->answers++;
		c->right += kv[1] == kv[0] * kv[0];
	} else if (m->type == LCA_TYPE_TIMEOUT) { /* data: a struct lca_timeout */
		printf("client: no answer in time from actor %" PRIu32 " (ask %#" PRIx64 ")\n",
		       ((const struct lca_timeout *)m->data)->target, lca_msg_req_id(m));
		c->timeouts++;
	}
	if (c->answers + c->timeouts == c->keys + 1)
		lca_runtime_stop();
}

/* Spawn an actor on @p lcore and give it @p name. */
static int
spawn_named(const char *name, lca_handler_fn fn, size_t state, unsigned int lcore,
	    lca_actor_id_t *id)
{
	struct lca_actor_spec spec = { .handler = fn, .state_size = state, .lcore = lcore,
				       .name = name };
	int ret = lca_actor_spawn(&spec, id);

	return ret < 0 ? ret : lca_actor_register(name, *id);
}

/* --keys N (1 to KEYS_MAX; none: 5) or --help: @return N, 0 for --help,
 * -1 for a bad argument (said on stderr). */
static int
parse_keys(int argc, char **argv)
{
	char *end;
	long n;

	if (argc == 1)
		return 5;
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
		return 0;
	if (argc != 3 || strcmp(argv[1], "--keys") != 0) {
		fprintf(stderr, "ask_names: unknown argument '%s'\n", argv[1]);
		return -1;
	}
	n = strtol(argv[2], &end, 10);
	if (*end != '\0' || n < 1 || n > KEYS_MAX) {
		fprintf(stderr, "ask_names: --keys %s: give a number from 1 to %d\n", argv[2],
			KEYS_MAX);
		return -1;
	}
	return (int)n;
}

int
main(int argc, char **argv)
{
	lca_actor_id_t store_id, mute_id, client_id;
	struct lca_ask_stats st;
	struct client_state *c;
	struct lca_msg *m;
	unsigned int far, all_right;
	int app_argc, keys, ret;
	char **app_argv;

	if (lca_eal_init(argc, argv, &app_argc, &app_argv) < 0)
		return 1;
	if ((keys = parse_keys(app_argc, app_argv)) <= 0) {
		fprintf(keys == 0 ? stdout : stderr, "usage: %s [EAL args] -- [--keys N]\n",
			argv[0]);
		lca_eal_cleanup();
		return keys == 0 ? 0 : 2;
	}
	/* The first lcore after the main one, if any. */
	far = rte_lcore_count() > 1 ? rte_get_next_lcore(-1, 1, 0) : rte_get_main_lcore();
	if (lca_runtime_init(NULL) < 0 ||
	    spawn_named("store", store, 0, far, &store_id) < 0 ||
	    spawn_named("mute", mute, 0, far, &mute_id) < 0 ||
	    spawn_named("client", client, sizeof(*c), rte_get_main_lcore(), &client_id) < 0 ||
	    lca_msg_alloc(&m) < 0) {
		fprintf(stderr, "ask_names: could not start the runtime and its actors\n");
		return 1;
	}
	c = lca_actor_state(client_id); /* the loops are not running yet */
	c->keys = (unsigned int)keys;
	m->type = START;
	if (lca_send(client_id, m) < 0)
		return 1;
	ret = lca_runtime_run(10 * 1000);
	printf("client: %u answers, %u right; %u timeout%s\n", c->answers, c->right,
	       c->timeouts, c->timeouts == 1 ? "" : "s");
	all_right = c->right == (unsigned int)keys && c->timeouts == 1;
	lca_ask_stats_get(&st);
	printf("asks: %" PRIu64 " asked, %" PRIu64 " replied, %" PRIu64 " timed out, %" PRIu64
	       " late; run: %s\n", st.asked, st.replied, st.timed_out, st.late,
	       ret == 0 ? "stopped by the client" : strerror(-ret));
	lca_runtime_cleanup();
	lca_eal_cleanup();
	return ret == 0 && all_right ? 0 : 1; /* c was freed with the runtime */
}
