/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Remote actors: reliable channels over ethdev frames (docs/wire.md).
 *
 * Every lcore has one channel to each lcore of each peer. A send to a
 * remote reference copies the message into its channel's open frame; the
 * lcore's end hook closes the open frames, keeps each (one mbuf reference)
 * until it is acknowledged, and hands them to the port's TX actor on the
 * same lcore. The port's RX steers each frame by its UDP destination port to
 * the link actor of that lcore, which processes the acks and NAKs for its
 * TX side and delivers the data in sequence. The poll hook runs the timers:
 * retransmission, heartbeat, dead peer; and resumes a delivery that waited
 * for a full mailbox.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>

#include "lca_route.h"
#include "lca_eal.h"
#include "lca_lcore.h"
#include "lca_remote_priv.h"
#include "lca_remote_wire.h"

struct rm_state rm = { .watch_lock = RTE_SPINLOCK_INITIALIZER };

#define DEF_WINDOW 256
#define MAX_WINDOW 4096
#define DEF_RTO_US 50
#define DEF_RTO_MAX_US 20000
#define DEF_HB_MS 10
#define DEF_DEAD_MS 1000
#define DEF_CONNECT_MS 10000
#define DEF_MTU 1500
#define CHECK_US 10
/* mbuf payloads up to this many bytes arrive in a copy, larger ones in an
 * indirect mbuf into the frame. */
#define RM_COPY_MAX 256
#define UCX_DEF_WINDOW 64
#define UCX_DEF_BUF 8192
/* Frames of the large lane in flight: enough to fill a link, few enough
 * that a small message's frame does not queue behind many of them. */
#define LARGE_WINDOW 32u
/* Fragment frames the large lane fills per loop iteration, so that the
 * small messages' frames of the iteration leave between them. */
#define LARGE_BURST 8

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

static inline void
dirty(struct rm_lcore *rl, struct chan *ch)
{
	if (!ch->dirty) {
		ch->dirty = true;
		rl->dirty[rl->n_dirty++] = ch;
	}
}

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

/* TX: the lcore's frames for one port, sent once per loop (tx_flush). */
static void tx_flush(struct rm_lcore *rl, unsigned int pi);

static inline void
tx_add(struct rm_lcore *rl, unsigned int pi, struct rte_mbuf *m)
{
	if (rl->port[pi].n == RM_TXQ_MAX)
		tx_flush(rl, pi);
	rl->port[pi].q[rl->port[pi].n++] = m;
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
			tx_add(rl, pi, m);
		}
		if (rl->port[pi].held == NULL && inject(rl, inj->reorder_ppm)) {
			rm_count(&ch->st.inj_reordered, 1);
			rl->port[pi].held = m;
			rl->port[pi].held_age = 0;
			return;
		}
	}
	tx_add(rl, pi, m);
	if (unlikely(rl->port[pi].held != NULL)) {
		/* What was held goes behind this frame. */
		tx_add(rl, pi, rl->port[pi].held);
		rl->port[pi].held = NULL;
	}
}

static void
tx_flush(struct rm_lcore *rl, unsigned int pi)
{
	struct lca_msg *msgs[RM_TXQ_MAX];
	unsigned int n = rl->port[pi].n, sent;
	int err;

	if (n == 0)
		return;
	rl->port[pi].n = 0;
	/* The lcore's own TX queue: at once, one iteration sooner than
	 * through the TX actor and without an envelope a frame. */
	if (likely(lca_port_tx_now(rm.ports[pi], rl->port[pi].q, n) == 0))
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
	h->flags = flags | WIRE_F_ACK | (ch->large ? WIRE_F_LARGE : 0);
	h->n_msgs = rte_cpu_to_be_16(n_msgs);
	h->src_node = rte_cpu_to_be_16(rm.self.id);
	h->dst_node = rte_cpu_to_be_16(p->n.id);
	h->seq = rte_cpu_to_be_32(seq);
	h->ack = rte_cpu_to_be_32(ch->rcv_contig);
	h->credit = rte_cpu_to_be_32(ch->rcv_next - 1 + rm.window);
	h->nak = rte_cpu_to_be_32(ch->need_nak ? ch->rcv_contig + 1 : 0);
	h->session = rte_cpu_to_be_32(rm.session);
	h->sack = rte_cpu_to_be_32(ch->need_nak ? sack_of(ch) : 0);
	if (ch->need_nak)
		rm_count(&ch->st.naks_sent, 1);
	ch->need_ack = false;
	ch->need_nak = false;
}

/* A frame without data: an ack, a NAK or a heartbeat. */
static void
send_ack(struct rm_lcore *rl, struct chan *ch, uint8_t flags, uint64_t now)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(rl->port[ch->port].pool);
	uint8_t *buf;

	if (m == NULL) {
		rm_count_shared(&rm.st.no_mbuf, 1);
		return;
	}
	buf = rte_pktmbuf_mtod(m, uint8_t *);
	hdr_write(ch, buf, WIRE_HDR_LEN, flags, 0, 0);
	m->data_len = WIRE_OUTER_LEN + WIRE_HDR_LEN;
	m->pkt_len = m->data_len;
	rm_count(&ch->st.acks_sent, 1);
	tx_frame(rl, ch, m, now);
}

/* Close the open frame: headers, keep it, send it. */
static void
frame_close(struct rm_lcore *rl, struct chan *ch, uint64_t now)
{
	struct rte_mbuf *m = ch->open;
	struct tx_slot *s = &ch->tx[ch->open_seq & (rm.window - 1)];

	hdr_write(ch, rte_pktmbuf_mtod(m, uint8_t *), ch->open_off - WIRE_OUTER_LEN, WIRE_F_DATA,
		  ch->open_seq, ch->open_n);
	m->data_len = ch->open_off;
	m->pkt_len = ch->open_off;
	s->m = m;
	s->sent_tsc = now;
	s->resent = false;
	s->n_msgs = ch->open_n;
	ch->sent_seq = ch->open_seq;
	ch->open = NULL;
	if (ch->rto_tsc == 0)
		ch->rto_tsc = now + ch->rto;
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
	    ch->next_seq - ch->acked > (ch->large ? RTE_MIN(rm.window, LARGE_WINDOW) : rm.window)) {
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
	dirty(rl, ch);
	return 0;
}

/*
 * A memif pair has the rings the client asks for. A server TX queue beyond
 * them gets no ring of its own: the PMD leaves its ring offset 0, which is
 * the client's first C2S ring, so what the server sends there is written
 * into the ring the client sends on (frames lost, descriptors overwritten:
 * node 1 on -l 0-1 with a one-lcore peer never ended a run, and once died
 * of SIGSEGV). Each lcore sends on its own TX queue, so both sides of a
 * memif port take as many queues as the side with the most lcores (the
 * extra RX queues go round the lcores). 0 (one a lcore) for any other PMD.
 */
static uint16_t
memif_queues(unsigned int pi)
{
	struct rte_eth_dev_info info;
	unsigned int n = rm.n_lcores;

	if (rte_eth_dev_info_get(rm.port_ids[pi], &info) != 0 || info.driver_name == NULL ||
	    strcmp(info.driver_name, "net_memif") != 0)
		return 0;
	for (unsigned int p = 0; p < rm.n_peers; p++)
		if (rm.peers[p].port == pi)
			n = RTE_MAX(n, rm.peers[p].n.n_lcores);
	return (uint16_t)n;
}

static bool warned_ptr;

int64_t
rm_payload_len(const struct lca_msg *msg, lca_actor_id_t to)
{
	if (msg->flags & LCA_MSG_F_MBUF)
		return ((const struct rte_mbuf *)msg->ptr)->pkt_len;
	if (unlikely(msg->ptr != NULL || msg->len > LCA_MSG_INLINE)) {
		if (!warned_ptr) {
			warned_ptr = true;
			LCA_LOG(ERR, "remote send to %#x: a ptr payload crosses to another node only "
				"in an mbuf (lca_msg_from_mbuf()), which declares its size\n", to);
		}
		return -EINVAL;
	}
	return msg->len;
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
		frame_close(rl, ch, rte_rdtsc());
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
static unsigned int
big_pump(struct rm_lcore *rl, struct chan *ch)
{
	const struct rte_mbuf *mb = ch->big->ptr;
	unsigned int done = 0, frames = 0;

	while (ch->big_off < ch->big_total) {
		uint32_t room, chunk;
		struct wire_msg *r;
		struct wire_frag *f;

		if (ch->open != NULL &&
		    ch->open_off + wire_rec_len(WIRE_FRAG_LEN + 64) > rm.frame_cap) {
			frame_close(rl, ch, rte_rdtsc());
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
	if (((const struct rte_mbuf *)msg->ptr)->pkt_len > UINT32_MAX / 2)
		return -EMSGSIZE;
	lca_msg_keep(msg);
	lane->big = msg;
	lane->big_off = 0;
	lane->big_total = ((const struct rte_mbuf *)msg->ptr)->pkt_len;
	lane->big_to = lca_remote_local(to);
	lane->big_from = rm_wire_from(from);
	rl->n_big++;
	big_pump(rl, lane);
	return 0;
}

/* lca_send()'s route for remote references (remote_send_hook). */
static unsigned int
remote_send(lca_actor_id_t from, lca_actor_id_t to, struct lca_msg **msgs, unsigned int n,
	    int *err)
{
	unsigned int lcore = rte_lcore_id(), sent = 0;
	struct rm_lcore *rl = lcore < RTE_MAX_LCORE ? rm.lc[lcore] : NULL;
	unsigned int node = lca_remote_node(to);
	int why = 0, p;

	if (!rm.up || to == LCA_ACTOR_NONE || node >= LCA_REMOTE_NODE_MAX ||
	    (p = rm.peer_of_node[node]) < 0) {
		why = -ESRCH;
	} else if (__atomic_load_n(&rm.peers[p].dead, __ATOMIC_RELAXED)) {
		why = -EHOSTDOWN;
	} else if (rm.conf.transport == LCA_REMOTE_UCX) {
		sent = rm_ucx_send(lcore, (unsigned int)p, from, to, msgs, n, &why);
	} else if (rl == NULL) {
		why = -EPERM;
	} else {
		const struct rm_peer *pe = &rm.peers[p];
		struct chan *ch = chan_of(rl, (unsigned int)p, lca_remote_local(to) % pe->n.n_lcores);

		unsigned int freed = 0;

		for (; sent < n; sent++) {
			struct lca_msg *m = msgs[sent];

			if (unlikely(m == NULL)) {
				why = -EINVAL;
				break;
			}
			if (unlikely((m->flags & LCA_MSG_F_MBUF) &&
				     WIRE_OUTER_LEN + WIRE_HDR_LEN +
						     wire_rec_len(((const struct rte_mbuf *)m->ptr)
									  ->pkt_len) >
					     rm.frame_cap)) {
				/* Larger than a frame: the large lane keeps it until
				 * its last fragment is in a frame. */
				lca_msg_free_bulk(msgs + freed, sent - freed);
				why = big_put(rl, ch, from, to, m);
				if (why != 0)
					break;
				freed = sent + 1;
				continue;
			}
			why = chan_put(rl, ch, from, to, m);
			if (why != 0)
				break;
		}
		/* The bytes are in the frame: the envelopes are the runtime's. */
		lca_msg_free_bulk(msgs + freed, sent - freed);
	}
	if (unlikely(why != 0))
		send_failed(why);
	if (err != NULL)
		*err = why;
	return sent;
}

/* ---- RX ---- */

static void
acked_upto(struct chan *ch, uint32_t ack, uint32_t credit, uint64_t now)
{
	if (seq_lt(ch->acked, ack) && seq_le(ack, ch->sent_seq)) {
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
		while (ch->acked != ack) {
			struct tx_slot *s = &ch->tx[++ch->acked & (rm.window - 1)];

			rte_pktmbuf_free(s->m);
			s->m = NULL;
		}
		ch->rto = ch->srtt + 4 * ch->rttvar;
		ch->rto = RTE_MAX(ch->rto, rm.rto_min);
		ch->rto = RTE_MIN(ch->rto, rm.rto_max);
		ch->rto_tsc = ch->acked == ch->sent_seq ? 0 : now + ch->rto;
		__atomic_store_n(&ch->st.in_flight, ch->sent_seq - ch->acked, __ATOMIC_RELAXED);
	}
	/* A credit never shrinks below what was granted, and never runs past
	 * the window we can keep. */
	if (seq_lt(ch->credit, credit) && seq_le(credit, ch->acked + rm.window))
		ch->credit = credit;
}

static void
retransmit(struct rm_lcore *rl, struct chan *ch, uint32_t seq, uint64_t now)
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

/* Resend @p seq if it is still unacknowledged and was not sent in the last
 * rto_us: NAKs repeat until a gap fills, and an answer to each would be a
 * storm. (Not srtt: its samples include the peer's credit waits, and NAKs
 * then went unanswered until the timeout.) */
static void
resend_hole(struct rm_lcore *rl, struct chan *ch, uint32_t seq, uint64_t now)
{
	const struct tx_slot *s = &ch->tx[seq & (rm.window - 1)];

	if (seq_lt(ch->acked, seq) && seq_le(seq, ch->sent_seq) && s->m != NULL &&
	    now - s->sent_tsc >= rm.rto_min)
		retransmit(rl, ch, seq, now);
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

lca_actor_id_t
rm_from_of(uint32_t from)
{
	if (from == LCA_ACTOR_NONE || from < LCA_ACTOR_REMOTE_BASE)
		return LCA_ACTOR_NONE;
	if (lca_remote_node(from) == rm.self.id && !rm.conf.loopback)
		return lca_remote_local(from);
	return from;
}

void
rm_spare_release(struct rm_spare *s)
{
	if (s->n > 0)
		rte_pktmbuf_free_bulk(s->m, s->n);
	s->n = 0;
}

static struct rte_mbuf *
spare_get(struct rm_spare *s)
{
	if (s->n == 0) {
		if (rte_pktmbuf_alloc_bulk(s->pool, s->m, RM_SPARE) != 0)
			return rte_pktmbuf_alloc(s->pool); /* the pool's last few */
		s->n = RM_SPARE;
	}
	return s->m[--s->n];
}

struct rte_mbuf *
rm_mbuf_copy(struct rm_spare *s, const uint8_t *src, uint32_t len)
{
	struct rte_mbuf *head = NULL, *tail = NULL;

	do {
		struct rte_mbuf *m = head == NULL ? spare_get(s) : rte_pktmbuf_alloc(s->pool);
		uint32_t chunk;

		if (m == NULL) {
			rte_pktmbuf_free(head);
			return NULL;
		}
		chunk = RTE_MIN(len, (uint32_t)rte_pktmbuf_tailroom(m));
		if (src != NULL) {
			rte_memcpy(rte_pktmbuf_append(m, (uint16_t)chunk), src, chunk);
			src += chunk;
		} else {
			rte_pktmbuf_append(m, (uint16_t)chunk);
		}
		if (head == NULL) {
			head = m;
		} else {
			tail->next = m;
			head->nb_segs++;
			head->pkt_len += chunk;
		}
		tail = m;
		len -= chunk;
	} while (len > 0);
	return head;
}

int
rm_rec_send(const struct wire_msg *r, struct lca_msg *e)
{
	uint32_t to = rte_be_to_cpu_32(r->to);

	e->type = rte_be_to_cpu_32(r->type);
	if (to >= LCA_ACTOR_REMOTE_BASE)
		return -ESRCH;
	return lca_send_from(rm_from_of(rte_be_to_cpu_32(r->from)), to, e);
}

int
rm_rec_deliver(const struct wire_msg *r, struct rm_spare *spare, struct rte_mbuf *frame,
	       uint32_t off, struct lca_remote_link_stats *st)
{
	uint16_t len = rte_be_to_cpu_16(r->len);
	struct lca_msg *e;
	int ret;

	if (lca_msg_alloc(&e) != 0)
		return -ENOBUFS;
	if (rte_be_to_cpu_16(r->flags) & WIRE_MSG_F_MBUF) {
		struct rte_mbuf *c;

		/* A small payload is cheaper copied than shared: an indirect
		 * mbuf costs two atomics on the frame's refcount and a detach
		 * at its free. */
		if (frame == NULL || len <= RM_COPY_MAX) {
			c = rm_mbuf_copy(spare, (const uint8_t *)(r + 1), len);
		} else {
			c = rte_pktmbuf_clone(frame, frame->pool);
			if (c != NULL) {
				rte_pktmbuf_adj(c, (uint16_t)(off + WIRE_MSG_LEN));
				rte_pktmbuf_trim(c, (uint16_t)(c->pkt_len - len));
			}
		}
		if (c == NULL) {
			lca_msg_free(e);
			rm_count_shared(&rm.st.no_mbuf, 1);
			return -ENOBUFS;
		}
		e->ptr = c;
		e->flags |= LCA_MSG_F_MBUF;
	} else {
		memcpy(e->data, r + 1, len);
		e->len = len;
	}
	ret = rm_rec_send(r, e);
	if (unlikely(ret != 0)) {
		lca_msg_free(e); /* and its mbuf */
		if (ret == -ENOBUFS || ret == -ENOMEM)
			return -ENOBUFS;
		rm_count(&st->undeliverable, 1);
	} else {
		rm_count(&st->msgs_delivered, 1);
	}
	return 0;
}

/* Deliver what arrived in sequence; stop at a full mailbox. */
static unsigned int
deliver(struct rm_lcore *rl, struct chan *ch)
{
	unsigned int done = 0;

	for (;;) {
		struct rx_slot *s = &ch->rx[ch->rcv_next & (rm.window - 1)];
		struct rte_mbuf *m = s->m;

		if (m == NULL || s->seq != ch->rcv_next)
			break;
		if (ch->head_i == 0)
			ch->head_off = s->rec_off;
		while (ch->head_i < s->n_msgs) {
			const struct wire_msg *r =
				rte_pktmbuf_mtod_offset(m, const struct wire_msg *, ch->head_off);
			uint16_t len = rte_be_to_cpu_16(r->len);
			struct lca_msg *e;
			int ret;

			if (rte_be_to_cpu_16(r->flags) & WIRE_MSG_F_FRAG) {
				if (!ch->asm_complete) {
					const struct wire_frag *f = (const struct wire_frag *)(r + 1);
					uint32_t total = rte_be_to_cpu_32(f->total);
					uint32_t off = rte_be_to_cpu_32(f->offset);
					struct rte_mbuf *c;

					/* In sequence, fragments come in order: anything
					 * else is a broken sender. */
					if (off != ch->asm_got ||
					    (ch->asm_head != NULL && total != ch->asm_total)) {
						rm_count_shared(&rm.st.malformed, 1);
						rte_pktmbuf_free(ch->asm_head);
						ch->asm_head = NULL;
						ch->asm_got = 0;
						goto next_record;
					}
					c = rte_pktmbuf_clone(m, m->pool);
					if (c == NULL) {
						rm_count_shared(&rm.st.no_mbuf, 1);
						goto blocked;
					}
					rte_pktmbuf_adj(c, (uint16_t)(ch->head_off + WIRE_MSG_LEN +
								      WIRE_FRAG_LEN));
					rte_pktmbuf_trim(c, (uint16_t)(c->pkt_len -
								       (len - WIRE_FRAG_LEN)));
					if (ch->asm_head == NULL) {
						ch->asm_head = c;
						ch->asm_tail = c;
						ch->asm_total = total;
					} else if (ch->asm_head->nb_segs == UINT16_MAX) {
						/* More segments than an mbuf chain holds. */
						rte_pktmbuf_free(c);
						rm_count_shared(&rm.st.malformed, 1);
						rte_pktmbuf_free(ch->asm_head);
						ch->asm_head = NULL;
						ch->asm_got = 0;
						goto next_record;
					} else {
						/* rte_pktmbuf_chain() walks the chain: keep
						 * its tail instead. */
						ch->asm_tail->next = c;
						ch->asm_tail = c;
						ch->asm_head->nb_segs++;
						ch->asm_head->pkt_len += c->pkt_len;
					}
					ch->asm_got += len - WIRE_FRAG_LEN;
					if (ch->asm_got < ch->asm_total)
						goto next_record;
					ch->asm_complete = true;
				}
				if (lca_msg_alloc(&e) != 0)
					goto blocked;
				e->ptr = ch->asm_head;
				e->flags |= LCA_MSG_F_MBUF;
				ret = rm_rec_send(r, e);
				if (unlikely(ret == -ENOBUFS || ret == -ENOMEM)) {
					e->ptr = NULL;
					e->flags &= (uint8_t)~LCA_MSG_F_MBUF;
					lca_msg_free(e);
					goto blocked;
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
				goto next_record;
			}
			if (rm_rec_deliver(r, &rl->spare, m, ch->head_off, &ch->st) != 0)
				goto blocked;
next_record:
			ch->head_i++;
			ch->head_off = (uint16_t)(ch->head_off + wire_rec_len(len));
			done++;
		}
		rte_pktmbuf_free(m);
		s->m = NULL;
		ch->head_i = 0;
		ch->rcv_next++;
		/* The credit grew. */
		ch->need_ack = true;
		dirty(rl, ch);
	}
	if (ch->blocked) {
		ch->blocked = false;
		rl->n_blocked--;
	}
	return done;
blocked:
	if (!ch->blocked) {
		ch->blocked = true;
		rl->n_blocked++;
		rm_count(&ch->st.held, 1);
	}
	return done;
}

static void
rx_data(struct rm_lcore *rl, struct chan *ch, struct rte_mbuf *m, const struct wire_view *v,
	uint32_t seq)
{
	struct rx_slot *s = &ch->rx[seq & (rm.window - 1)];

	ch->need_ack = true;
	dirty(rl, ch);
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
	if (!ch->blocked)
		deliver(rl, ch);
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
	if (__atomic_load_n(&rm.peers[p].dead, __ATOMIC_RELAXED)) {
		rte_pktmbuf_free(m);
		return;
	}
	session = rte_be_to_cpu_32(h->session);
	if (ch->peer_session == 0) {
		ch->peer_session = session;
	} else if (ch->peer_session != session) {
		/* It restarted: what it had of ours is gone. */
		rte_pktmbuf_free(m);
		rm_peer_dead((unsigned int)p, "restarted (new session)");
		return;
	}
	ch->last_rx_tsc = now;
	if (unlikely(!ch->st.connected))
		__atomic_store_n(&ch->st.connected, 1, __ATOMIC_RELAXED);
	if (h->flags & WIRE_F_ACK)
		acked_upto(ch, rte_be_to_cpu_32(h->ack), rte_be_to_cpu_32(h->credit), now);
	if (h->flags & WIRE_F_NAK) {
		uint32_t nak = rte_be_to_cpu_32(h->nak);

		rm_count(&ch->st.naks_rx, 1);
		nak_answer(rl, ch, nak, rte_be_to_cpu_32(h->sack), now);
	}
	if (h->flags & WIRE_F_DATA)
		rx_data(rl, ch, m, &v, rte_be_to_cpu_32(h->seq));
	else
		rte_pktmbuf_free(m);
}

/* The link actor of an lcore: the frames the port's RX steered to it. */
static void
link_handler(lca_actor_id_t self, void *state, struct lca_msg **msgs, unsigned int n)
{
	struct rm_lcore *rl = *(struct rm_lcore **)state;
	struct rte_mbuf *mbufs[LCA_PORT_BURST_MAX];
	uint64_t now = rte_rdtsc();
	unsigned int k;

	(void)self;
	while (n > 0) {
		unsigned int c = RTE_MIN(n, (unsigned int)LCA_PORT_BURST_MAX);

		k = lca_msg_to_mbuf_bulk(msgs, mbufs, c);
		for (unsigned int i = 0; i < k; i++)
			rx_frame(rl, mbufs[i], now);
		msgs += c;
		n -= c;
	}
}

/* The link actor's state: its lcore's channels. */
static void
link_init(void *state, void *arg)
{
	*(void **)state = arg;
}

/* The port's classifier: a frame goes to the link actor of the lcore its
 * UDP destination port names; anything else to this lcore's, which counts
 * it. */
static void
classify(struct rte_mbuf **pkts, lca_actor_id_t *to, unsigned int n, void *arg)
{
	lca_actor_id_t here = rm.link_actor[rte_lcore_id()];

	(void)arg;
	for (unsigned int i = 0; i < n; i++) {
		const uint8_t *b = rte_pktmbuf_mtod(pkts[i], const uint8_t *);
		unsigned int l;

		to[i] = here;
		if (pkts[i]->data_len < WIRE_OUTER_LEN || b[12] != 0x08 || b[13] != 0 ||
		    b[14] != 0x45)
			continue;
		l = (unsigned int)((b[36] << 8) | b[37]) - rm.self.udp_base;
		if (l < RTE_MAX_LCORE && rm.link_actor[l] != LCA_ACTOR_NONE)
			to[i] = rm.link_actor[l];
	}
}

/* ---- dead peers ---- */

static void
watchers_tell(unsigned int p)
{
	unsigned int node = rm.peers[p].n.id;

	rte_spinlock_lock(&rm.watch_lock);
	for (unsigned int i = 0; i < rm.n_watch; i++) {
		struct lca_terminated t = { .actor = rm.watch[i].target, .by_supervision = 0 };
		struct lca_msg *m;

		if (lca_remote_node(rm.watch[i].target) != node)
			continue;
		if (lca_msg_alloc(&m) != 0)
			continue;
		m->type = LCA_TYPE_NODE_DOWN;
		memcpy(m->data, &t, sizeof(t));
		m->len = sizeof(t);
		if (lca_send_control(rm.watch[i].watcher, m) != 0)
			lca_msg_free(m);
	}
	rte_spinlock_unlock(&rm.watch_lock);
}

void
rm_peer_dead(unsigned int p, const char *why)
{
	uint32_t no = 0;

	if (!__atomic_compare_exchange_n(&rm.peers[p].dead, &no, 1, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_RELAXED))
		return;
	LCA_LOG(ERR, "remote: node %u is dead: %s; sends to it fail with -EHOSTDOWN\n",
		rm.peers[p].n.id, why);
	watchers_tell(p);
}

/* Free what a channel holds; count the unacknowledged messages lost. */
static void
chan_clean(struct rm_lcore *rl, struct chan *ch)
{
	uint64_t lost = 0;

	if (ch->open != NULL) {
		lost += ch->open_n;
		rte_pktmbuf_free(ch->open);
		ch->open = NULL;
	}
	if (ch->big != NULL) {
		lost++;
		lca_msg_free(ch->big);
		ch->big = NULL;
		rl->n_big--;
	}
	rte_pktmbuf_free(ch->asm_head);
	ch->asm_head = NULL;
	ch->asm_got = 0;
	ch->asm_complete = false;
	for (unsigned int i = 0; i < rm.window; i++) {
		if (ch->tx[i].m != NULL) {
			lost += ch->tx[i].n_msgs;
			rte_pktmbuf_free(ch->tx[i].m);
			ch->tx[i].m = NULL;
		}
		if (ch->rx[i].m != NULL) {
			rte_pktmbuf_free(ch->rx[i].m);
			ch->rx[i].m = NULL;
		}
	}
	if (ch->blocked) {
		ch->blocked = false;
		rl->n_blocked--;
	}
	ch->rto_tsc = 0;
	ch->acked = ch->sent_seq;
	rm_count(&ch->st.lost_on_dead, lost);
	__atomic_store_n(&ch->st.in_flight, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&ch->st.dead, 1, __ATOMIC_RELAXED);
	ch->cleaned = true;
}

/* ---- hooks ---- */

static unsigned int
hook_poll(unsigned int lcore_id, uint64_t now, void *arg)
{
	struct rm_lcore *rl = arg;
	unsigned int work = 0;

	(void)lcore_id;
	if (unlikely(rl->n_blocked > 0))
		for (unsigned int i = 0; i < rl->n_chan && rl->n_blocked > 0; i++)
			if (rl->chan[i].blocked)
				work += deliver(rl, &rl->chan[i]);
	if (unlikely(rl->n_big > 0))
		for (unsigned int i = rl->n_chan / 2; i < rl->n_chan; i++)
			if (rl->chan[i].big != NULL &&
			    !__atomic_load_n(&rm.peers[rl->chan[i].peer].dead, __ATOMIC_RELAXED))
				work += big_pump(rl, &rl->chan[i]);
	if (likely(now < rl->next_check))
		return work;
	rl->next_check = now + rm.check;
	for (unsigned int i = 0; i < rl->n_chan; i++) {
		struct chan *ch = &rl->chan[i];
		unsigned int p = ch->peer;

		if (__atomic_load_n(&rm.peers[p].dead, __ATOMIC_RELAXED)) {
			if (!ch->cleaned)
				chan_clean(rl, ch);
			continue;
		}
		if (ch->rto_tsc != 0 && now >= ch->rto_tsc) {
			rm_count(&ch->st.timeouts, 1);
			retransmit(rl, ch, ch->acked + 1, now);
			ch->rto = RTE_MIN(ch->rto * 2, rm.rto_max);
			ch->rto_tsc = now + ch->rto;
			work++;
		}
		if (now - ch->last_tx_tsc >= rm.hb) {
			send_ack(rl, ch, WIRE_F_HEARTBEAT, now);
			work++;
		}
		if (ch->last_rx_tsc != 0 ? now - ch->last_rx_tsc >= rm.dead
					 : now - rm.start_tsc >= rm.connect)
			rm_peer_dead(p, ch->last_rx_tsc != 0 ? "no frame within dead_ms"
							  : "never heard within connect_ms");
	}
	return work;
}

static void
hook_end(unsigned int lcore_id, void *arg)
{
	struct rm_lcore *rl = arg;
	uint64_t now;

	(void)lcore_id;
	if (rl->n_dirty > 0) {
		now = rte_rdtsc();
		for (unsigned int i = 0; i < rl->n_dirty; i++) {
			struct chan *ch = rl->dirty[i];

			ch->dirty = false;
			if (ch->open != NULL)
				frame_close(rl, ch, now);
			else if (ch->need_ack || ch->need_nak)
				send_ack(rl, ch, 0, now);
		}
		rl->n_dirty = 0;
	}
	for (unsigned int pi = 0; pi < rm.n_ports; pi++) {
		if (unlikely(rl->port[pi].held != NULL) && rl->port[pi].held_age++ > 0) {
			tx_add(rl, pi, rl->port[pi].held);
			rl->port[pi].held = NULL;
		}
		tx_flush(rl, pi);
	}
}

/* ---- start and stop ---- */

static int
conf_check(const struct lca_remote_conf *c)
{
	bool self = false;

	if (c->transport != LCA_REMOTE_ETHDEV && c->transport != LCA_REMOTE_UCX) {
		LCA_LOG(ERR, "remote: transport %d (ethdev %d or ucx %d)\n", (int)c->transport,
			LCA_REMOTE_ETHDEV, LCA_REMOTE_UCX);
		return -EINVAL;
	}
	if (c->n_nodes == 0 || c->n_nodes > LCA_REMOTE_MAX_NODES) {
		LCA_LOG(ERR, "remote: %u nodes (1 .. %u)\n", c->n_nodes, LCA_REMOTE_MAX_NODES);
		return -EINVAL;
	}
	if (c->window != 0 && (c->window > MAX_WINDOW || !rte_is_power_of_2(c->window))) {
		LCA_LOG(ERR, "remote: window %u is not a power of two up to %u\n", c->window,
			MAX_WINDOW);
		return -EINVAL;
	}
	if (c->mtu != 0 && (c->mtu < 128 || c->mtu > 9000)) {
		LCA_LOG(ERR, "remote: mtu %u (128 .. 9000)\n", c->mtu);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < c->n_nodes; i++) {
		const struct lca_remote_node *n = &c->nodes[i];

		if (n->id >= LCA_REMOTE_NODE_MAX) {
			LCA_LOG(ERR, "remote: node id %u (0 .. %u)\n", n->id,
				LCA_REMOTE_NODE_MAX - 1);
			return -EINVAL;
		}
		for (unsigned int j = 0; j < i; j++)
			if (c->nodes[j].id == n->id) {
				LCA_LOG(ERR, "remote: node %u twice in the table\n", n->id);
				return -EINVAL;
			}
		if (n->id == c->self)
			self = true;
		if (n->udp_base == 0 || n->n_lcores > LCA_REMOTE_MAX_LCORES) {
			LCA_LOG(ERR, "remote: node %u: udp_base %u, %u lcores\n", n->id,
				n->udp_base, n->n_lcores);
			return -EINVAL;
		}
		if ((n->id != c->self || c->loopback) && n->n_lcores == 0) {
			LCA_LOG(ERR, "remote: node %u lists no lcores\n", n->id);
			return -EINVAL;
		}
		if (c->transport == LCA_REMOTE_ETHDEV && (n->id != c->self || c->loopback) &&
		    !rte_eth_dev_is_valid_port(n->port_id)) {
			LCA_LOG(ERR, "remote: node %u: no ethdev port %u\n", n->id, n->port_id);
			return -EINVAL;
		}
	}
	if (!self) {
		LCA_LOG(ERR, "remote: this node (%u) is not in the table\n", c->self);
		return -EINVAL;
	}
	return 0;
}

static unsigned int
port_index(uint16_t port_id)
{
	for (unsigned int i = 0; i < rm.n_ports; i++)
		if (rm.port_ids[i] == port_id)
			return i;
	rm.port_ids[rm.n_ports] = port_id;
	return rm.n_ports++;
}

static void
lcore_free(struct rm_lcore *rl)
{
	if (rl == NULL)
		return;
	for (unsigned int i = 0; i < rl->n_chan; i++) {
		if (rl->chan[i].tx != NULL && rl->chan[i].rx != NULL)
			chan_clean(rl, &rl->chan[i]);
		rte_free(rl->chan[i].tx);
		rte_free(rl->chan[i].rx);
	}
	rm_spare_release(&rl->spare);
	for (unsigned int pi = 0; pi < rm.n_ports; pi++) {
		if (rl->port[pi].n > 0)
			rte_pktmbuf_free_bulk(rl->port[pi].q, rl->port[pi].n);
		rte_pktmbuf_free(rl->port[pi].held);
	}
	rte_free(rl->chan);
	rte_free(rl->dirty);
	rte_free(rl);
}

static struct rm_lcore *
lcore_alloc(unsigned int lcore, unsigned int n_chan)
{
	int socket = (int)rte_lcore_to_socket_id(lcore);
	struct rm_lcore *rl = rte_zmalloc_socket("lca_remote", sizeof(*rl), 0, socket);

	if (rl == NULL)
		return NULL;
	rl->lcore = lcore;
	rl->n_chan = n_chan;
	rl->chan = rte_zmalloc_socket("lca_remote", sizeof(*rl->chan) * n_chan, 0, socket);
	rl->dirty = rte_zmalloc_socket("lca_remote", sizeof(*rl->dirty) * n_chan, 0, socket);
	if (rl->chan == NULL || rl->dirty == NULL) {
		lcore_free(rl);
		return NULL;
	}
	rl->rng = (rm.conf.inject.seed ? rm.conf.inject.seed : 1) * 0x9e3779b97f4a7c15ull +
		  lcore;
	for (unsigned int p = 0; p < rm.n_peers; p++) {
		const struct rm_peer *pe = &rm.peers[p];

		for (unsigned int k = 0; k < 2u * pe->n.n_lcores; k++) {
			struct chan *ch = k < pe->n.n_lcores
						  ? chan_of(rl, p, k)
						  : lane_large(rl, chan_of(rl, p, k - pe->n.n_lcores));
			uint16_t pl = pe->n.lcores[k % pe->n.n_lcores];

			ch->peer = p;
			ch->port = pe->port;
			ch->large = k >= pe->n.n_lcores;
			ch->peer_lcore = pl;
			ch->src_udp = (uint16_t)(rm.self.udp_base + lcore);
			ch->dst_udp = (uint16_t)(pe->n.udp_base + pl);
			ch->next_seq = 1;
			ch->credit = rm.window;
			ch->rcv_next = 1;
			ch->rto = rm.rto_min;
			ch->tx = rte_zmalloc_socket("lca_remote", sizeof(*ch->tx) * rm.window, 0,
						    socket);
			ch->rx = rte_zmalloc_socket("lca_remote", sizeof(*ch->rx) * rm.window, 0,
						    socket);
			if (ch->tx == NULL || ch->rx == NULL) {
				lcore_free(rl);
				return NULL;
			}
		}
	}
	return rl;
}

static int
hooks(bool add)
{
	int ret = 0;

	for (unsigned int i = 0; i < rm.n_lcores; i++) {
		unsigned int l = rm.lcores[i];
		struct lca_lcore_hook h = { .poll = hook_poll, .end = hook_end, .arg = rm.lc[l] };

		if (rm.lc[l] == NULL)
			continue;
		if (add) {
			ret = lca_lcore_hook_add(l, &h);
			if (ret != 0) {
				LCA_LOG(ERR, "remote: hook on lcore %u: %d\n", l, ret);
				return ret;
			}
		} else {
			lca_lcore_hook_remove(l, &h);
		}
	}
	return ret;
}

int
lca_remote_start(const struct lca_remote_conf *conf)
{
	uint64_t hz = rte_get_tsc_hz();
	unsigned int lcore, n_chan = 0;
	int ret;

	if (conf == NULL)
		return -EINVAL;
	if (rm.up)
		return -EEXIST;
	if (lca_lcore_running())
		return -EBUSY;
	ret = conf_check(conf);
	if (ret != 0)
		return ret;
	memset(&rm.conf, 0, sizeof(rm.conf));
	rm.conf = *conf;
	rm.n_peers = 0;
	rm.n_ports = 0;
	rm.n_watch = 0;
	memset(&rm.st, 0, sizeof(rm.st));
	memset(rm.lc, 0, sizeof(rm.lc));
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++)
		rm.link_actor[i] = LCA_ACTOR_NONE;
	for (unsigned int i = 0; i < LCA_REMOTE_NODE_MAX; i++)
		rm.peer_of_node[i] = -1;
	rm.window = conf->window ? conf->window : DEF_WINDOW;
	rm.frame_cap = WIRE_ETH_LEN + (conf->mtu ? conf->mtu : DEF_MTU);
	rm.rto_min = (conf->rto_us ? conf->rto_us : DEF_RTO_US) * hz / 1000000;
	rm.rto_max = (conf->rto_max_us ? conf->rto_max_us : DEF_RTO_MAX_US) * hz / 1000000;
	rm.hb = (conf->heartbeat_ms ? conf->heartbeat_ms : DEF_HB_MS) * hz / 1000;
	rm.dead = (conf->dead_ms ? conf->dead_ms : DEF_DEAD_MS) * hz / 1000;
	rm.connect = (conf->connect_ms ? conf->connect_ms : DEF_CONNECT_MS) * hz / 1000;
	rm.check = CHECK_US * hz / 1000000;
	rm.session = (uint32_t)(rte_rdtsc() ^ (rte_rdtsc() >> 32)) | 1u;
	rm.n_lcores = 0;
	RTE_LCORE_FOREACH(lcore)
		rm.lcores[rm.n_lcores++] = lcore;
	for (unsigned int i = 0; i < conf->n_nodes; i++) {
		const struct lca_remote_node *n = &conf->nodes[i];

		if (n->id == conf->self) {
			rm.self = *n;
			rm.self.n_lcores = 0;
			for (unsigned int j = 0; j < rm.n_lcores && j < LCA_REMOTE_MAX_LCORES; j++)
				rm.self.lcores[rm.self.n_lcores++] = (uint16_t)rm.lcores[j];
			if (!conf->loopback)
				continue;
		}
		rm.peers[rm.n_peers].n = n->id == conf->self ? rm.self : *n;
		rm.peers[rm.n_peers].port =
			conf->transport == LCA_REMOTE_ETHDEV ? port_index(n->port_id) : 0;
		rm.peers[rm.n_peers].chan_base = n_chan;
		rm.peers[rm.n_peers].dead = 0;
		n_chan += rm.peers[rm.n_peers].n.n_lcores;
		rm.peer_of_node[n->id] = (int16_t)rm.n_peers;
		rm.n_peers++;
	}
	if (conf->transport == LCA_REMOTE_UCX) {
		rm.window = conf->window ? conf->window : UCX_DEF_WINDOW;
		rm.frame_cap = conf->mtu ? conf->mtu : UCX_DEF_BUF;
		rm.start_tsc = rte_rdtsc();
		ret = rm_ucx_start();
		if (ret != 0)
			goto fail;
		goto up;
	}
	for (unsigned int i = 0; i < rm.n_lcores; i++) {
		lcore = rm.lcores[i];
		rm.lc[lcore] = lcore_alloc(lcore, 2 * n_chan);
		if (rm.lc[lcore] == NULL) {
			ret = -ENOMEM;
			goto fail;
		}
	}
	/* One link actor per lcore, then the ports (their classifier needs
	 * the actors), then our hooks behind the ports'. */
	for (unsigned int i = 0; i < rm.n_lcores; i++) {
		struct lca_actor_spec spec = {
			.batch_handler = link_handler,
			.lcore = rm.lcores[i],
			.mailbox_size = 4096,
			.throughput = 256,
			.name = "remote-link",
		};

		lcore = rm.lcores[i];
		spec.state_size = sizeof(struct rm_lcore *);
		spec.state_init = link_init;
		spec.state_arg = rm.lc[lcore];
		ret = lca_actor_spawn(&spec, &rm.link_actor[lcore]);
		if (ret != 0)
			goto fail;
	}
	for (unsigned int pi = 0; pi < rm.n_ports; pi++) {
		uint16_t nq = memif_queues(pi);
		struct lca_port_conf pc = {
			.port_id = rm.port_ids[pi],
			.n_rxq = nq,
			.n_txq = nq,
			.classify = classify,
			.burst = conf->burst,
			.promiscuous = true,
		};

		ret = lca_port_start(&pc, &rm.ports[pi]);
		if (ret != 0) {
			LCA_LOG(ERR, "remote: port %u: %d\n", rm.port_ids[pi], ret);
			rm.ports[pi] = NULL;
			goto fail;
		}
		for (unsigned int i = 0; i < rm.n_lcores; i++) {
			lcore = rm.lcores[i];
			rm.lc[lcore]->port[pi].tx_actor = lca_port_tx_actor(rm.ports[pi], lcore);
			rm.lc[lcore]->port[pi].pool = lca_port_mempool(rm.ports[pi]);
			if (pi == 0)
				rm.lc[lcore]->spare.pool = rm.lc[lcore]->port[0].pool;
		}
	}
	{
		/* The frame must fit one mbuf of the port's pool. */
		struct rte_mempool *mp = lca_port_mempool(rm.ports[0]);
		uint32_t room = rte_pktmbuf_data_room_size(mp) - RTE_PKTMBUF_HEADROOM;

		if (rm.frame_cap > room)
			rm.frame_cap = room;
	}
	ret = hooks(true);
	if (ret != 0)
		goto fail;
	rm.start_tsc = rte_rdtsc();
	for (unsigned int i = 0; i < rm.n_lcores; i++)
		rm.lc[rm.lcores[i]]->next_check = rm.start_tsc;
up:
	rm_telemetry_register();
	remote_send_hook = remote_send;
	rm.up = true;
	LCA_LOG(INFO, "remote: node %u up over %s: %u peers, %u ports, window %u, frame %u bytes\n",
		rm.self.id, conf->transport == LCA_REMOTE_UCX ? "UCX" : "ethdev", rm.n_peers,
		rm.n_ports, rm.window, rm.frame_cap);
	return 0;
fail:
	rm.up = true; /* so that stop undoes what was done */
	lca_remote_stop();
	return ret;
}

int
lca_remote_stop(void)
{
	if (!rm.up)
		return 0;
	if (lca_lcore_running())
		return -EBUSY;
	remote_send_hook = NULL;
	if (rm.conf.transport == LCA_REMOTE_UCX)
		rm_ucx_stop();
	hooks(false);
	for (unsigned int i = 0; i < rm.n_lcores; i++) {
		unsigned int l = rm.lcores[i];

		if (rm.link_actor[l] != LCA_ACTOR_NONE) {
			lca_actor_stop(rm.link_actor[l]);
			rm.link_actor[l] = LCA_ACTOR_NONE;
		}
		lcore_free(rm.lc[l]);
		rm.lc[l] = NULL;
	}
	for (unsigned int pi = 0; pi < rm.n_ports; pi++) {
		if (rm.ports[pi] != NULL)
			lca_port_stop(rm.ports[pi]);
		rm.ports[pi] = NULL;
	}
	rm.up = false;
	return 0;
}

int
lca_remote_self(void)
{
	return rm.up ? rm.self.id : -ESRCH;
}

bool
lca_remote_idle(void)
{
	if (!rm.up)
		return true;
	if (rm.conf.transport == LCA_REMOTE_UCX)
		return rm_ucx_idle();
	for (unsigned int i = 0; i < rm.n_lcores; i++) {
		const struct rm_lcore *rl = rm.lc[rm.lcores[i]];

		for (unsigned int c = 0; c < rl->n_chan; c++) {
			const struct chan *ch = &rl->chan[c];

			if (ch->cleaned)
				continue;
			if (__atomic_load_n(&ch->st.in_flight, __ATOMIC_RELAXED) != 0 ||
			    __atomic_load_n(&ch->open, __ATOMIC_RELAXED) != NULL ||
			    __atomic_load_n(&ch->big, __ATOMIC_RELAXED) != NULL)
				return false;
		}
	}
	return true;
}

bool
lca_remote_node_up(unsigned int node)
{
	int p;

	if (!rm.up || node >= LCA_REMOTE_NODE_MAX)
		return false;
	if (node == rm.self.id && !rm.conf.loopback)
		return true;
	p = rm.peer_of_node[node];
	return p >= 0 && !__atomic_load_n(&rm.peers[p].dead, __ATOMIC_RELAXED);
}

int
lca_remote_watch(lca_actor_id_t watcher, lca_actor_id_t target)
{
	unsigned int node;
	int p, ret = 0;
	bool dead;

	if (!rm.up || !lca_actor_alive(watcher) || !lca_remote_is_ref(target))
		return -ESRCH;
	node = lca_remote_node(target);
	p = node < LCA_REMOTE_NODE_MAX ? rm.peer_of_node[node] : -1;
	if (p < 0)
		return -ESRCH;
	rte_spinlock_lock(&rm.watch_lock);
	if (rm.n_watch == RM_WATCH_MAX)
		ret = -ENOSPC;
	else
		rm.watch[rm.n_watch++] = (struct rm_watch){ .watcher = watcher, .target = target };
	dead = __atomic_load_n(&rm.peers[p].dead, __ATOMIC_ACQUIRE);
	rte_spinlock_unlock(&rm.watch_lock);
	if (ret == 0 && dead) {
		struct lca_terminated t = { .actor = target, .by_supervision = 0 };
		struct lca_msg *m;

		if (lca_msg_alloc(&m) == 0) {
			m->type = LCA_TYPE_NODE_DOWN;
			memcpy(m->data, &t, sizeof(t));
			m->len = sizeof(t);
			if (lca_send_control(watcher, m) != 0)
				lca_msg_free(m);
		}
	}
	return ret;
}

void
rm_stats_add(struct lca_remote_link_stats *o, const struct lca_remote_link_stats *s)
{
	const uint64_t *a = (const uint64_t *)s;
	uint64_t *b = (uint64_t *)o;

	/* Every field but the last (dead) is a uint64_t counter. */
	for (size_t i = 0; i < offsetof(struct lca_remote_link_stats, dead) / sizeof(uint64_t);
	     i++)
		b[i] += __atomic_load_n(&a[i], __ATOMIC_RELAXED);
	o->dead |= __atomic_load_n(&s->dead, __ATOMIC_RELAXED);
	o->connected |= __atomic_load_n(&s->connected, __ATOMIC_RELAXED);
}

int
lca_remote_link_stats_get(unsigned int node, struct lca_remote_link_stats *out)
{
	int p;

	if (out == NULL)
		return -EINVAL;
	if (!rm.up || node >= LCA_REMOTE_NODE_MAX || (p = rm.peer_of_node[node]) < 0)
		return -ESRCH;
	memset(out, 0, sizeof(*out));
	if (rm.conf.transport == LCA_REMOTE_UCX)
		rm_ucx_link_stats((unsigned int)p, out);
	for (unsigned int i = 0; i < rm.n_lcores && rm.conf.transport == LCA_REMOTE_ETHDEV; i++) {
		const struct rm_lcore *rl = rm.lc[rm.lcores[i]];

		for (unsigned int k = 0; k < rm.peers[p].n.n_lcores; k++) {
			rm_stats_add(out, &rl->chan[rm.peers[p].chan_base + k].st);
			rm_stats_add(out, &rl->chan[rl->n_chan / 2 + rm.peers[p].chan_base + k].st);
		}
	}
	out->dead |= __atomic_load_n(&rm.peers[p].dead, __ATOMIC_RELAXED);
	return 0;
}

int
lca_remote_stats_get(struct lca_remote_stats *out)
{
	if (out == NULL)
		return -EINVAL;
	out->malformed = __atomic_load_n(&rm.st.malformed, __ATOMIC_RELAXED);
	out->unknown_peer = __atomic_load_n(&rm.st.unknown_peer, __ATOMIC_RELAXED);
	out->not_for_us = __atomic_load_n(&rm.st.not_for_us, __ATOMIC_RELAXED);
	out->no_mbuf = __atomic_load_n(&rm.st.no_mbuf, __ATOMIC_RELAXED);
	out->tx_refused = __atomic_load_n(&rm.st.tx_refused, __ATOMIC_RELAXED);
	out->tx_no_envelope = __atomic_load_n(&rm.st.tx_no_envelope, __ATOMIC_RELAXED);
	return 0;
}
