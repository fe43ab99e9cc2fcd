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
 *
 * This file sets the transport up and down (rm_ucx_ops) and runs the lcore
 * hooks and the slow checks; lca_remote_ucx_tx.c sends, lca_remote_ucx_rx.c
 * receives, lca_remote_ucx_conn.c keeps the endpoints.
 */
#define LCA_LOG_PART lca_logtype_remote
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
#include "lca_remote_ucx_priv.h"
#include "lca_logtypes_priv.h"

struct ux_state rm_ux;

/* Free what a channel of a dead peer holds; count what was not delivered. */
static void
chan_clean(struct ux_chan *ch)
{
	uint64_t lost = ch->open_n;

	for (uint32_t s = ch->acked + 1; seq_lt(s, ch->next_seq); s++)
		lost += rte_be_to_cpu_16(ch->tx[s & (rm.window - 1)].hdr.h.n_msgs);
	for (unsigned int i = 0; i < rm.window; i++)
		ux_rx_release(ch, &ch->rx[i]);
	ux_set_pending(ch, false);
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
		ux_big_rx_desc_release(ch);
		ch->ul->n_big--;
	}
	ch->open_n = 0;
	ch->acked = ch->sent_seq = ch->next_seq - 1;
	rm_count(&ch->st.lost_on_dead, lost);
	in_flight_set(ch);
	__atomic_store_n(&ch->st.dead, 1, __ATOMIC_RELAXED);
	ch->cleaned = true;
	ux_big_release(ch); /* now, or when UCX lets go of it */
}

/* The protocol state of a channel that has sent and heard nothing yet, in
 * its peer's current epoch (its endpoints, buffers and counters are kept;
 * a buffer UCX still sends stays busy until it lets go). */
static void
chan_fresh(struct ux_chan *ch)
{
	struct rm_epoch_view v = rm_peer_epoch_get(ch->peer);

	ch->epoch = v.epoch;
	ch->tx_session = v.ours;
	ch->tx_echo = v.theirs;
	ch->born_tsc = rte_rdtsc();
	ch->connected = false;
	ch->cleaned = false;
	ch->need_credit = ch->need_big_credit = false;
	ch->next_seq = 1;
	ch->sent_seq = ch->acked = 0;
	ch->open_off = 0;
	ch->open_n = 0;
	ch->rcv_next = 1;
	ch->head = (struct rm_rec_cursor){ 0, 0 };
	ch->big_seq = ch->big_rx_seq = 0;
	ch->retry = 0;
	__atomic_store_n(&ch->st.connected, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&ch->st.dead, 0, __ATOMIC_RELAXED);
	in_flight_set(ch);
}

void
ux_chan_renew(struct ux_chan *ch)
{
	if (!ch->cleaned)
		chan_clean(ch);
	chan_fresh(ch);
	/* The new epoch's hello: on the endpoint while it works (a peer that
	 * lives and ended the epoch still answers on it; closing it under
	 * its replies would be fatal to UCX), else on the one the check makes
	 * once the old one failed (a peer that restarted: UCX's connection
	 * manager sees the reset). */
	if (ch->ep != NULL && !ch->failed)
		ux_send_hello(ch);
	else if (ch->ep == NULL)
		ch->retry_tsc = ch->born_tsc;
}

/* A channel to a dead peer: made again and saying hello now and then,
 * under our new session, so that the peer, restarted or not, rejoins. */
static unsigned int
dead_peer_check(struct ux_chan *ch, uint64_t now)
{
	if (ch->ep == NULL) {
		if (ch->retry_tsc == 0 || now < ch->retry_tsc)
			return 0;
		ux_client_connect(ch);
		return 1;
	}
	if (now - ch->last_tx_tsc < rm.hb * RM_DEAD_HELLO_BEATS)
		return 0;
	ux_send_hello(ch);
	return 1;
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
		ux_ep_retire(ul, s->ep, now);
		s->ep = NULL;
		work++;
	}
	ux_ep_reap(ul, now);
	for (unsigned int c = 0; c < ul->n_chan; c++) {
		struct ux_chan *ch = &ul->chan[c];
		bool dead;

		ux_chan_sync(ch);
		dead = __atomic_load_n(&rm.peers[ch->peer].dead, __ATOMIC_RELAXED);
		if (ch->failed) {
			if (ch->ep != NULL)
				ux_ep_retire(ul, ch->ep, now);
			ch->ep = NULL;
			ch->failed = false;
			work++;
			if (ch->connected && !dead) {
				char why[96];

				snprintf(why, sizeof(why), "UCX endpoint to its lcore %u failed: %s",
					 ch->peer_lcore, ucs_status_string(ch->fail_status));
				rm_peer_dead(ch->peer, why);
				continue;
			}
			/* UCX logs each failed attempt: back off. */
			ch->retry = ch->retry ? RTE_MIN(2 * ch->retry, rm_ux.retry_max) : rm_ux.retry;
			ch->retry_tsc = now + ch->retry;
		}
		if (dead) {
			work += dead_peer_check(ch, now);
			continue;
		}
		if (ch->need_credit || ch->need_big_credit)
			mark_dirty(ch); /* a credit that could not go: again */
		if (ch->connected && ch->ep != NULL) {
			if (now - ch->last_rx_tsc >= rm.dead) {
				rm_peer_dead(ch->peer, "nothing heard within dead_ms");
				continue;
			}
			if (now - ch->last_tx_tsc >= rm.hb) {
				ux_send_hello(ch);
				work++;
			}
		}
		if (!ch->connected && rm_chan_waited(ch->born_tsc, now) >= rm.connect) {
			rm_peer_dead(ch->peer, "not connected within connect_ms (is UCX_TLS "
					       "without tcp, which UCX's connection setup needs?)");
			continue;
		}
		if (ch->ep == NULL && ch->retry_tsc != 0 && now >= ch->retry_tsc) {
			ux_client_connect(ch);
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
	/* Out of UCX's callbacks: an idle receiver here runs its turn on
	 * what came at once. */
	if (ul->n_pending > 0)
		for (unsigned int c = 0; c < ul->n_chan && ul->n_pending > 0; c++)
			if (ul->chan[c].pending)
				work += ux_drain(&ul->chan[c]);
	if (unlikely(ul->n_big > 0))
		for (unsigned int c = 0; c < ul->n_chan; c++)
			work += ux_big_poll(&ul->chan[c]);
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
			ux_buf_close(ch);
		else
			ux_send_closed(ch);
		if (ch->need_credit)
			ux_send_credit(ch);
		if (ch->need_big_credit && ch->reply_ep != NULL) {
			hdr_fill(&ch->big_credit.h, ch, ch->big_rx_seq, 0);
			if (ux_am_send(ch->reply_ep, UX_AM_LARGE_CREDIT, &ch->big_credit, NULL, 0, NULL,
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
			ux_ep_close(ul->worker, ch->ep);
		ch->ep = NULL;
	}
	for (unsigned int i = 0; i < ul->n_server; i++)
		if (ul->server[i].ep != NULL)
			ux_ep_close(ul->worker, ul->server[i].ep);
	if (ul->worker != NULL)
		ux_ep_reap(ul, UINT64_MAX);
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
	rte_free(ul->scratch);
	rte_free(ul);
}

static int
worker_start(struct ux_lcore *ul)
{
	static const struct {
		unsigned int id;
		ucp_am_recv_callback_t cb;
	} handlers[] = { { UX_AM_DATA, ux_am_data },
			 { UX_AM_HELLO, ux_am_hello },
			 { UX_AM_CREDIT, ux_am_credit },
			 { UX_AM_LARGE, ux_am_large },
			 { UX_AM_LARGE_CREDIT, ux_am_large_credit },
			 { UX_AM_LEAVE, ux_am_leave } };
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
		.conn_handler = { .cb = ux_on_connect, .arg = ul },
	};
	ucs_status_t st;

	st = ucp_worker_create(rm_ux.ctx, &wp, &ul->worker);
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
	ux_sockaddr_of(&sa, rm.self.ipv4, (unsigned int)rm.self.udp_base + ul->lcore);
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
	if (rm_ux.keyed) {
		ul->scratch = rte_malloc_socket("lca_ucx", UX_LARGE_MAX, 0, socket);
		if (ul->scratch == NULL)
			goto fail;
	}
	for (unsigned int p = 0; p < rm.n_peers; p++) {
		const struct rm_peer *pe = &rm.peers[p];

		for (unsigned int k = 0; k < pe->n.n_lcores; k++) {
			struct ux_chan *ch = &ul->chan[pe->chan_base + k];

			ch->ul = ul;
			ch->peer = p;
			ch->peer_lcore = pe->n.lcores[k];
			chan_fresh(ch);
			ch->arena = rte_malloc_socket("lca_ucx",
						      (size_t)rm.window * (UX_HDR_LEN + rm.frame_cap),
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
		struct lca_lcore_hook h = { .poll = hook_poll, .end = hook_end, .arg = rm_ux.lc[l] };
		int ret;

		if (rm_ux.lc[l] == NULL)
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

/* UCX's context: its configuration read (with the endpoint ids made
 * indirect), then ucp_init(). */
static int
ux_context_create(void)
{
	ucp_params_t params = {
		.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_NAME |
			      UCP_PARAM_FIELD_MT_WORKERS_SHARED,
		.features = UCP_FEATURE_AM,
		.name = "lcactor",
		/* One worker per lcore thread, all on this context. */
		.mt_workers_shared = 1,
	};
	ucp_config_t *cfg;
	ucs_status_t st;

	tls_warn();
	/* A listener's port stays in TIME_WAIT after a stop: a start in the
	 * same minute (a restarted node, the next test) must bind it again. */
	setenv("UCX_TCP_CM_REUSEADDR", "y", 0);
	st = ucp_config_read(NULL, NULL, &cfg);
	if (st != UCS_OK) {
		LCA_LOG(ERR, "remote ucx: ucp_config_read: %s\n", ucs_status_string(st));
		return -EINVAL;
	}
	/* A message that asks for a reply names its endpoint at the receiver;
	 * in error mode NONE (ux_client_connect()) that name is the endpoint's
	 * address, so a message that arrives after the receiver closed the
	 * endpoint (a peer declared dead, starved of CPU) made UCX 1.13 abort
	 * in ucp_am_handler_reply. An indirect id is looked up in a table, and
	 * a stale one is dropped. UCX_PROTO_INDIRECT_ID in the environment
	 * still wins. */
	if (getenv("UCX_PROTO_INDIRECT_ID") == NULL &&
	    (st = ucp_config_modify(cfg, "PROTO_INDIRECT_ID", "on")) != UCS_OK)
		LCA_LOG(WARNING, "remote ucx: PROTO_INDIRECT_ID=on refused (%s): a message for "
				 "a closed endpoint may abort UCX\n",
			ucs_status_string(st));
	st = ucp_init(&params, cfg, &rm_ux.ctx);
	ucp_config_release(cfg);
	if (st != UCS_OK) {
		rm_ux.ctx = NULL;
		LCA_LOG(ERR, "remote ucx: ucp_init: %s (UCX_TLS=%s)\n", ucs_status_string(st),
			getenv("UCX_TLS") ? getenv("UCX_TLS") : "unset");
		return -ENODEV;
	}
	return 0;
}

/* The pool of the mbufs that received payloads are copied into. */
static int
ux_pool_create(void)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	static unsigned int gen;

	/* A pool kept by an earlier stop (its mbufs still out) keeps its
	 * name: each start gets its own. */
	snprintf(name, sizeof(name), "lca_ucx_%u_%u", rm.self.id, gen++);
	rm_ux.pool = rte_pktmbuf_pool_create(name, UX_POOL_MBUFS, 256, 0,
					  RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	if (rm_ux.pool == NULL) {
		LCA_LOG(ERR, "remote ucx: no mbuf pool: %s\n", rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

/* Each runtime lcore's worker and @p n_chan channels, then every
 * channel's connection asked for. */
static int
ux_lcores_start(unsigned int n_chan)
{
	int ret;

	for (unsigned int i = 0; i < rm.n_lcores; i++) {
		unsigned int l = rm.lcores[i];

		rm_ux.lc[l] = lcore_alloc(l, n_chan);
		if (rm_ux.lc[l] == NULL)
			return -ENOMEM;
		rm_ux.lc[l]->spare.pool = rm_ux.pool;
		ret = worker_start(rm_ux.lc[l]);
		if (ret != 0)
			return ret;
	}
	for (unsigned int i = 0; i < rm.n_lcores; i++) {
		struct ux_lcore *ul = rm_ux.lc[rm.lcores[i]];

		ul->next_check = rm.start_tsc;
		for (unsigned int c = 0; c < ul->n_chan; c++)
			ux_client_connect(&ul->chan[c]);
	}
	return 0;
}

static int
ux_start(void)
{
	unsigned int n_chan = 0;
	int ret;

	rm.window = rm.conf.window ? rm.conf.window : UX_DEF_WINDOW;
	rm.frame_cap = rm.conf.mtu ? rm.conf.mtu : UX_DEF_BUF;
	rm.start_tsc = rte_rdtsc();
	for (unsigned int p = 0; p < rm.n_peers; p++)
		n_chan += rm.peers[p].n.n_lcores;
	ret = ux_context_create();
	if (ret != 0)
		return ret;
	rm_ux.stopping = false;
	rm_ux.proto_log = (struct rm_log_limit){ 0 };
	ret = ux_auth_init(&rm.conf);
	if (ret != 0)
		return ret;
	rm_ux.retry = UX_RETRY_MS * rte_get_tsc_hz() / 1000;
	rm_ux.retry_max = UX_RETRY_MAX_MS * rte_get_tsc_hz() / 1000;
	ret = ux_pool_create();
	if (ret == 0)
		ret = ux_lcores_start(n_chan);
	/* On a failure, the shared layer's stop undoes what was done. */
	return ret != 0 ? ret : hooks(true);
}

static bool
leaves_in_flight(void)
{
	for (unsigned int i = 0; i < rm.n_lcores; i++) {
		const struct ux_lcore *ul = rm_ux.lc[rm.lcores[i]];

		for (unsigned int c = 0; ul != NULL && c < ul->n_chan; c++)
			if (ul->chan[c].leave.busy)
				return true;
	}
	return false;
}

/*
 * Tell each peer that lives that we stop: a LEAVE on each endpoint that is
 * up, from this thread (the lcores are stopped). Best effort: a peer that
 * misses it finds us dead by its endpoint's error or dead_ms, as before.
 */
static void
leave_all(void)
{
	for (unsigned int i = 0; i < rm.n_lcores; i++) {
		struct ux_lcore *ul = rm_ux.lc[rm.lcores[i]];

		for (unsigned int c = 0; ul != NULL && c < ul->n_chan; c++) {
			struct ux_chan *ch = &ul->chan[c];

			if (ch->ep == NULL || ch->failed || !ch->connected ||
			    __atomic_load_n(&rm.peers[ch->peer].dead, __ATOMIC_ACQUIRE))
				continue;
			hdr_fill(&ch->leave.hdr.h, ch, 0, 0);
			if (ux_am_send(ch->ep, UX_AM_LEAVE, &ch->leave.hdr, NULL, 0, &ch->leave,
				       false) == UCS_OK)
				ch->said_leave = true;
			else
				LCA_LOG(DEBUG, "remote ucx: no LEAVE to node %u\n",
					rm.peers[ch->peer].n.id);
		}
	}
	/* Until UCX has sent each: then the endpoints need no flush, which
	 * would wait for peers that stop as soon as they read it. */
	for (unsigned int spin = 0; spin < UX_CLOSE_SPINS && leaves_in_flight(); spin++)
		ux_progress_all();
}

static void
ux_stop(void)
{
	hooks(false);
	/* First: what arrives while the LEAVEs go (ours to ourselves, on a
	 * loopback link, or a peer's that stops too) is not read any more. */
	rm_ux.stopping = true;
	if (rm_ux.ctx != NULL)
		leave_all();
	ux_close_all();
	for (unsigned int i = 0; i < rm.n_lcores; i++) {
		unsigned int l = rm.lcores[i];

		lcore_free(rm_ux.lc[l]);
		rm_ux.lc[l] = NULL;
	}
	if (rm_ux.ctx != NULL)
		ucp_cleanup(rm_ux.ctx);
	rm_ux.ctx = NULL;
	ux_auth_fini();
	if (rm_ux.pool != NULL && rte_mempool_avail_count(rm_ux.pool) < UX_POOL_MBUFS)
		/* Messages that arrived in its mbufs are still held (by actors,
		 * by the app): the pool stays for them. */
		LCA_LOG(INFO, "remote ucx: %u mbufs of the receive pool still held: it is kept\n",
			UX_POOL_MBUFS - rte_mempool_avail_count(rm_ux.pool));
	else
		rte_mempool_free(rm_ux.pool);
	rm_ux.pool = NULL;
}

static bool
ux_idle(void)
{
	for (unsigned int i = 0; i < rm.n_lcores; i++) {
		const struct ux_lcore *ul = rm_ux.lc[rm.lcores[i]];

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
		const struct ux_lcore *ul = rm_ux.lc[rm.lcores[i]];

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
