/* SPDX-License-Identifier: BSD-3-Clause */
/* rte_lcore_cpuset() and the CPU_* macros exist only with _GNU_SOURCE. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include <rte_lcore.h>

#include "lca_topo.h"

struct lca_topo {
	unsigned int n_cpus;
	unsigned int n_numa;
	struct lca_topo_cpu cpus[]; /* ascending OS number, for bsearch */
};

/*
 * A node may sit behind memory-side caches, and an object may have several
 * nodes (DRAM plus HBM or CXL); take the lowest OS index, which is the node
 * Linux (and so DPDK's socket id) calls the CPU's own.
 */
static int
lca_topo_min_node(hwloc_obj_t mem)
{
	int best = -1;

	for (; mem != NULL; mem = mem->next_sibling) {
		int id;

		if (mem->type == HWLOC_OBJ_NUMANODE)
			id = (int)mem->os_index;
		else
			id = lca_topo_min_node(mem->memory_first_child);
		if (id >= 0 && (best < 0 || id < best))
			best = id;
	}
	return best;
}

static int
lca_topo_pu_numa(hwloc_obj_t pu)
{
	hwloc_obj_t obj;

	/* hwloc 2 hangs nodes off the nearest ancestor that owns the memory. */
	for (obj = pu; obj != NULL; obj = obj->parent) {
		if (obj->memory_arity > 0) {
			int id = lca_topo_min_node(obj->memory_first_child);

			if (id >= 0)
				return id;
		}
	}
	if (pu->nodeset != NULL && !hwloc_bitmap_iszero(pu->nodeset))
		return hwloc_bitmap_first(pu->nodeset);
	return -1;
}

static void
lca_topo_cache(hwloc_topology_t ht, hwloc_obj_t pu, hwloc_obj_type_t type,
	       int *id, unsigned int *kb)
{
	hwloc_obj_t c = hwloc_get_ancestor_obj_by_type(ht, type, pu);

	*id = -1;
	*kb = 0;
	if (c == NULL)
		return;
	*id = (int)c->logical_index;
	if (c->attr != NULL)
		*kb = (unsigned int)(c->attr->cache.size / 1024);
}

static void
lca_topo_fill(hwloc_topology_t ht, hwloc_obj_t pu, struct lca_topo_cpu *c)
{
	hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(ht, HWLOC_OBJ_CORE, pu);
	hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(ht, HWLOC_OBJ_PACKAGE, pu);
	hwloc_const_cpuset_t smt;
	unsigned int id;

	memset(c, 0, sizeof(*c));
	c->cpu = (int)pu->os_index;
	c->core = core != NULL ? (int)core->logical_index : -1;
	c->package = pkg != NULL ? (int)pkg->logical_index : -1;
	c->numa = lca_topo_pu_numa(pu);
	lca_topo_cache(ht, pu, HWLOC_OBJ_L2CACHE, &c->l2, &c->l2_kb);
	lca_topo_cache(ht, pu, HWLOC_OBJ_L3CACHE, &c->l3, &c->l3_kb);

	/* Without a core level a PU is its own core: it has no siblings. */
	smt = core != NULL ? core->cpuset : pu->cpuset;
	hwloc_bitmap_foreach_begin(id, smt) {
		if (c->n_siblings < LCA_TOPO_MAX_SIBLINGS)
			c->siblings[c->n_siblings++] = (int)id;
	} hwloc_bitmap_foreach_end();
}

int
lca_topo_load(struct lca_topo **topo, const char *synthetic)
{
	hwloc_topology_t ht;
	hwloc_const_cpuset_t all;
	struct lca_topo *t = NULL;
	unsigned int id;
	int weight, nodes;
	int ret = 0;

	if (topo == NULL)
		return -EINVAL;
	*topo = NULL;
	if (hwloc_topology_init(&ht) < 0)
		return -ENOMEM;
	if (synthetic != NULL && hwloc_topology_set_synthetic(ht, synthetic) < 0) {
		ret = -EINVAL;
		goto out;
	}
	if (hwloc_topology_load(ht) < 0) {
		ret = synthetic != NULL ? -EINVAL : -EIO;
		goto out;
	}

	all = hwloc_topology_get_topology_cpuset(ht);
	weight = all != NULL ? hwloc_bitmap_weight(all) : -1;
	if (weight <= 0) {
		ret = -EIO;
		goto out;
	}
	t = calloc(1, sizeof(*t) + (size_t)weight * sizeof(t->cpus[0]));
	if (t == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	hwloc_bitmap_foreach_begin(id, all) {
		hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(ht, id);

		if (pu != NULL && t->n_cpus < (unsigned int)weight)
			lca_topo_fill(ht, pu, &t->cpus[t->n_cpus++]);
	} hwloc_bitmap_foreach_end();
	if (t->n_cpus == 0) {
		free(t);
		ret = -EIO;
		goto out;
	}
	nodes = hwloc_get_nbobjs_by_type(ht, HWLOC_OBJ_NUMANODE);
	t->n_numa = nodes > 0 ? (unsigned int)nodes : 1;
	*topo = t;
out:
	/* Everything lcactor needs was copied out: no hwloc state is kept. */
	hwloc_topology_destroy(ht);
	return ret;
}

void
lca_topo_free(struct lca_topo *topo)
{
	free(topo);
}

unsigned int
lca_topo_cpu_count(const struct lca_topo *topo)
{
	return topo != NULL ? topo->n_cpus : 0;
}

unsigned int
lca_topo_numa_count(const struct lca_topo *topo)
{
	return topo != NULL ? topo->n_numa : 0;
}

static int
lca_topo_cpu_cmp(const void *key, const void *elem)
{
	int cpu = *(const int *)key;
	const struct lca_topo_cpu *c = elem;

	return (cpu > c->cpu) - (cpu < c->cpu);
}

int
lca_topo_cpu_info(const struct lca_topo *topo, int cpu, struct lca_topo_cpu *out)
{
	const struct lca_topo_cpu *c;

	if (topo == NULL || out == NULL)
		return -EINVAL;
	c = bsearch(&cpu, topo->cpus, topo->n_cpus, sizeof(topo->cpus[0]), lca_topo_cpu_cmp);
	if (c == NULL)
		return -ENOENT;
	*out = *c;
	return 0;
}

/* Unknown core ids must not make unrelated CPUs look like SMT siblings. */
static int
lca_topo_same_core(const struct lca_topo_cpu *a, const struct lca_topo_cpu *b)
{
	return a->cpu == b->cpu || (a->core >= 0 && a->core == b->core);
}

struct lca_spread_key {
	unsigned int tier; /* how many earlier entries share its core */
	unsigned int pos;  /* how many earlier entries of its tier share its node */
	unsigned int node; /* its node's rank by first appearance */
};

static int
lca_spread_less(const struct lca_spread_key *a, const struct lca_spread_key *b)
{
	if (a->tier != b->tier)
		return a->tier < b->tier;
	if (a->pos != b->pos)
		return a->pos < b->pos;
	return a->node < b->node;
}

void
lca_topo_spread_order(const struct lca_topo_cpu *cpus, unsigned int n, unsigned int *order)
{
	struct lca_spread_key *key;
	unsigned int i, j, next_node = 0;

	if (cpus == NULL || order == NULL || n == 0)
		return;
	for (i = 0; i < n; i++)
		order[i] = i;
	key = calloc(n, sizeof(*key));
	/* Input order is still a valid placement, just not a spread one. */
	if (key == NULL)
		return;

	/*
	 * Sorting by (tier, pos, node) deals each tier out round-robin over the
	 * nodes; the keys are unique, and every count looks only at earlier
	 * entries, so equal inputs keep their lcore order.
	 */
	for (i = 0; i < n; i++) {
		for (j = 0; j < i && cpus[j].numa != cpus[i].numa; j++)
			;
		key[i].node = j < i ? key[j].node : next_node++;
		for (j = 0; j < i; j++)
			if (lca_topo_same_core(&cpus[j], &cpus[i]))
				key[i].tier++;
		for (j = 0; j < i; j++)
			if (key[j].tier == key[i].tier && cpus[j].numa == cpus[i].numa)
				key[i].pos++;
	}
	/* Insertion sort: n is at most RTE_MAX_LCORE and this runs once. */
	for (i = 1; i < n; i++) {
		unsigned int v = order[i];

		for (j = i; j > 0 && lca_spread_less(&key[v], &key[order[j - 1]]); j--)
			order[j] = order[j - 1];
		order[j] = v;
	}
	free(key);
}

unsigned int
lca_place_slot(enum lca_placement policy, unsigned int n_lcores, unsigned int actor_index)
{
	if (n_lcores == 0)
		return 0;
	switch (policy) {
	case LCA_PLACE_ROUND_ROBIN:
	case LCA_PLACE_AUTO:
		return actor_index % n_lcores;
	case LCA_PLACE_PAIRS_LOCAL:
		return (actor_index / 2) % n_lcores;
	case LCA_PLACE_PACK:
	default:
		return 0;
	}
}

static const char *const lca_placement_names[] = {
	[LCA_PLACE_ROUND_ROBIN] = "round-robin",
	[LCA_PLACE_PACK] = "pack",
	[LCA_PLACE_PAIRS_LOCAL] = "pairs-local",
	[LCA_PLACE_AUTO] = "auto",
};

#define LCA_N_PLACEMENTS (sizeof(lca_placement_names) / sizeof(lca_placement_names[0]))

const char *
lca_placement_name(enum lca_placement p)
{
	if ((unsigned int)p >= LCA_N_PLACEMENTS)
		return "unknown";
	return lca_placement_names[p];
}

int
lca_placement_parse(const char *name, enum lca_placement *out)
{
	unsigned int i;

	if (name == NULL || out == NULL)
		return -EINVAL;
	for (i = 0; i < LCA_N_PLACEMENTS; i++) {
		if (strcmp(name, lca_placement_names[i]) == 0) {
			*out = (enum lca_placement)i;
			return 0;
		}
	}
	return -EINVAL;
}

#define LCA_TOPO_COLS 8
#define LCA_TOPO_CELL 128

static const char *const lca_topo_header[LCA_TOPO_COLS] = {
	"lcore", "cpu", "core", "smt siblings", "package", "numa", "L2", "L3",
};

static void
lca_topo_fmt_id(char *buf, size_t len, int id)
{
	if (id < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%d", id);
}

static void
lca_topo_fmt_cache(char *buf, size_t len, int id, unsigned int kb)
{
	if (id < 0)
		snprintf(buf, len, "-");
	else if (kb == 0)
		snprintf(buf, len, "%d", id);
	else if (kb % 1024 == 0)
		snprintf(buf, len, "%d (%u MiB)", id, kb / 1024);
	else
		snprintf(buf, len, "%d (%u KiB)", id, kb);
}

static void
lca_topo_row(char cell[LCA_TOPO_COLS][LCA_TOPO_CELL], const unsigned int *lcore_ids,
	     unsigned int i, const struct lca_topo_cpu *c)
{
	unsigned int k, n = c->n_siblings;
	size_t off = 0;

	if (lcore_ids != NULL)
		snprintf(cell[0], LCA_TOPO_CELL, "%u", lcore_ids[i]);
	else
		snprintf(cell[0], LCA_TOPO_CELL, "-");
	lca_topo_fmt_id(cell[1], LCA_TOPO_CELL, c->cpu);
	lca_topo_fmt_id(cell[2], LCA_TOPO_CELL, c->core);
	if (n > LCA_TOPO_MAX_SIBLINGS)
		n = LCA_TOPO_MAX_SIBLINGS;
	cell[3][0] = '\0';
	for (k = 0; k < n && off < LCA_TOPO_CELL; k++) {
		int w = snprintf(cell[3] + off, LCA_TOPO_CELL - off, "%s%d",
				 k > 0 ? "," : "", c->siblings[k]);

		if (w < 0)
			break;
		off += (size_t)w;
	}
	if (n == 0)
		snprintf(cell[3], LCA_TOPO_CELL, "-");
	lca_topo_fmt_id(cell[4], LCA_TOPO_CELL, c->package);
	lca_topo_fmt_id(cell[5], LCA_TOPO_CELL, c->numa);
	lca_topo_fmt_cache(cell[6], LCA_TOPO_CELL, c->l2, c->l2_kb);
	lca_topo_fmt_cache(cell[7], LCA_TOPO_CELL, c->l3, c->l3_kb);
}

static void
lca_topo_print_line(FILE *f, const char *const *cells, const size_t *width)
{
	unsigned int k;

	for (k = 0; k < LCA_TOPO_COLS - 1; k++)
		fprintf(f, "%-*s  ", (int)width[k], cells[k]);
	/* No padding after the last column: no trailing blanks in logs. */
	fprintf(f, "%s\n", cells[LCA_TOPO_COLS - 1]);
}

void
lca_topo_print(FILE *f, const unsigned int *lcore_ids, const struct lca_topo_cpu *cpus,
	       unsigned int n)
{
	char cell[LCA_TOPO_COLS][LCA_TOPO_CELL];
	const char *row[LCA_TOPO_COLS];
	size_t width[LCA_TOPO_COLS];
	unsigned int i, k;

	if (f == NULL || (cpus == NULL && n > 0))
		return;
	for (k = 0; k < LCA_TOPO_COLS; k++) {
		width[k] = strlen(lca_topo_header[k]);
		row[k] = cell[k];
	}
	/* Two passes rather than a buffer per row: widths first, then print. */
	for (i = 0; i < n; i++) {
		lca_topo_row(cell, lcore_ids, i, &cpus[i]);
		for (k = 0; k < LCA_TOPO_COLS; k++) {
			size_t len = strlen(cell[k]);

			if (len > width[k])
				width[k] = len;
		}
	}
	lca_topo_print_line(f, lca_topo_header, width);
	for (i = 0; i < n; i++) {
		lca_topo_row(cell, lcore_ids, i, &cpus[i]);
		lca_topo_print_line(f, row, width);
	}
}

/*
 * rte_lcore_to_cpu_id() returns the core id from sysfs (topology/core_id),
 * which repeats across packages and is shared by SMT siblings, and it
 * ignores --lcores remapping; the lcore's cpuset is what it really runs on.
 * An lcore floating over several CPUs is shown at the lowest of them, with
 * only the ids that all of them share.
 */
int
lca_topo_lcore_cpu(unsigned int lcore_id)
{
	rte_cpuset_t set = rte_lcore_cpuset(lcore_id);

	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			return cpu;
	return -1;
}

static void
lca_topo_eal_one(const struct lca_topo *topo, unsigned int lcore, struct lca_topo_cpu *out)
{
	rte_cpuset_t set = rte_lcore_cpuset(lcore);
	struct lca_topo_cpu c;
	int cpu, first = -1;

	memset(out, 0, sizeof(*out));
	out->cpu = out->core = out->package = out->numa = out->l2 = out->l3 = -1;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		if (first < 0) {
			first = cpu;
			out->cpu = cpu;
			if (lca_topo_cpu_info(topo, cpu, out) < 0)
				return;
			continue;
		}
		if (lca_topo_cpu_info(topo, cpu, &c) < 0)
			c.core = c.package = c.numa = c.l2 = c.l3 = -1;
		if (c.core != out->core)
			out->core = -1;
		if (c.package != out->package)
			out->package = -1;
		if (c.numa != out->numa)
			out->numa = -1;
		if (c.l2 != out->l2) {
			out->l2 = -1;
			out->l2_kb = 0;
		}
		if (c.l3 != out->l3) {
			out->l3 = -1;
			out->l3_kb = 0;
		}
	}
}

int
lca_topo_eal_lcores(const struct lca_topo *topo, unsigned int *lcore_ids,
		    struct lca_topo_cpu *out, unsigned int max)
{
	unsigned int lcore, n = 0;

	if (topo == NULL || lcore_ids == NULL || out == NULL)
		return -EINVAL;
	/* Before rte_eal_init() every lcore looks enabled; the count does not. */
	if (rte_lcore_count() == 0)
		return -ENODEV;
	if (rte_lcore_count() > max)
		return -ENOSPC;

	/* RTE_LCORE_FOREACH goes by id, and --main-lcore may not be the lowest. */
	lcore = rte_get_main_lcore();
	lcore_ids[n] = lcore;
	lca_topo_eal_one(topo, lcore, &out[n++]);
	RTE_LCORE_FOREACH_WORKER(lcore) {
		if (n == max)
			return -ENOSPC;
		lcore_ids[n] = lcore;
		lca_topo_eal_one(topo, lcore, &out[n++]);
	}
	return (int)n;
}

int
lca_topo_print_eal(FILE *f)
{
	unsigned int *ids = NULL;
	struct lca_topo_cpu *cpus = NULL;
	struct lca_topo *topo;
	int n;

	if (f == NULL)
		return -EINVAL;
	n = lca_topo_load(&topo, NULL);
	if (n < 0)
		return n;
	ids = calloc(RTE_MAX_LCORE, sizeof(*ids));
	cpus = calloc(RTE_MAX_LCORE, sizeof(*cpus));
	if (ids == NULL || cpus == NULL)
		n = -ENOMEM;
	else
		n = lca_topo_eal_lcores(topo, ids, cpus, RTE_MAX_LCORE);
	if (n >= 0)
		lca_topo_print(f, ids, cpus, (unsigned int)n);
	free(cpus);
	free(ids);
	lca_topo_free(topo);
	return n < 0 ? n : 0;
}
