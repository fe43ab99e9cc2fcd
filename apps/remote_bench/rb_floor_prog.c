/* SPDX-License-Identifier: BSD-3-Clause */
/* The options and the report the bare floors share (rb_floor_prog.h). */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app_cli.h"
#include "rb_floor_prog.h"

int
floor_opt_list(void *conf, const struct app_opt *opt, char *arg)
{
	struct floor_opts *o = conf;
	bool cpus = strcmp(opt->name, "cpus") == 0;
	char *items[FLOOR_MAX_SIZES];
	int n = app_cli_split(arg, items, cpus ? 2 : FLOOR_MAX_SIZES);

	if (n <= 0 || (cpus && n != 2))
		return -EINVAL;
	for (int i = 0; i < n; i++) {
		uint64_t v;

		if (app_cli_uint(items[i], cpus ? 0 : 1, cpus ? CPU_SETSIZE - 1 : FLOOR_MAX_SIZE,
				 &v) < 0)
			return -EINVAL;
		if (cpus)
			o->cpu[i] = (int)v;
		else
			o->sizes[i] = (unsigned int)v;
	}
	if (!cpus)
		o->n_sizes = (unsigned int)n;
	return 0;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void
floor_rtt_report(unsigned int size, uint64_t *rtt, unsigned int n, double ns_per_unit,
		 double p[3])
{
	qsort(rtt, n, sizeof(*rtt), cmp_u64);
	p[0] = (double)rtt[n / 2] * ns_per_unit / 1e3;
	p[1] = (double)rtt[(uint64_t)n * 99 / 100] * ns_per_unit / 1e3;
	p[2] = (double)rtt[(uint64_t)n * 999 / 1000] * ns_per_unit / 1e3;
	printf("  %4u B: RTT p50 %.2f us, p99 %.2f us, p99.9 %.2f us (%u round trips, one at a "
	       "time)\n", size, p[0], p[1], p[2], n);
}

void
floor_result_line(unsigned int size, double mps, const double p[3])
{
	printf("# floor-result size=%u mps=%.4f p50_us=%.4f p99_us=%.4f p999_us=%.4f\n", size, mps,
	       p[0], p[1], p[2]);
	fflush(stdout);
}

pid_t
floor_fork(int fds[2])
{
	if (pipe(fds) != 0)
		return -1;
	/* Nothing buffered twice. */
	fflush(stdout);
	return fork();
}

int
floor_reap(const char *prog, const char *label, pid_t child, int ret)
{
	int status = 0;

	if (ret != 0)
		kill(child, SIGTERM);
	waitpid(child, &status, 0);
	if (ret == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		fprintf(stderr, "%s: the second process ended with status %d\n", prog, status);
		ret = -EIO;
	}
	printf("%s floor: %s\n", label, ret == 0 ? "every message counted" : "FAILED");
	return ret;
}
