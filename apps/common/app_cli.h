/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef APP_CLI_H
#define APP_CLI_H

/**
 * @file
 * Strict parsing of app arguments: a number with trailing junk, a value out
 * of range or an empty list item is an error, never a silent zero.
 */

#include <stddef.h>
#include <stdint.h>

/** Exit status of an app given a bad argument. */
#define APP_EXIT_USAGE 2

/**
 * Parse an unsigned decimal in [@p min, @p max].
 *
 * @return
 *   0; -EINVAL (not a number) or -ERANGE.
 */
int app_cli_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/**
 * Parse a positive decimal number of seconds (e.g. "0.5").
 *
 * @return
 *   0; -EINVAL.
 */
int app_cli_seconds(const char *s, double *out);

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
int app_cli_split(char *s, char **items, unsigned int max);

/**
 * Check, before a run, that a result file can be written: the file if it
 * exists, else the folder it would go in. Says why not on stderr, naming
 * @p option, so that a long run never ends in a write that fails.
 *
 * @return
 *   0; -EINVAL (empty), or the errno of the failed check, negated.
 */
int app_cli_output_path(const char *option, const char *path);

/**
 * The option getopt_long() or getopt_long_only() (with opterr = 0) just
 * refused, as the user wrote it, for the message: "-x" for a short option,
 * which may sit in a cluster such as -vx where argv[optind - 1] is still the
 * word before it (argv[0] for the first); the whole word for a long one.
 *
 * @param argv
 *   What getopt was given.
 * @param buf
 *   Room for "-x".
 * @param len
 *   Size of @p buf (3 or more).
 * @return
 *   @p buf or a word of @p argv.
 */
const char *app_cli_bad_option(char *const *argv, char *buf, size_t len);

/**
 * Print "@p prog (lcactor) VERSION" on stdout, what `--version` of every
 * app prints.
 */
void app_cli_version(const char *prog);

#endif /* APP_CLI_H */
