/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The isolation report in words and JSON (lcore/lca_isol.c reads it): the
 * problems and their fixes, the "# isolation:" lines every app prints at
 * its start, and the record's "isolation" array.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>

#include "app_isol_print.h"
#include "lca_topo.h"

static json_t *last_json;

struct outbuf {
	char *buf;
	size_t len, off;
};

static void
put(struct outbuf *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->off >= o->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->off, o->len - o->off, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->off += (size_t)n < o->len - o->off ? (size_t)n : o->len - o->off - 1;
}

/* "24, 25 and 3 more" */
static void
put_irqs(struct outbuf *o, const struct lca_isol_cpu *c)
{
	unsigned int shown = c->n_irqs < LCA_ISOL_IRQS_SHOWN ? c->n_irqs : LCA_ISOL_IRQS_SHOWN;

	for (unsigned int k = 0; k < shown; k++)
		put(o, "%s%u", k ? ", " : "", c->irqs[k]);
	if (c->n_irqs > shown)
		put(o, " and %u more", c->n_irqs - shown);
}

static void
put_task(struct outbuf *o, const struct lca_isol_task *t)
{
	if (t->tid == t->pid)
		put(o, "pid %d (%s)", t->pid, t->comm);
	else
		put(o, "pid %d tid %d (%s)", t->pid, t->tid, t->comm);
}

/* Where the fixes move IRQs and tasks to; NULL when nowhere. */
static const char *
housekeeping(const struct lca_isol_report *r)
{
	return r->housekeeping[0] != '\0' ? r->housekeeping : NULL;
}

static void
warn_boot(struct outbuf *o, const struct lca_isol_cpu *c)
{
	const char *names[3] = { "isolcpus", "nohz_full", "rcu_nocbs" };
	bool in[3] = { c->isolcpus, c->nohz_full, c->rcu_nocbs };
	unsigned int missing = 0;

	for (int k = 0; k < 3; k++)
		missing += !in[k];
	if (missing == 0)
		return;
	if (missing == 3) {
		put(o, "CPU %d is not isolated: boot with", c->cpu);
	} else {
		put(o, "CPU %d is not in", c->cpu);
		for (int k = 0, j = 0; k < 3; k++)
			if (!in[k])
				put(o, "%s %s", j++ ? "," : "", names[k]);
		put(o, ": boot with");
	}
	for (int k = 0; k < 3; k++)
		if (!in[k])
			put(o, " %s=%d", names[k], c->cpu);
	put(o, "%s\n", missing < 3 ? " too" : "");
}

static void
warn_irqs(struct outbuf *o, const struct lca_isol_report *r, const struct lca_isol_cpu *c)
{
	const char *hk = housekeeping(r);

	if (c->n_irqs == 0)
		return;
	if (c->n_irqs == 1)
		put(o, "CPU %d takes IRQ %u: move it ", c->cpu, c->irqs[0]);
	else if (c->n_irqs <= LCA_ISOL_IRQS_SHOWN)
		put(o, "CPU %d takes IRQs ", c->cpu);
	else
		put(o, "CPU %d takes %u IRQs (", c->cpu, c->n_irqs);
	if (c->n_irqs > 1) {
		put_irqs(o, c);
		put(o, "%s: move them ", c->n_irqs > LCA_ISOL_IRQS_SHOWN ? ")" : "");
	}
	if (hk == NULL) {
		put(o, "to a CPU that runs no lcore (every online CPU runs one: leave one out of -l)\n");
	} else if (c->n_irqs == 1) {
		put(o, "with `echo %s > /proc/irq/%u/smp_affinity_list`\n", hk, c->irqs[0]);
	} else if (c->n_irqs <= LCA_ISOL_IRQS_SHOWN) {
		put(o, "with `for i in");
		for (unsigned int k = 0; k < c->n_irqs; k++)
			put(o, " %u", c->irqs[k]);
		put(o, "; do echo %s > /proc/irq/$i/smp_affinity_list; done`\n", hk);
	} else {
		put(o, "with `for i in /proc/irq/[0-9]*; do echo %s > $i/smp_affinity_list; done "
		       "2>/dev/null`\n", hk);
	}
}

static void
warn_tasks(struct outbuf *o, const struct lca_isol_report *r, const struct lca_isol_cpu *c)
{
	unsigned int shown = c->n_tasks < LCA_ISOL_TASKS_MAX ? c->n_tasks : LCA_ISOL_TASKS_MAX;
	const char *hk = housekeeping(r);

	if (c->n_tasks == 0)
		return;
	if (c->n_tasks == 1)
		put(o, "CPU %d runs another task pinned to it: ", c->cpu);
	else
		put(o, "CPU %d runs %u other tasks pinned to it: ", c->cpu, c->n_tasks);
	for (unsigned int k = 0; k < shown; k++) {
		put(o, "%s", k ? ", " : "");
		put_task(o, &c->tasks[k]);
	}
	if (c->n_tasks > shown)
		put(o, " and %u more", c->n_tasks - shown);
	if (hk == NULL)
		put(o, "; stop %s\n", c->n_tasks == 1 ? "it" : "them");
	else if (c->n_tasks == 1)
		put(o, "; stop it or move it with `taskset -pc %s %d`\n", hk, c->tasks[0].tid);
	else
		put(o, "; stop them or move each with `taskset -pc %s TID`\n", hk);
}

static void
warn_sibling(struct outbuf *o, const struct lca_isol_cpu *c)
{
	bool busy = !isnan(c->sibling_busy_pct) && c->sibling_busy_pct >= LCA_ISOL_SIBLING_BUSY_PCT;
	int cpu = -1;

	if (!busy && c->sibling_n_tasks == 0)
		return;
	for (unsigned int s = 0; s < c->n_siblings && cpu < 0; s++)
		if (!c->sibling_lcore[s])
			cpu = c->siblings[s];
	if (c->sibling_n_tasks > 0)
		cpu = c->sibling_task_cpu;
	put(o, "CPU %d's SMT sibling CPU %d is busy (", c->cpu, cpu);
	if (busy)
		put(o, "%.1f %%%s", c->sibling_busy_pct, c->sibling_n_tasks ? ", " : "");
	if (c->sibling_n_tasks > 0) {
		put(o, "runs ");
		put_task(o, &c->sibling_task);
		put(o, " pinned to it");
		if (c->sibling_n_tasks > 1)
			put(o, " and %u more", c->sibling_n_tasks - 1);
	}
	put(o, "): the two share a core; keep it idle (isolcpus=%d,%d) or turn SMT off with "
	       "`echo off > /sys/devices/system/cpu/smt/control`\n", c->cpu, cpu);
}

static void
warn_governor(struct outbuf *o, const struct lca_isol_cpu *c)
{
	if (c->governor[0] == '\0' || strcmp(c->governor, "performance") == 0)
		return;
	put(o, "CPU %d's governor is %s: the clock follows the load; set it with "
	       "`echo performance > /sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor`\n",
	    c->cpu, c->governor, c->cpu);
}

unsigned int
app_isol_cpu_warnings(const struct lca_isol_report *r, unsigned int i, char *buf, size_t len)
{
	struct outbuf o = { buf, len, 0 };
	unsigned int lines = 0;
	const struct lca_isol_cpu *c;

	if (len == 0)
		return 0;
	buf[0] = '\0';
	if (r == NULL || i >= r->n_cpus)
		return 0;
	c = &r->cpu[i];
	warn_boot(&o, c);
	warn_irqs(&o, r, c);
	warn_tasks(&o, r, c);
	warn_sibling(&o, c);
	warn_governor(&o, c);
	for (const char *p = buf; *p != '\0'; p++)
		lines += *p == '\n';
	return lines;
}

unsigned int
app_isol_global_warnings(const struct lca_isol_report *r, char *buf, size_t len)
{
	struct outbuf o = { buf, len, 0 };

	if (len == 0)
		return 0;
	buf[0] = '\0';
	if (r == NULL || r->turbo != 1)
		return 0;
	put(&o, "turbo is on: the clock follows load and heat; turn it off with `%s`\n",
	    r->turbo_intel ? "echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo" :
			     "echo 0 > /sys/devices/system/cpu/cpufreq/boost");
	return 1;
}

static const char *
yes_no(bool b)
{
	return b ? "yes" : "no";
}

static const char *
turbo_name(int turbo)
{
	return turbo == 1 ? "on" : turbo == 0 ? "off" : NULL;
}

/* The line of one CPU, without its "# isolation: " and newline. */
static void
cpu_line(struct outbuf *o, const struct lca_isol_report *r, const struct lca_isol_cpu *c)
{
	unsigned int named = c->n_lcores < LCA_ISOL_LCORES_MAX ? c->n_lcores : LCA_ISOL_LCORES_MAX;
	const char *turbo = turbo_name(r->turbo);

	put(o, "CPU %d (lcore%s", c->cpu, c->n_lcores > 1 ? "s" : "");
	for (unsigned int k = 0; k < named; k++)
		put(o, "%s%u", k ? "," : " ", c->lcores[k]);
	put(o, "): isolcpus %s, nohz_full %s, rcu_nocbs %s; IRQs ", yes_no(c->isolcpus),
	    yes_no(c->nohz_full), yes_no(c->rcu_nocbs));
	if (c->n_irqs == 0)
		put(o, "none");
	put_irqs(o, c);
	put(o, "; pinned tasks %u; ", c->n_tasks);
	if (c->n_siblings == 0) {
		put(o, "no SMT sibling");
	} else {
		bool other = false;

		put(o, "SMT sibling%s CPU", c->n_siblings > 1 ? "s" : "");
		for (unsigned int s = 0; s < c->n_siblings; s++) {
			put(o, "%s%d%s", s ? ", " : " ", c->siblings[s],
			    c->sibling_lcore[s] ? " (an lcore)" : "");
			other |= !c->sibling_lcore[s];
		}
		if (other && isnan(c->sibling_busy_pct))
			put(o, " busy n/a");
		else if (other)
			put(o, " busy %.1f %%", c->sibling_busy_pct);
		if (c->sibling_n_tasks > 0)
			put(o, ", %u pinned", c->sibling_n_tasks);
	}
	put(o, "; governor %s, turbo %s", c->governor[0] ? c->governor : "n/a",
	    turbo ? turbo : "n/a");
}

/* Print @p text's lines, each after @p prefix. */
static void
print_lines(FILE *f, const char *prefix, const char *text)
{
	while (*text != '\0') {
		size_t n = strcspn(text, "\n");

		fprintf(f, "%s%.*s\n", prefix, (int)n, text);
		text += n + (text[n] == '\n');
	}
}

void
app_isol_print(FILE *f, const struct lca_isol_report *r)
{
	char line[1024], warn[4096];

	if (f == NULL || r == NULL)
		return;
	for (unsigned int i = 0; i < r->n_cpus; i++) {
		struct outbuf o = { line, sizeof(line), 0 };

		line[0] = '\0';
		cpu_line(&o, r, &r->cpu[i]);
		fprintf(f, "# isolation: %s\n", line);
	}
	for (unsigned int i = 0; i < r->n_cpus; i++) {
		app_isol_cpu_warnings(r, i, warn, sizeof(warn));
		print_lines(f, "# isolation: warning: ", warn);
	}
	app_isol_global_warnings(r, warn, sizeof(warn));
	print_lines(f, "# isolation: warning: ", warn);
}

static json_t *
task_json(const struct lca_isol_task *t)
{
	return json_pack("{s:i, s:i, s:s}", "pid", t->pid, "tid", t->tid, "comm", t->comm);
}

static json_t *
cpu_json(const struct lca_isol_report *r, unsigned int i)
{
	const struct lca_isol_cpu *c = &r->cpu[i];
	unsigned int k, shown;
	json_t *o, *a, *w;
	char warn[4096];
	const char *p;

	o = json_pack("{s:i, s:b, s:b, s:b, s:i, s:i, s:i}", "cpu", c->cpu, "isolcpus", c->isolcpus,
		      "nohz_full", c->nohz_full, "rcu_nocbs", c->rcu_nocbs, "irq_count",
		      (int)c->n_irqs, "pinned_count", (int)c->n_tasks, "sibling_pinned_count",
		      (int)c->sibling_n_tasks);
	if (o == NULL)
		return NULL;
	a = json_array();
	shown = c->n_lcores < LCA_ISOL_LCORES_MAX ? c->n_lcores : LCA_ISOL_LCORES_MAX;
	for (k = 0; k < shown; k++)
		json_array_append_new(a, json_integer(c->lcores[k]));
	json_object_set_new(o, "lcores", a);
	a = json_array();
	shown = c->n_irqs < LCA_ISOL_IRQS_MAX ? c->n_irqs : LCA_ISOL_IRQS_MAX;
	for (k = 0; k < shown; k++)
		json_array_append_new(a, json_integer(c->irqs[k]));
	json_object_set_new(o, "irqs", a);
	a = json_array();
	shown = c->n_tasks < LCA_ISOL_TASKS_MAX ? c->n_tasks : LCA_ISOL_TASKS_MAX;
	for (k = 0; k < shown; k++)
		json_array_append_new(a, task_json(&c->tasks[k]));
	json_object_set_new(o, "pinned", a);
	a = json_array();
	for (k = 0; k < c->n_siblings; k++)
		json_array_append_new(a, json_pack("{s:i, s:b}", "cpu", c->siblings[k], "lcore",
						   c->sibling_lcore[k]));
	json_object_set_new(o, "siblings", a);
	json_object_set_new(o, "sibling_busy_pct",
			    isnan(c->sibling_busy_pct) ? json_null() : json_real(c->sibling_busy_pct));
	json_object_set_new(o, "governor", c->governor[0] ? json_string(c->governor) : json_null());
	p = turbo_name(r->turbo);
	json_object_set_new(o, "turbo", p ? json_string(p) : json_null());
	w = json_array();
	app_isol_cpu_warnings(r, i, warn, sizeof(warn));
	for (p = warn; *p != '\0';) {
		size_t n = strcspn(p, "\n");

		json_array_append_new(w, json_stringn(p, n));
		p += n + (p[n] == '\n');
	}
	json_object_set_new(o, "warnings", w);
	return o;
}

json_t *
app_isol_json(const struct lca_isol_report *r)
{
	json_t *a = json_array();

	if (a == NULL || r == NULL)
		return a;
	for (unsigned int i = 0; i < r->n_cpus; i++)
		json_array_append_new(a, cpu_json(r, i));
	return a;
}

int
app_isol_print_eal(FILE *f)
{
	struct lca_isol_conf conf = { .root = NULL, .self_pid = 0, .sample_ms = 50 };
	unsigned int lcores[RTE_MAX_LCORE], n = 0, id;
	int cpus[RTE_MAX_LCORE];
	struct lca_isol_report *r;

	if (f == NULL)
		return -EINVAL;
	if (rte_lcore_count() == 0)
		return -ENODEV;
	RTE_LCORE_FOREACH(id) {
		lcores[n] = id;
		cpus[n++] = lca_topo_lcore_cpu(id);
	}
	r = lca_isol_read(&conf, lcores, cpus, n);
	if (r == NULL)
		return -errno;
	app_isol_print(f, r);
	json_decref(last_json);
	last_json = app_isol_json(r);
	free(r);
	return 0;
}

json_t *
app_isol_last_json(void)
{
	return json_incref(last_json);
}
