/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_TEST_H
#define LCA_TEST_H

/* What the unit tests share: EAL bring-up as CI runs it, and a run of the
 * lcore loops that cannot hang a test. */

#include <stdbool.h>

/*
 * Start EAL on lcores 0-1 with --no-huge --no-pci --in-memory and a file
 * prefix of its own, so that tests may run side by side. Exits the process
 * when EAL cannot start: no test could run.
 */
void lca_test_eal_init(const char *prefix);

/*
 * Run the loops until a handler stops them, or until @p max_seconds pass.
 * @return true when a handler stopped them, false on the watchdog.
 */
bool lca_test_run(unsigned int max_seconds);

#endif /* LCA_TEST_H */
