/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The isolation state of the lcores' CPUs: the kernel command line and
 * sysfs for isolcpus, nohz_full and rcu_nocbs, /proc/irq for the IRQs,
 * /proc/PID/task for the pinned runnable tasks, sysfs and /proc/stat for
 * the SMT siblings, cpufreq for the governor and turbo. All under a root
 * folder, so that the tests read a fake tree (lca_path_priv.h, as the frequency
 * readers do). What it found in words and JSON: apps/common/app_isol_print.c.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lca_freq.h"
#include "lca_isol_priv.h"
#include "lca_path_priv.h"

/* The start of a file, NUL-terminated. @return bytes read; a negative errno. */
static ssize_t
read_small(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (f == NULL)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return (ssize_t)n;
}

/* ---- CPU lists ---- */

/* A decimal, or "N" for @p last. Advances *s. */
static int
cpulist_num(const char **s, int last, long *out)
{
	char *end;

	if (**s == 'N') {
		if (last < 0)
			return -EINVAL;
		*out = last;
		(*s)++;
		return 0;
	}
	if (!isdigit((unsigned char)**s))
		return -EINVAL;
	errno = 0;
	*out = strtol(*s, &end, 10);
	if (errno != 0 || *out >= CPU_SETSIZE)
		return -ERANGE;
	*s = end;
	return 0;
}

int
lca_isol_cpulist_parse(const char *s, int last, cpu_set_t *set)
{
	long a, b, used, group;
	int ret;

	if (s == NULL || set == NULL)
		return -EINVAL;
	CPU_ZERO(set);
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '\0' || *s == '\n')
		return 0;
	if (strncmp(s, "all", 3) == 0 && (s[3] == '\0' || s[3] == '\n')) {
		if (last < 0 || last >= CPU_SETSIZE)
			return -EINVAL;
		for (int c = 0; c <= last; c++)
			CPU_SET((size_t)c, set);
		return CPU_COUNT(set);
	}
	for (;;) {
		ret = cpulist_num(&s, last, &a);
		if (ret < 0)
			return ret;
		b = a;
		used = group = 1;
		if (*s == '-') {
			s++;
			ret = cpulist_num(&s, last, &b);
			if (ret < 0)
				return ret;
			if (*s == ':') { /* a-b:used/group */
				s++;
				ret = cpulist_num(&s, -1, &used);
				if (ret < 0 || *s != '/')
					return -EINVAL;
				s++;
				ret = cpulist_num(&s, -1, &group);
				if (ret < 0)
					return ret;
			}
		}
		if (b < a || used < 1 || group < 1 || used > group)
			return -EINVAL;
		for (long c = a; c <= b; c++)
			if ((c - a) % group < used)
				CPU_SET((size_t)c, set);
		if (*s == ',') {
			s++;
			continue;
		}
		if (*s == '\0' || *s == '\n' || *s == ' ')
			return CPU_COUNT(set);
		return -EINVAL;
	}
}

void
lca_isol_cpulist_format(const cpu_set_t *set, char *buf, size_t len)
{
	size_t off = 0;
	int c = 0, n;

	if (len == 0)
		return;
	buf[0] = '\0';
	while (c < CPU_SETSIZE) {
		int end;

		if (!CPU_ISSET((size_t)c, set)) {
			c++;
			continue;
		}
		for (end = c; end + 1 < CPU_SETSIZE && CPU_ISSET((size_t)end + 1, set); end++)
			;
		if (end == c)
			n = snprintf(buf + off, len - off, "%s%d", off ? "," : "", c);
		else
			n = snprintf(buf + off, len - off, "%s%d-%d", off ? "," : "", c, end);
		if (n < 0 || (size_t)n >= len - off) {
			buf[off] = '\0';
			return;
		}
		off += (size_t)n;
		c = end + 1;
	}
}

/* Parse root/rel as a CPU list into @p set; an absent or garbled file
 * ("(null)" in nohz_full without it) leaves it empty. @return its count. */
static int
read_cpulist(const char *root, const char *rel, int last, cpu_set_t *set)
{
	char path[PATH_MAX], buf[4096];
	int n;

	CPU_ZERO(set);
	if (lca_root_path(path, sizeof(path), root, "%s", rel) < 0 ||
	    read_small(path, buf, sizeof(buf)) < 0)
		return -ENOENT;
	n = lca_isol_cpulist_parse(buf, last, set);
	if (n < 0)
		CPU_ZERO(set);
	return n;
}

/* ---- the kernel command line ---- */

struct isol_boot {
	cpu_set_t isolcpus, nohz_full, rcu_nocbs;
};

/* The CPU list of a "key=value" word, past isolcpus' flags
 * ("isolcpus=nohz,domain,managed_irq,1-3"). */
static void
boot_list(const char *val, int last, cpu_set_t *set)
{
	cpu_set_t one;

	while (isalpha((unsigned char)*val) && strncmp(val, "all", 3) != 0) {
		const char *comma = strchr(val, ',');

		if (comma == NULL)
			return;
		val = comma + 1;
	}
	if (lca_isol_cpulist_parse(val, last, &one) > 0)
		CPU_OR(set, set, &one);
}

/* isolcpus=, nohz_full= and rcu_nocbs= of root/proc/cmdline (up to "--",
 * which starts init's arguments), with the sysfs lists where present. */
static void
read_boot(const char *root, int last, struct isol_boot *b)
{
	char path[PATH_MAX], buf[4096], *save = NULL;
	cpu_set_t sys;

	CPU_ZERO(&b->isolcpus);
	CPU_ZERO(&b->nohz_full);
	CPU_ZERO(&b->rcu_nocbs);
	if (lca_root_path(path, sizeof(path), root, "/proc/cmdline") == 0 &&
	    read_small(path, buf, sizeof(buf)) >= 0) {
		for (char *w = strtok_r(buf, " \t\n", &save); w != NULL;
		     w = strtok_r(NULL, " \t\n", &save)) {
			if (strcmp(w, "--") == 0)
				break;
			if (strncmp(w, "isolcpus=", 9) == 0)
				boot_list(w + 9, last, &b->isolcpus);
			else if (strncmp(w, "nohz_full=", 10) == 0)
				boot_list(w + 10, last, &b->nohz_full);
			else if (strncmp(w, "rcu_nocbs=", 10) == 0)
				boot_list(w + 10, last, &b->rcu_nocbs);
		}
	}
	if (read_cpulist(root, "/sys/devices/system/cpu/isolated", last, &sys) > 0)
		CPU_OR(&b->isolcpus, &b->isolcpus, &sys);
	if (read_cpulist(root, "/sys/devices/system/cpu/nohz_full", last, &sys) > 0)
		CPU_OR(&b->nohz_full, &b->nohz_full, &sys);
	/* The kernel offloads the callbacks of nohz_full CPUs too. */
	CPU_OR(&b->rcu_nocbs, &b->rcu_nocbs, &b->nohz_full);
}

/* ---- IRQs ---- */

static int
cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/* An all-digit name, as a number; -1 otherwise. */
static long
dir_number(const char *name)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)name[0]))
		return -1;
	errno = 0;
	v = strtol(name, &end, 10);
	return errno != 0 || *end != '\0' || v > INT_MAX ? -1 : v;
}

/* The numbers named by root/rel's entries, ascending; NULL when none. */
static unsigned int *
dir_numbers(const char *root, const char *rel, unsigned int *n)
{
	char path[PATH_MAX];
	unsigned int *v = NULL, cap = 0;
	struct dirent *e;
	DIR *d;

	*n = 0;
	if (lca_root_path(path, sizeof(path), root, "%s", rel) < 0 || (d = opendir(path)) == NULL)
		return NULL;
	while ((e = readdir(d)) != NULL) {
		long x = dir_number(e->d_name);

		if (x < 0)
			continue;
		if (*n == cap) {
			unsigned int *nv = realloc(v, (cap ? 2 * cap : 64) * sizeof(*v));

			if (nv == NULL)
				break;
			v = nv;
			cap = cap ? 2 * cap : 64;
		}
		v[(*n)++] = (unsigned int)x;
	}
	closedir(d);
	if (v != NULL)
		qsort(v, *n, sizeof(*v), cmp_uint);
	return v;
}

static void
read_irqs(const char *root, int last, struct lca_isol_report *r)
{
	unsigned int n, *irqs = dir_numbers(root, "/proc/irq", &n);
	char path[PATH_MAX];
	cpu_set_t aff;

	for (unsigned int k = 0; k < n; k++) {
		if (lca_root_path(path, sizeof(path), "", "/proc/irq/%u/smp_affinity_list", irqs[k]) < 0 ||
		    read_cpulist(root, path, last, &aff) <= 0)
			continue;
		for (unsigned int i = 0; i < r->n_cpus; i++) {
			struct lca_isol_cpu *c = &r->cpu[i];

			if (!CPU_ISSET((size_t)c->cpu, &aff))
				continue;
			if (c->n_irqs < LCA_ISOL_IRQS_MAX)
				c->irqs[c->n_irqs] = irqs[k];
			c->n_irqs++;
		}
	}
	free(irqs);
}

/* ---- pinned runnable tasks ---- */

/* @p tid of @p pid, when it is runnable and allowed on one CPU only:
 * @return that CPU; -1 otherwise. */
static int
task_pinned(const char *root, unsigned int pid, unsigned int tid, struct lca_isol_task *t)
{
	char path[PATH_MAX], buf[4096], *open_paren, *close_paren, *allowed;
	cpu_set_t set;
	size_t len;

	if (lca_root_path(path, sizeof(path), root, "/proc/%u/task/%u/stat", pid, tid) < 0 ||
	    read_small(path, buf, sizeof(buf)) < 0)
		return -1;
	/* "tid (comm) S ...": comm may hold spaces and parentheses. */
	open_paren = strchr(buf, '(');
	close_paren = strrchr(buf, ')');
	if (open_paren == NULL || close_paren == NULL || close_paren < open_paren ||
	    close_paren[1] != ' ' || close_paren[2] != 'R')
		return -1;
	len = (size_t)(close_paren - open_paren - 1);
	if (len >= sizeof(t->comm))
		len = sizeof(t->comm) - 1;
	memcpy(t->comm, open_paren + 1, len);
	t->comm[len] = '\0';
	t->pid = (int)pid;
	t->tid = (int)tid;
	if (lca_root_path(path, sizeof(path), root, "/proc/%u/task/%u/status", pid, tid) < 0 ||
	    read_small(path, buf, sizeof(buf)) < 0)
		return -1;
	allowed = strstr(buf, "\nCpus_allowed_list:");
	if (allowed == NULL || lca_isol_cpulist_parse(allowed + 19, -1, &set) != 1)
		return -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET((size_t)c, &set))
			return c;
	return -1;
}

static void
read_tasks(const char *root, int self, struct lca_isol_report *r)
{
	unsigned int n_pids, *pids = dir_numbers(root, "/proc", &n_pids);
	char rel[64];

	for (unsigned int p = 0; p < n_pids; p++) {
		unsigned int n_tids, *tids;

		if ((int)pids[p] == self)
			continue;
		snprintf(rel, sizeof(rel), "/proc/%u/task", pids[p]);
		tids = dir_numbers(root, rel, &n_tids);
		for (unsigned int k = 0; k < n_tids; k++) {
			struct lca_isol_task t;
			int cpu = task_pinned(root, pids[p], tids[k], &t);

			if (cpu < 0)
				continue;
			for (unsigned int i = 0; i < r->n_cpus; i++) {
				struct lca_isol_cpu *c = &r->cpu[i];

				if (c->cpu == cpu) {
					if (c->n_tasks < LCA_ISOL_TASKS_MAX)
						c->tasks[c->n_tasks] = t;
					c->n_tasks++;
				}
				for (unsigned int s = 0; s < c->n_siblings; s++) {
					if (c->siblings[s] != cpu || c->sibling_lcore[s])
						continue;
					if (c->sibling_n_tasks++ == 0) {
						c->sibling_task = t;
						c->sibling_task_cpu = cpu;
					}
				}
			}
		}
		free(tids);
	}
	free(pids);
}

/* ---- SMT siblings ---- */

static bool
runs_lcore(const struct lca_isol_report *r, int cpu)
{
	for (unsigned int i = 0; i < r->n_cpus; i++)
		if (r->cpu[i].cpu == cpu)
			return true;
	return false;
}

static void
read_siblings(const char *root, int last, struct lca_isol_report *r)
{
	char rel[96];
	cpu_set_t set;

	for (unsigned int i = 0; i < r->n_cpus; i++) {
		struct lca_isol_cpu *c = &r->cpu[i];

		snprintf(rel, sizeof(rel), "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
			 c->cpu);
		if (read_cpulist(root, rel, last, &set) <= 0)
			continue;
		for (int s = 0; s < CPU_SETSIZE && c->n_siblings < LCA_ISOL_SIBLINGS_MAX; s++) {
			if (s == c->cpu || !CPU_ISSET((size_t)s, &set))
				continue;
			c->sibling_lcore[c->n_siblings] = runs_lcore(r, s);
			c->siblings[c->n_siblings++] = s;
		}
	}
}

/* The busy share of the siblings that run no lcore, from two reads of
 * /proc/stat @p ms apart. */
static void
read_sibling_busy(const char *root, unsigned int ms, struct lca_isol_report *r)
{
	struct lca_freq_cpu_times *t0;
	unsigned int n = 0, k = 0;
	struct timespec ts;

	for (unsigned int i = 0; i < r->n_cpus; i++)
		n += r->cpu[i].n_siblings;
	if (ms == 0 || n == 0)
		return;
	t0 = calloc(n, sizeof(*t0));
	if (t0 == NULL)
		return;
	for (unsigned int i = 0; i < r->n_cpus; i++)
		for (unsigned int s = 0; s < r->cpu[i].n_siblings; s++, k++)
			if (r->cpu[i].sibling_lcore[s] ||
			    lca_freq_procstat_read(root, r->cpu[i].siblings[s], &t0[k]) < 0)
				t0[k].user = UINT64_MAX; /* not to be sampled */
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	nanosleep(&ts, NULL);
	k = 0;
	for (unsigned int i = 0; i < r->n_cpus; i++) {
		struct lca_isol_cpu *c = &r->cpu[i];

		for (unsigned int s = 0; s < c->n_siblings; s++, k++) {
			struct lca_freq_cpu_times t1;
			double busy, steal, irq;

			if (t0[k].user == UINT64_MAX ||
			    lca_freq_procstat_read(root, c->siblings[s], &t1) < 0 ||
			    lca_freq_cpu_times_pct(&t0[k], &t1, &busy, &steal, &irq) < 0)
				continue;
			if (isnan(c->sibling_busy_pct) || busy > c->sibling_busy_pct)
				c->sibling_busy_pct = busy;
		}
	}
	free(t0);
}

/* ---- the report ---- */

/* The online CPUs that run no lcore and share no core with one; when there
 * are none, those that run no lcore. */
static void
set_housekeeping(struct lca_isol_report *r, cpu_set_t *online)
{
	cpu_set_t apart;

	for (unsigned int i = 0; i < r->n_cpus; i++)
		CPU_CLR((size_t)r->cpu[i].cpu, online);
	CPU_OR(&apart, online, online);
	for (unsigned int i = 0; i < r->n_cpus; i++)
		for (unsigned int s = 0; s < r->cpu[i].n_siblings; s++)
			CPU_CLR((size_t)r->cpu[i].siblings[s], &apart);
	lca_isol_cpulist_format(CPU_COUNT(&apart) > 0 ? &apart : online, r->housekeeping,
				sizeof(r->housekeeping));
}

/* The highest possible CPU, for "all" and "N"; -1 when unknown. */
static int
last_cpu(const char *root, cpu_set_t *online)
{
	cpu_set_t possible;
	int last = -1;

	if (read_cpulist(root, "/sys/devices/system/cpu/possible", -1, &possible) <= 0 &&
	    read_cpulist(root, "/sys/devices/system/cpu/online", -1, &possible) <= 0)
		CPU_ZERO(&possible);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET((size_t)c, &possible))
			last = c;
	read_cpulist(root, "/sys/devices/system/cpu/online", last, online);
	return last;
}

struct lca_isol_report *
lca_isol_read(const struct lca_isol_conf *conf, const unsigned int *lcores, const int *cpus,
	      unsigned int n)
{
	struct lca_isol_report *r;
	const char *root;
	struct isol_boot boot;
	cpu_set_t online;
	int last;

	if (conf == NULL || (n > 0 && (lcores == NULL || cpus == NULL))) {
		errno = EINVAL;
		return NULL;
	}
	root = conf->root != NULL ? conf->root : "";
	r = calloc(1, sizeof(*r) + n * sizeof(r->cpu[0]));
	if (r == NULL)
		return NULL;
	snprintf(r->root, sizeof(r->root), "%s", root);
	for (unsigned int k = 0; k < n; k++) {
		struct lca_isol_cpu *c = NULL;

		if (cpus[k] < 0 || cpus[k] >= CPU_SETSIZE)
			continue;
		for (unsigned int i = 0; i < r->n_cpus && c == NULL; i++)
			if (r->cpu[i].cpu == cpus[k])
				c = &r->cpu[i];
		if (c == NULL) {
			c = &r->cpu[r->n_cpus++];
			c->cpu = cpus[k];
			c->sibling_busy_pct = NAN;
			c->sibling_task_cpu = -1;
		}
		if (c->n_lcores < LCA_ISOL_LCORES_MAX)
			c->lcores[c->n_lcores] = lcores[k];
		c->n_lcores++;
	}
	last = last_cpu(root, &online);
	read_boot(root, last, &boot);
	for (unsigned int i = 0; i < r->n_cpus; i++) {
		struct lca_isol_cpu *c = &r->cpu[i];

		c->isolcpus = CPU_ISSET((size_t)c->cpu, &boot.isolcpus);
		c->nohz_full = CPU_ISSET((size_t)c->cpu, &boot.nohz_full);
		c->rcu_nocbs = CPU_ISSET((size_t)c->cpu, &boot.rcu_nocbs);
		if (lca_freq_governor_read(root, c->cpu, c->governor, sizeof(c->governor)) < 0)
			c->governor[0] = '\0';
	}
	r->turbo = lca_freq_turbo_read(root);
	if (r->turbo < 0) {
		r->turbo = -1;
	} else {
		char path[PATH_MAX];

		r->turbo_intel = lca_root_path(path, sizeof(path), root,
					   "/sys/devices/system/cpu/intel_pstate/no_turbo") == 0 &&
				 access(path, F_OK) == 0;
	}
	read_irqs(root, last, r);
	read_siblings(root, last, r);
	set_housekeeping(r, &online);
	read_tasks(root, conf->self_pid != 0 ? conf->self_pid : (int)getpid(), r);
	read_sibling_busy(root, conf->sample_ms, r);
	return r;
}
