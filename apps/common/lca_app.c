/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lca_app.h"
#include "lca_cli.h"
#include "lca_eal.h"
#include "lca_topo.h"

static bool
wants_topology(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--topology") == 0)
			return true;
	return false;
}

int
lca_app_getopt(int argc, char **argv, const struct option *opts, bool only,
	       lca_app_option_fn option, void (*usage)(const char *prog), void *conf)
{
	int opt, idx = 0;

	optind = 1;
	opterr = 1;
	while ((opt = only ? getopt_long_only(argc, argv, "", opts, &idx) :
			     getopt_long(argc, argv, "", opts, &idx)) != -1) {
		switch (opt) {
		case 0:
			if (option(conf, opts[idx].name, optarg) < 0)
				return -EINVAL;
			break;
		case 'h':
			usage(argv[0]);
			return LCA_APP_DONE;
		default: /* getopt said what was wrong */
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0], argv[optind]);
		return -EINVAL;
	}
	return 0;
}

int
lca_app_main(int argc, char **argv, const struct lca_app *app)
{
	int app_argc, ret, status;
	char **app_argv;

	if (lca_eal_init(argc, argv, &app_argc, &app_argv) < 0)
		return 1;
	if (wants_topology(app_argc, app_argv)) {
		ret = lca_topo_print_eal(stdout);
		lca_eal_cleanup();
		return ret < 0 ? 1 : 0;
	}
	ret = app->parse(app_argc, app_argv, app->conf);
	if (ret != 0) {
		if (ret < 0)
			fprintf(stderr, "Try '%s [EAL args] -- --help'.\n", app->name);
		lca_eal_cleanup();
		return ret < 0 ? LCA_EXIT_USAGE : 0;
	}
	ret = app->run(app->conf);
	status = ret == 0 ? 0 : 1;
	if (ret == -EINTR)
		fprintf(stderr, "%s: interrupted\n", app->name);
	else if (ret < 0)
		fprintf(stderr, "%s: failed: %s\n", app->name, strerror(-ret));
	lca_eal_cleanup();
	return status;
}
