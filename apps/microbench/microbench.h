/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef MICROBENCH_H
#define MICROBENCH_H

/*
 * lca-microbench: messages per second through the runtime's hot path.
 * mb_bench.c holds the actors and the scenarios, main.c the options and
 * every line and record they print.
 */

#include <stdbool.h>
#include <stdint.h>

#include "lca_actor.h"
#include "app_series.h"
#include "app_stats.h"

#define MB_PROG "lca-microbench"

#define MB_MAX_SENDERS 64
#define MB_MAX_BURST 256
#define MB_MAX_RUNS 1024
#define MB_WARMUP_MAX 1000000 /* messages of each scenario's unmeasured warm-up run */
#define MB_CONFIDENCE 0.999

enum mb_scenario {
	MB_SAME_LCORE,
	MB_CROSS_LCORE,
	MB_MANY_TO_ONE,
	MB_IDLE,
	MB_SCENARIOS,
};

extern const char *const mb_scenario_names[MB_SCENARIOS];

struct mb_conf {
	uint64_t messages;
	bool messages_given; /* else each scenario calibrates its count (app_window.h) */
	uint64_t runs;
	uint64_t burst;
	uint64_t batch;
	uint64_t senders;
	uint64_t idle;
	uint64_t throughput;
	uint64_t mailbox_size;
	uint64_t timeout_s;
	enum lca_mailbox_mode mailbox_mode;
	bool want[MB_SCENARIOS];
	const char *json_path;
};

/* One measured series of a scenario: its runs and their frequency report. */
struct mb_result {
	const char *scenario;
	char variant[32];
	char label[64];       /* "scenario variant", for progress and records */
	uint64_t messages;    /* per run */
	unsigned int runs;
	bool calibrated;      /* messages set by a pilot run, not by --messages */
	/* The warm-up run that calibrated messages (warmup_ms 0: --messages). */
	uint64_t warmup_msgs;
	double warmup_ms;
	double mps[MB_MAX_RUNS];
	double ms[MB_MAX_RUNS];
	uint64_t full_retries[MB_MAX_RUNS];
	uint64_t full_msgs[MB_MAX_RUNS];
	uint64_t pool_retries[MB_MAX_RUNS];
	struct app_stats stats; /* of mps */
	struct app_series series;
	/* The floor, a round of it before each run (ABAB); floor_what is ""
	 * when the series has none of its own (idle: see mb_report_idle_ratio). */
	char floor_what[192];
	uint64_t floor_messages; /* per round: calibrated apart, the floor being faster */
	uint64_t floor_warmup_msgs;
	double floor_warmup_ms;
	double floor_mps[MB_MAX_RUNS];
	double floor_ms[MB_MAX_RUNS];
};

/* The scenarios (mb_bench.c, mb_idle.c). */
int mb_stream_scenario(const struct mb_conf *c, enum mb_scenario sc);
int mb_idle_scenario(const struct mb_conf *c);

/* What the scenarios share (mb_bench.c): spawn an actor, or send it a fresh
 * envelope from outside any actor (both say what failed); run the loops
 * once within --timeout; TSC cycles in ms. */
int mb_spawn(lca_handler_fn h, size_t state_size, unsigned int lcore, unsigned int mailbox,
	     enum lca_mailbox_mode mode, unsigned int throughput, const char *name,
	     lca_actor_id_t *id);
int mb_inject(lca_actor_id_t to);
int mb_run_loops(const struct mb_conf *c);
double mb_tsc_ms(uint64_t cycles);

/* What they print and record (main.c). */
void mb_print_run(const struct mb_result *r, unsigned int i);
uint64_t mb_calibrate(const struct mb_conf *c, uint64_t warm_msgs, double warm_ms);
void mb_print_calibration(const struct mb_result *r);
void mb_report_series(struct mb_result *r);
void mb_print_floor(const struct mb_result *r, unsigned int i);
void mb_report_idle_ratio(const struct mb_conf *c, const struct mb_result *alone,
			  const struct mb_result *crowd);

#endif /* MICROBENCH_H */
