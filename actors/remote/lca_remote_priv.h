/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_REMOTE_PRIV_H
#define LCA_REMOTE_PRIV_H

/* Internals shared by lca_remote.c (channels, hooks, link actors),
 * lca_remote_conf.c (the node table file) and lca_remote_telemetry.c. */

#include <stdbool.h>
#include <stdint.h>

#include <rte_lcore.h>
#include <rte_spinlock.h>

#include "lca_port.h"
#include "lca_remote.h"
#include "lca_remote_wire.h"

/* A counter one lcore writes and any thread may read. */
static inline void
rm_count(uint64_t *c, uint64_t n)
{
	__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

/* A counter several lcores write (the remote part's own, struct
 * lca_remote_stats). */
static inline void
rm_count_shared(uint64_t *c, uint64_t n)
{
	__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

/* Serial-number comparisons (RFC 1982) of 32-bit sequence numbers. */
static inline bool
seq_lt(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

static inline bool
seq_le(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) <= 0;
}

/* An lcore's mbufs taken from a pool in bulk, for the small payloads the
 * receive path copies (one rte_pktmbuf_alloc() a message cost more than
 * the copy). */
#define RM_SPARE 32
struct rm_spare {
	struct rte_mempool *pool;
	unsigned int n;
	struct rte_mbuf *m[RM_SPARE];
};

/* A data frame kept until the peer acknowledges it. */
struct tx_slot {
	struct rte_mbuf *m;
	uint64_t sent_tsc; /* last (re)transmission */
	uint16_t n_msgs;
	bool resent;       /* no RTT sample from it (Karn) */
};

/* A data frame received and not yet delivered whole. */
struct rx_slot {
	struct rte_mbuf *m;
	uint32_t seq;
	uint16_t rec_off; /* first record's offset in the frame */
	uint16_t n_msgs;
};

/* The channel from one local lcore to one lcore of a peer: its TX side
 * (our frames to it) and its RX side (its frames to us). Only the local
 * lcore touches it while the loops run. */
struct chan {
	unsigned int peer;      /* index into rm.peers */
	unsigned int port;      /* index into rm.ports */
	uint16_t peer_lcore;
	uint16_t src_udp, dst_udp;
	/* TX */
	uint32_t next_seq;      /* of the next frame opened */
	uint32_t sent_seq;      /* highest frame closed and sent */
	uint32_t acked;         /* every frame <= acked arrived */
	uint32_t credit;        /* frames <= credit may be sent */
	struct rte_mbuf *open;  /* frame being filled */
	uint32_t open_seq;
	uint16_t open_off;
	uint16_t open_n;
	uint64_t rto_tsc;       /* when the oldest unacked frame is resent; 0: none */
	uint64_t rto;           /* current timeout, cycles */
	uint64_t srtt, rttvar;  /* RFC 6298 estimates, cycles (0: no sample yet) */
	uint64_t last_tx_tsc;
	/* RX */
	uint32_t rcv_next;      /* lowest frame not yet delivered whole */
	uint32_t rcv_contig;    /* every frame <= rcv_contig arrived */
	uint32_t rcv_high;      /* highest frame that arrived */
	uint16_t head_i;        /* records of frame rcv_next delivered */
	uint16_t head_off;      /* offset of its next record */
	uint64_t last_rx_tsc;   /* 0: never heard */
	uint32_t peer_session;
	bool need_ack;
	bool need_nak;
	bool dirty;             /* on its lcore's list of channels to close */
	bool blocked;           /* delivery waits for room in a mailbox */
	bool cleaned;           /* freed after its peer died */
	bool large;             /* the large-message lane of its pair */
	/* Large lane, TX: the message being cut into fragments. */
	struct lca_msg *big;
	uint32_t big_off, big_total;
	lca_actor_id_t big_to, big_from;
	/* Large lane, RX: the message being put together (indirect mbufs into
	 * the frames, chained: no copy). */
	struct rte_mbuf *asm_head;
	struct rte_mbuf *asm_tail;
	uint32_t asm_got, asm_total;
	bool asm_complete;
	struct tx_slot *tx;     /* window entries */
	struct rx_slot *rx;
	struct lca_remote_link_stats st;
};

#define RM_TXQ_MAX 256

/* What one lcore has of the remote part. */
struct rm_lcore {
	unsigned int lcore;
	unsigned int n_chan;        /* both lanes: the large lane of chan[c] is chan[c + n_chan / 2] */
	struct chan *chan;          /* [peer][peer lcore index], see chan_of() */
	unsigned int n_big;         /* large-lane channels with a message to cut */
	unsigned int n_dirty;
	struct chan **dirty;
	unsigned int n_blocked;
	uint64_t next_check;
	uint64_t rng;
	struct rm_spare spare;
	struct {
		struct rte_mbuf *q[RM_TXQ_MAX];
		unsigned int n;
		struct rte_mbuf *held;   /* held back by the reorder injector */
		unsigned int held_age;
		lca_actor_id_t tx_actor;
		struct rte_mempool *pool;
	} port[LCA_REMOTE_MAX_NODES];
};

struct rm_peer {
	struct lca_remote_node n;
	unsigned int port;           /* index into rm.ports */
	unsigned int chan_base;      /* its first channel in an rm_lcore */
	uint32_t dead;               /* atomic */
};

struct rm_watch {
	lca_actor_id_t watcher;
	lca_actor_id_t target;
};

#define RM_WATCH_MAX 256

struct rm_state {
	bool up;
	struct lca_remote_conf conf;
	struct lca_remote_node self;
	unsigned int n_peers;
	struct rm_peer peers[LCA_REMOTE_MAX_NODES];
	int16_t peer_of_node[LCA_REMOTE_NODE_MAX];
	unsigned int n_ports;
	struct lca_port *ports[LCA_REMOTE_MAX_NODES];
	uint16_t port_ids[LCA_REMOTE_MAX_NODES];
	struct rm_lcore *lc[RTE_MAX_LCORE];
	lca_actor_id_t link_actor[RTE_MAX_LCORE];
	unsigned int n_lcores;
	unsigned int lcores[RTE_MAX_LCORE];
	unsigned int window;
	uint32_t frame_cap;          /* bytes of a frame, outer headers included */
	uint32_t session;
	uint64_t rto_min, rto_max, hb, dead, connect, check, start_tsc;
	struct lca_remote_stats st;
	rte_spinlock_t watch_lock;
	unsigned int n_watch;
	struct rm_watch watch[RM_WATCH_MAX];
};

extern struct rm_state rm;

/* Shared by both transports (lca_remote.c). */

/* The payload bytes of @p msg on the wire, or -EINVAL (a ptr payload that
 * is not an mbuf, logged once). */
int64_t rm_payload_len(const struct lca_msg *msg, lca_actor_id_t to);

/* A record's sender as this node names it (a local id for our own node
 * unless loopback, else the remote reference). */
lca_actor_id_t rm_from_of(uint32_t from);

/* Send record @p r's message, in envelope @p e (its payload already in),
 * to its actor on behalf of its remote sender: lca_send_from()'s result. */
int rm_rec_send(const struct wire_msg *r, struct lca_msg *e);

/* @p len bytes at @p src in a new mbuf chain, its first segment from
 * @p s's spares (@p src NULL: the chain's bytes are left to fill); NULL
 * when the pool is empty. */
struct rte_mbuf *rm_mbuf_copy(struct rm_spare *s, const uint8_t *src, uint32_t len);

/* Give @p s's spares back to their pool. */
void rm_spare_release(struct rm_spare *s);

/* Deliver record @p r (from the channel whose counters are @p st): its
 * payload into a new envelope, an mbuf payload copied into mbufs from
 * @p spare, or, when @p frame holds the record at offset @p off and the
 * payload is over RM_COPY_MAX, shared as an indirect mbuf into it.
 * @return 0 (delivered, or counted undeliverable); -ENOBUFS when it must
 * wait (a full mailbox, no envelope, no mbuf). */
int rm_rec_deliver(const struct wire_msg *r, struct rm_spare *spare, struct rte_mbuf *frame,
		   uint32_t off, struct lca_remote_link_stats *st);

/* Declare peer @p p dead (once) and tell its watchers. */
void rm_peer_dead(unsigned int p, const char *why);

/* Add link counters @p s into @p o. */
void rm_stats_add(struct lca_remote_link_stats *o, const struct lca_remote_link_stats *s);

/* A local sender as the peer names it: a remote reference to this node. */
static inline uint32_t
rm_wire_from(lca_actor_id_t from)
{
	return from != LCA_ACTOR_NONE && from < LCA_ACTOR_REMOTE_BASE
		       ? lca_remote_ref(rm.self.id, from)
		       : from;
}

/*
 * The UCX transport (lca_remote_ucx.c): the same node table, references,
 * errors and counters, with UCP active messages instead of ethdev frames.
 * Called by lca_remote.c when conf.transport is LCA_REMOTE_UCX.
 */
int rm_ucx_start(void);
void rm_ucx_stop(void);
unsigned int rm_ucx_send(unsigned int lcore, unsigned int peer, lca_actor_id_t from,
			 lca_actor_id_t to, struct lca_msg **msgs, unsigned int n, int *why);
bool rm_ucx_idle(void);
void rm_ucx_link_stats(unsigned int peer, struct lca_remote_link_stats *out);


/* Telemetry (lca_remote_telemetry.c). */
void rm_telemetry_register(void);

#endif /* LCA_REMOTE_PRIV_H */
