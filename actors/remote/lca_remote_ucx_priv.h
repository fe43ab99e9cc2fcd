/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_REMOTE_UCX_PRIV_H
#define LCA_REMOTE_UCX_PRIV_H

/* The UCX transport's own (lca_remote_ucx.c: set-up, hooks and checks;
 * lca_remote_ucx_tx.c, lca_remote_ucx_rx.c, lca_remote_ucx_conn.c): its
 * channels, its lcores and its workers. Nothing else includes it. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <netinet/in.h>

#include <rte_byteorder.h>

#include <ucp/api/ucp.h>

#include "lca_remote_priv.h"

enum { UX_AM_DATA = 21, UX_AM_HELLO = 22, UX_AM_CREDIT = 23, UX_AM_LARGE = 24,
       UX_AM_LARGE_CREDIT = 25, UX_AM_LEAVE = 26 };

#define UX_RETRY_MS 20
#define UX_RETRY_MAX_MS 640
#define UX_CHECK_US 1000
#define UX_SERVER_EPS 256
#define UX_RETIRED_EPS 64
#define UX_CLOSE_SPINS 1000000
#define UX_POOL_MBUFS 4095
/* The largest message the large lane takes: it arrives in the transport's
 * pool (UX_POOL_MBUFS of 2 KiB), a quarter of it at most. */
#define UX_LARGE_MAX (2u << 20)
/* The window and buffer size for a 0 in the conf. */
#define UX_DEF_WINDOW 64
#define UX_DEF_BUF 8192

/* The header of each active message, in network byte order. */
struct ux_hdr {
	uint16_t src_node;
	uint16_t src_lcore;
	uint16_t dst_lcore;
	uint16_t n_msgs;
	uint32_t seq;     /* data: the buffer's; credit: every buffer <= seq delivered */
	uint32_t session;
	uint32_t peer_session; /* the receiver's session the sender heard in
				* this epoch (0: none yet), as on the wire of
				* the ethdev transport */
} __rte_packed; /* UCX hands headers at any alignment */

/* With a key, an active message's header ends in a tag (docs/wire.md,
 * "Trust model"): SipHash-2-4, as the frames', over one contiguous run of
 * bytes: the header before the tag, or, for a buffer, its data, which then
 * begin with a copy of the header. A large message's header carries its
 * payload's tag too, SipHash-2-4 under another subkey over the payload's
 * bytes in order. Without a key, headers stop before the tags. */
#define UX_TAG_LEN 8
#define UX_PAYLOAD_TAG_LEN 8

/* A small active message's header as it is sent. */
struct ux_am_hdr {
	struct ux_hdr h;
	uint8_t tag[UX_TAG_LEN];
} __rte_packed;

/* The header of a large message (UX_AM_LARGE): the buffer header, whose
 * seq numbers the lane's messages, then the record's fields; the payload
 * is the active message's data (rendezvous, UCX's choice). With a key, the
 * payload's tag and the header's follow: the header is checked when it
 * arrives, the payload once all of it is in. */
struct ux_large_hdr {
	struct ux_hdr h;
	uint32_t to;
	uint32_t from;
	uint32_t type;
	uint32_t len;
	uint8_t payload_tag[UX_PAYLOAD_TAG_LEN];
	uint8_t tag[UX_TAG_LEN];
} __rte_packed;

/* Header lengths on the wire without a key; with one, the whole structs. */
#define UX_HDR_LEN sizeof(struct ux_hdr)
#define UX_LARGE_HDR_LEN offsetof(struct ux_large_hdr, payload_tag)

/* A closed buffer, kept until the peer's credit says it was delivered. */
struct ux_tx {
	struct ux_am_hdr hdr; /* UCX may read it until the send completes */
	uint32_t len;
	bool busy;         /* UCX still holds the buffer */
};

/* A buffer that arrived ahead of its turn, or whose delivery waits. */
struct ux_rx {
	uint8_t *buf;      /* its records; NULL: none */
	void *desc;        /* UCX's data that buf lies in, kept until delivered
			    * (ucp_am_data_release()); NULL: buf is a copy */
	uint32_t len;
	uint16_t n_msgs;
};

struct ux_lcore;

struct ux_chan {
	struct ux_lcore *ul;
	unsigned int peer;
	uint16_t peer_lcore;
	ucp_ep_h ep;        /* ours, to the peer lcore's listener */
	ucp_ep_h reply_ep;  /* the peer's, to our listener: credits go back on it */
	bool connected;
	bool failed;        /* ep's error handler ran; closed by the check */
	bool said_leave;    /* our LEAVE went on ep (ux_stop()) */
	struct ux_tx leave; /* its header, until UCX has sent it */
	bool dirty;
	/* Buffers wait for delivery: in order, for the poll hook after
	 * UCX's progress, or held by a full mailbox (held), tried again at
	 * every poll. */
	bool pending;
	bool held;
	bool cleaned;
	ucs_status_t fail_status;
	uint64_t retry_tsc; /* when to make ep again; 0: not waiting */
	uint64_t retry;     /* the wait before that, doubled each time */
	uint64_t last_rx_tsc; /* anything from the peer lcore */
	uint64_t last_tx_tsc; /* anything on ep */
	uint64_t born_tsc;    /* made fresh: the start, or its epoch's */
	uint32_t epoch;       /* its peer's epoch it belongs to (ux_chan_sync()) */
	uint32_t tx_session;  /* ours in its headers: the peer's tx_session then */
	uint32_t tx_echo;     /* its session we heard in that epoch (0: none yet) */
	/* TX */
	uint8_t *arena;     /* window buffers of rm.frame_cap bytes */
	struct ux_tx *tx;
	uint32_t next_seq;  /* of the open buffer */
	uint32_t sent_seq;  /* highest given to UCX */
	uint32_t acked;     /* highest the peer delivered */
	uint32_t open_off;
	uint16_t open_n;
	/* RX */
	uint32_t rcv_next;
	struct rm_rec_cursor head; /* in buffer rcv_next: what was delivered */
	struct ux_rx *rx;
	bool need_credit;
	struct ux_am_hdr hello;
	struct ux_am_hdr credit;
	/* Large lane, TX: one message at a time, kept until its credit. */
	struct lca_msg *big;
	ucp_dt_iov_t *big_iov;
	bool big_busy;        /* UCX still reads its mbufs */
	uint32_t big_seq;     /* of the last large message sent */
	struct ux_large_hdr big_hdr;
	bool big_acked;       /* the peer delivered it */
	/* Large lane, RX: the message arriving or waiting for its mailbox. */
	struct rte_mbuf *big_rx;
	ucp_dt_iov_t *big_rx_iov;
	void *big_rx_desc;    /* UCX's data (or our copy of it), kept until an
			       * mbuf chain is free */
	bool big_rx_rndv;
	bool big_rx_owned;    /* big_rx_desc is our malloc'd copy */
	bool big_rx_pending;  /* UCX writes into big_rx */
	bool big_rx_ready;    /* every byte is in big_rx */
	uint32_t big_rx_seq;  /* the lane's last message delivered */
	struct ux_large_hdr big_rx_hdr;
	bool need_big_credit;
	struct ux_am_hdr big_credit;
	struct lca_remote_link_stats st;
};

struct ux_server_ep {
	ucp_ep_h ep;
	bool failed;
};

/* An endpoint that failed, closed only later (ux_ep_retire()). */
struct ux_retired_ep {
	ucp_ep_h ep;
	uint64_t tsc; /* when it was retired */
};

struct ux_lcore {
	unsigned int lcore;
	ucp_worker_h worker;
	ucp_listener_h listener;
	unsigned int n_chan;
	struct ux_chan *chan;   /* rm.peers[p].chan_base + k: lcore k of peer p */
	unsigned int n_dirty;
	struct ux_chan **dirty;
	unsigned int n_pending;   /* channels with ->pending */
	unsigned int n_big;     /* channels with a large message, either way */
	uint64_t next_check;
	unsigned int n_server;
	struct ux_server_ep server[UX_SERVER_EPS];
	unsigned int n_retired;
	struct ux_retired_ep retired[UX_RETIRED_EPS];
	struct rm_spare spare;
	uint8_t *scratch;       /* with a key: a large payload in one run, for
				 * its tag (UX_LARGE_MAX bytes) */
};

/* The transport's state beside the shared rm. */
struct ux_state {
	ucp_context_h ctx;
	struct rte_mempool *pool; /* mbufs for records that arrive as mbufs */
	struct ux_lcore *lc[RTE_MAX_LCORE];
	uint64_t retry, retry_max;
	bool stopping;            /* callbacks during the closes do nothing */
	bool keyed;               /* tags on every active message */
	uint8_t tag_key[16];      /* SipHash-2-4's, derived from conf.key */
	uint8_t payload_key[16];  /* the large payloads', another subkey of it */
	struct rm_log_limit tag_log; /* bad tags */
	struct rm_log_limit proto_log; /* protocol errors */
};

extern struct ux_state rm_ux;

/* A window buffer's records; the UX_HDR_LEN bytes before them take a copy
 * of its header when it is tagged. */
static inline uint8_t *
tx_buf(const struct ux_chan *ch, uint32_t seq)
{
	return ch->arena + (size_t)(seq & (rm.window - 1)) * (UX_HDR_LEN + rm.frame_cap) +
	       UX_HDR_LEN;
}

static inline void
mark_dirty(struct ux_chan *ch)
{
	if (!ch->dirty) {
		ch->dirty = true;
		ch->ul->dirty[ch->ul->n_dirty++] = ch;
	}
}

static inline void
hdr_fill(struct ux_hdr *h, struct ux_chan *ch, uint32_t seq, uint16_t n_msgs)
{
	h->src_node = rte_cpu_to_be_16(rm.self.id);
	h->src_lcore = rte_cpu_to_be_16((uint16_t)ch->ul->lcore);
	h->dst_lcore = rte_cpu_to_be_16(ch->peer_lcore);
	h->n_msgs = rte_cpu_to_be_16(n_msgs);
	h->seq = rte_cpu_to_be_32(seq);
	h->session = rte_cpu_to_be_32(ch->tx_session);
	h->peer_session = rte_cpu_to_be_32(rm_chan_echo(ch->peer, ch->epoch, &ch->tx_echo));
}

/* @p ch of an epoch of its peer that ended: what it held freed (counted
 * lost) and made new, for the peer's new epoch (lca_remote_ucx.c). */
void ux_chan_renew(struct ux_chan *ch);

/* Make @p ch its peer's current epoch's; on its own lcore, before any use. */
static inline void
ux_chan_sync(struct ux_chan *ch)
{
	if (unlikely(ch->epoch != __atomic_load_n(&rm.peers[ch->peer].epoch, __ATOMIC_ACQUIRE)))
		ux_chan_renew(ch);
}

static inline void
in_flight_set(struct ux_chan *ch)
{
	__atomic_store_n(&ch->st.in_flight, (uint64_t)(ch->sent_seq - ch->acked),
			 __ATOMIC_RELAXED);
}

/* ---- lca_remote_ucx_auth.c: tags, with a key ---- */

/* Derive the tag key from conf.key (no key: untagged messages). */
int ux_auth_init(const struct lca_remote_conf *conf);

/* Forget the tag key. */
void ux_auth_fini(void);

/* The length of a header: @p base without a key, @p keyed with one. */
static inline size_t
ux_hdr_len(size_t base, size_t keyed)
{
	return rm_ux.keyed ? keyed : base;
}

/* Tag the header of @p hlen bytes at @p hdr (its last UX_TAG_LEN bytes are
 * the tag) over its bytes before the tag, or over the @p len bytes at
 * @p data, which begin with a copy of the header, when @p data is given. */
void ux_tag_write(void *hdr, size_t hlen, const void *data, size_t len);

/* The tag of the payload @p m (every segment), on lcore @p ul. */
void ux_payload_tag(struct ux_lcore *ul, uint8_t *tag, const struct rte_mbuf *m);

/* Check the header of @p hlen bytes at @p hdr, @p tagged or not, with the
 * @p len bytes at @p data (NULL: none) as ux_tag_write() made it; a
 * refusal is counted (bad_tag) and logged. @return true for a message the
 * channel may read. */
bool ux_tag_check(const void *hdr, size_t hlen, bool tagged, const void *data, size_t len);

/* Check the payload @p m against the tag of the large header @p lh (taken
 * with a key), on lcore @p ul; a refusal is counted and logged. */
bool ux_payload_check(struct ux_lcore *ul, const struct ux_large_hdr *lh,
		      const struct rte_mbuf *m);

/* ---- lca_remote_ucx_tx.c: buffers and large messages out ---- */

/* Send header @p h (and @p len bytes at @p buf, a window buffer's, when
 * given) as active message @p id on @p ep (@p reply: the peer answers on
 * its reply endpoint), tagged here with a key; @p t, when given, is busy
 * until UCX lets go of the buffer. @return 0, or the endpoint's error. */
ucs_status_t ux_am_send(ucp_ep_h ep, unsigned int id, struct ux_am_hdr *h, uint8_t *buf,
			size_t len, struct ux_tx *t, bool reply);

/* Let go of the large message @p ch sent, once the peer delivered it (or is
 * dead) and UCX no longer reads its mbufs. */
void ux_big_release(struct ux_chan *ch);

/* Close the open buffer of @p ch and give it to UCX. */
void ux_buf_close(struct ux_chan *ch);

/* The transport's send (rm_transport_ops.send). */
unsigned int ux_send(lca_actor_id_t from, lca_actor_id_t to, struct lca_msg **msgs,
		     unsigned int n, int *err);

/* Give UCX every closed buffer of @p ch it does not have yet. */
void ux_send_closed(struct ux_chan *ch);

/* ---- lca_remote_ucx_rx.c: what arrives, in order, to its actors ---- */

/* The poll hook's work for the large lane of @p ch. */
unsigned int ux_big_poll(struct ux_chan *ch);

/* Let go of the kept descriptor of the large message arriving on @p ch:
 * ours is freed, UCX's released. */
void ux_big_rx_desc_release(struct ux_chan *ch);

/* Deliver the buffers of @p ch that are next in order; stop at a full
 * mailbox. */
unsigned int ux_drain(struct ux_chan *ch);

/* Tell the peer of @p ch what was delivered, on its reply endpoint. */
void ux_send_credit(struct ux_chan *ch);

/* Mark @p ch as having buffers to deliver (the poll hook delivers them),
 * or not. */
void ux_set_pending(struct ux_chan *ch, bool pending);

/* Let go of received buffer @p s of @p ch: UCX's data back to UCX, or the
 * copy freed. */
void ux_rx_release(struct ux_chan *ch, struct ux_rx *s);

/* The worker's active-message handlers: a buffer, a hello, a credit, a
 * large message, a large message's credit. Their arg is the lcore. */
ucs_status_t ux_am_data(void *arg, const void *header, size_t hlen, void *data, size_t len,
			const ucp_am_recv_param_t *param);
ucs_status_t ux_am_hello(void *arg, const void *header, size_t hlen, void *data, size_t len,
			 const ucp_am_recv_param_t *param);
ucs_status_t ux_am_credit(void *arg, const void *header, size_t hlen, void *data, size_t len,
			  const ucp_am_recv_param_t *param);
/* UX_AM_LEAVE: the peer stops (its current session's header, no data). */
ucs_status_t ux_am_leave(void *arg, const void *header, size_t hlen, void *data, size_t len,
			 const ucp_am_recv_param_t *param);
ucs_status_t ux_am_large(void *arg, const void *header, size_t hlen, void *data, size_t len,
			 const ucp_am_recv_param_t *param);
ucs_status_t ux_am_large_credit(void *arg, const void *header, size_t hlen, void *data, size_t len,
				const ucp_am_recv_param_t *param);

/* ---- lca_remote_ucx_conn.c: endpoints and connections ---- */

/* Make the endpoint of @p ch to its peer lcore's listener, and say hello. */
void ux_client_connect(struct ux_chan *ch);

/* Close every endpoint of every lcore, progressing all the workers. */
void ux_close_all(void);

/* One progress of every lcore's worker, from a thread while the lcores are
 * stopped: a request may wait for another worker of this process (the peer
 * of a loopback, or its other end). */
void ux_progress_all(void);

/* Close @p ep (a flush close), progressing @p worker until it is done. */
void ux_ep_close(ucp_worker_h worker, ucp_ep_h ep);

/* Retire @p ep of @p ul, which failed: closed by ux_ep_reap() once dead_ms
 * passed (the oldest at once when UX_RETIRED_EPS are waiting). */
void ux_ep_retire(struct ux_lcore *ul, ucp_ep_h ep, uint64_t now);

/* Close the retired endpoints of @p ul older than dead_ms (all: @p now
 * UINT64_MAX). */
void ux_ep_reap(struct ux_lcore *ul, uint64_t now);

/* The listener's handler: a peer lcore's endpoint into a free server slot. */
void ux_on_connect(ucp_conn_request_h req, void *arg);

/* A hello on the endpoint of @p ch: the first message on a new endpoint
 * (the answer, a credit, says the channel is up), and the heartbeat. */
void ux_send_hello(struct ux_chan *ch);

/* @p ipv4 (host order) and @p port as a sockaddr. */
void ux_sockaddr_of(struct sockaddr_in *sa, uint32_t ipv4, unsigned int port);

#endif /* LCA_REMOTE_UCX_PRIV_H */
