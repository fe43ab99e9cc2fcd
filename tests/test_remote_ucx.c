/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Remote actors over UCX between this process's own lcores (a loopback
 * node, listeners on 127.0.0.1): the exchanges of test_remote_eth.c (order,
 * credits, full mailboxes, large messages, a key, asks, names) over UCX's
 * transports (shared memory for the data, tcp for its connection set-up).
 * Each skips where lcactor was built without UCX.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <sodium.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_port.h"
#include "lca_remote.h"
#include "lca_test.h"
#include "lca_xorshift.h"
#include "test_remote_lib.h"

/* The same exchange over UCX between this process's own lcores: UCX's
 * transports, lcactor's order and credits. */
static void
ucx_conf(struct lca_remote_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->transport = LCA_REMOTE_UCX;
	c->self = SELF;
	c->loopback = true;
	c->n_nodes = 1;
	c->nodes[0].id = SELF;
	c->nodes[0].ipv4 = 0x7f000001;
	/* Listeners on 127.0.0.1, on ports apart from other processes' and
	 * below the kernel's ephemeral range (32768 up), which any outgoing
	 * connection may hold; the same in each test, so a start binds what
	 * the last stop left in TIME_WAIT. */
	c->nodes[0].udp_base = (uint16_t)(20000 + getpid() % 1000 * 8);
	c->nodes[0].n_lcores = 2;
	c->nodes[0].lcores[0] = 0;
	c->nodes[0].lcores[1] = 1;
	c->connect_ms = 20000;
	/* Shared memory for the data; tcp for UCX's connection setup. */
	setenv("UCX_TLS", "shm,tcp", 0);
}

static void
test_ucx_exchange(void **state)
{
#ifdef LCA_HAVE_UCX
	struct lca_remote_conf c;
	struct lca_remote_link_stats ls;

	(void)state;
	ucx_conf(&c);
	run_exchange(&c, &ls);
	assert_true(ls.connected);
	/* Many messages an active message, and credits came back. */
	assert_true(ls.frames_sent * 4 <= ls.msgs_sent);
	assert_true(ls.acks_sent > 0);
	assert_int_equal(ls.retransmits, 0);
#else
	(void)state;
	lca_test_skip("built without UCX (libucx-dev)");
#endif
}

/* Two buffers in flight and receivers with small mailboxes: the senders see
 * -ENOBUFS, deliveries wait for room, nothing is lost or reordered. */
static void
test_ucx_backpressure(void **state)
{
#ifdef LCA_HAVE_UCX
	struct lca_remote_conf c;
	struct lca_remote_link_stats ls;

	(void)state;
	ucx_conf(&c);
	c.window = 2;
	c.mtu = 256;
	run_exchange_small_receivers(&c, &ls);
	assert_true(ls.no_credit > 0);
	assert_true(ls.held > 0);
#else
	(void)state;
	lca_test_skip("built without UCX (libucx-dev)");
#endif
}

/* Large messages over UCX: their own active messages (UCX's rendezvous),
 * one at a time a channel, beside the small ones. */
static void
test_ucx_large(void **state)
{
#ifdef LCA_HAVE_UCX
	struct lca_remote_conf c;
	struct lca_remote_link_stats ls;

	(void)state;
	ucx_conf(&c);
	run_large(&c, &ls);
	assert_int_equal(ls.lost_on_dead, 0);
#else
	(void)state;
	lca_test_skip("built without UCX (libucx-dev)");
#endif
}

/* With a key over UCX: buffers, hellos, credits and large messages all
 * tagged, every count as without one, nothing refused. */
static void
test_ucx_key(void **state)
{
#ifdef LCA_HAVE_UCX
	struct lca_remote_conf c;
	struct lca_remote_link_stats ls;
	struct lca_remote_stats gs;

	(void)state;
	ucx_conf(&c);
	key_conf(&c);
	run_exchange(&c, &ls);
	assert_true(ls.connected);
	assert_int_equal(lca_remote_stats_get(&gs), 0);
	assert_int_equal(gs.bad_tag, 0);
	ucx_conf(&c);
	key_conf(&c);
	run_large(&c, &ls);
	assert_int_equal(ls.lost_on_dead, 0);
	assert_int_equal(ls.undeliverable, 0);
	assert_int_equal(lca_remote_stats_get(&gs), 0);
	assert_int_equal(gs.bad_tag, 0);
#else
	(void)state;
	lca_test_skip("built without UCX (libucx-dev)");
#endif
}

static void
test_ucx_ask(void **state)
{
#ifdef LCA_HAVE_UCX
	struct lca_remote_conf c;

	(void)state;
	ucx_conf(&c);
	run_remote_ask(&c);
#else
	(void)state;
	lca_test_skip("built without UCX (libucx-dev)");
#endif
}

static void
test_ucx_lookup(void **state)
{
#ifdef LCA_HAVE_UCX
	struct lca_remote_conf c;

	(void)state;
	ucx_conf(&c);
	run_remote_lookup(&c);
#else
	(void)state;
	lca_test_skip("built without UCX (libucx-dev)");
#endif
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ucx_exchange, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_ucx_backpressure, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_ucx_large, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_ucx_key, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_ucx_ask, runtime_up, runtime_down),
		cmocka_unit_test_setup_teardown(test_ucx_lookup, runtime_up, runtime_down),
	};
	int ret;

	lca_test_eal_init("lca_test_remote_ucx");
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	lca_eal_cleanup();
	return lca_test_status(ret);
}
