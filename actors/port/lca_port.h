/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_PORT_H
#define LCA_PORT_H

/**
 * @file
 * Ethdev ports as message sources and sinks.
 *
 * lca_port_start() sets up any port the EAL arguments created (net_null,
 * net_ring, net_pcap, net_memif, net_af_packet, net_tap, a NIC given with
 * -a): one mbuf pool on the port's NUMA node, its RX and TX queues, and
 * then, in the lcore loops:
 *
 * - **RX**: each RX queue belongs to one lcore, whose loop polls it through
 *   a hook (lca_lcore_hook_add()), never through an actor that re-sends
 *   itself a tick: an idle port is no work, so the idle policies apply. A
 *   burst is classified in bulk (lca_port_classify_fn) and sent, each run
 *   of consecutive packets for one actor with one call: to a packet actor
 *   (on_packets) on the packet lane with lca_send_packets(), allocating
 *   nothing; to any other actor wrapped into envelopes without a copy
 *   (lca_msg_from_mbuf_bulk()) with one lca_send_burst().
 * - **Back-pressure**: when a destination's backlog (lca_actor_backlog())
 *   passes the watermark, or a send to it is refused, the queue stops
 *   taking packets until the backlog is back under it: the NIC counts
 *   imissed instead of the runtime dropping. What was received and not yet
 *   sent waits in the queue's stash, in order, and goes first.
 * - **TX**: each TX queue is owned by one lcore and has an
 *   rte_eth_dev_tx_buffer, which the lcore's end hook flushes at the end of
 *   each loop iteration: what the handlers of one iteration send leaves in
 *   bursts. A handler on that lcore fills it directly with
 *   lca_port_tx_burst(); senders that want a mailbox send envelopes to the
 *   queue's TX actor, whose batch handler takes the mbufs out of them
 *   (lca_msg_to_mbuf_bulk()) into the same buffer.
 *
 * Accounting, per RX queue and per port, exact whenever the loops are not
 * running (and from the queue's own lcore at any time):
 *
 *     rx == delivered + dropped_policy + dropped_dest + held
 *
 * and on the TX side every mbuf a TX actor or lca_port_tx_burst() is given
 * is counted in tx or in tx_dropped. Nothing is dropped without a counter.
 *
 * Functions return 0 or a negative errno value, libuv style, and log the
 * reason for every error (LCA_LOG, naming the port, the queue and the value).
 */

#include <stdbool.h>
#include <stdint.h>

#include "lca_actor.h"
#include "lca_api.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rte_mbuf;
struct rte_mempool;

/** A started port (opaque). */
struct lca_port;

/** RX and TX descriptors a queue gets when the configuration gives 0. */
#define LCA_PORT_DESC_DEFAULT 1024

/** Packets an RX poll takes, and a TX buffer holds, when the configuration gives 0. */
#define LCA_PORT_BURST_DEFAULT 32

/** Largest burst. */
#define LCA_PORT_BURST_MAX 512

/**
 * Backlog of a destination (messages in its mailbox and in the channel to
 * it, see lca_actor_backlog()) above which an RX queue stops taking
 * packets, when the configuration gives 0: half of a default mailbox
 * (LCA_MAILBOX_DEFAULT), so a paused queue resumes while the destination
 * still has a mailbox's half to work on.
 */
#define LCA_PORT_WATERMARK_DEFAULT 512

/**
 * Mbufs a computed pool holds beyond what the rings, the per-lcore caches
 * and the bursts need: room for packets in flight in mailboxes, channels
 * and handlers.
 */
#define LCA_PORT_IN_FLIGHT_DEFAULT 8192

/** Per-lcore cache of a port's mbuf pool. */
#define LCA_PORT_POOL_CACHE 256

/**
 * Classify a burst: say which actor each packet goes to.
 *
 * Called on the RX queue's lcore, once per burst, before the packets are
 * sent. It may read the packets (and change them in place, their
 * lca_pkt_meta type too, which RX sets to 0 first); it must not free or
 * keep them.
 *
 * @param pkts
 *   The packets, in the order they were received.
 * @param[out] to
 *   For each packet, its destination; LCA_ACTOR_NONE drops it, counted in
 *   dropped_policy.
 * @param n
 *   How many (1 .. burst).
 * @param arg
 *   lca_port_conf.classify_arg.
 */
typedef void (*lca_port_classify_fn)(struct rte_mbuf **pkts, lca_actor_id_t *to, unsigned int n,
				     void *arg);

/**
 * How to set up a port. Zero-filled fields take their defaults; a zeroed
 * struct with port_id and dest (or classify) set is a valid configuration.
 */
struct lca_port_conf {
	uint16_t port_id;      /**< The ethdev port (see lca_port_parse_id()). */
	uint16_t n_rxq;        /**< RX queues (0: one per RX lcore, at most what the
				*   PMD allows). */
	uint16_t n_txq;        /**< TX queues (0: one per runtime lcore, at most what
				*   the PMD allows). */
	uint16_t rx_desc;      /**< Descriptors of each RX queue (0: LCA_PORT_DESC_DEFAULT;
				*   adjusted to the PMD's limits). */
	uint16_t tx_desc;      /**< Descriptors of each TX queue (0: LCA_PORT_DESC_DEFAULT;
				*   adjusted to the PMD's limits). */
	unsigned int n_mbufs;  /**< Mbufs in the port's pool (0: what the rings, the
				*   caches and the bursts need, plus
				*   LCA_PORT_IN_FLIGHT_DEFAULT). A number below what the
				*   rings need is refused (-ENOSPC). */
	unsigned int burst;    /**< Packets an RX poll takes and a TX buffer holds
				*   (0: LCA_PORT_BURST_DEFAULT; at most LCA_PORT_BURST_MAX). */
	const unsigned int *rx_lcores; /**< RX queue q is polled by rx_lcores[q % n_rx_lcores];
					*   NULL: by the q-th runtime lcore (mod their count). */
	unsigned int n_rx_lcores;      /**< Entries in rx_lcores (0 with NULL). */
	lca_port_classify_fn classify; /**< Chooses each packet's actor; NULL: every
					*   packet goes to dest. */
	void *classify_arg;    /**< Passed to classify. */
	lca_actor_id_t dest;   /**< The one destination when classify is NULL. */
	unsigned int watermark; /**< Destination backlog above which RX pauses
				 *   (0: LCA_PORT_WATERMARK_DEFAULT). */
	bool promiscuous;      /**< Enable promiscuous mode (a PMD that cannot is
				*   logged, not an error). */
	bool keep_open;        /**< lca_port_stop() stops the device but does not
				*   close it, so that the app (or a later
				*   lca_port_start()) can configure and start it
				*   again: a closed vdev is gone. */
	bool tx_only;          /**< No RX queue at all (none configured, none
				*   polled): a port to transmit on. n_rxq,
				*   rx_lcores and classify must be 0/NULL and
				*   dest is not used. */
	uint16_t mbuf_size;    /**< Data room of each mbuf of the pool, headroom
				*   included (0: RTE_MBUF_DEFAULT_BUF_SIZE): a frame
				*   larger than mbuf_size - RTE_PKTMBUF_HEADROOM
				*   arrives in a chain. */
	unsigned int start_wait_ms; /**< When rte_eth_dev_start() fails, or a memif
				     *   client's link is not up a second after it,
				     *   start again for this long, saying so once
				     *   a second (0: fail at once, and do not wait
				     *   for a link). For a device whose peer may
				     *   not be there yet: a memif client started
				     *   before its server, or before the server's
				     *   device started (which refuses it).
				     *   Failing: its error, or -ENOTCONN. Once
				     *   started, a memif client whose link stays
				     *   down 200 ms is stopped and started again
				     *   every 200 ms (1 s after a start that
				     *   connected) until it reconnects (its
				     *   bursts paused meanwhile, TX counted in
				     *   tx_dropped), whatever this is; so make
				     *   no rte_eth_*_burst() of your own on such
				     *   a port: those are not paused. */
};

/**
 * Counters of a port, or of one of its queues (lca_port_queue_stats_get()).
 * The lcores write them without locks: read while the loops run, they may
 * be a moment stale, and the accounting identity
 * rx == delivered + dropped_policy + dropped_dest + held holds exactly only
 * when read on the queue's lcore or while the loops are not running.
 */
struct lca_port_stats {
	uint64_t rx;             /**< Packets taken from the RX queues. */
	uint64_t delivered;      /**< Sent to their actor (lca_send_packets() or
				  *   lca_send_burst() took them). */
	uint64_t dropped_policy; /**< The classifier said LCA_ACTOR_NONE. */
	uint64_t dropped_dest;   /**< Their actor does not exist or stopped (-ESRCH,
				  *   -EPIPE): freed, logged once per queue. */
	uint64_t held;           /**< Received, not yet sent: in the stash, waiting
				  *   for room at their actor or for envelopes. */
	uint64_t paused_polls;   /**< Polls that took no packet because of back-pressure
				  *   (a destination above the watermark, or the stash
				  *   not yet empty). */
	uint64_t no_envelope;    /**< Times the envelope pool was empty for an actor
				  *   that takes envelopes, not packets: the packets
				  *   stay held and are wrapped at a later poll. */
	uint64_t tx;             /**< Packets the driver took. */
	uint64_t tx_bursts;      /**< Calls of rte_eth_tx_burst() that sent at least one
				  *   packet: tx / tx_bursts is the mean TX burst. */
	uint64_t tx_dropped;     /**< Packets the driver refused twice in a row (full
				  *   TX ring), freed. */
	uint64_t imissed;        /**< rte_eth_stats.imissed: dropped by the NIC, RX ring
				  *   full (what a paused queue makes). Port-wide only. */
	uint64_t ierrors;        /**< rte_eth_stats.ierrors. Port-wide only. */
	uint64_t rx_nombuf;      /**< rte_eth_stats.rx_nombuf: the driver found the mbuf
				  *   pool empty. Port-wide only. */
};

/**
 * Set up and start a port, add its RX hooks to the lcore loops and spawn
 * its TX actors. Call after lca_runtime_init() and before lca_runtime_run(),
 * from the main lcore.
 *
 * In order: the port's device info (max queues, RSS), the queue counts, one
 * mbuf pool on the port's NUMA node (rte_eth_dev_socket_id(); SOCKET_ID_ANY:
 * the first RX lcore's), rte_eth_dev_configure() (RSS on IP/TCP/UDP when
 * there are several RX queues and the PMD offers RSS), the queues, the
 * start, a hook on each lcore that has RX or TX queues of the port, and one
 * TX actor per TX queue on the lcore that owns it (TX queue q: the q-th
 * runtime lcore, mod their count).
 *
 * @param conf
 *   The configuration.
 * @param[out] port
 *   The started port; stop it with lca_port_stop().
 * @return
 *   0; -EINVAL (NULL argument, a bad field, a queue count above the PMD's
 *   maximum, an RX lcore that is not enabled, the runtime not up);
 *   -ENODEV (no such port); -ENOSPC (n_mbufs below what the rings need; or
 *   an lcore's hooks are full); -EBUSY (loops running, or the port is
 *   already started by lca_port_start()); -ENOMEM; another negative errno
 *   from the ethdev calls. Each is logged with the port, queue and value.
 */
LCA_EXPERIMENTAL
LCA_API int lca_port_start(const struct lca_port_conf *conf, struct lca_port **port);

/**
 * Stop a port: remove its hooks, stop its TX actors (what their mailboxes
 * hold is freed, counted in their dropped_on_stop), flush its TX buffers,
 * free what the RX stashes hold, drain and free what the RX queues still
 * hold, stop and close the ethdev (only stop it with conf.keep_open), and
 * free the mbuf pool. Call from the
 * main lcore while the loops are not running, before lca_runtime_cleanup().
 *
 * When mbufs of the pool are still out (in actors' mailboxes, or kept by
 * the app), the pool is not freed under them: it is kept, logged, and freed
 * by a later lca_port_start() or lca_port_stop() once they are all back
 * (lca_port_pools_kept()).
 *
 * @return
 *   0, the port is freed; -EINVAL for NULL; -EBUSY while the loops run
 *   (nothing is done).
 */
LCA_EXPERIMENTAL
LCA_API int lca_port_stop(struct lca_port *port);

/**
 * The TX actor a sender on @p lcore should send packets to: the one of the
 * TX queue that @p lcore owns, so a handler's sends stay on its lcore and
 * leave in its loop's burst; an lcore without a queue of its own gets one
 * of another lcore's (the messages then cross by channel).
 *
 * Send it envelopes that carry mbufs (lca_msg_from_mbuf()); it frees those
 * that carry none. A TX actor moved to another lcore (lca_actor_migrate(),
 * LCA_PLACE_AUTO) fills that lcore's TX queue; with fewer TX queues than
 * lcores, an lcore may have none, so do not move TX actors then.
 *
 * @return
 *   The actor; LCA_ACTOR_NONE for a NULL port or an lcore out of range.
 */
LCA_EXPERIMENTAL
LCA_API lca_actor_id_t lca_port_tx_actor(const struct lca_port *port, unsigned int lcore);

/**
 * Transmit @p n packets now on the TX queue of the calling lcore, without
 * the TX actor's hop: for a part that gathers its packets itself and sends
 * them once per loop iteration (the remote part's frames). What the queue's
 * buffer holds (lca_port_tx_burst(), the TX actor) goes first, then the
 * driver gets these at once (rte_eth_tx_burst()); what it refuses after
 * one more try is freed and counted in the queue's tx_dropped, as the TX
 * actor does.
 *
 * @return
 *   0: every packet is the port's (sent, or dropped and counted); -EPERM
 *   when the calling lcore has no TX queue of @p port (nothing was taken:
 *   the packets are still the caller's); -EINVAL for NULL.
 */
LCA_EXPERIMENTAL
LCA_API int lca_port_tx_now(struct lca_port *port, struct rte_mbuf **pkts, unsigned int n);

/**
 * Transmit @p n packets on the TX queue of the calling lcore, with no
 * mailbox on the way: from a packet handler (lca_packet_handler_fn) or any
 * code on a runtime lcore that has a TX queue of @p port. They go into
 * the queue's rte_eth_dev_tx_buffer, the one its TX actor fills, which
 * sends itself when full; the lcore's end hook flushes the rest at the end
 * of the loop iteration, so what the handlers of one iteration transmit
 * leaves in bursts, and in call order. What the driver refuses after one
 * more try is freed and counted in tx_dropped: tx + tx_dropped counts
 * every packet taken (once flushed). Called off the loops (the main
 * thread between runs), the packets wait in the buffer until the next
 * iteration's end, or lca_port_stop().
 *
 * @return
 *   @p n: every packet is the port's; -EPERM when the calling lcore has no
 *   TX queue of @p port (nothing taken: the packets are still the
 *   caller's); -EINVAL for NULL.
 */
LCA_EXPERIMENTAL
LCA_API int lca_port_tx_burst(struct lca_port *port, struct rte_mbuf **pkts, unsigned int n);

/**
 * Port-wide counters: the sums over its queues, and the ethdev's imissed,
 * ierrors and rx_nombuf (rte_eth_stats_get()).
 *
 * @return
 *   0; -EINVAL for a NULL argument.
 */
LCA_EXPERIMENTAL
LCA_API int lca_port_stats_get(const struct lca_port *port, struct lca_port_stats *stats);

/**
 * Counters of one queue: the RX fields of RX queue @p queue and the TX
 * fields of TX queue @p queue (zero where the port has no such queue); the
 * ethdev fields are zero.
 *
 * @return
 *   0; -EINVAL for a NULL argument or a queue the port has on neither side.
 */
LCA_EXPERIMENTAL
LCA_API int lca_port_queue_stats_get(const struct lca_port *port, unsigned int queue,
				     struct lca_port_stats *stats);

/**
 * Let the port's RX queue @p queue (-1: every one) take packets, or not.
 * Off, the queue stops
 * calling rte_eth_rx_burst() at its next poll (what its stash holds still
 * goes out), so an app can drain its pipeline before it stops the loops:
 * once the stashes are empty, rx stays where it is and every packet taken
 * is delivered or dropped. On again, they take packets at their next poll.
 * A port starts with RX on. Safe from any thread, the loops running or not.
 *
 * @return
 *   0; -EINVAL for NULL or a queue the port does not have.
 */
LCA_EXPERIMENTAL
LCA_API int lca_port_rx_enable(struct lca_port *port, int queue, bool on);

/** The ethdev port id of @p port (UINT16_MAX for NULL). */
LCA_EXPERIMENTAL
LCA_API uint16_t lca_port_id(const struct lca_port *port);

/** RX queues of @p port (0 for NULL). */
LCA_EXPERIMENTAL
LCA_API unsigned int lca_port_rx_queues(const struct lca_port *port);

/** TX queues of @p port (0 for NULL). */
LCA_EXPERIMENTAL
LCA_API unsigned int lca_port_tx_queues(const struct lca_port *port);

/** The lcore that polls RX queue @p queue, or -EINVAL. */
LCA_EXPERIMENTAL
LCA_API int lca_port_rx_lcore(const struct lca_port *port, unsigned int queue);

/**
 * The port's mbuf pool, for an app that builds packets to send (and for
 * checks that every mbuf came back: rte_mempool_avail_count()).
 *
 * @return
 *   The pool; NULL for NULL.
 */
LCA_EXPERIMENTAL
LCA_API struct rte_mempool *lca_port_mempool(const struct lca_port *port);

/**
 * rte_eth_dev_stop() on EAL's interrupt thread (lca_eal_on_intr_thread()),
 * as lca_port_stop() does: a PMD's own handlers there (a memif peer that
 * disconnects) cannot then race the stop. For apps that drive a port
 * themselves; a port that lca_port_start() runs is stopped with
 * lca_port_stop(), which stops the polling first.
 *
 * @return
 *   What rte_eth_dev_stop() returned; -EBUSY (logged, nothing done) for a
 *   port that lca_port_start() runs.
 */
LCA_EXPERIMENTAL
LCA_API int lca_port_dev_stop(uint16_t port_id);

/**
 * rte_eth_dev_close() on EAL's interrupt thread, as lca_port_dev_stop().
 *
 * @return
 *   What rte_eth_dev_close() returned; -EBUSY (logged, nothing done) for a
 *   port that lca_port_start() runs.
 */
LCA_EXPERIMENTAL
LCA_API int lca_port_dev_close(uint16_t port_id);

/** How many ethdev ports EAL created and are usable (rte_eth_dev_count_avail()). */
LCA_EXPERIMENTAL
LCA_API unsigned int lca_port_count(void);

/**
 * Parse a port id as an app takes it from its command line.
 *
 * @param s
 *   A decimal number.
 * @param[out] port_id
 *   The port.
 * @return
 *   0; -EINVAL when @p s is not a number below RTE_MAX_ETHPORTS; -ENODEV
 *   when there is no such port (the log lists those there are).
 */
LCA_EXPERIMENTAL
LCA_API int lca_port_parse_id(const char *s, uint16_t *port_id);

/**
 * Pools of stopped ports kept because some of their mbufs were still out
 * when the port stopped. Frees first those whose mbufs are all back.
 *
 * @return
 *   How many pools are still kept (0: no mbuf of a stopped port is out).
 */
LCA_EXPERIMENTAL
LCA_API unsigned int lca_port_pools_kept(void);

#ifdef __cplusplus
}
#endif

#endif /* LCA_PORT_H */
