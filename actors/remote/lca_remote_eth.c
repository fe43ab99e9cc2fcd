/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ethdev transport: reliable channels over ethdev frames
 * (docs/wire.md), behind the remote part's transport table (rm_eth_ops).
 *
 * Every lcore has one channel to each lcore of each peer, and a second one
 * for messages larger than a frame (the large lane). Frames out are
 * lca_remote_eth_tx.c's, frames in lca_remote_eth_rx.c's; this file sets
 * the channels, the link actors and the ports up and down (their links:
 * lca_remote_eth_link.c), and runs the
 * lcore hooks: the poll hook runs the timers (retransmission, heartbeat,
 * dead peer) and resumes a delivery that waited for a full mailbox; the end
 * hook closes the open frames and flushes them to the ports.
 */
#define LCA_LOG_PART lca_logtype_remote
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "lca_eal.h"
#include "lca_lcore.h"
#include "lca_remote_eth_priv.h"
#include "lca_logtypes_priv.h"

#define DEF_WINDOW 256
#define DEF_RTO_US 50
#define DEF_RTO_MAX_US 20000
#define DEF_MTU 1500
#define DEF_MAX_RTX 8
#define CHECK_US 10
/* How long a stopping node waits after its LEAVE before its ports stop
 * (lca_remote_eth_link.c, eth_port_quiet(), says why). */
#define LEAVE_GRACE_MS 50

struct rm_eth rm_eth;

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
	if (ch->pending) {
		ch->pending = false;
		rl->n_pending--;
	}
	ch->rto_tsc = 0;
	ch->acked = ch->sent_seq;
	rm_count(&ch->st.lost_on_dead, lost);
	__atomic_store_n(&ch->st.in_flight, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&ch->st.dead, 1, __ATOMIC_RELAXED);
}

/* The state of a channel that has sent and heard nothing yet, in its
 * peer's current epoch (its identity, buffers and counters are kept). */
static void
chan_fresh(struct chan *ch)
{
	struct rm_epoch_view v = rm_peer_epoch_get(ch->peer);
	struct chan keep = *ch;

	memset(ch, 0, sizeof(*ch));
	ch->peer = keep.peer;
	ch->port = keep.port;
	ch->large = keep.large;
	ch->peer_lcore = keep.peer_lcore;
	ch->src_udp = keep.src_udp;
	ch->dst_udp = keep.dst_udp;
	ch->dirty = keep.dirty; /* it stays on its lcore's list */
	ch->tx = keep.tx;
	ch->rx = keep.rx;
	ch->st = keep.st;
	ch->st.dead = 0;
	ch->st.connected = 0;
	ch->st.in_flight = 0;
	ch->epoch = v.epoch;
	ch->tx_session = v.ours;
	ch->tx_echo = v.theirs;
	ch->next_seq = 1;
	ch->credit = rm.window;
	ch->cwnd = rm.window;
	ch->rcv_next = 1;
	ch->rto = rm_eth.rto_min;
	ch->born_tsc = rte_rdtsc();
}

void
eth_chan_renew(struct rm_lcore *rl, struct chan *ch)
{
	chan_clean(rl, ch);
	chan_fresh(ch);
}

/* Channel @p ch gave up on its oldest frame: say which and how far it got,
 * count it, and end the session as a silent peer's ends. */
static void
retry_exhausted(struct chan *ch, uint64_t now)
{
	unsigned int p = ch->peer;

	rm_count(&ch->st.retry_exhausted, 1);
	LCA_LOG(ERR, "remote: node %u, lcore %u to its lcore %u%s: frame %u resent on %u timeouts,"
		" no ack for %" PRIu64 " ms (last acked %u, frames in flight %u): link down\n",
		rm.peers[p].n.id, rte_lcore_id(), ch->peer_lcore, ch->large ? " (large lane)" : "",
		ch->acked + 1, ch->n_rtx, (now - ch->progress_tsc) * 1000 / rte_get_tsc_hz(),
		ch->acked, ch->sent_seq - ch->acked);
	rm_peer_dead(p, "retransmissions exhausted (max_retransmits)");
}

/*
 * The oldest unacknowledged frame of @p ch was not acknowledged within the
 * timeout: resend it, or give up. Giving up takes both max_retransmits
 * timeouts and dead_ms without the ack moving, as Linux turns tcp_retries2
 * into a time (retransmits_timed_out()): a count alone would give up on a
 * peer that is only slow 26 ms into 50 us timeouts, a time alone on
 * one our own lcore, descheduled, never resent to. A channel that never
 * heard its peer resends without limit: the peer may not have started, and
 * connect_ms bounds the wait. @return whether the peer was declared down.
 */
static bool
rto_expired(struct rm_lcore *rl, struct chan *ch, uint64_t now)
{
	if (ch->last_rx_tsc != 0 && ch->n_rtx >= rm_eth.max_rtx &&
	    now - ch->progress_tsc >= rm.dead) {
		retry_exhausted(ch, now);
		return true;
	}
	rm_count(&ch->st.timeouts, 1);
	LCA_LOG(DEBUG, "remote: node %u lcore %u: no ack in %" PRIu64 " us, resending from seq %u\n",
		rm.peers[ch->peer].n.id, rte_lcore_id(), ch->rto * 1000000 / rte_get_tsc_hz(),
		ch->acked + 1);
	eth_retransmit(rl, ch, ch->acked + 1, now);
	ch->n_rtx++;
	ch->rto = RTE_MIN(ch->rto * 2, rm_eth.rto_max);
	ch->rto_tsc = now + ch->rto;
	return false;
}

/* Why peer @p p was never heard, for the line that declares it dead. */
static const char *
never_heard_why(unsigned int p, char *buf, size_t len)
{
	unsigned int pi = rm_eth.peer_port[p];
	struct lca_remote_stats g;

	lca_remote_stats_get(&g);
	if (rm_eth.link_down[pi])
		snprintf(buf, len, "never heard within connect_ms: no link (port %u down all along"
			 " or now)", rm_eth.port_ids[pi]);
	else if (g.bad_tag > 0)
		snprintf(buf, len, "never heard within connect_ms: %" PRIu64 " frames failed "
			 "their tag (a different key, or a key on one node only?)", g.bad_tag);
	else if (g.unknown_peer + g.not_for_us > 0)
		snprintf(buf, len, "never heard within connect_ms: frames came (%" PRIu64
			 " from nodes not in the table, %" PRIu64 " for another address), none "
			 "from it (a different node table?)", g.unknown_peer, g.not_for_us);
	else
		snprintf(buf, len, "never heard within connect_ms: no answer (the link is up "
			 "and heartbeats went out; is node %u started?)", rm.peers[p].n.id);
	return buf;
}

/* Deliver what waits on @p rl's channels: from its hooks, never from the
 * link actor's turn, so that a receiver here can run at once. */
static unsigned int
pending_deliver(struct rm_lcore *rl)
{
	unsigned int work = 0;

	for (unsigned int i = 0; i < rl->n_chan && rl->n_pending > 0; i++)
		if (rl->chan[i].pending)
			work += eth_deliver(rl, &rl->chan[i]);
	return work;
}

static unsigned int
hook_poll(unsigned int lcore_id, uint64_t now, void *arg)
{
	struct rm_lcore *rl = arg;
	unsigned int work = 0;

	if (unlikely(rl->n_pending > 0))
		work += pending_deliver(rl);
	if (unlikely(rl->n_big > 0))
		for (unsigned int i = rl->n_chan / 2; i < rl->n_chan; i++)
			if (rl->chan[i].big != NULL &&
			    !__atomic_load_n(&rm.peers[rl->chan[i].peer].dead, __ATOMIC_RELAXED))
				work += eth_big_pump(rl, &rl->chan[i]);
	if (likely(now < rl->next_check))
		return work;
	rl->next_check = now + rm_eth.check;
	/* Not the loop's now: the port's RX hook before this one may have run
	 * the link actor, which stamped its channels after it (as UCX's
	 * progress does), and now - last_rx_tsc would wrap. */
	now = rte_rdtsc();
	if (lcore_id == rm.lcores[0])
		eth_links_watch(now);
	for (unsigned int i = 0; i < rl->n_chan; i++) {
		struct chan *ch = &rl->chan[i];
		unsigned int p = ch->peer;

		chan_sync(rl, ch);
		if (__atomic_load_n(&rm.peers[p].dead, __ATOMIC_RELAXED)) {
			if (now - ch->last_tx_tsc >= rm.hb * RM_DEAD_HELLO_BEATS &&
			    !__atomic_load_n(&rm_eth.quiet[ch->port], __ATOMIC_RELAXED)) {
				eth_send_ack(rl, ch, WIRE_F_HEARTBEAT, now);
				work++;
			}
			continue;
		}
		if (ch->rto_tsc != 0 && now >= ch->rto_tsc) {
			work++;
			if (rto_expired(rl, ch, now))
				continue;
		}
		if (now - ch->last_tx_tsc >= rm.hb) {
			eth_send_ack(rl, ch, WIRE_F_HEARTBEAT, now);
			work++;
		}
		if (ch->last_rx_tsc != 0 && now - ch->last_rx_tsc >= rm.dead) {
			rm_peer_dead(p, "no frame within dead_ms");
		} else if (ch->last_rx_tsc == 0 && rm_chan_waited(ch->born_tsc, now) >= rm.connect) {
			char why[200];

			rm_peer_dead(p, never_heard_why(p, why, sizeof(why)));
		}
	}
	return work;
}

static void
hook_end(unsigned int lcore_id, void *arg)
{
	struct rm_lcore *rl = arg;
	uint64_t now;

	(void)lcore_id;
	/* What the link actor's turn took in, before the frames close: the
	 * acks and the receivers' replies go in them. */
	if (rl->n_pending > 0)
		pending_deliver(rl);
	if (rl->n_dirty > 0) {
		now = rte_rdtsc();
		for (unsigned int i = 0; i < rl->n_dirty; i++) {
			struct chan *ch = rl->dirty[i];

			ch->dirty = false;
			if (ch->open != NULL)
				eth_frame_close(rl, ch, now);
			else if (ch->need_ack || ch->need_nak)
				eth_send_ack(rl, ch, 0, now);
		}
		rl->n_dirty = 0;
	}
	for (unsigned int pi = 0; pi < rm_eth.n_ports; pi++) {
		if (unlikely(rl->port[pi].held != NULL) && rl->port[pi].held_age++ > 0) {
			eth_tx_add(rl, pi, rl->port[pi].held);
			rl->port[pi].held = NULL;
		}
		/* Tested here: most loops have nothing to send, and the flush
		 * is a call into another file. */
		if (rl->port[pi].n > 0)
			eth_tx_flush(rl, pi);
	}
}

static unsigned int
port_index(uint16_t port_id)
{
	for (unsigned int i = 0; i < rm_eth.n_ports; i++)
		if (rm_eth.port_ids[i] == port_id)
			return i;
	rm_eth.port_ids[rm_eth.n_ports] = port_id;
	rm_eth.memif[rm_eth.n_ports] = eth_port_is_memif(rm_eth.n_ports);
	rm_eth.quiet[rm_eth.n_ports] = false;
	rm_eth.populated[rm_eth.n_ports] = false;
	return rm_eth.n_ports++;
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
	for (unsigned int pi = 0; pi < rm_eth.n_ports; pi++) {
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
			ch->port = rm_eth.peer_port[p];
			ch->large = k >= pe->n.n_lcores;
			ch->peer_lcore = pl;
			ch->src_udp = (uint16_t)(rm.self.udp_base + lcore);
			ch->dst_udp = (uint16_t)(pe->n.udp_base + pl);
			chan_fresh(ch);
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
		struct lca_lcore_hook h = { .poll = hook_poll, .end = hook_end, .arg = rm_eth.lc[l] };

		if (rm_eth.lc[l] == NULL)
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

/* ---- start and stop ---- */

/* Every peer (our own node too in a loopback) needs an ethdev port. */
static int
ports_check(void)
{
	for (unsigned int p = 0; p < rm.n_peers; p++)
		if (!rte_eth_dev_is_valid_port(rm.peers[p].n.port_id)) {
			LCA_LOG(ERR, "remote: node %u: no ethdev port %u\n", rm.peers[p].n.id,
				rm.peers[p].n.port_id);
			return -EINVAL;
		}
	return 0;
}

/* The conf's window, frame and timeouts, or the transport's defaults. */
static void
params_set(void)
{
	const struct lca_remote_conf *conf = &rm.conf;
	uint64_t hz = rte_get_tsc_hz();

	rm.window = conf->window ? conf->window : DEF_WINDOW;
	/* With a key, the tag's bytes are the frame's last. */
	rm.frame_cap = WIRE_ETH_LEN + (conf->mtu ? conf->mtu : DEF_MTU) - rm_eth.tag_len;
	rm_eth.rto_min = (conf->rto_us ? conf->rto_us : DEF_RTO_US) * hz / 1000000;
	rm_eth.rto_max = (conf->rto_max_us ? conf->rto_max_us : DEF_RTO_MAX_US) * hz / 1000000;
	rm_eth.check = CHECK_US * hz / 1000000;
	rm_eth.max_rtx = conf->max_retransmits ? conf->max_retransmits : DEF_MAX_RTX;
}

/* Each lcore's channels: two lanes to every lcore of every peer. */
static int
lcores_alloc(void)
{
	unsigned int n_chan = 0;

	for (unsigned int p = 0; p < rm.n_peers; p++)
		n_chan += rm.peers[p].n.n_lcores;
	for (unsigned int i = 0; i < rm.n_lcores; i++) {
		unsigned int lcore = rm.lcores[i];

		rm_eth.lc[lcore] = lcore_alloc(lcore, 2 * n_chan);
		if (rm_eth.lc[lcore] == NULL)
			return -ENOMEM;
	}
	return 0;
}

/* One link actor per lcore, for the frames its port's RX steers to it. */
static int
link_actors_spawn(void)
{
	for (unsigned int i = 0; i < rm.n_lcores; i++) {
		unsigned int lcore = rm.lcores[i];
		struct lca_actor_spec spec = {
			.on_packets = eth_link_packets,
			.batch_handler = eth_link_handler,
			.lcore = lcore,
			.mailbox_size = 4096,
			.throughput = 256,
			.name = "remote-link",
			.state_size = sizeof(struct rm_lcore *),
			.state_init = eth_link_init,
			.state_arg = rm_eth.lc[lcore],
		};
		int ret = lca_actor_spawn(&spec, &rm_eth.link_actor[lcore]);

		if (ret != 0)
			return ret;
	}
	return 0;
}

/* Start port @p pi and give each lcore its TX actor and pool. */
static int
port_start(unsigned int pi)
{
	uint16_t nq = eth_memif_queues(pi);
	struct lca_port_conf pc = {
		.port_id = rm_eth.port_ids[pi],
		.n_rxq = nq,
		.n_txq = nq,
		.classify = eth_classify,
		.burst = rm.conf.burst,
		.promiscuous = true,
	};
	int ret;

	/* A frame in one mbuf (the decoder takes no chains): jumbo frames
	 * need a larger data room than the default's 2048. */
	if (rm.frame_cap + rm_eth.tag_len > RTE_MBUF_DEFAULT_DATAROOM)
		pc.mbuf_size = (uint16_t)(RTE_PKTMBUF_HEADROOM + rm.frame_cap + rm_eth.tag_len);
	/* Either process may start first: a memif client waits for its
	 * server (its start fails until the socket is there). */
	pc.start_wait_ms = (unsigned int)(rm.connect * 1000 / rte_get_tsc_hz());
	ret = lca_port_start(&pc, &rm_eth.ports[pi]);

	if (ret != 0) {
		LCA_LOG(ERR, "remote: port %u: %d\n", rm_eth.port_ids[pi], ret);
		rm_eth.ports[pi] = NULL;
		return ret;
	}
	for (unsigned int i = 0; i < rm.n_lcores; i++) {
		struct rm_lcore *rl = rm_eth.lc[rm.lcores[i]];

		rl->port[pi].tx_actor = lca_port_tx_actor(rm_eth.ports[pi], rl->lcore);
		rl->port[pi].pool = lca_port_mempool(rm_eth.ports[pi]);
		if (pi == 0)
			rl->spare.pool = rl->port[0].pool;
	}
	return 0;
}

/* The ports (their classifier needs the link actors); a frame must fit one
 * mbuf of the first port's pool. */
static int
ports_start(void)
{
	struct rte_mempool *mp;
	uint32_t room;

	for (unsigned int pi = 0; pi < rm_eth.n_ports; pi++) {
		int ret = port_start(pi);

		if (ret != 0)
			return ret;
	}
	mp = lca_port_mempool(rm_eth.ports[0]);
	room = rte_pktmbuf_data_room_size(mp) - RTE_PKTMBUF_HEADROOM;
	if (rm.frame_cap > room - rm_eth.tag_len)
		rm.frame_cap = room - rm_eth.tag_len;
	return 0;
}

static int
eth_start(void)
{
	int ret;

	/* First, so that a stop after a failure below finds nothing to undo. */
	rm_eth.n_ports = 0;
	rm_eth.started = false;
	rm_eth.proto_log = (struct rm_log_limit){ 0 };
	memset(rm_eth.lc, 0, sizeof(rm_eth.lc));
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++)
		rm_eth.link_actor[i] = LCA_ACTOR_NONE;
	ret = ports_check();
	if (ret != 0)
		return ret;
	for (unsigned int p = 0; p < rm.n_peers; p++)
		rm_eth.peer_port[p] = port_index(rm.peers[p].n.port_id);
	rm_eth.tag_log = (struct rm_log_limit){ 0 };
	ret = eth_auth_init(&rm.conf);
	if (ret != 0)
		return ret;
	params_set();
	ret = lcores_alloc();
	if (ret == 0)
		ret = link_actors_spawn();
	if (ret == 0)
		ret = ports_start();
	/* Our hooks behind the ports'. */
	if (ret == 0)
		ret = hooks(true);
	if (ret != 0)
		return ret;
	rm.start_tsc = rte_rdtsc();
	for (unsigned int i = 0; i < rm.n_lcores; i++)
		rm_eth.lc[rm.lcores[i]]->next_check = rm.start_tsc;
	memset(rm_eth.link_down, 0, sizeof(rm_eth.link_down));
	rm_eth.link_next_tsc = 0;
	rm_eth.link_said_tsc = rm.start_tsc; /* the first "still down" a second in */
	eth_links_watch(rm.start_tsc);
	rm_eth.started = true;
	return 0;
}

/*
 * Tell each peer that lives that we stop: a LEAVE on each small lane, sent
 * from this thread (lca_remote_stop() runs with the lcores stopped) on its
 * TX queue. Best effort: a peer that misses it, or a thread without a TX
 * queue, leaves the peers to find us dead by dead_ms, as before.
 */
static bool
leave_all(void)
{
	uint64_t now = rte_rdtsc();
	bool memif = false;

	for (unsigned int i = 0; i < rm.n_lcores; i++) {
		struct rm_lcore *rl = rm_eth.lc[rm.lcores[i]];

		for (unsigned int c = 0; rl != NULL && c < rl->n_chan / 2; c++) {
			struct chan *ch = &rl->chan[c];

			if (__atomic_load_n(&rm.peers[ch->peer].dead, __ATOMIC_ACQUIRE))
				continue;
			chan_sync(rl, ch);
			eth_send_ack(rl, ch, WIRE_F_LEAVE, now);
			memif |= rm_eth.memif[ch->port];
		}
		for (unsigned int pi = 0; rl != NULL && pi < rm_eth.n_ports; pi++) {
			unsigned int n = rl->port[pi].n;

			rl->port[pi].n = 0;
			if (n > 0 && lca_port_tx_now(rm_eth.ports[pi], rl->port[pi].q, n) != 0) {
				rte_pktmbuf_free_bulk(rl->port[pi].q, n);
				LCA_LOG(DEBUG, "remote: no TX queue on this thread: no LEAVE sent\n");
			}
		}
	}
	return memif;
}

static void
eth_stop(void)
{
	/* A memif peer stops polling the port at our LEAVE (eth_port_quiet()):
	 * let it, before our disconnect unmaps what it would poll. */
	if (rm_eth.started && leave_all())
		rte_delay_us_sleep(LEAVE_GRACE_MS * 1000);
	rm_eth.started = false;
	hooks(false);
	eth_memif_prefault_join();
	for (unsigned int i = 0; i < rm.n_lcores; i++) {
		unsigned int l = rm.lcores[i];

		if (rm_eth.link_actor[l] != LCA_ACTOR_NONE) {
			lca_actor_stop(rm_eth.link_actor[l]);
			rm_eth.link_actor[l] = LCA_ACTOR_NONE;
		}
		lcore_free(rm_eth.lc[l]);
		rm_eth.lc[l] = NULL;
	}
	for (unsigned int pi = 0; pi < rm_eth.n_ports; pi++) {
		if (rm_eth.ports[pi] != NULL)
			lca_port_stop(rm_eth.ports[pi]);
		rm_eth.ports[pi] = NULL;
	}
	eth_auth_fini();
}

static bool
eth_idle(void)
{
	for (unsigned int i = 0; i < rm.n_lcores; i++) {
		const struct rm_lcore *rl = rm_eth.lc[rm.lcores[i]];

		for (unsigned int c = 0; c < rl->n_chan; c++) {
			const struct chan *ch = &rl->chan[c];

			if (__atomic_load_n(&ch->st.in_flight, __ATOMIC_RELAXED) != 0 ||
			    __atomic_load_n(&ch->open, __ATOMIC_RELAXED) != NULL ||
			    __atomic_load_n(&ch->big, __ATOMIC_RELAXED) != NULL)
				return false;
		}
	}
	return true;
}

static void
eth_link_stats(unsigned int p, struct lca_remote_link_stats *out)
{
	for (unsigned int i = 0; i < rm.n_lcores; i++) {
		const struct rm_lcore *rl = rm_eth.lc[rm.lcores[i]];

		for (unsigned int k = 0; k < rm.peers[p].n.n_lcores; k++) {
			rm_stats_add(out, &rl->chan[rm.peers[p].chan_base + k].st);
			rm_stats_add(out, &rl->chan[rl->n_chan / 2 + rm.peers[p].chan_base + k].st);
		}
	}
}

const struct rm_transport_ops rm_eth_ops = {
	.start = eth_start,
	.stop = eth_stop,
	.send = eth_send,
	.idle = eth_idle,
	.link_stats = eth_link_stats,
};
