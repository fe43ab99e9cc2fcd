/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The UCX transport: the remote part's channels over UCP active messages.
 *
 * Each runtime lcore has its own UCP worker, progressed from its loop hook
 * without blocking, and a listener on TCP port udp_base + lcore of this
 * node's ipv4, for UCX's sockaddr connection setup. A channel (this lcore
 * to one lcore of a peer) packs records into buffers of rm.frame_cap bytes,
 * as the ethdev transport packs frames (the same record format,
 * docs/wire.md); the end hook closes the open buffer once per loop and
 * sends it as one active message.
 *
 * UCX delivers and retransmits. lcactor numbers the buffers, so that the
 * receiver delivers them in order whatever lanes UCX picks, and returns
 * credits: a receiver whose mailbox is full holds the channel, the sender
 * sees -ENOBUFS, and nothing piles up without bound or is dropped.
 *
 * Connection: the client end of each channel sends a hello on its endpoint;
 * the listener's side answers with a credit on the endpoint UCX gives for
 * replies, which says the channel is up. Until then closed buffers wait.
 * An endpoint that fails before the channel is up is made again until
 * connect_ms passes; one that fails after it declares the peer dead, as
 * does a peer not heard from for dead_ms (a quiet channel sends a hello
 * every heartbeat_ms, which the peer answers).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "lca_eal.h"
#include "lca_lcore.h"
#include "lca_remote_priv.h"
#include "lca_remote_record.h"

#include <ucp/api/ucp.h>

enum { UX_AM_DATA = 21, UX_AM_HELLO = 22, UX_AM_CREDIT = 23, UX_AM_LARGE = 24,
       UX_AM_LARGE_CREDIT = 25 };

#define UX_RETRY_MS 20
#define UX_RETRY_MAX_MS 640
#define UX_CHECK_US 1000
#define UX_SERVER_EPS 256
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
} __rte_packed; /* UCX hands headers at any alignment */

/* The header of a large message (UX_AM_LARGE): the buffer header, whose
 * seq numbers the lane's messages, then the record's fields; the payload
 * is the active message's data (rendezvous, UCX's choice). */
struct ux_large_hdr {
	struct ux_hdr h;
	uint32_t to;
	uint32_t from;
	uint32_t type;
	uint32_t len;
} __rte_packed;

/* A closed buffer, kept until the peer's credit says it was delivered. */
struct ux_tx {
	struct ux_hdr hdr; /* UCX may read it until the send completes */
	uint32_t len;
	bool busy;         /* UCX still holds the buffer */
};

/* A buffer that arrived ahead of its turn, or whose delivery waits. */
struct ux_rx {
	uint8_t *buf;      /* a copy (malloc); NULL: none */
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
	bool dirty;
	bool blocked;
	bool cleaned;
	ucs_status_t fail_status;
	uint64_t retry_tsc; /* when to make ep again; 0: not waiting */
	uint64_t retry;     /* the wait before that, doubled each time */
	uint64_t last_rx_tsc; /* anything from the peer lcore */
	uint64_t last_tx_tsc; /* anything on ep */
	uint32_t peer_session; /* 0: not heard yet */
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
	uint16_t head_i;    /* records of buffer rcv_next delivered */
	uint32_t head_off;
	struct ux_rx *rx;
	bool need_credit;
	struct ux_hdr hello;
	struct ux_hdr credit;
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
	struct ux_hdr big_credit;
	struct lca_remote_link_stats st;
};

struct ux_server_ep {
	ucp_ep_h ep;
	bool failed;
};

struct ux_lcore {
	unsigned int lcore;
	ucp_worker_h worker;
	ucp_listener_h listener;
	unsigned int n_chan;
	struct ux_chan *chan;   /* rm.peers[p].chan_base + k: lcore k of peer p */
	unsigned int n_dirty;
	struct ux_chan **dirty;
	unsigned int n_blocked;
	unsigned int n_big;     /* channels with a large message, either way */
	uint64_t next_check;
	unsigned int n_server;
	struct ux_server_ep server[UX_SERVER_EPS];
	struct rm_spare spare;
};

static struct {
	ucp_context_h ctx;
	struct rte_mempool *pool; /* mbufs for records that arrive as mbufs */
	struct ux_lcore *lc[RTE_MAX_LCORE];
	uint64_t retry, retry_max;
	bool stopping;            /* callbacks during the closes do nothing */
} ux;

static inline uint8_t *
tx_buf(const struct ux_chan *ch, uint32_t seq)
{
	return ch->arena + (size_t)(seq & (rm.window - 1)) * rm.frame_cap;
}

static inline void
mark_dirty(struct ux_chan *ch)
{
	if (!ch->dirty) {
		ch->dirty = true;
		ch->ul->dirty[ch->ul->n_dirty++] = ch;
	}
}

static void
hdr_fill(struct ux_hdr *h, const struct ux_chan *ch, uint32_t seq, uint16_t n_msgs)
{
	h->src_node = rte_cpu_to_be_16(rm.self.id);
	h->src_lcore = rte_cpu_to_be_16((uint16_t)ch->ul->lcore);
	h->dst_lcore = rte_cpu_to_be_16(ch->peer_lcore);
	h->n_msgs = rte_cpu_to_be_16(n_msgs);
	h->seq = rte_cpu_to_be_32(seq);
	h->session = rte_cpu_to_be_32(rm.session);
}

static void
in_flight_set(struct ux_chan *ch)
{
	__atomic_store_n(&ch->st.in_flight, (uint64_t)(ch->sent_seq - ch->acked),
			 __ATOMIC_RELAXED);
}

/* ---- TX ---- */

static void
send_done(void *request, ucs_status_t status, void *user_data)
{
	struct ux_tx *t = user_data;

	(void)status; /* a failure reaches the endpoint's error handler */
	if (t != NULL)
		t->busy = false;
	ucp_request_free(request);
}

/* Send header @p h (and @p len bytes at @p buf) as active message @p id;
 * @p t, when given, is busy until UCX lets go of the buffer.
 * @return 0, or the endpoint's error. */
static ucs_status_t
am_send(ucp_ep_h ep, unsigned int id, const struct ux_hdr *h, const void *buf, size_t len,
	struct ux_tx *t, bool reply)
{
	ucp_request_param_t param = {
		.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
				UCP_OP_ATTR_FIELD_FLAGS,
		.flags = UCP_AM_SEND_FLAG_EAGER | (reply ? UCP_AM_SEND_FLAG_REPLY : 0),
		.cb.send = send_done,
		.user_data = t,
	};
	ucs_status_ptr_t r = ucp_am_send_nbx(ep, id, h, sizeof(*h), buf, len, &param);

	if (UCS_PTR_IS_ERR(r))
		return UCS_PTR_STATUS(r);
	if (r != NULL && t != NULL)
		t->busy = true;
	return UCS_OK;
}

/* Give UCX every closed buffer it does not have yet. */
static void
send_closed(struct ux_chan *ch)
{
	if (!ch->connected || ch->failed || ch->ep == NULL)
		return;
	while (seq_lt(ch->sent_seq + 1, ch->next_seq)) {
		uint32_t seq = ch->sent_seq + 1;
		struct ux_tx *t = &ch->tx[seq & (rm.window - 1)];

		ucs_status_t st = am_send(ch->ep, UX_AM_DATA, &t->hdr, tx_buf(ch, seq), t->len, t,
					  true);

		if (st != UCS_OK) {
			ch->failed = true;
			ch->fail_status = st;
			break;
		}
		ch->sent_seq = seq;
		ch->last_tx_tsc = rte_rdtsc();
		rm_count(&ch->st.frames_sent, 1);
	}
	in_flight_set(ch);
}

static void
buf_close(struct ux_chan *ch)
{
	struct ux_tx *t = &ch->tx[ch->next_seq & (rm.window - 1)];

	hdr_fill(&t->hdr, ch, ch->next_seq, ch->open_n);
	t->len = ch->open_off;
	ch->next_seq++;
	ch->open_n = 0;
	ch->open_off = 0;
	send_closed(ch);
}

/* Copy @p msg into the open buffer of @p ch. */
static int
ux_put(struct ux_chan *ch, lca_actor_id_t from, lca_actor_id_t to, const struct lca_msg *msg)
{
	int64_t plen = rm_payload_len(msg, to);
	uint32_t rlen;

	if (unlikely(plen < 0))
		return (int)plen;
	rlen = wire_rec_len((uint32_t)plen);
	if (unlikely(rlen > rm.frame_cap))
		return -EMSGSIZE;
	if (ch->open_n > 0 && ch->open_off + rlen > rm.frame_cap)
		buf_close(ch);
	if (ch->open_n == 0 &&
	    (ch->next_seq - ch->acked > rm.window || ch->tx[ch->next_seq & (rm.window - 1)].busy)) {
		rm_count(&ch->st.no_credit, 1);
		return -ENOBUFS;
	}
	ch->open_off += wire_rec_write(tx_buf(ch, ch->next_seq) + ch->open_off,
				       lca_remote_local(to), rm_wire_from(from), msg);
	ch->open_n++;
	rm_count(&ch->st.msgs_sent, 1);
	mark_dirty(ch);
	return 0;
}

/* ---- the large lane ---- */

static void big_release(struct ux_chan *ch);

static void
big_sent(void *request, ucs_status_t status, void *user_data)
{
	struct ux_chan *ch = user_data;

	(void)status; /* a failure reaches the endpoint's error handler */
	ch->big_busy = false;
	ucp_request_free(request);
	big_release(ch);
}

/* Let go of the large message sent: the peer delivered it (or is dead) and
 * UCX no longer reads its mbufs. */
static void
big_release(struct ux_chan *ch)
{
	if (ch->big == NULL || ch->big_busy || !(ch->big_acked || ch->cleaned))
		return;
	lca_msg_free(ch->big); /* and its mbufs */
	free(ch->big_iov);
	ch->big = NULL;
	ch->big_iov = NULL;
	ch->ul->n_big--;
}

/* A message larger than a buffer: an active message of its own, the
 * mbuf's segments given to UCX as they are (no copy; UCX picks eager or
 * rendezvous), one at a time a channel, kept until the peer's credit. */
static int
big_put(struct ux_chan *ch, lca_actor_id_t from, lca_actor_id_t to, struct lca_msg *msg)
{
	const struct rte_mbuf *mb = msg->ptr;
	ucp_request_param_t param = {
		.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
				UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_DATATYPE,
		.flags = UCP_AM_SEND_FLAG_REPLY,
		.cb.send = big_sent,
		.user_data = ch,
		.datatype = ucp_dt_make_iov(),
	};
	ucs_status_ptr_t r;
	ucp_dt_iov_t *iov;
	unsigned int k = 0;

	if (mb->pkt_len > UX_LARGE_MAX)
		return -EMSGSIZE;
	if (ch->big != NULL || !ch->connected || ch->failed || ch->ep == NULL) {
		rm_count(&ch->st.no_credit, 1);
		return -ENOBUFS;
	}
	iov = malloc(sizeof(*iov) * mb->nb_segs);
	if (iov == NULL)
		return -ENOMEM;
	for (const struct rte_mbuf *seg = mb; seg != NULL; seg = seg->next)
		if (seg->data_len > 0)
			iov[k++] = (ucp_dt_iov_t){ .buffer = rte_pktmbuf_mtod(seg, void *),
						   .length = seg->data_len };
	hdr_fill(&ch->big_hdr.h, ch, ch->big_seq + 1, 1);
	ch->big_hdr.to = rte_cpu_to_be_32(lca_remote_local(to));
	ch->big_hdr.from = rte_cpu_to_be_32(rm_wire_from(from));
	ch->big_hdr.type = rte_cpu_to_be_32(msg->type);
	ch->big_hdr.len = rte_cpu_to_be_32(mb->pkt_len);
	r = ucp_am_send_nbx(ch->ep, UX_AM_LARGE, &ch->big_hdr, sizeof(ch->big_hdr), iov, k,
			    &param);
	if (UCS_PTR_IS_ERR(r)) {
		free(iov);
		ch->failed = true;
		ch->fail_status = UCS_PTR_STATUS(r);
		return -ENOBUFS; /* -EHOSTDOWN once the check declares it dead */
	}
	lca_msg_keep(msg);
	ch->big = msg;
	ch->big_iov = iov;
	ch->big_busy = r != NULL;
	ch->big_acked = false;
	ch->big_seq++;
	ch->last_tx_tsc = rte_rdtsc();
	ch->ul->n_big++;
	rm_count(&ch->st.msgs_sent, 1);
	return 0;
}

static inline bool
is_large(const struct lca_msg *m)
{
	return (m->flags & LCA_MSG_F_MBUF) &&
	       wire_rec_len(((const struct rte_mbuf *)m->ptr)->pkt_len) > rm.frame_cap;
}

static unsigned int
ux_send(unsigned int lcore, unsigned int peer, lca_actor_id_t from, lca_actor_id_t to,
	    struct lca_msg **msgs, unsigned int n, int *why)
{
	struct ux_lcore *ul = lcore < RTE_MAX_LCORE ? ux.lc[lcore] : NULL;
	const struct rm_peer *pe = &rm.peers[peer];
	struct ux_chan *ch;
	unsigned int sent = 0, freed = 0;

	if (ul == NULL) {
		*why = -EPERM;
		return 0;
	}
	ch = &ul->chan[pe->chan_base + lca_remote_local(to) % pe->n.n_lcores];
	for (; sent < n; sent++) {
		if (unlikely(msgs[sent] == NULL)) {
			*why = -EINVAL;
			break;
		}
		if (unlikely(is_large(msgs[sent]))) {
			/* The lane keeps it until the peer has it. */
			lca_msg_free_bulk(msgs + freed, sent - freed);
			freed = sent + 1;
			*why = big_put(ch, from, to, msgs[sent]);
			if (*why != 0) {
				freed = sent;
				break;
			}
			continue;
		}
		*why = ux_put(ch, from, to, msgs[sent]);
		if (*why != 0)
			break;
	}
	/* The bytes are in the buffer: the envelopes are the runtime's. */
	lca_msg_free_bulk(msgs + freed, sent - freed);
	return sent;
}

/* ---- RX ---- */

static void
set_blocked(struct ux_chan *ch, bool blocked)
{
	if (blocked == ch->blocked)
		return;
	ch->blocked = blocked;
	if (blocked) {
		ch->ul->n_blocked++;
		rm_count(&ch->st.held, 1);
	} else {
		ch->ul->n_blocked--;
	}
}

/* Deliver the records of buffer rcv_next from head_i on.
 * @return true when all are delivered; false when a mailbox is full. */
static bool
deliver_buf(struct ux_chan *ch, const uint8_t *buf, uint16_t n_msgs)
{
	while (ch->head_i < n_msgs) {
		const struct wire_msg *r = (const struct wire_msg *)(buf + ch->head_off);

		/* UCX's buffer is lent: payloads are copied, never shared. */
		if (rm_rec_deliver(r, &ch->ul->spare, NULL, 0, &ch->st) != 0)
			return false;
		ch->head_i++;
		ch->head_off += wire_rec_len(rte_be_to_cpu_16(r->len));
	}
	return true;
}

static void
advance(struct ux_chan *ch)
{
	ch->rcv_next++;
	ch->head_i = 0;
	ch->head_off = 0;
	ch->need_credit = true;
	mark_dirty(ch);
}

/* Deliver the buffers kept in order, from rcv_next on. */
static unsigned int
drain(struct ux_chan *ch)
{
	unsigned int done = 0;

	for (;;) {
		struct ux_rx *s = &ch->rx[ch->rcv_next & (rm.window - 1)];

		if (s->buf == NULL)
			break;
		if (!deliver_buf(ch, s->buf, s->n_msgs)) {
			set_blocked(ch, true);
			return done;
		}
		free(s->buf);
		s->buf = NULL;
		advance(ch);
		done++;
	}
	set_blocked(ch, false);
	return done;
}

/* The channel an active message's header names, on this lcore. */
static struct ux_chan *
chan_of_hdr(struct ux_lcore *ul, const void *header, size_t hlen)
{
	const struct ux_hdr *h = header;
	unsigned int node, lcore;
	const struct rm_peer *pe;
	int p;

	if (unlikely(ux.stopping))
		return NULL;
	if (hlen != sizeof(*h) || rte_be_to_cpu_16(h->dst_lcore) != ul->lcore) {
		rm_count_shared(&rm.st.malformed, 1);
		return NULL;
	}
	node = rte_be_to_cpu_16(h->src_node);
	lcore = rte_be_to_cpu_16(h->src_lcore);
	p = node < LCA_REMOTE_NODE_MAX ? rm.peer_of_node[node] : -1;
	if (p < 0) {
		rm_count_shared(&rm.st.unknown_peer, 1);
		return NULL;
	}
	pe = &rm.peers[p];
	for (unsigned int k = 0; k < pe->n.n_lcores; k++) {
		struct ux_chan *ch = &ul->chan[pe->chan_base + k];
		uint32_t session = rte_be_to_cpu_32(h->session);

		if (pe->n.lcores[k] != lcore)
			continue;
		if (ch->peer_session == 0) {
			ch->peer_session = session;
		} else if (ch->peer_session != session) {
			/* It restarted: what it had of ours is gone. */
			rm_peer_dead((unsigned int)p, "restarted (new session)");
			return NULL;
		}
		ch->last_rx_tsc = rte_rdtsc(); /* anything from it says it lives */
		return ch;
	}
	rm_count_shared(&rm.st.unknown_peer, 1);
	return NULL;
}

static ucs_status_t
am_data(void *arg, const void *header, size_t hlen, void *data, size_t len,
	const ucp_am_recv_param_t *param)
{
	struct ux_chan *ch = chan_of_hdr(arg, header, hlen);
	const struct ux_hdr *h = header;
	struct ux_rx *s;
	uint32_t seq;
	uint16_t n;

	if (ch == NULL || ch->cleaned)
		return UCS_OK;
	if (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP)
		ch->reply_ep = param->reply_ep;
	n = rte_be_to_cpu_16(h->n_msgs);
	seq = rte_be_to_cpu_32(h->seq);
	/* Sent eager, so never a rendezvous; a buffer that checks out. */
	if ((param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) || n == 0 ||
	    len > rm.frame_cap || wire_records_check(data, (uint32_t)len, n, false) != 0) {
		rm_count_shared(&rm.st.malformed, 1);
		return UCS_OK;
	}
	if (seq_lt(seq, ch->rcv_next) || ch->rx[seq & (rm.window - 1)].buf != NULL) {
		rm_count(&ch->st.duplicates, 1);
		return UCS_OK;
	}
	if (seq - ch->rcv_next >= rm.window) {
		rm_count(&ch->st.out_of_window, 1);
		return UCS_OK;
	}
	rm_count(&ch->st.frames_rx, 1);
	if (seq == ch->rcv_next) {
		if (deliver_buf(ch, data, n)) {
			advance(ch);
			if (ch->rx[ch->rcv_next & (rm.window - 1)].buf != NULL)
				drain(ch);
			return UCS_OK;
		}
		set_blocked(ch, true);
	} else {
		rm_count(&ch->st.reordered, 1);
	}
	/* Not all of it can be delivered now: keep a copy (UCX's buffer is
	 * only ours during this call). */
	s = &ch->rx[seq & (rm.window - 1)];
	s->buf = malloc(len);
	if (s->buf == NULL) {
		/* Cannot happen within the window's few MiB; say so if it does. */
		LCA_LOG(ERR, "remote ucx: no memory for a %zu-byte buffer from node %u\n", len,
			rm.peers[ch->peer].n.id);
		rm_peer_dead(ch->peer, "out of memory for received buffers");
		return UCS_OK;
	}
	memcpy(s->buf, data, len);
	s->len = (uint32_t)len;
	s->n_msgs = n;
	return UCS_OK;
}

/* A large message that cannot be delivered (a transfer that broke):
 * counted, and the lane moves on so that the sender's next one is taken. */
static void
big_rx_drop(struct ux_chan *ch)
{
	rm_count(&ch->st.undeliverable, 1);
	ch->big_rx_seq++;
	ch->need_big_credit = true;
	mark_dirty(ch);
}

/* Let go of a kept descriptor: ours is freed, UCX's released. */
static void
big_rx_desc_release(struct ux_chan *ch)
{
	if (ch->big_rx_desc == NULL)
		return;
	if (ch->big_rx_owned)
		free(ch->big_rx_desc);
	else
		ucp_am_data_release(ch->ul->worker, ch->big_rx_desc);
	ch->big_rx_desc = NULL;
	ch->big_rx_owned = false;
}

static void
big_received(void *request, ucs_status_t status, size_t length, void *user_data)
{
	struct ux_chan *ch = user_data;

	ch->big_rx_pending = false;
	if (status == UCS_OK && length == ch->big_rx->pkt_len) {
		ch->big_rx_ready = true;
	} else {
		/* The transfer broke (the peer failing: the check will say). */
		rte_pktmbuf_free(ch->big_rx);
		ch->big_rx = NULL;
		ch->ul->n_big--;
		big_rx_drop(ch);
	}
	free(ch->big_rx_iov);
	ch->big_rx_iov = NULL;
	ucp_request_free(request);
}

/* Put the large message UCX announced (its data, or a rendezvous
 * descriptor) into an mbuf chain. @return false when no chain is free now:
 * the descriptor is kept and this is tried again from the poll hook. */
static bool
big_rx_start(struct ux_chan *ch, void *data, size_t len, bool rndv)
{
	/* Eager data are copied in now; a rendezvous fills the chain later. */
	struct rte_mbuf *m = rm_mbuf_copy(&ch->ul->spare, rndv ? NULL : data, (uint32_t)len);
	unsigned int k = 0;

	if (m == NULL) {
		rm_count_shared(&rm.st.no_mbuf, 1);
		return false;
	}
	ch->big_rx = m;
	ch->big_rx_desc = NULL;
	if (!rndv) {
		ch->big_rx_ready = true;
		return true;
	}
	ch->big_rx_iov = malloc(sizeof(*ch->big_rx_iov) * m->nb_segs);
	if (ch->big_rx_iov == NULL) {
		rte_pktmbuf_free(m);
		ch->big_rx = NULL;
		return false;
	}
	for (struct rte_mbuf *seg = m; seg != NULL; seg = seg->next)
		ch->big_rx_iov[k++] = (ucp_dt_iov_t){ .buffer = rte_pktmbuf_mtod(seg, void *),
						      .length = seg->data_len };
	{
		ucp_request_param_t p = {
			.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
					UCP_OP_ATTR_FIELD_DATATYPE,
			.cb.recv_am = big_received,
			.user_data = ch,
			.datatype = ucp_dt_make_iov(),
		};
		ucs_status_ptr_t r = ucp_am_recv_data_nbx(ch->ul->worker, data, ch->big_rx_iov, k,
							  &p);

		if (UCS_PTR_IS_ERR(r)) {
			rte_pktmbuf_free(m);
			free(ch->big_rx_iov);
			ch->big_rx_iov = NULL;
			ch->big_rx = NULL;
			ch->ul->n_big--;
			big_rx_drop(ch);
			return true;
		}
		if (r == NULL) {
			free(ch->big_rx_iov);
			ch->big_rx_iov = NULL;
			ch->big_rx_ready = true;
		} else {
			ch->big_rx_pending = true;
		}
	}
	return true;
}

/* Give the large message that arrived to its actor; a full mailbox keeps
 * it for the poll hook. @return 1 when delivered (or counted). */
static unsigned int
big_deliver(struct ux_chan *ch)
{
	struct wire_msg r = {
		.to = ch->big_rx_hdr.to,
		.from = ch->big_rx_hdr.from,
		.type = ch->big_rx_hdr.type,
	};
	struct lca_msg *e;
	int ret;

	if (!ch->big_rx_ready || lca_msg_alloc(&e) != 0)
		return 0;
	e->ptr = ch->big_rx;
	e->flags |= LCA_MSG_F_MBUF;
	ret = rm_rec_send(&r, e);
	if (ret == -ENOBUFS || ret == -ENOMEM) {
		e->ptr = NULL;
		e->flags &= (uint8_t)~LCA_MSG_F_MBUF;
		lca_msg_free(e);
		return 0;
	}
	if (ret != 0) {
		lca_msg_free(e); /* and the chain */
		rm_count(&ch->st.undeliverable, 1);
	} else {
		rm_count(&ch->st.msgs_delivered, 1);
	}
	ch->big_rx = NULL;
	ch->big_rx_ready = false;
	ch->big_rx_seq++;
	ch->ul->n_big--;
	ch->need_big_credit = true;
	mark_dirty(ch);
	return 1;
}

static ucs_status_t
am_large(void *arg, const void *header, size_t hlen, void *data, size_t len,
	 const ucp_am_recv_param_t *param)
{
	const struct ux_large_hdr *lh = header;
	struct ux_chan *ch;
	bool rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;

	if (hlen != sizeof(*lh)) {
		rm_count_shared(&rm.st.malformed, 1);
		return UCS_OK;
	}
	ch = chan_of_hdr(arg, &lh->h, sizeof(lh->h));
	if (ch == NULL || ch->cleaned)
		return UCS_OK;
	if (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP)
		ch->reply_ep = param->reply_ep;
	/* One at a time, in order, of the length it says, within the lane's
	 * limit: anything else is a broken sender. */
	if (rte_be_to_cpu_32(lh->h.seq) != ch->big_rx_seq + 1 || ch->big_rx != NULL ||
	    ch->big_rx_desc != NULL || len != rte_be_to_cpu_32(lh->len) ||
	    wire_rec_len((uint32_t)RTE_MIN(len, (size_t)UX_LARGE_MAX)) <= rm.frame_cap ||
	    len > UX_LARGE_MAX) {
		rm_count_shared(&rm.st.malformed, 1);
		return UCS_OK;
	}
	rm_count(&ch->st.frames_rx, 1);
	ch->big_rx_hdr = *lh;
	ch->ul->n_big++;
	if (big_rx_start(ch, data, len, rndv)) {
		big_deliver(ch);
		return UCS_OK;
	}
	/* No chain free now: keep UCX's descriptor (or, for bytes only lent
	 * during this call, a copy) and come back from the poll hook. */
	ch->big_rx_rndv = rndv;
	if (rndv || (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_DATA)) {
		ch->big_rx_desc = data;
		ch->big_rx_owned = false;
		return UCS_INPROGRESS;
	}
	ch->big_rx_desc = malloc(len);
	if (ch->big_rx_desc != NULL) {
		memcpy(ch->big_rx_desc, data, len);
		ch->big_rx_owned = true;
		return UCS_OK;
	}
	ch->ul->n_big--;
	big_rx_drop(ch);
	return UCS_OK;
}

static ucs_status_t
am_large_credit(void *arg, const void *header, size_t hlen, void *data, size_t len,
		const ucp_am_recv_param_t *param)
{
	struct ux_chan *ch = chan_of_hdr(arg, header, hlen);

	(void)data;
	(void)len;
	(void)param;
	if (ch == NULL || ch->cleaned)
		return UCS_OK;
	if (ch->big != NULL && rte_be_to_cpu_32(((const struct ux_hdr *)header)->seq) == ch->big_seq) {
		ch->big_acked = true;
		big_release(ch);
	}
	return UCS_OK;
}

/* The poll hook's work for the large lane. */
static unsigned int
big_poll(struct ux_chan *ch)
{
	if (ch->big != NULL)
		big_release(ch);
	if (ch->big_rx_desc != NULL) {
		void *desc = ch->big_rx_desc;
		bool owned = ch->big_rx_owned;

		if (!big_rx_start(ch, desc, rte_be_to_cpu_32(ch->big_rx_hdr.len), ch->big_rx_rndv)) {
			ch->big_rx_desc = desc; /* still waiting */
			return 0;
		}
		/* A rendezvous descriptor was consumed by the receive. */
		if (owned)
			free(desc);
		else if (!ch->big_rx_rndv)
			ucp_am_data_release(ch->ul->worker, desc);
		ch->big_rx_owned = false;
	}
	return big_deliver(ch);
}

static void
send_credit(struct ux_chan *ch)
{
	if (ch->reply_ep == NULL)
		return;
	hdr_fill(&ch->credit, ch, ch->rcv_next - 1, 0);
	if (am_send(ch->reply_ep, UX_AM_CREDIT, &ch->credit, NULL, 0, NULL, false) == UCS_OK) {
		ch->need_credit = false;
		rm_count(&ch->st.acks_sent, 1);
	}
}

static ucs_status_t
am_hello(void *arg, const void *header, size_t hlen, void *data, size_t len,
	 const ucp_am_recv_param_t *param)
{
	struct ux_chan *ch = chan_of_hdr(arg, header, hlen);

	(void)data;
	(void)len;
	if (ch == NULL || ch->cleaned)
		return UCS_OK;
	if (!(param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP)) {
		rm_count_shared(&rm.st.malformed, 1);
		return UCS_OK;
	}
	ch->reply_ep = param->reply_ep;
	send_credit(ch);
	return UCS_OK;
}

static ucs_status_t
am_credit(void *arg, const void *header, size_t hlen, void *data, size_t len,
	  const ucp_am_recv_param_t *param)
{
	struct ux_chan *ch = chan_of_hdr(arg, header, hlen);
	uint32_t seq;

	(void)data;
	(void)len;
	(void)param;
	if (ch == NULL || ch->cleaned)
		return UCS_OK;
	seq = rte_be_to_cpu_32(((const struct ux_hdr *)header)->seq);
	if (!ch->connected) {
		ch->connected = true;
		__atomic_store_n(&ch->st.connected, 1, __ATOMIC_RELAXED);
		mark_dirty(ch); /* what waited for the connection goes now */
	}
	if (seq_lt(ch->acked, seq) && seq_le(seq, ch->sent_seq)) {
		ch->acked = seq;
		in_flight_set(ch);
	}
	return UCS_OK;
}

/* ---- connections ---- */

static void
client_failed(void *arg, ucp_ep_h ep, ucs_status_t status)
{
	struct ux_chan *ch = arg;

	(void)ep;
	ch->failed = true;
	ch->fail_status = status;
}

static void
server_failed(void *arg, ucp_ep_h ep, ucs_status_t status)
{
	struct ux_server_ep *s = arg;

	(void)ep;
	(void)status;
	s->failed = true;
}

static void
ep_close(ucp_worker_h worker, ucp_ep_h ep)
{
	/* A flush close: UCX allows a forced one only in its PEER error mode,
	 * which this transport does not use (client_connect()). */
	ucp_request_param_t param = { .op_attr_mask = 0 };
	ucs_status_ptr_t r = ucp_ep_close_nbx(ep, &param);

	if (r == NULL || UCS_PTR_IS_ERR(r))
		return;
	for (unsigned int i = 0;
	     i < UX_CLOSE_SPINS && ucp_request_check_status(r) == UCS_INPROGRESS; i++)
		ucp_worker_progress(worker);
	ucp_request_free(r);
}

static void
on_connect(ucp_conn_request_h req, void *arg)
{
	struct ux_lcore *ul = arg;
	struct ux_server_ep *s;
	ucp_ep_params_t p = {
		.field_mask = UCP_EP_PARAM_FIELD_CONN_REQUEST | UCP_EP_PARAM_FIELD_ERR_HANDLER |
			      UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE,
		.conn_request = req,
		.err_mode = UCP_ERR_HANDLING_MODE_NONE, /* see client_connect() */
	};

	unsigned int i = 0;

	/* A slot a closed connection left, else a new one. */
	while (i < ul->n_server && ul->server[i].ep != NULL)
		i++;
	if (i == UX_SERVER_EPS) {
		LCA_LOG(ERR, "remote ucx: lcore %u has %u connections already: one refused\n",
			ul->lcore, UX_SERVER_EPS);
		ucp_listener_reject(ul->listener, req);
		return;
	}
	s = &ul->server[i];
	s->failed = false;
	p.err_handler.cb = server_failed;
	p.err_handler.arg = s;
	if (ucp_ep_create(ul->worker, &p, &s->ep) != UCS_OK)
		s->ep = NULL;
	else if (i == ul->n_server)
		ul->n_server++;
}

static void
sockaddr_of(struct sockaddr_in *sa, uint32_t ipv4, unsigned int port)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	sa->sin_addr.s_addr = htonl(ipv4);
}

/* A hello: the first message on a new endpoint (the peer answers with a
 * credit, which says the channel is up), and the heartbeat of a quiet one. */
static void
send_hello(struct ux_chan *ch)
{
	ucs_status_t st;

	hdr_fill(&ch->hello, ch, 0, 0);
	st = am_send(ch->ep, UX_AM_HELLO, &ch->hello, NULL, 0, NULL, true);
	if (st != UCS_OK) {
		ch->failed = true;
		ch->fail_status = st;
	}
	ch->last_tx_tsc = rte_rdtsc();
	rm_count(&ch->st.acks_sent, 1);
}

static void
client_connect(struct ux_chan *ch)
{
	const struct rm_peer *pe = &rm.peers[ch->peer];
	struct sockaddr_in sa;
	ucp_ep_params_t p = {
		.field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR |
			      UCP_EP_PARAM_FIELD_ERR_HANDLER | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE,
		.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER,
		/* Not PEER: UCX 1.13 then leaves out every transport without peer
		 * failure detection, shared memory included (10 us round trips
		 * over tcp instead of 1 us). Errors still reach the handler;
		 * heartbeats and dead_ms find a peer that went quiet. */
		.err_mode = UCP_ERR_HANDLING_MODE_NONE,
		.sockaddr = { .addr = (const struct sockaddr *)&sa, .addrlen = sizeof(sa) },
	};
	ucs_status_t st;

	sockaddr_of(&sa, pe->n.ipv4, (unsigned int)pe->n.udp_base + ch->peer_lcore);
	p.err_handler.cb = client_failed;
	p.err_handler.arg = ch;
	ch->failed = false;
	ch->retry_tsc = 0;
	st = ucp_ep_create(ch->ul->worker, &p, &ch->ep);
	if (st != UCS_OK) {
		ch->ep = NULL;
		ch->failed = true;
		ch->fail_status = st;
		return;
	}
	send_hello(ch);
}

/* Free what a channel of a dead peer holds; count what was not delivered. */
static void
chan_clean(struct ux_chan *ch)
{
	uint64_t lost = ch->open_n;

	for (uint32_t s = ch->acked + 1; seq_lt(s, ch->next_seq); s++)
		lost += rte_be_to_cpu_16(ch->tx[s & (rm.window - 1)].hdr.n_msgs);
	for (unsigned int i = 0; i < rm.window; i++) {
		free(ch->rx[i].buf);
		ch->rx[i].buf = NULL;
	}
	set_blocked(ch, false);
	if (ch->big != NULL && !ch->big_acked)
		lost++;
	if (ch->big_rx != NULL && !ch->big_rx_pending) {
		/* One UCX still writes into is freed at the stop, after the
		 * worker is gone. */
		rte_pktmbuf_free(ch->big_rx);
		ch->big_rx = NULL;
		ch->big_rx_ready = false;
		ch->ul->n_big--;
	}
	if (ch->big_rx_desc != NULL) {
		big_rx_desc_release(ch);
		ch->ul->n_big--;
	}
	ch->open_n = 0;
	ch->acked = ch->sent_seq = ch->next_seq - 1;
	rm_count(&ch->st.lost_on_dead, lost);
	in_flight_set(ch);
	__atomic_store_n(&ch->st.dead, 1, __ATOMIC_RELAXED);
	ch->cleaned = true;
	big_release(ch); /* now, or when UCX lets go of it */
}

/* The slow path of the poll hook: failed endpoints, connection timeouts,
 * dead peers. */
static unsigned int
check(struct ux_lcore *ul, uint64_t now)
{
	unsigned int work = 0;

	for (unsigned int i = 0; i < ul->n_server; i++) {
		struct ux_server_ep *s = &ul->server[i];

		if (!s->failed || s->ep == NULL)
			continue;
		for (unsigned int c = 0; c < ul->n_chan; c++)
			if (ul->chan[c].reply_ep == s->ep)
				ul->chan[c].reply_ep = NULL;
		ep_close(ul->worker, s->ep);
		s->ep = NULL;
		work++;
	}
	for (unsigned int c = 0; c < ul->n_chan; c++) {
		struct ux_chan *ch = &ul->chan[c];

		if (__atomic_load_n(&rm.peers[ch->peer].dead, __ATOMIC_RELAXED)) {
			if (!ch->cleaned)
				chan_clean(ch);
			continue;
		}
		if (ch->failed) {
			if (ch->ep != NULL)
				ep_close(ul->worker, ch->ep);
			ch->ep = NULL;
			ch->failed = false;
			work++;
			if (ch->connected) {
				char why[96];

				snprintf(why, sizeof(why), "UCX endpoint to its lcore %u failed: %s",
					 ch->peer_lcore, ucs_status_string(ch->fail_status));
				rm_peer_dead(ch->peer, why);
				continue;
			}
			/* UCX logs each failed attempt: back off. */
			ch->retry = ch->retry ? RTE_MIN(2 * ch->retry, ux.retry_max) : ux.retry;
			ch->retry_tsc = now + ch->retry;
		}
		if (ch->need_credit || ch->need_big_credit)
			mark_dirty(ch); /* a credit that could not go: again */
		if (ch->connected && ch->ep != NULL) {
			if (now - ch->last_rx_tsc >= rm.dead) {
				rm_peer_dead(ch->peer, "nothing heard within dead_ms");
				continue;
			}
			if (now - ch->last_tx_tsc >= rm.hb) {
				send_hello(ch);
				work++;
			}
		}
		if (!ch->connected && now - rm.start_tsc >= rm.connect) {
			rm_peer_dead(ch->peer, "not connected within connect_ms (is UCX_TLS "
					       "without tcp, which UCX's connection setup needs?)");
			continue;
		}
		if (ch->ep == NULL && ch->retry_tsc != 0 && now >= ch->retry_tsc) {
			client_connect(ch);
			work++;
		}
	}
	return work;
}

/* ---- hooks ---- */

static unsigned int
hook_poll(unsigned int lcore_id, uint64_t now, void *arg)
{
	struct ux_lcore *ul = arg;
	unsigned int work;

	(void)lcore_id;
	work = ucp_worker_progress(ul->worker);
	if (unlikely(ul->n_blocked > 0))
		for (unsigned int c = 0; c < ul->n_chan && ul->n_blocked > 0; c++)
			if (ul->chan[c].blocked)
				work += drain(&ul->chan[c]);
	if (unlikely(ul->n_big > 0))
		for (unsigned int c = 0; c < ul->n_chan; c++)
			work += big_poll(&ul->chan[c]);
	if (unlikely(now >= ul->next_check)) {
		ul->next_check = now + rte_get_tsc_hz() / (1000000 / UX_CHECK_US);
		/* Not the loop's now: the progress above may have stamped a
		 * channel after it. */
		work += check(ul, rte_rdtsc());
	}
	return work;
}

static void
hook_end(unsigned int lcore_id, void *arg)
{
	struct ux_lcore *ul = arg;

	(void)lcore_id;
	for (unsigned int i = 0; i < ul->n_dirty; i++) {
		struct ux_chan *ch = ul->dirty[i];

		ch->dirty = false;
		if (ch->cleaned)
			continue;
		if (ch->open_n > 0)
			buf_close(ch);
		else
			send_closed(ch);
		if (ch->need_credit)
			send_credit(ch);
		if (ch->need_big_credit && ch->reply_ep != NULL) {
			hdr_fill(&ch->big_credit, ch, ch->big_rx_seq, 0);
			if (am_send(ch->reply_ep, UX_AM_LARGE_CREDIT, &ch->big_credit, NULL, 0, NULL,
				    false) == UCS_OK) {
				ch->need_big_credit = false;
				rm_count(&ch->st.acks_sent, 1);
			}
		}
	}
	ul->n_dirty = 0;
}

/* ---- start and stop ---- */

static void
lcore_free(struct ux_lcore *ul)
{
	if (ul == NULL)
		return;
	for (unsigned int c = 0; c < ul->n_chan; c++) {
		struct ux_chan *ch = &ul->chan[c];

		if (ch->rx != NULL && !ch->cleaned)
			chan_clean(ch);
		if (ch->ep != NULL)
			ep_close(ul->worker, ch->ep);
		ch->ep = NULL;
	}
	for (unsigned int i = 0; i < ul->n_server; i++)
		if (ul->server[i].ep != NULL)
			ep_close(ul->worker, ul->server[i].ep);
	rm_spare_release(&ul->spare);
	if (ul->listener != NULL)
		ucp_listener_destroy(ul->listener);
	/* The worker purges what is still outstanding, and its callbacks
	 * write into the channels: free them only after it is gone. */
	if (ul->worker != NULL)
		ucp_worker_destroy(ul->worker);
	for (unsigned int c = 0; c < ul->n_chan; c++) {
		struct ux_chan *ch = &ul->chan[c];

		if (ch->big != NULL)
			lca_msg_free(ch->big);
		free(ch->big_iov);
		rte_pktmbuf_free(ch->big_rx);
		free(ch->big_rx_iov);
		rte_free(ch->arena);
		rte_free(ch->tx);
		rte_free(ch->rx);
	}
	rte_free(ul->chan);
	rte_free(ul->dirty);
	rte_free(ul);
}

static int
worker_start(struct ux_lcore *ul)
{
	static const struct {
		unsigned int id;
		ucp_am_recv_callback_t cb;
	} handlers[] = { { UX_AM_DATA, am_data },
			 { UX_AM_HELLO, am_hello },
			 { UX_AM_CREDIT, am_credit },
			 { UX_AM_LARGE, am_large },
			 { UX_AM_LARGE_CREDIT, am_large_credit } };
	ucp_worker_params_t wp = {
		.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
		/* Made here, then used by its lcore alone: never at once. */
		.thread_mode = UCS_THREAD_MODE_SERIALIZED,
	};
	struct sockaddr_in sa;
	ucp_listener_params_t lp = {
		.field_mask = UCP_LISTENER_PARAM_FIELD_SOCK_ADDR |
			      UCP_LISTENER_PARAM_FIELD_CONN_HANDLER,
		.sockaddr = { .addr = (const struct sockaddr *)&sa, .addrlen = sizeof(sa) },
		.conn_handler = { .cb = on_connect, .arg = ul },
	};
	ucs_status_t st;

	st = ucp_worker_create(ux.ctx, &wp, &ul->worker);
	if (st != UCS_OK) {
		ul->worker = NULL;
		LCA_LOG(ERR, "remote ucx: lcore %u: ucp_worker_create: %s\n", ul->lcore,
			ucs_status_string(st));
		return -ENODEV;
	}
	for (unsigned int i = 0; i < RTE_DIM(handlers); i++) {
		ucp_am_handler_param_t hp = {
			.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID |
				      UCP_AM_HANDLER_PARAM_FIELD_CB |
				      UCP_AM_HANDLER_PARAM_FIELD_ARG |
				      UCP_AM_HANDLER_PARAM_FIELD_FLAGS,
			.id = handlers[i].id,
			.cb = handlers[i].cb,
			.arg = ul,
			.flags = UCP_AM_FLAG_WHOLE_MSG,
		};

		st = ucp_worker_set_am_recv_handler(ul->worker, &hp);
		if (st != UCS_OK) {
			LCA_LOG(ERR, "remote ucx: set_am_recv_handler: %s\n",
				ucs_status_string(st));
			return -ENODEV;
		}
	}
	sockaddr_of(&sa, rm.self.ipv4, (unsigned int)rm.self.udp_base + ul->lcore);
	st = ucp_listener_create(ul->worker, &lp, &ul->listener);
	if (st != UCS_OK) {
		char ip[INET_ADDRSTRLEN];

		ul->listener = NULL;
		inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof(ip));
		LCA_LOG(ERR, "remote ucx: lcore %u cannot listen on %s:%u: %s\n", ul->lcore, ip,
			rm.self.udp_base + ul->lcore, ucs_status_string(st));
		return -EADDRINUSE;
	}
	return 0;
}

static struct ux_lcore *
lcore_alloc(unsigned int lcore, unsigned int n_chan)
{
	int socket = (int)rte_lcore_to_socket_id(lcore);
	struct ux_lcore *ul = rte_zmalloc_socket("lca_ucx", sizeof(*ul), 0, socket);

	if (ul == NULL)
		return NULL;
	ul->lcore = lcore;
	ul->n_chan = n_chan;
	ul->chan = rte_zmalloc_socket("lca_ucx", sizeof(*ul->chan) * n_chan, 0, socket);
	ul->dirty = rte_zmalloc_socket("lca_ucx", sizeof(*ul->dirty) * n_chan, 0, socket);
	if (ul->chan == NULL || ul->dirty == NULL)
		goto fail;
	for (unsigned int p = 0; p < rm.n_peers; p++) {
		const struct rm_peer *pe = &rm.peers[p];

		for (unsigned int k = 0; k < pe->n.n_lcores; k++) {
			struct ux_chan *ch = &ul->chan[pe->chan_base + k];

			ch->ul = ul;
			ch->peer = p;
			ch->peer_lcore = pe->n.lcores[k];
			ch->next_seq = 1;
			ch->rcv_next = 1;
			ch->arena = rte_malloc_socket("lca_ucx", (size_t)rm.window * rm.frame_cap,
						      RTE_CACHE_LINE_SIZE, socket);
			ch->tx = rte_zmalloc_socket("lca_ucx", sizeof(*ch->tx) * rm.window, 0,
						    socket);
			ch->rx = rte_zmalloc_socket("lca_ucx", sizeof(*ch->rx) * rm.window, 0,
						    socket);
			if (ch->arena == NULL || ch->tx == NULL || ch->rx == NULL)
				goto fail;
		}
	}
	return ul;
fail:
	lcore_free(ul);
	return NULL;
}

static int
hooks(bool add)
{
	for (unsigned int i = 0; i < rm.n_lcores; i++) {
		unsigned int l = rm.lcores[i];
		struct lca_lcore_hook h = { .poll = hook_poll, .end = hook_end, .arg = ux.lc[l] };
		int ret;

		if (ux.lc[l] == NULL)
			continue;
		if (!add) {
			lca_lcore_hook_remove(l, &h);
			continue;
		}
		ret = lca_lcore_hook_add(l, &h);
		if (ret != 0) {
			LCA_LOG(ERR, "remote ucx: hook on lcore %u: %d\n", l, ret);
			return ret;
		}
	}
	return 0;
}

static void
tls_warn(void)
{
	const char *tls = getenv("UCX_TLS");

	if (tls != NULL && strstr(tls, "tcp") == NULL && strstr(tls, "all") == NULL &&
	    strstr(tls, "^") == NULL)
		LCA_LOG(WARNING, "remote ucx: UCX_TLS=%s has no tcp: UCX's connection setup "
				 "(sockaddr) needs it; add it (UCX_TLS=%s,tcp still sends the data "
				 "over %s)\n",
			tls, tls, tls);
}

static int
ux_start(void)
{
	ucp_params_t params = {
		.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_NAME |
			      UCP_PARAM_FIELD_MT_WORKERS_SHARED,
		.features = UCP_FEATURE_AM,
		.name = "lcactor",
		/* One worker per lcore thread, all on this context. */
		.mt_workers_shared = 1,
	};
	unsigned int n_chan = 0;
	ucp_config_t *cfg;
	ucs_status_t st;
	int ret;

	rm.window = rm.conf.window ? rm.conf.window : UX_DEF_WINDOW;
	rm.frame_cap = rm.conf.mtu ? rm.conf.mtu : UX_DEF_BUF;
	rm.start_tsc = rte_rdtsc();
	for (unsigned int p = 0; p < rm.n_peers; p++)
		n_chan += rm.peers[p].n.n_lcores;
	tls_warn();
	/* A listener's port stays in TIME_WAIT after a stop: a start in the
	 * same minute (a restarted node, the next test) must bind it again. */
	setenv("UCX_TCP_CM_REUSEADDR", "y", 0);
	st = ucp_config_read(NULL, NULL, &cfg);
	if (st != UCS_OK) {
		LCA_LOG(ERR, "remote ucx: ucp_config_read: %s\n", ucs_status_string(st));
		return -EINVAL;
	}
	st = ucp_init(&params, cfg, &ux.ctx);
	ucp_config_release(cfg);
	if (st != UCS_OK) {
		ux.ctx = NULL;
		LCA_LOG(ERR, "remote ucx: ucp_init: %s (UCX_TLS=%s)\n", ucs_status_string(st),
			getenv("UCX_TLS") ? getenv("UCX_TLS") : "unset");
		return -ENODEV;
	}
	ux.stopping = false;
	ux.retry = UX_RETRY_MS * rte_get_tsc_hz() / 1000;
	ux.retry_max = UX_RETRY_MAX_MS * rte_get_tsc_hz() / 1000;
	{
		char name[RTE_MEMPOOL_NAMESIZE];

		static unsigned int gen;

		/* A pool kept by an earlier stop (its mbufs still out) keeps
		 * its name: each start gets its own. */
		snprintf(name, sizeof(name), "lca_ucx_%u_%u", rm.self.id, gen++);
		ux.pool = rte_pktmbuf_pool_create(name, UX_POOL_MBUFS, 256, 0,
						  RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
		if (ux.pool == NULL) {
			LCA_LOG(ERR, "remote ucx: no mbuf pool: %s\n", rte_strerror(rte_errno));
			return -ENOMEM;
		}
	}
	for (unsigned int i = 0; i < rm.n_lcores; i++) {
		unsigned int l = rm.lcores[i];

		ux.lc[l] = lcore_alloc(l, n_chan);
		if (ux.lc[l] == NULL) {
			return -ENOMEM;
		}
		ux.lc[l]->spare.pool = ux.pool;
		ret = worker_start(ux.lc[l]);
		if (ret != 0)
			return ret;
	}
	for (unsigned int i = 0; i < rm.n_lcores; i++) {
		struct ux_lcore *ul = ux.lc[rm.lcores[i]];

		ul->next_check = rm.start_tsc;
		for (unsigned int c = 0; c < ul->n_chan; c++)
			client_connect(&ul->chan[c]);
	}
	/* On a failure, the shared layer's stop undoes what was done. */
	return hooks(true);
}

/* Close every endpoint of every lcore at once, progressing all the workers
 * until the closes complete: an endpoint's flush may wait for a worker of
 * this process (the peer of a loopback, or its other end), which a close
 * progressing only its own worker would time out on. */
static void
close_all(void)
{
	ucp_request_param_t param = { .op_attr_mask = 0 };
	unsigned int n = 0, cap = 0;
	struct {
		ucs_status_ptr_t r;
	} *reqs = NULL;

	for (unsigned int i = 0; i < rm.n_lcores; i++) {
		const struct ux_lcore *ul = ux.lc[rm.lcores[i]];

		if (ul != NULL)
			cap += ul->n_chan + ul->n_server;
	}
	if (cap > 0)
		reqs = calloc(cap, sizeof(*reqs));
	for (unsigned int i = 0; i < rm.n_lcores; i++) {
		struct ux_lcore *ul = ux.lc[rm.lcores[i]];

		for (unsigned int c = 0; ul != NULL && c < ul->n_chan + ul->n_server; c++) {
			ucp_ep_h *ep = c < ul->n_chan ? &ul->chan[c].ep : &ul->server[c - ul->n_chan].ep;
			ucs_status_ptr_t r;

			if (*ep == NULL)
				continue;
			r = ucp_ep_close_nbx(*ep, &param);
			*ep = NULL;
			if (r == NULL || UCS_PTR_IS_ERR(r))
				continue;
			if (reqs != NULL && n < cap)
				reqs[n++].r = r;
			else
				ucp_request_free(r);
		}
	}
	for (unsigned int spin = 0; spin < UX_CLOSE_SPINS && n > 0; spin++) {
		bool done = true;

		for (unsigned int i = 0; i < rm.n_lcores; i++)
			if (ux.lc[rm.lcores[i]] != NULL)
				ucp_worker_progress(ux.lc[rm.lcores[i]]->worker);
		for (unsigned int k = 0; k < n && done; k++)
			done = ucp_request_check_status(reqs[k].r) != UCS_INPROGRESS;
		if (done)
			break;
	}
	for (unsigned int k = 0; k < n; k++)
		ucp_request_free(reqs[k].r);
	free(reqs);
}

static void
ux_stop(void)
{
	hooks(false);
	ux.stopping = true;
	close_all();
	for (unsigned int i = 0; i < rm.n_lcores; i++) {
		unsigned int l = rm.lcores[i];

		lcore_free(ux.lc[l]);
		ux.lc[l] = NULL;
	}
	if (ux.ctx != NULL)
		ucp_cleanup(ux.ctx);
	ux.ctx = NULL;
	if (ux.pool != NULL && rte_mempool_avail_count(ux.pool) < UX_POOL_MBUFS)
		/* Messages that arrived in its mbufs are still held (by actors,
		 * by the app): the pool stays for them. */
		LCA_LOG(INFO, "remote ucx: %u mbufs of the receive pool still held: it is kept\n",
			UX_POOL_MBUFS - rte_mempool_avail_count(ux.pool));
	else
		rte_mempool_free(ux.pool);
	ux.pool = NULL;
}

static bool
ux_idle(void)
{
	for (unsigned int i = 0; i < rm.n_lcores; i++) {
		const struct ux_lcore *ul = ux.lc[rm.lcores[i]];

		for (unsigned int c = 0; ul != NULL && c < ul->n_chan; c++) {
			const struct ux_chan *ch = &ul->chan[c];

			if (ch->cleaned)
				continue;
			if (__atomic_load_n(&ch->st.in_flight, __ATOMIC_RELAXED) != 0 ||
			    __atomic_load_n(&ch->open_n, __ATOMIC_RELAXED) != 0 ||
			    __atomic_load_n(&ch->big, __ATOMIC_RELAXED) != NULL ||
			    seq_lt(__atomic_load_n(&ch->sent_seq, __ATOMIC_RELAXED) + 1,
				   __atomic_load_n(&ch->next_seq, __ATOMIC_RELAXED)))
				return false;
		}
	}
	return true;
}

static void
ux_link_stats(unsigned int peer, struct lca_remote_link_stats *out)
{
	const struct rm_peer *pe = &rm.peers[peer];

	for (unsigned int i = 0; i < rm.n_lcores; i++) {
		const struct ux_lcore *ul = ux.lc[rm.lcores[i]];

		for (unsigned int k = 0; ul != NULL && k < pe->n.n_lcores; k++)
			rm_stats_add(out, &ul->chan[pe->chan_base + k].st);
	}
}


const struct rm_transport_ops rm_ucx_ops = {
	.start = ux_start,
	.stop = ux_stop,
	.send = ux_send,
	.idle = ux_idle,
	.link_stats = ux_link_stats,
};
