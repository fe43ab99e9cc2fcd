/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of lca_topo: hwloc synthetic topologies stand in for the
 * multi-socket machines this one is not, and a last group brings EAL up to
 * check the lcore table of this machine.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_lcore.h>

#include "lca_topo.h"
#include "lca_test.h"

/* 2 packages x 2 nodes x 4 cores x 2 threads, numbered in hwloc's order. */
#define SYN_NUMA "pack:2 numa:2 core:4 pu:2"
/* A node per package, caches with known sizes. */
#define SYN_CACHE "pack:2 [numa] l3:1(size=32MiB) l2:2(size=1MiB) core:1 pu:2"
/* Two nodes, numbered as Linux does: CPU n and n+4 are SMT siblings. */
#define SYN_LINUX "numa:2 core:2 pu:2(indexes=0,4,1,5,2,6,3,7)"

static struct lca_topo *
load_ok(const char *synthetic)
{
	struct lca_topo *t = NULL;

	assert_int_equal(lca_topo_load(&t, synthetic), 0);
	assert_non_null(t);
	return t;
}

static struct lca_topo_cpu
info_ok(const struct lca_topo *t, int cpu)
{
	struct lca_topo_cpu c;

	memset(&c, 0x55, sizeof(c));
	assert_int_equal(lca_topo_cpu_info(t, cpu, &c), 0);
	assert_int_equal(c.cpu, cpu);
	return c;
}

static void
assert_siblings(const struct lca_topo_cpu *c, int a, int b)
{
	assert_int_equal(c->n_siblings, 2);
	assert_int_equal(c->siblings[0], a);
	assert_int_equal(c->siblings[1], b);
}

static void
test_load_bad_input(void **state)
{
	static const char *const bad[] = {
		"", "pack:x", "bogus:2 pu:2", "pack:2 core:", "pack:0 pu:2", "pu:2 pack:2",
	};
	struct lca_topo_cpu c;
	struct lca_topo *t;
	unsigned int i;

	(void)state;
	assert_int_equal(lca_topo_load(NULL, SYN_NUMA), -EINVAL);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		t = (struct lca_topo *)&c; /* must be reset on failure */
		assert_int_equal(lca_topo_load(&t, bad[i]), -EINVAL);
		assert_null(t);
	}

	assert_int_equal(lca_topo_cpu_count(NULL), 0);
	assert_int_equal(lca_topo_numa_count(NULL), 0);
	assert_int_equal(lca_topo_cpu_info(NULL, 0, &c), -EINVAL);
	t = load_ok(SYN_NUMA);
	assert_int_equal(lca_topo_cpu_info(t, 0, NULL), -EINVAL);
	assert_int_equal(lca_topo_cpu_info(t, -1, &c), -ENOENT);
	assert_int_equal(lca_topo_cpu_info(t, 32, &c), -ENOENT);
	lca_topo_free(t);
	lca_topo_free(NULL);
}

static void
test_synthetic_numa(void **state)
{
	struct lca_topo *t;
	struct lca_topo_cpu c;

	(void)state;
	t = load_ok(SYN_NUMA);
	assert_int_equal(lca_topo_cpu_count(t), 32);
	assert_int_equal(lca_topo_numa_count(t), 4);

	c = info_ok(t, 0);
	assert_int_equal(c.core, 0);
	assert_int_equal(c.package, 0);
	assert_int_equal(c.numa, 0);
	assert_siblings(&c, 0, 1);
	/* No cache level in the description: unknown, not zero. */
	assert_int_equal(c.l2, -1);
	assert_int_equal(c.l3, -1);
	assert_int_equal(c.l2_kb, 0);
	assert_int_equal(c.l3_kb, 0);

	c = info_ok(t, 9);
	assert_int_equal(c.core, 4);
	assert_int_equal(c.package, 0);
	assert_int_equal(c.numa, 1);
	assert_siblings(&c, 8, 9);

	c = info_ok(t, 17);
	assert_int_equal(c.core, 8);
	assert_int_equal(c.package, 1);
	assert_int_equal(c.numa, 2);
	assert_siblings(&c, 16, 17);

	c = info_ok(t, 31);
	assert_int_equal(c.core, 15);
	assert_int_equal(c.package, 1);
	assert_int_equal(c.numa, 3);
	assert_siblings(&c, 30, 31);
	lca_topo_free(t);
}

static void
test_synthetic_caches(void **state)
{
	struct lca_topo *t;
	struct lca_topo_cpu c;

	(void)state;
	t = load_ok(SYN_CACHE);
	assert_int_equal(lca_topo_cpu_count(t), 8);
	assert_int_equal(lca_topo_numa_count(t), 2);

	c = info_ok(t, 1);
	assert_int_equal(c.core, 0);
	assert_int_equal(c.l2, 0);
	assert_int_equal(c.l3, 0);
	assert_int_equal(c.l2_kb, 1024);
	assert_int_equal(c.l3_kb, 32 * 1024);
	assert_siblings(&c, 0, 1);

	c = info_ok(t, 2);
	assert_int_equal(c.core, 1);
	assert_int_equal(c.l2, 1);
	assert_int_equal(c.l3, 0);
	assert_int_equal(c.package, 0);
	assert_int_equal(c.numa, 0);

	c = info_ok(t, 5);
	assert_int_equal(c.core, 2);
	assert_int_equal(c.l2, 2);
	assert_int_equal(c.l3, 1);
	assert_int_equal(c.package, 1);
	assert_int_equal(c.numa, 1);
	assert_siblings(&c, 4, 5);
	lca_topo_free(t);
}

static void
test_synthetic_os_numbering(void **state)
{
	struct lca_topo *t;
	struct lca_topo_cpu c;

	(void)state;
	t = load_ok(SYN_LINUX);
	c = info_ok(t, 1);
	assert_int_equal(c.core, 1);
	assert_int_equal(c.numa, 0);
	assert_siblings(&c, 1, 5);
	c = info_ok(t, 6);
	assert_int_equal(c.core, 2);
	assert_int_equal(c.numa, 1);
	assert_siblings(&c, 2, 6);
	lca_topo_free(t);

	/* The node id is the OS index, not hwloc's logical one. */
	t = load_ok("numa:2(indexes=5,2) core:2 pu:1");
	c = info_ok(t, 0);
	assert_int_equal(c.numa, 5);
	assert_int_equal(c.n_siblings, 1);
	c = info_ok(t, 3);
	assert_int_equal(c.numa, 2);
	lca_topo_free(t);

	/* No core level: each PU is its own core, with no siblings. */
	t = load_ok("pack:2 pu:2");
	c = info_ok(t, 3);
	assert_int_equal(c.core, -1);
	assert_int_equal(c.package, 1);
	assert_int_equal(c.numa, 0);
	assert_int_equal(c.n_siblings, 1);
	assert_int_equal(c.siblings[0], 3);
	lca_topo_free(t);
}

/* Where the CPUs listed in @p ids sit in topology @p t. */
static void
cpus_of(const struct lca_topo *t, const int *ids, unsigned int n, struct lca_topo_cpu *out)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		out[i] = info_ok(t, ids[i]);
}

static void
test_spread_two_nodes(void **state)
{
	static const int lcore_cpus[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	static const int want[8] = { 0, 2, 1, 3, 4, 6, 5, 7 };
	struct lca_topo_cpu cpus[8];
	unsigned int order[8], i, j;
	struct lca_topo *t;

	(void)state;
	t = load_ok(SYN_LINUX);
	cpus_of(t, lcore_cpus, 8, cpus);
	lca_topo_spread_order(cpus, 8, order);
	for (i = 0; i < 8; i++)
		assert_int_equal(cpus[order[i]].cpu, want[i]);

	/* The properties themselves, not only this one answer. */
	for (i = 0; i < 8; i++) {
		assert_int_equal(cpus[order[i]].numa, (int)(i % 2));
		for (j = 0; j < i; j++) {
			int same = cpus[order[i]].core == cpus[order[j]].core;

			/* First four on four cores; the rest re-use them. */
			assert_int_equal(same, i >= 4 && j == i - 4);
		}
	}
	lca_topo_free(t);
}

static void
test_spread_stable(void **state)
{
	static const int already[4] = { 2, 0, 6, 4 };
	static const int smt_first[4] = { 0, 4, 1, 5 };
	struct lca_topo_cpu cpus[4];
	unsigned int order[4];
	struct lca_topo *t;

	(void)state;
	t = load_ok(SYN_LINUX);

	/* Already spread: kept as is, node 1 first because its lcore is. */
	cpus_of(t, already, 4, cpus);
	lca_topo_spread_order(cpus, 4, order);
	assert_int_equal(order[0], 0);
	assert_int_equal(order[1], 1);
	assert_int_equal(order[2], 2);
	assert_int_equal(order[3], 3);

	/* One node, siblings listed early: other cores come before them. */
	cpus_of(t, smt_first, 4, cpus);
	lca_topo_spread_order(cpus, 4, order);
	assert_int_equal(order[0], 0);
	assert_int_equal(order[1], 2);
	assert_int_equal(order[2], 1);
	assert_int_equal(order[3], 3);
	lca_topo_free(t);
}

static void
test_spread_arrays(void **state)
{
	struct lca_topo_cpu cpus[5];
	unsigned int order[5] = { 9, 9, 9, 9, 9 };
	unsigned int i;

	(void)state;
	/* No hwloc: three CPUs on node 0, one on node 1, one unknown. */
	memset(cpus, 0, sizeof(cpus));
	for (i = 0; i < 5; i++) {
		cpus[i].cpu = (int)(10 + i);
		cpus[i].core = (int)i;
	}
	cpus[3].numa = 1;
	cpus[4].numa = -1;
	lca_topo_spread_order(cpus, 5, order);
	assert_int_equal(order[0], 0);
	assert_int_equal(order[1], 3);
	assert_int_equal(order[2], 4);
	assert_int_equal(order[3], 1);
	assert_int_equal(order[4], 2);

	/* Unknown cores are distinct cores, not siblings of each other. */
	for (i = 0; i < 4; i++) {
		cpus[i].core = i < 2 ? -1 : 5;
		cpus[i].numa = 0;
	}
	lca_topo_spread_order(cpus, 4, order);
	assert_int_equal(order[0], 0);
	assert_int_equal(order[1], 1);
	assert_int_equal(order[2], 2);
	assert_int_equal(order[3], 3);

	/* Bad input leaves the output alone and does not crash. */
	order[0] = 7;
	lca_topo_spread_order(cpus, 0, order);
	lca_topo_spread_order(NULL, 3, order);
	assert_int_equal(order[0], 7);
	lca_topo_spread_order(cpus, 3, NULL);
}

static void
test_place_slots(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < 9; i++) {
		assert_int_equal(lca_place_slot(LCA_PLACE_ROUND_ROBIN, 4, i), i % 4);
		assert_int_equal(lca_place_slot(LCA_PLACE_PACK, 4, i), 0);
		assert_int_equal(lca_place_slot(LCA_PLACE_PAIRS_LOCAL, 4, i), (i / 2) % 4);
	}
	assert_int_equal(lca_place_slot(LCA_PLACE_PAIRS_LOCAL, 3, 7), 0);
	assert_int_equal(lca_place_slot(LCA_PLACE_ROUND_ROBIN, 1, 5), 0);
	/* No lcores: still a value, not a division by zero. */
	assert_int_equal(lca_place_slot(LCA_PLACE_ROUND_ROBIN, 0, 5), 0);
	assert_int_equal(lca_place_slot(LCA_PLACE_PAIRS_LOCAL, 0, 5), 0);
}

static void
test_place_on_spread(void **state)
{
	static const int lcore_cpus[4] = { 0, 1, 2, 3 }; /* nodes 0, 0, 1, 1 */
	struct lca_topo_cpu cpus[4];
	unsigned int order[4], i, seen = 0;
	struct lca_topo *t;
	int node[8];

	(void)state;
	t = load_ok(SYN_LINUX);
	cpus_of(t, lcore_cpus, 4, cpus);
	lca_topo_spread_order(cpus, 4, order);

	for (i = 0; i < 8; i++) {
		unsigned int s = lca_place_slot(LCA_PLACE_PAIRS_LOCAL, 4, i);

		assert_true(s < 4);
		node[i] = cpus[order[s]].numa;
		if (i % 2 == 1) {
			assert_int_equal(s, lca_place_slot(LCA_PLACE_PAIRS_LOCAL, 4, i - 1));
			assert_int_equal(node[i], node[i - 1]);
		}
	}
	/* Successive pairs still go to different nodes. */
	assert_int_not_equal(node[0], node[2]);

	for (i = 0; i < 8; i++) {
		unsigned int s = lca_place_slot(LCA_PLACE_ROUND_ROBIN, 4, i);

		node[i] = cpus[order[s]].numa;
		if (i < 4)
			seen |= 1u << order[s];
	}
	assert_int_not_equal(node[0], node[1]);
	assert_int_equal(seen, 0xf); /* the first four use every lcore */

	for (i = 0; i < 8; i++)
		assert_int_equal(order[lca_place_slot(LCA_PLACE_PACK, 4, i)], order[0]);
	lca_topo_free(t);
}

static void
test_placement_names(void **state)
{
	static const enum lca_placement all[] = {
		LCA_PLACE_ROUND_ROBIN, LCA_PLACE_PACK, LCA_PLACE_PAIRS_LOCAL,
	};
	static const char *const bad[] = {
		"", "Pack", "round_robin", "pack ", " pack", "pairs", "roundrobin", "unknown",
	};
	enum lca_placement p;
	unsigned int i;

	(void)state;
	assert_string_equal(lca_placement_name(LCA_PLACE_ROUND_ROBIN), "round-robin");
	assert_string_equal(lca_placement_name(LCA_PLACE_PACK), "pack");
	assert_string_equal(lca_placement_name(LCA_PLACE_PAIRS_LOCAL), "pairs-local");
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		p = (enum lca_placement)42;
		assert_int_equal(lca_placement_parse(lca_placement_name(all[i]), &p), 0);
		assert_int_equal(p, all[i]);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = LCA_PLACE_PACK;
		assert_int_equal(lca_placement_parse(bad[i], &p), -EINVAL);
		assert_int_equal(p, LCA_PLACE_PACK);
	}
	assert_int_equal(lca_placement_parse(NULL, &p), -EINVAL);
	assert_int_equal(lca_placement_parse("pack", NULL), -EINVAL);
	assert_string_equal(lca_placement_name((enum lca_placement)42), "unknown");
}

/* What lca_topo_print() writes, as a string to free. */
static char *
print_to_string(const unsigned int *ids, const struct lca_topo_cpu *cpus, unsigned int n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	lca_topo_print(f, ids, cpus, n);
	assert_int_equal(fclose(f), 0);
	assert_non_null(buf);
	return buf;
}

static void
test_print(void **state)
{
	static const int cache_cpus[2] = { 0, 5 };
	static const int numa_cpus[2] = { 9, 31 };
	static const unsigned int ids[2] = { 0, 12 };
	struct lca_topo_cpu cpus[2];
	struct lca_topo *t;
	char *s;

	(void)state;
	t = load_ok(SYN_CACHE);
	cpus_of(t, cache_cpus, 2, cpus);
	lca_topo_free(t);
	s = print_to_string(ids, cpus, 2);
	assert_string_equal(s,
		"lcore  cpu  core  smt siblings  package  numa  L2         L3\n"
		"0      0    0     0,1           0        0     0 (1 MiB)  0 (32 MiB)\n"
		"12     5    2     4,5           1        1     2 (1 MiB)  1 (32 MiB)\n");
	free(s);

	t = load_ok(SYN_NUMA);
	cpus_of(t, numa_cpus, 2, cpus);
	lca_topo_free(t);
	s = print_to_string(ids, cpus, 2);
	assert_string_equal(s,
		"lcore  cpu  core  smt siblings  package  numa  L2  L3\n"
		"0      9    4     8,9           0        1     -   -\n"
		"12     31   15    30,31         1        3     -   -\n");
	free(s);

	/* Nothing known but the CPU. */
	memset(cpus, 0, sizeof(cpus));
	cpus[0].cpu = 3;
	cpus[0].core = cpus[0].package = cpus[0].numa = cpus[0].l2 = cpus[0].l3 = -1;
	s = print_to_string(NULL, cpus, 1);
	assert_string_equal(s,
		"lcore  cpu  core  smt siblings  package  numa  L2  L3\n"
		"-      3    -     -             -        -     -   -\n");
	free(s);

	s = print_to_string(ids, NULL, 0);
	assert_string_equal(s, "lcore  cpu  core  smt siblings  package  numa  L2  L3\n");
	free(s);
	lca_topo_print(NULL, ids, cpus, 1);
	s = print_to_string(ids, NULL, 2);
	assert_string_equal(s, "");
	free(s);
}

static void
test_real_machine(void **state)
{
	struct lca_topo *t;
	struct lca_topo_cpu c;
	unsigned int found = 0, k;
	int cpu;

	(void)state;
	t = load_ok(NULL);
	assert_true(lca_topo_cpu_count(t) >= 1);
	assert_true(lca_topo_numa_count(t) >= 1);
	for (cpu = 0; cpu < 4096; cpu++) {
		int self = 0;

		if (lca_topo_cpu_info(t, cpu, &c) != 0)
			continue;
		found++;
		assert_int_equal(c.cpu, cpu);
		/* Linux always has a node 0 or more; hwloc 2 always a node. */
		assert_true(c.numa >= 0);
		assert_true(c.n_siblings >= 1 && c.n_siblings <= LCA_TOPO_MAX_SIBLINGS);
		for (k = 0; k < c.n_siblings; k++)
			self += c.siblings[k] == cpu;
		assert_int_equal(self, 1);
	}
	assert_int_equal(found, lca_topo_cpu_count(t));
	lca_topo_free(t);
}

static void
test_eal_before_init(void **state)
{
	unsigned int ids[4];
	struct lca_topo_cpu cpus[4];
	struct lca_topo *t;

	(void)state;
	t = load_ok(NULL);
	assert_int_equal(lca_topo_eal_lcores(t, ids, cpus, 4), -ENODEV);
	assert_int_equal(lca_topo_eal_lcores(NULL, ids, cpus, 4), -EINVAL);
	assert_int_equal(lca_topo_eal_lcores(t, NULL, cpus, 4), -EINVAL);
	assert_int_equal(lca_topo_eal_lcores(t, ids, NULL, 4), -EINVAL);
	lca_topo_free(t);
	assert_int_equal(lca_topo_print_eal(NULL), -EINVAL);
}

static int
eal_up(void **state)
{
	/*
	 * lcore 0 on CPU 1 and lcore 1 on CPU 0, with lcore 1 as main: the
	 * table must follow the cpusets (not rte_lcore_to_cpu_id(), which gives
	 * the sysfs core id of the lcore's own number) and list main first.
	 */
	/* DPDK 22.11 refuses --in-memory with --no-huge; --no-shconf is the
	 * same "no files" for a process without hugepages. */
	char *argv[] = {
		"test", "--no-huge", "--no-pci", "--no-shconf", "--file-prefix", "lca_test_topo",
		"--lcores", "0@1,1@0", "--main-lcore", "1", "--log-level", "lib.*:error",
	};

	(void)state;
	return rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])), argv) < 0 ? -1 : 0;
}

static int
eal_down(void **state)
{
	(void)state;
	rte_eal_cleanup();
	return 0;
}

static void
test_eal_lcores(void **state)
{
	unsigned int ids[RTE_MAX_LCORE];
	struct lca_topo_cpu cpus[RTE_MAX_LCORE], want;
	struct lca_topo *t;
	int n, i;

	(void)state;
	t = load_ok(NULL);
	assert_int_equal(lca_topo_eal_lcores(t, ids, cpus, 1), -ENOSPC);
	n = lca_topo_eal_lcores(t, ids, cpus, RTE_MAX_LCORE);
	assert_int_equal(n, 2);
	assert_int_equal(ids[0], 1);
	assert_int_equal(ids[1], 0);
	assert_int_equal(cpus[0].cpu, 0);
	assert_int_equal(cpus[1].cpu, 1);
	for (i = 0; i < n; i++) {
		want = info_ok(t, cpus[i].cpu);
		assert_memory_equal(&cpus[i], &want, sizeof(want));
	}
	lca_topo_free(t);
}

static void
test_eal_print(void **state)
{
	char *buf = NULL, *line;
	size_t len = 0;
	FILE *f;
	int lines = 0;

	(void)state;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(lca_topo_print_eal(f), 0);
	assert_int_equal(fclose(f), 0);
	for (line = buf; (line = strchr(line, '\n')) != NULL; line++)
		lines++;
	assert_int_equal(lines, 3);
	assert_true(strncmp(buf, "lcore  cpu  core", 16) == 0);
	line = strchr(buf, '\n') + 1;
	assert_true(strncmp(line, "1      0    ", 12) == 0);
	line = strchr(line, '\n') + 1;
	assert_true(strncmp(line, "0      1    ", 12) == 0);
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest topo_tests[] = {
		cmocka_unit_test(test_load_bad_input),
		cmocka_unit_test(test_synthetic_numa),
		cmocka_unit_test(test_synthetic_caches),
		cmocka_unit_test(test_synthetic_os_numbering),
		cmocka_unit_test(test_spread_two_nodes),
		cmocka_unit_test(test_spread_stable),
		cmocka_unit_test(test_spread_arrays),
		cmocka_unit_test(test_place_slots),
		cmocka_unit_test(test_place_on_spread),
		cmocka_unit_test(test_placement_names),
		cmocka_unit_test(test_print),
		cmocka_unit_test(test_real_machine),
		cmocka_unit_test(test_eal_before_init),
	};
	const struct CMUnitTest eal_tests[] = {
		cmocka_unit_test(test_eal_lcores),
		cmocka_unit_test(test_eal_print),
	};
	int fails;

	fails = cmocka_run_group_tests_name("topo", topo_tests, NULL, NULL);
	fails += cmocka_run_group_tests_name("topo_eal", eal_tests, eal_up, eal_down);
	return lca_test_status(fails);
}
