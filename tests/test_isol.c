/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests of lca_isol: CPU lists, then the isolation state of lcores 0 and 1
 * read from a fake root (proc/cmdline, proc/irq, proc/PID/task, sysfs), its
 * warnings, its lines and its JSON; last, the reader on this machine.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include "lca_eal.h"
#include "app_isol_print.h"
#include "lca_test.h"

static char root[64];

/* ---- fake root ---- */

#define fake_write(...) lca_test_root_write(root, __VA_ARGS__)

/* A thread of the fake /proc: its stat (state @p state) and status
 * (allowed on @p allowed). */
static void
fake_task(int pid, int tid, const char *comm, char state, const char *allowed)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "proc/%d/task/%d/stat", pid, tid);
	fake_write(rel, "%d (%s) %c 1 %d %d 0 -1 4194560 107 0 0 0 5 3 0 0 20 0 1 0 8\n", tid, comm,
		   state, pid, pid);
	snprintf(rel, sizeof(rel), "proc/%d/task/%d/status", pid, tid);
	fake_write(rel, "Name:\t%s\nState:\t%c (running)\nTgid:\t%d\nPid:\t%d\n"
		   "Cpus_allowed:\tff\nCpus_allowed_list:\t%s\nMems_allowed_list:\t0\n", comm,
		   state, pid, tid, allowed);
}

static void
fake_irq(int irq, const char *allowed)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "proc/irq/%d/smp_affinity_list", irq);
	fake_write(rel, "%s\n", allowed);
}

static void
fake_siblings(int cpu, const char *list)
{
	char rel[96];

	snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu);
	fake_write(rel, "%s\n", list);
}

/*
 * Six CPUs, SMT pairs (0,2) (1,3) (4,5); lcores 0 and 1 on CPUs 0 and 1.
 * Booted with isolcpus=1 nohz_full=1 (init's "-- isolcpus=0" does not
 * count). IRQ 24 on CPU 1 only, 25 anywhere, 0 and 26 on CPU 0. Runnable
 * and pinned to CPU 1: pid 100 ("spin (x)") and our own pid 42; pid 100's
 * thread 101 pinned there too but asleep; pid 200 runnable anywhere;
 * pid 300's thread 301 runnable and pinned to CPU 3, CPU 1's sibling.
 * CPU 1's governor is powersave, CPU 0 has none; turbo is on.
 */
static void
fake_machine(void)
{
	fake_write("proc/cmdline", "BOOT_IMAGE=/vmlinuz ro isolcpus=1 quiet nohz_full=1 -- isolcpus=0\n");
	fake_write("sys/devices/system/cpu/online", "0-5\n");
	fake_write("sys/devices/system/cpu/possible", "0-7\n");
	fake_write("sys/devices/system/cpu/isolated", "\n");
	fake_write("sys/devices/system/cpu/nohz_full", "(null)\n");
	fake_irq(0, "0");
	fake_irq(24, "1");
	fake_irq(25, "0-5");
	fake_irq(26, "0");
	fake_write("proc/irq/default_smp_affinity", "3f\n");
	fake_task(100, 100, "spin (x)", 'R', "1");
	fake_task(100, 101, "spin", 'S', "1");
	fake_task(42, 42, "us", 'R', "1");
	fake_task(200, 200, "free", 'R', "0-5");
	fake_task(300, 300, "noisy", 'S', "0-5");
	fake_task(300, 301, "noisy", 'R', "3");
	fake_write("proc/self", "not a task\n");
	fake_siblings(0, "0,2");
	fake_siblings(1, "1,3");
	fake_write("sys/devices/system/cpu/cpu1/cpufreq/scaling_governor", "powersave\n");
	fake_write("sys/devices/system/cpu/intel_pstate/no_turbo", "0\n");
}

static int
setup_root(void **state)
{
	(void)state;
	return lca_test_root_make(root, sizeof(root), "isol");
}

static int
teardown_root(void **state)
{
	(void)state;
	return lca_test_root_remove(root);
}

/* Lcores 0 and 1 on CPUs 0 and 1 of the fake root, our pid 42. */
static struct lca_isol_report *
read_fake(void)
{
	static const unsigned int lcores[] = { 0, 1 };
	static const int cpus[] = { 0, 1 };
	struct lca_isol_conf conf = { .root = root, .self_pid = 42, .sample_ms = 0 };
	struct lca_isol_report *r = lca_isol_read(&conf, lcores, cpus, 2);

	assert_non_null(r);
	assert_int_equal(r->n_cpus, 2);
	return r;
}

/* ---- CPU lists ---- */

static void
test_cpulist(void **state)
{
	char buf[64];
	cpu_set_t s;

	(void)state;
	assert_int_equal(lca_isol_cpulist_parse("1-3,5\n", -1, &s), 4);
	assert_true(CPU_ISSET(1, &s) && CPU_ISSET(3, &s) && CPU_ISSET(5, &s));
	assert_false(CPU_ISSET(0, &s) || CPU_ISSET(4, &s));
	lca_isol_cpulist_format(&s, buf, sizeof(buf));
	assert_string_equal(buf, "1-3,5");
	assert_int_equal(lca_isol_cpulist_parse("0-7:2/4", -1, &s), 4);
	lca_isol_cpulist_format(&s, buf, sizeof(buf));
	assert_string_equal(buf, "0-1,4-5");
	assert_int_equal(lca_isol_cpulist_parse("all", 3, &s), 4);
	assert_int_equal(lca_isol_cpulist_parse("2-N", 5, &s), 4);
	assert_int_equal(lca_isol_cpulist_parse("7", -1, &s), 1);
	assert_int_equal(lca_isol_cpulist_parse("", -1, &s), 0);
	assert_int_equal(lca_isol_cpulist_parse("\n", -1, &s), 0);
	lca_isol_cpulist_format(&s, buf, sizeof(buf));
	assert_string_equal(buf, "");
	assert_int_equal(lca_isol_cpulist_parse("all", -1, &s), -EINVAL);
	assert_int_equal(lca_isol_cpulist_parse("3-1", -1, &s), -EINVAL);
	assert_int_equal(lca_isol_cpulist_parse("1,,2", -1, &s), -EINVAL);
	assert_int_equal(lca_isol_cpulist_parse("(null)", -1, &s), -EINVAL);
	assert_int_equal(lca_isol_cpulist_parse("1x", -1, &s), -EINVAL);
	assert_int_equal(lca_isol_cpulist_parse("0-7:3/2", -1, &s), -EINVAL);
	assert_int_equal(lca_isol_cpulist_parse("5000", -1, &s), -ERANGE);
}

/* ---- the fake machine ---- */

static void
test_state(void **state)
{
	struct lca_isol_report *r;
	const struct lca_isol_cpu *c0, *c1;

	(void)state;
	fake_machine();
	r = read_fake();
	c0 = &r->cpu[0];
	c1 = &r->cpu[1];
	assert_int_equal(c0->cpu, 0);
	assert_int_equal(c1->cpu, 1);
	assert_int_equal(c1->n_lcores, 1);
	assert_int_equal(c1->lcores[0], 1);

	assert_false(c0->isolcpus || c0->nohz_full || c0->rcu_nocbs);
	assert_true(c1->isolcpus && c1->nohz_full);
	assert_true(c1->rcu_nocbs); /* nohz_full implies it */

	assert_int_equal(c0->n_irqs, 3);
	assert_int_equal(c0->irqs[0], 0);
	assert_int_equal(c0->irqs[1], 25);
	assert_int_equal(c0->irqs[2], 26);
	assert_int_equal(c1->n_irqs, 2);
	assert_int_equal(c1->irqs[0], 24);
	assert_int_equal(c1->irqs[1], 25);

	/* Only the runnable thread pinned to CPU 1, not ours, not the
	 * sleeping one, not the one allowed anywhere. */
	assert_int_equal(c0->n_tasks, 0);
	assert_int_equal(c1->n_tasks, 1);
	assert_int_equal(c1->tasks[0].pid, 100);
	assert_int_equal(c1->tasks[0].tid, 100);
	assert_string_equal(c1->tasks[0].comm, "spin (x)");

	assert_int_equal(c0->n_siblings, 1);
	assert_int_equal(c0->siblings[0], 2);
	assert_false(c0->sibling_lcore[0]);
	assert_int_equal(c0->sibling_n_tasks, 0);
	assert_int_equal(c1->n_siblings, 1);
	assert_int_equal(c1->siblings[0], 3);
	assert_int_equal(c1->sibling_n_tasks, 1);
	assert_int_equal(c1->sibling_task_cpu, 3);
	assert_int_equal(c1->sibling_task.pid, 300);
	assert_int_equal(c1->sibling_task.tid, 301);
	assert_true(isnan(c1->sibling_busy_pct)); /* sample_ms 0: no figure */

	assert_string_equal(c0->governor, "");
	assert_string_equal(c1->governor, "powersave");
	assert_int_equal(r->turbo, 1);
	assert_true(r->turbo_intel);
	/* CPUs 2 and 3 share cores with the lcores: the fixes move to 4-5. */
	assert_string_equal(r->housekeeping, "4-5");
	free(r);
}

static void
test_warnings(void **state)
{
	struct lca_isol_report *r;
	char buf[4096];

	(void)state;
	fake_machine();
	r = read_fake();
	assert_int_equal(app_isol_cpu_warnings(r, 0, buf, sizeof(buf)), 2);
	assert_string_equal(buf,
		"CPU 0 is not isolated: boot with isolcpus=0 nohz_full=0 rcu_nocbs=0\n"
		"CPU 0 takes IRQs 0, 25, 26: move them with `for i in 0 25 26; do echo 4-5 > "
		"/proc/irq/$i/smp_affinity_list; done`\n");
	assert_int_equal(app_isol_cpu_warnings(r, 1, buf, sizeof(buf)), 4);
	assert_string_equal(buf,
		"CPU 1 takes IRQs 24, 25: move them with `for i in 24 25; do echo 4-5 > "
		"/proc/irq/$i/smp_affinity_list; done`\n"
		"CPU 1 runs another task pinned to it: pid 100 (spin (x)); stop it or move it "
		"with `taskset -pc 4-5 100`\n"
		"CPU 1's SMT sibling CPU 3 is busy (runs pid 300 tid 301 (noisy) pinned to it): "
		"the two share a core; keep it idle (isolcpus=1,3) or turn SMT off with "
		"`echo off > /sys/devices/system/cpu/smt/control`\n"
		"CPU 1's governor is powersave: the clock follows the load; set it with "
		"`echo performance > /sys/devices/system/cpu/cpu1/cpufreq/scaling_governor`\n");
	assert_int_equal(app_isol_global_warnings(r, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "turbo is on: the clock follows load and heat; turn it off "
				 "with `echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo`\n");

	/* A busy sibling with no pinned task; one IRQ; a tight buffer. */
	r->cpu[1].sibling_n_tasks = 0;
	r->cpu[1].sibling_busy_pct = 45.0;
	r->cpu[1].n_irqs = 1;
	r->cpu[1].n_tasks = 0;
	r->cpu[1].governor[0] = '\0';
	assert_int_equal(app_isol_cpu_warnings(r, 1, buf, sizeof(buf)), 2);
	assert_string_equal(buf,
		"CPU 1 takes IRQ 24: move it with `echo 4-5 > /proc/irq/24/smp_affinity_list`\n"
		"CPU 1's SMT sibling CPU 3 is busy (45.0 %): the two share a core; keep it idle "
		"(isolcpus=1,3) or turn SMT off with `echo off > /sys/devices/system/cpu/smt/control`\n");
	r->cpu[1].sibling_busy_pct = 5.0; /* under LCA_ISOL_SIBLING_BUSY_PCT */
	assert_int_equal(app_isol_cpu_warnings(r, 1, buf, 30), 0);
	assert_int_equal(strlen(buf), 29);
	assert_int_equal(app_isol_cpu_warnings(r, 2, buf, sizeof(buf)), 0);
	free(r);
}

/* Partly isolated: isolcpus with flags, rcu_nocbs, no nohz_full; many IRQs;
 * several pinned tasks; no CPU left over for the fixes. */
static void
test_partial(void **state)
{
	static const unsigned int lcores[] = { 0, 1, 2 };
	static const int cpus[] = { 0, 1, 1 };
	struct lca_isol_conf conf = { .root = root, .self_pid = 42, .sample_ms = 0 };
	struct lca_isol_report *r;
	char buf[4096];

	(void)state;
	fake_write("proc/cmdline", "isolcpus=nohz,domain,managed_irq,1 rcu_nocbs=1\n");
	fake_write("sys/devices/system/cpu/online", "0-1\n");
	for (int irq = 30; irq < 42; irq++)
		fake_irq(irq, "1");
	fake_task(500, 500, "a", 'R', "1");
	fake_task(600, 601, "b", 'R', "1");
	fake_write("sys/devices/system/cpu/cpufreq/boost", "1\n");
	r = lca_isol_read(&conf, lcores, cpus, 3);
	assert_non_null(r);
	assert_int_equal(r->n_cpus, 2); /* lcores 1 and 2 share CPU 1 */
	assert_int_equal(r->cpu[1].n_lcores, 2);
	assert_int_equal(r->cpu[1].lcores[1], 2);
	assert_true(r->cpu[1].isolcpus && r->cpu[1].rcu_nocbs);
	assert_false(r->cpu[1].nohz_full);
	assert_int_equal(r->cpu[1].n_irqs, 12);
	assert_int_equal(r->cpu[1].n_siblings, 0);
	assert_string_equal(r->housekeeping, "");
	assert_int_equal(r->turbo, 1);
	assert_false(r->turbo_intel);
	assert_int_equal(app_isol_cpu_warnings(r, 1, buf, sizeof(buf)), 3);
	assert_string_equal(buf,
		"CPU 1 is not in nohz_full: boot with nohz_full=1 too\n"
		"CPU 1 takes 12 IRQs (30, 31, 32, 33, 34, 35, 36, 37 and 4 more): move them to a "
		"CPU that runs no lcore (every online CPU runs one: leave one out of -l)\n"
		"CPU 1 runs 2 other tasks pinned to it: pid 500 (a), pid 600 tid 601 (b); stop them\n");
	assert_int_equal(app_isol_global_warnings(r, buf, sizeof(buf)), 1);
	assert_non_null(strstr(buf, "`echo 0 > /sys/devices/system/cpu/cpufreq/boost`"));
	/* With a CPU to move them to, every IRQ goes there. */
	snprintf(r->housekeeping, sizeof(r->housekeeping), "0");
	app_isol_cpu_warnings(r, 1, buf, sizeof(buf));
	assert_non_null(strstr(buf, "and 4 more): move them with `for i in /proc/irq/[0-9]*; do "
				    "echo 0 > $i/smp_affinity_list; done 2>/dev/null`\n"));
	assert_non_null(strstr(buf, "stop them or move each with `taskset -pc 0 TID`\n"));
	free(r);
}

/* Nothing visible at all: every figure is "not isolated", none made up. */
static void
test_empty_root(void **state)
{
	static const unsigned int lcores[] = { 3 };
	static const int cpus[] = { 3 };
	struct lca_isol_conf conf = { .root = root, .self_pid = 42, .sample_ms = 10 };
	struct lca_isol_report *r = lca_isol_read(&conf, lcores, cpus, 1);
	char buf[1024];

	(void)state;
	assert_non_null(r);
	assert_int_equal(r->n_cpus, 1);
	assert_int_equal(r->cpu[0].n_irqs + r->cpu[0].n_tasks + r->cpu[0].n_siblings, 0);
	assert_int_equal(r->turbo, -1);
	assert_string_equal(r->cpu[0].governor, "");
	assert_int_equal(app_isol_cpu_warnings(r, 0, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "CPU 3 is not isolated: boot with isolcpus=3 nohz_full=3 rcu_nocbs=3\n");
	free(r);
	assert_null(lca_isol_read(NULL, lcores, cpus, 1));
	assert_int_equal(errno, EINVAL);
}

static void
test_print_and_json(void **state)
{
	struct lca_isol_report *r;
	char *text = NULL, *line, *save = NULL;
	unsigned int n_cpu = 0, n_warn = 0;
	size_t len = 0;
	json_t *j, *c1;
	FILE *f;

	(void)state;
	fake_machine();
	r = read_fake();
	f = open_memstream(&text, &len);
	assert_non_null(f);
	app_isol_print(f, r);
	fclose(f);
	assert_non_null(strstr(text,
		"# isolation: CPU 1 (lcore 1): isolcpus yes, nohz_full yes, rcu_nocbs yes; "
		"IRQs 24, 25; pinned tasks 1; SMT sibling CPU 3 busy n/a, 1 pinned; governor "
		"powersave, turbo on\n"));
	assert_non_null(strstr(text,
		"# isolation: CPU 0 (lcore 0): isolcpus no, nohz_full no, rcu_nocbs no; "
		"IRQs 0, 25, 26; pinned tasks 0; SMT sibling CPU 2 busy n/a; governor n/a, "
		"turbo on\n"));
	assert_non_null(strstr(text, "# isolation: warning: CPU 1 runs another task pinned to "
				     "it: pid 100 (spin (x)); "));
	for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		assert_int_equal(strncmp(line, "# isolation: ", 13), 0);
		n_cpu += strncmp(line, "# isolation: CPU ", 17) == 0;
		n_warn += strncmp(line, "# isolation: warning: ", 22) == 0;
	}
	assert_int_equal(n_cpu, 2);
	assert_int_equal(n_warn, 2 + 4 + 1);
	free(text);

	j = app_isol_json(r);
	assert_int_equal(json_array_size(j), 2);
	c1 = json_array_get(j, 1);
	assert_int_equal(json_integer_value(json_object_get(c1, "cpu")), 1);
	assert_true(json_is_true(json_object_get(c1, "isolcpus")));
	assert_int_equal(json_integer_value(json_object_get(c1, "irq_count")), 2);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(c1, "irqs"), 0)), 24);
	assert_int_equal(json_integer_value(json_object_get(c1, "pinned_count")), 1);
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(c1, "pinned"), 0), "comm")),
			    "spin (x)");
	assert_true(json_is_null(json_object_get(c1, "sibling_busy_pct")));
	assert_int_equal(json_integer_value(json_object_get(c1, "sibling_pinned_count")), 1);
	assert_string_equal(json_string_value(json_object_get(c1, "governor")), "powersave");
	assert_string_equal(json_string_value(json_object_get(c1, "turbo")), "on");
	assert_int_equal(json_array_size(json_object_get(c1, "warnings")), 4);
	assert_true(json_is_null(json_object_get(json_array_get(j, 0), "governor")));
	json_decref(j);
	free(r);
}

/* ---- this machine ---- */

static void
test_this_machine(void **state)
{
	char *text = NULL, *line, *save = NULL;
	unsigned int n_cpu = 0;
	size_t len = 0;
	json_t *j;
	FILE *f;

	(void)state;
	assert_null(app_isol_last_json());
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(app_isol_print_eal(f), 0);
	fclose(f);
	for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		assert_int_equal(strncmp(line, "# isolation: ", 13), 0);
		n_cpu += strncmp(line, "# isolation: CPU ", 17) == 0;
	}
	assert_int_equal(n_cpu, 2); /* lcores 0 and 1 */
	free(text);
	j = app_isol_last_json();
	assert_int_equal(json_array_size(j), 2);
	json_decref(j);
	assert_int_equal(app_isol_print_eal(NULL), -EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test_setup_teardown(test_state, setup_root, teardown_root),
		cmocka_unit_test_setup_teardown(test_warnings, setup_root, teardown_root),
		cmocka_unit_test_setup_teardown(test_partial, setup_root, teardown_root),
		cmocka_unit_test_setup_teardown(test_empty_root, setup_root, teardown_root),
		cmocka_unit_test_setup_teardown(test_print_and_json, setup_root, teardown_root),
		cmocka_unit_test(test_this_machine),
	};
	int ret;

	lca_test_eal_init("lca_test_isol");
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	lca_eal_cleanup();
	return lca_test_status(ret);
}
