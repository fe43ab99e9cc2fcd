/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef APP_FREQ_PRINT_H
#define APP_FREQ_PRINT_H

/**
 * @file
 * The frequency report (lca_freq.h) as the text table every benchmark app
 * prints. Kept out of the runtime library: rendering is the apps' business.
 */

#include <stdio.h>

#include "lca_freq.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Print @p r as a table, one row per lcore, the overall verdict, and a
 * warning line when it is UNSTABLE.
 */
void app_freq_report_print(FILE *f, const struct lca_freq_report *r);

#ifdef __cplusplus
}
#endif

#endif /* APP_FREQ_PRINT_H */
