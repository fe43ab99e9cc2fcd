/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * first_actor: one actor, from spawn to stop.
 *
 * The main lcore brings up EAL and the runtime, spawns a "greeter" actor
 * on the lcore after the main one (or on the main one, alone), sends it
 * --msgs HELLO messages from outside any actor, and runs the lcores'
 * loops. The greeter counts the messages in its own state (touched by its
 * lcore only) and stops the run at the last one. The main lcore then
 * reads the greeter's state and tears down.
 *
 *   first_actor -l 0-1 --no-huge --no-pci --in-memory -- --msgs 5
 *
 * prints one line a message ("greeter on lcore 1: hello 1 of 5", ...) and
 * "greeter handled 5 messages; run: stopped by the greeter".
 * README.md shows the code from HELLO on; tests/check_docs.py checks that
 * it is this file's.
 */
#define ALLOW_EXPERIMENTAL_API 1 /* lcactor's and DPDK's EXPERIMENTAL calls */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>

#include <lca_actor.h>
#include <lca_eal.h>

static unsigned int msgs_wanted = 3;

/* --msgs N (1 to 1000) or --help: @return 1, 0 for --help, -1 for a bad
 * argument (said on stderr). */
static int
parse_msgs(int argc, char **argv)
{
	char *end;
	long n;

	if (argc == 1)
		return 1;
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
		return 0;
	if (argc != 3 || strcmp(argv[1], "--msgs") != 0) {
		fprintf(stderr, "first_actor: unknown argument '%s'\n", argv[1]);
		return -1;
	}
	n = strtol(argv[2], &end, 10);
	if (*end != '\0' || n < 1 || n > 1000) {
		fprintf(stderr, "first_actor: --msgs %s: give a number from 1 to 1000\n", argv[2]);
		return -1;
	}
	msgs_wanted = (unsigned int)n;
	return 1;
}

/* EAL from the arguments before "--", then ours. @return -1 when both are
 * good, else the exit status (0 after --help, 1 or 2). */
static int
bring_up(int argc, char **argv)
{
	int app_argc, ret;
	char **app_argv;

	if (lca_eal_init(argc, argv, &app_argc, &app_argv) < 0)
		return 1;
	if ((ret = parse_msgs(app_argc, app_argv)) > 0)
		return -1;
	fprintf(ret == 0 ? stdout : stderr, "usage: %s [EAL args] -- [--msgs N]\n", argv[0]);
	lca_eal_cleanup();
	return ret == 0 ? 0 : 2;
}

#define HELLO 1 /* a message type: the application's own numbers */

/* The greeter's handler: one message a call, on the greeter's lcore. */
static void
greeter(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	unsigned int *got = state; /* its state: zeroed at spawn, its lcore's alone */

	(void)self;
	if (msg->type != HELLO)
		return;
	printf("greeter on lcore %u: hello %u of %u\n", rte_lcore_id(), ++*got, msgs_wanted);
	if (*got == msgs_wanted)
		lca_runtime_stop(); /* lca_runtime_run() returns 0 */
} /* the runtime frees msg when the handler returns */

int
main(int argc, char **argv)
{
	struct lca_actor_spec spec = { .handler = greeter, .state_size = sizeof(unsigned int),
				       .name = "greeter" };
	lca_actor_id_t id;
	struct lca_msg *m;
	int ret = bring_up(argc, argv); /* EAL, then --msgs */

	if (ret >= 0)
		return ret; /* --help, or a bad argument */
	/* Its home: the first lcore after the main one, if any. */
	spec.lcore = rte_lcore_count() > 1 ? rte_get_next_lcore(-1, 1, 0) : rte_get_main_lcore();
	if (lca_runtime_init(NULL) < 0 || lca_actor_spawn(&spec, &id) < 0)
		return 1;
	for (unsigned int i = 0; i < msgs_wanted; i++) {
		if (lca_msg_alloc(&m) < 0)
			return 1;
		m->type = HELLO;
		if (lca_send(id, m) < 0) { /* refused: the message is still ours */
			lca_msg_free(m);
			return 1;
		}
	}
	ret = lca_runtime_run(10 * 1000); /* the loops, until a stop or 10 s */
	printf("greeter handled %u messages; run: %s\n", *(unsigned int *)lca_actor_state(id),
	       ret == 0 ? "stopped by the greeter" : strerror(-ret));
	lca_runtime_cleanup();
	lca_eal_cleanup();
	return ret == 0 ? 0 : 1;
}
