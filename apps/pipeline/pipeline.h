/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef PIPELINE_H
#define PIPELINE_H

/**
 * @file
 * lca-pipeline: Samza's stream container (seed 004) as stages that run the
 * same way on three engines, one after the other in one invocation:
 *
 *   source (mock consumers, later ports) -> task (count by stream, one per partition)
 *
 * - lcactor:  a source is a loop hook on its lcore; a task is an actor with
 *             a batch handler on its partition's lcore;
 * - plain:    the same stages in a run-to-completion loop, no actors; a
 *             source on another lcore than its task hands over through an
 *             SPSC rte_ring, in bursts;
 * - eventdev: sources enqueue NEW events (flow = partition, atomic) into a
 *             DPDK event device (event_dsw), every lcore's port dequeues
 *             and counts.
 *
 * A source is a pluggable stage (struct pl_feed): the mock one here; the
 * port one (pl_port.c, pl_port.h) runs the same engines over ethdev ports,
 * and two more: graph (librte_graph) and io (RX to TX, the port's
 * ceiling). Both sources end with one report (pl_report.c).
 */

#include <stdbool.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "lca_eal.h"
#include "lca_freq.h"
#include "app_series.h"

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>

/** Engines, in the order a list may name them. */
enum pl_engine {
	PL_ENGINE_LCACTOR,
	PL_ENGINE_EVENTDEV,
	PL_ENGINE_PLAIN,
	PL_ENGINE_GRAPH, /**< DPDK's librte_graph (--source port only). */
	PL_ENGINE_IO,    /**< RX straight to TX, no stage: the port's ceiling (--source port). */
	PL_ENGINE_RING,  /**< plain's stages, packets to their partition's lcore over rte_rings
			  *   (--source port): lcactor's job without the runtime. */
	PL_ENGINE_EMBEDDED, /**< lcactor's engine driven by the application's own loop, which
			     *   calls lca_runtime_poll() (--source port). */
	PL_ENGINE_SERVICE,  /**< lcactor's engine run as rte_services: the workers' lcores
			     *   turned service lcores, the main lcore running its own
			     *   service from its loop (--source port). */
	PL_ENGINE_GRAPH_ACTORS, /**< graph with its count stage in actors, through
				 *   lcactor's graph nodes (--source port). */
	PL_ENGINE_COUNT,
};

/** Whether @p e is lcactor's engine, whoever drives its loops. */
static inline bool
pl_engine_is_lcactor(enum pl_engine e)
{
	return e == PL_ENGINE_LCACTOR || e == PL_ENGINE_EMBEDDED || e == PL_ENGINE_SERVICE;
}

/** Where each partition's source runs. */
enum pl_layout {
	PL_LAYOUT_LOCAL, /**< On its task's lcore: no message crosses lcores. */
	PL_LAYOUT_CROSS, /**< On the next lcore: every message crosses. */
};

/** What carries a record of the mock source through lcactor (--carrier). */
enum pl_carrier {
	PL_CARRIER_MBUF,     /**< In an mbuf's private area, on the packet lane. */
	PL_CARRIER_ENVELOPE, /**< In an envelope's inline data, on the message path. */
};

/** Sources. */
enum pl_source_kind {
	PL_SOURCE_MOCK,
	PL_SOURCE_PORT, /**< Ethdev ports (pl_port.c). */
};

/** Where --source port's counted packets go. */
enum pl_sink {
	PL_SINK_TX,   /**< Out of a port (the one they came in by, or --tx-port). */
	PL_SINK_DROP, /**< Freed. */
};

#define PL_MAX_PORTS 8

#define PL_MAX_PARTITIONS 1024
#define PL_MAX_STREAMS 1000000
#define PL_MAX_BURST 256
#define PL_MAX_RUNS 100

/** Settings of a run; every one is printed and recorded. */
struct pl_conf {
	enum pl_source_kind source;
	enum pl_engine engines[PL_ENGINE_COUNT];
	unsigned int n_engines;
	bool engines_given;       /**< --engine was given. */
	uint32_t streams;         /**< Input streams. */
	uint32_t partitions;      /**< Partitions of each stream = tasks. */
	uint32_t batch;           /**< Messages a mock consumer hands over at once. */
	uint64_t messages;        /**< In all, warm-up included. */
	uint64_t warmup_messages; /**< Processed before the measured part... */
	uint64_t warmup_ms;       /**< ...or this long (when not 0). */
	bool warmup_given;        /**< --warmup-messages or --warmup-ms was given. */
	unsigned int burst;       /**< Most messages a source puts out at once. */
	unsigned int throughput;  /**< Most messages a task takes at once. */
	unsigned int mailbox;     /**< Task mailbox / hand-off ring size (power of 2). */
	unsigned int watermark;   /**< Backlog at which a source stops for a partition. */
	enum pl_layout layout;
	enum pl_carrier carrier;  /**< lcactor's carrier of a record (--source mock). */
	bool carrier_given;       /**< --carrier was given. */
	unsigned int runs;        /**< Runs of each engine, interleaved. */
	uint64_t timeout_s;       /**< Most seconds a run may take. */
	const char *json_path;
	/* --source port */
	uint16_t ports[PL_MAX_PORTS]; /**< --port: RX ports. */
	unsigned int n_ports;         /**< 0: every port EAL created. */
	int tx_port;                  /**< --tx-port; -1: out of the RX port. */
	enum pl_sink sink;
	int idle;                     /**< --idle: an enum lca_idle_policy (lcactor). */
	unsigned int rxq;             /**< --rxq: RX queues a port (0: one per lcore). */
	unsigned int mbufs;           /**< --mbufs: a port's pool (0: computed). */
	bool null_zero;               /**< --null-frames zero: net_null frames stay zeroed. */
	bool partition_rxq;           /**< --partition-by rxq: lcactor sends a packet to a
				       *   partition on the lcore that received it. */
	bool messages_given;          /**< --messages was given. */
	uint64_t duration_ms;         /**< --duration-ms: stop RX after this long (0: never). */
	const char *keys_path;        /**< --keys FILE: the counts by key of every run. */
};

/** One message: a stream partition's next offset. */
struct pl_rec {
	uint32_t stream;
	uint32_t part;
	uint64_t offset;
};

/**
 * The mock source's feed: what feeds one partition, as the mock engines
 * take it. peek() makes up to @p max records starting at what was
 * committed, without taking them; commit() takes the first @p n of them
 * (those a send accepted); the rest are made again next time, so a
 * refused send loses nothing.
 */
struct pl_feed {
	const char *name;
	/** Set up every partition's state; @return 0 or a negative errno. */
	int (*setup)(const struct pl_conf *c, const unsigned int *src_lcore);
	/** Back to the start, before each run. */
	void (*reset)(void);
	unsigned int (*peek)(uint32_t part, struct pl_rec *out, unsigned int max);
	void (*commit)(uint32_t part, unsigned int n);
	/** Messages the partition has still to produce. */
	uint64_t (*remaining)(uint32_t part);
	/** Messages the partition produces in all. */
	uint64_t (*quota)(uint32_t part);
	/** Messages of @p stream the partition produces in all (offsets 0..n-1). */
	uint64_t (*expected)(uint32_t part, uint32_t stream);
	/** Batches the mock consumers handed over in all ("polls"). */
	uint64_t (*polls)(void);
	void (*teardown)(void);
};

extern const struct pl_feed pl_feed_mock;

/** What a run of one lcore did; written by that lcore only while it runs. */
struct pl_fig {
	uint64_t produced;       /**< Messages its sources put out (accepted). */
	uint64_t processed;      /**< Messages its tasks counted. */
	uint64_t t_last;         /**< TSC of its last counted message. */
	uint64_t t_warm;         /**< TSC when it saw the warm-up end. */
	uint64_t produced_warm;  /**< produced then. */
	uint64_t processed_warm; /**< processed then. */
	uint64_t held;           /**< Times a source skipped a partition at the watermark. */
	uint64_t refused;        /**< Messages a send or enqueue refused (made again). */
	uint64_t pool_empty;     /**< Times no message could be allocated. */
	uint64_t loops;          /**< Iterations of its loop (plain, eventdev). */
	/* --source port: produced = packets taken from RX; processed = counted. */
	uint64_t malformed;      /**< Not Ethernet/IPv4/UDP: dropped by policy. */
	uint64_t forwarded;      /**< Handed to TX (a TX actor, a TX buffer). */
	uint64_t tx, tx_dropped; /**< What the driver took; what it refused. */
	uint64_t sink_refused;   /**< A TX actor's mailbox refused them: freed. */
	bool warm_seen;
};

/** What @p f's lcore counted a second after the warm-up (0: nothing measured). */
static inline double
pl_fig_rate(const struct pl_fig *f)
{
	if (!f->warm_seen || f->t_last <= f->t_warm || f->processed <= f->processed_warm)
		return 0;
	return (double)(f->processed - f->processed_warm) /
	       ((double)(f->t_last - f->t_warm) / (double)rte_get_tsc_hz());
}

/** An lcore of the run: its figures, and what it runs. */
struct pl_lcore {
	struct pl_fig f;
	/* Set before the run. */
	uint64_t quota_process;  /**< What its tasks count in all; 0: not known (eventdev). */
	uint64_t quota_produce;  /**< What its sources put out in all. */
	unsigned int n_src;      /**< Partitions it sources. */
	uint32_t src_part[PL_MAX_PARTITIONS];
	unsigned int n_task;     /**< Partitions whose task it runs. */
	uint32_t task_part[PL_MAX_PARTITIONS];
} __rte_cache_aligned;

/** A partition's task: its counts by stream, on the partition's node. */
struct pl_task {
	uint64_t processed;
	uint64_t out_of_order;
	uint32_t part;
	uint32_t streams;
	uint64_t counts[]; /**< [streams]: messages of each stream, the next offset expected. */
};

/** The shared state of a run. */
struct pl_ctx {
	const struct pl_conf *conf;
	const struct pl_feed *feed;          /**< The mock source's feed; NULL for port. */
	unsigned int n_lcores;
	unsigned int lcores[RTE_MAX_LCORE]; /**< Enabled lcores, main first as EAL lists them. */
	unsigned int src_lcore[PL_MAX_PARTITIONS];
	unsigned int task_lcore[PL_MAX_PARTITIONS];
	struct pl_lcore *lc;                /**< [RTE_MAX_LCORE] */
	/* Per run. */
	uint64_t t0;                        /**< TSC at the start. */
	uint64_t warm_deadline;             /**< TSC of the time warm-up's end, or 0. */
	uint64_t warm_target;               /**< Processed messages that end the warm-up. */
	uint64_t t_warm;                    /**< TSC when the warm-up ended (atomic). */
	int warm;                           /**< The warm-up ended (atomic). */
	unsigned int lcores_done;           /**< Lcores done (atomic). */
	unsigned int lcores_busy;           /**< Lcores with messages to count. */
	uint64_t deadline;                  /**< TSC of --timeout. */
	bool vdev_added;                    /**< EAL's --vdev event_dsw0 was added. */
};

extern struct pl_ctx pl;

/** The figures of one run of one engine. */
struct pl_result {
	enum pl_engine engine;
	int status;              /**< 0; -EINTR; -ETIMEDOUT; another negative errno. */
	uint64_t produced, processed, in_flight;
	uint64_t measured;       /**< Messages counted after the warm-up. */
	double warm_s;           /**< From the start to the warm-up's end. */
	double end_s;            /**< From the start to the last message counted. */
	double measured_s;       /**< end_s - warm_s. */
	double msg_per_s;        /**< measured / measured_s. */
	double source_msg_per_s; /**< Messages produced after the warm-up, per s. */
	uint64_t out_of_order;
	uint64_t count_errors;   /**< (stream, partition) counts off their expected. */
	uint64_t held, refused, pool_empty;
	bool exact;              /**< produced == processed == --messages, counts exact. */
	struct pl_fig lc[RTE_MAX_LCORE]; /**< Each lcore's figures (by lcore id). */
};

/** Name of an engine. */
const char *pl_engine_name(enum pl_engine e);

/* What the engines share (pl_run.c). */

/** Stop requested (-EINTR) or --timeout passed (-ETIMEDOUT); else 0. */
static inline int
pl_should_stop(uint64_t now)
{
	if (unlikely(lca_eal_stop_requested()))
		return -EINTR;
	if (unlikely(now > pl.deadline))
		return -ETIMEDOUT;
	return 0;
}

/** Reset the per-run state and every lcore's figures for a run. */
void pl_run_reset(void);

/**
 * Called by each lcore's loop: sees the warm-up end (by processed count
 * or by time) and takes the lcore's snapshot once it has.
 */
static inline void
pl_warm_check(struct pl_fig *l, uint64_t now)
{
	if (likely(l->warm_seen))
		return;
	if (!__atomic_load_n(&pl.warm, __ATOMIC_ACQUIRE)) {
		bool end;

		if (pl.warm_deadline != 0) {
			end = now >= pl.warm_deadline;
		} else {
			uint64_t sum = 0;

			for (unsigned int i = 0; i < pl.n_lcores; i++)
				sum += __atomic_load_n(&pl.lc[pl.lcores[i]].f.processed,
						       __ATOMIC_RELAXED);
			end = sum >= pl.warm_target;
		}
		if (!end)
			return;
		int zero = 0;

		/* The time now, not the loop's: a thread preempted since may
		 * carry one from long before. */
		now = rte_rdtsc();
		if (__atomic_compare_exchange_n(&pl.warm, &zero, 1, false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			__atomic_store_n(&pl.t_warm, now, __ATOMIC_RELEASE);
	} else {
		now = rte_rdtsc();
	}
	l->t_warm = now;
	l->produced_warm = l->produced;
	l->processed_warm = l->processed;
	l->warm_seen = true;
}

/**
 * The top of every engine's loop on lcore @p me: the loop counted, the
 * clock sampled, the warm-up's end seen. @return pl_should_stop(now).
 */
static inline int
pl_loop_tick(struct pl_fig *f, unsigned int me, uint64_t now)
{
	f->loops++;
	lca_freq_poll(me, now);
	pl_warm_check(f, now);
	return pl_should_stop(now);
}

/** Count one processed burst of @p n on @p l (its own lcore). */
static inline void
pl_count(struct pl_fig *l, unsigned int n, uint64_t now)
{
	__atomic_store_n(&l->processed, l->processed + n, __ATOMIC_RELAXED);
	l->t_last = now;
}

/** Sum of every lcore's processed count (a peek at other lcores' lines). */
uint64_t pl_processed_all(void);

/**
 * Run @p fn on every enabled lcore, the main one included, and wait; each
 * stores its result in @p rets[lcore id]. @return 0, or the first error.
 */
int pl_launch(int (*fn)(void *), int *rets);

/** Check the task states against the source and fill @p r's totals. */
void pl_run_collect(struct pl_result *r, struct pl_task *const *tasks);

/* Engines: set up once, run, tear down. */
int pl_lcactor_setup(void);
int pl_lcactor_run(struct pl_result *r);
void pl_lcactor_teardown(void);
/** The actor id of partition @p part's task (after pl_lcactor_setup()). */
uint32_t pl_lcactor_task(uint32_t part);

int pl_plain_setup(void);
int pl_plain_run(struct pl_result *r);
void pl_plain_teardown(void);

int pl_eventdev_setup(void);
int pl_eventdev_run(struct pl_result *r);
void pl_eventdev_teardown(void);
/** The event device, and the event port of each lcore, once set up. */
void pl_eventdev_ports(uint8_t *dev, uint8_t *port_of_lcore, unsigned int *enq,
		       unsigned int *deq);
/** The event device's driver, once set up. */
const char *pl_eventdev_driver(void);
/** The ports' new-event threshold, once set up. */
unsigned int pl_eventdev_threshold(void);

/** What the driver needs of one run (one pass) of one engine, whatever the source. */
struct pl_outcome {
	int status;       /**< What the run returned: 0 or a negative errno. */
	bool exact;       /**< Counted exactly (port: and every mbuf back in its pool). */
	bool warm_missed; /**< It ended before its warm-up did: nothing measured, an error. */
	uint64_t measured; /**< Counted after the warm-up. */
	double measured_s; /**< Over this long. */
};

/**
 * A source of lca-pipeline's runs: what the driver (pl_driver.c) calls to
 * run each engine over it, print it and record it. One call a run or less,
 * none a message: the engines' loops stay the source's own.
 */
struct pl_source {
	const char *name;      /**< --source's value, e.g. "mock". */
	const char *unit;      /**< The rate's unit: "msg/s", "pkt/s". */
	const char *unit_m;    /**< Divided by 1e6, for the verdict: "M msg/s". */
	const char *not_exact; /**< The error when a run was not exact. */
	/** Without --messages, a run repeats passes of them until it measured 200 ms. */
	bool passes;
	/** Before the header: ports, placement, state. @return 0 or a negative errno. */
	int (*setup)(const struct pl_conf *c);
	void (*print_header)(const struct pl_conf *c);
	/** After the header: the engines, files, capture. On error the driver tears down. */
	int (*start)(const struct pl_conf *c);
	/** The placement, printed; @return it as JSON (the actors' places). */
	json_t *(*placement)(const struct pl_conf *c);
	/** Run engine @p e once (pass @p pass of run @p run) into @p o; @return o->status. */
	int (*run)(enum pl_engine e, unsigned int run, unsigned int pass, struct pl_outcome *o);
	/** The run just made, printed, and as JSON (the driver adds its "frequency"). */
	void (*print_run)(unsigned int run, unsigned int pass);
	json_t *(*run_json)(unsigned int run, unsigned int pass);
	/** The settings, the record's "conf". */
	json_t *(*conf_json)(const struct pl_conf *c);
	/** What the runs took, for the side-by-side table, into @p buf. */
	void (*what)(const struct pl_conf *c, char *buf, size_t len);
	/** Printed under the side-by-side table, or NULL. */
	const char *note;
	void (*teardown)(void);
};

extern const struct pl_source pl_source_mock;
extern const struct pl_source pl_source_port;

/**
 * Every engine's runs over @p src (ABAB: engine after engine within a run,
 * run after run), each under its frequency series, then the report: the
 * side-by-side table, the frequency over every run, lcactor's runtime, the
 * verdict and the record (pl_driver.c). @return 0 or a negative errno.
 */
int pl_driver_main(const struct pl_conf *c, const struct pl_source *src, bool vdev_added);

/** For a source's run() that must exit(): ends the run's frequency series first. */
void pl_driver_abort(void);

/** --carrier's word for @p carrier. */
const char *pl_carrier_name(enum pl_carrier carrier);

/** What engine @p e is, over --source @p s, for its runs' headings. */
const char *pl_engine_what(enum pl_source_kind s, enum pl_engine e);

/** Whether --engine listed @p e. */
bool pl_has_engine(const struct pl_conf *c, enum pl_engine e);

/** 12345678 as "12,345,678", the seed's way of writing rates. */
const char *pl_grouped(uint64_t v, char *buf, size_t len);

/** Every run of one engine, for the report (pl_report.c). */
struct pl_engine_runs {
	double v[PL_MAX_RUNS];          /**< Each run's rate (msg/s, pkt/s) that measured. */
	double measured_s[PL_MAX_RUNS]; /**< Its measured time. */
	unsigned int passes[PL_MAX_RUNS]; /**< Its passes of --messages (mock). */
	unsigned int n;                 /**< Runs that measured something. */
	json_t *runs;                   /**< Each run's JSON. */
	struct app_freq_total freq;     /**< The clock over its runs. */
};

/**
 * The engines side by side, mean of their runs: rate, measured time, the
 * share of io's rate when io ran, and every ratio to another engine; one
 * result for each engine into @p root.
 *
 * @param what
 *   What the runs took, e.g. "10000000 messages" or "ports 0 (net_null)".
 * @param unit
 *   The rate's unit, "msg/s" or "pkt/s".
 */
void pl_report_side_by_side(json_t *root, const struct pl_conf *c,
			    const struct pl_engine_runs by_engine[PL_ENGINE_COUNT], const char *what,
			    const char *unit);

/** The verdict rows (pl_verdict_add()) of @p by_engine; @p unit_m e.g. "M msg/s". */
int pl_report_verdicts(json_t *root, const struct pl_conf *c,
		       const struct pl_engine_runs by_engine[PL_ENGINE_COUNT], const char *unit_m);

/** What one engine measured, for the verdict. */
struct pl_engine_figs {
	const double *v;  /**< Each run's figure (msg/s or pkt/s). */
	unsigned int n;   /**< Runs that measured something. */
	double window_s;  /**< The shortest run's measured time; NAN if unknown. */
};

/**
 * One verdict row per engine that measured something, in --engine's order:
 * lcactor with its ratio to plain run by run when plain ran beside it, the
 * others with why they have no floor (pl_verdict.c).
 *
 * @param unit
 *   The unit of the figures divided by 1e6, e.g. "M msg/s".
 * @return 0 or what app_verdict_add() returns.
 */
int pl_verdict_add(json_t *root, const struct pl_conf *c,
		   const struct pl_engine_figs figs[PL_ENGINE_COUNT], const char *unit);

/** Allocate a zeroed task state for @p part on @p socket (rte_malloc). */
struct pl_task *pl_task_new(uint32_t part, uint32_t streams, int socket);
void pl_task_reset(struct pl_task *t);

/** One message into a task's counts: offsets of a stream come in order. */
static inline void
pl_task_count(struct pl_task *t, uint32_t stream, uint64_t offset)
{
	uint64_t *c = &t->counts[stream];

	t->out_of_order += offset != *c;
	(*c)++;
}

#endif /* PIPELINE_H */
