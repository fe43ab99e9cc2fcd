/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The node table reader (lca_remote_conf_load(), rte_cfgfile underneath):
 * what a good table fills in, and that each bad one is refused with a log
 * line naming its section and key. No EAL and no runtime: the reader
 * needs neither (lca_remote_start()'s own checks are in test_remote_eth.c).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <rte_log.h>
#include "lca_remote.h"

/* The log lines of the last load(). */
static char *log_text;

static void
log_reset(void)
{
	free(log_text);
	log_text = NULL;
}

/* Load @p text from a temporary file (removed after) into @p c; the log
 * lines it wrote in log_text. */
static int
load(const char *text, struct lca_remote_conf *c)
{
	char path[] = "/tmp/lca_rconf_XXXXXX";
	int fd = mkstemp(path);
	size_t len = 0;
	FILE *f, *mem;
	int ret;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	log_reset();
	mem = open_memstream(&log_text, &len);
	assert_non_null(mem);
	assert_int_equal(rte_openlog_stream(mem), 0);
	ret = lca_remote_conf_load(path, c);
	rte_openlog_stream(NULL);
	fclose(mem);
	unlink(path);
	print_message("%s", log_text);
	return ret;
}

/* The log holds every one of the NULL-ended strings. */
static bool
logged(const char *first, ...)
{
	va_list ap;
	bool all = true;

	va_start(ap, first);
	for (const char *s = first; s != NULL; s = va_arg(ap, const char *))
		all = all && log_text != NULL && strstr(log_text, s) != NULL;
	va_end(ap);
	return all;
}

#define NODE1 "[node 1]\nmac = 02:00:00:00:00:01\nip = 10.0.0.1\nudp_base = 7000\nlcores = 0\n"
#define NODE2 "[node 2]\nmac = 02:00:00:00:00:02\nip = 10.0.0.2\nudp_base = 7100\nlcores = 1\n"

static void
test_good_table(void **state)
{
	struct lca_remote_conf c;

	(void)state;
	assert_int_equal(load("# two nodes; '#' and ';' start comments\n"
			      "; a ';' comment that holds a = sign\n"
			      "self = 1\nwindow = 64 ; frames\nrto_us = 100 # first timeout\n"
			      "rto_max_us = 5000\nheartbeat_ms = 5\ndead_ms = 900\n"
			      "connect_ms = 2000\nmtu = 9000\nloopback = false\n"
			      "transport = ethdev\n"
			      "[node 1]   ; this one\nmac = 02:00:00:00:00:01\nip = 10.0.0.1\n"
			      "udp_base = 7000\nport = 0\n"
			      "[ node  2 ]\nmac = 02:AB:cd:00:00:02\nip = 10.0.0.2\n"
			      "udp_base = 7100\nport = 3\nlcores = 1, 2 ,5\n",
			      &c),
			 0);
	assert_int_equal(c.self, 1);
	assert_int_equal(c.window, 64);
	assert_int_equal(c.rto_us, 100);
	assert_int_equal(c.rto_max_us, 5000);
	assert_int_equal(c.heartbeat_ms, 5);
	assert_int_equal(c.dead_ms, 900);
	assert_int_equal(c.connect_ms, 2000);
	assert_int_equal(c.mtu, 9000);
	assert_false(c.loopback);
	assert_int_equal(c.transport, LCA_REMOTE_ETHDEV);
	assert_int_equal(c.n_nodes, 2);
	assert_int_equal(c.nodes[0].id, 1);
	assert_int_equal(c.nodes[0].n_lcores, 0); /* this node's are the runtime's */
	assert_int_equal(c.nodes[1].id, 2);
	assert_int_equal(c.nodes[1].ipv4, 0x0a000002);
	assert_int_equal(c.nodes[1].udp_base, 7100);
	assert_int_equal(c.nodes[1].port_id, 3);
	assert_int_equal(c.nodes[1].n_lcores, 3);
	assert_int_equal(c.nodes[1].lcores[0], 1);
	assert_int_equal(c.nodes[1].lcores[2], 5);
	assert_int_equal(c.nodes[1].mac[1], 0xab);
	assert_int_equal(c.nodes[1].mac[2], 0xcd);
	assert_int_equal(c.nodes[1].mac[5], 2);
	/* UCX uses ip and udp_base, not mac. */
	assert_int_equal(load("self = 2\ntransport = ucx\n"
			      "[node 1]\nip = 127.0.0.1\nudp_base = 20000\nlcores = 0\n"
			      "[node 2]\nip = 127.0.0.1\nudp_base = 20020\n",
			      &c),
			 0);
	assert_int_equal(c.transport, LCA_REMOTE_UCX);
	assert_int_equal(c.self, 2);
	assert_int_equal(c.nodes[0].ipv4, 0x7f000001);
	/* This node alone, its own peer: lcores needed then. */
	assert_int_equal(load("self = 3\nloopback = true\n[node 3]\nmac = 02:00:00:00:00:03\n"
			      "ip = 10.0.0.3\nudp_base = 7000\nlcores = 0,1\n",
			      &c),
			 0);
	assert_true(c.loopback);
	assert_int_equal(c.nodes[0].n_lcores, 2);
}

/* Numbers are decimal: a leading zero is not octal, 0x is refused. */
static void
test_decimal_only(void **state)
{
	struct lca_remote_conf c;

	(void)state;
	assert_int_equal(load("self = 01\nwindow = 0064\n"
			      "[node 1]\nmac = 02:00:00:00:00:01\nip = 10.0.0.1\nudp_base = 07000\n"
			      "[node 2]\nmac = 02:00:00:00:00:02\nip = 10.0.0.2\nudp_base = 07100\n"
			      "lcores = 01\n",
			      &c),
			 0);
	assert_int_equal(c.self, 1);
	assert_int_equal(c.window, 64);
	assert_int_equal(c.nodes[0].udp_base, 7000); /* not octal 3584 */
	assert_int_equal(c.nodes[1].udp_base, 7100);
	assert_int_equal(c.nodes[1].lcores[0], 1);
	assert_int_equal(load("self = 1\n" NODE1
			      "[node 2]\nmac = 02:00:00:00:00:02\nip = 10.0.0.2\nudp_base = 0x1b58\n"
			      "lcores = 1\n",
			      &c),
			 -EINVAL);
	assert_true(logged("[node 2]", "udp_base", "0x1b58", "hexadecimal", NULL));
	assert_int_equal(load("self = 1\nwindow = 0X40\n" NODE1 NODE2, &c), -EINVAL);
	assert_true(logged("top level", "window", "hexadecimal", NULL));
	assert_int_equal(load("self = 1\nmtu = -1\n" NODE1 NODE2, &c), -EINVAL);
	assert_true(logged("top level", "mtu", "'-1' is not a decimal number", NULL));
	assert_int_equal(load("self = 1\nmtu = 9001\n" NODE1 NODE2, &c), -EINVAL);
	assert_true(logged("mtu", "'9001' is not in 0 .. 9000", NULL));
	assert_int_equal(load("self = 1\nmtu = 99999999999999999999999\n" NODE1 NODE2, &c),
			 -EINVAL);
	assert_true(logged("mtu", "is not in", NULL));
	assert_int_equal(load("self = 1\nconnect_ms = 10 s\n" NODE1 NODE2, &c), -EINVAL);
	assert_true(logged("connect_ms", "not a decimal number", NULL));
	assert_int_equal(load("self = 1\n" NODE1 "[node 2]\nmac = 02:00:00:00:00:02\n"
			      "ip = 10.0.0.2\nudp_base = 0\nlcores = 1\n",
			      &c),
			 -EINVAL);
	assert_true(logged("[node 2]", "udp_base", "'0' is not in 1 ..", NULL));
}

#define KEY64 "000102030405060708090a0b0c0d0e0f101112131415161718191A1B1C1D1E1F"

/* The frame key: 64 hex digits, else refused naming the key and never
 * echoing it (it is a secret). */
static void
test_key(void **state)
{
	struct lca_remote_conf c;

	(void)state;
	assert_int_equal(load("self = 1\n" NODE1 NODE2, &c), 0);
	assert_false(c.has_key);
	assert_int_equal(load("self = 1\nkey = " KEY64 " ; shared by both nodes\n" NODE1 NODE2, &c),
			 0);
	assert_true(c.has_key);
	for (unsigned int i = 0; i < LCA_REMOTE_KEY_LEN; i++)
		assert_int_equal(c.key[i], i);
	/* One digit short, one too many. */
	assert_int_equal(load("self = 1\nkey = 000102030405060708090a0b0c0d0e0f10111213141516171819"
			      "1a1b1c1d1e1\n" NODE1 NODE2,
			      &c),
			 -EINVAL);
	assert_true(logged("top level", "key", "63 characters: the key is 64 hex digits", NULL));
	assert_false(logged("0001020304", NULL));
	assert_int_equal(load("self = 1\nkey = " KEY64 "0\n" NODE1 NODE2, &c), -EINVAL);
	assert_true(logged("key", "65 characters", NULL));
	/* Not hex. */
	assert_int_equal(load("self = 1\nkey = 000102030405060708090a0b0c0d0e0f101112131415161718"
			      "191a1b1c1d1e1g\n" NODE1 NODE2,
			      &c),
			 -EINVAL);
	assert_true(logged("top level", "key", "character 64 is not a hex digit", NULL));
	assert_false(logged("1e1g", NULL));
	assert_int_equal(load("self = 1\nkey = 0x0102030405060708090a0b0c0d0e0f101112131415161718191a"
			      "1b1c1d1e1f\n" NODE1 NODE2,
			      &c),
			 -EINVAL);
	assert_true(logged("key", "character 2 is not a hex digit", NULL));
	/* Only in the top level. */
	assert_int_equal(load("self = 1\n" NODE1 NODE2 "key = " KEY64 "\n", &c), -EINVAL);
	assert_true(logged("[node 2]", "key", "no such key in a node section", NULL));
}

/* Each transport's keys are required on every node, named when missing. */
static void
test_required_keys(void **state)
{
	struct lca_remote_conf c;

	(void)state;
	assert_int_equal(load("self = 1\n" NODE1
			      "[node 2]\nip = 10.0.0.2\nudp_base = 7100\nlcores = 1\n",
			      &c),
			 -EINVAL);
	assert_true(logged("[node 2]", "no mac", "ethdev", NULL));
	/* This node's own mac too: its frames' source. */
	assert_int_equal(load("self = 1\n[node 1]\nip = 10.0.0.1\nudp_base = 7000\n" NODE2, &c),
			 -EINVAL);
	assert_true(logged("[node 1]", "no mac", NULL));
	assert_int_equal(load("self = 1\n" NODE1
			      "[node 2]\nmac = 02:00:00:00:00:02\nudp_base = 7100\nlcores = 1\n",
			      &c),
			 -EINVAL);
	assert_true(logged("[node 2]", "no ip", "ethdev", NULL));
	assert_int_equal(load("self = 1\ntransport = ucx\n[node 1]\nudp_base = 20000\n"
			      "[node 2]\nip = 127.0.0.1\nudp_base = 20020\nlcores = 1\n",
			      &c),
			 -EINVAL);
	assert_true(logged("[node 1]", "no ip", "ucx", NULL));
	assert_int_equal(load("self = 1\n" NODE1
			      "[node 2]\nmac = 02:00:00:00:00:02\nip = 10.0.0.2\nlcores = 1\n",
			      &c),
			 -EINVAL);
	assert_true(logged("[node 2]", "no udp_base", NULL));
	assert_int_equal(load("self = 1\n" NODE1
			      "[node 2]\nmac = 02:00:00:00:00:02\nip = 10.0.0.2\nudp_base = 7100\n",
			      &c),
			 -EINVAL);
	assert_true(logged("[node 2]", "no lcores", "a peer", NULL));
	assert_int_equal(load(NODE1 NODE2, &c), -EINVAL);
	assert_true(logged("needs self = N", NULL));
	assert_int_equal(load("self = 3\n" NODE1 NODE2, &c), -EINVAL);
	assert_true(logged("self = 3", "no [node 3]", NULL));
}

/* A table of this node alone is refused unless it is its own peer. */
static void
test_no_peer(void **state)
{
	struct lca_remote_conf c;

	(void)state;
	assert_int_equal(load("self = 1\n" NODE1, &c), -EINVAL);
	assert_true(logged("no peer", "only this node (1)", NULL));
	assert_int_equal(load("self = 1\nloopback = true\n" NODE1, &c), 0);
	assert_int_equal(load("self = 1\n", &c), -EINVAL);
	assert_true(logged("needs self = N and a [node N] section", NULL));
}

/* A typo is an error, as in DPDK's apps: a key the reader would skip is
 * a setting the user believes in and does not have. */
static void
test_unknown_key(void **state)
{
	struct lca_remote_conf c;

	(void)state;
	assert_int_equal(load("self = 1\nheartbeat = 5\n" NODE1 NODE2, &c), -EINVAL);
	assert_true(logged("top level", "heartbeat", "no such key", NULL));
	assert_int_equal(load("self = 1\n" NODE1 NODE2 "speed = 9\n", &c), -EINVAL);
	assert_true(logged("[node 2]", "speed", "no such key", NULL));
	/* After a section, a top-level key is that section's, and unknown. */
	assert_int_equal(load("self = 1\n" NODE1 NODE2 "window = 8\n", &c), -EINVAL);
	assert_true(logged("[node 2]", "window", "go before the first section", NULL));
	assert_int_equal(load("self = 1\n" NODE1 NODE2 "[nodes 3]\n", &c), -EINVAL);
	assert_true(logged("[nodes 3]", "only [node N]", NULL));
	assert_int_equal(load("self = 1\n" NODE1 NODE2 "[GLOBAL]\nwindow = 8\n", &c), -EINVAL);
	assert_true(logged("[GLOBAL]", "only [node N]", NULL));
	assert_int_equal(load("self = 1\ntransport = rdma\n" NODE1 NODE2, &c), -EINVAL);
	assert_true(logged("transport", "'rdma' is not ethdev or ucx", NULL));
	assert_int_equal(load("self = 1\nloopback = yes\n" NODE1 NODE2, &c), -EINVAL);
	assert_true(logged("loopback", "'yes'", NULL));
	assert_int_equal(load("self = 1\n" NODE1 "udp_base = 7001\n" NODE2, &c), -EINVAL);
	assert_true(logged("[node 1]", "udp_base", "given twice", NULL));
	/* rte_cfgfile's own refusals: no ']', no value. */
	assert_int_equal(load("self = 1\n[node 1\n", &c), -EINVAL);
	assert_true(logged("line 2", "not an INI file", NULL));
	assert_int_equal(load("self = 1\nwindow =\n" NODE1 NODE2, &c), -EINVAL);
	assert_true(logged("line 2", "not an INI file", NULL));
	assert_int_equal(load("self = 1\nwindow = ; none\n" NODE1 NODE2, &c), -EINVAL);
	assert_true(logged("window", "no value", NULL));
}

static void
test_bad_addresses(void **state)
{
	static const char *const macs[] = {
		"02:00:00:00:00",        /* five bytes */
		"02:00:00:00:00:02:03",  /* seven */
		"02:00:00:00:00:zz",
		"00:00:00:00:00:00",     /* no address */
		"01:00:5e:00:00:01",     /* a group */
		"ff:ff:ff:ff:ff:ff",
	};
	static const char *const ips[] = { "10.0.0", "10.0.0.256", "0.0.0.0", "224.0.0.1",
					   "255.255.255.255", "010.0.0.1", "host" };
	struct lca_remote_conf c;
	char text[512];

	(void)state;
	for (unsigned int i = 0; i < sizeof(macs) / sizeof(macs[0]); i++) {
		snprintf(text, sizeof(text),
			 "self = 1\n" NODE1 "[node 2]\nmac = %s\nip = 10.0.0.2\nudp_base = 7000\n"
			 "lcores = 1\n",
			 macs[i]);
		assert_int_equal(load(text, &c), -EINVAL);
		assert_true(logged("[node 2]", "mac", macs[i], NULL));
	}
	for (unsigned int i = 0; i < sizeof(ips) / sizeof(ips[0]); i++) {
		snprintf(text, sizeof(text),
			 "self = 1\n" NODE1 "[node 2]\nmac = 02:00:00:00:00:02\nip = %s\n"
			 "udp_base = 7000\nlcores = 1\n",
			 ips[i]);
		assert_int_equal(load(text, &c), -EINVAL);
		assert_true(logged("[node 2]", "ip", ips[i], NULL));
	}
}

static void
test_bad_nodes(void **state)
{
	static const char *const lcores[] = { "1,,2", "1,", ",1", "1,1", "", "1 2", "128000" };
	static const char *const why[] = { "empty item", "empty item", "empty item", "twice",
					   "no value", "not a decimal", "not in 0 .." };
	struct lca_remote_conf c;
	char text[512];

	(void)state;
	assert_int_equal(load("self = 1\n" NODE1 NODE2 NODE2, &c), -EINVAL);
	assert_true(logged("[node 2] twice", NULL));
	assert_int_equal(load("self = 1\n" NODE1 "[node 02]\nmac = 02:00:00:00:00:02\n"
			      "ip = 10.0.0.2\nudp_base = 7000\nlcores = 1\n[node 2]\n",
			      &c),
			 -EINVAL);
	assert_true(logged("[node 2] twice", NULL));
	text[0] = '\0';
	for (unsigned int i = 0; i <= 16; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "[node %u]\n", i);
	assert_int_equal(load(text, &c), -EINVAL);
	assert_true(logged("more than 16 nodes", NULL));
	assert_int_equal(load("self = 1\n" NODE1 "[node 2047]\n", &c), -EINVAL);
	assert_true(logged("[node 2047]", "node id", "not in 0 .. 2046", NULL));
	assert_int_equal(load("self = 1\n" NODE1 "[node x]\n", &c), -EINVAL);
	assert_true(logged("[node x]", "not a decimal number", NULL));
	for (unsigned int i = 0; i < sizeof(lcores) / sizeof(lcores[0]); i++) {
		snprintf(text, sizeof(text),
			 "self = 1\n" NODE1 "[node 2]\nmac = 02:00:00:00:00:02\nip = 10.0.0.2\n"
			 "udp_base = 7000\nlcores = %s ; x\n",
			 lcores[i]);
		assert_int_equal(load(text, &c), -EINVAL);
		assert_true(logged("[node 2]", "lcores", why[i], NULL));
	}
	assert_int_equal(load("self = 1\n" NODE1 "[node 2]\nmac = 02:00:00:00:00:02\n"
			      "ip = 10.0.0.2\nudp_base = 7000\n"
			      "lcores = 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16\n",
			      &c),
			 -EINVAL);
	assert_true(logged("[node 2]", "lcores", "more than 16", NULL));
}

static void
test_no_file(void **state)
{
	struct lca_remote_conf c;

	(void)state;
	log_reset();
	assert_int_equal(lca_remote_conf_load("/nonexistent/lca_node_table", &c), -ENOENT);
	assert_int_equal(lca_remote_conf_load(NULL, &c), -EINVAL);
	assert_int_equal(lca_remote_conf_load("/dev/null", NULL), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_table),  cmocka_unit_test(test_decimal_only),
		cmocka_unit_test(test_required_keys), cmocka_unit_test(test_no_peer),
		cmocka_unit_test(test_unknown_key), cmocka_unit_test(test_bad_addresses),
		cmocka_unit_test(test_bad_nodes),   cmocka_unit_test(test_no_file),
		cmocka_unit_test(test_key),
	};
	int ret = cmocka_run_group_tests(tests, NULL, NULL);

	log_reset();
	return ret;
}
