/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_PORT_PRIV_H
#define LCA_PORT_PRIV_H

/* Internals shared by lca_port.c (set-up, stop, counters), lca_port_free.c
 * (what a start made, undone), lca_port_io.c
 * (the RX poll, the TX actors, the loop hooks) and lca_port_telemetry.c. */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "lca_port.h"

/* A counter one lcore writes and any thread may read. */
static inline void
port_count(uint64_t *c, uint64_t n)
{
	__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

static inline uint64_t
port_read(const uint64_t *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

/*
 * One RX queue; only its lcore touches it while the loops run. The stash is
 * the last burst minus what was dropped by policy: pkts[head..n) (with
 * their destinations to[]) wait there until their actors take them. msgs[]
 * is room to wrap a run for an actor that takes envelopes, not packets.
 */
struct port_rxq {
	uint16_t port_id;
	uint16_t queue_id;
	unsigned int lcore;
	unsigned int burst;
	unsigned int watermark;
	lca_port_classify_fn classify;
	void *classify_arg;
	lca_actor_id_t dest;
	/* Back-pressure: no new packets while paused_on's backlog is above
	 * resume_at (the watermark, or one less than the backlog a refused
	 * send met). */
	lca_actor_id_t paused_on;
	int resume_at;
	unsigned int n;
	unsigned int head;
	bool warned_dest;
	bool rx_off;     /* lca_port_rx_enable(false): take no new packets (atomic) */
	uint8_t busy;    /* inside a burst (port_burst_enter()) */
	struct rte_mbuf **pkts;
	lca_actor_id_t *to;
	struct lca_msg **msgs;
	struct rte_mbuf **drops;
	/* Where rx_group() puts a burst grouped by destination; then swapped
	 * with pkts and to. */
	struct rte_mbuf **grouped;
	lca_actor_id_t *grouped_to;
	/* Counters (port_count / port_read). */
	uint64_t rx;
	uint64_t delivered;
	uint64_t dropped_policy;
	uint64_t dropped_dest;
	uint64_t held;
	uint64_t paused_polls;
	uint64_t no_envelope;
} __rte_cache_aligned;

/* One TX queue: its buffer is filled by the TX actors on its lcore and
 * flushed by that lcore's end hook. */
struct port_txq {
	uint16_t port_id;
	uint16_t queue_id;
	unsigned int lcore;
	lca_actor_id_t actor;
	struct rte_eth_dev_tx_buffer *buf;
	uint8_t busy;    /* inside a burst (port_burst_enter()) */
	uint64_t tx;
	uint64_t tx_bursts;
	uint64_t tx_dropped;
} __rte_cache_aligned;

/* What one lcore does for a port: the argument of its hook. */
struct port_lcore {
	struct lca_port *port;
	unsigned int lcore;
	unsigned int n_rxq;
	unsigned int n_txq;
	bool hooked;
	struct port_rxq **rxqs;
	struct port_txq **txqs;
};

/* A TX actor's state. */
struct port_tx_state {
	struct lca_port *port;
	struct port_txq *own;
};

struct lca_port {
	uint16_t port_id;
	int socket;
	unsigned int n_rxq;
	unsigned int n_txq;
	unsigned int burst;
	unsigned int n_mbufs;
	unsigned int rx_desc;   /* what an RX ring holds: the most a drain at stop takes */
	struct rte_mempool *pool;
	bool dev_started;
	bool dev_configured;
	bool keep_open;
	struct port_rxq **rxq;
	struct port_txq **txq;
	struct port_lcore *lcores[RTE_MAX_LCORE];
	lca_actor_id_t tx_of_lcore[RTE_MAX_LCORE];
	char name[RTE_ETH_NAME_MAX_LEN];
	char driver[32];
	/* A memif client's reconnect (lca_port_memif.c), on the interrupt
	 * thread but memif_unwatch. */
	bool memif_watching;
	bool memif_unwatch;   /* the watch is ending: do not re-arm (atomic) */
	bool memif_stopped;   /* a restart's start failed: the device is stopped */
	uint64_t memif_down_tsc;
	uint64_t memif_next_tsc;  /* the next restart, while down */
	unsigned int memif_restarts;
	unsigned int memif_start_fails;
};

/*
 * The gate every burst on a port passes (lca_port_memif.c restarts a memif
 * client's device behind it): closed, a burst is not made. The busy store
 * comes before the gate's load; the CPU may still swap them, which the
 * restart's membarrier(2) undoes (an asymmetric fence: nothing but a
 * compiler barrier here, on the hot path).
 */
extern uint8_t port_gate[RTE_MAX_ETHPORTS];

static inline bool
port_burst_enter(uint16_t port_id, uint8_t *busy)
{
	__atomic_store_n(busy, 1, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (likely(!__atomic_load_n(&port_gate[port_id], __ATOMIC_RELAXED)))
		return true;
	__atomic_store_n(busy, 0, __ATOMIC_RELEASE);
	return false;
}

static inline void
port_burst_leave(uint8_t *busy)
{
	__atomic_store_n(busy, 0, __ATOMIC_RELEASE);
}

/* lca_port_io.c */
unsigned int port_rx_poll(struct port_rxq *q);
unsigned int port_lcore_poll(unsigned int lcore_id, uint64_t now_tsc, void *arg);
void port_lcore_end(unsigned int lcore_id, void *arg);
void port_tx_handler(lca_actor_id_t self, void *state, struct lca_msg **msgs, unsigned int n);
void port_tx_unsent(struct rte_mbuf **unsent, uint16_t count, void *userdata);
void port_tx_flush(struct port_txq *q);
/* port_tx_flush() with the loops stopped, on EAL's interrupt thread: there
 * a memif peer's disconnect frees the regions this burst would write
 * (lca_eal_on_intr_thread()), so it comes before or after, never under. */
void port_tx_flush_stopped(struct port_txq *q);
void port_rxq_release(struct port_rxq *q);

/* lca_port_free.c */
void port_free(struct lca_port *p, bool close);

/* lca_port_memif.c */
bool port_memif_is_client(const struct lca_port *p);
void port_memif_watch_start(struct lca_port *p);
void port_memif_watch_stop(struct lca_port *p);

/* lca_port_telemetry.c */
void port_telemetry_add(struct lca_port *p);
void port_telemetry_remove(struct lca_port *p);

#endif /* LCA_PORT_PRIV_H */
