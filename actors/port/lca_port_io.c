/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The hot path of a port: the RX poll that the lcore loop calls through a
 * hook, the TX actors' batch handler, and the end hook that flushes TX.
 *
 * RX, per queue and poll:
 *   1. paused on a destination: stay paused (counted) while its backlog is
 *      above the level that paused it;
 *   2. a stash left from before: send it first; while some is left, take
 *      no new packets (counted);
 *   3. rte_eth_rx_burst(), classify in bulk, free what the policy drops,
 *      group the rest by destination (each one's packets together, in
 *      their order: rx_group()) and send each group with one call: on the
 *      packet lane, or wrapped into envelopes in one pool operation for an
 *      actor that takes messages. What an actor refuses stays in the
 *      stash, in order, and the queue pauses on that actor; an actor whose
 *      backlog passed the watermark after a send pauses the queue too.
 * So the NIC's ring fills and the NIC counts imissed, instead of the
 * runtime dropping, and every packet taken is in one of rx's terms.
 */
#define LCA_LOG_PART lca_logtype_port
#include <errno.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "lca_eal.h"
#include "lca_port_priv.h"
#include "lca_trace_priv.h"
#include "lca_logtypes_priv.h"

static inline void
set_held(struct port_rxq *q)
{
	__atomic_store_n(&q->held, (uint64_t)(q->n - q->head), __ATOMIC_RELAXED);
}

static inline void
pause_on(struct port_rxq *q, lca_actor_id_t to, int resume_at)
{
	q->paused_on = to;
	q->resume_at = resume_at;
}

/*
 * Send @p run packets for one actor: on the packet lane when it takes
 * packets (no allocation), else wrapped into envelopes (one pool operation)
 * and sent as messages; what it refuses is unwrapped again, so the stash
 * always holds bare mbufs.
 * @return how many it took (fewer than @p run: no room); a negative errno
 * when it took none for another reason (-ENOMEM: no envelopes).
 */
static int
rx_send_run(struct port_rxq *q, lca_actor_id_t to, struct rte_mbuf **pkts, unsigned int run)
{
	/* Without a classifier, their type is 0 (stamped with the receiver);
	 * with one, what it set (0 unless it did, port_rx_poll()). */
	int ret = q->classify == NULL ? lca_send_packets_typed(to, 0, pkts, run) :
					lca_send_packets(to, pkts, run), err = 0;
	unsigned int sent;

	if (likely(ret != -EPROTOTYPE))
		return ret;
	if (lca_msg_from_mbuf_bulk(pkts, q->msgs, run) < 0)
		return -ENOMEM;
	sent = lca_send_burst(to, q->msgs, run, &err);
	if (sent < run) {
		for (unsigned int i = sent; i < run; i++)
			lca_msg_detach_mbuf(q->msgs[i]);
		lca_msg_free_bulk(q->msgs + sent, run - sent);
		if (sent == 0 && err != -ENOBUFS)
			return err;
	}
	return (int)sent;
}

/* Send what the stash holds, run by run. @return packets sent. */
static unsigned int
rx_push(struct port_rxq *q)
{
	unsigned int sent_total = 0;

	while (q->head < q->n) {
		/* Without a classifier the stash is one run, to[] unused. */
		lca_actor_id_t to = q->classify != NULL ? q->to[q->head] : q->dest;
		unsigned int run = q->classify != NULL ? 1 : q->n - q->head;
		int sent, backlog;

		/* to[n] is LCA_ACTOR_NONE, never a destination: the end. */
		if (q->classify != NULL)
			while (q->to[q->head + run] == to)
				run++;
		sent = rx_send_run(q, to, q->pkts + q->head, run);
		if (sent == -ENOMEM) {
			/* No envelopes: keep the packets, try at the next poll. */
			port_count(&q->no_envelope, 1);
			break;
		}
		if (sent < 0) {
			/* No such actor, or stopped: these packets have nowhere
			 * to go. Freed and counted, never retried forever. */
			if (!q->warned_dest) {
				LCA_LOG(WARNING, "port %u RX queue %u: actor %u refused packets "
					"(%d): dropped, counted in dropped_dest\n",
					q->port_id, q->queue_id, to, sent);
				q->warned_dest = true;
			}
			rte_pktmbuf_free_bulk(q->pkts + q->head, run);
			port_count(&q->dropped_dest, run);
			q->head += run;
			continue;
		}
		q->head += (unsigned int)sent;
		sent_total += (unsigned int)sent;
		backlog = lca_actor_backlog(to);
		if ((unsigned int)sent < run) {
			/* Full: wait until some of its backlog is gone. */
			pause_on(q, to, backlog > 0 ? backlog - 1 : 0);
			break;
		}
		if (backlog > (int)q->watermark)
			pause_on(q, to, (int)q->watermark);
	}
	port_count(&q->delivered, sent_total);
	if (q->head == q->n) {
		q->n = 0;
		q->head = 0;
	}
	set_held(q);
	return sent_total;
}

/* Slots of rx_group()'s table, by an actor id's low bits. */
#define RX_GROUPS 16
#define RX_DROPPED UINT8_MAX

/* The kept packets of @p group[0..n), in place and in their order. */
static void
rx_compact(struct port_rxq *q, const uint8_t *group, unsigned int n)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < n; i++)
		if (group[i] != RX_DROPPED) {
			q->pkts[k] = q->pkts[i];
			q->to[k++] = q->to[i];
		}
}

/* rx_group()'s work where it is needed: drops out, and destinations
 * grouped unless they already are or two share a slot (then in order). */
static unsigned int
rx_group_slow(struct port_rxq *q, unsigned int n, unsigned int *n_dropped)
{
	lca_actor_id_t dst[RX_GROUPS], prev = LCA_ACTOR_NONE;
	unsigned int at[RX_GROUPS], used = 0, groups = 0, runs = 0, dropped = 0;
	uint8_t group[LCA_PORT_BURST_MAX];
	bool shared_slot = false;

	for (unsigned int i = 0; i < n; i++) {
		lca_actor_id_t to = q->to[i];
		unsigned int g = to & (RX_GROUPS - 1);

		if (unlikely(to == LCA_ACTOR_NONE)) {
			q->drops[dropped++] = q->pkts[i];
			group[i] = RX_DROPPED;
			continue;
		}
		if (!(used & 1u << g)) {
			used |= 1u << g;
			dst[g] = to;
			at[g] = 0;
			groups++;
		}
		shared_slot |= dst[g] != to;
		runs += to != prev;
		prev = to;
		group[i] = (uint8_t)g;
		at[g]++;
	}
	*n_dropped = dropped;
	if (runs == groups || shared_slot) {
		if (dropped > 0)
			rx_compact(q, group, n);
		return n - dropped;
	}
	for (unsigned int g = 0, start = 0; g < RX_GROUPS; g++)
		if (used & 1u << g) {
			unsigned int c = at[g];

			at[g] = start;
			start += c;
		}
	for (unsigned int i = 0; i < n; i++)
		if (group[i] != RX_DROPPED) {
			unsigned int slot = at[group[i]]++;

			q->grouped[slot] = q->pkts[i];
			q->grouped_to[slot] = dst[group[i]];
		}
	RTE_SWAP(q->pkts, q->grouped);
	RTE_SWAP(q->to, q->grouped_to);
	return n - dropped;
}

/*
 * Keep what the classifier did not drop (drops[] takes the rest), each
 * destination's packets together and in their order. A classifier that
 * hashes flows onto D actors leaves a burst in runs of one or two; grouped,
 * it costs D sends (and D turns) instead of one a run. Order to each
 * destination is the queue's order; across destinations none is promised.
 * @return the packets kept, in pkts[0..kept) and to[].
 */
static unsigned int
rx_group(struct port_rxq *q, unsigned int n, unsigned int *n_dropped)
{
	const lca_actor_id_t *to = q->to;
	unsigned int runs = 1, none = to[0] == LCA_ACTOR_NONE;

	/* The common cases in one cheap pass: nothing dropped, and runs of
	 * four packets or more on average, where a send a run costs less
	 * than grouping would. Each packet against the one before, not a
	 * carried `prev`: so the compiler vectorizes the pass. */
	for (unsigned int i = 1; i < n; i++) {
		runs += to[i] != to[i - 1];
		none += to[i] == LCA_ACTOR_NONE;
	}
	*n_dropped = 0;
	if (none == 0 && runs * 4 <= n)
		return n;
	return rx_group_slow(q, n, n_dropped);
}

unsigned int
port_rx_poll(struct port_rxq *q)
{
	unsigned int work = 0, n, kept = 0, dropped = 0;
	int off;

	if (q->paused_on != LCA_ACTOR_NONE) {
		int backlog = lca_actor_backlog(q->paused_on);

		if (backlog > q->resume_at) {
			port_count(&q->paused_polls, 1);
			return 0;
		}
		q->paused_on = LCA_ACTOR_NONE;
	}
	if (q->n > q->head) {
		work = rx_push(q);
		if (q->n > q->head) {
			port_count(&q->paused_polls, 1);
			return work;
		}
	}
	if (q->paused_on != LCA_ACTOR_NONE ||
	    unlikely(__atomic_load_n(&q->rx_off, __ATOMIC_RELAXED)))
		return work;

	if (unlikely(!port_burst_enter(q->port_id, &q->busy)))
		return work;
	n = rte_eth_rx_burst(q->port_id, q->queue_id, q->pkts, (uint16_t)q->burst);
	port_burst_leave(&q->busy);
	if (n == 0)
		return work;
	port_count(&q->rx, n);
	lca_trace_port_rx(q->port_id, q->queue_id, n);
	if (q->classify == NULL) {
		/* One destination: the whole burst is one run (rx_push()). */
		q->n = n;
		q->head = 0;
		set_held(q);
		rx_push(q);
		return work + n;
	}
	/* The app's type starts at 0; its classifier may set it. */
	off = lca_pkt_meta_offset;
	for (unsigned int i = 0; i < n; i++)
		lca_pkt_meta_at(q->pkts[i], off)->type = 0;
	q->classify(q->pkts, q->to, n, q->classify_arg);
	kept = rx_group(q, n, &dropped);
	q->to[kept] = LCA_ACTOR_NONE;
	if (dropped > 0) {
		rte_pktmbuf_free_bulk(q->drops, dropped);
		port_count(&q->dropped_policy, dropped);
	}
	q->n = kept;
	q->head = 0;
	set_held(q);
	if (kept > 0)
		rx_push(q);
	return work + n;
}

/* Free what the stash holds (the port is stopping). @return how many. */
void
port_rxq_release(struct port_rxq *q)
{
	unsigned int left = q->n - q->head;

	if (left == 0)
		return;
	rte_pktmbuf_free_bulk(q->pkts + q->head, left);
	LCA_LOG(INFO, "port %u RX queue %u: %u packets held at stop freed\n", q->port_id,
		q->queue_id, left);
	q->n = 0;
	q->head = 0;
}

unsigned int
port_lcore_poll(unsigned int lcore_id, uint64_t now_tsc, void *arg)
{
	struct port_lcore *pl = arg;
	unsigned int work = 0;

	(void)lcore_id;
	(void)now_tsc;
	for (unsigned int i = 0; i < pl->n_rxq; i++)
		work += port_rx_poll(pl->rxqs[i]);
	return work;
}

/* rte_eth_tx_burst() behind the port's gate: none sent while it is shut. */
static inline uint16_t
tx_burst(struct port_txq *q, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t sent;

	if (unlikely(!port_burst_enter(q->port_id, &q->busy)))
		return 0;
	sent = rte_eth_tx_burst(q->port_id, q->queue_id, pkts, n);
	port_burst_leave(&q->busy);
	return sent;
}

/* The driver refused these: try once more, then free and count the rest. */
void
port_tx_unsent(struct rte_mbuf **unsent, uint16_t count, void *userdata)
{
	struct port_txq *q = userdata;
	uint16_t sent = tx_burst(q, unsent, count);

	if (sent > 0) {
		port_count(&q->tx, sent);
		port_count(&q->tx_bursts, 1);
		lca_trace_port_tx(q->port_id, q->queue_id, sent);
	}
	if (sent < count) {
		rte_pktmbuf_free_bulk(unsent + sent, count - sent);
		port_count(&q->tx_dropped, count - sent);
	}
}

static inline void
tx_sent(struct port_txq *q, uint16_t sent)
{
	if (sent > 0) {
		port_count(&q->tx, sent);
		port_count(&q->tx_bursts, 1);
		lca_trace_port_tx(q->port_id, q->queue_id, sent);
	}
}

/* The TX queue of the calling lcore, or NULL when it has none of @p port. */
static inline struct port_txq *
txq_of_caller(const struct lca_port *port)
{
	unsigned int lcore = rte_lcore_id();
	const struct port_lcore *pl = lcore < RTE_MAX_LCORE ? port->lcores[lcore] : NULL;

	return pl != NULL && pl->n_txq > 0 ? pl->txqs[0] : NULL;
}

/* Give @p n packets to the driver now; what it refuses twice is freed and
 * counted (port_tx_unsent()). */
static void
txq_send(struct port_txq *q, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t sent = tx_burst(q, pkts, n);

	tx_sent(q, sent);
	if (sent < n)
		port_tx_unsent(pkts + sent, (uint16_t)(n - sent), q);
}

/* Into @p q's buffer, a burst at a time, as rte_eth_tx_buffer() does packet
 * by packet: a full buffer is sent (what the driver refuses goes to
 * port_tx_unsent()), the lcore's end hook flushes the rest. Whole bursts
 * that find it empty go to the driver from @p pkts, with no copy. */
static inline void
txq_buffer(struct port_txq *q, struct rte_mbuf **pkts, unsigned int n)
{
	struct rte_eth_dev_tx_buffer *b = q->buf;

	while (n > 0) {
		unsigned int k;

		if (b->length == 0 && n >= b->size) {
			txq_send(q, pkts, b->size);
			pkts += b->size;
			n -= b->size;
			continue;
		}
		k = RTE_MIN(n, (unsigned int)(b->size - b->length));
		memcpy(&b->pkts[b->length], pkts, k * sizeof(*pkts));
		b->length = (uint16_t)(b->length + k);
		pkts += k;
		n -= k;
		if (b->length == b->size)
			port_tx_flush(q);
	}
}

struct tx_now {
	struct port_txq *q;
	struct rte_mbuf **pkts;
	unsigned int n;
};

static void
tx_now_run(void *arg)
{
	const struct tx_now *t = arg;
	unsigned int done = 0;

	/* What the buffer holds goes first: one order on the queue. */
	port_tx_flush(t->q);
	while (done < t->n) {
		uint16_t burst = (uint16_t)RTE_MIN(t->n - done, (unsigned int)UINT16_MAX);

		txq_send(t->q, t->pkts + done, burst);
		done += burst;
	}
}

int
lca_port_tx_now(struct lca_port *port, struct rte_mbuf **pkts, unsigned int n)
{
	struct tx_now t = { .pkts = pkts, .n = n };

	if (port == NULL || (pkts == NULL && n > 0))
		return -EINVAL;
	t.q = txq_of_caller(port);
	if (t.q == NULL)
		return -EPERM;
	/* With the loops stopped (a stop's last frames) a peer may be
	 * leaving too: see port_tx_flush_stopped(). */
	if (lca_lcore_running())
		tx_now_run(&t);
	else
		lca_eal_on_intr_thread(tx_now_run, &t);
	return 0;
}

int
lca_port_tx_burst(struct lca_port *port, struct rte_mbuf **pkts, unsigned int n)
{
	struct port_txq *q;

	if (unlikely(port == NULL || (pkts == NULL && n > 0)))
		return -EINVAL;
	q = txq_of_caller(port);
	if (unlikely(q == NULL))
		return -EPERM;
	txq_buffer(q, pkts, n);
	return (int)n;
}

/* rte_eth_tx_buffer_flush(), its burst behind the gate. */
void
port_tx_flush(struct port_txq *q)
{
	struct rte_eth_dev_tx_buffer *b = q->buf;
	uint16_t n = b->length, sent;

	if (n == 0)
		return;
	b->length = 0;
	sent = tx_burst(q, b->pkts, n);
	tx_sent(q, sent);
	if (sent < n)
		port_tx_unsent(b->pkts + sent, (uint16_t)(n - sent), q);
}

static void
tx_flush_run(void *arg)
{
	port_tx_flush(arg);
}

void
port_tx_flush_stopped(struct port_txq *q)
{
	lca_eal_on_intr_thread(tx_flush_run, q);
}

void
port_lcore_end(unsigned int lcore_id, void *arg)
{
	struct port_lcore *pl = arg;

	(void)lcore_id;
	for (unsigned int i = 0; i < pl->n_txq; i++)
		port_tx_flush(pl->txqs[i]);
}

/* The queue a TX actor fills: its own when it runs on the queue's lcore;
 * else (it was moved) one of the lcore it runs on, whose end hook flushes
 * it; only an lcore without a queue of the port falls back to its own. */
static inline struct port_txq *
tx_queue_here(const struct port_tx_state *s)
{
	unsigned int lcore = rte_lcore_id();
	const struct port_lcore *pl;

	if (likely(s->own->lcore == lcore))
		return s->own;
	pl = lcore < RTE_MAX_LCORE ? s->port->lcores[lcore] : NULL;
	return pl != NULL && pl->n_txq > 0 ? pl->txqs[0] : s->own;
}

void
port_tx_handler(lca_actor_id_t self, void *state, struct lca_msg **msgs, unsigned int n)
{
	struct port_txq *q = tx_queue_here(state);
	struct rte_mbuf *m[LCA_PORT_BURST_MAX];
	unsigned int k;

	(void)self;
	k = lca_msg_to_mbuf_bulk(msgs, m, n);
	txq_buffer(q, m, k);
}
