/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lca-httpd's sockets: one worker per lcore, driven from that lcore's loop
 * hook. The hook's poll asks the worker's epoll set with a zero timeout and
 * handles what is ready (accept, read and parse, answer into the
 * connection's output buffer); the hook's end writes every buffer that got
 * output in the iteration, once, so pipelined answers leave together and
 * answers that came back as messages during the iteration's turns leave in
 * the same iteration.
 *
 * Only the worker's lcore touches its connections. What another lcore has
 * for it comes as a message to its worker actor: a socket to adopt (one
 * acceptor), or the service's answer to a /user request.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <http_parser.h>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "hd_conn.h"
#include "httpd.h"
#include "lca_lcore.h"

const char *const hd_ctr_names[HD_N] = {
	[HD_ACCEPTED] = "accepted",
	[HD_OPENED] = "opened",
	[HD_CLOSED] = "closed",
	[HD_REFUSED] = "refused_table_full",
	[HD_REQUESTS] = "requests",
	[HD_S200] = "status_200",
	[HD_S400] = "status_400",
	[HD_S404] = "status_404",
	[HD_S405] = "status_405",
	[HD_S408] = "status_408",
	[HD_S413] = "status_413",
	[HD_S431] = "status_431",
	[HD_S503] = "status_503",
	[HD_RESETS] = "resets",
	[HD_HALF_CLOSED] = "half_closed",
	[HD_IDLE_CLOSED] = "idle_closed",
	[HD_USER_ASKED] = "user_asked",
	[HD_USER_ANSWERED] = "user_answered",
	[HD_USER_TIMED_OUT] = "user_timed_out",
	[HD_BYTES_IN] = "bytes_in",
	[HD_BYTES_OUT] = "bytes_out",
	[HD_IDLE_WAITS] = "idle_waits",
	[HD_WAKEUPS] = "wakeups",
	[HD_S100] = "status_100",
	[HD_S414] = "status_414",
	[HD_S501] = "status_501",
	[HD_SHED] = "shed_503",
	[HD_REFUSED_FD] = "refused_fd_limit",
	[HD_ACCEPT_FAILS] = "accept_fails",
	[HD_DRAIN_IDLE] = "drain_idle_closed",
	[HD_DRAIN_CUT] = "drain_cut",
	[HD_S504] = "status_504",
	[HD_LOG_DROPPED] = "access_log_dropped",
	[HD_S505] = "status_505",
	[HD_BAD_NAME] = "refused_header_name",
	[HD_OBS_FOLD] = "refused_obs_fold",
	[HD_BAD_METHOD] = "refused_unknown_method",
};

/* The seed's small body (003: 35 bytes, from its Transfer/sec). */
static const char ROOT_BODY[] = "Hello from lca-httpd on DPDK lcores";
#define ROOT_BODY_LEN (sizeof(ROOT_BODY) - 1)

static struct hd_conf cfg;
static struct hd_worker *workers[RTE_MAX_LCORE];
static lca_actor_id_t service_id = LCA_ACTOR_NONE;
static unsigned int service_lcore;
static unsigned int listen_port;
static uint64_t tsc_hz;
static uint64_t lat_le_tsc[HD_LAT_BUCKETS - 1]; /* hd_lat_le in tsc cycles */
static int drain_asked;           /* set by the signal handler */
static uint64_t drain_start, drain_stop; /* tsc, main lcore */
static enum hd_io io_taken = HD_IO_EPOLL;
static bool io_fell_back;

static http_parser_settings settings;

static uint64_t
ms_to_tsc(uint64_t ms)
{
	return ms * tsc_hz / 1000;
}

static uint64_t
inflight_total(void)
{
	uint64_t sum = 0;
	unsigned int l;

	RTE_LCORE_FOREACH(l)
		sum += __atomic_load_n(&workers[l]->inflight, __ATOMIC_RELAXED);
	return sum;
}

/* --- output ------------------------------------------------------------- */

static void flush(struct hd_worker *w, struct hd_conn *c);

static void
mark_dirty(struct hd_worker *w, struct hd_conn *c)
{
	if (c->dirty)
		return;
	if (w->n_dirty == cfg.max_conns) { /* a slot reused twice in one iteration */
		flush(w, c);
		return;
	}
	c->dirty = true;
	w->dirty_ids[w->n_dirty++] = (uint32_t)(c - w->conns);
}

/* Room for @p len more bytes; false (connection closed) when there is none. */
static bool
out_reserve(struct hd_worker *w, struct hd_conn *c, size_t len)
{
	size_t need = (size_t)c->out_len + len, cap = c->out_cap ? c->out_cap : 4096;
	char *p;

	if (need <= c->out_cap)
		return true;
	if (c->out_off > 0 && need - c->out_off <= c->out_cap) {
		memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
		c->out_len -= c->out_off;
		c->out_off = 0;
		return true;
	}
	while (cap < need)
		cap *= 2;
	if (cap > OUT_MAX || (p = realloc(c->out, cap)) == NULL) {
		hd_conn_close(w, c);
		return false;
	}
	c->out = p;
	c->out_cap = (uint32_t)cap;
	return true;
}

static bool
out_append(struct hd_worker *w, struct hd_conn *c, const void *data, size_t len)
{
	if (!out_reserve(w, c, len))
		return false;
	memcpy(c->out + c->out_len, data, len);
	c->out_len += (uint32_t)len;
	mark_dirty(w, c);
	return true;
}

static const char *
reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 413: return "Content Too Large";
	case 414: return "URI Too Long";
	case 431: return "Request Header Fields Too Large";
	case 501: return "Not Implemented";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Timeout";
	case 505: return "HTTP Version Not Supported";
	default: return "Error";
	}
}

static void
count_status(struct hd_worker *w, int status)
{
	static const struct { int status; enum hd_ctr k; } map[] = {
		{ 200, HD_S200 }, { 400, HD_S400 }, { 404, HD_S404 }, { 405, HD_S405 },
		{ 408, HD_S408 }, { 413, HD_S413 }, { 414, HD_S414 }, { 431, HD_S431 },
		{ 501, HD_S501 }, { 503, HD_S503 }, { 504, HD_S504 }, { 505, HD_S505 },
	};

	for (unsigned int i = 0; i < RTE_DIM(map); i++)
		if (map[i].status == status)
			ctr_add(w, map[i].k, 1);
}

/* The access log's record of an answer to @p c's request. */
static void
log_answer(struct hd_worker *w, const struct hd_conn *c, int status, size_t body_len)
{
	struct hd_log_rec r = {
		.time_s = w->unix_now, .bytes = body_len, .peer = c->peer,
		.status = (uint16_t)status, .method = HD_LOG_NO_METHOD,
	};

	if (c->url_len > 0) {
		r.method = (uint8_t)c->p.method;
		r.version = (uint8_t)(c->p.http_major * 10 + c->p.http_minor);
		r.url_len = (uint8_t)RTE_MIN((size_t)c->url_len, (size_t)HD_LOG_URL_MAX);
		r.url_cut = c->url_over || c->url_len > HD_LOG_URL_MAX;
		memcpy(r.url, c->url, r.url_len);
	}
	if (!hd_log_put(w->lcore, &r))
		ctr_add(w, HD_LOG_DROPPED, 1);
}

/* A final answer to @p c's request: its status, latency and log line. */
static void
answered(struct hd_worker *w, const struct hd_conn *c, int status, size_t body_len)
{
	uint64_t took = rte_rdtsc() - c->req_start;
	unsigned int b = 0;

	count_status(w, status);
	while (b < HD_LAT_BUCKETS - 1 && took > lat_le_tsc[b])
		b++;
	__atomic_store_n(&w->lat[b], w->lat[b] + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&w->lat_sum, w->lat_sum + took, __ATOMIC_RELAXED);
	if (hd_log_on)
		log_answer(w, c, status, body_len);
}

/*
 * The header of an answer, and room for its body: returns where the body
 * goes (NULL when the connection was closed for want of memory). A HEAD
 * answer gets the header only.
 */
static char *
respond(struct hd_worker *w, struct hd_conn *c, int status, const char *ctype, size_t body_len,
	bool keep, bool head, const char *extra)
{
	char hdr[512];
	int n;

	keep = keep && !w->draining; /* a graceful stop: this answer is the last */
	n = snprintf(hdr, sizeof(hdr),
			 "HTTP/1.1 %d %s\r\nServer: lca-httpd\r\nDate: %s\r\n"
			 "Content-Type: %s\r\nContent-Length: %zu\r\n%s%s\r\n",
			 status, reason(status), w->date, ctype, body_len,
			 keep ? "Connection: keep-alive\r\n" : "Connection: close\r\n",
			 extra != NULL ? extra : "");
	size_t total = (size_t)n + (head ? 0 : body_len);
	char *body;

	if (n < 0 || (size_t)n >= sizeof(hdr))
		return NULL;
	answered(w, c, status, head ? 0 : body_len);
	if (!out_reserve(w, c, total))
		return NULL;
	memcpy(c->out + c->out_len, hdr, (size_t)n);
	body = c->out + c->out_len + n;
	c->out_len += (uint32_t)total;
	mark_dirty(w, c);
	if (!keep)
		c->want_close = true;
	return body;
}

static void
respond_text(struct hd_worker *w, struct hd_conn *c, int status, bool keep, bool head,
	     const char *extra)
{
	char body[64];
	int n = snprintf(body, sizeof(body), "%s\n", reason(status));
	char *p = respond(w, c, status, "text/plain", (size_t)n, keep, head, extra);

	if (p != NULL && !head)
		memcpy(p, body, (size_t)n);
}

/* A request we will not serve: answer, then close this connection only. */
static void
refuse(struct hd_worker *w, struct hd_conn *c, int status)
{
	c->in_req = false;
	respond_text(w, c, status, false, false, NULL);
}

static void
update_date(struct hd_worker *w)
{
	time_t t = time(NULL);
	struct tm tm;

	w->unix_now = (uint64_t)t;
	gmtime_r(&t, &tm);
	strftime(w->date, sizeof(w->date), "%a, %d %b %Y %H:%M:%S GMT", &tm);
	w->root_len = (uint32_t)snprintf(w->root, sizeof(w->root),
					 "HTTP/1.1 200 OK\r\nServer: lca-httpd\r\nDate: %s\r\n"
					 "Content-Type: text/plain\r\nContent-Length: %zu\r\n"
					 "Connection: keep-alive\r\n\r\n%s",
					 w->date, ROOT_BODY_LEN, ROOT_BODY);
}

/* --- connections ---------------------------------------------------------- */

uint32_t
hd_unsent(const struct hd_conn *c)
{
	return c->out_len - c->out_off + (c->tx != NULL ? c->tx->len - c->tx->off : 0);
}

static void
set_events(struct hd_worker *w, struct hd_conn *c)
{
	uint32_t want = 0;
	uint32_t unsent = c->out_len - c->out_off;

	if (w->uring != NULL) {
		hd_uring_want(w, c);
		return;
	}
	if (c->state == CONN_LINGER)
		want = EPOLLIN;
	else {
		if (!c->pending && !c->rd_closed && !c->want_close && unsent < OUT_HIGH)
			want |= EPOLLIN | EPOLLRDHUP;
		/* Output not yet tried leaves at the end of the iteration;
		 * only a socket found full is watched for room, so an answer
		 * costs no epoll_ctl() at all. */
		if (c->wblocked)
			want |= EPOLLOUT;
	}
	if (want != c->ev) {
		struct epoll_event ev = { .events = want, .data.u64 = (uint64_t)(c - w->conns) };

		epoll_ctl(w->ep, EPOLL_CTL_MOD, c->fd, &ev);
		c->ev = want;
	}
}

void
hd_conn_close(struct hd_worker *w, struct hd_conn *c)
{
	if (c->state == CONN_FREE)
		return;
	busy_set(w, &c->pending, false);
	if (c->ask_id != 0) {
		/* Nobody waits for that answer now: the runtime drops it. */
		lca_ask_cancel(w->actor, c->ask_id);
		c->ask_id = 0;
	}
	busy_set(w, &c->wblocked, false);
	if (w->uring != NULL)
		hd_uring_closing(w, c); /* its requests hold the socket open: cancel them */
	close(c->fd); /* leaves the epoll set with it */
	free(c->out);
	free(c->in);
	c->out = c->in = NULL;
	c->out_len = c->out_off = c->out_cap = c->in_len = 0;
	c->state = CONN_FREE;
	c->gen++;
	c->dirty = false; /* a stale entry on the dirty list finds it free */
	w->free_ids[w->n_free++] = (uint32_t)(c - w->conns);
	ctr_add(w, HD_CLOSED, 1);
}

/*
 * Done with the connection. When the peer may still be sending, shut our
 * side and read what comes for a while: closing with unread bytes makes
 * the kernel send a reset, which can destroy the answer just sent (a 413
 * whose body is still arriving, say).
 */
void
hd_conn_finish(struct hd_worker *w, struct hd_conn *c)
{
	if (c->rd_closed) {
		hd_conn_close(w, c);
		return;
	}
	shutdown(c->fd, SHUT_WR);
	c->state = CONN_LINGER;
	c->last_active = w->now;
	set_events(w, c);
}

static void
flush(struct hd_worker *w, struct hd_conn *c)
{
	if (w->uring != NULL) {
		hd_uring_flush(w, c);
		return;
	}
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			c->out_off += (uint32_t)n;
			ctr_add(w, HD_BYTES_OUT, (uint64_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			busy_set(w, &c->wblocked, true);
			break;
		}
		/* EPIPE, ECONNRESET: the peer went away mid-answer. */
		ctr_add(w, HD_RESETS, 1);
		hd_conn_close(w, c);
		return;
	}
	if (c->out_off == c->out_len) {
		c->out_off = c->out_len = 0;
		busy_set(w, &c->wblocked, false);
		if (c->want_close && !c->pending) {
			hd_conn_finish(w, c);
			return;
		}
	}
	set_events(w, c);
}

/*
 * A connection we cannot hold: read what it sent (so the close is a FIN,
 * not a reset that could destroy the answer), answer 503, close.
 */
static void
refuse_fd(struct hd_worker *w, int fd)
{
	char msg[256];
	int n = snprintf(msg, sizeof(msg),
			 "HTTP/1.1 503 Service Unavailable\r\nServer: lca-httpd\r\nDate: %s\r\n"
			 "Content-Type: text/plain\r\nContent-Length: 20\r\nRetry-After: 1\r\n"
			 "Connection: close\r\n\r\nService Unavailable\n", w->date);

	/* Its request, when in: a reset peer makes the send fail the same. */
	ssize_t got = recv(fd, w->rbuf, RBUF_SIZE, MSG_DONTWAIT);

	if (got > 0)
		ctr_add(w, HD_BYTES_IN, (uint64_t)got);
	if (send(fd, msg, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) > 0)
		ctr_add(w, HD_BYTES_OUT, (uint64_t)n);
	count_status(w, 503);
	close(fd);
}

static void
conn_adopt(struct hd_worker *w, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };
	struct hd_conn *c;
	uint32_t id;
	int one = 1;

	if (w->n_free == 0) {
		if (w->n_conns == cfg.max_conns) {
			refuse_fd(w, fd);
			ctr_add(w, HD_REFUSED, 1);
			return;
		}
		id = w->n_conns++;
	} else {
		id = w->free_ids[--w->n_free];
	}
	c = &w->conns[id];
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->fd = fd;
	c->w = w;
	c->state = CONN_OPEN;
	c->in_req = c->pending = c->want_close = c->rd_closed = c->dirty = false;
	c->peer_shut = c->wblocked = c->recv_armed = false;
	c->tx = NULL;
	c->err = 0;
	c->ev = EPOLLIN | EPOLLRDHUP;
	c->last_active = w->now;
	c->req_start = w->now; /* a 408 before any byte has a latency too */
	c->url_len = 0;
	c->peer = 0;
	if (hd_log_on) {
		struct sockaddr_in a;
		socklen_t alen = sizeof(a);

		if (getpeername(fd, (struct sockaddr *)&a, &alen) == 0 && a.sin_family == AF_INET)
			c->peer = a.sin_addr.s_addr;
	}
	http_parser_init(&c->p, HTTP_REQUEST);
	c->p.data = c;
	ev.data.u64 = id;
	ctr_add(w, HD_OPENED, 1); /* before a failed add closes it: open stays exact */
	if (w->uring != NULL) {
		c->ev = 0;
		hd_uring_want(w, c);
	} else if (epoll_ctl(w->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
		hd_conn_close(w, c);
	}
}

/* --- requests ------------------------------------------------------------- */

static int
on_message_begin(http_parser *p)
{
	struct hd_conn *c = p->data;

	c->in_req = true;
	c->req_start = c->w->now;
	c->hdr_bytes = 0;
	c->line_bytes = 0;
	c->body_bytes = 0;
	c->url_len = 0;
	c->url_over = false;
	c->in_value = c->expect_100 = c->te_seen = c->in_fields = false;
	c->hkind = HK_OTHER;
	c->hname_len = c->te_len = c->hosts = 0;
	c->n_headers = 0;
	return 0;
}

/* Bytes of header lines: each line, all of them (": " and CRLF counted
 * with the line's name), past their limits 431. */
static int
header_bytes(struct hd_conn *c, size_t len)
{
	c->hdr_bytes += (uint32_t)len;
	c->line_bytes += (uint32_t)len;
	if (c->line_bytes > cfg.header_line_limit || c->hdr_bytes > cfg.header_limit) {
		c->err = 431;
		return -1;
	}
	return 0;
}

static int
on_url(http_parser *p, const char *at, size_t len)
{
	struct hd_conn *c = p->data;

	if (c->url_len + len < URL_MAX) {
		memcpy(c->url + c->url_len, at, len);
		c->url_len += (uint16_t)len;
	} else {
		c->url_over = true;
	}
	/* The method, the spaces and the version: " HTTP/1.1\r\n". */
	if (c->line_bytes == 0)
		c->line_bytes = (uint32_t)strlen(http_method_str(p->method)) + 11;
	c->line_bytes += (uint32_t)len;
	if (c->line_bytes > cfg.request_line_limit) {
		c->err = 414;
		return -1;
	}
	return 0;
}

static int
on_header_field(http_parser *p, const char *at, size_t len)
{
	struct hd_conn *c = p->data;

	c->in_fields = true;
	hd_gap_reset(c, at + len);
	if (hd_name_status(at, len) != 0) {
		ctr_add(c->w, HD_BAD_NAME, 1);
		c->err = 400;
		return -1;
	}
	if (c->in_value || c->n_headers == 0) { /* a new header line */
		c->in_value = false;
		c->hname_len = 0;
		c->line_bytes = 4; /* ": " and CRLF */
		c->hdr_bytes += 4;
		if (++c->n_headers > cfg.max_headers) {
			c->err = 431;
			return -1;
		}
	}
	for (size_t i = 0; i < len && c->hname_len < HNAME_MAX; i++)
		c->hname[c->hname_len++] = at[i];
	return header_bytes(c, len);
}

static bool
name_is(const struct hd_conn *c, const char *name)
{
	size_t n = strlen(name);

	return c->hname_len == n && strncasecmp(c->hname, name, n) == 0;
}

static int
on_header_value(http_parser *p, const char *at, size_t len)
{
	struct hd_conn *c = p->data;

	if (hd_value_status(c, at, len) != 0) {
		ctr_add(c->w, HD_OBS_FOLD, 1);
		c->err = 400;
		return -1;
	}
	hd_gap_reset(c, at + len);
	if (!c->in_value) {
		c->in_value = true;
		c->hkind = name_is(c, "host") ? HK_HOST
			   : name_is(c, "transfer-encoding") ? HK_TE
			   : name_is(c, "expect") ? HK_EXPECT : HK_OTHER;
		if (c->hkind == HK_HOST && c->hosts < UINT8_MAX)
			c->hosts++;
		if (c->hkind == HK_TE && c->te_seen && c->te_len <= TE_MAX)
			c->te[c->te_len++] = ','; /* two lines are one list */
		if (c->hkind == HK_TE)
			c->te_seen = true;
		if (c->hkind == HK_EXPECT)
			c->expect_100 = len >= 12 && strncasecmp(at, "100-continue", 12) == 0 &&
					(len == 12 || at[12] == ' ' || at[12] == '\t');
	}
	for (size_t i = 0; c->hkind == HK_TE && i < len && c->te_len <= TE_MAX; i++)
		c->te[c->te_len++] = at[i];
	return header_bytes(c, len);
}

static void respond_text(struct hd_worker *w, struct hd_conn *c, int status, bool keep,
			 bool head, const char *extra);

/* Expect: 100-continue with a body to come: 100 now, or the final status
 * at once when the body cannot change it (no route takes a body but GET
 * and HEAD ignore it; anything else is 405). */
static int
expect_continue(http_parser *p, struct hd_conn *c)
{
	static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";

	if (p->method != HTTP_GET && p->method != HTTP_HEAD) {
		c->in_req = false;
		respond_text(c->w, c, 405, false, false, "Allow: GET, HEAD\r\n");
		return -1; /* answered and closing: the body is not read */
	}
	ctr_add(c->w, HD_S100, 1);
	out_append(c->w, c, cont, sizeof(cont) - 1);
	return 0;
}

static int
on_headers_complete(http_parser *p)
{
	struct hd_conn *c = p->data;

	c->in_fields = false;
	if ((c->err = (uint16_t)hd_version_status(p)) != 0)
		return -1;
	if ((p->flags & F_CONTENTLENGTH) && p->content_length > cfg.body_limit) {
		c->err = 413;
		return -1;
	}
	/* RFC 9112 3.2: a 1.1 request has exactly one Host. */
	if ((p->http_major == 1 && p->http_minor >= 1 && c->hosts == 0) || c->hosts > 1) {
		c->err = 400;
		return -1;
	}
	if (c->te_seen && (c->err = (uint16_t)hd_te_status(c)) != 0)
		return -1;
	if (c->expect_100 && p->http_major == 1 && p->http_minor >= 1 &&
	    ((p->flags & F_CHUNKED) || ((p->flags & F_CONTENTLENGTH) && p->content_length > 0)))
		return expect_continue(p, c);
	return 0;
}

/* A chunk larger than what is left of the body limit: 413 before its bytes. */
static int
on_chunk_header(http_parser *p)
{
	struct hd_conn *c = p->data;

	if (p->content_length > cfg.body_limit - c->body_bytes) {
		c->err = 413;
		return -1;
	}
	return 0;
}

static int
on_body(http_parser *p, const char *at, size_t len)
{
	struct hd_conn *c = p->data;

	(void)at;
	c->body_bytes += len; /* read and dropped: no route takes a body */
	if (c->body_bytes > cfg.body_limit) {
		c->err = 413;
		return -1;
	}
	return 0;
}

/* Ask the service for a user; false when it cannot be asked. Its answer
 * or its timeout comes to this lcore's worker actor. */
static bool
ask_service(struct hd_worker *w, struct hd_conn *c, uint32_t id)
{
	struct lca_msg *m;
	struct hd_user_req *r;

	if (lca_msg_alloc(&m) != 0)
		return false;
	r = (struct hd_user_req *)m->data;
	r->conn = (uint32_t)(c - w->conns);
	r->id = id;
	m->type = HD_MSG_USER_REQ;
	m->len = sizeof(*r);
	if (lca_ask(w->actor, service_id, m, cfg.service_timeout_ms * 1000, &c->ask_id) != 0) {
		lca_msg_free(m);
		return false;
	}
	ctr_add(w, HD_USER_ASKED, 1);
	if (service_lcore != w->lcore)
		hd_net_wake(service_lcore);
	return true;
}

/* The origin-form of the target: an absolute-form http://host/path
 * (RFC 9112 3.2.2) names the same resource as /path. */
static const char *
target_path(const struct hd_conn *c, size_t *len)
{
	size_t skip = c->url_len >= 7 && strncasecmp(c->url, "http://", 7) == 0    ? 7
		      : c->url_len >= 8 && strncasecmp(c->url, "https://", 8) == 0 ? 8
										   : 0;
	const char *slash;

	*len = c->url_len;
	if (skip == 0)
		return c->url;
	slash = memchr(c->url + skip, '/', c->url_len - skip);
	if (slash == NULL) {
		*len = 1;
		return "/";
	}
	*len = c->url_len - (size_t)(slash - c->url);
	return slash;
}

/* GET /metrics: the counters of every lcore as they are now. */
static void
serve_metrics(struct hd_worker *w, struct hd_conn *c, bool keep, bool head)
{
	size_t len;
	char *text = hd_metrics_text(&len), *b;

	if (text == NULL) {
		respond_text(w, c, 503, keep, head, NULL);
		return;
	}
	b = respond(w, c, 200, "text/plain; version=0.0.4; charset=utf-8", len, keep, head, NULL);
	if (b != NULL && !head)
		memcpy(b, text, len);
	free(text);
}

static int
on_message_complete(http_parser *p)
{
	struct hd_conn *c = p->data;
	struct hd_worker *w = c->w;
	bool keep = http_should_keep_alive(p) != 0 && !w->draining, head = p->method == HTTP_HEAD;
	size_t url_len;
	const char *url = target_path(c, &url_len);
	const char *q = memchr(url, '?', url_len);
	size_t path_len = q != NULL ? (size_t)(q - url) : url_len;
	uint64_t n;

	c->in_req = c->in_fields = false; /* in_fields: after trailers */
	c->last_active = w->now;
	ctr_add(w, HD_REQUESTS, 1);
	if (cfg.max_inflight > 0 && inflight_total() >= cfg.max_inflight) {
		ctr_add(w, HD_SHED, 1);
		respond_text(w, c, 503, keep, head, "Retry-After: 1\r\n");
	} else if (p->method != HTTP_GET && !head) {
		respond_text(w, c, 405, keep, false, "Allow: GET, HEAD\r\n");
	} else if (c->url_over) {
		respond_text(w, c, 404, keep, head, NULL);
	} else if (path_len == 1 && url[0] == '/') {
		if (keep && !head) {
			answered(w, c, 200, ROOT_BODY_LEN);
			out_append(w, c, w->root, w->root_len);
		} else {
			char *b = respond(w, c, 200, "text/plain", ROOT_BODY_LEN, keep, head, NULL);

			if (b != NULL && !head)
				memcpy(b, ROOT_BODY, ROOT_BODY_LEN);
		}
	} else if (path_len == 8 && memcmp(url, "/metrics", 8) == 0) {
		serve_metrics(w, c, keep, head);
	} else if (path_len > 6 && memcmp(url, "/user/", 6) == 0) {
		if (!hd_parse_id(url + 6, path_len - 6, UINT32_MAX, &n)) {
			respond_text(w, c, 404, keep, head, NULL);
		} else if (ask_service(w, c, (uint32_t)n)) {
			/* The answer comes as a message; what follows on this
			 * connection waits for it, so answers keep their order. */
			busy_set(w, &c->pending, true);
			c->pend_keep = keep;
			c->pend_head = head;
			http_parser_pause(p, 1);
			return 0;
		} else {
			respond_text(w, c, 503, keep, head, NULL);
		}
	} else if (path_len > 7 && memcmp(url, "/bytes/", 7) == 0 &&
		   hd_parse_id(url + 7, path_len - 7, BYTES_MAX, &n)) {
		char *b = respond(w, c, 200, "application/octet-stream", n, keep, head, NULL);

		if (b != NULL && !head)
			memset(b, 'x', n);
	} else {
		respond_text(w, c, 404, keep, head, NULL);
	}
	if (!keep || c->state != CONN_OPEN) {
		c->want_close = true;
		http_parser_pause(p, 1); /* what follows is not read */
	}
	return 0;
}

/* Keep @p len unparsed bytes until the pending answer is in. */
static bool
save_input(struct hd_worker *w, struct hd_conn *c, const char *data, size_t len)
{
	char *p;

	if (len == 0)
		return true;
	p = realloc(c->in, c->in_len + len);
	if (p == NULL) {
		hd_conn_close(w, c);
		return false;
	}
	memcpy(p + c->in_len, data, len);
	c->in = p;
	c->in_len += (uint32_t)len;
	return true;
}

void
hd_conn_feed(struct hd_worker *w, struct hd_conn *c, const char *data, size_t len)
{
	size_t done;
	enum http_errno e;

	if (c->want_close || c->state != CONN_OPEN)
		return; /* answering its last request, then closing */
	c->gap_from = data;
	done = http_parser_execute(&c->p, &settings, data, len);
	if (c->state != CONN_OPEN)
		return;
	if (c->in_fields) /* a header line goes on in the next read */
		hd_gap_scan(c, c->gap_from, data + done);
	e = HTTP_PARSER_ERRNO(&c->p);
	if (e == HPE_PAUSED) {
		if (c->pending)
			save_input(w, c, data + done, len - done);
	} else if (e != HPE_OK && !c->want_close) { /* want_close: answered already */
		int st = c->err;

		if (!c->in_req) {
			/* Refused at its first byte ("FOO /"): no request began, so
			 * the request line, method and start the answer is logged and
			 * timed with are not those of the connection's last request. */
			c->url_len = 0;
			c->req_start = w->now;
		}

		if (st == 0 && c->te_seen) /* the parser's own objection to the list */
			st = hd_te_status(c);
		if (st == 0 && e == HPE_INVALID_METHOD &&
		    (st = hd_method_status(c, data + done, len - done)) == 501)
			ctr_add(w, HD_BAD_METHOD, 1);
		refuse(w, c, st != 0 ? st : 400);
	} else if (c->p.upgrade) {
		refuse(w, c, 400); /* CONNECT and Upgrade are not served */
	}
	if (c->state == CONN_OPEN)
		set_events(w, c);
}

void
hd_conn_eof(struct hd_worker *w, struct hd_conn *c)
{
	c->rd_closed = true;
	if (c->pending || hd_unsent(c) > 0) {
		/* Half-closed: answer what was asked, then close. */
		if (!c->peer_shut)
			ctr_add(w, HD_HALF_CLOSED, 1);
		c->peer_shut = true;
		/* Requests saved behind a pending one are still answered: the
		 * reply parses them, and closes after them (io_uring reads the
		 * end while a request is pending; epoll does not). */
		if (!c->pending || c->in_len == 0)
			c->want_close = true;
		set_events(w, c);
		return;
	}
	hd_conn_close(w, c);
}

static void
conn_read(struct hd_worker *w, struct hd_conn *c)
{
	for (int k = 0; k < 4; k++) {
		ssize_t n = recv(c->fd, w->rbuf, RBUF_SIZE, 0);

		if (n > 0) {
			ctr_add(w, HD_BYTES_IN, (uint64_t)n);
			c->last_active = w->now;
			hd_conn_feed(w, c, w->rbuf, (size_t)n);
			if (c->state != CONN_OPEN || !(c->ev & EPOLLIN) || n < RBUF_SIZE)
				return;
			continue;
		}
		if (n == 0) {
			hd_conn_eof(w, c);
			return;
		}
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return;
		ctr_add(w, HD_RESETS, 1); /* ECONNRESET and the like */
		hd_conn_close(w, c);
		return;
	}
}

/* Read and drop what a peer sends after we closed our side; close at its
 * end, on an error, or at the linger time (the scan). */
static void
conn_linger_read(struct hd_worker *w, struct hd_conn *c)
{
	ssize_t n = recv(c->fd, w->rbuf, RBUF_SIZE, 0);

	if (n > 0)
		return;
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	c->rd_closed = true;
	hd_conn_close(w, c);
}

/* The paused answer is out: read on what came behind it. */
static void
resume_after_answer(struct hd_worker *w, struct hd_conn *c)
{
	uint32_t in_len;

	if (c->state != CONN_OPEN)
		return;
	http_parser_pause(&c->p, 0);
	if (c->want_close) {
		mark_dirty(w, c);
		return;
	}
	/* What came behind the request: parse it now (it may pause again). */
	in_len = c->in_len;
	if (in_len > 0) {
		memcpy(w->rbuf, c->in, in_len);
		c->in_len = 0;
		hd_conn_feed(w, c, w->rbuf, in_len);
	}
	if (c->state == CONN_OPEN) {
		if (c->rd_closed && !c->pending)
			c->want_close = true;
		set_events(w, c);
	}
}

/* The connection whose ask @p m answers or times out. The runtime gives
 * neither for an ask that is over, and a closing connection cancels its
 * own: what comes is for an open connection that waits. */
static struct hd_conn *
asking_conn(struct hd_worker *w, const struct lca_msg *m, uint32_t conn)
{
	struct hd_conn *c = conn < w->n_conns ? &w->conns[conn] : NULL;

	if (c == NULL || c->ask_id != lca_msg_req_id(m)) {
		RTE_LOG(ERR, USER1, "lca-httpd: an answer to no ask of lcore %u (conn %u)\n",
			w->lcore, conn);
		return NULL;
	}
	c->ask_id = 0;
	busy_set(w, &c->pending, false);
	return c;
}

/* The service did not answer in time: 504, and the connection goes on. */
static void
user_timed_out(struct hd_worker *w, const struct lca_msg *m)
{
	const struct lca_timeout *t = (const struct lca_timeout *)m->data;
	uint32_t conn;
	struct hd_conn *c;

	memcpy(&conn, t->head, sizeof(conn));
	c = asking_conn(w, m, conn);
	if (c == NULL)
		return;
	ctr_add(w, HD_USER_TIMED_OUT, 1);
	respond_text(w, c, 504, c->pend_keep, c->pend_head, NULL);
	resume_after_answer(w, c);
}

/* The service's answer, as a message to this lcore's worker actor. */
static void
user_reply(struct hd_worker *w, struct lca_msg *m)
{
	const struct hd_user_req *r = (const struct hd_user_req *)m->data;
	const struct hd_user *u = m->ptr;
	struct hd_conn *c = asking_conn(w, m, r->conn);

	if (c == NULL)
		return;
	ctr_add(w, HD_USER_ANSWERED, 1);
	if (u == NULL) {
		respond_text(w, c, 404, c->pend_keep, c->pend_head, NULL);
	} else {
		char body[256];
		int n = snprintf(body, sizeof(body),
				 "{\"id\":%u,\"first\":\"%.5s\",\"last\":\"%.7s\",\"ssn\":%" PRIu64
				 ",\"friends\":[%u,%u,%u,%u,%u]}\n",
				 u->id, u->first, u->last, u->ssn, u->friends[0], u->friends[1],
				 u->friends[2], u->friends[3], u->friends[4]);
		char *b = respond(w, c, 200, "application/json", (size_t)n, c->pend_keep,
				  c->pend_head, NULL);

		if (b == NULL)
			return;
		if (!c->pend_head)
			memcpy(b, body, (size_t)n);
	}
	resume_after_answer(w, c);
}

/* --- the worker actor ---------------------------------------------------- */

static void
worker_handler(lca_actor_id_t self, void *state, struct lca_msg *m)
{
	struct hd_worker *w = workers[rte_lcore_id()];

	(void)self;
	(void)state;
	switch (m->type) {
	case HD_MSG_FD: {
		int fd;

		memcpy(&fd, m->data, sizeof(fd));
		conn_adopt(w, fd);
		break;
	}
	case HD_MSG_USER_REPLY:
		user_reply(w, m);
		break;
	case LCA_TYPE_TIMEOUT:
		user_timed_out(w, m);
		break;
	default:
		break;
	}
}

/* --- accept --------------------------------------------------------------- */

/* The lcore with the fewest connections given and not yet closed. */
static unsigned int
least_loaded(struct hd_worker *w)
{
	unsigned int best = w->lcore, l;
	uint64_t best_load = UINT64_MAX;

	RTE_LCORE_FOREACH(l) {
		uint64_t closed = __atomic_load_n(&workers[l]->ctr[HD_CLOSED], __ATOMIC_RELAXED) +
				  __atomic_load_n(&workers[l]->ctr[HD_REFUSED], __ATOMIC_RELAXED);
		uint64_t load = w->assigned[l] > closed ? w->assigned[l] - closed : 0;

		if (load < best_load) {
			best_load = load;
			best = l;
		}
	}
	return best;
}

static int
reserve_open(void)
{
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

/*
 * At the fd limit: give up the reserve fd, accept with it, and take a new
 * reserve. When none can be had the connection takes the last fd: answer it
 * 503 and close. So a connection queued at the limit is answered, and
 * accept4() never fails in a loop (only the call that found the limit).
 * Returns the fd to keep (room again), -1 after a refusal, -2 with none
 * queued.
 */
static int
accept_reserved(struct hd_worker *w)
{
	int fd;

	if (w->reserve >= 0)
		close(w->reserve);
	fd = accept4(w->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno == EMFILE || errno == ENFILE) /* another thread took the fd */
			ctr_add(w, HD_ACCEPT_FAILS, 1);
		w->reserve = reserve_open();
		return -2;
	}
	w->reserve = reserve_open();
	if (w->reserve >= 0) {
		w->at_limit = false;
		return fd;
	}
	refuse_fd(w, fd);
	ctr_add(w, HD_REFUSED_FD, 1);
	w->reserve = reserve_open();
	return -1;
}

/* The next connection to take: an fd, -1 for one refused, -2 for none. */
static int
accept_one(struct hd_worker *w)
{
	static bool said_emfile;
	int fd;

	if (w->at_limit)
		return accept_reserved(w);
	fd = accept4(w->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd >= 0)
		return fd;
	if (errno == ECONNABORTED || errno == EINTR)
		return -1;
	if (errno != EMFILE && errno != ENFILE)
		return -2;
	ctr_add(w, HD_ACCEPT_FAILS, 1);
	if (!said_emfile) {
		said_emfile = true;
		fprintf(stderr, "lca-httpd: accept: %s: connections past the limit get 503 "
				"(refused_fd_limit; raise RLIMIT_NOFILE or lower --max-conns)\n",
			strerror(errno));
	}
	w->at_limit = true;
	return accept_reserved(w);
}

/* A connection accepted here: to the lcore that takes it. */
void
hd_take_accepted(struct hd_worker *w, int fd)
{
	unsigned int to = w->lcore;

	ctr_add(w, HD_ACCEPTED, 1);
	if (cfg.accept == HD_ACCEPT_BALANCE) {
		to = least_loaded(w);
		w->assigned[to]++;
	}
	if (to != w->lcore) {
		struct lca_msg *m;

		if (lca_msg_alloc(&m) == 0) {
			memcpy(m->data, &fd, sizeof(fd));
			m->type = HD_MSG_FD;
			m->len = sizeof(fd);
			if (lca_send_from(w->actor, workers[to]->actor, m) == 0) {
				hd_net_wake(to);
				return;
			}
			lca_msg_free(m);
		}
		w->assigned[to]--;
		w->assigned[w->lcore]++; /* keep it here rather than lose it */
	}
	conn_adopt(w, fd);
}

void
hd_accept_all(struct hd_worker *w)
{
	for (int k = 0; k < 64; k++) {
		int fd = accept_one(w);

		if (fd == -2)
			return;
		if (fd >= 0)
			hd_take_accepted(w, fd);
	}
}

/* --- timers ---------------------------------------------------------------- */

static void
scan(struct hd_worker *w)
{
	uint64_t req_to = ms_to_tsc(cfg.request_timeout_ms);
	uint64_t idle_to = ms_to_tsc(cfg.keepalive_ms);
	uint64_t linger_to = ms_to_tsc(LINGER_MS);

	for (uint32_t i = 0; i < w->n_conns; i++) {
		struct hd_conn *c = &w->conns[i];

		if (c->state == CONN_LINGER) {
			if (w->now - c->last_active > linger_to)
				hd_conn_close(w, c);
		} else if (c->state == CONN_OPEN) {
			if (c->in_req && !c->want_close && w->now - c->req_start > req_to)
				refuse(w, c, 408); /* a slow sender */
			else if (!c->in_req && !c->pending && hd_unsent(c) == 0 &&
				 !c->want_close && w->now - c->last_active > idle_to) {
				ctr_add(w, HD_IDLE_CLOSED, 1);
				hd_conn_close(w, c);
			}
		}
	}
}

/* --- graceful stop --------------------------------------------------------- */

void
hd_net_drain(void)
{
	__atomic_store_n(&drain_asked, 1, __ATOMIC_RELAXED);
}

bool
hd_net_draining(void)
{
	return __atomic_load_n(&drain_asked, __ATOMIC_RELAXED) != 0;
}

/* Stop accepting: take what is queued, then close the listener (what
 * connects later is refused by the kernel: never sent). */
static void
drain_begin(struct hd_worker *w)
{
	w->draining = true;
	if (w->lfd >= 0) {
		hd_accept_all(w);
		if (w->uring != NULL)
			hd_uring_listener_closing(w);
		close(w->lfd); /* leaves the epoll set with it */
		w->lfd = -1;
		if (w->reserve >= 0)
			close(w->reserve);
		w->reserve = -1;
	}
	__atomic_store_n(&w->listening, 0, __ATOMIC_RELEASE);
	if (w->lcore == rte_get_main_lcore())
		drain_start = w->now;
}

/* Close what is idle; what is busy gets Connection: close on its answer. */
static void
drain_scan(struct hd_worker *w)
{
	uint64_t idle_to = ms_to_tsc(RTE_MIN((uint64_t)DRAIN_IDLE_MS, cfg.drain_ms / 2));

	for (uint32_t i = 0; i < w->n_conns; i++) {
		struct hd_conn *c = &w->conns[i];

		if (c->state == CONN_OPEN && !c->in_req && !c->pending &&
		    hd_unsent(c) == 0 && !c->want_close && w->now - c->last_active >= idle_to) {
			ctr_add(w, HD_DRAIN_IDLE, 1);
			hd_conn_finish(w, c);
		}
	}
}

/* The main lcore: stop the loops once every listener is closed, every
 * accepted socket adopted, and nothing open; or at the deadline. */
static void
drain_check(struct hd_worker *w)
{
	uint64_t accepted = 0, taken = 0;
	unsigned int l;
	bool done = true;

	RTE_LCORE_FOREACH(l) {
		done = done && __atomic_load_n(&workers[l]->listening, __ATOMIC_ACQUIRE) == 0;
		accepted += hd_net_lcore_counter(l, HD_ACCEPTED);
		taken += hd_net_lcore_counter(l, HD_OPENED) + hd_net_lcore_counter(l, HD_REFUSED);
	}
	done = done && taken >= accepted && hd_net_open() == 0;
	if (done || w->now - drain_start >= ms_to_tsc(cfg.drain_ms)) {
		drain_stop = w->now;
		lca_runtime_stop();
	}
}

static void
drain_step(struct hd_worker *w)
{
	if (!w->draining)
		drain_begin(w);
	if (w->now >= w->next_drain_scan) {
		drain_scan(w);
		w->next_drain_scan = w->now + ms_to_tsc(DRAIN_SCAN_MS);
	}
	if (w->lcore == rte_get_main_lcore() && drain_stop == 0)
		drain_check(w);
}

double
hd_net_drain_end(void)
{
	unsigned int l;

	if (!hd_net_draining() || drain_start == 0)
		return -1;
	RTE_LCORE_FOREACH(l) {
		struct hd_worker *w = workers[l];

		for (uint32_t i = 0; i < w->n_conns; i++)
			if (w->conns[i].state == CONN_OPEN)
				ctr_add(w, HD_DRAIN_CUT, 1);
	}
	if (drain_stop == 0)
		drain_stop = rte_rdtsc();
	return (double)(drain_stop - drain_start) * 1000.0 / (double)tsc_hz;
}

/* --- the hook ------------------------------------------------------------- */

static unsigned int
handle_events(struct hd_worker *w, const struct epoll_event *evs, int n)
{
	for (int i = 0; i < n; i++) {
		uint64_t key = evs[i].data.u64;
		uint32_t e = evs[i].events;
		struct hd_conn *c;

		if (key == KEY_LISTEN) {
			hd_accept_all(w);
			continue;
		}
		if (key == KEY_EVENTFD) {
			uint64_t v;

			if (read(w->efd, &v, sizeof(v)) < 0)
				continue;
			continue;
		}
		c = &w->conns[key];
		if (c->state == CONN_LINGER) {
			conn_linger_read(w, c);
			continue;
		}
		if (c->state != CONN_OPEN)
			continue;
		if (e & EPOLLERR) {
			ctr_add(w, HD_RESETS, 1);
			hd_conn_close(w, c);
			continue;
		}
		if (e & EPOLLOUT) {
			flush(w, c);
			if (c->state != CONN_OPEN)
				continue;
		}
		if (e & EPOLLIN) {
			conn_read(w, c);
			/* The peer shut its side with requests in: it waits
			 * for their answers (a half-close), which still go. */
			if ((e & EPOLLRDHUP) && !c->peer_shut && c->state == CONN_OPEN &&
			    (c->pending || c->out_off < c->out_len)) {
				c->peer_shut = true;
				ctr_add(w, HD_HALF_CLOSED, 1);
			}
		} else if (e & EPOLLHUP) {
			hd_conn_close(w, c);
		}
	}
	return (unsigned int)n;
}

/* What is ready now, handled; no wait. */
static unsigned int
poll_ready(struct hd_worker *w)
{
	struct epoll_event evs[MAX_EVENTS];
	int n;

	if (w->uring != NULL)
		return hd_uring_poll(w);
	n = epoll_wait(w->ep, evs, MAX_EVENTS, 0);
	return n > 0 ? handle_events(w, evs, n) : 0;
}

/*
 * Wait in the kernel (epoll or the ring) for up to @p wait_us, and handle
 * what came. A sender reads the sleeping flag after its send: one of the
 * two sees the other's store, so a message for this lcore wakes it.
 */
static unsigned int
idle_wait(struct hd_worker *w, uint64_t wait_us)
{
	struct epoll_event evs[MAX_EVENTS];
	struct timespec ts = { .tv_sec = (time_t)(wait_us / 1000000),
			       .tv_nsec = (long)(wait_us % 1000000) * 1000 };
	unsigned int done;
	int n;

	__atomic_store_n(&w->sleeping, 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (w->uring != NULL) {
		done = hd_uring_wait(w, wait_us);
	} else {
		n = epoll_pwait2(w->ep, evs, MAX_EVENTS, &ts, NULL);
		__atomic_store_n(&w->sleeping, 0, __ATOMIC_RELAXED);
		w->now = rte_rdtsc();
		done = n > 0 ? handle_events(w, evs, n) : 0;
	}
	__atomic_store_n(&w->sleeping, 0, __ATOMIC_RELAXED);
	ctr_add(w, HD_IDLE_WAITS, 1);
	return done;
}

/*
 * How long an idle wait may last. With no connection of this lcore waiting
 * on an ask (whose timer the runtime runs in this loop), nothing but the
 * scan's timers needs the loop: sleep until the next scan, so a server
 * below saturation wakes for its requests, not for timeouts. Otherwise
 * the wait starts at --idle-wait-us and doubles while waits find nothing.
 */
static uint64_t
idle_wait_us(const struct hd_worker *w)
{
	uint64_t until_scan;

	if (w->draining)
		return RTE_MIN(w->wait_us, (uint64_t)DRAIN_SCAN_MS * 1000);
	if (__atomic_load_n(&w->inflight, __ATOMIC_RELAXED) != 0 || w->next_scan <= w->now)
		return w->wait_us;
	until_scan = (w->next_scan - w->now) * 1000000 / tsc_hz;
	return RTE_MAX(until_scan, (uint64_t)cfg.idle_wait_us);
}

static unsigned int
hook_poll(unsigned int lcore_id, uint64_t now_tsc, void *arg)
{
	struct hd_worker *w = arg;
	struct lca_lcore_stats st;
	bool quiet;
	unsigned int n;

	(void)lcore_id;
	/* After a wait that found nothing the runtime passes the time it read
	 * before it (it reads the clock once in 16 empty loops): the clock read
	 * at the wait's end is the later, and the timers go by it. */
	w->now = RTE_MAX(now_tsc, w->now);
	if (unlikely(w->now >= w->next_date)) {
		update_date(w);
		w->next_date = w->now + tsc_hz / 10;
	}
	if (unlikely(w->now >= w->next_scan)) {
		scan(w);
		w->next_scan = w->now + ms_to_tsc(SCAN_MS);
	}
	if (unlikely(__atomic_load_n(&drain_asked, __ATOMIC_RELAXED)))
		drain_step(w);
	if (cfg.idle != HD_IDLE_SLEEP)
		return poll_ready(w);
	/* Idle: no turn ran on this lcore since the last look, and the last
	 * look found at most one event. After idle_after such loops, wait in
	 * the kernel at once rather than poll first: a wait returns at once
	 * when something is ready, so below saturation each request costs
	 * one epoll call, not two; busier, a look finds several events and
	 * polls on. An event ends a wait at once; a message, through the
	 * eventfd (hd_net_wake()). */
	lca_lcore_stats_get(w->lcore, &st);
	quiet = st.turns == w->last_turns && w->last_events <= 1;
	w->last_turns = st.turns;
	if (!quiet || ++w->idle_loops < cfg.idle_after) {
		n = poll_ready(w);
		if (n > 0 || !quiet)
			w->idle_loops = 0;
	} else {
		w->idle_loops = 0;
		n = idle_wait(w, idle_wait_us(w));
		if (n == 0 && w->wait_us < (uint64_t)SCAN_MS * 1000)
			w->wait_us = RTE_MIN(2 * w->wait_us, (uint64_t)SCAN_MS * 1000);
	}
	if (n > 0)
		w->wait_us = cfg.idle_wait_us;
	w->last_events = n;
	return n;
}

static void
hook_end(unsigned int lcore_id, void *arg)
{
	struct hd_worker *w = arg;

	(void)lcore_id;
	for (uint32_t i = 0; i < w->n_dirty; i++) {
		struct hd_conn *c = &w->conns[w->dirty_ids[i]];

		if (!c->dirty)
			continue;
		c->dirty = false;
		if (c->state == CONN_OPEN)
			flush(w, c);
	}
	w->n_dirty = 0;
	if (w->uring != NULL)
		hd_uring_submit(w); /* the iteration's sends and re-arms, in one call */
}

void
hd_net_wake(unsigned int lcore)
{
	struct hd_worker *w = workers[lcore];
	struct hd_worker *me = workers[rte_lcore_id() < RTE_MAX_LCORE ? rte_lcore_id() : 0];

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (w != NULL && __atomic_load_n(&w->sleeping, __ATOMIC_RELAXED)) {
		uint64_t one = 1;

		if (write(w->efd, &one, sizeof(one)) == sizeof(one) && me != NULL)
			ctr_add(me, HD_WAKEUPS, 1);
	}
}

/* --- set-up ------------------------------------------------------------- */

static int
listen_socket(const struct hd_conf *c, unsigned int port, bool reuseport, unsigned int *bound)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	socklen_t alen = sizeof(a);
	int one = 1;
	int fd;

	if (inet_pton(AF_INET, c->bind, &a.sin_addr) != 1)
		return -EINVAL;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (reuseport && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0)
		goto fail;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, (int)c->backlog) < 0)
		goto fail;
	if (getsockname(fd, (struct sockaddr *)&a, &alen) < 0)
		goto fail;
	*bound = ntohs(a.sin_port);
	return fd;
fail:
	{
		int err = -errno;

		close(fd);
		return err;
	}
}

static int
epoll_add(int ep, int fd, uint64_t key)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = key };

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

/* io_uring where asked and allowed; auto falls back to epoll, and says why. */
static int
choose_io(struct hd_worker *w)
{
	int ret;

	if (cfg.io == HD_IO_EPOLL)
		return 0;
	ret = hd_uring_init(w);
	if (ret == 0) {
		io_taken = HD_IO_URING;
		return 0;
	}
	if (cfg.io == HD_IO_URING) {
		fprintf(stderr, "lca-httpd: --io uring: io_uring refused on lcore %u: %s\n", w->lcore,
			strerror(-ret));
		return ret;
	}
	if (io_taken == HD_IO_URING) /* auto: one lcore has a ring, all must */
		return ret;
	if (!io_fell_back)
		printf("# io: auto: io_uring refused (%s): epoll instead\n", strerror(-ret));
	io_fell_back = true;
	return 0;
}

int
hd_net_init(const struct hd_conf *conf)
{
	unsigned int l, port;
	int ret;

	cfg = *conf;
	tsc_hz = rte_get_tsc_hz();
	for (unsigned int b = 0; b < HD_LAT_BUCKETS - 1; b++)
		lat_le_tsc[b] = (uint64_t)(hd_lat_le[b] * (double)tsc_hz);
	settings = (http_parser_settings){
		.on_message_begin = on_message_begin,
		.on_url = on_url,
		.on_header_field = on_header_field,
		.on_header_value = on_header_value,
		.on_headers_complete = on_headers_complete,
		.on_chunk_header = on_chunk_header,
		.on_body = on_body,
		.on_message_complete = on_message_complete,
	};
	port = (unsigned int)conf->port;
	RTE_LCORE_FOREACH(l) {
		int socket_id = (int)rte_lcore_to_socket_id(l);
		struct hd_worker *w = rte_zmalloc_socket("hd_worker", sizeof(*w),
							 RTE_CACHE_LINE_SIZE, socket_id);

		if (w == NULL)
			return -ENOMEM;
		workers[l] = w;
		w->lcore = l;
		w->lfd = w->ep = w->efd = w->reserve = -1;
		w->actor = LCA_ACTOR_NONE;
		w->conns = rte_zmalloc_socket("hd_conns", sizeof(*w->conns) * conf->max_conns,
					      RTE_CACHE_LINE_SIZE, socket_id);
		w->free_ids = rte_malloc_socket("hd_free", sizeof(uint32_t) * conf->max_conns, 0,
						socket_id);
		w->dirty_ids = rte_malloc_socket("hd_dirty", sizeof(uint32_t) * conf->max_conns, 0,
						 socket_id);
		w->rbuf = rte_malloc_socket("hd_rbuf", RBUF_SIZE, RTE_CACHE_LINE_SIZE, socket_id);
		if (w->conns == NULL || w->free_ids == NULL || w->dirty_ids == NULL ||
		    w->rbuf == NULL)
			return -ENOMEM;
		w->ep = epoll_create1(EPOLL_CLOEXEC);
		w->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (w->ep < 0 || w->efd < 0)
			return -errno;
		ret = epoll_add(w->ep, w->efd, KEY_EVENTFD);
		if (ret < 0)
			return ret;
		if (conf->accept == HD_ACCEPT_REUSEPORT || l == rte_get_main_lcore()) {
			ret = listen_socket(conf, port, conf->accept == HD_ACCEPT_REUSEPORT, &port);
			if (ret < 0) {
				fprintf(stderr, "lca-httpd: cannot listen on %s:%u: %s\n", conf->bind,
					port, strerror(-ret));
				return ret;
			}
			w->lfd = ret;
			w->listening = 1;
			w->reserve = reserve_open();
			if (w->reserve < 0)
				return -errno;
			ret = epoll_add(w->ep, w->lfd, KEY_LISTEN);
			if (ret < 0)
				return ret;
		}
		w->wait_us = conf->idle_wait_us;
		update_date(w);
		ret = choose_io(w);
		if (ret < 0)
			return ret;
	}
	listen_port = port;
	return 0;
}

enum hd_io
hd_net_io(void)
{
	return io_taken;
}

unsigned int
hd_net_port(void)
{
	return listen_port;
}

int
hd_net_start(lca_actor_id_t service)
{
	unsigned int l;
	int ret;

	service_id = service;
	service_lcore = (unsigned int)lca_actor_lcore(service);
	RTE_LCORE_FOREACH(l) {
		struct hd_worker *w = workers[l];
		struct lca_actor_spec spec = {
			.handler = worker_handler,
			.lcore = l,
			.mailbox_size = 16384,
			.throughput = 64,
			.name = "http-worker",
		};
		struct lca_lcore_hook hook = { .poll = hook_poll, .end = hook_end, .arg = w };

		ret = lca_actor_spawn(&spec, &w->actor);
		if (ret < 0)
			return ret;
		/* One ask at a time per connection (answers keep their order). */
		ret = lca_ask_pending_max_set(w->actor, hd_asks_per_lcore(&cfg));
		if (ret < 0)
			return ret;
		ret = lca_lcore_hook_add(l, &hook);
		if (ret < 0)
			return ret;
	}
	return 0;
}

lca_actor_id_t
hd_net_worker_actor(unsigned int lcore)
{
	return workers[lcore] != NULL ? workers[lcore]->actor : LCA_ACTOR_NONE;
}

uint64_t
hd_net_lcore_counter(unsigned int lcore, enum hd_ctr k)
{
	return workers[lcore] != NULL ? __atomic_load_n(&workers[lcore]->ctr[k], __ATOMIC_RELAXED)
				      : 0;
}

uint64_t
hd_net_counter(enum hd_ctr k)
{
	uint64_t sum = 0;
	unsigned int l;

	RTE_LCORE_FOREACH(l)
		sum += hd_net_lcore_counter(l, k);
	return sum;
}

void
hd_net_latency(uint64_t counts[HD_LAT_BUCKETS], double *sum_s)
{
	uint64_t sum = 0;
	unsigned int l;

	memset(counts, 0, sizeof(uint64_t) * HD_LAT_BUCKETS);
	RTE_LCORE_FOREACH(l) {
		for (unsigned int b = 0; b < HD_LAT_BUCKETS; b++)
			counts[b] += __atomic_load_n(&workers[l]->lat[b], __ATOMIC_RELAXED);
		sum += __atomic_load_n(&workers[l]->lat_sum, __ATOMIC_RELAXED);
	}
	*sum_s = (double)sum / (double)tsc_hz;
}

uint64_t
hd_net_lcore_open(unsigned int lcore)
{
	uint64_t opened = hd_net_lcore_counter(lcore, HD_OPENED);
	uint64_t closed = hd_net_lcore_counter(lcore, HD_CLOSED);

	return opened > closed ? opened - closed : 0;
}

uint64_t
hd_net_open(void)
{
	uint64_t sum = 0;
	unsigned int l;

	RTE_LCORE_FOREACH(l)
		sum += hd_net_lcore_open(l);
	return sum;
}

void
hd_net_cleanup(void)
{
	unsigned int l;

	RTE_LCORE_FOREACH(l) {
		struct hd_worker *w = workers[l];

		if (w == NULL)
			continue;
		if (w->conns != NULL && w->free_ids != NULL)
			for (uint32_t i = 0; i < w->n_conns; i++)
				hd_conn_close(w, &w->conns[i]);
		if (w->uring != NULL)
			hd_uring_exit(w);
		if (w->lfd >= 0)
			close(w->lfd);
		if (w->reserve >= 0)
			close(w->reserve);
		if (w->ep >= 0)
			close(w->ep);
		if (w->efd >= 0)
			close(w->efd);
		if (w->actor != LCA_ACTOR_NONE) {
			struct lca_lcore_hook hook = { .poll = hook_poll, .end = hook_end, .arg = w };

			lca_lcore_hook_remove(l, &hook);
		}
		rte_free(w->conns);
		rte_free(w->free_ids);
		rte_free(w->dirty_ids);
		rte_free(w->rbuf);
		rte_free(w);
		workers[l] = NULL;
	}
}
