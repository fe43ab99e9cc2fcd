/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The UCX transport, out: records packed into the channel's open buffer,
 * closed by the end hook and given to UCX as one active message each, kept
 * until the peer's credit; a message larger than a buffer goes as an
 * active message of its own, its mbuf's segments given to UCX as they are.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "lca_eal.h"
#include "lca_remote_ucx_priv.h"

static void
send_done(void *request, ucs_status_t status, void *user_data)
{
	struct ux_tx *t = user_data;

	(void)status; /* a failure reaches the endpoint's error handler */
	if (t != NULL)
		t->busy = false;
	ucp_request_free(request);
}

ucs_status_t
ux_am_send(ucp_ep_h ep, unsigned int id, struct ux_am_hdr *h, uint8_t *buf, size_t len,
	   struct ux_tx *t, bool reply)
{
	size_t hlen = ux_hdr_len(UX_HDR_LEN, sizeof(*h));
	ucp_request_param_t param = {
		.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
				UCP_OP_ATTR_FIELD_FLAGS,
		.flags = UCP_AM_SEND_FLAG_EAGER | (reply ? UCP_AM_SEND_FLAG_REPLY : 0),
		.cb.send = send_done,
		.user_data = t,
	};
	ucs_status_ptr_t r;

	if (rm_ux.keyed && buf != NULL) {
		/* One run of bytes for SipHash: the header's copy, then the
		 * records (tx_buf() leaves the room). */
		buf -= UX_HDR_LEN;
		len += UX_HDR_LEN;
		memcpy(buf, &h->h, UX_HDR_LEN);
	}
	if (rm_ux.keyed)
		ux_tag_write(h, hlen, buf, len);
	r = ucp_am_send_nbx(ep, id, h, hlen, buf, len, &param);
	if (UCS_PTR_IS_ERR(r))
		return UCS_PTR_STATUS(r);
	if (r != NULL && t != NULL)
		t->busy = true;
	return UCS_OK;
}

/* Give UCX every closed buffer it does not have yet. */
void
ux_send_closed(struct ux_chan *ch)
{
	if (!ch->connected || ch->failed || ch->ep == NULL)
		return;
	while (seq_lt(ch->sent_seq + 1, ch->next_seq)) {
		uint32_t seq = ch->sent_seq + 1;
		struct ux_tx *t = &ch->tx[seq & (rm.window - 1)];

		ucs_status_t st = ux_am_send(ch->ep, UX_AM_DATA, &t->hdr, tx_buf(ch, seq), t->len, t,
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

void
ux_buf_close(struct ux_chan *ch)
{
	struct ux_tx *t = &ch->tx[ch->next_seq & (rm.window - 1)];

	hdr_fill(&t->hdr.h, ch, ch->next_seq, ch->open_n);
	t->len = ch->open_off;
	ch->next_seq++;
	ch->open_n = 0;
	ch->open_off = 0;
	ux_send_closed(ch);
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
		ux_buf_close(ch);
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

static void
big_sent(void *request, ucs_status_t status, void *user_data)
{
	struct ux_chan *ch = user_data;

	(void)status; /* a failure reaches the endpoint's error handler */
	ch->big_busy = false;
	ucp_request_free(request);
	ux_big_release(ch);
}

/* Let go of the large message sent: the peer delivered it (or is dead) and
 * UCX no longer reads its mbufs. */
void
ux_big_release(struct ux_chan *ch)
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

	if (mb->pkt_len > UX_LARGE_MAX || rm_large_refused(msg))
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
	if (rm_ux.keyed) {
		ux_payload_tag(ch->ul, ch->big_hdr.payload_tag, mb);
		ux_tag_write(&ch->big_hdr, sizeof(ch->big_hdr), NULL, 0);
	}
	r = ucp_am_send_nbx(ch->ep, UX_AM_LARGE, &ch->big_hdr,
			    ux_hdr_len(UX_LARGE_HDR_LEN, sizeof(ch->big_hdr)), iov, k, &param);
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

unsigned int
ux_send(lca_actor_id_t from, lca_actor_id_t to, struct lca_msg **msgs, unsigned int n,
	int *err)
{
	unsigned int lcore = rte_lcore_id(), sent = 0, freed = 0;
	struct ux_lcore *ul = lcore < RTE_MAX_LCORE ? rm_ux.lc[lcore] : NULL;
	int why = 0, p = rm_send_peer(to);
	const struct rm_peer *pe;
	struct ux_chan *ch;

	if (p < 0)
		return rm_send_done(0, p, err);
	if (ul == NULL)
		return rm_send_done(0, -EPERM, err);
	pe = &rm.peers[p];
	ch = &ul->chan[pe->chan_base + rm_peer_lcore_of(pe, to)];
	ux_chan_sync(ch);
	for (; sent < n; sent++) {
		if (unlikely(msgs[sent] == NULL)) {
			why = -EINVAL;
			break;
		}
		if (unlikely(is_large(msgs[sent]))) {
			/* The lane keeps it until the peer has it. */
			lca_msg_free_bulk(msgs + freed, sent - freed);
			freed = sent + 1;
			why = big_put(ch, from, to, msgs[sent]);
			if (why != 0) {
				freed = sent;
				break;
			}
			continue;
		}
		why = ux_put(ch, from, to, msgs[sent]);
		if (why != 0)
			break;
	}
	/* The bytes are in the buffer: the envelopes are the runtime's. */
	lca_msg_free_bulk(msgs + freed, sent - freed);
	return rm_send_done(sent, why, err);
}
