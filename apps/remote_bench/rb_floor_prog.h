/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RB_FLOOR_PROG_H
#define RB_FLOOR_PROG_H

/*
 * What lca-remote-bench's two bare floors (lca-ucx-floor, lca-memif-floor)
 * share: their options, so that lca-remote-bench drives both with one
 * command line (rb_floor.c), and their report, one "# floor-result" line a
 * size that rb_floor.c reads.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "app_opt.h"

#define FLOOR_MAX_SIZES 8
#define FLOOR_MAX_SIZE 1024
/* Round trips before the measured ones: caches, the transport's first use. */
#define FLOOR_WARM_PINGS 1000

struct floor_opts {
	unsigned int sizes[FLOOR_MAX_SIZES];
	unsigned int n_sizes;
	uint64_t msgs;
	unsigned int pings;
	int cpu[2]; /* the driving process, the second; -1: not pinned */
	unsigned int timeout_s;
	bool jumbo; /* lca-memif-floor: 9216-byte buffers, frames of MTU 9000 */
};

#define FLOOR_OPTS_DEFAULT { .sizes = { 16, 64, 256 }, .n_sizes = 3, .msgs = 2000000, \
	.pings = 20000, .cpu = { -1, -1 }, .timeout_s = 120 }

/* --sizes (1..FLOOR_MAX_SIZE bytes, up to FLOOR_MAX_SIZES) or --cpus
 * (exactly two), into the struct floor_opts at @p conf. */
int floor_opt_list(void *conf, const struct app_opt *opt, char *arg);

/* The options every floor takes, for the start of its table. */
#define FLOOR_OPT_AT(field) APP_OPT_AT(struct floor_opts, field)
#define FLOOR_OPTIONS \
	{ "sizes", 0, APP_OPT_CUSTOM, .parse = floor_opt_list, .metavar = "LIST", \
	  .help = "message sizes in bytes (default 16,64,256; at most 1024)", \
	  .why = "up to 8 sizes, each 1 to 1024" }, \
	{ "msgs", 0, APP_OPT_UINT, FLOOR_OPT_AT(msgs), .min = 1, .max = 1ull << 40, \
	  .metavar = "N", .help = "one-way messages per size (default 2000000)" }, \
	{ "pings", 0, APP_OPT_UINT, FLOOR_OPT_AT(pings), .min = 1, .max = 10000000, \
	  .metavar = "N", .help = "round trips per size (default 20000)" }, \
	{ "cpus", 0, APP_OPT_CUSTOM, .parse = floor_opt_list, .metavar = "A,B", \
	  .help = "this process on CPU A and the second on CPU B", .why = "two CPUs, A,B" }, \
	{ "timeout", 0, APP_OPT_UINT, FLOOR_OPT_AT(timeout_s), .min = 1, .max = 86400, \
	  .metavar = "S", .help = "give up on an answer after S seconds (default 120)" }

/* Sort @p n round trips of @p ns_per_unit nanoseconds a unit (1 for
 * nanoseconds; 1e9 / TSC Hz for TSC cycles) and put p50, p99 and p99.9 in
 * microseconds into @p p; print them in lca-remote-bench's words. */
void floor_rtt_report(unsigned int size, uint64_t *rtt, unsigned int n, double ns_per_unit,
		      double p[3]);

/* The line rb_floor.c reads for @p size. */
void floor_result_line(unsigned int size, double mps, const double p[3]);

/* The second process, with a pipe @p fds between the two (fds[0] to read,
 * fds[1] to write): @return its pid to this one, 0 to it, -1 on failure. */
pid_t floor_fork(int fds[2]);

/* The end of a run that went @p ret (0 or a negative errno): the second
 * process stopped if the run failed, reaped, its status checked, and the
 * last line ("LABEL floor: every message counted" or "... FAILED").
 * @return 0, or the run's or the second process's failure. */
int floor_reap(const char *prog, const char *label, pid_t child, int ret);

#endif /* RB_FLOOR_PROG_H */
