/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LIFECYCLE_H
#define LIFECYCLE_H

/*
 * lca-lifecycle: what issue 13 asks to be measured of the lifecycle parts
 * of the runtime: timer jitter, restart latency under load, non-EAL
 * feeder threads. Each bench brings the runtime up, runs its scenarios
 * under the frequency monitor, prints its lines and returns one JSON
 * result per scenario.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "lca_actor.h"
#include "app_hdr.h"
#include "app_series.h"

#define APP "lca-lifecycle"

#define LC_MAX_FEEDER_COUNTS 8
#define LC_MAX_FEEDERS 64

enum lc_bench {
	LC_BENCH_TIMERS = 1u << 0,
	LC_BENCH_RESTART = 1u << 1,
	LC_BENCH_FEEDERS = 1u << 2,
};

struct lc_conf {
	unsigned int benches;       /* LC_BENCH_* in the order given */
	enum lc_bench order[3];
	unsigned int n_order;
	enum lca_idle_policy idle;
	unsigned int sleep_us;      /* --idle sleep: the sleep */
	uint64_t timers;            /* one-shot timers armed per lcore */
	unsigned int inflight;      /* one-shots outstanding per lcore */
	unsigned int min_delay_us, max_delay_us;
	unsigned int period_us;     /* the periodic timer */
	unsigned int ticks;         /* its ticks before it is cancelled */
	uint64_t messages;          /* restart: numbered messages */
	bool messages_given;        /* else calibrated to a window (lc_run_windowed) */
	uint64_t fail_every;        /* restart: every K-th fails */
	unsigned int backoff_failures; /* backoff variant: failures */
	unsigned int feeders[LC_MAX_FEEDER_COUNTS];
	unsigned int n_feeders;
	uint64_t per_feeder;
	bool per_feeder_given;      /* else calibrated to a window */
	unsigned int stall_s;       /* feeders' watchdog */
	unsigned int window_ms;     /* what a calibrated count's run measures at least */
	bool window_given;          /* --window-ms: calibrate given counts too */
	const char *json_path;
	const char *hgrm_path;      /* --hgrm: each histogram as an .hgrm file */
	unsigned int lcore[2];      /* the two lcores used */
};

/* One bench's outcome: its JSON results, whether its counts were exact. */
struct lc_outcome {
	json_t *results; /* array */
	bool exact;
	struct app_freq_total *total; /* series merged here */
};

/* Runtime up with the app's idle policy and room for @p max_timers. */
int lc_runtime_up(const struct lc_conf *c, unsigned int max_timers);

/* Spawn an affinity actor; logs and returns the error. */
int lc_spawn(lca_handler_fn h, size_t state_size, void (*init)(void *, void *), void *arg,
	     unsigned int lcore, unsigned int mailbox, const char *name, lca_actor_id_t *id);

/* Background load: a ping-pong pair across the two lcores and one on each
 * lcore, so that every lcore always has turns to run and mailboxes that
 * never empty. @p cross, when not NULL, are two actors (on lcore[0] and
 * lcore[1]) whose handlers call lc_load_bounce() for LC_TYPE_LOAD: they
 * take the cross pair's place, so their own mailboxes stay backed up. */
#define LC_TYPE_LOAD 0x10ad
#define LC_LOAD_CROSS 256
#define LC_LOAD_LOCAL 64
int lc_load_start(const struct lc_conf *c, const lca_actor_id_t *cross);
void lc_load_bounce(struct lca_msg *m);
/* @p n load messages between @p a and @p b (the same actor: it bounces them
 * to itself), whose handlers call lc_load_bounce(). */
int lc_load_seed(lca_actor_id_t a, lca_actor_id_t b, unsigned int n);
uint64_t lc_load_lost(void);

/* Start a scenario's series (monitor on); end it and print its verdict. */
void lc_series_begin(struct app_series *s, const char *label);
void lc_series_end(struct app_series *s, struct lc_outcome *o);

/* HDR histogram in ns up to 100 s, 3 digits. */
int lc_hdr_init(struct app_hdr *h);
/* "p50 X  p99 X  p99.9 X  max X us (n N)" and its JSON. */
void lc_hdr_print(const char *what, const struct app_hdr *h);
json_t *lc_hdr_json(const struct app_hdr *h);
/* With --hgrm: write @p h, in us, to the --hgrm path with ".NAME" in it. */
void lc_hdr_export(const struct lc_conf *c, const char *name, const struct app_hdr *h);
/* How many .hgrm files could not be written. */
unsigned int lc_hgrm_failures(void);
static inline double
lc_cycles_to_ns(uint64_t cycles, uint64_t hz)
{
	return (double)cycles * 1e9 / (double)hz;
}

/*
 * A scenario that appends its result (with its "window_s") to @p o, and
 * runs it with @p c's count at @p count_off (restart's messages, feeders'
 * per_feeder). When the count is the default (@p given false) and the run's
 * window is under APP_WINDOW_MIN_S, say so, drop that result and run it
 * again with the count that takes app_window_target_s() at its rate, a
 * multiple of @p multiple; a few times at most.
 */
typedef int (*lc_scenario_fn)(const struct lc_conf *c, unsigned int arg, struct lc_outcome *o);
int lc_run_windowed(const struct lc_conf *c, lc_scenario_fn fn, unsigned int arg,
		    struct lc_outcome *o, size_t count_off, bool given, uint64_t multiple);

/* "  window: WHAT took X ms", flagged when under 50 scheduler ticks. */
void lc_print_window(const char *what, double window_s);

/* Whether a signal or lca_runtime_stop() asked the app to end. */
bool lc_interrupted(int run_ret);

/* The timers' floor (lc_timer_floor.c): rte_timer in a plain loop on both
 * lcores, the same delays; each one-shot's lateness into @p late. */
int lc_timer_floor(const struct lc_conf *c, struct app_hdr *late);

int lc_bench_timers(const struct lc_conf *c, struct lc_outcome *o);
int lc_bench_restart(const struct lc_conf *c, struct lc_outcome *o);
int lc_bench_feeders(const struct lc_conf *c, struct lc_outcome *o);

#endif /* LIFECYCLE_H */
