/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>

#include "lca_actor.h"
#include "app_main.h"
#include "app_cli.h"
#include "lca_eal.h"
#include "app_isol_print.h"
#include "app_result.h"
#include "lca_topo.h"

/* Index of @p word in argv[from..argc), or -1. */
static int
find_arg(int argc, char **argv, int from, const char *word)
{
	for (int i = from; i < argc; i++)
		if (strcmp(argv[i], word) == 0)
			return i;
	return -1;
}

int
app_opt_placement(void *conf, const struct app_opt *opt, char *val)
{
	return lca_placement_parse(val, app_opt_target(opt, conf));
}

int
app_opt_idle(void *conf, const struct app_opt *opt, char *val)
{
	return lca_idle_policy_parse(val, app_opt_target(opt, conf));
}

int
app_opt_mailbox(void *conf, const struct app_opt *opt, char *val)
{
	return lca_mailbox_mode_parse(val, app_opt_target(opt, conf));
}

/* The app whose EAL arguments are being parsed, for the usage hook. */
static const struct app_spec *usage_app;

/* Called by EAL after its own usage, on a bad EAL argument: the app's
 * usage line and where its options are, so that the reader learns how the
 * command line is split and which app it was, not only EAL's options. */
static void
eal_usage_hook(const char *prog)
{
	const struct app_opt_table *t = usage_app != NULL ? usage_app->opts : NULL;

	printf("Usage: %s %s\n", prog,
	       t != NULL && t->synopsis != NULL ? t->synopsis : "[EAL args] -- [options]");
	printf("%s's own options: %s -- --help\n",
	       usage_app != NULL ? usage_app->name : prog, prog);
}

int
app_main(int argc, char **argv, const struct app_spec *app)
{
	int app_argc, ret, status, sep = find_arg(argc, argv, 1, "--");
	char **app_argv;

	/* Help and the version must work where EAL cannot come up (no
	 * hugepages, a busy prefix), and ask for nothing else. Before "--",
	 * -h is EAL's. */
	if ((app->usage != NULL || app->opts != NULL) &&
	    (find_arg(argc, argv, 1, "--help") >= 0 ||
	     (sep >= 0 && find_arg(argc, argv, sep + 1, "-h") >= 0))) {
		if (app->usage != NULL)
			app->usage(argv[0]);
		else
			app_opt_usage(stdout, app->opts, argv[0]);
		return 0;
	}
	if (find_arg(argc, argv, 1, "--version") >= 0) {
		app_cli_version(app->name);
		return 0;
	}
	if (sep < 0) {
		fprintf(stderr, "%s: no '--' on the command line: give EAL's arguments, then '--', "
				"then the app's (none for the defaults), e.g.\n  %s -l 0-1 -- --help\n",
			app->name, argv[0]);
		return APP_EXIT_USAGE;
	}
	usage_app = app;
	rte_set_application_usage_hook(eal_usage_hook);
	if (lca_eal_init(argc, argv, &app_argc, &app_argv) < 0)
		return 1;
	app_result_context(app->name, app_argc, app_argv);
	if (find_arg(app_argc, app_argv, 1, "--topology") >= 0) {
		ret = lca_topo_print_eal(stdout);
		lca_eal_cleanup();
		return ret < 0 ? 1 : 0;
	}
	ret = app->parse(app_argc, app_argv, app->conf);
	if (ret != 0) {
		if (ret < 0)
			fprintf(stderr, "Try '%s [EAL args] -- --help'.\n", app->name);
		lca_eal_cleanup();
		return ret < 0 ? APP_EXIT_USAGE : 0;
	}
	/* What may take the lcores' CPUs away; stdout stays the app's (CSV). */
	app_isol_print_eal(stderr);
	ret = app->run(app->conf);
	status = ret == 0 ? 0 : 1;
	if (ret == -EINTR)
		fprintf(stderr, "%s: interrupted\n", app->name);
	else if (ret < 0)
		fprintf(stderr, "%s: failed: %s\n", app->name, strerror(-ret));
	lca_eal_cleanup();
	return status;
}
