/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef APP_ISOL_PRINT_H
#define APP_ISOL_PRINT_H

/**
 * @file
 * What lcore/lca_isol_priv.h's report says, for the apps: each problem with its
 * fix, the "# isolation:" lines, and the record's "isolation" array.
 */

#include <stdio.h>

#include <jansson.h>

#include "lca_isol_priv.h"

/**
 * Write the problems of @p r's entry @p i, one per line ("CPU 1 takes IRQs
 * 24, 25: move them with ..."), each ending in '\n', into @p buf.
 *
 * @return
 *   The number of problems (0: @p buf is "").
 */
unsigned int app_isol_cpu_warnings(const struct lca_isol_report *r, unsigned int i, char *buf,
				   size_t len);

/**
 * The problem that concerns every CPU (turbo on), as one line ending in
 * '\n'; "" and 0 when there is none.
 */
unsigned int app_isol_global_warnings(const struct lca_isol_report *r, char *buf, size_t len);

/**
 * Print "# isolation: CPU ..." for each entry of @p r, then
 * "# isolation: warning: ..." for each problem.
 */
void app_isol_print(FILE *f, const struct lca_isol_report *r);

/** @p r as the record's "isolation" array (docs/json.md). */
json_t *app_isol_json(const struct lca_isol_report *r);

/**
 * Read the enabled EAL lcores' CPUs on this machine, print them on @p f and
 * keep their JSON for app_isol_last_json(). Quiet when EAL is not up.
 *
 * @return
 *   0; a negative errno.
 */
int app_isol_print_eal(FILE *f);

/** A new reference to what app_isol_print_eal() last read; NULL before. */
json_t *app_isol_last_json(void);

#endif /* APP_ISOL_PRINT_H */
