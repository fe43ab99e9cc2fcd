/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef HD_CONN_H
#define HD_CONN_H

/*
 * lca-httpd's connections and workers, shared by the socket paths: epoll
 * (hd_net.c) and io_uring (hd_uring.c). Private to the app.
 */
#include <stdbool.h>
#include <stdint.h>

#include <http_parser.h>
#include <rte_common.h>

#include "httpd.h"

#define RBUF_SIZE 65536
#define MAX_EVENTS 64
#define OUT_HIGH (256 * 1024)         /* stop reading above this much unsent */
#define OUT_MAX (16 * 1024 * 1024)    /* most a connection may have unsent */
#define BYTES_MAX (8 * 1024 * 1024)   /* largest /bytes/N */
#define URL_MAX 256
#define LINGER_MS 2000                /* reading what a closed peer still sends */
#define SCAN_MS 50                    /* timers: how often the table is looked at */
#define DRAIN_SCAN_MS 10              /* a drain: how often the table is looked at */
#define DRAIN_IDLE_MS 100             /* a drain closes a connection idle this long: a
				       * keep-alive client sends its next request sooner
				       * and gets Connection: close on its answer */
#define TE_MAX 64                     /* Transfer-Encoding values kept, bytes */
#define HNAME_MAX 20                  /* a header name kept to tell it, bytes */
#define KEY_LISTEN UINT64_MAX
#define KEY_EVENTFD (UINT64_MAX - 1)

enum conn_state { CONN_FREE, CONN_OPEN, CONN_LINGER };

struct hd_worker;

/* io_uring: an answer handed to the kernel, kept until its send completes
 * (a closed connection leaves it to the completion, which frees it). */
struct hd_tx {
	struct hd_tx *prev, *next; /* the worker's list of sends in flight */
	uint32_t conn, gen;
	uint32_t len, off;
	char data[];
};

struct hd_conn {
	http_parser p;
	struct hd_worker *w;
	int fd;
	uint32_t gen;
	uint8_t state;
	bool in_req;      /* a request started, not complete */
	bool pending;     /* waiting for the service's answer; parser paused */
	uint64_t ask_id;  /* that answer's ask (lca_ask()); 0: none */
	bool pend_keep;
	bool pend_head;
	bool want_close;  /* close once the output is out */
	bool rd_closed;   /* the peer shut its side */
	bool dirty;       /* on the worker's list of output to write */
	bool url_over;
	bool peer_shut;   /* its FIN is in (EPOLLRDHUP); counted in HD_HALF_CLOSED */
	bool wblocked;    /* a write found the socket full: wait for EPOLLOUT */
	bool in_value;    /* the parser is in a header value */
	bool expect_100;  /* Expect: 100-continue */
	bool te_seen;     /* Transfer-Encoding, values in te[] */
	bool in_fields;   /* header (or trailer) lines being read */
	bool gap_lf;      /* the last byte between header callbacks was LF */
	bool gap_fold;    /* a line break, then a space or tab: obs-fold */
	uint8_t hkind;    /* the header being read: HK_* */
	uint8_t hname_len;
	uint8_t te_len;
	uint8_t hosts;    /* Host header lines */
	uint16_t n_headers;
	uint16_t err;     /* status decided by a callback (413, 431) */
	uint16_t url_len;
	uint32_t ev;      /* epoll events asked now */
	uint32_t hdr_bytes;
	uint32_t line_bytes;  /* the request line, then the header line being read */
	uint64_t body_bytes;
	uint64_t req_start;   /* tsc */
	uint64_t last_active; /* tsc */
	uint32_t peer;        /* IPv4, network order (the access log's host) */
	const char *gap_from; /* this read's bytes not yet looked at for obs-fold */
	char *out;
	uint32_t out_len, out_off, out_cap;
	struct hd_tx *tx;     /* io_uring: the send in flight (owned by its completion) */
	uint16_t recv_seq;    /* io_uring: which multishot recv is the armed one */
	bool recv_armed;      /* io_uring: a multishot recv is armed */
	char *in;             /* bytes read after a paused request */
	uint32_t in_len;
	char hname[HNAME_MAX];
	char te[TE_MAX + 1];  /* TE_MAX + 1 bytes kept: more is malformed */
	char url[URL_MAX];
};

enum { HK_OTHER, HK_HOST, HK_TE, HK_EXPECT };

struct hd_worker {
	unsigned int lcore;
	int ep;
	int efd;
	int lfd;
	struct hd_ring *uring;  /* io_uring: this lcore's ring; NULL: epoll */
	int reserve;            /* an fd held to accept and refuse at the fd limit */
	bool at_limit;          /* accept4() found no fd: accept with the reserve */
	bool draining;          /* a graceful stop: listener closed, answers close */
	lca_actor_id_t actor;
	uint64_t now;           /* tsc at the start of the iteration */
	uint64_t next_scan;
	uint64_t next_drain_scan;
	uint64_t next_date;
	uint64_t last_turns;
	uint64_t idle_loops;
	uint64_t wait_us;       /* the next idle wait: grows while waits find nothing */
	unsigned int last_events; /* what the last poll or wait handled */
	uint32_t n_conns;       /* slots handed out so far (high-water mark) */
	uint32_t n_free;
	uint32_t *free_ids;
	uint32_t *dirty_ids;
	uint32_t n_dirty;
	struct hd_conn *conns;
	uint64_t assigned[RTE_MAX_LCORE]; /* acceptor: connections given to each lcore */
	char *rbuf;
	char date[40];
	char root[256];         /* the whole keep-alive answer to GET / */
	uint32_t root_len;
	uint64_t ctr[HD_N];
	uint64_t lat[HD_LAT_BUCKETS]; /* answers by latency (not cumulative) */
	uint64_t lat_sum;       /* tsc cycles of every answer counted */
	uint64_t unix_now;      /* seconds, with the Date header */
	uint64_t inflight;      /* connections waiting on the service or a full socket */
	int listening;          /* 0 once its listener is closed (read by the main lcore) */
	/* Read by the lcores that wake it, so on a line of its own. */
	int sleeping __rte_cache_aligned;
} __rte_cache_aligned;


static inline void
ctr_add(struct hd_worker *w, enum hd_ctr k, uint64_t n)
{
	/* One writer; readers (telemetry) take a whole aligned word. */
	__atomic_store_n(&w->ctr[k], w->ctr[k] + n, __ATOMIC_RELAXED);
}

/* Set a connection's pending or wblocked flag, keeping the worker's count
 * of such connections (what --max-inflight bounds) in step. */
static inline void
busy_set(struct hd_worker *w, bool *flag, bool v)
{
	if (*flag == v)
		return;
	*flag = v;
	__atomic_store_n(&w->inflight, v ? w->inflight + 1 : w->inflight - 1, __ATOMIC_RELAXED);
}

/* Bytes of answers not yet sent: queued, and in an io_uring send. */
uint32_t hd_unsent(const struct hd_conn *c);

/* Shared by both socket paths (hd_net.c). */
void hd_conn_feed(struct hd_worker *w, struct hd_conn *c, const char *data, size_t len);
void hd_conn_eof(struct hd_worker *w, struct hd_conn *c);
void hd_conn_close(struct hd_worker *w, struct hd_conn *c);
void hd_conn_finish(struct hd_worker *w, struct hd_conn *c);
void hd_accept_all(struct hd_worker *w);
void hd_take_accepted(struct hd_worker *w, int fd);

/* Framing rules on top of http-parser (hd_frame.c): each returns 0, or the
 * status that refuses the request. */
bool hd_tchar(char ch);
int hd_name_status(const char *at, size_t len);
void hd_gap_scan(struct hd_conn *c, const char *b, const char *e);
void hd_gap_reset(struct hd_conn *c, const char *from);
int hd_value_status(struct hd_conn *c, const char *at, size_t len);
int hd_version_status(const http_parser *p);
int hd_method_status(const struct hd_conn *c, const char *rest, size_t len);
int hd_te_status(const struct hd_conn *c);
/* The ID of /user/ID or /bytes/N: digits only, at most 10, up to @p max. */
bool hd_parse_id(const char *s, size_t len, uint64_t max, uint64_t *out);

/* The io_uring path (hd_uring.c); without liburing hd_uring_init says
 * -ENOTSUP and the rest are never called. */
int hd_uring_init(struct hd_worker *w);
unsigned int hd_uring_poll(struct hd_worker *w);
unsigned int hd_uring_wait(struct hd_worker *w, uint64_t wait_us);
void hd_uring_want(struct hd_worker *w, struct hd_conn *c);
void hd_uring_flush(struct hd_worker *w, struct hd_conn *c);
void hd_uring_closing(struct hd_worker *w, struct hd_conn *c);
void hd_uring_listener_closing(struct hd_worker *w);
void hd_uring_submit(struct hd_worker *w);
void hd_uring_exit(struct hd_worker *w);

#endif /* HD_CONN_H */
