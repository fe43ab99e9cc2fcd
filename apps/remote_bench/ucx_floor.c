/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lca-ucx-floor: the bare UCX floor of lca-remote-bench --remote ucx. Two
 * processes (this one forks the second), each pinned to one CPU, talk UCP
 * active messages over the transports UCX_TLS picks, connected as lcactor's
 * UCX transport connects (client-server over a listener on 127.0.0.1,
 * error handling mode none, eager sends), with nothing else: no actor, no
 * frame, no credit, no acknowledgement. For each message size: one-way
 * msg/s (one active message per message, an END that the server answers
 * with its count) and round trips one at a time (p50, p99, p99.9). Its
 * lines are lca-remote-bench's, and a "# floor-result" line per size says
 * the same for a program to read.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ucp/api/ucp.h>

#include "app_opt.h"
#include "rb_floor_prog.h"

#define PROG "lca-ucx-floor"
#define WINDOW 256 /* sends still in UCX's hands before the client waits */

enum { AM_DATA = 1, AM_END, AM_END_ACK, AM_PING, AM_PONG, AM_QUIT };

static struct floor_opts o = FLOOR_OPTS_DEFAULT;

/* One side's UCX objects and what its callbacks saw. */
static struct {
	ucp_context_h ctx;
	ucp_worker_h worker;
	ucp_listener_h listener;
	ucp_ep_h ep;
	uint64_t count;      /* server: AM_DATA received since the last END */
	bool quit;           /* server: AM_QUIT received */
	bool got_reply;      /* client: PONG or END_ACK arrived */
	uint64_t reply_count; /* client: the END_ACK's count */
	unsigned int in_flight;
} ux;

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
sent_cb(void *request, ucs_status_t status, void *user)
{
	(void)status;
	(void)user;
	ux.in_flight--;
	ucp_request_free(request);
}

/* An eager active message; @p ep NULL: on the reply endpoint of @p reply. */
static int
am_send(ucp_ep_h ep, unsigned int id, const void *buf, size_t len, bool reply)
{
	ucp_request_param_t p = {
		.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_FLAGS,
		.flags = UCP_AM_SEND_FLAG_EAGER | (reply ? UCP_AM_SEND_FLAG_REPLY : 0),
		.cb.send = sent_cb,
	};
	ucs_status_ptr_t r = ucp_am_send_nbx(ep, id, NULL, 0, buf, len, &p);

	if (UCS_PTR_IS_ERR(r)) {
		fprintf(stderr, PROG ": ucp_am_send_nbx: %s\n",
			ucs_status_string(UCS_PTR_STATUS(r)));
		return -EIO;
	}
	if (r != NULL)
		ux.in_flight++;
	return 0;
}

/* The server's handler of every message id. */
static ucs_status_t
server_am(void *arg, const void *hdr, size_t hdr_len, void *data, size_t len,
	  const ucp_am_recv_param_t *param)
{
	unsigned int id = (unsigned int)(uintptr_t)arg;
	ucp_ep_h back = (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) ? param->reply_ep :
									     ux.ep;

	(void)hdr;
	(void)hdr_len;
	switch (id) {
	case AM_DATA:
		ux.count++;
		break;
	case AM_PING:
		am_send(back, AM_PONG, data, len, false);
		break;
	case AM_END:
		am_send(back, AM_END_ACK, &ux.count, sizeof(ux.count), false);
		ux.count = 0;
		break;
	case AM_QUIT:
		ux.quit = true;
		break;
	}
	return UCS_OK;
}

static ucs_status_t
client_am(void *arg, const void *hdr, size_t hdr_len, void *data, size_t len,
	  const ucp_am_recv_param_t *param)
{
	(void)hdr;
	(void)hdr_len;
	(void)param;
	if ((uintptr_t)arg == AM_END_ACK && len == sizeof(ux.reply_count))
		memcpy(&ux.reply_count, data, sizeof(ux.reply_count));
	ux.got_reply = true;
	return UCS_OK;
}

static int
set_handler(unsigned int id, ucp_am_recv_callback_t cb)
{
	ucp_am_handler_param_t p = {
		.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
			      UCP_AM_HANDLER_PARAM_FIELD_ARG,
		.id = id, .cb = cb, .arg = (void *)(uintptr_t)id,
	};

	return ucp_worker_set_am_recv_handler(ux.worker, &p) == UCS_OK ? 0 : -EIO;
}

/* Context and worker as lcactor makes them (UCP_FEATURE_AM, one worker). */
static int
ux_init(bool server)
{
	ucp_params_t pp = { .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_NAME,
			    .features = UCP_FEATURE_AM, .name = PROG };
	ucp_worker_params_t wp = { .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
				   .thread_mode = UCS_THREAD_MODE_SINGLE };
	ucp_config_t *cfg;
	ucs_status_t st = ucp_config_read(NULL, NULL, &cfg);

	if (st == UCS_OK) {
		st = ucp_init(&pp, cfg, &ux.ctx);
		ucp_config_release(cfg);
	}
	if (st == UCS_OK)
		st = ucp_worker_create(ux.ctx, &wp, &ux.worker);
	if (st != UCS_OK) {
		fprintf(stderr, PROG ": UCX init: %s (UCX_TLS=%s)\n", ucs_status_string(st),
			getenv("UCX_TLS") ? getenv("UCX_TLS") : "unset");
		return -ENODEV;
	}
	for (unsigned int id = AM_DATA; id <= AM_QUIT; id++)
		if (set_handler(id, server ? server_am : client_am) != 0)
			return -EIO;
	return 0;
}

/* Everything UCX holds, closed in order: a process that leaves its worker
 * and endpoint to exit() can crash in UCX's own teardown. */
static void
ux_fini(bool force)
{
	if (ux.ep != NULL) {
		/* The client flushes its QUIT out; the server's peer may be gone. */
		ucp_request_param_t p = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
					  .flags = force ? UCP_EP_CLOSE_FLAG_FORCE : 0 };
		ucs_status_ptr_t r = ucp_ep_close_nbx(ux.ep, &p);

		if (UCS_PTR_IS_PTR(r)) {
			while (ucp_request_check_status(r) == UCS_INPROGRESS)
				ucp_worker_progress(ux.worker);
			ucp_request_free(r);
		}
		ux.ep = NULL;
	}
	if (ux.listener != NULL)
		ucp_listener_destroy(ux.listener);
	if (ux.worker != NULL)
		ucp_worker_destroy(ux.worker);
	if (ux.ctx != NULL)
		ucp_cleanup(ux.ctx);
	ux.listener = NULL;
	ux.worker = NULL;
	ux.ctx = NULL;
}

static void
addr_of(struct sockaddr_in *sa, uint16_t port)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons(port);
	sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
}

static void
on_connect(ucp_conn_request_h req, void *arg)
{
	ucp_ep_params_t p = {
		.field_mask = UCP_EP_PARAM_FIELD_CONN_REQUEST | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE,
		.conn_request = req, .err_mode = UCP_ERR_HANDLING_MODE_NONE,
	};

	(void)arg;
	if (ux.ep != NULL || ucp_ep_create(ux.worker, &p, &ux.ep) != UCS_OK)
		ucp_listener_reject(ux.listener, req);
}

/* The second process: listen, answer, until AM_QUIT; its port to @p fd. */
static int
serve(int fd)
{
	struct sockaddr_in sa;
	ucp_listener_params_t lp = {
		.field_mask = UCP_LISTENER_PARAM_FIELD_SOCK_ADDR | UCP_LISTENER_PARAM_FIELD_CONN_HANDLER,
		.sockaddr = { .addr = (const struct sockaddr *)&sa, .addrlen = sizeof(sa) },
		.conn_handler = { .cb = on_connect },
	};
	ucp_listener_attr_t la = { .field_mask = UCP_LISTENER_ATTR_FIELD_SOCKADDR };
	uint16_t port;

	addr_of(&sa, 0);
	if (ux_init(true) != 0 || ucp_listener_create(ux.worker, &lp, &ux.listener) != UCS_OK ||
	    ucp_listener_query(ux.listener, &la) != UCS_OK) {
		fprintf(stderr, PROG ": server: cannot listen on 127.0.0.1\n");
		return 1;
	}
	port = ntohs(((struct sockaddr_in *)&la.sockaddr)->sin_port);
	if (write(fd, &port, sizeof(port)) != sizeof(port))
		return 1;
	close(fd);
	while (!ux.quit)
		ucp_worker_progress(ux.worker);
	/* The last sends out before the endpoint goes. */
	while (ux.in_flight > 0)
		ucp_worker_progress(ux.worker);
	return 0;
}

/* Progress until a reply came; false after --timeout. */
static bool
wait_reply(void)
{
	uint64_t limit = now_ns() + (uint64_t)o.timeout_s * 1000000000u;

	while (!ux.got_reply) {
		ucp_worker_progress(ux.worker);
		if (now_ns() > limit) {
			fprintf(stderr, PROG ": no answer within %u s\n", o.timeout_s);
			return false;
		}
	}
	ux.got_reply = false;
	return true;
}

/* One-way: msgs active messages as fast as UCX takes them, then END. */
static int
one_way(unsigned int size, double *mps)
{
	static uint8_t buf[FLOOR_MAX_SIZE];
	uint64_t t0 = now_ns();
	double ms;

	memset(buf, 0x5a, size);
	for (uint64_t i = 0; i < o.msgs; i++) {
		if (am_send(ux.ep, AM_DATA, buf, size, false) != 0)
			return -EIO;
		while (ux.in_flight >= WINDOW)
			ucp_worker_progress(ux.worker);
	}
	if (am_send(ux.ep, AM_END, NULL, 0, true) != 0 || !wait_reply())
		return -EIO;
	ms = (double)(now_ns() - t0) / 1e6;
	*mps = (double)o.msgs / ms / 1e3;
	printf("  %4u B: %" PRIu64 " messages one way in %.1f ms: %.2f M msg/s; the server "
	       "counted %" PRIu64 "\n", size, o.msgs, ms, *mps, ux.reply_count);
	return ux.reply_count == o.msgs ? 0 : -EIO;
}

/* Round trips one at a time; their percentiles in us. */
static int
round_trips(unsigned int size, uint64_t *rtt, double *p)
{
	static uint8_t buf[FLOOR_MAX_SIZE];

	for (unsigned int i = 0; i < FLOOR_WARM_PINGS + o.pings; i++) {
		uint64_t t0 = now_ns();

		if (am_send(ux.ep, AM_PING, buf, size, true) != 0 || !wait_reply())
			return -EIO;
		if (i >= FLOOR_WARM_PINGS)
			rtt[i - FLOOR_WARM_PINGS] = now_ns() - t0;
	}
	floor_rtt_report(size, rtt, o.pings, 1.0, p);
	return 0;
}

static int
connect_to(uint16_t port)
{
	struct sockaddr_in sa;
	ucp_ep_params_t p = {
		.field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR |
			      UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE,
		.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER,
		/* As lcactor's: PEER would leave shared memory out (UCX 1.13). */
		.err_mode = UCP_ERR_HANDLING_MODE_NONE,
		.sockaddr = { .addr = (const struct sockaddr *)&sa, .addrlen = sizeof(sa) },
	};

	addr_of(&sa, port);
	if (ux_init(false) != 0 || ucp_ep_create(ux.worker, &p, &ux.ep) != UCS_OK) {
		fprintf(stderr, PROG ": cannot connect to 127.0.0.1:%u\n", port);
		return -EIO;
	}
	return 0;
}

static int
drive(uint16_t port)
{
	uint64_t *rtt = calloc(o.pings, sizeof(*rtt));
	int ret = rtt == NULL ? -ENOMEM : connect_to(port);

	for (unsigned int i = 0; ret == 0 && i < o.n_sizes; i++) {
		double mps = 0, p[3];

		ret = one_way(o.sizes[i], &mps);
		if (ret == 0)
			ret = round_trips(o.sizes[i], rtt, p);
		if (ret == 0)
			floor_result_line(o.sizes[i], mps, p);
	}
	if (ux.ep != NULL) {
		am_send(ux.ep, AM_QUIT, NULL, 0, false);
		while (ux.in_flight > 0)
			ucp_worker_progress(ux.worker);
	}
	free(rtt);
	ux_fini(false);
	return ret;
}

static const struct app_opt options[] = {
	FLOOR_OPTIONS,
	{ NULL },
};

static const struct app_opt_table table = {
	.prog = PROG, .opts = options, .synopsis = "[options]", .column = 17,
	.about = "The bare UCX floor of lca-remote-bench --remote ucx: two processes (this one\n"
		 "starts the second), UCP active messages and nothing else; UCX_TLS picks UCX's\n"
		 "transports, e.g. shm,tcp (its connection setup needs tcp).\n",
};

static int
pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0) {
		fprintf(stderr, PROG ": cannot pin to CPU %d: %s\n", cpu, strerror(errno));
		return -errno;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	int fds[2], ret;
	uint16_t port = 0;
	pid_t child;

	ret = app_opt_parse(argc, argv, &table, &o, NULL);
	if (ret != 0)
		return ret > 0 ? 0 : 2;
	child = floor_fork(fds);
	if (child < 0)
		return 1;
	if (child == 0) {
		close(fds[0]);
		ret = pin(o.cpu[1]) != 0 ? 1 : serve(fds[1]);
		ux_fini(true);
		_exit(ret);
	}
	close(fds[1]);
	ret = read(fds[0], &port, sizeof(port)) == sizeof(port) ? pin(o.cpu[0]) : -EIO;
	close(fds[0]);
	if (ret == 0) {
		printf("UCX floor: UCP active messages between two processes over 127.0.0.1 "
		       "(UCX_TLS=%s), CPUs %d and %d, one eager message per message, nothing "
		       "else\n", getenv("UCX_TLS") ? getenv("UCX_TLS") : "unset", o.cpu[0], o.cpu[1]);
		ret = drive(port);
	}
	return floor_reap(PROG, "UCX", child, ret) == 0 ? 0 : 1;
}
