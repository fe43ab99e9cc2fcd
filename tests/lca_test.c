/* SPDX-License-Identifier: BSD-3-Clause */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "lca_actor.h"
#include "lca_eal.h"
#include "lca_lcore.h"
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

struct watchdog {
	unsigned int seconds;
	volatile bool done;
	bool fired;
};

static void *
watch(void *arg)
{
	struct watchdog *w = arg;
	struct timespec tick = { .tv_sec = 0, .tv_nsec = 10 * 1000 * 1000 };

	for (unsigned int i = 0; i < w->seconds * 100 && !w->done; i++)
		nanosleep(&tick, NULL);
	if (!w->done) {
		w->fired = true;
		lca_runtime_stop();
	}
	return NULL;
}

bool
lca_test_run(unsigned int max_seconds)
{
	struct watchdog w = { .seconds = max_seconds };
	pthread_t t;

	if (pthread_create(&t, NULL, watch, &w) != 0)
		return false;
	lca_runtime_run();
	w.done = true;
	pthread_join(t, NULL);
	return !w.fired;
}
