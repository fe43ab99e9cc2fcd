/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef HTTPD_H
#define HTTPD_H

/*
 * lca-httpd: HTTP/1.1 on lcores over kernel TCP sockets. Each lcore has a
 * worker: an epoll set polled from a loop hook (timeout 0), its
 * connections, and a worker actor that takes what other lcores send it
 * (an accepted socket, a service's reply). Requests are parsed with
 * http-parser; GET /user/ID crosses the runtime as a message to the
 * service actor, and its reply comes back as a message to the
 * connection's worker actor.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_common.h>

#include "lca_actor.h"

/* Message types. */
#define HD_MSG_FD 1         /* worker <- acceptor: adopt data.fd */
#define HD_MSG_USER_REQ 2   /* service <- worker: look up a user */
#define HD_MSG_USER_REPLY 3 /* worker <- service: the record (ptr) or NULL */

/* How connections reach the lcores. */
enum hd_accept {
	HD_ACCEPT_BALANCE,   /* one listening socket on the main lcore; each new
			      * connection goes to the lcore with fewest open */
	HD_ACCEPT_REUSEPORT, /* one SO_REUSEPORT socket per lcore; the kernel
			      * hashes each connection to one */
};

/* What an lcore does when its loop finds nothing. */
enum hd_idle {
	HD_IDLE_SLEEP, /* after idle_after quiet loops, wait in the kernel (epoll
			* or the ring) until the next scan; while an ask waits, from
			* idle_wait_us, doubling while nothing comes, up to 50 ms; a
			* send to a sleeping lcore writes its eventfd */
	HD_IDLE_SPIN,  /* poll again at once (the runtime's spin) */
};

/* The socket path. */
enum hd_io {
	HD_IO_EPOLL, /* readiness: epoll_wait, then recv/send/accept4 calls */
	HD_IO_URING, /* completions: io_uring, multishot accept and recv into
		      * provided buffers, one submit of the iteration's sends */
	HD_IO_AUTO,  /* io_uring where the kernel allows it, else epoll */
};

struct hd_conf {
	enum hd_io io;
	const char *bind;
	uint64_t port;             /* 0: any free port, printed */
	enum hd_accept accept;
	enum hd_idle idle;
	uint64_t idle_after;       /* empty loops before an idle wait */
	uint64_t idle_wait_us;     /* the first idle wait while an ask waits; the least one lasts */
	uint64_t max_conns;        /* per lcore */
	uint64_t request_line_limit; /* request line, bytes: past it 414 */
	uint64_t header_line_limit;  /* one header line, bytes: past it 431 */
	uint64_t header_limit;     /* all header lines, bytes: past it 431 */
	uint64_t max_headers;      /* header lines: past it 431 */
	uint64_t max_inflight;     /* 0: no bound; above it 503 + Retry-After */
	uint64_t drain_ms;         /* graceful stop: longest drain */
	uint64_t body_limit;       /* body bytes: past it 413 */
	uint64_t request_timeout_ms; /* a started request not complete: 408 */
	uint64_t service_timeout_ms; /* the service's answer not in: 504 */
	uint64_t keepalive_ms;     /* an idle connection is closed */
	uint64_t users;            /* the service's records */
	uint64_t service_lcore;    /* UINT64_MAX: the last lcore */
	uint64_t duration_s;       /* 0: until a signal */
	uint64_t backlog;
	const char *json_path;
	const char *access_log;    /* NULL: no access log */
};

/* One lcore's counters; only that lcore writes them. */
enum hd_ctr {
	HD_ACCEPTED,       /* accepted by this lcore's listening socket */
	HD_OPENED,         /* connections this lcore took */
	HD_CLOSED,
	HD_REFUSED,        /* accepted, but this lcore's table was full: closed */
	HD_REQUESTS,       /* complete requests */
	HD_S200,
	HD_S400,           /* malformed */
	HD_S404,
	HD_S405,
	HD_S408,           /* a request not complete in time */
	HD_S413,           /* body past the limit */
	HD_S431,           /* request line and headers past the limit */
	HD_S503,           /* the service could not be asked */
	HD_RESETS,         /* the peer reset the connection */
	HD_HALF_CLOSED,    /* the peer shut its side while we still had to answer */
	HD_IDLE_CLOSED,    /* keep-alive timeout */
	HD_USER_ASKED,     /* /user requests sent to the service */
	HD_USER_ANSWERED,  /* its replies that reached the connection */
	HD_USER_TIMED_OUT, /* the service's answer not in within --service-timeout: 504 */
	HD_BYTES_IN,
	HD_BYTES_OUT,
	HD_IDLE_WAITS,     /* epoll waits of the idle policy */
	HD_WAKEUPS,        /* eventfd writes to wake a waiting lcore */
	HD_S100,           /* 100 Continue sent for Expect: 100-continue */
	HD_S414,           /* request line past its limit */
	HD_S501,           /* a transfer coding not implemented */
	HD_SHED,           /* 503 + Retry-After: above --max-inflight */
	HD_REFUSED_FD,     /* accepted with the reserve fd at the fd limit: 503, closed */
	HD_ACCEPT_FAILS,   /* accept4() calls that failed for want of an fd */
	HD_DRAIN_IDLE,     /* idle keep-alive connections closed by a graceful stop */
	HD_DRAIN_CUT,      /* connections still open at the drain deadline: closed */
	HD_LOG_DROPPED,    /* access log records dropped: this lcore's ring was full */
	HD_S504,           /* the service did not answer in time */
	HD_S505,           /* an HTTP version other than 1.x */
	HD_BAD_NAME,       /* 400: a header name with a byte that is not a token character */
	HD_OBS_FOLD,       /* 400: a header line folded onto the next (obs-fold) */
	HD_BAD_METHOD,     /* 501: a method this server does not know */
	HD_N
};

extern const char *const hd_ctr_names[HD_N];

/* Asks one lcore's worker may have waiting: one per connection that can
 * wait for the service, up to the runtime's bound. */
static inline unsigned int
hd_asks_per_lcore(const struct hd_conf *c)
{
	return (unsigned int)RTE_MIN(c->max_conns, (uint64_t)LCA_ASK_PENDING_LIMIT);
}

/* What a /user ask carries, inline. The connection comes first: an ask's
 * timeout notice gives back its first 8 bytes (struct lca_timeout.head). */
struct hd_user_req {
	uint32_t conn;
	uint32_t id;
};

/* A user record, as lca-reqresp's service keeps them. */
struct hd_user {
	uint32_t id;
	char first[5];
	char last[7];
	uint64_t ssn;
	uint32_t friends[5];
};

/* The latency histogram: bucket i counts answers at most hd_lat_le[i]
 * seconds after their request began; the last bucket is +Inf. */
#define HD_LAT_BUCKETS 17
extern const double hd_lat_le[HD_LAT_BUCKETS - 1];

/* Every lcore's histogram summed: @p counts per bucket (not cumulative),
 * @p sum_s the seconds of every answer counted. */
void hd_net_latency(uint64_t counts[HD_LAT_BUCKETS], double *sum_s);

/* One access log line, as an lcore hands it to the writer thread. */
#define HD_LOG_NO_METHOD 0xff /* no request line was read (a 408, a malformed one) */
#define HD_LOG_URL_MAX 100
struct hd_log_rec {
	uint64_t time_s;    /* Unix time of the answer */
	uint64_t bytes;     /* body bytes of the answer */
	uint32_t peer;      /* IPv4, network order; 0: unknown */
	uint16_t status;
	uint8_t method;     /* enum http_method, or HD_LOG_NO_METHOD */
	uint8_t version;    /* 10 * major + minor */
	uint8_t url_len;
	uint8_t url_cut;    /* the target was longer than url[] */
	char url[HD_LOG_URL_MAX + 2];
};

/* Whether the access log is on (read on every answer). */
extern bool hd_log_on;

/* Open the access log at @p path (appended), one ring per lcore and the
 * writer thread (main lcore, before the run). */
int hd_log_open(const char *path);

/* Hand a record to the writer; false when @p lcore's ring is full. */
bool hd_log_put(unsigned int lcore, struct hd_log_rec *r);

/* Lines written so far. */
uint64_t hd_log_written(void);

/* Ask the writer to reopen the access log at its path (async-signal-safe:
 * SIGHUP, SIGUSR1); the lines before go to the old file, none is lost. */
void hd_log_reopen(void);

/* Times the access log was reopened. */
uint64_t hd_log_reopened(void);

/* After the run: write what is left, stop the writer, say on @p report
 * how many lines were written and dropped. */
void hd_log_close(FILE *report);

/* The /metrics body (Prometheus text format 0.0.4), malloc'd; NULL for
 * want of memory. */
char *hd_metrics_text(size_t *len);

/* The socket path the workers took (after hd_net_init): never AUTO. */
enum hd_io hd_net_io(void);

/* Set up every lcore's worker and sockets (main lcore, before the run). */
int hd_net_init(const struct hd_conf *conf);

/* The port listened on (after hd_net_init). */
unsigned int hd_net_port(void);

/* Spawn the worker actors and add the hooks; @p service answers /user. */
int hd_net_start(lca_actor_id_t service);

/* The service lcore's worker is woken when it waits (service -> worker). */
void hd_net_wake(unsigned int lcore);

/* Sum of counter @p k over the lcores; one lcore's with @p lcore. */
uint64_t hd_net_counter(enum hd_ctr k);
uint64_t hd_net_lcore_counter(unsigned int lcore, enum hd_ctr k);

/* Open connections now, over every lcore and on one. */
uint64_t hd_net_open(void);
uint64_t hd_net_lcore_open(unsigned int lcore);

/* The worker actor of @p lcore. */
lca_actor_id_t hd_net_worker_actor(unsigned int lcore);

/* Ask for a graceful stop: async-signal-safe (one atomic store). */
void hd_net_drain(void);

/* Whether a graceful stop was asked. */
bool hd_net_draining(void);

/* After the run: count what a drain left open as cut; the drain's length
 * in ms (-1: no drain). */
double hd_net_drain_end(void);

/* Close every socket and free the workers (after the run). */
void hd_net_cleanup(void);

#endif /* HTTPD_H */
