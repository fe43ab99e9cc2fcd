/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_REMOTE_ETH_PRIV_H
#define LCA_REMOTE_ETH_PRIV_H

/* The ethdev frame transport's own (lca_remote_eth.c: set-up, hooks and
 * timers; lca_remote_eth_tx.c: frames out; lca_remote_eth_rx.c: frames
 * in): its channels, its lcores and its ports. Nothing else includes it. */

#include <stdbool.h>
#include <stdint.h>

#include <rte_cycles.h>

#include "lca_port.h"
#include "lca_remote_priv.h"
#include "lca_remote_wire_priv.h"

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
	uint32_t epoch;         /* its peer's epoch it belongs to (chan_sync()) */
	uint32_t tx_session;    /* ours in its frames: the peer's tx_session then */
	uint32_t tx_echo;       /* its session we heard in that epoch, in our
				 * frames (0 until the first is heard) */
	unsigned int peer;      /* index into rm.peers */
	unsigned int port;      /* index into rm_eth.ports */
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
	uint64_t progress_tsc;  /* the ack last moved (or the wait began) */
	uint32_t n_rtx;         /* timeouts of the oldest frame since then */
	/* The frames in flight allowed (<= the window): halved at a loss, one
	 * more a window of frames acked, so that a resent frame is not queued
	 * behind a whole window of others (eth_cwnd_loss(), cwnd_acked()). */
	uint32_t cwnd;
	uint32_t cwnd_acked;    /* frames acked towards the next increase */
	uint32_t recover;       /* sent_seq at the last halving: losses up to it
				 * are of the same episode */
	uint64_t last_tx_tsc;
	/* RX */
	uint32_t rcv_next;      /* lowest frame not yet delivered whole */
	uint32_t rcv_contig;    /* every frame <= rcv_contig arrived */
	uint32_t rcv_high;      /* highest frame that arrived */
	struct rm_rec_cursor head; /* in frame rcv_next: what was delivered */
	uint64_t last_rx_tsc;   /* 0: never heard (in this epoch) */
	uint64_t born_tsc;      /* made fresh: connect_ms counts from here or the start */
	bool need_ack;
	bool need_nak;
	bool dirty;             /* on its lcore's list of channels to close */
	/* Frames wait for delivery: in order, for the lcore's next hook (a
	 * loop hook, where an idle receiver can run its turn at once), or
	 * held by a full mailbox, tried again at every poll. */
	bool pending;
	bool held;              /* a full mailbox stopped its delivery */
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
	unsigned int n_pending;     /* channels with ->pending */
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

/* The transport's state beside the shared rm: its ports, its lcores and
 * link actors, its timers. */
struct rm_eth {
	unsigned int n_ports;
	struct lca_port *ports[LCA_REMOTE_MAX_NODES];
	uint16_t port_ids[LCA_REMOTE_MAX_NODES];
	unsigned int peer_port[LCA_REMOTE_MAX_NODES]; /* index into ports, by peer */
	struct rm_lcore *lc[RTE_MAX_LCORE];
	lca_actor_id_t link_actor[RTE_MAX_LCORE];
	uint64_t rto_min, rto_max, check;
	unsigned int max_rtx;   /* conf.max_retransmits or its default */
	struct rm_log_limit proto_log; /* protocol errors */
	uint32_t tag_len;        /* WIRE_TAG_LEN with a key, else 0 */
	uint8_t tag_key[16];     /* SipHash-2-4's, derived from conf.key */
	struct rm_log_limit tag_log; /* bad tags */
	/* The ports' links, read by the first lcore (eth_links_watch()). */
	bool link_down[LCA_REMOTE_MAX_NODES];
	bool populated[LCA_REMOTE_MAX_NODES]; /* memif: its regions, since its link is up */
	/* memif ports, and those a LEAVE quieted (eth_port_quiet()): their RX
	 * off until the link is seen down, or quiet_until passes. */
	bool memif[LCA_REMOTE_MAX_NODES];
	bool quiet[LCA_REMOTE_MAX_NODES];
	uint64_t quiet_until[LCA_REMOTE_MAX_NODES];
	uint64_t link_next_tsc;  /* the next read */
	uint64_t link_said_tsc;  /* the last "still down" line */
	bool started;            /* eth_start() got its ports up: a stop says LEAVE */
};

extern struct rm_eth rm_eth;

/* ---- the ports' links (lca_remote_eth_link.c) ---- */

/* Peer @p p said LEAVE: its memif port, when no other live peer shares it,
 * stops being polled until its link is seen down. */
void eth_port_quiet(unsigned int p, uint64_t now);

/* On the first lcore: each port's link read, logged and counted when it
 * changes; a memif port's regions faulted in once it is up. */
void eth_links_watch(uint64_t now);

/* Wait for the thread that faults memif regions in (the loops stopped). */
void eth_memif_prefault_join(void);

/* Whether port @p pi is a memif. */
bool eth_port_is_memif(unsigned int pi);

/* The queues memif port @p pi needs on both sides (0: not a memif). */
uint16_t eth_memif_queues(unsigned int pi);

/* ---- authenticated frames (lca_remote_auth.c) ---- */

/* Derive the tag key from conf.key (no key: untagged frames). */
int eth_auth_init(const struct lca_remote_conf *conf);

/* Forget the tag key. */
void eth_auth_fini(void);

/* Write the tag of the @p len bytes at @p buf at buf + len. */
void eth_tag_write(uint8_t *buf, uint32_t len);

/* Check the tag of decoded frame @p buf; a refusal is counted (bad_tag)
 * and logged. @return true for a frame the channel may read. */
bool eth_tag_check(const uint8_t *buf, const struct wire_view *v, uint64_t now);

/* Before any field of a decoded frame is read: without a key, an untagged
 * frame passes at the cost of one test. */
static inline bool
eth_tag_ok(const uint8_t *buf, const struct wire_view *v, uint64_t now)
{
	if (likely(rm_eth.tag_len == 0 && v->tag == NULL))
		return true;
	return eth_tag_check(buf, v, now);
}

static inline struct chan *
chan_of(struct rm_lcore *rl, unsigned int peer, unsigned int k)
{
	return &rl->chan[rm.peers[peer].chan_base + k];
}

/* The large-message lane of the pair of @p ch (a normal-lane channel). */
static inline struct chan *
lane_large(struct rm_lcore *rl, struct chan *ch)
{
	return ch + rl->n_chan / 2;
}

/* Put @p ch on its lcore's list of channels the end hook closes. */
static inline void
chan_dirty(struct rm_lcore *rl, struct chan *ch)
{
	if (!ch->dirty) {
		ch->dirty = true;
		rl->dirty[rl->n_dirty++] = ch;
	}
}

/* ---- frames out (lca_remote_eth_tx.c) ---- */

/* Send the lcore's frames queued for port @p pi (once per loop). */
void eth_tx_flush(struct rm_lcore *rl, unsigned int pi);

/* Queue frame @p m for port @p pi, flushing first when the queue is full. */
static inline void
eth_tx_add(struct rm_lcore *rl, unsigned int pi, struct rte_mbuf *m)
{
	if (rl->port[pi].n == RM_TXQ_MAX)
		eth_tx_flush(rl, pi);
	rl->port[pi].q[rl->port[pi].n++] = m;
}

/* A frame without data from @p ch: an ack, a NAK or a heartbeat. */
void eth_send_ack(struct rm_lcore *rl, struct chan *ch, uint8_t flags, uint64_t now);

/* @p ch of an epoch of its peer that ended: cleaned (its unacknowledged
 * messages counted lost) and made new, for the peer's new epoch. */
void eth_chan_renew(struct rm_lcore *rl, struct chan *ch);

/* Make @p ch its peer's current epoch's; on its own lcore, before any use. */
static inline void
chan_sync(struct rm_lcore *rl, struct chan *ch)
{
	if (unlikely(ch->epoch != __atomic_load_n(&rm.peers[ch->peer].epoch, __ATOMIC_ACQUIRE)))
		eth_chan_renew(rl, ch);
}

/* Close the open frame of @p ch: headers, keep it, send it. */
void eth_frame_close(struct rm_lcore *rl, struct chan *ch, uint64_t now);

/* Resend frame @p seq of @p ch, if it is still kept. */
void eth_retransmit(struct rm_lcore *rl, struct chan *ch, uint32_t seq, uint64_t now);

/* Frame @p seq of @p ch was lost (a NAK says so): the first loss of an
 * episode halves the frames allowed in flight. */
void eth_cwnd_loss(struct chan *ch, uint32_t seq);

/* Cut the large lane's message of @p ch into fragments, as far as its
 * credit goes; return how many went into frames. */
unsigned int eth_big_pump(struct rm_lcore *rl, struct chan *ch);

/* The transport's send (rm_transport_ops.send). */
unsigned int eth_send(lca_actor_id_t from, lca_actor_id_t to, struct lca_msg **msgs,
		      unsigned int n, int *why);

/* ---- frames in (lca_remote_eth_rx.c) ---- */

/* Deliver what arrived in sequence on @p ch; stop at a full mailbox (the
 * channel then stays pending, and the hooks try again). From a loop hook:
 * an idle receiver on this lcore runs its turn at once. */
unsigned int eth_deliver(struct rm_lcore *rl, struct chan *ch);

/* The link actor of an lcore: the frames the port's RX steered to it, as
 * packets (or, from a sender that wrapped them, as messages). Its state is
 * its lcore's struct rm_lcore pointer (eth_link_init). */
void eth_link_packets(lca_actor_id_t self, void *state, struct rte_mbuf **pkts, uint16_t n);
void eth_link_handler(lca_actor_id_t self, void *state, struct lca_msg **msgs, unsigned int n);
void eth_link_init(void *state, void *arg);

/* The ports' classifier: a frame to the link actor of the lcore its UDP
 * destination port names. */
void eth_classify(struct rte_mbuf **pkts, lca_actor_id_t *to, unsigned int n, void *arg);

#endif /* LCA_REMOTE_ETH_PRIV_H */
