/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef APP_MAIN_H
#define APP_MAIN_H

/**
 * @file
 * The shape every lcactor app has, in one place: `--help` before anything
 * else, EAL up from `app [EAL args] -- [app args]` (no `--` exits 2),
 * `--topology`, the app's own arguments (a bad one exits 2), the run,
 * teardown, and an exit status that says how it went.
 */

#include <stdbool.h>

#include "app_opt.h"

/** What an app's parse function returns to mean "done, exit 0" (--help). */
#define APP_DONE APP_OPT_DONE

/** An app. */
struct app_spec {
	const char *name; /**< For messages, e.g. "lca-reqresp". */
	/**
	 * Parse the app's arguments (argv[0] is the program) into @p conf.
	 * @return 0; APP_DONE; a negative errno for a bad argument, after
	 * a message on stderr that names it.
	 */
	int (*parse)(int argc, char **argv, void *conf);
	/** Print the app's help on stdout; @p prog is argv[0]. NULL: --help
	 *  reaches the parser only, after EAL is up. */
	void (*usage)(const char *prog);
	/** The app's options: when set and @c usage is NULL, the help. */
	const struct app_opt_table *opts;
	/** Run the app. @return 0; a negative errno (-EINTR on a signal). */
	int (*run)(void *conf);
	void *conf; /**< Passed to both. */
};

/**
 * APP_OPT_CUSTOM parsers of the runtime's words, into an enum at the
 * option's target: lca_placement_parse(), lca_idle_policy_parse(),
 * lca_mailbox_mode_parse() and lca_dispatcher_parse().
 * @return 0; -EINVAL.
 */
int app_opt_placement(void *conf, const struct app_opt *opt, char *val);
/** @copydoc app_opt_placement */
int app_opt_idle(void *conf, const struct app_opt *opt, char *val);
/** @copydoc app_opt_placement */
int app_opt_mailbox(void *conf, const struct app_opt *opt, char *val);

/**
 * Run @p app: `--help` anywhere on the command line, or `-h` after `--`,
 * prints the app's help and exits 0 without bringing EAL up (EAL's own help
 * is `-h` of any DPDK app before `--`, e.g. dpdk-testpmd); `--version`
 * anywhere prints the app's name and lcactor's version (app_cli_version())
 * and exits 0, before EAL too; a command line without `--`
 * exits 2, since the app could not tell its arguments from EAL's; then
 * lca_eal_init(); `--topology` anywhere in the app's arguments prints the
 * lcores' topology and exits 0; parse; the isolation state of the lcores'
 * CPUs on stderr (app_isol_print_eal()); run; lca_eal_cleanup().
 *
 * @return
 *   The exit status: 0; 1 when EAL or the run failed; APP_EXIT_USAGE (2)
 *   for a bad argument or no `--`.
 */
int app_main(int argc, char **argv, const struct app_spec *app);

#endif /* APP_MAIN_H */
