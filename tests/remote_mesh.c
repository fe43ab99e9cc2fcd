/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One node of e2e_mesh.sh: N processes (3 or 4), each linked to every
 * other, over memif (a socket a pair, in DIR) or over UCX on 127.0.0.1
 * (node K listens on PORT + 20 * (K - 1) + its lcore). Every node sends M
 * messages to every other node's sink; every sink counts them by the node
 * they came from. Node 1 then asks each far node for its counts, again
 * until every node got M from each of the others (or 60 s), checks that
 * each got exactly M from each and sent M to each, prints a line a node,
 * and tells them to quit.
 *
 *   remote_mesh [EAL args] -- --node K --nodes N --msgs M (--memif DIR | --ucx PORT)
 *
 * The EAL arguments name the lcore (-l) the node table gives node K (its
 * lcore (K - 1) % 2) and, over memif, one vdev a peer in node order.
 * Exit 0 when every count checked (node 1) or node 1 said quit (the
 * others); 1 otherwise, or past 120 s.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_remote.h"

#define MAX_NODES 4
#define SINK_ID 0
#define SENDER_ID 1
#define BATCH 64
#define T_GO 1
#define T_DATA 2
#define T_COUNT_REQ 3
#define T_COUNTS 4
#define T_QUIT 5
#define COLLECT_MS 30000

/* What a sink reports: messages by source node (node j at j - 1), and its
 * node's sends. */
struct counts {
	uint32_t got[MAX_NODES];
	uint64_t sent;
};
_Static_assert(sizeof(struct counts) <= LCA_MSG_INLINE, "counts fit a message");

static struct {
	unsigned int self, n_nodes;
	uint64_t msgs;
	struct counts mine;                    /* the sink's, and the sender's sent */
	uint64_t next[MAX_NODES + 1];          /* the sender's next message to each */
	struct counts far[MAX_NODES + 1];      /* node 1: what each node reported */
	bool far_got[MAX_NODES + 1];
	uint64_t other_errors;
	bool quit;
} g;

static void
sink_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	unsigned int from = lca_remote_node(msg->from);

	(void)self;
	(void)state;
	switch (msg->type) {
	case T_DATA:
		if (from >= 1 && from <= g.n_nodes && from != g.self)
			g.mine.got[from - 1]++;
		else
			g.other_errors++;
		break;
	case T_COUNT_REQ:
		g.mine.sent = 0;
		for (unsigned int j = 1; j <= g.n_nodes; j++)
			g.mine.sent += g.next[j];
		msg->type = T_COUNTS;
		msg->len = sizeof(g.mine);
		memcpy(msg->data, &g.mine, sizeof(g.mine));
		(void)lca_reply(msg); /* refused: the runtime frees it; node 1 says */
		break;
	case T_COUNTS:
		if (from >= 1 && from <= g.n_nodes && msg->len == sizeof(struct counts)) {
			memcpy(&g.far[from], msg->data, sizeof(struct counts));
			g.far_got[from] = true;
		}
		break;
	case T_QUIT:
		g.quit = true;
		lca_runtime_stop();
		break;
	default:
		break;
	}
}

/* Up to BATCH to each peer a turn, and a GO to itself while any are left;
 * a refused send (-ENOBUFS, -EHOSTDOWN before the link is up) is tried
 * again at the next turn. */
static void
sender_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	bool more = false;

	(void)state;
	if (msg->type != T_GO)
		return;
	for (unsigned int j = 1; j <= g.n_nodes; j++) {
		if (j == g.self)
			continue;
		for (unsigned int i = 0; i < BATCH && g.next[j] < g.msgs; i++) {
			struct lca_msg *m;
			int ret;

			if (lca_msg_alloc(&m) != 0)
				break;
			m->type = T_DATA;
			ret = lca_send_from(self, lca_remote_ref(j, SINK_ID), m);
			if (ret != 0) {
				lca_msg_free(m);
				if (ret != -ENOBUFS && ret != -EHOSTDOWN)
					g.other_errors++;
				break;
			}
			g.next[j]++;
		}
		more |= g.next[j] < g.msgs;
	}
	if (more) {
		msg->type = T_GO;
		if (lca_send(self, msg) != 0)
			g.other_errors++;
	}
}

/* The table: nodes 1..N, node j on lcore (j - 1) % 2; over memif, peer j
 * reached through the vdev of its place among the peers. */
static void
mesh_conf(struct lca_remote_conf *c, unsigned int ucx_port)
{
	memset(c, 0, sizeof(*c));
	c->self = (uint16_t)g.self;
	c->n_nodes = g.n_nodes;
	c->connect_ms = 60000;
	c->transport = ucx_port != 0 ? LCA_REMOTE_UCX : LCA_REMOTE_ETHDEV;
	for (unsigned int j = 1; j <= g.n_nodes; j++) {
		struct lca_remote_node *n = &c->nodes[j - 1];

		n->id = (uint16_t)j;
		n->mac[0] = 2;
		n->mac[5] = (uint8_t)j;
		n->ipv4 = ucx_port != 0 ? 0x7f000001u : 0x0a000000u + j;
		n->udp_base = (uint16_t)(ucx_port != 0 ? ucx_port + 20 * (j - 1) : 7000);
		n->port_id = (uint16_t)(j == g.self ? 0 : j - 1 - (j > g.self));
		n->n_lcores = 1;
		n->lcores[0] = (uint16_t)((j - 1) % 2);
	}
}

static bool
all_heard(void)
{
	for (unsigned int j = 1; j <= g.n_nodes; j++)
		if (j != g.self && g.mine.got[j - 1] < g.msgs)
			return false;
	return true;
}

static bool
all_sent(void)
{
	for (unsigned int j = 1; j <= g.n_nodes; j++)
		if (j != g.self && g.next[j] < g.msgs)
			return false;
	return true;
}

/* Node 1: ask every far node for its counts; @return how many answered. */
static unsigned int
collect(lca_actor_id_t sink)
{
	unsigned int answered = 0;

	for (unsigned int j = 2; j <= g.n_nodes; j++) {
		g.far_got[j] = false;
		struct lca_msg *m;

		if (lca_msg_alloc(&m) != 0)
			return 0;
		m->type = T_COUNT_REQ;
		if (lca_send_from(sink, lca_remote_ref(j, SINK_ID), m) != 0)
			lca_msg_free(m);
	}
	for (unsigned int t = 0; t < COLLECT_MS / 10; t++) {
		answered = 0;
		for (unsigned int j = 2; j <= g.n_nodes; j++)
			answered += g.far_got[j];
		if (answered == g.n_nodes - 1)
			break;
		lca_runtime_run(10);
	}
	return answered;
}

/* Node 1: every node's counts against what was sent, a line a node when
 * @p say; @return the nodes whose counts are not (yet) exact. */
static unsigned int
check_counts(bool say)
{
	unsigned int bad = 0;

	g.far[1] = g.mine;
	g.far[1].sent = 0;
	for (unsigned int j = 1; j <= g.n_nodes; j++)
		g.far[1].sent += g.next[j];
	for (unsigned int k = 1; k <= g.n_nodes; k++) {
		const struct counts *c = &g.far[k];
		bool ok = c->sent == g.msgs * (g.n_nodes - 1) && c->got[k - 1] == 0;

		if (say)
			printf("node %u: got", k);
		for (unsigned int j = 1; j <= g.n_nodes; j++) {
			if (j == k)
				continue;
			if (say)
				printf(" %" PRIu32 " from node %u,", c->got[j - 1], j);
			ok = ok && c->got[j - 1] == g.msgs;
		}
		if (say)
			printf(" sent %" PRIu64 ": %s\n", c->sent, ok ? "exact" : "WRONG");
		bad += !ok;
	}
	return bad;
}

static int
run_node1(lca_actor_id_t sink)
{
	unsigned int answered, bad;

	for (unsigned int t = 0; t < 12000 && !(all_heard() && all_sent()); t++)
		lca_runtime_run(10);
	if (!all_heard() || !all_sent()) {
		fprintf(stderr, "remote_mesh: node 1: messages missing after 120 s\n");
		return 1;
	}
	/* The far nodes may still be receiving from one another. */
	for (unsigned int t = 0;; t++) {
		answered = collect(sink);
		if (answered != g.n_nodes - 1) {
			fprintf(stderr, "remote_mesh: node 1: %u of %u far nodes reported their "
				"counts\n", answered, g.n_nodes - 1);
			return 1;
		}
		if (check_counts(false) == 0 || t == 600)
			break;
		lca_runtime_run(100);
	}
	bad = check_counts(true);
	/* The verdict before the quits: what follows is only the shutdown. */
	printf("mesh: %u nodes, %" PRIu64 " messages each way a pair: %s; other errors %" PRIu64
	       "\n", g.n_nodes, g.msgs, bad == 0 ? "every count exact" : "counts WRONG",
	       g.other_errors);
	fflush(stdout);
	for (unsigned int j = 2; j <= g.n_nodes; j++) {
		struct lca_msg *m;

		if (lca_msg_alloc(&m) != 0)
			break;
		m->type = T_QUIT;
		if (lca_send_from(sink, lca_remote_ref(j, SINK_ID), m) != 0)
			lca_msg_free(m);
	}
	/* The quits on their way out. */
	for (unsigned int t = 0; t < 100 && (t < 2 || !lca_remote_idle()); t++)
		lca_runtime_run(10);
	return bad == 0 && g.other_errors == 0 ? 0 : 1;
}

static int
usage(void)
{
	fprintf(stderr, "usage: remote_mesh [EAL args] -- --node K --nodes N --msgs M "
			"(--memif DIR | --ucx PORT); N is 2 to %u\n", MAX_NODES);
	return 2;
}

int
main(int argc, char **argv)
{
	struct lca_runtime_conf rc = { .msgs_per_node = 16383, .idle = LCA_IDLE_SLEEP,
				       .idle_sleep_after = 64, .idle_sleep_us = 100 };
	struct lca_actor_spec spec = { .mailbox_size = 4096, .throughput = 64 };
	unsigned int ucx_port = 0;
	bool memif = false;
	lca_actor_id_t sink, sender;
	struct lca_remote_conf c;
	struct lca_msg *go;
	char **app_argv;
	int app_argc, ret;

	if (lca_eal_init(argc, argv, &app_argc, &app_argv) != 0)
		return 1;
	for (int i = 1; i + 1 < app_argc; i += 2) {
		if (strcmp(app_argv[i], "--node") == 0)
			g.self = (unsigned int)atoi(app_argv[i + 1]);
		else if (strcmp(app_argv[i], "--nodes") == 0)
			g.n_nodes = (unsigned int)atoi(app_argv[i + 1]);
		else if (strcmp(app_argv[i], "--msgs") == 0)
			g.msgs = strtoull(app_argv[i + 1], NULL, 10);
		else if (strcmp(app_argv[i], "--ucx") == 0)
			ucx_port = (unsigned int)atoi(app_argv[i + 1]);
		else if (strcmp(app_argv[i], "--memif") == 0)
			memif = true;
		else
			g.n_nodes = 0;
	}
	if (g.n_nodes < 2 || g.n_nodes > MAX_NODES || g.self < 1 || g.self > g.n_nodes ||
	    g.msgs == 0 || (ucx_port == 0) == !memif || ucx_port > 65000 ||
	    rte_lcore_count() != 1) {
		lca_eal_cleanup();
		return usage();
	}
	ret = lca_runtime_init(&rc);
	spec.lcore = rte_get_main_lcore();
	spec.handler = sink_handler;
	if (ret == 0)
		ret = lca_actor_spawn(&spec, &sink) != 0 || sink != SINK_ID;
	spec.handler = sender_handler;
	if (ret == 0)
		ret = lca_actor_spawn(&spec, &sender) != 0 || sender != SENDER_ID;
	mesh_conf(&c, ucx_port);
	if (ret == 0)
		ret = lca_remote_start(&c);
	if (ret == 0)
		ret = lca_msg_alloc(&go);
	if (ret != 0) {
		fprintf(stderr, "remote_mesh: node %u could not start: %d\n", g.self, ret);
		lca_eal_cleanup();
		return 1;
	}
	go->type = T_GO;
	(void)lca_send(sender, go);
	if (g.self == 1) {
		ret = run_node1(sink);
	} else {
		for (unsigned int t = 0; t < 120 && !g.quit; t++)
			lca_runtime_run(1000);
		ret = g.quit && g.other_errors == 0 ? 0 : 1;
		if (ret != 0)
			fprintf(stderr, "remote_mesh: node %u: %s (other errors %" PRIu64 ")\n",
				g.self, g.quit ? "errors" : "no quit from node 1 within 120 s",
				g.other_errors);
	}
	lca_remote_stop();
	lca_runtime_cleanup();
	lca_eal_cleanup();
	return ret;
}
