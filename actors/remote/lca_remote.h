/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_REMOTE_H
#define LCA_REMOTE_H

/**
 * @file
 * Actors on other nodes (processes or hosts), reached over DPDK ethdev ports
 * or over UCX (enum lca_remote_transport).
 *
 * A remote reference is an lca_actor_id_t in the range the local actor
 * table never reaches (LCA_ACTOR_REMOTE_BASE and up, below LCA_ACTOR_NONE):
 * a node id and the actor's id on that node (lca_remote_ref()). lca_send(),
 * lca_send_from(), lca_send_burst() and lca_reply() take it as they take a
 * local id; only the send that misses the local table looks further, so a
 * local send costs what it did.
 *
 * A send to a remote reference copies the message into the open frame of
 * the channel from the calling lcore to the destination's node and lcore;
 * each lcore's end hook closes its open frames once per loop iteration and
 * hands them to the port's TX actor. The channel numbers its frames, keeps
 * each one (a reference on its mbuf, no copy) until the peer acknowledges
 * it, and retransmits it on a NAK or when its timeout passes; the receiver
 * detects duplicates, reorders, and delivers every message once and in the
 * order each sender sent it. docs/wire.md describes the frames.
 *
 * The ownership rule is lca_send()'s: the message is the sender's until the
 * send returns 0, then the runtime's (its bytes are in a frame, the envelope
 * is freed); a refused send leaves it with the sender. The errors:
 * -ENOBUFS (the channel has no credit: the peer's window is full; try
 * again, nothing was dropped), -ESRCH (an unknown node, or the remote part
 * not started), -EHOSTDOWN (the peer stopped answering: see
 * lca_remote_watch()), -EMSGSIZE (an mbuf payload over 2 GiB; over UCX,
 * over 2 MiB), -EINVAL
 * (a ptr payload that is not an mbuf: its size is not declared; or NULL),
 * -EPERM (from a thread that is not a runtime lcore), -ENOMEM (no mbuf for
 * a frame). On the receiving node the message is sent to its actor on
 * behalf of the remote sender (msg->from is a remote reference, so
 * lca_reply() goes back over the wire); a receiver whose mailbox is full
 * holds the channel (its credit stops growing, the sender sees -ENOBUFS)
 * and nothing is dropped; a receiver that does not exist or stopped is
 * counted there (lca_send_errors_get(): no_actor, stopped) and in the
 * link's undeliverable counter, and a sender that is an actor gets an
 * LCA_TYPE_UNDELIVERED notice back.
 *
 * Order is per channel, and a channel is per sending lcore: the sends of an
 * affinity actor, or of one lcore's thread, keep their order to each
 * receiver. A shared (LCA_DISPATCH_SHARED) actor runs on any lcore, so its
 * remote sends from two turns may take two channels and cross; an actor
 * that migrates starts on its new lcore's channel. A message's deadline
 * (a local TSC) does not cross: it arrives without one.
 *
 * An mbuf payload larger than a frame crosses in the large-message lane of
 * the channel's pair (fragments, put back together on the receiver as a
 * chain of indirect mbufs into the frames, no copy): a 1 MiB message does
 * not hold back small ones. Order holds within each lane; a second large
 * message to the same pair waits (-ENOBUFS) until the first is in frames.
 * Over UCX such a message is an active message of its own (its segments
 * given to UCX as they are), one in flight per channel until the peer has
 * delivered it.
 *
 * Functions return 0 or a negative errno value, and log every error.
 */

#include <stdbool.h>
#include <stdint.h>

#include "lca_actor.h"
#include "lca_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Bits of a remote reference that hold the actor's id on its node. */
#define LCA_REMOTE_LOCAL_BITS 20
/** Largest actor id on a node that a remote reference can name. */
#define LCA_REMOTE_LOCAL_MAX ((1u << LCA_REMOTE_LOCAL_BITS) - 1)
/** Largest node id (node ids are 0 .. LCA_REMOTE_NODE_MAX - 1). */
#define LCA_REMOTE_NODE_MAX 2047u
/** Most nodes in a node table (this one included). */
#define LCA_REMOTE_MAX_NODES 16
/** Bytes of lca_remote_conf.key (a node table gives them as 64 hex digits). */
#define LCA_REMOTE_KEY_LEN 32
/** Most lcores a node may list. */
#define LCA_REMOTE_MAX_LCORES 16

/**
 * System message type: the node of a watched remote actor stopped answering
 * (no frame within lca_remote_conf.dead_ms). Sent to each watcher's control
 * lane (lca_remote_watch()) with a struct lca_terminated whose actor is the
 * remote reference and by_supervision 0: it reads as LCA_TYPE_TERMINATED
 * and differs only in its type, for a watcher that wants to tell a lost
 * node from a stopped actor.
 */
#define LCA_TYPE_NODE_DOWN (LCA_TYPE_SYSTEM + 16)

/**
 * System message type: the node of a watched remote actor is back (ethdev
 * transport): a frame of a new session came from it after it was declared
 * dead, or it restarted (then LCA_TYPE_NODE_DOWN came first). Sent like
 * LCA_TYPE_NODE_DOWN, with the same payload; sends to it go again.
 */
#define LCA_TYPE_NODE_UP (LCA_TYPE_SYSTEM + 19)

/**
 * System message type: a message an actor sent to a remote actor could not
 * be delivered there: no such actor (-ESRCH) or it stopped (-EPIPE). The
 * far node sends it back to the sender's control lane, with a struct
 * lca_undelivered, when the sender was an actor (not a bare thread); it is
 * counted on both nodes (lca_remote_link_stats: undeliverable there,
 * returned_no_actor or returned_stopped here). A notice that cannot be
 * delivered itself is only counted.
 */
#define LCA_TYPE_UNDELIVERED (LCA_TYPE_SYSTEM + 20)

/** The payload of LCA_TYPE_UNDELIVERED. */
struct lca_undelivered {
	lca_actor_id_t to; /**< The receiver, as the sender named it (a remote reference). */
	uint32_t type;     /**< The message's type. */
	int32_t error;     /**< -ESRCH or -EPIPE. */
};

/** Bytes of a name lca_remote_lookup() can ask for (without the NUL): the
 *  request carries it inline beside its request id. */
#define LCA_REMOTE_NAME_MAX 24

/**
 * System message type (EXPERIMENTAL): a node's answer to
 * lca_remote_lookup(), a reply (LCA_MSG_F_REPLY, lca_msg_req_id()) whose
 * data is a struct lca_remote_name.
 */
#define LCA_TYPE_REMOTE_NAME (LCA_TYPE_SYSTEM + 18)

/** The payload of LCA_TYPE_REMOTE_NAME. */
struct lca_remote_name {
	lca_actor_id_t actor; /**< The named actor as a remote reference, or
			       *   LCA_ACTOR_NONE with @p error. */
	int32_t error;        /**< 0, or lca_actor_lookup()'s error on that
			       *   node (-ENOENT: no live actor of that name). */
};

/**
 * A remote reference: actor @p local on node @p node.
 *
 * @return
 *   The reference; LCA_ACTOR_NONE when @p node >= LCA_REMOTE_NODE_MAX or
 *   @p local > LCA_REMOTE_LOCAL_MAX.
 */
static inline lca_actor_id_t
lca_remote_ref(unsigned int node, lca_actor_id_t local)
{
	if (node >= LCA_REMOTE_NODE_MAX || local > LCA_REMOTE_LOCAL_MAX)
		return LCA_ACTOR_NONE;
	return LCA_ACTOR_REMOTE_BASE | ((lca_actor_id_t)node << LCA_REMOTE_LOCAL_BITS) | local;
}

/** Whether @p id is a remote reference (not a local id, not LCA_ACTOR_NONE). */
static inline bool
lca_remote_is_ref(lca_actor_id_t id)
{
	return id >= LCA_ACTOR_REMOTE_BASE && id != LCA_ACTOR_NONE;
}

/** The node of a remote reference. */
static inline unsigned int
lca_remote_node(lca_actor_id_t ref)
{
	return (ref & ~LCA_ACTOR_REMOTE_BASE) >> LCA_REMOTE_LOCAL_BITS;
}

/** The actor id, on its node, of a remote reference. */
static inline lca_actor_id_t
lca_remote_local(lca_actor_id_t ref)
{
	return ref & LCA_REMOTE_LOCAL_MAX;
}

/** One node of the node table. */
struct lca_remote_node {
	uint16_t id;          /**< Node id (< LCA_REMOTE_NODE_MAX). */
	uint8_t mac[6];       /**< Its Ethernet address. */
	uint32_t ipv4;        /**< Its IPv4 address, host byte order. */
	uint16_t udp_base;    /**< Lcore L of the node listens on UDP port udp_base + L. */
	uint16_t port_id;     /**< The local ethdev port that reaches it (for this
			       *   node's own entry: unused). */
	uint16_t n_lcores;    /**< Entries in lcores (0 for this node's own entry:
			       *   the runtime's lcores). */
	uint16_t lcores[LCA_REMOTE_MAX_LCORES]; /**< Its lcores that take frames: a
						 *   message to its actor A goes to
						 *   lcores[A % n_lcores]. */
};

/** Faults injected on transmission, for tests and for goodput under loss. */
struct lca_remote_inject {
	uint32_t loss_ppm;    /**< Frames dropped, per million. */
	uint32_t dup_ppm;     /**< Frames sent twice, per million. */
	uint32_t reorder_ppm; /**< Frames held back behind the next one, per million. */
	uint64_t seed;        /**< Seed of each lcore's stream (0: 1); runs with the
			       *   same seed and traffic inject the same faults. */
};

/** How messages reach the peers. */
enum lca_remote_transport {
	/** Ethernet/IPv4/UDP frames over DPDK ethdev ports, with lcactor's own
	 *  sequence numbers, acks, retransmission and credits (docs/wire.md):
	 *  kernel bypass with nothing but a PMD. */
	LCA_REMOTE_ETHDEV = 0,
	/** UCP active messages (UCX): UCX's transports (shm, cma, tcp, verbs,
	 *  chosen by UCX_TLS) and its reliability carry the same packed records;
	 *  lcactor keeps per-channel order and credits. Lcore L of a node
	 *  listens on TCP port udp_base + L of its ipv4 for UCX's connection
	 *  setup, which needs UCX's tcp transport (UCX_TLS=shm,tcp sends the
	 *  data over shared memory). Nodes need no ethdev port. */
	LCA_REMOTE_UCX = 1,
};

/** How to start the remote part. Zero-filled fields take their defaults. */
struct lca_remote_conf {
	uint16_t self;        /**< This node's id: one of nodes[]. */
	uint16_t n_nodes;     /**< Entries in nodes. */
	struct lca_remote_node nodes[LCA_REMOTE_MAX_NODES]; /**< This node and its peers. */
	bool loopback;        /**< Messages to this node's own id go over the wire
			       *   too (through its port and back: tests on one
			       *   net_ring); else such a send is refused (-ESRCH). */
	unsigned int window;  /**< Frames in flight per channel, a power of two
			       *   (0: 256, with UCX 64; at most 4096). */
	unsigned int rto_us;  /**< First retransmission timeout (0: 50 us); it
			       *   doubles at each timeout, up to rto_max_us. */
	unsigned int rto_max_us; /**< (0: 20000 us). */
	unsigned int max_retransmits; /**< A channel whose oldest unacknowledged
				       *   frame was resent this many times on its
				       *   timeout, and whose ack has not moved for
				       *   dead_ms, declares its peer down (0: 8;
				       *   ethdev only; a channel that never heard
				       *   its peer is bounded by connect_ms). */
	unsigned int heartbeat_ms; /**< A channel with nothing to send says it is
				    *   alive this often (0: 10 ms). */
	unsigned int dead_ms; /**< A peer not heard from for this long, after it was
			       *   heard once, is dead (0: 1000 ms). */
	unsigned int connect_ms; /**< A peer never heard from is dead after this
				  *   long (0: 10000 ms). */
	unsigned int burst;   /**< Of the ports it starts (0: lca_port's default). */
	unsigned int mtu;     /**< IPv4 bytes a frame may hold (0: 1500; 128 .. 9000);
			       *   with UCX, bytes of records an active message
			       *   holds (0: 8192). */
	struct lca_remote_inject inject; /**< Faults on transmission (zero: none;
					  *   ethdev only). */
	enum lca_remote_transport transport; /**< (0: LCA_REMOTE_ETHDEV). */
	bool has_key;         /**< Authenticate with key, on either transport:
			       *   every frame or active message carries a tag
			       *   that the receiver checks before it reads any
			       *   field, and one whose tag is wrong or missing is
			       *   counted in lca_remote_stats.bad_tag and
			       *   dropped. Both nodes need the same key
			       *   (docs/wire.md, "Trust model"). */
	uint8_t key[LCA_REMOTE_KEY_LEN]; /**< With has_key: the shared secret. */
};

/** Counters of a link (one peer node; lca_remote_link_stats_get() sums its channels). */
struct lca_remote_link_stats {
	uint64_t msgs_sent;      /**< Messages put into frames. */
	uint64_t msgs_delivered; /**< Messages received and given to their actor. */
	uint64_t undeliverable;  /**< Received for an actor that does not exist or stopped
				  *   (its sender, if an actor, is told: LCA_TYPE_UNDELIVERED). */
	uint64_t returned_no_actor; /**< Our messages the peer could not deliver: no
				     *   such actor there (LCA_TYPE_UNDELIVERED notices). */
	uint64_t returned_stopped; /**< The same: the actor there had stopped. */
	uint64_t frames_sent;    /**< Data frames, first transmissions. */
	uint64_t frames_rx;      /**< Data frames received in the window, first copies. */
	uint64_t acks_sent;      /**< Frames without data: acks, NAKs, heartbeats. */
	uint64_t retransmits;    /**< Data frames sent again (timeout or NAK). */
	uint64_t timeouts;       /**< Retransmission timeouts. */
	uint64_t naks_sent;      /**< NAKs sent (a gap was seen). */
	uint64_t naks_rx;        /**< NAKs received. */
	uint64_t duplicates;     /**< Data frames received again, dropped. */
	uint64_t reordered;      /**< Data frames received ahead of a gap, kept. */
	uint64_t out_of_window;  /**< Data frames beyond the window, dropped. */
	uint64_t no_credit;      /**< Sends refused for want of credit (-ENOBUFS). */
	uint64_t held;           /**< Times delivery waited for a full mailbox. */
	uint64_t lost_on_dead;   /**< Messages in unacknowledged frames when the node
				  *   died: an upper bound of those lost, not an
				  *   exact count. A frame may have arrived while
				  *   its ack did not (the node paused, a link that
				  *   flaps, acks forged or dropped on the way), and
				  *   the sender cannot tell; its messages count
				  *   here all the same. Telemetry names it
				  *   lost_on_dead_at_most. */
	uint64_t retry_exhausted; /**< Times a channel gave up on its oldest frame
				   *   (lca_remote_conf.max_retransmits): the peer
				   *   was declared down. */
	uint64_t ack_beyond_sent; /**< Frames whose ack (UCX: credits whose number)
				   *   named what was never sent: a protocol
				   *   error, the peer declared down. */
	uint64_t credit_beyond_window; /**< Frames whose credit ran past ack +
					*   window: a protocol error, the peer
					*   declared down. */
	uint64_t inj_lost;       /**< Frames the injector dropped. */
	uint64_t inj_dup;        /**< Frames the injector duplicated. */
	uint64_t inj_reordered;  /**< Frames the injector held back. */
	uint64_t stale_session;  /**< Frames of a session of the peer declared dead
				  *   (an incarnation gone), dropped unread. */
	uint64_t in_flight;      /**< Data frames sent and not yet acknowledged, now. */
	uint32_t dead;           /**< 1 when the peer was declared dead. */
	uint32_t connected;      /**< 1 once a frame came from the peer. */
};

/** Counters of the remote part that belong to no link. */
struct lca_remote_stats {
	uint64_t malformed;      /**< Frames dropped by the decoder (any reason). */
	uint64_t unknown_peer;   /**< Well-formed frames from a node not in the table. */
	uint64_t not_for_us;     /**< Frames for another address or port, dropped. */
	uint64_t no_mbuf;        /**< Times the port's mbuf pool was empty (a frame
				  *   not opened: -ENOMEM; an ack not sent; a
				  *   delivery waiting). */
	uint64_t tx_refused;     /**< Frames the TX actors refused (full mailbox):
				  *   data frames go again on their timeout. */
	uint64_t tx_no_envelope; /**< Frames not sent for want of envelopes (idem). */
	uint64_t bad_tag;        /**< Frames or UCX messages whose tag was wrong,
				  *   or missing on a node with a key, or present
				  *   on one without: dropped before any field was
				  *   read (a large UCX payload: before delivery). */
	uint64_t link_downs;     /**< Times a port's link was seen go down (ethdev:
				  *   rte_eth_link_get_nowait() every 100 ms). */
	uint32_t links_down;     /**< Ports whose link is down now. */
};

/**
 * Fill @p conf from a node table file (INI, read by DPDK's rte_cfgfile;
 * docs/wire.md, "Node table"): `self = N`, optional `loopback`, `window`,
 * `rto_us`, `rto_max_us`, `max_retransmits`, `heartbeat_ms`, `dead_ms`, `connect_ms`, `mtu`,
 * `transport` (`ethdev` or `ucx`), `key` (64 hex digits: authenticated frames,
 * ethdev only), and a `[node N]` section per node with
 * `mac`, `ip`, `udp_base`, `port` and `lcores` (a comma-separated list).
 * '#' and ';' start comments. Numbers are decimal (a leading zero too; 0x
 * is refused). Each node needs what its transport uses (ethdev: `mac`,
 * `ip`, `udp_base`; ucx: `ip`, `udp_base`), each peer its `lcores`; a
 * table needs a peer (or `loopback`). Unknown keys and sections, and keys
 * or nodes given twice, are errors.
 *
 * @return
 *   0; -ENOENT (no such file, or another errno of fopen()); -EINVAL (a bad
 *   or missing value, logged with its section and key; a line rte_cfgfile
 *   cannot read, logged with its number); -ENOMEM.
 */
LCA_EXPERIMENTAL
LCA_API int lca_remote_conf_load(const char *path, struct lca_remote_conf *conf);

/**
 * Start the remote part: start each port the table names (lca_port_start(),
 * with a classifier that steers each frame by its UDP destination port to
 * a link actor on that lcore), spawn one link actor per runtime lcore, and
 * add a hook to each lcore (timers in its poll, frames closed and sent in
 * its end function). Call after lca_runtime_init() and before
 * lca_runtime_run(), from the main lcore.
 *
 * @return
 *   0; -EINVAL (a bad configuration, logged); -EEXIST (already started);
 *   -EBUSY (loops running); another error of lca_port_start(),
 *   lca_actor_spawn() or lca_lcore_hook_add().
 */
LCA_EXPERIMENTAL
LCA_API int lca_remote_start(const struct lca_remote_conf *conf);

/**
 * Stop the remote part: first tell each peer that lives that this node
 * stops (a LEAVE on each channel: the peer takes it down at once and logs
 * that it left, docs/wire.md), then free what the channels hold (frames in
 * flight and undelivered frames, counted in lost_on_dead when
 * unacknowledged), remove the hooks, stop the link actors and the ports.
 * Call from the main lcore while the loops are not running, before
 * lca_runtime_cleanup().
 *
 * @return
 *   0 (also when not started); -EBUSY while the loops run.
 */
LCA_EXPERIMENTAL
LCA_API int lca_remote_stop(void);

/** This node's id, or -ESRCH when the remote part is not started. */
LCA_EXPERIMENTAL
LCA_API int lca_remote_self(void);

/**
 * Whether everything sent so far has been acknowledged by every peer (no
 * frame in flight, no message in an open frame): for an app that wants to
 * stop only when its last messages arrived.
 */
LCA_EXPERIMENTAL
LCA_API bool lca_remote_idle(void);

/**
 * Look @p name up on node @p node (EXPERIMENTAL): an ask (lca_ask()) to
 * that node's name service, which the remote part runs on every node.
 * Within @p timeout_us @p from's handler gets a reply of type
 * LCA_TYPE_REMOTE_NAME (a struct lca_remote_name: the actor as a remote
 * reference, or the lookup's error there) with lca_msg_req_id() equal to
 * *@p req_id; otherwise an LCA_TYPE_TIMEOUT on its control lane. Names are
 * those of lca_actor_register() on that node; @p node may be this one's
 * own in a loopback table.
 *
 * @param from
 *   The asker: a live local actor (call it as lca_ask() says).
 * @param node
 *   The node asked.
 * @param name
 *   At most LCA_REMOTE_NAME_MAX bytes.
 * @param timeout_us
 *   How long the answer may take.
 * @param[out] req_id
 *   The ask's id; may be NULL.
 * @return
 *   0; -EINVAL (NULL or empty @p name, or as lca_ask()); -ENAMETOOLONG
 *   (@p name over LCA_REMOTE_NAME_MAX); -ESRCH (the remote part not
 *   started, no such node); -EHOSTDOWN (the node is down); -ENOMEM,
 *   -ENOBUFS or another error of lca_ask().
 */
LCA_EXPERIMENTAL
LCA_API int lca_remote_lookup(lca_actor_id_t from, unsigned int node, const char *name,
			      uint64_t timeout_us, uint64_t *req_id);

/**
 * Have @p watcher told when the node of remote reference @p target is
 * declared dead: an LCA_TYPE_NODE_DOWN message on its control lane (see
 * there), at once when it is dead already. Sends to a dead node fail with
 * -EHOSTDOWN. From any thread.
 *
 * @return
 *   0; -ESRCH (@p watcher is not a local actor, or @p target not a remote
 *   reference to a node in the table); -ENOSPC (the table of watches is
 *   full, 256 entries).
 */
LCA_EXPERIMENTAL
LCA_API int lca_remote_watch(lca_actor_id_t watcher, lca_actor_id_t target);

/**
 * Whether node @p node is up: started, in the table and not declared dead.
 */
LCA_EXPERIMENTAL
LCA_API bool lca_remote_node_up(unsigned int node);

/**
 * Counters of the link to @p node: the sums over every channel to it (one
 * per local lcore and peer lcore). Exact while the loops are not running.
 *
 * @return
 *   0; -EINVAL (NULL); -ESRCH (no such peer, or not started).
 */
LCA_EXPERIMENTAL
LCA_API int lca_remote_link_stats_get(unsigned int node, struct lca_remote_link_stats *out);

/** Counters that belong to no link. @return 0; -EINVAL for NULL. */
LCA_EXPERIMENTAL
LCA_API int lca_remote_stats_get(struct lca_remote_stats *out);

/**
 * Decode one frame (Ethernet, IPv4, UDP, channel header, messages) and
 * check every length in it, without touching any state: what the receive
 * path runs first, and what the fuzz target drives. A frame with flag TAG
 * ends in its 8-byte tag, which is located, not checked (that takes the
 * key: the receive path checks it next).
 *
 * @param buf
 *   The frame's bytes.
 * @param len
 *   How many.
 * @param[out] n_msgs
 *   Messages it carries (may be NULL).
 * @return
 *   0 for a well-formed frame; -EBADMSG otherwise.
 */
LCA_EXPERIMENTAL
LCA_API int lca_remote_frame_check(const void *buf, uint32_t len, unsigned int *n_msgs);

#ifdef __cplusplus
}
#endif

#endif /* LCA_REMOTE_H */
