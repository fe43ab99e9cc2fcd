/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_ACTOR_H
#define LCA_ACTOR_H

/**
 * @file
 * Actors on lcores.
 *
 * An actor has a handler, a state on its home lcore's NUMA node, and a
 * mailbox (an rte_ring of envelope pointers). It is run by its home lcore
 * (dispatcher "affinity") or, with dispatcher "shared", by the lcore that
 * woke it unless an idle lcore steals it (work stealing, as a fork-join
 * pool); either way by one lcore at a time, so its state needs no lock and
 * its mailbox has a single consumer.
 *
 * Messages are envelopes (lca_msg.h). Ownership of an envelope: the
 * sender owns it until lca_send() returns 0;
 * then the receiver's handler owns it while it runs; when the handler
 * returns, the runtime frees it, unless the handler sent it on (a reply or a
 * forward of the same envelope costs no allocation) or kept it with
 * lca_msg_keep(). A send that fails leaves the envelope with the sender.
 * A batch handler (lca_batch_handler_fn) owns every message it is given,
 * as an rte_eth_rx_burst() caller owns its mbufs: it sends, keeps or frees
 * each one, and the runtime frees none of them.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include <rte_common.h>

#include "lca_api.h"
#include "lca_lcore.h"
#include "lca_msg.h"
#include "lca_topo.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rte_mbuf;

/** Messages an actor's control lane holds. */
#define LCA_CONTROL_SIZE 64

/**
 * The handler: runs for each message taken from the actor's mailbox.
 *
 * @param self
 *   The actor's id.
 * @param state
 *   The actor's state (state_size bytes on its home node), or NULL.
 * @param msg
 *   The message; see the file comment for who frees it.
 */
typedef void (*lca_handler_fn)(lca_actor_id_t self, void *state, struct lca_msg *msg);

/**
 * A batch handler: runs for up to the actor's throughput messages at once,
 * taken from its mailbox in one burst, so a packet stage can prefetch ahead
 * and send on in bursts. It owns all @p n messages (see the file comment).
 *
 * @param self
 *   The actor's id.
 * @param state
 *   The actor's state, or NULL.
 * @param msgs
 *   The messages, oldest first; the array is the runtime's, valid only
 *   during the call.
 * @param n
 *   How many: at least 1, at most the actor's throughput.
 */
typedef void (*lca_batch_handler_fn)(lca_actor_id_t self, void *state, struct lca_msg **msgs,
				     unsigned int n);

/** A batch handler's throughput when the spec gives 0. */
#define LCA_BATCH_DEFAULT 32

/**
 * A packet handler: runs for up to the actor's throughput packets at once,
 * taken from its packet queue in one burst. Packets cross lcores as mbuf
 * pointers (the packet lane, lca_send_packets()), with no envelope: what
 * the runtime knows of each is in its lca_pkt_meta. A burst that arrived
 * whole (one RX burst, one lca_send_packets()) is given whole, up to the
 * throughput.
 *
 * It owns all @p n packets, as an rte_eth_rx_burst() caller does: it
 * forwards them (lca_send_packets()), transmits them (lca_port_tx_burst())
 * or frees them; the runtime frees none.
 *
 * Each packet is given away exactly once: freed once, or sent once, never
 * both. DPDK's rte_pktmbuf_free() puts an mbuf back in its pool at once,
 * and a second free puts it back again, so the pool later hands the same
 * mbuf out twice, silently; a packet sent after its free travels in an
 * mbuf that someone else may be filling. A release build cannot see
 * either. A build with -Ddebug_envelopes=true (`make asan`) keeps every
 * packet of a call out of its pool until the handler returns, and catches
 * a double free or a send (lca_send_packets()) after a free: a log line
 * naming the actor, a count in lca_send_errors.packet_misuse, the free
 * done once and the packet kept sound.
 *
 * @param self
 *   The actor's id.
 * @param state
 *   The actor's state, or NULL.
 * @param pkts
 *   The packets, oldest first; the array is the runtime's, valid only
 *   during the call (the mbufs are the handler's).
 * @param n
 *   How many: at least 1, at most the actor's throughput.
 */
typedef void (*lca_packet_handler_fn)(lca_actor_id_t self, void *state, struct rte_mbuf **pkts,
				      uint16_t n);

/** Packets an actor's packet queue holds when the spec gives 0. */
#define LCA_PACKET_QUEUE_DEFAULT 1024

/** How an actor's dispatcher picks the lcore that runs it. */
enum lca_dispatcher {
	LCA_DISPATCH_AFFINITY, /**< Always its home lcore. */
	LCA_DISPATCH_SHARED,   /**< Any lcore, one at a time: the waker's lcore, or
				*   an idle one that steals it (a fork-join pool). */
};

/** Producer side of a shared actor's mailbox ring. An affinity actor's
 *  mailbox has one producer, its home lcore, whatever the mode. */
enum lca_mailbox_mode {
	LCA_MAILBOX_MP,  /**< Multi-producer (default), rte_ring's classic mode. */
	LCA_MAILBOX_SP,  /**< Single producer: the sender promises it is the only one. */
	LCA_MAILBOX_RTS, /**< Multi-producer, relaxed tail sync (preemption-tolerant). */
	LCA_MAILBOX_HTS, /**< Multi-producer, head/tail sync (preemption-tolerant). */
};

/** What the runtime does when an actor's handler fails (lca_actor_fail()). */
enum lca_strategy {
	LCA_SUPERVISE_RESUME,  /**< Go on with the next message, state as it is. */
	LCA_SUPERVISE_RESTART, /**< State zeroed and state_init run again; the
				*   mailbox is kept; within the limit, after a
				*   backoff. */
	LCA_SUPERVISE_STOP,    /**< Stop the actor (its mailbox is dropped, counted). */
};

/** How an actor is supervised (Akka's strategies, with a limit and backoff). */
struct lca_supervision {
	lca_actor_id_t supervisor; /**< Gets an LCA_TYPE_FAILED notice on its
				    *   control lane at each failure;
				    *   LCA_ACTOR_NONE: nobody. */
	enum lca_strategy strategy;
	unsigned int max_restarts; /**< RESTART: more restarts than this within
				    *   within_ms stop the actor instead (0: 10). */
	unsigned int within_ms;    /**< The window of max_restarts (0: 1000). */
	unsigned int backoff_min_us; /**< Pause before the first restart's next
				      *   message, doubled at each restart in
				      *   the window (0: none). */
	unsigned int backoff_max_us; /**< Cap of the pause (0: 1,000,000). */
};

/** Message types the runtime sends; apps use types below LCA_TYPE_SYSTEM. */
#define LCA_TYPE_SYSTEM 0xffff0000u
/** To a supervisor's control lane: one of its actors failed; data is a
 *  struct lca_failure. */
#define LCA_TYPE_FAILED (LCA_TYPE_SYSTEM + 1)
/** To a watcher's control lane: the watched actor stopped; data is a
 *  struct lca_terminated. */
#define LCA_TYPE_TERMINATED (LCA_TYPE_SYSTEM + 2)

/** The payload of LCA_TYPE_FAILED. */
struct lca_failure {
	lca_actor_id_t actor;    /**< Who failed. */
	int32_t reason;          /**< What it gave lca_actor_fail(). */
	uint32_t msg_type;       /**< Type of the message it failed on. */
	uint32_t action;         /**< enum lca_strategy applied (a RESTART past
				  *   its limit becomes STOP). */
	uint32_t restarts;       /**< Its restarts so far. */
	uint32_t backoff_us;     /**< The pause before its next message. */
};

/** The payload of LCA_TYPE_TERMINATED. */
struct lca_terminated {
	lca_actor_id_t actor;    /**< Who stopped. */
	uint32_t by_supervision; /**< 1: stopped by its supervision strategy. */
};

/** Home lcore to be chosen by the placement policy. */
#define LCA_LCORE_ANY UINT32_MAX

/**
 * What an actor is made of. Zero-filled fields take their defaults, except
 * lcore: 0 there is lcore 0, so set LCA_LCORE_ANY to have one chosen.
 */
struct lca_actor_spec {
	lca_handler_fn handler;   /**< One message a call; this or batch_handler. */
	lca_batch_handler_fn batch_handler; /**< Up to throughput messages a call
					     *   (0: LCA_BATCH_DEFAULT); set
					     *   this or handler, not both. */
	size_t state_size;        /**< Bytes of zeroed state on the home node (0: none). */
	void (*state_init)(void *state, void *arg); /**< Optional, before any message. */
	void *state_arg;          /**< Argument of state_init. */
	unsigned int lcore;       /**< Home lcore; LCA_LCORE_ANY: the placement policy
				   *   chooses. 0 is lcore 0, not "any": spawning on
				   *   an lcore that -l left out fails with -EINVAL and
				   *   a log line naming it. */
	unsigned int mailbox_size; /**< Messages (a power of two; 0: 1024). */
	enum lca_mailbox_mode mailbox_mode; /**< Default LCA_MAILBOX_MP. */
	enum lca_dispatcher dispatcher;     /**< Default LCA_DISPATCH_AFFINITY. */
	unsigned int throughput;  /**< Most messages a turn (0: 1, as Akka). */
	const char *name;         /**< For stats and logs (optional). */
	const struct lca_supervision *supervision; /**< Copied at spawn; NULL:
						    *   resume, nobody told. */
	bool pinned;              /**< Never moved: lca_actor_migrate() refuses
				   *   (-EPERM) and placement auto leaves it where
				   *   it is (an actor that owns its lcore's
				   *   resources, e.g. a port's TX queue). */
	lca_packet_handler_fn on_packets; /**< Takes packets (lca_send_packets()):
					   *   an affinity actor, always pinned
					   *   (see lca_actor_migrate()). With it,
					   *   handler and batch_handler may both
					   *   be NULL: envelopes sent to it are
					   *   then freed, counted in unhandled. */
	unsigned int packet_queue_size; /**< Packets its packet queue holds (a power
					 *   of two; 0: LCA_PACKET_QUEUE_DEFAULT). */
};

/** Counters of one actor. */
struct lca_actor_stats {
	uint64_t received;        /**< Taken from the mailbox. */
	uint64_t handled;         /**< Given to the handler. */
	uint64_t send_failures;   /**< Its own sends that failed, any cause. */
	uint64_t rejected;        /**< Sends to it refused for want of room: its
				   *   mailbox, the channel or the inbox full. */
	uint64_t dropped_on_stop; /**< Pending messages freed when it stopped. */
	uint64_t deferred;        /**< Times a delivery from another lcore found the
				   *   mailbox full and waited (nothing is dropped). */
	uint64_t turns;           /**< Turns run. */
	uint64_t handler_cycles;  /**< TSC cycles in its handler, over the timed turns. */
	uint64_t timed_msgs;      /**< Messages of the timed turns (one turn in 16 is
				   *   timed): handler_cycles / timed_msgs is the
				   *   mean cost of a message. */
	uint64_t failures;        /**< Handler failures (lca_actor_fail()). */
	uint64_t failed_msgs;     /**< Messages it failed on, dropped (not when
				   *   the handler had sent or kept them). */
	uint64_t restarts;        /**< Restarts by its supervision. */
	uint64_t expired;         /**< Messages past their deadline when their
				   *   turn came: dropped, never handled. */
	uint32_t mailbox_hwm;     /**< Most messages seen waiting at a turn's start. */
	uint32_t lcore;           /**< Home lcore. */
	uint64_t packets;         /**< Packets given to on_packets. */
	uint64_t packets_dropped; /**< Packets that reached it after it stopped, or
				   *   waited in its packet queue when it did: freed
				   *   (also counted in dropped_on_stop). */
	uint64_t unhandled;       /**< Envelopes sent to a packet actor without an
				   *   envelope handler: freed. */
};

/** Runtime-wide counters of failed sends, by cause. */
struct lca_send_errors {
	uint64_t mailbox_full; /**< -ENOBUFS */
	uint64_t no_actor;     /**< -ESRCH */
	uint64_t stopped;      /**< -EPIPE */
	uint64_t pool_empty;   /**< -ENOMEM from lca_msg_alloc() */
	uint64_t misuse;       /**< Envelopes freed twice, sent after their free or
				*   written after it (caught only in builds with
				*   -Ddebug_envelopes=true; each logged) */
	uint64_t host_down;    /**< -EHOSTDOWN: a remote actor's node is down */
	uint64_t too_big;      /**< -EMSGSIZE: too large for the route it takes
				*   (a remote node's lane, an ask's inline room) */
	uint64_t invalid;      /**< -EINVAL: what cannot be sent (NULL packets;
				*   an envelope already freed, caught in a
				*   -Ddebug_envelopes=true build; a pointer
				*   payload without its size, to a remote node) */
	uint64_t other;        /**< Any other errno a send returned (-EPROTOTYPE:
				*   packets to an actor that takes none, ...) */
	uint64_t packet_misuse; /**< Packets a packet handler freed twice, or sent
				 *   after their free (caught only in builds with
				 *   -Ddebug_envelopes=true; each logged) */
};

/** Configuration of the runtime. */
struct lca_runtime_conf {
	unsigned int max_actors;    /**< Size of the actor table (0: 16384). */
	unsigned int max_timers;    /**< Timers that can be armed at once (0: 4096;
				     *   see lca_timer.h). */
	unsigned int msgs_per_node; /**< Envelopes each node's pool can have out (0: 65535);
				     *   the runtime adds room for what the per-lcore
				     *   caches may hold. */
	unsigned int pool_cache;    /**< Per-lcore envelope cache (0: 512). */
	enum lca_placement placement; /**< For actors spawned with LCA_LCORE_ANY. */
	enum lca_idle_policy idle;  /**< What an lcore does when idle (0: spin). */
	unsigned int idle_sleep_after; /**< See lca_lcore_conf. */
	unsigned int idle_sleep_us;    /**< See lca_lcore_conf. */
	unsigned int auto_period_ms;   /**< LCA_PLACE_AUTO: how often the traffic is
					*   looked at (0: 10 ms). */
	unsigned int auto_balance_pct; /**< LCA_PLACE_AUTO: an lcore's load (its actors
					*   that handled messages in the period) may
					*   exceed the mean by this much after a move
					*   (0: 25; at most 1000). */
};

/**
 * Start the runtime: message pools, run queues and the actor table.
 * EAL must be up (lca_eal_init()).
 *
 * @return
 *   0; -EINVAL; -ENOMEM; -EEXIST when already running; with
 *   LCA_PLACE_AUTO, an error of lca_lcore_hook_add() (-ENOSPC: the main
 *   lcore's hooks are full).
 */
LCA_API int lca_runtime_init(const struct lca_runtime_conf *conf);

/**
 * Run every lcore's loop until lca_runtime_stop(), a signal or the time
 * limit. The caller must be the main lcore; it runs actors too.
 *
 * @param timeout_ms
 *   Most milliseconds to run; 0 for no limit.
 * @return
 *   0; -ETIMEDOUT; -EINTR on SIGINT/SIGTERM; another negative errno from
 *   lca_lcore_run().
 */
LCA_API int lca_runtime_run(unsigned int timeout_ms);

/**
 * @name lcactor inside an application's own loop (EXPERIMENTAL)
 * A DPDK application that has its loops (l2fwd-style, rte_graph_walk(),
 * eventdev workers) keeps them: instead of lca_runtime_run(), the main
 * lcore calls lca_runtime_start(), every lcore of the runtime (the main one
 * included) calls lca_runtime_poll() from its loop, and once those loops
 * have stopped, the main lcore calls lca_runtime_end(). A poll runs the
 * same iteration as lcactor's own loop (lca_lcore_poll()), so order,
 * accounting, migration, timers, asks and supervision hold as they do
 * there, as long as every lcore polls: an lcore unpolled for longer than
 * lca_lcore_stall_limit() (1 s) is logged and counted, and its actors wait
 * (a migration to it, an ask to one of them) until it polls again.
 * docs/usage.md, "lcactor inside your own loop".
 * @{
 */

/**
 * Start a guest run: returns at once; the application's loops poll.
 * @param timeout_ms
 *   Most milliseconds to run; 0 for no limit.
 * @return
 *   0; -EINVAL before lca_runtime_init(); -EBUSY during a run; -EPERM
 *   when not called from the main lcore.
 */
LCA_EXPERIMENTAL
LCA_API int lca_runtime_start(unsigned int timeout_ms);

/**
 * One iteration of the calling lcore's actor work: what other lcores sent
 * it, its timers, ports and hooks, up to a burst of turns.
 * @return
 *   The work done (0: none); -ESHUTDOWN once the run was stopped
 *   (lca_runtime_stop(), SIGINT/SIGTERM, the time limit): stop polling;
 *   -EPERM on a thread that is not an lcore of the runtime; -EBUSY during
 *   lca_runtime_run(); -EDEADLK from inside a handler.
 */
LCA_EXPERIMENTAL
static inline int
lca_runtime_poll(void)
{
	LCA_EXPERIMENTAL_INNER_BEGIN
	return lca_lcore_poll(); /* inline: a poll is paid once a loop */
	LCA_EXPERIMENTAL_INNER_END
}

/**
 * End a guest run on the main lcore, once the loops that polled have
 * stopped polling; it stops the run first if nobody did.
 * @return
 *   As lca_runtime_run(): 0; -ETIMEDOUT; -EINTR on SIGINT/SIGTERM; -EINVAL
 *   when no guest run is under way.
 */
LCA_EXPERIMENTAL
LCA_API int lca_runtime_end(void);

/**
 * The rte_service component that runs @p lcore_id's actor work,
 * "lcactor_lcore_N", registered by lca_runtime_init() for every lcore of
 * the runtime. Its iteration is lca_runtime_poll() on that lcore, and on no
 * other: map it to lcore N only (rte_service_map_lcore_set()), then set its
 * run state (rte_service_runstate_set()). A service lcore (EAL's -s, or
 * rte_service_lcore_add() before lca_runtime_init()) is an lcore of the
 * runtime whose actors only its service runs; an EAL lcore's service may
 * be run by the application's loop (rte_service_run_iter_on_app_lcore()).
 * lca_runtime_run() and a guest run both end with every service lcore's
 * last poll (waited for up to 1 s).
 * @return
 *   0 and the id in @p service_id; -EINVAL; -ENODEV when the runtime is not
 *   up or @p lcore_id is not one of its lcores.
 */
LCA_EXPERIMENTAL
LCA_API int lca_runtime_service_id(unsigned int lcore_id, uint32_t *service_id);

/**
 * Map each service lcore's lcactor service to that lcore, set the service
 * running and start the service lcore: what an application that gave EAL
 * `-s` for lcactor would write itself.
 * @return
 *   How many services were mapped; a negative errno of rte_service_*().
 */
LCA_EXPERIMENTAL
LCA_API int lca_runtime_services_map(void);

/** Iterations of an lcactor service run on another lcore than its own,
 *  refused (logged once). */
LCA_EXPERIMENTAL
LCA_API uint64_t lca_runtime_service_refusals(void);

/** @} */

/** Make lca_runtime_run() return, or end a guest run's polls (they return
 *  -ESHUTDOWN). Safe from handlers and any thread. */
LCA_API void lca_runtime_stop(void);

/**
 * Stop every actor (their pending messages freed and counted), then free
 * the table, run queues and pools. Call from the main lcore while the
 * loops are not running.
 *
 * @return
 *   0 (also when the runtime was not up); -EBUSY while the loops run, or
 *   from another thread than the main lcore, with nothing freed.
 */
LCA_API int lca_runtime_cleanup(void);

/** Mailbox of an actor whose spec leaves mailbox_size at 0. */
#define LCA_MAILBOX_DEFAULT 1024

/**
 * Bytes of its node's memory an actor of @p spec takes (its record, its
 * mailbox and its state), for an app that spawns many to check first.
 *
 * @return
 *   The bytes, an estimate from above; 0 for a NULL @p spec.
 */
LCA_EXPERIMENTAL
LCA_API size_t lca_actor_footprint(const struct lca_actor_spec *spec);

/**
 * Create an actor.
 *
 * @param spec
 *   What it is made of.
 * @param[out] id
 *   Its id.
 * @return
 *   0; -EINVAL for a bad spec (no handler, mailbox size not a power of two,
 *   an lcore that is not enabled); -ENOSPC when the table is full; -ENOMEM.
 */
LCA_API int lca_actor_spawn(const struct lca_actor_spec *spec, lca_actor_id_t *id);

/**
 * Stop an actor. Sends to it fail with -EPIPE from now on; messages already
 * in its mailbox are freed and counted in dropped_on_stop when its lcore
 * next runs it (at once when the loops are not running). Its handler may
 * call this on itself.
 *
 * @return
 *   0; -ESRCH for an unknown id; -EALREADY when already stopped.
 */
LCA_API int lca_actor_stop(lca_actor_id_t id);

/** Whether @p id names a live (spawned, not stopped) actor. */
LCA_API bool lca_actor_alive(lca_actor_id_t id);

/** Home lcore of @p id, or -ESRCH. */
LCA_API int lca_actor_lcore(lca_actor_id_t id);

/** State of @p id (read it only when its lcore is not running it), or NULL. */
LCA_API void *lca_actor_state(lca_actor_id_t id);

/** Name given at spawn, or "" . */
LCA_API const char *lca_actor_name(lca_actor_id_t id);

/**
 * Counters of @p id.
 *
 * @return
 *   0; -EINVAL for a NULL @p out; -ESRCH for no such actor.
 */
LCA_API int lca_actor_stats_get(lca_actor_id_t id, struct lca_actor_stats *out);

/** Runtime-wide counters of failed sends. */
LCA_API void lca_send_errors_get(struct lca_send_errors *out);

/** The actor whose handler is running on this lcore, or LCA_ACTOR_NONE. */
LCA_API lca_actor_id_t lca_actor_self(void);

/** Number of actors spawned so far (ids are 0 .. count-1). */
LCA_API unsigned int lca_actor_count(void);

/** One move of an actor between lcores, as the migration log keeps it. */
struct lca_migration {
	double t_s;            /**< When it switched, seconds since lca_runtime_init(). */
	double took_us;        /**< From the switch to the hand-over. */
	lca_actor_id_t id;     /**< The actor. */
	unsigned int from;     /**< Lcore it left. */
	unsigned int to;       /**< Lcore it moved to. */
	int state_on_node_pct; /**< % of its state's pages on the new lcore's node
				*   (move_pages), or a negative errno. */
	char why[64];          /**< Who asked, and why. */
};

/**
 * From a handler: the message being handled failed. When the handler
 * returns, the message is dropped and counted (unless the handler sent or
 * kept it), the actor's supervision strategy is applied and its supervisor
 * is told. A batch handler's whole call counts as one failure.
 *
 * @return
 *   0; -EPERM outside a handler.
 */
LCA_API int lca_actor_fail(int reason);

/** Watchers one actor can have. */
#define LCA_WATCHERS_MAX 8

/**
 * Have @p watcher told, by an LCA_TYPE_TERMINATED message on its control
 * lane, when @p target stops (at once if it has). From any thread.
 *
 * @return
 *   0; -ESRCH (either is not an actor); -ENOSPC (the target has
 *   LCA_WATCHERS_MAX watchers); -EALREADY (already watching).
 */
LCA_API int lca_actor_watch(lca_actor_id_t watcher, lca_actor_id_t target);

/**
 * Move an affinity actor to another lcore, with nothing lost and every
 * sender's messages in order (see docs/architecture.md). The move is done
 * by the loops: its home switches to the new lcore between two turns;
 * the old home runs it on what was sent before the switch until every
 * lcore has handed that over, then hands it to the new home. Its mailbox
 * may be full or empty. lca_actor_lcore() says the new lcore from the
 * switch on; the
 * migration log (lca_migrations_get()) shows the move once it is done. Its
 * state moves to the new lcore's node when the nodes differ, so a pointer
 * from lca_actor_state() taken before must be taken again. Safe from any
 * thread.
 *
 * @return
 *   0 when asked; -ESRCH (no such actor); -EINVAL (a shared actor, or an
 *   lcore that is not enabled); -EPERM (spawned pinned, or a packet actor:
 *   those are pinned, logged); -EPIPE (stopped);
 *   -EALREADY (it is there); -EBUSY (a move of it is under way).
 */
LCA_EXPERIMENTAL
LCA_API int lca_actor_migrate(lca_actor_id_t id, unsigned int lcore);

/**
 * The migration log: the last moves (up to 256), oldest first.
 *
 * @param out
 *   Where to copy them, or NULL to count only.
 * @param max
 *   Room in @p out.
 * @return
 *   How many moves there have been since lca_runtime_init() (which may be
 *   more than were copied).
 */
LCA_EXPERIMENTAL
LCA_API unsigned int lca_migrations_get(struct lca_migration *out, unsigned int max);

/**
 * Send @p msg to @p to. The sender is the running actor (or
 * LCA_ACTOR_NONE outside handlers).
 *
 * @return
 *   0: the message is the receiver's now.
 *   -ENOBUFS: the mailbox is full. -ESRCH: no such actor. -EPIPE: the actor
 *   stopped. -EINVAL: @p msg is NULL. On error the message is still the
 *   sender's, and the failure is counted on both sides.
 */
LCA_API int lca_send(lca_actor_id_t to, struct lca_msg *msg);

/**
 * Send @p msg to @p to on behalf of @p from, as Akka's tell(msg, sender):
 * the receiver's lca_reply() goes to @p from. For starting conversations
 * from outside any actor.
 *
 * @return
 *   As lca_send().
 */
LCA_API int lca_send_from(lca_actor_id_t from, lca_actor_id_t to, struct lca_msg *msg);

/**
 * Send up to @p n messages to one actor with one ring operation.
 *
 * @param[out] err
 *   When fewer than @p n were sent, why (as lca_send()); else 0. May be NULL.
 * @return
 *   How many were sent, from the front of @p msgs; the rest stay the
 *   sender's.
 */
LCA_API unsigned int lca_send_burst(lca_actor_id_t to, struct lca_msg **msgs, unsigned int n, int *err);

/**
 * As lca_send_burst(), run to completion where it can be: called from a
 * loop hook of the receiver's home lcore (no handler running), to an idle
 * affinity actor with nothing waiting (mailbox, control lane) and @p n no
 * more than its throughput, the receiver's handler takes the burst before
 * this call returns, with no mailbox and no run queue between, as the
 * runtime's own channel drain and lca_send_packets() do. Anywhere else it
 * is lca_send_burst(). The hook must not be in the middle of state that
 * the handler reaches. Order, ownership, deadlines and supervision are as
 * lca_send_burst()'s.
 *
 * @return
 *   As lca_send_burst().
 */
LCA_EXPERIMENTAL
LCA_API unsigned int lca_send_burst_rtc(lca_actor_id_t to, struct lca_msg **msgs, unsigned int n,
					int *err);

/**
 * Send @p msg into the control lane of @p to: a second, small mailbox
 * (LCA_CONTROL_SIZE) that the actor's turns empty before its mailbox, so
 * the message does not wait behind a backed-up mailbox (supervision
 * notices, timers, an operator's stop). It goes by pointer from any
 * thread; the receiver sees LCA_MSG_F_CONTROL in its flags. Order holds per
 * sender within the lane, not between the lane and the mailbox. The lane
 * is made on the actor's node at its first control message.
 *
 * @return
 *   As lca_send(): 0; -ENOBUFS (the lane is full); -ESRCH; -EPIPE;
 *   -EINVAL; and -ENOMEM when there is no memory for the lane.
 */
LCA_API int lca_send_control(lca_actor_id_t to, struct lca_msg *msg);

/**
 * Send @p msg back to the sender of the message being handled (msg->from),
 * typically the same envelope with its payload replaced.
 *
 * @return
 *   As lca_send(); -ESRCH when the message came from outside any actor.
 */
LCA_API int lca_reply(struct lca_msg *msg);

/**
 * How many messages a send from the calling thread to @p id would queue
 * behind: the actor's mailbox, plus what this lcore's channel to the
 * actor's home holds (for any actor there) or, from a thread that is not a
 * runtime lcore, the home's inbox. For a packet actor, its packet queue
 * and this lcore's lane to its home (or the home's packet inbox) count too. Cheap enough to ask once a burst: for
 * watermarks and back-pressure (a port stops taking packets above one).
 *
 * @return
 *   The count (>= 0); -ESRCH when there is no such actor.
 */
LCA_API int lca_actor_backlog(lca_actor_id_t id);

/**
 * What the runtime keeps in each mbuf it carries on the packet lane: an
 * mbuf dynamic field ("lca_pkt_meta"), registered by lca_runtime_init().
 * Read and write it with lca_pkt_meta().
 */
struct lca_pkt_meta {
	lca_actor_id_t to; /**< Its receiver, set by lca_send_packets(). */
	uint32_t type;     /**< The app's packet type: kept by the runtime;
			    *   lca_port RX sets 0 before its classifier runs. */
	uint32_t flags;    /**< The app's bits (the low 16; the runtime
			    *   keeps them, and reserves the high 16). */
};

/** The offset of struct lca_pkt_meta in an mbuf (rte_mbuf_dynfield_register()),
 *  or -1 before the first lca_runtime_init(). */
LCA_EXPERIMENTAL
LCA_API extern int lca_pkt_meta_offset;

/**
 * The runtime's field of packet @p m (valid once the runtime is up).
 *
 * @return
 *   A pointer into @p m.
 */
LCA_EXPERIMENTAL
static inline struct lca_pkt_meta *
lca_pkt_meta(struct rte_mbuf *m)
{
	LCA_EXPERIMENTAL_INNER_BEGIN
	return (struct lca_pkt_meta *)(void *)((char *)m + lca_pkt_meta_offset);
	LCA_EXPERIMENTAL_INNER_END
}

/**
 * As lca_pkt_meta(), with the offset read once by the caller: in a loop
 * that writes the fields, the compiler must otherwise load
 * lca_pkt_meta_offset again after each store (it may alias).
 *
 * @param m
 *   The packet.
 * @param offset
 *   lca_pkt_meta_offset.
 * @return
 *   A pointer into @p m.
 */
static inline struct lca_pkt_meta *
lca_pkt_meta_at(struct rte_mbuf *m, int offset)
{
	return (struct lca_pkt_meta *)(void *)((char *)m + offset);
}

/**
 * Send @p n packets to @p to on the packet lane: as mbuf pointers, in one
 * burst, no envelope. On the receiver's lcore they go straight into its
 * packet queue, or, sent from a loop hook there (no handler running) to an
 * idle receiver with nothing queued, to its on_packets before this call
 * returns (run to completion: such a hook must not be in the middle of
 * state that handler reaches); from another runtime lcore's thread (a handler of an
 * affinity actor, a loop hook such as a port's RX) through that lcore
 * pair's single-producer lane (8 bytes a packet); from any other thread,
 * or a shared actor's handler, through the receiver lcore's packet inbox.
 * A sender's packets to one receiver stay in order. Each packet's
 * lca_pkt_meta gets @p to; its type and flags are kept.
 *
 * @param to
 *   An actor spawned with on_packets.
 * @param pkts
 *   The packets; those taken are the receiver's from now on.
 * @param n
 *   How many.
 * @return
 *   How many were taken, from the front of @p pkts (0 .. n); fewer than
 *   @p n when there is no room (its queue, the lane or the inbox is full:
 *   counted as a full mailbox on both sides): the rest stay the caller's.
 *   A negative errno when none was taken for another reason: -ESRCH (no
 *   such actor), -EPIPE (it stopped), -EPROTOTYPE (it takes no packets,
 *   or it is a remote reference (lca_remote.h): send it envelopes,
 *   lca_msg_from_mbuf_bulk()), -EINVAL (NULL @p pkts with @p n > 0).
 */
LCA_EXPERIMENTAL
LCA_API int lca_send_packets(lca_actor_id_t to, struct rte_mbuf **pkts, unsigned int n);

/**
 * As lca_send_packets(), and sets every packet's lca_pkt_meta type to
 * @p type in the same pass (a port's RX gives 0): cheaper than a loop of
 * lca_pkt_meta() stores before the send.
 *
 * @return
 *   As lca_send_packets().
 */
LCA_EXPERIMENTAL
LCA_API int lca_send_packets_typed(lca_actor_id_t to, uint32_t type, struct rte_mbuf **pkts,
				   unsigned int n);

/** Name of a mailbox mode ("mp", "sp", "rts", "hts"). */
LCA_EXPERIMENTAL
LCA_API const char *lca_mailbox_mode_name(enum lca_mailbox_mode m);

/** Parse a mailbox mode name. @return 0 or -EINVAL. */
LCA_EXPERIMENTAL
LCA_API int lca_mailbox_mode_parse(const char *name, enum lca_mailbox_mode *out);

/** Name of a dispatcher ("affinity", "shared"). */
LCA_EXPERIMENTAL
LCA_API const char *lca_dispatcher_name(enum lca_dispatcher d);

/** Parse a dispatcher name. @return 0 or -EINVAL. */
LCA_EXPERIMENTAL
LCA_API int lca_dispatcher_parse(const char *name, enum lca_dispatcher *out);

#ifdef __cplusplus
}
#endif

/* Asks and names, with the rest of the actors' calls. */
#include "lca_ask.h"

#endif /* LCA_ACTOR_H */
