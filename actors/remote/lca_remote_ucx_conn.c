/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The UCX transport's endpoints: the client end of each channel (ours, to
 * the peer lcore's listener, made again after a failure until connect_ms),
 * the server ends the listener accepts (the peer's, on which credits go
 * back), and closing them all at a stop.
 */
#define LCA_LOG_PART lca_logtype_remote
#include <arpa/inet.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "lca_eal.h"
#include "lca_remote_ucx_priv.h"
#include "lca_logtypes_priv.h"

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

void
ux_ep_close(ucp_worker_h worker, ucp_ep_h ep)
{
	/* A flush close: UCX allows a forced one only in its PEER error mode,
	 * which this transport does not use (ux_client_connect()). */
	ucp_request_param_t param = { .op_attr_mask = 0 };
	ucs_status_ptr_t r = ucp_ep_close_nbx(ep, &param);

	if (r == NULL || UCS_PTR_IS_ERR(r))
		return;
	for (unsigned int i = 0;
	     i < UX_CLOSE_SPINS && ucp_request_check_status(r) == UCS_INPROGRESS; i++)
		ucp_worker_progress(worker);
	ucp_request_free(r);
}

/*
 * A message the peer sent before its endpoint failed may still be on its
 * way (over shared memory, behind the connection manager's reset). With
 * indirect endpoint ids (ux_start()) UCX drops one for a closed endpoint;
 * without them (a user's UCX_PROTO_INDIRECT_ID=off) it would read freed
 * memory. So a failed endpoint is closed dead_ms later, when nothing sent
 * before the failure is left.
 */
void
ux_ep_retire(struct ux_lcore *ul, ucp_ep_h ep, uint64_t now)
{
	if (ul->n_retired == UX_RETIRED_EPS) {
		ux_ep_close(ul->worker, ul->retired[0].ep);
		memmove(&ul->retired[0], &ul->retired[1],
			sizeof(ul->retired[0]) * (UX_RETIRED_EPS - 1));
		ul->n_retired--;
	}
	ul->retired[ul->n_retired++] = (struct ux_retired_ep){ .ep = ep, .tsc = now };
}

void
ux_ep_reap(struct ux_lcore *ul, uint64_t now)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < ul->n_retired; i++) {
		if (now != UINT64_MAX && now - ul->retired[i].tsc < rm.dead)
			ul->retired[k++] = ul->retired[i];
		else if (ul->retired[i].ep != NULL) /* NULL: ux_close_all() closed it */
			ux_ep_close(ul->worker, ul->retired[i].ep);
	}
	ul->n_retired = k;
}

void
ux_on_connect(ucp_conn_request_h req, void *arg)
{
	struct ux_lcore *ul = arg;
	struct ux_server_ep *s;
	ucp_ep_params_t p = {
		.field_mask = UCP_EP_PARAM_FIELD_CONN_REQUEST | UCP_EP_PARAM_FIELD_ERR_HANDLER |
			      UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE,
		.conn_request = req,
		.err_mode = UCP_ERR_HANDLING_MODE_NONE, /* see ux_client_connect() */
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

void
ux_sockaddr_of(struct sockaddr_in *sa, uint32_t ipv4, unsigned int port)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	sa->sin_addr.s_addr = htonl(ipv4);
}

/* A hello: the first message on a new endpoint (the peer answers with a
 * credit, which says the channel is up), and the heartbeat of a quiet one. */
void
ux_send_hello(struct ux_chan *ch)
{
	ucs_status_t st;

	hdr_fill(&ch->hello.h, ch, 0, 0);
	st = ux_am_send(ch->ep, UX_AM_HELLO, &ch->hello, NULL, 0, NULL, true);
	if (st != UCS_OK) {
		ch->failed = true;
		ch->fail_status = st;
	}
	ch->last_tx_tsc = rte_rdtsc();
	rm_count(&ch->st.acks_sent, 1);
}

void
ux_client_connect(struct ux_chan *ch)
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

	ux_sockaddr_of(&sa, pe->n.ipv4, (unsigned int)pe->n.udp_base + ch->peer_lcore);
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
	ux_send_hello(ch);
}

/* Whether @p ep of @p ul (ours to a peer, a channel's, or the peer's to us,
 * a channel's reply endpoint) needs no flush at the stop: its peer is down,
 * or UCX has sent our LEAVE to it. A flush then would wait for a peer that
 * stops or is gone, and UCX reports it as an error. */
static bool
ep_done_with(const struct ux_lcore *ul, ucp_ep_h ep)
{
	for (unsigned int c = 0; c < ul->n_chan; c++) {
		const struct ux_chan *ch = &ul->chan[c];

		if (ch->ep == ep || ch->reply_ep == ep)
			return ch->said_leave ||
			       __atomic_load_n(&rm.peers[ch->peer].dead, __ATOMIC_ACQUIRE);
	}
	return false;
}

void
ux_progress_all(void)
{
	for (unsigned int i = 0; i < rm.n_lcores; i++)
		if (rm_ux.lc[rm.lcores[i]] != NULL)
			ucp_worker_progress(rm_ux.lc[rm.lcores[i]]->worker);
}

/* Progress every lcore's worker until the @p n requests of @p reqs are
 * complete, or UX_CLOSE_SPINS rounds; free them. */
static void
wait_all(ucs_status_ptr_t *reqs, unsigned int n)
{
	for (unsigned int spin = 0; spin < UX_CLOSE_SPINS && n > 0; spin++) {
		bool done = true;

		ux_progress_all();
		for (unsigned int k = 0; k < n && done; k++)
			done = ucp_request_check_status(reqs[k]) != UCS_INPROGRESS;
		if (done)
			break;
	}
	for (unsigned int k = 0; k < n; k++)
		ucp_request_free(reqs[k]);
}

/* Close every endpoint of every lcore at once, progressing all the workers
 * until the closes complete: an endpoint's flush may wait for a worker of
 * this process (the peer of a loopback, or its other end), which a close
 * progressing only its own worker would time out on. */
void
ux_close_all(void)
{
	ucp_request_param_t param = { .op_attr_mask = 0 };
	unsigned int n = 0, cap = 0;
	ucs_status_ptr_t *reqs = NULL;

	for (unsigned int i = 0; i < rm.n_lcores; i++) {
		const struct ux_lcore *ul = rm_ux.lc[rm.lcores[i]];

		if (ul != NULL)
			cap += ul->n_chan + ul->n_server + ul->n_retired;
	}
	if (cap > 0)
		reqs = calloc(cap, sizeof(*reqs));
	for (unsigned int i = 0; i < rm.n_lcores; i++) {
		struct ux_lcore *ul = rm_ux.lc[rm.lcores[i]];

		for (unsigned int c = 0; ul != NULL && c < ul->n_chan + ul->n_server + ul->n_retired;
		     c++) {
			ucp_ep_h *ep = c < ul->n_chan		   ? &ul->chan[c].ep
				       : c < ul->n_chan + ul->n_server ? &ul->server[c - ul->n_chan].ep
				       : &ul->retired[c - ul->n_chan - ul->n_server].ep;
			ucs_status_ptr_t r;

			if (*ep == NULL)
				continue;
			/* A retired one failed: nothing of it to flush. */
			if (c >= ul->n_chan + ul->n_server || ep_done_with(ul, *ep)) {
				/* ucp_worker_destroy() drops it, unflushed. */
				*ep = NULL;
				continue;
			}
			r = ucp_ep_close_nbx(*ep, &param);
			*ep = NULL;
			if (r == NULL || UCS_PTR_IS_ERR(r))
				continue;
			if (reqs != NULL && n < cap)
				reqs[n++] = r;
			else
				ucp_request_free(r);
		}
	}
	wait_all(reqs, n);
	free(reqs);
}
