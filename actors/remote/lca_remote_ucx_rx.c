/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The UCX transport, in: the worker's active-message handlers keep each
 * buffer (UCX's own data where it lets us, else a copy), and the poll hook
 * delivers them after UCX's progress, in the order of their numbers
 * whatever lanes UCX picked; a buffer whose mailbox is full holds the
 * channel, and the credit that goes back says what was delivered.
 */
#define LCA_LOG_PART lca_logtype_remote
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "lca_eal.h"
#include "lca_remote_ucx_priv.h"
#include "lca_logtypes_priv.h"

void
ux_set_pending(struct ux_chan *ch, bool pending)
{
	if (pending == ch->pending)
		return;
	ch->pending = pending;
	if (pending) {
		ch->ul->n_pending++;
	} else {
		ch->ul->n_pending--;
		ch->held = false;
	}
}

void
ux_rx_release(struct ux_chan *ch, struct ux_rx *s)
{
	if (s->desc != NULL)
		ucp_am_data_release(ch->ul->worker, s->desc);
	else
		free(s->buf);
	s->buf = NULL;
	s->desc = NULL;
}

/* Deliver the records of buffer rcv_next from the cursor on, from the poll
 * hook: run to completion where the receiver is idle. A fragment record
 * has no place here (the large lane is its own, and the buffer's check
 * refused them): malformed. @return true when all are delivered; false
 * when a mailbox is full. */
static bool
deliver_buf(struct ux_chan *ch, const uint8_t *buf, uint16_t n_msgs)
{
	for (;;) {
		switch (rm_recs_deliver(buf, n_msgs, &ch->head, &ch->ul->spare, NULL, true,
					&ch->st)) {
		case RM_RECS_DONE:
			return true;
		case RM_RECS_WAIT:
			return false;
		case RM_RECS_FRAG:
			rm_count_shared(&rm.st.malformed, 1);
			rm_rec_cursor_step(&ch->head,
					   (const struct wire_msg *)(buf + ch->head.off));
			break;
		}
	}
}

static void
advance(struct ux_chan *ch)
{
	ch->rcv_next++;
	ch->head = (struct rm_rec_cursor){ 0, 0 };
	ch->need_credit = true;
	mark_dirty(ch);
}

/* Deliver the buffers kept in order, from rcv_next on. */
unsigned int
ux_drain(struct ux_chan *ch)
{
	unsigned int done = 0;

	for (;;) {
		struct ux_rx *s = &ch->rx[ch->rcv_next & (rm.window - 1)];

		if (s->buf == NULL)
			break;
		if (!deliver_buf(ch, s->buf, s->n_msgs)) {
			if (!ch->held) {
				ch->held = true;
				rm_count(&ch->st.held, 1);
			}
			return done;
		}
		ux_rx_release(ch, s);
		advance(ch);
		done++;
	}
	ux_set_pending(ch, false);
	return done;
}
/* The channel an active message's header names, on this lcore: a header
 * of @p base bytes without a key, @p keyed with one, checked with the
 * @p len bytes of data at @p data (NULL: none tagged) before any field is
 * read. */
static struct ux_chan *
chan_of_hdr(struct ux_lcore *ul, const void *header, size_t hlen, size_t base, size_t keyed,
	    const void *data, size_t len)
{
	const struct ux_hdr *h = header;
	unsigned int node, lcore;
	const struct rm_peer *pe;
	bool tagged = hlen != base;
	int p;

	if (unlikely(rm_ux.stopping))
		return NULL;
	if (hlen != base && hlen != keyed) {
		rm_count_shared(&rm.st.malformed, 1);
		return NULL;
	}
	if ((tagged || rm_ux.keyed) && !ux_tag_check(header, hlen, tagged, data, len))
		return NULL;
	if (rte_be_to_cpu_16(h->dst_lcore) != ul->lcore) {
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

		if (pe->n.lcores[k] != lcore)
			continue;
		if (rm_peer_frame((unsigned int)p, rte_be_to_cpu_32(h->session),
				  rte_be_to_cpu_32(h->peer_session)) != RM_FRAME_TAKE) {
			/* Of an epoch that ended: it refers to state gone. */
			rm_count(&ch->st.stale_session, 1);
			return NULL;
		}
		/* A new session made a new epoch: this channel starts afresh. */
		ux_chan_sync(ch);
		ch->last_rx_tsc = rte_rdtsc(); /* anything from it says it lives */
		return ch;
	}
	rm_count_shared(&rm.st.unknown_peer, 1);
	return NULL;
}

/* The channel of an active message that carries no data (hello, credit). */
static struct ux_chan *
chan_of_bare(struct ux_lcore *ul, const void *header, size_t hlen, size_t len)
{
	if (len != 0) {
		rm_count_shared(&rm.st.malformed, 1);
		return NULL;
	}
	return chan_of_hdr(ul, header, hlen, UX_HDR_LEN, sizeof(struct ux_am_hdr), NULL, 0);
}

ucs_status_t
ux_am_data(void *arg, const void *header, size_t hlen, void *data, size_t len,
	   const ucp_am_recv_param_t *param)
{
	const struct ux_hdr *h = header;
	void *desc = data; /* what UCX takes back, whatever the key skips */
	ucs_status_t ret = UCS_OK;
	struct ux_chan *ch;
	struct ux_rx *s;
	uint32_t seq;
	uint16_t n;

	/* Sent eager, so never a rendezvous: data that are bytes to check. */
	if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) {
		rm_count_shared(&rm.st.malformed, 1);
		return UCS_OK;
	}
	ch = chan_of_hdr(arg, header, hlen, UX_HDR_LEN, sizeof(struct ux_am_hdr), data, len);
	if (ch == NULL || ch->cleaned)
		return UCS_OK;
	if (rm_ux.keyed) {
		/* The records follow the header's copy that the tag covered. */
		data = (uint8_t *)data + UX_HDR_LEN;
		len -= UX_HDR_LEN;
	}
	if (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP)
		ch->reply_ep = param->reply_ep;
	n = rte_be_to_cpu_16(h->n_msgs);
	seq = rte_be_to_cpu_32(h->seq);
	/* A buffer that checks out. */
	if (n == 0 || len > rm.frame_cap || wire_records_check(data, (uint32_t)len, n, false) != 0) {
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
	if (seq != ch->rcv_next)
		rm_count(&ch->st.reordered, 1);
	/* Delivered from the poll hook, never in this callback: a handler run
	 * here at once would re-enter the worker with its own UCX sends. UCX
	 * lets us keep its data when it says so; else a copy (the buffer is
	 * only ours during this call). */
	s = &ch->rx[seq & (rm.window - 1)];
	s->len = (uint32_t)len;
	s->n_msgs = n;
	if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_DATA) {
		s->desc = desc;
		s->buf = data;
		ret = UCS_INPROGRESS;
	} else {
		s->desc = NULL;
		s->buf = malloc(len);
		if (s->buf == NULL) {
			/* Cannot happen within the window's few MiB; say so if it
			 * does. */
			LCA_LOG(ERR, "remote ucx: no memory for a %zu-byte buffer from node %u\n",
				len, rm.peers[ch->peer].n.id);
			rm_peer_dead(ch->peer, "out of memory for received buffers");
			return UCS_OK;
		}
		memcpy(s->buf, data, len);
	}
	if (seq == ch->rcv_next)
		ux_set_pending(ch, true);
	return ret;
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
void
ux_big_rx_desc_release(struct ux_chan *ch)
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

/* The large message arriving on @p ch cannot be delivered: its chain freed,
 * counted, the lane moved on. */
static void
big_rx_discard(struct ux_chan *ch)
{
	rte_pktmbuf_free(ch->big_rx);
	ch->big_rx = NULL;
	ch->ul->n_big--;
	big_rx_drop(ch);
}

/* Every byte of the large message is in: with a key, its payload's tag
 * says whether it is delivered, or counted (bad_tag) and discarded. */
static void
big_rx_arrived(struct ux_chan *ch)
{
	if (rm_ux.keyed && !ux_payload_check(ch->ul, &ch->big_rx_hdr, ch->big_rx)) {
		big_rx_discard(ch);
		return;
	}
	ch->big_rx_ready = true;
}

static void
big_received(void *request, ucs_status_t status, size_t length, void *user_data)
{
	struct ux_chan *ch = user_data;

	ch->big_rx_pending = false;
	if (status == UCS_OK && length == ch->big_rx->pkt_len)
		big_rx_arrived(ch);
	else
		big_rx_discard(ch); /* the transfer broke (the peer failing: the check will say) */
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
		big_rx_arrived(ch);
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
			free(ch->big_rx_iov);
			ch->big_rx_iov = NULL;
			big_rx_discard(ch);
			return true;
		}
		if (r == NULL) {
			free(ch->big_rx_iov);
			ch->big_rx_iov = NULL;
			big_rx_arrived(ch);
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

ucs_status_t
ux_am_large(void *arg, const void *header, size_t hlen, void *data, size_t len,
	    const ucp_am_recv_param_t *param)
{
	const struct ux_large_hdr *lh = header;
	struct ux_chan *ch;
	bool rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;

	ch = chan_of_hdr(arg, header, hlen, UX_LARGE_HDR_LEN, sizeof(*lh), NULL, 0);
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
	memcpy(&ch->big_rx_hdr, lh, hlen); /* its tags only with a key */
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

/*
 * A credit past what was sent (docs/wire.md, "Protocol errors"): a peer
 * that says it delivered what never left cannot be trusted with what is in
 * flight. Counted (ack_beyond_sent), logged, and the session reset: the
 * peer is declared down, as on the ethdev transport.
 */
static void
credit_beyond_sent(struct ux_chan *ch, const char *lane, uint32_t seq, uint32_t sent)
{
	uint64_t quiet;

	rm_count(&ch->st.ack_beyond_sent, 1);
	if (rm_log_allowed(&rm_ux.proto_log, rte_rdtsc(), &quiet))
		LCA_LOG(ERR, "remote ucx: node %u, lcore %u from its lcore %u: protocol error: %s"
			     " credit %u past %u sent; session reset (%" PRIu64 " more not logged)\n",
			rm.peers[ch->peer].n.id, ch->ul->lcore, ch->peer_lcore, lane, seq, sent,
			quiet);
	rm_peer_dead(ch->peer, "protocol error (credit past what was sent)");
}

ucs_status_t
ux_am_large_credit(void *arg, const void *header, size_t hlen, void *data, size_t len,
		   const ucp_am_recv_param_t *param)
{
	struct ux_chan *ch = chan_of_bare(arg, header, hlen, len);
	uint32_t seq;

	(void)data;
	(void)param;
	if (ch == NULL || ch->cleaned)
		return UCS_OK;
	seq = rte_be_to_cpu_32(((const struct ux_hdr *)header)->seq);
	if (seq_lt(ch->big_seq, seq)) {
		credit_beyond_sent(ch, "large-lane", seq, ch->big_seq);
		return UCS_OK;
	}
	if (ch->big != NULL && seq == ch->big_seq) {
		ch->big_acked = true;
		ux_big_release(ch);
	}
	return UCS_OK;
}

/* The poll hook's work for the large lane. */
unsigned int
ux_big_poll(struct ux_chan *ch)
{
	if (ch->big != NULL)
		ux_big_release(ch);
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

void
ux_send_credit(struct ux_chan *ch)
{
	if (ch->reply_ep == NULL)
		return;
	hdr_fill(&ch->credit.h, ch, ch->rcv_next - 1, 0);
	if (ux_am_send(ch->reply_ep, UX_AM_CREDIT, &ch->credit, NULL, 0, NULL, false) == UCS_OK) {
		ch->need_credit = false;
		rm_count(&ch->st.acks_sent, 1);
	}
}

ucs_status_t
ux_am_hello(void *arg, const void *header, size_t hlen, void *data, size_t len,
	    const ucp_am_recv_param_t *param)
{
	struct ux_chan *ch = chan_of_bare(arg, header, hlen, len);

	(void)data;
	if (ch == NULL || ch->cleaned)
		return UCS_OK;
	if (!(param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP)) {
		rm_count_shared(&rm.st.malformed, 1);
		return UCS_OK;
	}
	ch->reply_ep = param->reply_ep;
	ux_send_credit(ch);
	return UCS_OK;
}

ucs_status_t
ux_am_leave(void *arg, const void *header, size_t hlen, void *data, size_t len,
	    const ucp_am_recv_param_t *param)
{
	struct ux_chan *ch = chan_of_bare(arg, header, hlen, len);

	(void)data;
	(void)param;
	if (ch != NULL)
		rm_peer_left(ch->peer);
	return UCS_OK;
}

ucs_status_t
ux_am_credit(void *arg, const void *header, size_t hlen, void *data, size_t len,
	     const ucp_am_recv_param_t *param)
{
	struct ux_chan *ch = chan_of_bare(arg, header, hlen, len);
	uint32_t seq;

	(void)data;
	(void)param;
	if (ch == NULL || ch->cleaned)
		return UCS_OK;
	seq = rte_be_to_cpu_32(((const struct ux_hdr *)header)->seq);
	if (!ch->connected) {
		ch->connected = true;
		__atomic_store_n(&ch->st.connected, 1, __ATOMIC_RELAXED);
		mark_dirty(ch); /* what waited for the connection goes now */
	}
	if (seq_lt(ch->sent_seq, seq)) {
		credit_beyond_sent(ch, "buffer", seq, ch->sent_seq);
		return UCS_OK;
	}
	if (seq_lt(ch->acked, seq)) {
		ch->acked = seq;
		in_flight_set(ch);
	}
	return UCS_OK;
}
