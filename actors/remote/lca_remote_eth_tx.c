/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ethdev transport, frames out (docs/wire.md): a send copies each
 * message into its channel's open frame; the lcore's end hook closes the
 * open frames, keeps each (one mbuf reference) until it is acknowledged, and
 * hands them to the port, through the fault injector. Messages larger than
 * a frame go in fragments on the large lane of their channel's pair.
 */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>

#include "lca_remote_eth_priv.h"

/* Frames of the large lane in flight: enough to fill a link, few enough
 * that a small message's frame does not queue behind many of them. */
#define LARGE_WINDOW 32u
/* The fewest frames in flight a loss leaves a channel. */
#define CWND_MIN 16u
/* Fragment frames the large lane fills per loop iteration, so that the
 * small messages' frames of the iteration leave between them. */
#define LARGE_BURST 8

static inline uint64_t
rng_next(struct rm_lcore *rl)
{
	/* xorshift64* */
	rl->rng ^= rl->rng >> 12;
	rl->rng ^= rl->rng << 25;
	rl->rng ^= rl->rng >> 27;
	return rl->rng * 2685821657736338717ull;
}

static inline bool
inject(struct rm_lcore *rl, uint32_t ppm)
{
	return ppm != 0 && (rng_next(rl) >> 32) % 1000000u < ppm;
}

/* Queue frame @p m (one reference is the TX's) for transmission, through
 * the fault injector. */
static void
tx_frame(struct rm_lcore *rl, struct chan *ch, struct rte_mbuf *m, uint64_t now)
{
	const struct lca_remote_inject *inj = &rm.conf.inject;
	unsigned int pi = ch->port;

	ch->last_tx_tsc = now;
	if (unlikely(inj->loss_ppm | inj->dup_ppm | inj->reorder_ppm)) {
		if (inject(rl, inj->loss_ppm)) {
			rm_count(&ch->st.inj_lost, 1);
			rte_pktmbuf_free(m);
			return;
		}
		if (inject(rl, inj->dup_ppm)) {
			rm_count(&ch->st.inj_dup, 1);
			rte_mbuf_refcnt_update(m, 1);
			eth_tx_add(rl, pi, m);
		}
		if (rl->port[pi].held == NULL && inject(rl, inj->reorder_ppm)) {
			rm_count(&ch->st.inj_reordered, 1);
			rl->port[pi].held = m;
			rl->port[pi].held_age = 0;
			return;
		}
	}
	eth_tx_add(rl, pi, m);
	if (unlikely(rl->port[pi].held != NULL)) {
		/* What was held goes behind this frame. */
		eth_tx_add(rl, pi, rl->port[pi].held);
		rl->port[pi].held = NULL;
	}
}

void
eth_tx_flush(struct rm_lcore *rl, unsigned int pi)
{
	struct lca_msg *msgs[RM_TXQ_MAX];
	unsigned int n = rl->port[pi].n, sent;
	int err;

	if (n == 0)
		return;
	rl->port[pi].n = 0;
	/* The lcore's own TX queue: at once, one iteration sooner than
	 * through the TX actor and without an envelope a frame. */
	if (likely(lca_port_tx_now(rm_eth.ports[pi], rl->port[pi].q, n) == 0))
		return;
	if (lca_msg_from_mbuf_bulk(rl->port[pi].q, msgs, n) != 0) {
		/* No envelopes: the frames go again on their timeouts. */
		rte_pktmbuf_free_bulk(rl->port[pi].q, n);
		rm_count_shared(&rm.st.tx_no_envelope, n);
		return;
	}
	sent = lca_send_burst(rl->port[pi].tx_actor, msgs, n, &err);
	if (unlikely(sent < n)) {
		rm_count_shared(&rm.st.tx_refused, n - sent);
		lca_msg_free_bulk(msgs + sent, n - sent);
	}
}

/* The channel header of a frame from @p ch; @p seq 0 for no data. */
/* Which of the 32 frames after the first missing one arrived: the sender
 * fills every hole of a burst loss in one round trip, not one a NAK. */
static uint32_t
sack_of(const struct chan *ch)
{
	uint32_t sack = 0;

	for (unsigned int i = 0; i < 32; i++) {
		uint32_t q = ch->rcv_contig + 2 + i;
		const struct rx_slot *r = &ch->rx[q & (rm.window - 1)];

		if (seq_lt(ch->rcv_high, q))
			break;
		if (r->m != NULL && r->seq == q)
			sack |= 1u << i;
	}
	return sack;
}

static void
hdr_write(struct chan *ch, uint8_t *buf, uint32_t udp_payload, uint8_t flags, uint32_t seq,
	  uint16_t n_msgs)
{
	const struct rm_peer *p = &rm.peers[ch->peer];
	struct wire_hdr *h = (struct wire_hdr *)(buf + WIRE_OUTER_LEN);

	wire_outer_write(buf, rm.self.mac, p->n.mac, rm.self.ipv4, p->n.ipv4, ch->src_udp,
			 ch->dst_udp, udp_payload);
	if (ch->need_nak)
		flags |= WIRE_F_NAK;
	h->version = WIRE_VERSION;
	h->flags = flags | WIRE_F_ACK | (ch->large ? WIRE_F_LARGE : 0) |
		   (rm_eth.tag_len != 0 ? WIRE_F_TAG : 0);
	h->n_msgs = rte_cpu_to_be_16(n_msgs);
	h->src_node = rte_cpu_to_be_16(rm.self.id);
	h->dst_node = rte_cpu_to_be_16(p->n.id);
	h->seq = rte_cpu_to_be_32(seq);
	h->ack = rte_cpu_to_be_32(ch->rcv_contig);
	h->credit = rte_cpu_to_be_32(ch->rcv_next - 1 + rm.window);
	h->nak = rte_cpu_to_be_32(ch->need_nak ? ch->rcv_contig + 1 : 0);
	h->session = rte_cpu_to_be_32(ch->tx_session);
	h->sack = rte_cpu_to_be_32(ch->need_nak ? sack_of(ch) : 0);
	h->peer_session = rte_cpu_to_be_32(rm_chan_echo(ch->peer, ch->epoch, &ch->tx_echo));
	if (ch->need_nak)
		rm_count(&ch->st.naks_sent, 1);
	ch->need_ack = false;
	ch->need_nak = false;
}

/* A frame without data: an ack, a NAK or a heartbeat. */
void
eth_send_ack(struct rm_lcore *rl, struct chan *ch, uint8_t flags, uint64_t now)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(rl->port[ch->port].pool);
	uint8_t *buf;

	if (m == NULL) {
		rm_count_shared(&rm.st.no_mbuf, 1);
		return;
	}
	buf = rte_pktmbuf_mtod(m, uint8_t *);
	hdr_write(ch, buf, WIRE_HDR_LEN + rm_eth.tag_len, flags, 0, 0);
	m->data_len = (uint16_t)(WIRE_OUTER_LEN + WIRE_HDR_LEN + rm_eth.tag_len);
	if (rm_eth.tag_len != 0)
		eth_tag_write(buf, WIRE_OUTER_LEN + WIRE_HDR_LEN);
	m->pkt_len = m->data_len;
	rm_count(&ch->st.acks_sent, 1);
	tx_frame(rl, ch, m, now);
}

/* Close the open frame: headers, keep it, send it. */
void
eth_frame_close(struct rm_lcore *rl, struct chan *ch, uint64_t now)
{
	struct rte_mbuf *m = ch->open;
	struct tx_slot *s = &ch->tx[ch->open_seq & (rm.window - 1)];

	hdr_write(ch, rte_pktmbuf_mtod(m, uint8_t *), ch->open_off - WIRE_OUTER_LEN + rm_eth.tag_len,
		  WIRE_F_DATA, ch->open_seq, ch->open_n);
	/* Last: the tag covers the headers just written. frame_cap left it
	 * room. */
	if (rm_eth.tag_len != 0)
		eth_tag_write(rte_pktmbuf_mtod(m, uint8_t *), ch->open_off);
	m->data_len = (uint16_t)(ch->open_off + rm_eth.tag_len);
	m->pkt_len = m->data_len;
	s->m = m;
	s->sent_tsc = now;
	s->resent = false;
	s->n_msgs = ch->open_n;
	ch->sent_seq = ch->open_seq;
	ch->open = NULL;
	if (ch->rto_tsc == 0) {
		/* Nothing was in flight: the wait for an ack starts now. */
		ch->rto_tsc = now + ch->rto;
		ch->progress_tsc = now;
		ch->n_rtx = 0;
	}
	rm_count(&ch->st.frames_sent, 1);
	__atomic_store_n(&ch->st.in_flight, ch->sent_seq - ch->acked, __ATOMIC_RELAXED);
	/* The TX's reference; the slot keeps ours. */
	rte_mbuf_refcnt_update(m, 1);
	tx_frame(rl, ch, m, now);
}

static int
frame_open(struct rm_lcore *rl, struct chan *ch)
{
	struct rte_mbuf *m;

	if (seq_lt(ch->credit, ch->next_seq) ||
	    ch->next_seq - ch->acked > (ch->large ? RTE_MIN(ch->cwnd, LARGE_WINDOW) : ch->cwnd)) {
		rm_count(&ch->st.no_credit, 1);
		return -ENOBUFS;
	}
	m = rte_pktmbuf_alloc(rl->port[ch->port].pool);
	if (m == NULL) {
		rm_count_shared(&rm.st.no_mbuf, 1);
		return -ENOMEM;
	}
	ch->open = m;
	ch->open_seq = ch->next_seq++;
	ch->open_off = WIRE_OUTER_LEN + WIRE_HDR_LEN;
	ch->open_n = 0;
	chan_dirty(rl, ch);
	return 0;
}

/* Copy @p msg into the open frame of @p ch. */
static int
chan_put(struct rm_lcore *rl, struct chan *ch, lca_actor_id_t from, lca_actor_id_t to,
	 const struct lca_msg *msg)
{
	int64_t plen = rm_payload_len(msg, to);
	uint32_t rlen;
	int ret;

	if (unlikely(plen < 0))
		return (int)plen;
	rlen = wire_rec_len((uint32_t)plen);
	if (unlikely(WIRE_OUTER_LEN + WIRE_HDR_LEN + rlen > rm.frame_cap))
		return -EMSGSIZE;
	if (ch->open != NULL && ch->open_off + rlen > rm.frame_cap)
		eth_frame_close(rl, ch, rte_rdtsc());
	if (ch->open == NULL) {
		ret = frame_open(rl, ch);
		if (ret != 0)
			return ret;
	}
	wire_rec_write(rte_pktmbuf_mtod_offset(ch->open, uint8_t *, ch->open_off),
		       lca_remote_local(to), rm_wire_from(from), msg);
	ch->open_off = (uint16_t)(ch->open_off + rlen);
	ch->open_n++;
	rm_count(&ch->st.msgs_sent, 1);
	return 0;
}

/* Cut the large lane's message into fragments, as far as its credit goes;
 * the poll hook comes back for the rest. */
unsigned int
eth_big_pump(struct rm_lcore *rl, struct chan *ch)
{
	const struct rte_mbuf *mb = ch->big->ptr;
	unsigned int done = 0, frames = 0;

	while (ch->big_off < ch->big_total) {
		uint32_t room, chunk;
		struct wire_msg *r;
		struct wire_frag *f;

		if (ch->open != NULL &&
		    ch->open_off + wire_rec_len(WIRE_FRAG_LEN + 64) > rm.frame_cap) {
			eth_frame_close(rl, ch, rte_rdtsc());
			if (++frames == LARGE_BURST)
				return done;
		}
		if (ch->open == NULL && frame_open(rl, ch) != 0)
			return done;
		room = rm.frame_cap - ch->open_off - WIRE_MSG_LEN - WIRE_FRAG_LEN;
		chunk = RTE_MIN(ch->big_total - ch->big_off, room & ~3u);
		r = rte_pktmbuf_mtod_offset(ch->open, struct wire_msg *, ch->open_off);
		r->to = rte_cpu_to_be_32(ch->big_to);
		r->from = rte_cpu_to_be_32(ch->big_from);
		r->type = rte_cpu_to_be_32(ch->big->type);
		r->len = rte_cpu_to_be_16((uint16_t)(WIRE_FRAG_LEN + chunk));
		r->flags = rte_cpu_to_be_16(WIRE_MSG_F_MBUF | WIRE_MSG_F_FRAG);
		f = (struct wire_frag *)(r + 1);
		f->total = rte_cpu_to_be_32(ch->big_total);
		f->offset = rte_cpu_to_be_32(ch->big_off);
		rte_memcpy(f + 1, rte_pktmbuf_read(mb, ch->big_off, chunk, f + 1), chunk);
		ch->open_off = (uint16_t)(ch->open_off + wire_rec_len(WIRE_FRAG_LEN + chunk));
		ch->open_n++;
		ch->big_off += chunk;
		done++;
	}
	/* Every byte is in a frame: the message is the runtime's to free. */
	lca_msg_free(ch->big);
	ch->big = NULL;
	rl->n_big--;
	rm_count(&ch->st.msgs_sent, 1);
	return done;
}

/* A message larger than a frame: into the large lane, one at a time. */
static int
big_put(struct rm_lcore *rl, struct chan *ch, lca_actor_id_t from, lca_actor_id_t to,
	struct lca_msg *msg)
{
	struct chan *lane = lane_large(rl, ch);

	if (lane->big != NULL) {
		rm_count(&lane->st.no_credit, 1);
		return -ENOBUFS;
	}
	if (((const struct rte_mbuf *)msg->ptr)->pkt_len > UINT32_MAX / 2 || rm_large_refused(msg))
		return -EMSGSIZE;
	lca_msg_keep(msg);
	lane->big = msg;
	lane->big_off = 0;
	lane->big_total = ((const struct rte_mbuf *)msg->ptr)->pkt_len;
	lane->big_to = lca_remote_local(to);
	lane->big_from = rm_wire_from(from);
	rl->n_big++;
	eth_big_pump(rl, lane);
	return 0;
}

/* The large lane takes @p m: an mbuf larger than a frame. */
static inline bool
is_large(const struct lca_msg *m)
{
	return (m->flags & LCA_MSG_F_MBUF) &&
	       WIRE_OUTER_LEN + WIRE_HDR_LEN +
			       wire_rec_len(((const struct rte_mbuf *)m->ptr)->pkt_len) >
		       rm.frame_cap;
}

unsigned int
eth_send(lca_actor_id_t from, lca_actor_id_t to, struct lca_msg **msgs, unsigned int n,
	 int *why)
{
	unsigned int lcore = rte_lcore_id(), sent = 0, freed = 0;
	struct rm_lcore *rl = lcore < RTE_MAX_LCORE ? rm_eth.lc[lcore] : NULL;
	int err = 0, p = rm_send_peer(to);
	struct chan *ch;

	if (p < 0)
		return rm_send_done(0, p, why);
	if (rl == NULL)
		return rm_send_done(0, -EPERM, why);
	ch = chan_of(rl, (unsigned int)p, rm_peer_lcore_of(&rm.peers[p], to));
	chan_sync(rl, ch);
	for (; sent < n; sent++) {
		struct lca_msg *m = msgs[sent];

		if (unlikely(m == NULL)) {
			err = -EINVAL;
			break;
		}
		if (unlikely(is_large(m))) {
			/* The large lane keeps it until its last fragment is in
			 * a frame. */
			lca_msg_free_bulk(msgs + freed, sent - freed);
			err = big_put(rl, ch, from, to, m);
			if (err != 0)
				break;
			freed = sent + 1;
			continue;
		}
		err = chan_put(rl, ch, from, to, m);
		if (err != 0)
			break;
	}
	/* The bytes are in the frame: the envelopes are the runtime's. */
	lca_msg_free_bulk(msgs + freed, sent - freed);
	return rm_send_done(sent, err, why);
}

/* Not below CWND_MIN. A resent frame goes out behind every frame queued
 * before it, on the wire and at the receiver, and the channel cannot
 * deliver past it until it arrives: with fewer in flight it arrives
 * sooner, and a loss costs a shorter stall (docs/wire.md). A timeout is
 * not taken for a loss: on a shared CPU most are a late ack, and halving
 * at each would tax a clean link. */
void
eth_cwnd_loss(struct chan *ch, uint32_t seq)
{
	uint32_t floor = RTE_MIN(CWND_MIN, rm.window);

	if (!seq_lt(ch->recover, seq))
		return; /* of the episode already counted */
	ch->cwnd = RTE_MAX(ch->cwnd / 2, floor);
	ch->cwnd_acked = 0;
	ch->recover = ch->sent_seq;
}

void
eth_retransmit(struct rm_lcore *rl, struct chan *ch, uint32_t seq, uint64_t now)
{
	struct tx_slot *s = &ch->tx[seq & (rm.window - 1)];

	if (s->m == NULL)
		return;
	s->sent_tsc = now;
	s->resent = true;
	rte_mbuf_refcnt_update(s->m, 1);
	rm_count(&ch->st.retransmits, 1);
	tx_frame(rl, ch, s->m, now);
}
