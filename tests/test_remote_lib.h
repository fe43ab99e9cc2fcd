/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef TEST_REMOTE_LIB_H
#define TEST_REMOTE_LIB_H
/*
 * What the remote tests share (tests/test_remote_lib.c): the runtime each
 * test starts and stops, a loopback node on a new net_ring port, and the
 * runs every transport is put through: the two-by-two exchange, large
 * messages beside small ones, asks and names on a remote node.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "lca_actor.h"
#include "lca_remote.h"

/* This node's id in every remote test. */
#define SELF 3

/* The channel header's bytes, and a frame's first record's offset: after
 * Ethernet (14), IPv4 (20), UDP (8) and that header (docs/wire.md). */
#define HDR 36
#define RECS (42 + HDR)
#define TYPE_GO 1
#define TYPE_DATA 2

/* Each test's setup and teardown: the runtime up (its pools' fill noted),
 * then the remote part stopped and the runtime cleaned up. */
int runtime_up(void **state);
int runtime_down(void **state);

/* The name of the net_ring port loopback_conf() made last. */
extern char port_name[16];

/* This node alone, reaching itself over a new net_ring port. */
void loopback_conf(struct lca_remote_conf *c);

/* Two producers (one per lcore) to two receivers (one per lcore), over the
 * wire; every count checked. */
void run_exchange(const struct lca_remote_conf *c, struct lca_remote_link_stats *ls);

/* run_exchange() with receivers whose mailboxes hold 16 and who take 4
 * messages a turn: a frame's burst to one is more than a direct turn takes,
 * and its mailbox fills. */
void run_exchange_small_receivers(const struct lca_remote_conf *c,
				  struct lca_remote_link_stats *ls);

/* An mbuf of @p mp holding the @p len bytes at @p bytes. */
struct rte_mbuf *raw_frame(struct rte_mempool *mp, const uint8_t *bytes, uint16_t len);

/* A handler that only counts what it is handed. */
void count_handler(lca_actor_id_t self, void *state, struct lca_msg *msg);

/* Large messages (in mbuf chains) and small ones from one sender to one
 * receiver: every large one whole, the small ones in order, nothing left. */
void run_large(const struct lca_remote_conf *cp, struct lca_remote_link_stats *ls);

/* Asks to a remote reference (loopback: this node's other lcore): a reply
 * in time (inline, and in an mbuf), a timeout, then the late reply to it
 * dropped and counted; a large-lane ask refused. */
void run_remote_ask(const struct lca_remote_conf *c);

/* Names on a remote node (loopback: this node's own name service, over the
 * wire): a registered name comes back as a remote reference, an unknown one
 * with -ENOENT, each with its lookup's request id. */
void run_remote_lookup(const struct lca_remote_conf *c);

/* A watcher of remote nodes: counts their downs and ups, and stops the
 * loops at a down. */
struct watcher {
	unsigned int downs;
	unsigned int ups;
	lca_actor_id_t who;
};

void watcher_handler(lca_actor_id_t self, void *state, struct lca_msg *msg);

/* @p text into the file at @p path. */
void write_file(const char *path, const char *text);

/* The key of tagged frames (docs/wire.md, "Trust model"), and a conf with it. */
extern const uint8_t fake_key[LCA_REMOTE_KEY_LEN];
void key_conf(struct lca_remote_conf *c);

#endif /* TEST_REMOTE_LIB_H */
