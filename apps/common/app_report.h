/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef APP_REPORT_H
#define APP_REPORT_H

/**
 * @file
 * Tables every app prints after a run: the runtime's counters per actor
 * and per lcore, and the machine the figures come from.
 */

#include <stdio.h>

#include <jansson.h>

/** Print one row per actor: lcore, received, handled, failures, high-water mark... */
void app_report_actors(FILE *f);

/** Print one row per enabled lcore: turns, loops, busy % and idle cycles. */
void app_report_lcores(FILE *f);

/** Print the runtime-wide send failures by cause, one line. */
void app_report_send_errors(FILE *f);

/**
 * Print the machine: CPU model, online CPUs, kernel, TSC rate, EAL arguments
 * and whether the no-huge fallback was taken.
 */
void app_report_machine(FILE *f);

/** The machine, as app_report_machine() prints it, as a JSON object. */
json_t *app_report_machine_json(void);

/** Per-lcore counters as a JSON array. */
json_t *app_report_lcores_json(void);

/**
 * Write @p root to @p path (pretty-printed).
 *
 * @return
 *   0; a negative errno, after a message on stderr naming the file.
 */
int app_report_write_json(const char *path, json_t *root);

#endif /* APP_REPORT_H */
