/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_ISOL_PRIV_H
#define LCA_ISOL_PRIV_H

/**
 * @file
 * The isolation state of the lcores' CPUs, as a core-pinning user checks it
 * by hand: whether each CPU is in isolcpus, nohz_full and rcu_nocbs, which
 * IRQs may land on it, which other runnable tasks are pinned to it, its SMT
 * siblings and whether they are busy, its governor and the turbo state.
 *
 * A probe of the machine beside the frequency readers (lca_freq.h); the
 * apps' words and JSON for it are apps/common/app_isol_print.h.
 * app_main() prints it at the start of every app, in lines that start
 * with "# isolation:" (one per CPU, then one per problem found, with its
 * fix), and app_result_write() adds it to the record as "isolation" (see
 * docs/usage.md and docs/json.md). Inside the tree only: the library does
 * not export it.
 *
 * Every reader takes a root folder (NULL or "" for this machine) under
 * which proc/ and sys/ are read, so that tests run them on a fake tree.
 */

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

/** IRQ numbers kept per CPU (the count is of all of them). */
#define LCA_ISOL_IRQS_MAX 32
/** IRQ numbers the text shows per CPU before "and N more". */
#define LCA_ISOL_IRQS_SHOWN 8
/** Pinned tasks kept per CPU (the count is of all of them). */
#define LCA_ISOL_TASKS_MAX 4
/** Lcores named per CPU. */
#define LCA_ISOL_LCORES_MAX 8
/** SMT siblings kept per CPU, itself excluded. */
#define LCA_ISOL_SIBLINGS_MAX 7
/** A sibling that runs no lcore and is at least this busy is a problem. */
#define LCA_ISOL_SIBLING_BUSY_PCT 10.0

/** A runnable task pinned to one CPU. */
struct lca_isol_task {
	int pid;       /**< Its process. */
	int tid;       /**< The thread (== pid for a process' main thread). */
	char comm[20]; /**< Its name, from stat. */
};

/** One CPU that runs lcores. */
struct lca_isol_cpu {
	int cpu;                 /**< OS CPU number. */
	unsigned int n_lcores;   /**< Lcores on it (more than LCA_ISOL_LCORES_MAX: only those named). */
	unsigned int lcores[LCA_ISOL_LCORES_MAX];
	bool isolcpus;           /**< In isolcpus= or sys/devices/system/cpu/isolated. */
	bool nohz_full;          /**< In nohz_full= or sys/devices/system/cpu/nohz_full. */
	bool rcu_nocbs;          /**< In rcu_nocbs= (nohz_full CPUs count: the kernel offloads them too). */
	unsigned int n_irqs;     /**< IRQs whose smp_affinity_list holds the CPU. */
	unsigned int irqs[LCA_ISOL_IRQS_MAX]; /**< The lowest of them, ascending. */
	unsigned int n_tasks;    /**< Runnable tasks, not ours, allowed on this CPU only. */
	struct lca_isol_task tasks[LCA_ISOL_TASKS_MAX]; /**< The first of them. */
	unsigned int n_siblings; /**< SMT siblings, itself excluded. */
	int siblings[LCA_ISOL_SIBLINGS_MAX];            /**< Their OS numbers, ascending. */
	bool sibling_lcore[LCA_ISOL_SIBLINGS_MAX];      /**< Whether each runs an lcore too. */
	/** The highest utilisation (%) of the siblings that run no lcore over
	 *  the sampling interval; NAN when unknown or there are none. */
	double sibling_busy_pct;
	/** Runnable tasks pinned to a sibling that runs no lcore. */
	unsigned int sibling_n_tasks;
	struct lca_isol_task sibling_task; /**< The first of them. */
	int sibling_task_cpu;    /**< Its CPU; -1 when there is none. */
	char governor[32];       /**< cpufreq governor; "" when not visible. */
};

/** The isolation state of every CPU that runs an lcore. */
struct lca_isol_report {
	char root[256];          /**< Where it was read ("" for this machine). */
	int turbo;               /**< 1 on, 0 off, -1 not visible. */
	bool turbo_intel;        /**< Turbo is seen in intel_pstate/no_turbo (else cpufreq/boost). */
	/** Where the fixes move IRQs and tasks to, as a list ("0,4-7"): the
	 *  online CPUs that run no lcore and share no core with one, else those
	 *  that run no lcore; "" when every online CPU runs one (or the online
	 *  list is not visible). */
	char housekeeping[128];
	unsigned int n_cpus;     /**< Entries of cpu[]. */
	struct lca_isol_cpu cpu[]; /**< In the order their first lcore was given. */
};

/** How to read. */
struct lca_isol_conf {
	const char *root;        /**< NULL or "": this machine; else a fake root. */
	int self_pid;            /**< Our process, whose threads are not "other tasks"; 0: getpid(). */
	unsigned int sample_ms;  /**< Between the two /proc/stat reads of the siblings; 0: one read, no figure. */
};

/**
 * Parse a kernel CPU list ("1-3,5", "0-7:2/4", "all", "1-N") into @p set
 * (cleared first).
 *
 * @param last
 *   The highest CPU, for "all" and "N"; -1 when unknown (they are then
 *   refused).
 * @return
 *   The number of CPUs in the set (0 for an empty list); -EINVAL when
 *   garbled; -ERANGE for a CPU past CPU_SETSIZE.
 */
int lca_isol_cpulist_parse(const char *s, int last, cpu_set_t *set);

/** Write @p set as a CPU list ("0,2-5") into @p buf; "" when empty. */
void lca_isol_cpulist_format(const cpu_set_t *set, char *buf, size_t len);

/**
 * Read the isolation state of the CPUs of @p n lcores.
 *
 * @param lcores
 *   The lcores' ids.
 * @param cpus
 *   Each lcore's CPU; an lcore whose CPU is negative is left out. Lcores
 *   sharing a CPU share its entry.
 * @return
 *   A report to free(); NULL with errno set (EINVAL, ENOMEM).
 */
struct lca_isol_report *lca_isol_read(const struct lca_isol_conf *conf, const unsigned int *lcores,
				      const int *cpus, unsigned int n);

#endif /* LCA_ISOL_PRIV_H */
