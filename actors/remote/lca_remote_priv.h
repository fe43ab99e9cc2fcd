/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_REMOTE_PRIV_H
#define LCA_REMOTE_PRIV_H

/* The remote part's shared layer (lca_remote.c: the node table, peer death,
 * watches, record delivery, stats), as its transports, the node table file
 * (lca_remote_conf.c) and telemetry (lca_remote_telemetry.c) see it. A
 * transport (the ethdev frames of lca_remote_eth*.c, UCX's lca_remote_ucx*.c)
 * is a table of operations the shared layer picks at start; it calls this
 * layer downward and never the other transport. */

#include <stdbool.h>
#include <stdint.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "lca_route_priv.h"
#include "lca_remote.h"
#include "lca_remote_record_priv.h"

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

/* A log line a second at most, all lcores together: a flood of forged
 * frames must not flood the log. */
struct rm_log_limit {
	uint64_t next;  /* TSC before which nothing is logged (atomic) */
	uint64_t quiet; /* events not logged since the last line (atomic) */
};

/* Whether an event at @p now gets its line; if so, @p *quiet says how many
 * went unlogged before it, else this one is counted among them. */
static inline bool
rm_log_allowed(struct rm_log_limit *l, uint64_t now, uint64_t *quiet)
{
	uint64_t next = __atomic_load_n(&l->next, __ATOMIC_RELAXED);

	if (now >= next && __atomic_compare_exchange_n(&l->next, &next, now + rte_get_tsc_hz(),
						       false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
		*quiet = __atomic_exchange_n(&l->quiet, 0, __ATOMIC_RELAXED);
		return true;
	}
	__atomic_fetch_add(&l->quiet, 1, __ATOMIC_RELAXED);
	return false;
}

#define RM_OLD_EPOCHS 4

/* An epoch that ended: the peer's session in it and ours toward it. */
struct rm_old_epoch {
	uint32_t theirs;
	uint32_t ours;
};

/*
 * A peer's incarnations. An epoch is a pair of sessions, the peer's
 * (heard_session) and ours toward it (tx_session), and every frame names
 * both: its sender's session and the one of ours it heard (peer_session).
 * An epoch ends in two ways, and each starts a new one whose channels are
 * cleaned and made new by their own lcores (the ethdev transport's
 * chan_sync()):
 * - we declare the peer dead (silent, a retry limit, a protocol error): a
 *   new session of ours, which the peer sees and ends its epoch too;
 * - a frame that heard our current session (or none) comes under a new
 *   session of the peer (it restarted, or it ended the epoch): ours stays,
 *   so that our answer is not taken for a restart in turn.
 * A frame that heard an older session of ours, or names an ended epoch, is
 * stale.
 */
struct rm_peer {
	struct lca_remote_node n;
	unsigned int chan_base;      /* its first channel in a transport's lcore */
	uint32_t dead;               /* atomic */
	uint32_t heard_session;      /* atomic: its session in this epoch; 0: not heard */
	uint32_t epoch;              /* atomic: +1 at each end of one */
	uint32_t tx_session;         /* atomic: ours toward it in this epoch */
	struct rm_old_epoch old[RM_OLD_EPOCHS]; /* the last epochs that ended */
	unsigned int n_old;          /* epochs put there, ever */
	/* Its deaths, first frames and rejoins, a line a second each: forged
	 * sessions must not flood the log either. */
	struct rm_log_limit down_log, heard_log, rejoin_log;
	rte_spinlock_t lock;         /* the changes of the above */
};

struct rm_watch {
	lca_actor_id_t watcher;
	lca_actor_id_t target;
};

#define RM_WATCH_MAX 256

/*
 * A transport: what the shared layer asks of it, chosen once by
 * lca_remote_start() from conf.transport (as nginx's ngx_event_actions_t or
 * DPDK's struct eventdev_ops). The node table (rm.self, rm.peers,
 * rm.lcores), the conf and the shared timers are set when start runs.
 */
struct rm_transport_ops {
	/* Set up the channels and hook the lcores; on failure return a
	 * negative errno and leave what was done for stop to undo. Sets
	 * rm.window and rm.frame_cap (its defaults for a 0 in the conf) and
	 * rm.start_tsc. */
	int (*start)(void);
	/* Undo start, whatever part of it was done (the lcores are stopped). */
	void (*stop)(void);
	/* lca_send()'s route for remote references, installed as the core's
	 * remote_send_hook once start succeeded (one call from the core, as
	 * before the table): as send_burst_from(), returns how many went, *err
	 * why not all. It begins with rm_send_peer() and ends with
	 * rm_send_done(). The envelopes of those sent are the transport's. */
	remote_send_fn send;
	/* Nothing in flight or waiting to be sent to a live peer. */
	bool (*idle)(void);
	/* Add the counters of every channel to @p peer into @p out. */
	void (*link_stats)(unsigned int peer, struct lca_remote_link_stats *out);
};

/* The ethdev frame transport (lca_remote_eth.c). */
extern const struct rm_transport_ops rm_eth_ops;
/* The UCX transport (lca_remote_ucx.c, or lca_remote_ucx_none.c in a build
 * without UCX). */
extern const struct rm_transport_ops rm_ucx_ops;

struct rm_state {
	bool up;
	const struct rm_transport_ops *ops;
	struct lca_remote_conf conf;
	struct lca_remote_node self;
	unsigned int n_peers;
	struct rm_peer peers[LCA_REMOTE_MAX_NODES];
	int16_t peer_of_node[LCA_REMOTE_NODE_MAX];
	unsigned int n_lcores;
	unsigned int lcores[RTE_MAX_LCORE];
	unsigned int window;         /* channel window, set by the transport */
	uint32_t frame_cap;          /* bytes of a frame or buffer, set by the transport */
	uint32_t session;
	uint64_t hb, dead, connect, start_tsc;
	struct lca_remote_stats st;
	rte_spinlock_t watch_lock;
	unsigned int n_watch;
	struct rm_watch watch[RM_WATCH_MAX];
	lca_actor_id_t names;        /* the name service (lca_remote_names.c) */
};

extern struct rm_state rm;

/* Shared by both transports (lca_remote.c). */

/* What a frame from peer @p p is to a transport, by its
 * @p session and the session of ours it heard, @p echo (0: none): taken (of
 * this epoch; or the first heard; or a new session, which ends the epoch
 * and starts one), or stale (it heard an older session of ours, or is of an
 * epoch that ended: dropped). */
enum rm_frame_fate { RM_FRAME_TAKE, RM_FRAME_STALE };
enum rm_frame_fate rm_peer_frame_slow(unsigned int p, uint32_t session, uint32_t echo);

static inline enum rm_frame_fate
rm_peer_frame(unsigned int p, uint32_t session, uint32_t echo)
{
	const struct rm_peer *pe = &rm.peers[p];

	if (likely(session == __atomic_load_n(&pe->heard_session, __ATOMIC_ACQUIRE) &&
		   echo == __atomic_load_n(&pe->tx_session, __ATOMIC_RELAXED) &&
		   !__atomic_load_n(&pe->dead, __ATOMIC_RELAXED)))
		return RM_FRAME_TAKE;
	return rm_peer_frame_slow(p, session, echo);
}

/* A peer's epoch as a channel speaks it: read at once, under its lock. */
struct rm_epoch_view {
	uint32_t epoch;
	uint32_t ours;   /* our session toward it */
	uint32_t theirs; /* its session we heard; 0: none yet */
};

/* Peer @p p's current epoch. */
struct rm_epoch_view rm_peer_epoch_get(unsigned int p);

/* The session of peer @p p that a channel of epoch @p epoch heard, for its
 * frames: *@p echo, read from the peer until the first is heard, never one
 * of a later epoch (both transports). */
static inline uint32_t
rm_chan_echo(unsigned int p, uint32_t epoch, uint32_t *echo)
{
	if (unlikely(*echo == 0)) {
		struct rm_epoch_view v = rm_peer_epoch_get(p);

		if (v.epoch == epoch)
			*echo = v.theirs;
	}
	return *echo;
}

/* How long a channel made fresh at @p born_tsc has waited at @p now: since
 * the start, or since its epoch began (perhaps after @p now was read). Both
 * transports hold it against connect_ms. */
static inline uint64_t
rm_chan_waited(uint64_t born_tsc, uint64_t now)
{
	uint64_t since = RTE_MAX(born_tsc, rm.start_tsc);

	return now > since ? now - since : 0;
}

/* A channel to a dead peer says hello once in this many heartbeat periods,
 * under our new session: a peer that lives sees it, ends its epoch too and
 * answers, and the link rejoins. */
#define RM_DEAD_HELLO_BEATS 10

/* mbuf payloads up to this many bytes arrive in a copy, larger ones (from
 * a frame that holds them) in an indirect mbuf into it. */
#define RM_COPY_MAX 256

/* Which of peer @p pe's lcores (its index in the node's list) takes
 * remote reference @p to: the same for every send to it, so its order
 * holds. A mask where the count is a power of two (one lcore, most often):
 * a division a message costs tens of cycles. */
static inline unsigned int
rm_peer_lcore_of(const struct rm_peer *pe, lca_actor_id_t to)
{
	unsigned int n = pe->n.n_lcores, local = lca_remote_local(to);

	return rte_is_power_of_2(n) ? local & (n - 1) : local % n;
}

/* The start of every transport's send: the index of the live peer that
 * holds remote reference @p to, or -ESRCH (not started, no such node) or
 * -EHOSTDOWN (the peer is dead). */
static inline int
rm_send_peer(lca_actor_id_t to)
{
	unsigned int node = lca_remote_node(to);
	int p;

	if (!rm.up || to == LCA_ACTOR_NONE || node >= LCA_REMOTE_NODE_MAX ||
	    (p = rm.peer_of_node[node]) < 0)
		return -ESRCH;
	if (__atomic_load_n(&rm.peers[p].dead, __ATOMIC_RELAXED))
		return -EHOSTDOWN;
	return p;
}

/* The end of every transport's send: count a failure (@p why), say why in
 * @p err, return @p sent. */
static inline unsigned int
rm_send_done(unsigned int sent, int why, int *err)
{
	if (unlikely(why != 0))
		send_failed(why);
	if (err != NULL)
		*err = why;
	return sent;
}

/* A ptr payload that is not an mbuf, on its way to @p to: logged once.
 * @return -EINVAL. */
int rm_payload_refused(lca_actor_id_t to);

/* The payload bytes of @p msg's record on the wire (an ask's or a reply's
 * id included), or -EINVAL (a ptr payload that is not an mbuf, logged
 * once), -EMSGSIZE (an ask or a reply whose inline part overlaps its id). */
static inline int64_t
rm_payload_len(const struct lca_msg *msg, lca_actor_id_t to)
{
	if (msg->flags & LCA_MSG_F_MBUF)
		return wire_id_len(msg) + ((const struct rte_mbuf *)msg->ptr)->pkt_len;
	if (unlikely(msg->ptr != NULL || msg->len > LCA_MSG_INLINE))
		return rm_payload_refused(to);
	if (unlikely(wire_id_len(msg) != 0 && msg->len > LCA_MSG_INLINE_ASK))
		return -EMSGSIZE;
	return wire_id_len(msg) + msg->len;
}

/* The large lanes carry no request id (yet): an ask or a reply whose mbuf
 * payload needs one is refused before anything is sent. */
static inline bool
rm_large_refused(const struct lca_msg *msg)
{
	return wire_id_len(msg) != 0;
}

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

/* Where the delivery of a buffer of records stands: how many went, and
 * the offset of the next. */
struct rm_rec_cursor {
	uint16_t i;
	uint32_t off;
};

/* Past record @p r, the one @p at is on. */
static inline void
rm_rec_cursor_step(struct rm_rec_cursor *at, const struct wire_msg *r)
{
	at->i++;
	at->off += wire_rec_len(rte_be_to_cpu_16(r->len));
}

enum rm_recs_fate {
	RM_RECS_DONE, /* every record delivered, or counted undeliverable */
	RM_RECS_WAIT, /* a full mailbox, no envelope or no mbuf: the cursor is
		       * at the first record that waits */
	RM_RECS_FRAG, /* the cursor is at a fragment record: the caller's */
};

/* Deliver the records of @p buf from cursor @p at to the @p n_msgs-th,
 * those in a row from one sender to one actor as one burst (@p rtc: run
 * an idle receiver's turn on it at once, lca_send_burst_rtc()). Each
 * payload goes into a new envelope; an mbuf payload is copied into mbufs
 * from @p spare or, when @p frame holds @p buf as its data and the payload
 * is over RM_COPY_MAX, shared as an indirect mbuf into it. Counts go to
 * @p st (the channel's). */
enum rm_recs_fate rm_recs_deliver(const uint8_t *buf, uint16_t n_msgs, struct rm_rec_cursor *at,
				  struct rm_spare *spare, struct rte_mbuf *frame, bool rtc,
				  struct lca_remote_link_stats *st);

/* A new session number of ours: never 0, which means none heard. */
uint32_t rm_session_new(void);

/* Declare peer @p p dead (once) and tell its watchers. */
void rm_peer_dead(unsigned int p, const char *why);

/* Peer @p p said it stops (a LEAVE of its current session): down as a dead
 * one is, its watchers told, logged as news rather than as a failure. */
void rm_peer_left(unsigned int p);

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

/* The name service (lca_remote_names.c): records to RM_NAMES_LOCAL, a
 * local id no actor has, reach it. */
#define RM_NAMES_LOCAL LCA_REMOTE_LOCAL_MAX
int rm_names_start(void);
void rm_names_stop(void);

/* Authenticated frames (lca_remote_auth.c): the subkeys of the node
 * table's key, one a use, and a refused tag's count and log line. */
enum { RM_SUBKEY_ETH_SIPHASH = 1, RM_SUBKEY_UCX_SIPHASH = 2, RM_SUBKEY_UCX_PAYLOAD = 3 };

/* Derive subkey @p id of @p conf's key into the @p len bytes at @p out.
 * @return 0, or a negative errno (logged). */
int rm_auth_subkey(uint8_t *out, size_t len, uint64_t id, const struct lca_remote_conf *conf);

/* A tag refused: counted in bad_tag, and said (rate-limited by @p l) as
 * "remote<@p part>: bad tag: <@p what><why>", why from whether this node
 * is @p keyed and the frame (or message) @p tagged; @p src_node as its
 * header says, @p now the TSC. */
void rm_tag_refused(struct rm_log_limit *l, const char *part, const char *what, bool keyed,
		    bool tagged, uint16_t src_node, uint64_t now);

/* Telemetry (lca_remote_telemetry.c). */
void rm_telemetry_register(void);

#endif /* LCA_REMOTE_PRIV_H */
