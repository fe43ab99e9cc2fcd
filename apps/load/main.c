/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lca-load: an HTTP/1.1 load generator with wrk2's semantics
 * (docs/usage.md#lca-load). Plain pthreads, each pinned to a CPU of
 * --cpus, each with its share of the connections in an epoll set.
 *
 * Open loop (--rate R): the rate is spread over the connections; request k
 * of connection i is due at start + i/R + k*C/R. A connection has one
 * request out at a time (no pipelining): when the answer to the last one
 * comes after the next is due, the next is sent at once. Latency runs from
 * each request's *intended* send time, not from when it could be sent, so a
 * server that stalls is charged for every request it held back (no
 * coordinated omission). Closed loop (--closed): each connection sends its
 * next request as soon as the answer is in; latency runs from the send.
 *
 * Latencies go into a log-linear histogram (apps/common/app_hdr.c, 3
 * significant digits, ns); the output is wrk2's: summary, latency
 * distribution, and with --latency the detailed percentile spectrum.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <http_parser.h>
#include <jansson.h>

#include "app_cli.h"
#include "app_hdr.h"
#include "app_hgrm.h"
#include "app_opt.h"

#ifndef APP_VERSION
#define APP_VERSION "unknown"
#endif

#define NAME "lca-load"
#define MAX_CPUS 256
#define HIGHEST_NS (3600LL * 1000000000LL) /* an hour */
#define RECONNECT_NS 10000000LL            /* after a failed connect: 10 ms */

enum ld_err { ERR_CONNECT, ERR_READ, ERR_WRITE, ERR_TIMEOUT, ERR_PARSE, ERR_N };
static const char *const err_names[ERR_N] = { "connect", "read", "write", "timeout", "parse" };

struct ld_conf {
	const char *url;
	bool threads_given;
	char host[256];
	char port[16];
	char path[2048];
	uint64_t connections;
	uint64_t threads;
	uint64_t rate; /* req/s over all connections; 0 with --closed */
	bool closed;
	double duration_s;
	double warmup_s;
	uint64_t timeout_ms;
	int cpus[MAX_CPUS];
	unsigned int n_cpus;
	bool latency;
	const char *json_path;
	const char *hgrm_path;
};

enum conn_state { C_DOWN, C_CONNECTING, C_IDLE, C_WAITING };

struct ld_thread;

struct ld_conn {
	struct ld_thread *t;
	int fd;
	enum conn_state state;
	http_parser p;
	bool complete;   /* the answer is in */
	bool keep;
	uint64_t next_due;  /* open loop: when its next request is due */
	uint64_t retry_at;  /* C_DOWN: when to connect again */
	uint64_t intended;  /* of the request out */
	uint64_t sent_at;
	size_t req_off;     /* bytes of the request written */
	uint64_t answers;   /* on this connection since it opened */
};

struct ld_thread {
	pthread_t tid;
	unsigned int idx;
	int cpu; /* -1: not pinned */
	int ep;
	struct ld_conn *conns;
	unsigned int n_conns;
	unsigned int first_conn; /* global index of conns[0] */
	struct app_hdr hist;
	uint64_t sent;        /* requests written in the window */
	uint64_t completed;   /* answers in the window (recorded) */
	uint64_t in_flight;   /* requests out when the run ended */
	uint64_t failed;      /* requests out on a connection that failed */
	uint64_t failed_unanswered; /* of those, on a connection that never answered:
				     * one a stopping server may never have accepted */
	uint64_t behind;      /* open loop: due and not sent when the run ended */
	uint64_t bytes;
	uint64_t non2xx;
	uint64_t reconnects;
	uint64_t errors[ERR_N];
	int setup_err;
};

static struct ld_conf cfg;
static struct addrinfo *server;
static char request[4096];
static size_t request_len;
static uint64_t t_start, t_record, t_end; /* CLOCK_MONOTONIC ns */
static uint64_t interval_ns;              /* open loop: between a connection's requests */
static pthread_barrier_t ready;
static http_parser_settings settings;

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* --- connections -------------------------------------------------------- */

static void
conn_down(struct ld_conn *c, uint64_t now, uint64_t delay)
{
	if (c->state == C_WAITING && c->intended >= t_record) {
		c->t->failed++; /* its request is lost with it */
		c->t->failed_unanswered += c->answers == 0;
	}
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->state = C_DOWN;
	c->retry_at = now + delay;
}

static void
conn_up(struct ld_conn *c, uint64_t now)
{
	struct ld_thread *t = c->t;
	struct epoll_event ev = { .events = EPOLLOUT | EPOLLIN, .data.ptr = c };
	int one = 1;
	int fd = socket(server->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		t->errors[ERR_CONNECT]++;
		conn_down(c, now, RECONNECT_NS);
		return;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->fd = fd;
	if (connect(fd, server->ai_addr, server->ai_addrlen) < 0 && errno != EINPROGRESS) {
		t->errors[ERR_CONNECT]++;
		conn_down(c, now, RECONNECT_NS);
		return;
	}
	c->state = C_CONNECTING;
	c->answers = 0;
	http_parser_init(&c->p, HTTP_RESPONSE);
	c->p.data = c;
	epoll_ctl(t->ep, EPOLL_CTL_ADD, fd, &ev);
}

static void
want_events(struct ld_conn *c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = c };

	epoll_ctl(c->t->ep, EPOLL_CTL_MOD, c->fd, &ev);
}

/* Write what is left of the request; false when the connection failed. */
static bool
write_request(struct ld_conn *c, uint64_t now)
{
	while (c->req_off < request_len) {
		ssize_t n = send(c->fd, request + c->req_off, request_len - c->req_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			c->req_off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			want_events(c, EPOLLIN | EPOLLOUT);
			return true;
		}
		c->t->errors[ERR_WRITE]++;
		conn_down(c, now, 0);
		return false;
	}
	return true;
}

static void
send_request(struct ld_conn *c, uint64_t intended, uint64_t now)
{
	c->intended = intended;
	c->sent_at = now;
	c->req_off = 0;
	c->complete = false;
	c->state = C_WAITING;
	if (cfg.rate > 0)
		c->next_due += interval_ns;
	if (intended >= t_record)
		c->t->sent++;
	write_request(c, now);
}

static int
on_message_complete(http_parser *p)
{
	struct ld_conn *c = p->data;

	c->complete = true;
	c->keep = http_should_keep_alive(p) != 0;
	http_parser_pause(p, 1);
	return 0;
}

static void
answer_in(struct ld_conn *c, uint64_t now)
{
	struct ld_thread *t = c->t;
	unsigned int status = c->p.status_code;

	c->state = C_IDLE;
	c->answers++;
	if (c->intended >= t_record && now > t_end) {
		t->in_flight++; /* answered after the end: not in the window */
	} else if (c->intended >= t_record) {
		t->completed++;
		app_hdr_record(&t->hist, (int64_t)(now - c->intended));
		if (status < 200 || status >= 400)
			t->non2xx++;
	}
	if (!c->keep) {
		t->reconnects++;
		conn_down(c, now, 0);
		return;
	}
	http_parser_pause(&c->p, 0);
	want_events(c, EPOLLIN);
}

static void
conn_read(struct ld_conn *c, uint64_t now)
{
	struct ld_thread *t = c->t;
	char buf[65536];
	ssize_t n = recv(c->fd, buf, sizeof(buf), 0);

	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return;
		t->errors[ERR_READ]++;
		conn_down(c, now, 0);
		return;
	}
	if (n == 0) {
		/* The end of an answer that runs to the close, or the server
		 * closing: an error only with a request out. */
		if (c->state == C_WAITING) {
			http_parser_execute(&c->p, &settings, NULL, 0);
			if (c->complete) {
				c->keep = false;
				answer_in(c, now);
				return;
			}
			t->errors[ERR_READ]++;
		}
		conn_down(c, now, 0);
		return;
	}
	t->bytes += (uint64_t)n;
	if (c->state != C_WAITING) {
		t->errors[ERR_PARSE]++; /* bytes nobody asked for */
		conn_down(c, now, 0);
		return;
	}
	http_parser_execute(&c->p, &settings, buf, (size_t)n);
	if (c->complete) {
		answer_in(c, now);
	} else if (HTTP_PARSER_ERRNO(&c->p) != HPE_OK) {
		t->errors[ERR_PARSE]++;
		conn_down(c, now, 0);
	}
}

static void
conn_event(struct ld_conn *c, uint32_t e, uint64_t now)
{
	struct ld_thread *t = c->t;

	if (c->state == C_CONNECTING) {
		int err = 0;
		socklen_t len = sizeof(err);

		getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (err != 0 || (e & (EPOLLERR | EPOLLHUP))) {
			t->errors[ERR_CONNECT]++;
			conn_down(c, now, RECONNECT_NS);
			return;
		}
		if (!(e & EPOLLOUT))
			return;
		c->state = C_IDLE;
		want_events(c, EPOLLIN);
		return;
	}
	if ((e & EPOLLOUT) && c->state == C_WAITING && c->req_off < request_len) {
		if (!write_request(c, now))
			return;
		if (c->req_off == request_len)
			want_events(c, EPOLLIN);
	}
	if (e & (EPOLLIN | EPOLLERR | EPOLLHUP))
		conn_read(c, now);
}

/* --- a load thread ---------------------------------------------------------- */

/* One connection's due work at @p now: reconnect, send, time out.
 * @return the earliest time it needs the thread again (<= @p wake). */
static uint64_t
conn_due(struct ld_conn *c, uint64_t now, uint64_t wake, uint64_t timeout_ns)
{
	switch (c->state) {
	case C_DOWN:
		if (c->retry_at <= now)
			conn_up(c, now);
		else if (c->retry_at < wake)
			wake = c->retry_at;
		break;
	case C_IDLE:
		if (cfg.rate == 0)
			send_request(c, now, now);
		else if (c->next_due <= now)
			send_request(c, c->next_due, now);
		else if (c->next_due < wake)
			wake = c->next_due;
		break;
	case C_WAITING:
		if (now - c->sent_at >= timeout_ns) {
			c->t->errors[ERR_TIMEOUT]++;
			conn_down(c, now, 0);
		} else if (c->sent_at + timeout_ns < wake) {
			wake = c->sent_at + timeout_ns;
		}
		break;
	case C_CONNECTING:
		break;
	}
	return wake;
}

/* Sleep in epoll until @p wake at most, and take what came. */
static void
wait_events(struct ld_thread *t, uint64_t wake)
{
	struct epoll_event evs[256];
	uint64_t now = now_ns();
	struct timespec ts = { 0, wake > now ? (long)(wake - now) : 0 };
	int n;

	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec = ts.tv_nsec / 1000000000L;
		ts.tv_nsec %= 1000000000L;
	}
	n = epoll_pwait2(t->ep, evs, (int)(sizeof(evs) / sizeof(evs[0])), &ts, NULL);
	now = now_ns();
	for (int k = 0; k < n; k++)
		conn_event(evs[k].data.ptr, evs[k].events, now);
}

/* At the end: requests still out, requests behind, connections closed. */
static void
wind_down(struct ld_thread *t, uint64_t last_pass)
{
	for (unsigned int i = 0; i < t->n_conns; i++) {
		struct ld_conn *c = &t->conns[i];

		if (c->state == C_WAITING && c->intended >= t_record)
			t->in_flight++;
		/* Behind: due at or before the last pass that could send it. A
		 * due time between that pass and the end (one rounded a few ns
		 * short of t_end, say) was never the server's to keep up with. */
		if (cfg.rate > 0 && c->next_due <= last_pass)
			t->behind += (last_pass - c->next_due) / interval_ns + 1;
		if (c->fd >= 0)
			close(c->fd);
	}
	close(t->ep);
}

static void *
thread_main(void *arg)
{
	struct ld_thread *t = arg;
	uint64_t timeout_ns = cfg.timeout_ms * 1000000ull;
	uint64_t now, last_pass = 0;

	t->ep = epoll_create1(EPOLL_CLOEXEC);
	if (t->ep < 0)
		t->setup_err = -errno;
	now = now_ns();
	for (unsigned int i = 0; i < t->n_conns && t->setup_err == 0; i++) {
		t->conns[i].t = t;
		t->conns[i].fd = -1;
		conn_up(&t->conns[i], now);
	}
	pthread_barrier_wait(&ready); /* connecting; main sets the start */
	pthread_barrier_wait(&ready);
	if (t->setup_err != 0)
		return NULL;
	for (unsigned int i = 0; i < t->n_conns; i++)
		t->conns[i].next_due = t_start + (uint64_t)(t->first_conn + i) *
						 (cfg.rate > 0 ? 1000000000ull / cfg.rate : 0);
	while ((now = now_ns()) < t_end) {
		uint64_t wake = t_end;

		last_pass = now;
		for (unsigned int i = 0; i < t->n_conns; i++)
			wake = conn_due(&t->conns[i], now, wake, timeout_ns);
		wait_events(t, wake);
	}
	wind_down(t, last_pass);
	return NULL;
}

/* --- options ------------------------------------------------------------ */

static int
parse_url(const char *url)
{
	struct http_parser_url u;
	size_t len = strlen(url);

	http_parser_url_init(&u);
	if (http_parser_parse_url(url, len, 0, &u) != 0 || !(u.field_set & (1 << UF_SCHEMA)) ||
	    !(u.field_set & (1 << UF_HOST)) || u.field_data[UF_SCHEMA].len != 4 ||
	    strncmp(url + u.field_data[UF_SCHEMA].off, "http", 4) != 0 ||
	    u.field_data[UF_HOST].len >= sizeof(cfg.host))
		return -EINVAL;
	memcpy(cfg.host, url + u.field_data[UF_HOST].off, u.field_data[UF_HOST].len);
	cfg.host[u.field_data[UF_HOST].len] = '\0';
	snprintf(cfg.port, sizeof(cfg.port), "%u", (u.field_set & (1 << UF_PORT)) ? u.port : 80);
	if (u.field_set & (1 << UF_PATH)) {
		/* The path and what follows it (query), as given. */
		size_t off = u.field_data[UF_PATH].off;

		if (len - off >= sizeof(cfg.path))
			return -EINVAL;
		memcpy(cfg.path, url + off, len - off);
		cfg.path[len - off] = '\0';
		if (strchr(cfg.path, '#') != NULL)
			*strchr(cfg.path, '#') = '\0';
	} else {
		strcpy(cfg.path, "/");
	}
	return 0;
}

static int
opt_cpus(void *conf, const struct app_opt *opt, char *list)
{
	char *items[MAX_CPUS];
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int n = app_cli_split(list, items, MAX_CPUS);

	(void)conf;
	(void)opt;
	if (n <= 0)
		return -EINVAL;
	for (int i = 0; i < n; i++) {
		uint64_t v;

		if (app_cli_uint(items[i], 0, (uint64_t)(ncpu > 0 ? ncpu - 1 : 0), &v) < 0)
			return -EINVAL;
		cfg.cpus[i] = (int)v;
	}
	cfg.n_cpus = (unsigned int)n;
	return 0;
}

/* A count as wrk2 reads -c, -t and -R: a whole number, or one with k, M or
 * G after it (1k = 1000). */
static int
opt_metric(void *conf, const struct app_opt *opt, char *val)
{
	static const struct { char unit; uint64_t scale; } units[] = {
		{ 'k', 1000 }, { 'K', 1000 }, { 'm', 1000000 }, { 'M', 1000000 },
		{ 'g', 1000000000 }, { 'G', 1000000000 },
	};
	size_t len = val != NULL ? strlen(val) : 0;
	uint64_t scale = 1, v;
	char num[32];

	for (size_t i = 0; len > 1 && i < sizeof(units) / sizeof(units[0]); i++)
		if (val[len - 1] == units[i].unit) {
			scale = units[i].scale;
			len--;
			break;
		}
	if (len == 0 || len >= sizeof(num))
		return -EINVAL;
	memcpy(num, val, len);
	num[len] = '\0';
	if (app_cli_uint(num, 1, opt->max, &v) < 0 || v > opt->max / scale ||
	    v * scale < opt->min)
		return -EINVAL;
	*(uint64_t *)app_opt_target(opt, conf) = v * scale;
	return 0;
}

/* A time as wrk2 reads -d: seconds, or a number with s, m or h after it
 * (fractions allowed; "0" only where @p opt allows none). */
static int
opt_time(void *conf, const struct app_opt *opt, char *val)
{
	size_t len = val != NULL ? strlen(val) : 0;
	double scale = 1, *out = app_opt_target(opt, conf);
	char num[32];

	if (len > 1 && strchr("smh", val[len - 1]) != NULL) {
		scale = val[len - 1] == 'm' ? 60 : val[len - 1] == 'h' ? 3600 : 1;
		len--;
	}
	if (len == 0 || len >= sizeof(num))
		return -EINVAL;
	memcpy(num, val, len);
	num[len] = '\0';
	if (opt->min == 0 && strcmp(num, "0") == 0) {
		*out = 0;
		return 0;
	}
	if (app_cli_seconds(num, out) < 0)
		return -EINVAL;
	*out *= scale;
	return 0;
}

#define AT(field) APP_OPT_AT(struct ld_conf, field)

/* wrk2's letters where wrk2 has them: -t -c -d -R -L. */
static const struct app_opt options[] = {
	{ "url", 0, APP_OPT_STRING, AT(url), .metavar = "URL",
	  .help = "http://HOST[:PORT][/PATH] (or as the last argument)" },
	{ "rate", 'R', APP_OPT_CUSTOM, AT(rate), .parse = opt_metric, .min = 1,
	  .max = 100000000, .metavar = "R",
	  .help = "open loop: R requests/s over all connections; latency\n"
		  "from each request's intended send time (corrected for\n"
		  "coordinated omission); 2k = 2000",
	  .why = "requests/s, 1 to 100000000; k and M allowed" },
	{ "closed", 0, APP_OPT_FLAG, AT(closed),
	  .help = "closed loop: each connection sends again as soon as\n"
		  "the answer is in (for saturation; latency from the send)" },
	{ "connections", 'c', APP_OPT_CUSTOM, AT(connections), .parse = opt_metric, .min = 1,
	  .max = 1000000, .metavar = "N",
	  .help = "connections (default 100), one request out on each",
	  .why = "1 to 1000000; k allowed" },
	{ "threads", 't', APP_OPT_CUSTOM, AT(threads), .parse = opt_metric, .min = 1,
	  .max = 1024, .metavar = "N", APP_OPT_GIVEN(struct ld_conf, threads_given),
	  .help = "load threads (default: as many as --cpus lists, else 2)",
	  .why = "1 to 1024" },
	{ "cpus", 0, APP_OPT_CUSTOM, .parse = opt_cpus, .metavar = "LIST",
	  .help = "pin thread i to the (i mod n)-th CPU of LIST, e.g. 0,1\n"
		  "(default: not pinned)",
	  .why = "a comma-separated list of this machine's CPUs" },
	{ "duration", 'd', APP_OPT_CUSTOM, AT(duration_s), .parse = opt_time, .min = 1,
	  .metavar = "T", .help = "measured time: seconds, or 30s, 2m, 1h (default 10)",
	  .why = "seconds above 0, or with s, m or h" },
	{ "warmup", 0, APP_OPT_CUSTOM, AT(warmup_s), .parse = opt_time, .min = 0,
	  .metavar = "T", .help = "load before the measured time, not recorded (default 0)",
	  .why = "seconds, or with s, m or h" },
	{ "timeout", 0, APP_OPT_UINT, AT(timeout_ms), .min = 1, .max = 3600000, .metavar = "MS",
	  .help = "an answer not in after MS from its send: a timeout\n"
		  "error, and the connection is opened again (default 2000)" },
	{ "latency", 'L', APP_OPT_FLAG, AT(latency),
	  .help = "print the detailed percentile spectrum too" },
	{ "json", 0, APP_OPT_OUTPUT, AT(json_path), .metavar = "FILE",
	  .help = "write the result as JSON (docs/json.md, lca-load/1)" },
	{ "hgrm", 0, APP_OPT_OUTPUT, AT(hgrm_path), .metavar = "FILE",
	  .help = "write the latency histogram as HdrHistogram's .hgrm\n"
		  "percentile distribution (values in ms, as wrk2's)" },
	{ NULL },
};

static const struct app_opt_table table = {
	.prog = NAME, .opts = options, .column = 24,
	.synopsis = "[options] --rate R|--closed URL",
	.about = "HTTP/1.1 load with wrk2's semantics, against any server; wrk2's\n"
		 "-t N -c N -d T -R R [-L] URL is the same command.\n",
	.footer = "Exit status: 0 after a run (errors are counted, not fatal), 1 when it could\n"
		  "not run, 2 for a bad argument.\n",
};

/* What only the whole command line can tell. */
static int
check_conf(void)
{
	if (cfg.url == NULL) {
		fprintf(stderr, NAME ": no URL (e.g. http://127.0.0.1:8080/)\n");
		return -EINVAL;
	}
	if (parse_url(cfg.url) < 0) {
		fprintf(stderr, NAME ": bad URL '%s' (http://HOST[:PORT][/PATH])\n", cfg.url);
		return -EINVAL;
	}
	if ((cfg.rate > 0) == cfg.closed) {
		fprintf(stderr, NAME ": give either --rate R (open loop) or --closed\n");
		return -EINVAL;
	}
	if (!cfg.threads_given && cfg.n_cpus > 0)
		cfg.threads = cfg.n_cpus;
	if (cfg.threads > cfg.connections) {
		fprintf(stderr, NAME ": %" PRIu64 " threads for %" PRIu64
				" connections: each thread needs one (lower --threads)\n",
			cfg.threads, cfg.connections);
		return -EINVAL;
	}
	return 0;
}

static int
parse_args(int argc, char **argv)
{
	int rest, ret;

	cfg = (struct ld_conf){ .connections = 100, .threads = 2, .duration_s = 10,
				.timeout_ms = 2000 };
	ret = app_opt_parse(argc, argv, &table, &cfg, &rest);
	if (ret != 0)
		return ret;
	/* After "--" too, as on every other app: "lca-load -- -h". */
	if (rest < argc && (strcmp(argv[rest], "-h") == 0 || strcmp(argv[rest], "--help") == 0)) {
		app_opt_usage(stdout, &table, argv[0]);
		return APP_OPT_DONE;
	}
	if (rest < argc && cfg.url == NULL)
		cfg.url = argv[rest++];
	if (rest < argc) {
		fprintf(stderr, NAME ": unexpected argument '%s'\n", argv[rest]);
		return -EINVAL;
	}
	return check_conf();
}

/* --- the report ------------------------------------------------------------ */

/* A time as wrk prints it. */
static const char *
fmt_time(double ns, char *buf, size_t len)
{
	if (ns < 1e6)
		snprintf(buf, len, "%.2fus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.2fms", ns / 1e6);
	else if (ns < 60e9)
		snprintf(buf, len, "%.2fs", ns / 1e9);
	else
		snprintf(buf, len, "%.2fm", ns / 60e9);
	return buf;
}

static const char *
fmt_bytes(double b, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KB", "MB", "GB", "TB" };
	unsigned int u = 0;

	while (b >= 1024 && u < 4) {
		b /= 1024;
		u++;
	}
	snprintf(buf, len, "%.2f%s", b, units[u]);
	return buf;
}

static const double pcts[] = { 50, 75, 90, 99, 99.9, 99.99, 99.999, 100 };

struct totals {
	struct app_hdr hist;
	uint64_t sent, completed, in_flight, failed, failed_unanswered, behind, bytes, non2xx,
		reconnects;
	uint64_t errors[ERR_N];
	double cpu_pct;
	double elapsed_s;
};

static void
print_report(const struct totals *s)
{
	char a[32], b[32], c[32];
	uint64_t errs = 0;

	printf("  Thread Stats   Avg      Stdev     Max   +/- Stdev\n");
	printf("    Latency   %8s  %8s  %8s  %8.2f%%\n", fmt_time(app_hdr_mean(&s->hist), a, 32),
	       fmt_time(app_hdr_stdev(&s->hist), b, 32), fmt_time((double)s->hist.max, c, 32),
	       app_hdr_within_stdev_pct(&s->hist));
	printf("  Latency Distribution (HdrHistogram - Recorded Latency)\n");
	for (unsigned int i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
		printf("%7.3f%%  %8s\n", pcts[i],
		       fmt_time((double)app_hdr_value_at(&s->hist, pcts[i]), a, 32));
	if (cfg.latency) {
		printf("\n  Detailed Percentile spectrum:\n");
		app_hdr_print_spectrum(&s->hist, stdout, 5, 1e6); /* ns, printed in ms */
	}
	printf("----------------------------------------------------------\n");
	printf("  %" PRIu64 " requests in %.2fs, %s read\n", s->completed, s->elapsed_s,
	       fmt_bytes((double)s->bytes, a, 32));
	printf("  sent %" PRIu64 ", answered %" PRIu64 ", out at the end %" PRIu64
	       ", lost with a failed connection %" PRIu64 " (%" PRIu64 " on one that never "
	       "answered), histogram count %" PRId64 "\n",
	       s->sent, s->completed, s->in_flight, s->failed, s->failed_unanswered,
	       s->hist.total);
	for (int k = 0; k < ERR_N; k++)
		errs += s->errors[k];
	printf("  Socket errors: connect %" PRIu64 ", read %" PRIu64 ", write %" PRIu64
	       ", timeout %" PRIu64 ", parse %" PRIu64 "\n", s->errors[ERR_CONNECT],
	       s->errors[ERR_READ], s->errors[ERR_WRITE], s->errors[ERR_TIMEOUT],
	       s->errors[ERR_PARSE]);
	if (s->non2xx > 0)
		printf("  Non-2xx or 3xx responses: %" PRIu64 "\n", s->non2xx);
	if (s->reconnects > 0)
		printf("  Connections the server closed after an answer: %" PRIu64 "\n",
		       s->reconnects);
	if (cfg.rate > 0 && s->behind > 0)
		printf("  Behind schedule: %" PRIu64 " requests were due and not yet sent when the "
		       "run ended (the server did not keep up with %" PRIu64 " req/s)\n",
		       s->behind, cfg.rate);
	printf("Requests/sec: %10.2f\n", (double)s->completed / s->elapsed_s);
	printf("Transfer/sec: %10s\n", fmt_bytes((double)s->bytes / s->elapsed_s, a, 32));
	printf("CPU: lca-load used %.1f%% of one CPU\n", s->cpu_pct);
	printf("errors: %" PRIu64 "\n", errs + s->non2xx);
}

/* The last lines, as every lcactor app ends: the answer, why it has no
 * floor, and where the record is. */
static void
print_verdict(const struct totals *s, bool written)
{
	printf("\n== verdict ==\n");
	printf("requests answered: %.4g req/s, p99 %.4g ms  no floor: a load generator's figure "
	       "is the server's; scripts/http-compare.sh measures nginx beside it\n",
	       (double)s->completed / s->elapsed_s,
	       (double)app_hdr_value_at(&s->hist, 99.0) / 1e6);
	if (cfg.json_path == NULL)
		printf("record: none (--json FILE writes one)\n");
	else
		printf("record: %s%s\n", cfg.json_path, written ? "" : " (not written)");
}

static bool
spectrum_step(const struct app_hdr_step *st, void *arg)
{
	json_array_append_new(arg, json_pack("[f, f, I]", (double)st->value / 1e3,
					     st->percentile, (json_int_t)st->total_count));
	return true;
}

static json_t *
machine_json(void)
{
	struct utsname u;
	char model[256] = "unknown", line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (f != NULL) {
		while (fgets(line, sizeof(line), f) != NULL) {
			char *colon = strchr(line, ':');

			if (strncmp(line, "model name", 10) == 0 && colon != NULL) {
				snprintf(model, sizeof(model), "%s", colon + 2);
				model[strcspn(model, "\n")] = '\0';
				break;
			}
		}
		fclose(f);
	}
	uname(&u);
	return json_pack("{s:s, s:i, s:s, s:s}", "cpu_model", model, "cpus_online",
			 (int)sysconf(_SC_NPROCESSORS_ONLN), "kernel", u.release, "arch", u.machine);
}

static int
write_json(const struct totals *s, int argc, char **argv)
{
	json_t *args = json_array(), *cpus = json_array(), *spec = json_array(), *lat, *errs;
	json_t *root;
	char date[32];
	time_t now = time(NULL);
	struct tm tm;
	uint64_t nerr = 0;
	int ret;

	for (int i = 1; i < argc; i++)
		json_array_append_new(args, json_string(argv[i]));
	for (unsigned int i = 0; i < cfg.n_cpus; i++)
		json_array_append_new(cpus, json_integer(cfg.cpus[i]));
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	lat = json_pack("{s:s, s:I, s:f, s:f, s:f, s:f, s:f}", "unit", "us", "count",
			(json_int_t)s->hist.total, "mean", app_hdr_mean(&s->hist) / 1e3, "stdev",
			app_hdr_stdev(&s->hist) / 1e3, "min",
			s->hist.total ? (double)s->hist.min / 1e3 : 0.0, "max",
			(double)s->hist.max / 1e3, "within_stdev_pct",
			app_hdr_within_stdev_pct(&s->hist));
	json_object_set_new(lat, "percentiles", json_object());
	for (unsigned int i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		char key[16];

		snprintf(key, sizeof(key), "%g", pcts[i]);
		json_object_set_new(json_object_get(lat, "percentiles"), key,
				    json_real((double)app_hdr_value_at(&s->hist, pcts[i]) / 1e3));
	}
	app_hdr_spectrum(&s->hist, 5, spectrum_step, spec);
	errs = json_object();
	for (int k = 0; k < ERR_N; k++) {
		json_object_set_new(errs, err_names[k], json_integer((json_int_t)s->errors[k]));
		nerr += s->errors[k];
	}
	json_object_set_new(errs, "status", json_integer((json_int_t)s->non2xx));
	root = json_pack("{s:s, s:s, s:s, s:s, s:o, s:o,"
			 " s:{s:s, s:I, s:I, s:o, s:s, s:I, s:f, s:f, s:I},"
			 " s:{s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:I, s:o, s:I, s:o, s:o, s:f}, s:b}",
			 "schema", "lca-load/1", "app", NAME, "version", APP_VERSION, "date", date,
			 "machine", machine_json(), "args", args,
			 "conf", "url", cfg.url, "connections", (json_int_t)cfg.connections,
			 "threads", (json_int_t)cfg.threads, "cpus", cpus, "mode",
			 cfg.rate > 0 ? "open" : "closed", "rate", (json_int_t)cfg.rate,
			 "duration_s", cfg.duration_s, "warmup_s", cfg.warmup_s, "timeout_ms",
			 (json_int_t)cfg.timeout_ms,
			 "result", "requests", (json_int_t)s->completed, "sent", (json_int_t)s->sent,
			 "in_flight_at_end", (json_int_t)s->in_flight, "failed", (json_int_t)s->failed, "bytes", (json_int_t)s->bytes,
			 "elapsed_s", s->elapsed_s, "achieved_rps",
			 (double)s->completed / s->elapsed_s, "behind_schedule",
			 (json_int_t)s->behind, "errors", errs, "reconnects",
			 (json_int_t)s->reconnects, "latency", lat, "spectrum", spec, "cpu_pct",
			 s->cpu_pct, "ok", nerr + s->non2xx == 0 && s->completed > 0);
	if (root == NULL) {
		fprintf(stderr, NAME ": cannot build the JSON record\n");
		return -ENOMEM;
	}
	json_object_set_new(json_object_get(root, "result"), "failed_unanswered",
			    json_integer((json_int_t)s->failed_unanswered));
	ret = json_dump_file(root, cfg.json_path, JSON_INDENT(1)) == 0 ? 0 : -EIO;
	if (ret < 0)
		fprintf(stderr, NAME ": cannot write %s\n", cfg.json_path);
	json_decref(root);
	return ret;
}

static double
cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* Room for every connection's socket. */
static void
raise_nofile(void)
{
	struct rlimit r;
	rlim_t need = (rlim_t)cfg.connections + 64;

	if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < need) {
		rlim_t was = r.rlim_cur;

		r.rlim_cur = need < r.rlim_max ? need : r.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &r) == 0)
			printf("  RLIMIT_NOFILE raised from %llu to %llu\n", (unsigned long long)was,
			       (unsigned long long)r.rlim_cur);
	}
}

/* What every connection sends, and the open loop's interval. */
static int
prepare_request(void)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	int gai = getaddrinfo(cfg.host, cfg.port, &hints, &server);

	if (gai != 0) {
		fprintf(stderr, NAME ": cannot resolve %s: %s\n", cfg.host, gai_strerror(gai));
		return -EINVAL;
	}
	settings = (http_parser_settings){ .on_message_complete = on_message_complete };
	request_len = (size_t)snprintf(request, sizeof(request),
				       "GET %s HTTP/1.1\r\nHost: %s:%s\r\n\r\n", cfg.path, cfg.host,
				       cfg.port);
	if (cfg.rate > 0)
		interval_ns = (uint64_t)((double)cfg.connections * 1e9 / (double)cfg.rate);
	return 0;
}

/* wrk2's first lines, and how the latency is measured. */
static void
print_banner(void)
{
	printf("Running %.2fs test @ %s\n", cfg.duration_s, cfg.url);
	printf("  %" PRIu64 " threads and %" PRIu64 " connections", cfg.threads, cfg.connections);
	if (cfg.n_cpus > 0) {
		printf(", threads pinned to CPUs");
		for (unsigned int i = 0; i < cfg.n_cpus; i++)
			printf("%s%d", i ? "," : " ", cfg.cpus[i]);
	} else {
		printf(", threads not pinned");
	}
	printf("\n");
	if (cfg.rate > 0)
		printf("  open loop at %" PRIu64 " req/s (%.1f req/s a connection); latency from each "
		       "request's intended send time (corrected for coordinated omission)\n",
		       cfg.rate, (double)cfg.rate / (double)cfg.connections);
	else
		printf("  closed loop: each connection sends again when the answer is in; latency "
		       "from the send (not corrected: a measure of saturation)\n");
	if (cfg.warmup_s > 0)
		printf("  %.2fs of warm-up first, not recorded\n", cfg.warmup_s);
	fflush(stdout);
}

/* Thread @p i with its share of @p conns, pinned to its CPU of --cpus. */
static int
start_thread(struct ld_thread *t, unsigned int i, struct ld_conn *conns, unsigned int *first)
{
	pthread_attr_t attr;
	int ret;

	t->idx = i;
	t->n_conns = (unsigned int)(cfg.connections / cfg.threads +
				    (i < cfg.connections % cfg.threads ? 1 : 0));
	t->first_conn = *first;
	t->conns = conns + *first;
	*first += t->n_conns;
	t->cpu = cfg.n_cpus > 0 ? cfg.cpus[i % cfg.n_cpus] : -1;
	if (app_hdr_init(&t->hist, HIGHEST_NS, 3) < 0) {
		fprintf(stderr, NAME ": out of memory\n");
		return -ENOMEM;
	}
	pthread_attr_init(&attr);
	if (t->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(t->cpu, &set);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	}
	ret = pthread_create(&t->tid, &attr, thread_main, t);
	pthread_attr_destroy(&attr);
	if (ret != 0)
		fprintf(stderr, NAME ": cannot start thread %u: %s\n", i, strerror(ret));
	return -ret;
}

/* Every thread connected: the window starts now; sleep through the
 * warm-up. @return the CPU seconds used when the record starts. */
static double
start_window(void)
{
	struct timespec ts = { .tv_sec = (time_t)cfg.warmup_s,
			       .tv_nsec = (long)((cfg.warmup_s - floor(cfg.warmup_s)) * 1e9) };

	pthread_barrier_wait(&ready);
	t_start = now_ns();
	t_record = t_start + (uint64_t)(cfg.warmup_s * 1e9);
	t_end = t_record + (uint64_t)(cfg.duration_s * 1e9);
	pthread_barrier_wait(&ready);
	nanosleep(&ts, NULL);
	return cpu_seconds();
}

/* Join every thread and add its figures to @p s. */
static int
collect(struct ld_thread *th, struct totals *s)
{
	for (unsigned int i = 0; i < cfg.threads; i++) {
		struct ld_thread *t = &th[i];

		pthread_join(t->tid, NULL);
		if (t->setup_err != 0) {
			fprintf(stderr, NAME ": thread %u could not start: %s\n", i,
				strerror(-t->setup_err));
			return -EIO;
		}
		app_hdr_add(&s->hist, &t->hist);
		s->sent += t->sent;
		s->completed += t->completed;
		s->in_flight += t->in_flight;
		s->failed += t->failed;
		s->failed_unanswered += t->failed_unanswered;
		s->behind += t->behind;
		s->bytes += t->bytes;
		s->non2xx += t->non2xx;
		s->reconnects += t->reconnects;
		for (int k = 0; k < ERR_N; k++)
			s->errors[k] += t->errors[k];
		app_hdr_free(&t->hist);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct ld_thread *th;
	struct ld_conn *conns;
	struct totals s = { 0 };
	unsigned int first = 0;
	double cpu0;
	int ret;

	ret = parse_args(argc, argv);
	if (ret != 0)
		return ret > 0 ? 0 : APP_EXIT_USAGE;
	if (prepare_request() < 0)
		return 1;
	th = calloc(cfg.threads, sizeof(*th));
	conns = calloc(cfg.connections, sizeof(*conns));
	if (th == NULL || conns == NULL || app_hdr_init(&s.hist, HIGHEST_NS, 3) < 0) {
		fprintf(stderr, NAME ": out of memory\n");
		return 1;
	}
	raise_nofile();
	print_banner();
	pthread_barrier_init(&ready, NULL, (unsigned int)cfg.threads + 1);
	for (unsigned int i = 0; i < cfg.threads; i++)
		if (start_thread(&th[i], i, conns, &first) != 0)
			return 1;
	cpu0 = start_window();
	if (collect(th, &s) != 0)
		return 1;
	s.elapsed_s = cfg.duration_s;
	s.cpu_pct = 100.0 * (cpu_seconds() - cpu0) / cfg.duration_s;
	print_report(&s);
	ret = 0;
	if (cfg.json_path != NULL && write_json(&s, argc, argv) < 0)
		ret = 1;
	if (cfg.hgrm_path != NULL &&
	    app_hgrm_write(&s.hist, cfg.hgrm_path, APP_HGRM_TICKS, 1e6, NAME) < 0)
		ret = 1;
	print_verdict(&s, ret == 0);
	app_hdr_free(&s.hist);
	freeaddrinfo(server);
	free(th);
	free(conns);
	return ret;
}
