/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_CLI_H
#define LCA_CLI_H

/**
 * @file
 * Strict parsing of app arguments: a number with trailing junk, a value out
 * of range or an empty list item is an error, never a silent zero.
 */

#include <stdint.h>

/** Exit status of an app given a bad argument. */
#define LCA_EXIT_USAGE 2

/**
 * Parse an unsigned decimal in [@p min, @p max].
 *
 * @return
 *   0; -EINVAL (not a number) or -ERANGE.
 */
int lca_cli_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/**
 * Parse a positive decimal number of seconds (e.g. "0.5").
 *
 * @return
 *   0; -EINVAL.
 */
int lca_cli_seconds(const char *s, double *out);

/**
 * Split a comma-separated list in place.
 *
 * @param s
 *   The list; commas are replaced by NULs.
 * @param[out] items
 *   Pointers to the items.
 * @param max
 *   Room in @p items.
 * @return
 *   Number of items; -EINVAL for an empty item; -E2BIG for too many.
 */
int lca_cli_split(char *s, char **items, unsigned int max);

/**
 * Check, before a run, that a result file can be written: the file if it
 * exists, else the folder it would go in. Says why not on stderr, naming
 * @p option, so that a long run never ends in a write that fails.
 *
 * @return
 *   0; -EINVAL (empty), or the errno of the failed check, negated.
 */
int lca_cli_output_path(const char *option, const char *path);

#endif /* LCA_CLI_H */
