/* SPDX-License-Identifier: BSD-3-Clause */
/* lca-remote-bench's node 2: the sink, the echo and the watch on node 1. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lca_actor.h"
#include "lca_remote.h"
#include "remote_bench.h"

struct sink {
	uint64_t count;
};

_Static_assert(sizeof(struct sink) == RB_SINK_STATE, "RB_SINK_STATE is the sink's state");

/* Node 1 said it is done (T_QUIT): its LEAVE that follows is no down to
 * wait out. */
static bool node1_done;

void
rb_sink_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	struct sink *s = state;

	(void)self;
	switch (msg->type) {
	case T_DATA:
		s->count++;
		break;
	case T_END:
		msg->type = T_END_ACK;
		memcpy(msg->data, &s->count, sizeof(s->count));
		msg->len = sizeof(s->count);
		s->count = 0;
		/* The channel may be out of credit: a refused reply is kept
		 * and sent again from the loop (see quit_or_retry). */
		if (lca_reply(msg) != 0)
			lca_actor_fail(-ENOBUFS);
		break;
	case T_QUIT:
		node1_done = true;
		lca_runtime_stop();
		break;
	default:
		break;
	}
}

void
rb_echo_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	(void)self;
	(void)state;
	msg->type = T_PONG;
	if (lca_reply(msg) != 0)
		lca_actor_fail(-ENOBUFS);
}

/* Node 2's view of node 1: a link that went down may come back (the
 * library rejoins it, docs/wire.md), so a down is not the end of the run:
 * node 2 keeps running until node 1's T_QUIT or --timeout. */
static bool node1_down;

bool
rb_node1_down(void)
{
	return node1_down;
}

void
rb_watcher_handler(lca_actor_id_t self, void *state, struct lca_msg *msg)
{
	(void)self;
	(void)state;
	if (node1_done)
		return;
	if (msg->type == LCA_TYPE_NODE_DOWN) {
		node1_down = true;
		printf("node 2: node 1 is down; waiting for it to rejoin (until --timeout)\n");
	} else if (msg->type == LCA_TYPE_NODE_UP && node1_down) {
		node1_down = false;
		printf("node 2: node 1 rejoined\n");
	}
	fflush(stdout);
}
