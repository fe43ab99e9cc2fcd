/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ethdev transport, frames in (docs/wire.md): the port's RX steers each
 * frame by its UDP destination port to the link actor of that lcore, which
 * processes the acks and NAKs for its TX side and delivers the data in
 * sequence, stopping at a full mailbox (the poll hook resumes it).
 */
#define LCA_LOG_PART lca_logtype_remote
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "lca_eal.h"
#include "lca_logtypes_priv.h"
#include "lca_remote_eth_priv.h"

/* What acked_upto() found in a frame's ack and credit. */
enum ack_fate { ACK_OK, ACK_BEYOND_SENT, CREDIT_BEYOND_WINDOW };

/*
 * A frame broke the channel protocol (docs/wire.md, "Protocol errors"): a
 * peer that says it got frames we never sent, or lets us send past what
 * it can keep, cannot be trusted with the frames in flight. Count it, log
 * it (rm_log_allowed()), and reset the session: the peer is declared down.
 */
static void
proto_error(struct chan *ch, enum ack_fate f, uint32_t ack, uint32_t credit, uint64_t now)
{
	uint64_t quiet;

	rm_count(f == ACK_BEYOND_SENT ? &ch->st.ack_beyond_sent : &ch->st.credit_beyond_window, 1);
	if (rm_log_allowed(&rm_eth.proto_log, now, &quiet))
		LCA_LOG(ERR, "remote: node %u, lcore %u from its lcore %u%s: protocol error: %s %u"
			" past %u (ack %u, last frame sent %u, window %u); session reset"
			" (%" PRIu64 " more not logged)\n",
			rm.peers[ch->peer].n.id, rte_lcore_id(), ch->peer_lcore,
			ch->large ? " (large lane)" : "", f == ACK_BEYOND_SENT ? "ack" : "credit",
			f == ACK_BEYOND_SENT ? ack : credit,
			f == ACK_BEYOND_SENT ? ch->sent_seq : ch->acked + rm.window, ack,
			ch->sent_seq, rm.window, quiet);
	rm_peer_dead(ch->peer, f == ACK_BEYOND_SENT ? "protocol error (ack past what was sent)"
						    : "protocol error (credit past the window)");
}

/* @p n more frames acked: after a loss, the frames allowed in flight
 * grow back by one for each cwnd of them (additive increase). */
static inline void
cwnd_acked(struct chan *ch, uint32_t n)
{
	if (likely(ch->cwnd >= rm.window))
		return;
	ch->cwnd_acked += n;
	if (ch->cwnd_acked >= ch->cwnd) {
		ch->cwnd_acked -= ch->cwnd;
		ch->cwnd++;
	}
}

static enum ack_fate
acked_upto(struct chan *ch, uint32_t ack, uint32_t credit, uint64_t now)
{
	/* A cumulative ack below ours is an old frame's (a retransmission
	 * carries its first ack): harmless. One past the last frame sent
	 * acknowledges what never left. */
	if (unlikely(seq_lt(ch->sent_seq, ack)))
		return ACK_BEYOND_SENT;
	if (seq_lt(ch->acked, ack)) {
		const struct tx_slot *last = &ch->tx[ack & (rm.window - 1)];

		/* RFC 6298's estimator, sampled from frames sent once (Karn):
		 * the timeout follows the peer's real turnaround (its loop, its
		 * scheduling), never below rto_us. */
		if (!last->resent && last->m != NULL) {
			uint64_t r = now - last->sent_tsc;

			if (ch->srtt == 0) {
				ch->srtt = r;
				ch->rttvar = r / 2;
			} else {
				uint64_t dev = r > ch->srtt ? r - ch->srtt : ch->srtt - r;

				ch->rttvar = (3 * ch->rttvar + dev) / 4;
				ch->srtt = (7 * ch->srtt + r) / 8;
			}
		}
		cwnd_acked(ch, ack - ch->acked);
		while (ch->acked != ack) {
			struct tx_slot *s = &ch->tx[++ch->acked & (rm.window - 1)];

			rte_pktmbuf_free(s->m);
			s->m = NULL;
		}
		ch->rto = ch->srtt + 4 * ch->rttvar;
		ch->rto = RTE_MAX(ch->rto, rm_eth.rto_min);
		ch->rto = RTE_MIN(ch->rto, rm_eth.rto_max);
		ch->rto_tsc = ch->acked == ch->sent_seq ? 0 : now + ch->rto;
		ch->progress_tsc = now;
		ch->n_rtx = 0;
		__atomic_store_n(&ch->st.in_flight, ch->sent_seq - ch->acked, __ATOMIC_RELAXED);
	}
	/* The peer grants delivered + window, and delivered <= its ack <=
	 * ours: a credit past acked + window is a peer with another window or
	 * a broken one. A credit below the one granted is an old frame's. */
	if (unlikely(seq_lt(ch->acked + rm.window, credit)))
		return CREDIT_BEYOND_WINDOW;
	if (seq_lt(ch->credit, credit))
		ch->credit = credit;
	return ACK_OK;
}

/* Resend @p seq if it is still unacknowledged and was not sent in the last
 * rto_us: NAKs repeat until a gap fills, and an answer to each would be a
 * storm. (Not srtt: its samples include the peer's credit waits, and NAKs
 * then went unanswered until the timeout.) A frame already resent waits
 * the channel's timeout instead: its copy is on its way behind the frames
 * queued at the receiver, and the NAKs those frames bring would only send
 * it again. */
static void
resend_hole(struct rm_lcore *rl, struct chan *ch, uint32_t seq, uint64_t now)
{
	const struct tx_slot *s = &ch->tx[seq & (rm.window - 1)];

	if (seq_lt(ch->acked, seq) && seq_le(seq, ch->sent_seq) && s->m != NULL &&
	    now - s->sent_tsc >= (s->resent ? ch->rto : rm_eth.rto_min)) {
		eth_cwnd_loss(ch, seq);
		eth_retransmit(rl, ch, seq, now);
	}
}

/* A NAK: the first missing frame, and the holes its selective ack shows
 * below the highest frame that arrived. */
static void
nak_answer(struct rm_lcore *rl, struct chan *ch, uint32_t nak, uint32_t sack, uint64_t now)
{
	resend_hole(rl, ch, nak, now);
	for (unsigned int i = 0; i < 32 && sack >> i != 0; i++)
		if (!(sack & (1u << i)))
			resend_hole(rl, ch, nak + 1 + i, now);
}

/* What became of a record: delivered, or dropped and counted (the next
 * one's turn), or it must wait for a mailbox, an envelope or an mbuf. */
enum rec_fate { REC_DONE, REC_WAIT };

/* Drop the message being put together: a broken sender. */
static void
asm_drop(struct chan *ch)
{
	rm_count_shared(&rm.st.malformed, 1);
	rte_pktmbuf_free(ch->asm_head);
	ch->asm_head = NULL;
	ch->asm_got = 0;
}

/* Chain fragment record @p r (@p len bytes, at ch->head.off of frame @p m)
 * to the message being put together, as an indirect mbuf into the frame:
 * no copy. Sets ch->asm_complete at its last byte. */
static enum rec_fate
frag_add(struct chan *ch, struct rte_mbuf *m, const struct wire_msg *r, uint16_t len)
{
	const struct wire_frag *f = (const struct wire_frag *)(r + 1);
	uint32_t total = rte_be_to_cpu_32(f->total);
	uint32_t off = rte_be_to_cpu_32(f->offset);
	struct rte_mbuf *c;

	/* In sequence, fragments come in order: anything else is a broken
	 * sender. */
	if (off != ch->asm_got || (ch->asm_head != NULL && total != ch->asm_total)) {
		asm_drop(ch);
		return REC_DONE;
	}
	c = rte_pktmbuf_clone(m, m->pool);
	if (c == NULL) {
		rm_count_shared(&rm.st.no_mbuf, 1);
		return REC_WAIT;
	}
	rte_pktmbuf_adj(c, (uint16_t)(ch->head.off + WIRE_MSG_LEN + WIRE_FRAG_LEN));
	rte_pktmbuf_trim(c, (uint16_t)(c->pkt_len - (len - WIRE_FRAG_LEN)));
	if (ch->asm_head == NULL) {
		ch->asm_head = c;
		ch->asm_tail = c;
		ch->asm_total = total;
	} else if (ch->asm_head->nb_segs == UINT16_MAX) {
		/* More segments than an mbuf chain holds. */
		rte_pktmbuf_free(c);
		asm_drop(ch);
		return REC_DONE;
	} else {
		/* rte_pktmbuf_chain() walks the chain: keep its tail instead. */
		ch->asm_tail->next = c;
		ch->asm_tail = c;
		ch->asm_head->nb_segs++;
		ch->asm_head->pkt_len += c->pkt_len;
	}
	ch->asm_got += len - WIRE_FRAG_LEN;
	if (ch->asm_got >= ch->asm_total)
		ch->asm_complete = true;
	return REC_DONE;
}

/* A fragment record of the large lane: into the message being put
 * together, and that message to its actor once it is whole. */
static enum rec_fate
frag_deliver(struct chan *ch, struct rte_mbuf *m, const struct wire_msg *r, uint16_t len)
{
	struct lca_msg *e;
	int ret;

	if (!ch->asm_complete) {
		if (frag_add(ch, m, r, len) == REC_WAIT)
			return REC_WAIT;
		if (!ch->asm_complete)
			return REC_DONE;
	}
	if (lca_msg_alloc(&e) != 0)
		return REC_WAIT;
	e->ptr = ch->asm_head;
	e->flags |= LCA_MSG_F_MBUF;
	ret = rm_rec_send(r, e);
	if (unlikely(ret == -ENOBUFS || ret == -ENOMEM)) {
		e->ptr = NULL;
		e->flags &= (uint8_t)~LCA_MSG_F_MBUF;
		lca_msg_free(e);
		return REC_WAIT;
	}
	if (ret != 0) {
		lca_msg_free(e); /* and the message's mbufs */
		rm_count(&ch->st.undeliverable, 1);
	} else {
		rm_count(&ch->st.msgs_delivered, 1);
	}
	ch->asm_head = NULL;
	ch->asm_got = 0;
	ch->asm_complete = false;
	return REC_DONE;
}

/* Every record of frame rcv_next is delivered: free it, on to the next. */
static void
frame_done(struct rm_lcore *rl, struct chan *ch, struct rx_slot *s)
{
	rte_pktmbuf_free(s->m);
	s->m = NULL;
	ch->head.i = 0;
	ch->rcv_next++;
	/* The credit grew. */
	ch->need_ack = true;
	chan_dirty(rl, ch);
}

/* Delivery to do: the hooks do it. */
static void
chan_pending(struct rm_lcore *rl, struct chan *ch)
{
	if (!ch->pending) {
		ch->pending = true;
		rl->n_pending++;
	}
}

/* Delivery waits for room in a mailbox: every poll tries again. */
static void
chan_block(struct rm_lcore *rl, struct chan *ch)
{
	if (!ch->held) {
		ch->held = true;
		rm_count(&ch->st.held, 1);
	}
	chan_pending(rl, ch);
}

unsigned int
eth_deliver(struct rm_lcore *rl, struct chan *ch)
{
	unsigned int done = 0;

	for (;;) {
		struct rx_slot *s = &ch->rx[ch->rcv_next & (rm.window - 1)];
		struct rte_mbuf *m = s->m;

		if (m == NULL || s->seq != ch->rcv_next)
			break;
		if (ch->head.i == 0)
			ch->head.off = s->rec_off;
		for (;;) {
			uint16_t before = ch->head.i;
			const struct wire_msg *r;
			enum rm_recs_fate fate;

			/* Run to completion: this is the lcore's own RX, a
			 * loop hook's, as a channel's drain. */
			fate = rm_recs_deliver(rte_pktmbuf_mtod(m, const uint8_t *), s->n_msgs,
					       &ch->head, &rl->spare, m, true, &ch->st);
			done += ch->head.i - before;
			if (fate == RM_RECS_DONE)
				break;
			if (fate == RM_RECS_WAIT)
				goto blocked;
			r = rte_pktmbuf_mtod_offset(m, const struct wire_msg *, ch->head.off);
			if (frag_deliver(ch, m, r, rte_be_to_cpu_16(r->len)) == REC_WAIT)
				goto blocked;
			rm_rec_cursor_step(&ch->head, r);
			done++;
		}
		frame_done(rl, ch, s);
	}
	ch->held = false;
	if (ch->pending) {
		ch->pending = false;
		rl->n_pending--;
	}
	return done;
blocked:
	chan_block(rl, ch);
	return done;
}

static void
rx_data(struct rm_lcore *rl, struct chan *ch, struct rte_mbuf *m, const struct wire_view *v,
	uint32_t seq)
{
	struct rx_slot *s = &ch->rx[seq & (rm.window - 1)];

	ch->need_ack = true;
	chan_dirty(rl, ch);
	if (seq_lt(seq, ch->rcv_next) || (s->m != NULL && s->seq == seq)) {
		rm_count(&ch->st.duplicates, 1);
		rte_pktmbuf_free(m);
		return;
	}
	if (!seq_lt(seq, ch->rcv_next + rm.window)) {
		rm_count(&ch->st.out_of_window, 1);
		rte_pktmbuf_free(m);
		return;
	}
	s->m = m;
	s->seq = seq;
	s->rec_off = (uint16_t)(v->msgs - rte_pktmbuf_mtod(m, const uint8_t *));
	s->n_msgs = rte_be_to_cpu_16(v->hdr->n_msgs);
	rm_count(&ch->st.frames_rx, 1);
	if (seq != ch->rcv_contig + 1)
		rm_count(&ch->st.reordered, 1);
	if (seq_lt(ch->rcv_high, seq))
		ch->rcv_high = seq;
	for (;;) {
		const struct rx_slot *n = &ch->rx[(ch->rcv_contig + 1) & (rm.window - 1)];

		if (n->m == NULL || n->seq != ch->rcv_contig + 1)
			break;
		ch->rcv_contig++;
	}
	/* A gap: ask for its first frame. */
	ch->need_nak = seq_lt(ch->rcv_contig, ch->rcv_high);
	if (seq == ch->rcv_next)
		chan_pending(rl, ch);
}

/* What a frame of the session says for our TX side of @p ch: the peer is
 * alive, its ack and credit, its NAK. @return false on a protocol error
 * (the session is reset: drop the frame). */
static bool
rx_ctrl(struct rm_lcore *rl, struct chan *ch, const struct wire_hdr *h, uint64_t now)
{
	if (unlikely(ch->last_rx_tsc == 0)) {
		/* Retries count from the first frame heard: the peer may
		 * have started after our first frames. */
		ch->progress_tsc = now;
		ch->n_rtx = 0;
		__atomic_store_n(&ch->st.connected, 1, __ATOMIC_RELAXED);
	}
	ch->last_rx_tsc = now;
	if (h->flags & WIRE_F_ACK) {
		uint32_t ack = rte_be_to_cpu_32(h->ack), credit = rte_be_to_cpu_32(h->credit);
		enum ack_fate f = acked_upto(ch, ack, credit, now);

		if (unlikely(f != ACK_OK)) {
			proto_error(ch, f, ack, credit, now);
			return false;
		}
	}
	if (h->flags & WIRE_F_NAK) {
		rm_count(&ch->st.naks_rx, 1);
		nak_answer(rl, ch, rte_be_to_cpu_32(h->nak), rte_be_to_cpu_32(h->sack), now);
	}
	return true;
}

static void
rx_frame(struct rm_lcore *rl, struct rte_mbuf *m, uint64_t now)
{
	struct wire_view v;
	const struct wire_hdr *h;
	const struct rm_peer *pe;
	struct chan *ch = NULL;
	unsigned int node;
	uint32_t session;
	int p;

	if (unlikely(m->nb_segs != 1 ||
		     wire_decode(rte_pktmbuf_mtod(m, const uint8_t *), m->data_len, &v) != WIRE_OK)) {
		rm_count_shared(&rm.st.malformed, 1);
		rte_pktmbuf_free(m);
		return;
	}
	/* Lengths only so far: the tag before any field means anything. */
	if (unlikely(!eth_tag_ok(rte_pktmbuf_mtod(m, const uint8_t *), &v, now))) {
		rte_pktmbuf_free(m);
		return;
	}
	h = v.hdr;
	if (v.dst_ip != rm.self.ipv4 || rte_be_to_cpu_16(h->dst_node) != rm.self.id ||
	    v.dst_port != rm.self.udp_base + rl->lcore) {
		rm_count_shared(&rm.st.not_for_us, 1);
		rte_pktmbuf_free(m);
		return;
	}
	node = rte_be_to_cpu_16(h->src_node);
	p = node < LCA_REMOTE_NODE_MAX ? rm.peer_of_node[node] : -1;
	if (p >= 0) {
		pe = &rm.peers[p];
		for (unsigned int k = 0; k < pe->n.n_lcores; k++)
			if (v.src_port == pe->n.udp_base + pe->n.lcores[k]) {
				ch = chan_of(rl, (unsigned int)p, k);
				break;
			}
	}
	if (ch == NULL || v.src_ip != rm.peers[p].n.ipv4) {
		rm_count_shared(&rm.st.unknown_peer, 1);
		rte_pktmbuf_free(m);
		return;
	}
	if (h->flags & WIRE_F_LARGE)
		ch = lane_large(rl, ch);
	session = rte_be_to_cpu_32(h->session);
	if (unlikely(rm_peer_frame((unsigned int)p, session, rte_be_to_cpu_32(h->peer_session)) !=
		     RM_FRAME_TAKE)) {
		/* Of an epoch that ended: it refers to state gone. */
		rm_count(&ch->st.stale_session, 1);
		rte_pktmbuf_free(m);
		return;
	}
	/* A new session made a new epoch: this channel starts afresh. */
	chan_sync(rl, ch);
	if (!rx_ctrl(rl, ch, h, now)) {
		rte_pktmbuf_free(m);
		return;
	}
	if (unlikely(h->flags & WIRE_F_LEAVE)) {
		/* Of its current session (checked above): it stops. */
		rte_pktmbuf_free(m);
		rm_peer_left((unsigned int)p);
		eth_port_quiet((unsigned int)p, now);
		return;
	}
	if (h->flags & WIRE_F_DATA)
		rx_data(rl, ch, m, &v, rte_be_to_cpu_32(h->seq));
	else
		rte_pktmbuf_free(m);
}

/* The link actor of an lcore: the frames the port's RX steered to it, on
 * the packet lane (no envelope a frame; run at once when it is idle). */
void
eth_link_packets(lca_actor_id_t self, void *state, struct rte_mbuf **pkts, uint16_t n)
{
	struct rm_lcore *rl = *(struct rm_lcore **)state;
	uint64_t now = rte_rdtsc();

	(void)self;
	for (unsigned int i = 0; i < n; i++)
		rx_frame(rl, pkts[i], now);
}

/* Frames that came as messages (a sender that wrapped them). */
void
eth_link_handler(lca_actor_id_t self, void *state, struct lca_msg **msgs, unsigned int n)
{
	struct rte_mbuf *mbufs[LCA_PORT_BURST_MAX];

	while (n > 0) {
		unsigned int c = RTE_MIN(n, (unsigned int)LCA_PORT_BURST_MAX);
		unsigned int k = lca_msg_to_mbuf_bulk(msgs, mbufs, c);

		eth_link_packets(self, state, mbufs, (uint16_t)k);
		msgs += c;
		n -= c;
	}
}

/* The link actor's state: its lcore's channels. */
void
eth_link_init(void *state, void *arg)
{
	*(void **)state = arg;
}

/* The port's classifier: a frame goes to the link actor of the lcore its
 * UDP destination port names; anything else to this lcore's, which counts
 * it. */
void
eth_classify(struct rte_mbuf **pkts, lca_actor_id_t *to, unsigned int n, void *arg)
{
	lca_actor_id_t here = rm_eth.link_actor[rte_lcore_id()];

	(void)arg;
	for (unsigned int i = 0; i < n; i++) {
		const uint8_t *b = rte_pktmbuf_mtod(pkts[i], const uint8_t *);
		unsigned int l;

		to[i] = here;
		if (pkts[i]->data_len < WIRE_OUTER_LEN || b[12] != 0x08 || b[13] != 0 ||
		    b[14] != 0x45)
			continue;
		l = (unsigned int)((b[36] << 8) | b[37]) - rm.self.udp_base;
		if (l < RTE_MAX_LCORE && rm_eth.link_actor[l] != LCA_ACTOR_NONE)
			to[i] = rm_eth.link_actor[l];
	}
}
