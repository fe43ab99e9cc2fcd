/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef APP_PAIR_H
#define APP_PAIR_H

/*
 * Two processes of one app, one command: the first (node 1) rewrites its
 * EAL arguments to add the transport's vdev, starts the second (node 2,
 * the peer) with its own lcores and --file-prefix, and waits for it and
 * cleans up after it at the end. Both build the same node table.
 * "--remote-nodes N" (3 or 4; memif and ucx) makes it N processes, each
 * linked to every other: node 1 starts nodes 2 .. N, all on the peer's
 * lcores, and over memif each pair of nodes has a socket of its own.
 *
 * Transports: "memif" (net_memif, server in node 1, client in node 2, on
 * one socket file); "af_packet" (net_af_packet over a veth pair between two
 * network namespaces that this process makes, enters, and removes at the
 * end; root only; --netem adds tc netem loss/reorder/duplicate 1% where the
 * kernel has it); "ucx" (UCX active messages between the two processes,
 * connected over 127.0.0.1; UCX_TLS picks UCX's transports, and its
 * connection setup needs tcp among them: UCX_TLS=shm,tcp); "ring" (no second process: node 1 reaches itself over a
 * net_ring loopback, for tests).
 */

#include <stdbool.h>
#include <sys/types.h>

#include "lca_remote.h"

#define APP_PAIR_MAX_ARGS 128
#define APP_PAIR_MAX_NODES 4

struct app_pair {
	bool active;            /* a remote run */
	bool is_peer;           /* this process is node 2 */
	bool netem;             /* --netem: tc netem on the veth pair (af_packet) */
	bool netem_on;          /* it could be set */
	bool netns_made;        /* namespaces to remove at the end */
	bool jumbo;             /* --jumbo: memif buffers of 9216 bytes, MTU 9000 */
	char transport[16];
	char sock[108];
	char peer_lcores[64];   /* -l of the other process (node 1's, in a peer) */
	char self_lcores[64];
	unsigned int n_nodes;   /* processes: 2, or --remote-nodes */
	unsigned int self_node; /* this process's node: 1, 2 .. n_nodes */
	enum app_pair_order {
		APP_PAIR_ORDER_ANY,   /* node 2 spawned before node 1's link starts */
		APP_PAIR_ORDER_NODE1, /* --start-order node1: node 2 once node 1's is up */
		APP_PAIR_ORDER_NODE2, /* --start-order node2: node 1's link 1.5 s later */
	} order;
	bool spawn_deferred;    /* node1 first: app_pair_link_started() spawns */
	pid_t child;            /* node 2 */
	pid_t far[APP_PAIR_MAX_NODES + 1]; /* nodes 3 .. n_nodes, by node */
	int argc;
	char *argv[APP_PAIR_MAX_ARGS];
	int child_argc;
	char *child_argv[APP_PAIR_MAX_ARGS];
	/* Node 1's own arguments, each peer's made from them when it starts. */
	int orig_argc, dd;
	char **orig_argv;
	const char *prefix;
	int n_owned;            /* what app_pair_release() frees (EAL permutes argv) */
	char *owned[(APP_PAIR_MAX_NODES + 2) * APP_PAIR_MAX_ARGS];
};

/*
 * Look for "--remote T" (and the peer's own "--pair-peer L", and
 * "--start-order node1|node2": which process starts its link first; and
 * "--jumbo": memif bsize=9216 and the table's mtu 9000) among the app
 * arguments of @p argv; when there, prepare this process's EAL arguments
 * (p->argc, p->argv, to give lca_eal_init()) and the peer's. @p peer_lcores
 * is the -l of the peer process ("1" by default). Without --remote,
 * p->active is false and p->argv is argv as it was.
 *
 * @return 0; -EINVAL (a transport or start order it does not know, logged
 *   on stderr).
 */
int app_pair_prepare(int argc, char **argv, const char *peer_lcores, struct app_pair *p);

/* Give the peer process the lcores @p lcores (its -l), before it starts. */
void app_pair_set_peer_lcores(struct app_pair *p, const char *lcores);

/*
 * Start the peer process (node 1 only; after lca_eal_init(), before
 * lca_remote_start()). With --start-order node1 it is left to
 * app_pair_link_started(); with --start-order node2 this waits 1.5 s after
 * it, so that node 2's end of the link starts first and waits for ours.
 */
int app_pair_spawn(struct app_pair *p);

/* Node 1's link is started (after lca_remote_start()): with --start-order
 * node1, start the peer now. */
int app_pair_link_started(struct app_pair *p);

/*
 * The node table: node 1, node 2 (.. n_nodes), their lcores, and the
 * ethdev port each peer is reached by (port 0 of a pair). Its self is this
 * process's node.
 */
void app_pair_conf(const struct app_pair *p, struct lca_remote_conf *c);

/*
 * Wait up to @p timeout_ms for the peers to exit, then stop those left
 * (SIGTERM, then SIGKILL); remove the socket files.
 *
 * @return 0 when every peer exited with status 0; else the first other
 *   status, or -1 (killed, or died of a signal).
 */
int app_pair_finish(struct app_pair *p, unsigned int timeout_ms);

/* Free the argument strings (after lca_eal_cleanup(): EAL keeps argv). */
void app_pair_release(struct app_pair *p);

struct app_spec;

/*
 * main() of an app that can run as a pair (--remote): prepare @p p with the
 * peer's lcores "1", run @p app through app_main() on this process's
 * arguments, release @p p.
 *
 * @return the exit status: app_main()'s, 77 (af_packet where network
 *   namespaces are not allowed: skipped), 2 (a bad --remote).
 */
int app_pair_main(int argc, char **argv, struct app_pair *p, const struct app_spec *app);

#endif /* APP_PAIR_H */
