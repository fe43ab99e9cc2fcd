/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_test.h"

void
lca_test_eal_init(const char *prefix)
{
	char *argv[] = {
		(char *)"lca-test", (char *)"-l", (char *)"0-1", (char *)"--no-huge",
		(char *)"--no-pci", (char *)"--in-memory", (char *)"--file-prefix",
		(char *)prefix, (char *)"--log-level", (char *)"lib.*:error", NULL,
	};
	int app_argc;
	char **app_argv;

	if (lca_eal_init(10, argv, &app_argc, &app_argv) < 0) {
		fprintf(stderr, "%s: EAL did not start\n", prefix);
		exit(1);
	}
}

bool
lca_test_run(unsigned int max_seconds)
{
	return lca_runtime_run(max_seconds * 1000) == 0;
}
