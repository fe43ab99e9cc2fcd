/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_REPORT_H
#define LCA_REPORT_H

/**
 * @file
 * Tables every app prints after a run: the runtime's counters per actor
 * and per lcore, and the machine the figures come from.
 */

#include <stdio.h>

#include <jansson.h>

/** Print one row per actor: lcore, received, handled, failures, high-water mark... */
void lca_report_actors(FILE *f);

/** Print one row per enabled lcore: turns, loops, busy % and idle cycles. */
void lca_report_lcores(FILE *f);

/** Print the runtime-wide send failures by cause, one line. */
void lca_report_send_errors(FILE *f);

/**
 * Print the machine: CPU model, online CPUs, kernel, TSC rate, EAL arguments
 * and whether the no-huge fallback was taken.
 */
void lca_report_machine(FILE *f);

/** The machine, as lca_report_machine() prints it, as a JSON object. */
json_t *lca_report_machine_json(void);

/** Per-lcore counters as a JSON array. */
json_t *lca_report_lcores_json(void);

/**
 * Write @p root to @p path (pretty-printed).
 *
 * @return
 *   0; a negative errno, after a message on stderr naming the file.
 */
int lca_report_write_json(const char *path, json_t *root);

#endif /* LCA_REPORT_H */
