/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One node of e2e_rejoin.sh: two processes over net_af_packet (a veth
 * pair between two network namespaces the script makes) or net_memif (the
 * --vdev the script gives: the node table is the same), or over UCX on
 * 127.0.0.1 (--ucx PORT: node N listens on PORT + 20 * (N - 1) + its
 * lcore), node 2 killed with SIGKILL and started again while node 1 runs.
 *
 *   remote_rejoin [EAL args] -- --node 1|2 [--rounds N] [--keep] [--ucx PORT]
 *
 * Node 2 echoes. Node 1 pings node 2's echo every 10 ms, N replies (100)
 * before the kill and N after the rejoin (--keep: N more, no rejoin to
 * wait for: node 2 is only slowed), and prints, as they happen,
 * "ready" (the script's cue to kill), "down" (its watcher's NODE_DOWN),
 * "up" (NODE_UP), and at the end one line of counts: pings sent, sends
 * refused (-EHOSTDOWN), replies, downs, ups, the link's lost_on_dead
 * and stale_session, and the pings neither answered nor counted lost. Exit 0 when N replies came after the rejoin, 1 past
 * 60 s.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "app_pair.h"
#include "lca_remote.h"

#define T_PING 1
#define ECHO_ID 0

struct counts {
	uint64_t replies;
	unsigned int downs, ups;
};

static struct counts counts;

static void
echo_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	(void)self;
	(void)state;
	if (msg->type == T_PING)
		(void)lca_reply(msg); /* refused: the runtime frees it */
}

/* Node 1's: the replies, and its node 2 watch. */
static void
pinger_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	(void)self;
	(void)state;
	if (msg->type == LCA_TYPE_NODE_DOWN) {
		__atomic_fetch_add(&counts.downs, 1, __ATOMIC_RELAXED);
		printf("down\n");
	} else if (msg->type == LCA_TYPE_NODE_UP) {
		__atomic_fetch_add(&counts.ups, 1, __ATOMIC_RELAXED);
		printf("up\n");
	} else if (msg->type == T_PING) {
		__atomic_fetch_add(&counts.replies, 1, __ATOMIC_RELAXED);
	}
	fflush(stdout);
}

/* The pair's node table (apps/common/app_pair.h): node 1 on lcore 0,
 * node 2 on lcore 1, over the one ethdev port, or over UCX from
 * @p ucx_port (0: ethdev). */
static void
node_conf(struct lca_remote_conf *c, unsigned int self, unsigned int ucx_port)
{
	struct app_pair pair = { .active = true, .is_peer = self == 2 };

	snprintf(pair.transport, sizeof(pair.transport), "%s", ucx_port ? "ucx" : "af_packet");
	snprintf(pair.sock, sizeof(pair.sock), "%u", ucx_port);
	snprintf(pair.self_lcores, sizeof(pair.self_lcores), "%u", self - 1);
	snprintf(pair.peer_lcores, sizeof(pair.peer_lcores), "%u", 2 - self);
	app_pair_conf(&pair, c);
}

static int
spawn(lca_handler_fn h, lca_actor_id_t *id)
{
	struct lca_actor_spec spec = {
		.handler = h, .lcore = rte_get_main_lcore(), .name = "rejoin",
	};

	return lca_actor_spawn(&spec, id);
}

/* One ping to node 2's echo, from @p pinger. @return whether it was taken. */
static bool
ping(lca_actor_id_t pinger, uint64_t *refused)
{
	struct lca_msg *m;
	int ret;

	if (lca_msg_alloc(&m) != 0)
		return false;
	m->type = T_PING;
	ret = lca_send_from(pinger, lca_remote_ref(2, ECHO_ID), m);
	if (ret != 0) {
		lca_msg_free(m);
		*refused += ret == -EHOSTDOWN;
	}
	return ret == 0;
}

/* Ping every 10 ms until @p done holds; @return false after 60 s. */
static bool
ping_until(lca_actor_id_t pinger, uint64_t *sent, uint64_t *refused,
	   bool (*done)(uint64_t), uint64_t arg)
{
	for (unsigned int t = 0; t < 6000; t++) {
		if (done(arg))
			return true;
		*sent += ping(pinger, refused);
		lca_runtime_run(10);
	}
	return false;
}

static bool
replies_reach(uint64_t n)
{
	return __atomic_load_n(&counts.replies, __ATOMIC_RELAXED) >= n;
}

static bool
back_up(uint64_t n)
{
	(void)n;
	return __atomic_load_n(&counts.ups, __ATOMIC_RELAXED) > 0;
}

static bool
always(uint64_t n)
{
	(void)n;
	return true;
}

/* @p keep: the link is expected to stay up (no rejoin to wait for). */
static int
run_node1(unsigned int rounds, bool keep)
{
	struct lca_remote_link_stats ls;
	uint64_t sent = 0, refused = 0, after;
	lca_actor_id_t pinger;
	bool ok;

	if (spawn(pinger_handler, &pinger) != 0 || lca_remote_watch(pinger, lca_remote_ref(2, 0)) != 0)
		return 1;
	ok = ping_until(pinger, &sent, &refused, replies_reach, rounds);
	printf("ready\n");
	fflush(stdout);
	ok = ok && ping_until(pinger, &sent, &refused, keep ? always : back_up, 0);
	after = __atomic_load_n(&counts.replies, __ATOMIC_RELAXED) + rounds;
	ok = ok && ping_until(pinger, &sent, &refused, replies_reach, after);
	/* The last replies on their way: every ping taken is then a reply or
	 * counted lost (but one node 2 took and died before answering). */
	for (unsigned int t = 0; t < 100; t++) {
		lca_remote_link_stats_get(2, &ls);
		if (__atomic_load_n(&counts.replies, __ATOMIC_RELAXED) + ls.lost_on_dead >= sent)
			break;
		lca_runtime_run(10);
	}
	printf("counts: %" PRIu64 " pings sent, %" PRIu64 " refused, %" PRIu64 " replies, %u downs, "
	       "%u ups, %" PRIu64 " lost_on_dead, %" PRIu64 " stale_session, node 2 %s; "
	       "unaccounted %" PRId64 "\n",
	       sent, refused, counts.replies, counts.downs, counts.ups, ls.lost_on_dead,
	       ls.stale_session, lca_remote_node_up(2) ? "up" : "down",
	       (int64_t)(sent - counts.replies - ls.lost_on_dead));
	return ok ? 0 : 1;
}

int
main(int argc, char **argv)
{
	struct lca_runtime_conf rc = { .msgs_per_node = 8191 };
	struct lca_remote_conf c;
	unsigned int node = 0, rounds = 100, ucx_port = 0;
	bool keep = false;
	lca_actor_id_t echo;
	char **app_argv;
	int app_argc, ret;

	if (lca_eal_init(argc, argv, &app_argc, &app_argv) != 0)
		return 1;
	for (int i = 1; i < app_argc; i++) {
		if (strcmp(app_argv[i], "--keep") == 0)
			keep = true;
		else if (strcmp(app_argv[i], "--node") == 0 && i + 1 < app_argc)
			node = (unsigned int)atoi(app_argv[++i]);
		else if (strcmp(app_argv[i], "--rounds") == 0 && i + 1 < app_argc)
			rounds = (unsigned int)atoi(app_argv[++i]);
		else if (strcmp(app_argv[i], "--ucx") == 0 && i + 1 < app_argc)
			ucx_port = (unsigned int)atoi(app_argv[++i]);
		else
			node = 0;
	}
	if ((node != 1 && node != 2) || rounds == 0 || ucx_port > 65000) {
		fprintf(stderr, "usage: remote_rejoin [EAL args] -- --node 1|2 [--rounds N] [--keep] "
			"[--ucx PORT]\n");
		lca_eal_cleanup();
		return 2;
	}
	ret = lca_runtime_init(&rc);
	if (ret == 0 && node == 2)
		ret = spawn(echo_handler, &echo) != 0 || echo != ECHO_ID;
	node_conf(&c, node, ucx_port);
	c.connect_ms = 60000;
	if (ret == 0)
		ret = lca_remote_start(&c);
	if (ret != 0) {
		fprintf(stderr, "remote_rejoin: node %u could not start: %d\n", node, ret);
		lca_eal_cleanup();
		return 1;
	}
	if (node == 1)
		ret = run_node1(rounds, keep);
	else
		(void)lca_runtime_run(120000); /* echoes until killed or stopped */
	lca_remote_stop();
	lca_eal_cleanup();
	return ret;
}
