/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lca-httpd: seed 003's HTTP server on lcores (docs/usage.md#lca-httpd).
 * Kernel TCP sockets, driven from each lcore's loop hook (hd_net.c);
 * GET / answers the seed's small body, GET /user/ID asks a service actor
 * for a record of lca-reqresp's user database, across lcores as a message.
 * Counters go to DPDK telemetry (/lcactor/http) and, at the end, to
 * stdout and the --json record.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_spinlock.h>
#include <rte_telemetry.h>

#include "httpd.h"
#include "lca_actor.h"
#include "app_main.h"
#include "app_cli.h"
#include "lca_eal.h"
#include "app_report.h"
#include "app_result.h"
#include "app_rng.h"
#include "lca_timer.h"
#include "app_series.h"
#include "lca_topo.h"
#include "app_verdict.h"

#define NAME "lca-httpd"

static struct hd_conf conf;

/* --- the service actor: lca-reqresp's user database ------------------------ */

struct service_state {
	const struct hd_user *db;
	uint32_t users;
	uint64_t answered;
	uint64_t unknown;
};

static struct hd_user *user_db;

static void
fill_name(char *dst, size_t len, uint64_t bits)
{
	for (size_t i = 0; i < len; i++, bits >>= 5)
		dst[i] = (char)('a' + (bits & 31) % 26);
}

static int
build_db(uint32_t users, int socket_id)
{
	uint64_t rng = app_rng_stream(42, 0);

	user_db = rte_malloc_socket("hd_users", sizeof(*user_db) * users, RTE_CACHE_LINE_SIZE,
				    socket_id);
	if (user_db == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < users; i++) {
		user_db[i].id = i;
		fill_name(user_db[i].first, sizeof(user_db[i].first), app_rng_next(&rng));
		fill_name(user_db[i].last, sizeof(user_db[i].last), app_rng_next(&rng));
		user_db[i].ssn = app_rng_next(&rng) % 1000000000ull;
		for (int f = 0; f < 5; f++)
			user_db[i].friends[f] = app_rng_below(&rng, users);
	}
	return 0;
}

static void
service_init(void *state, void *arg)
{
	struct service_state *s = state;

	(void)arg;
	s->db = user_db;
	s->users = (uint32_t)conf.users;
}

#ifdef HD_TEST_SLOW_SERVICE
/* lca-httpd-slow (tests/meson.build): the service holds /user/HD_SLOW_ID
 * for HD_SLOW_MS before it answers, so that tests/e2e_http.sh sees an ask
 * time out (504), a late answer and a cancelled ask counted. */
#define HD_SLOW_ID 4242
#define HD_SLOW_MS 1000
#define HD_MSG_SLOW_ANSWER 100 /* service <- itself: answer ptr now */

static bool
service_slow(lca_actor_id_t self, struct lca_msg *m)
{
	const struct hd_user_req *r = (const struct hd_user_req *)m->data;
	struct lca_msg *later;

	if (m->type == HD_MSG_SLOW_ANSWER) {
		struct lca_msg *held = m->ptr;
		int home = lca_actor_lcore(held->from);

		held->type = HD_MSG_USER_REPLY;
		held->ptr = NULL;
		if (lca_reply(held) != 0)
			lca_msg_free(held);
		else if (home >= 0)
			hd_net_wake((unsigned int)home); /* its turn drops it, counted */
		return true;
	}
	if (r->id != HD_SLOW_ID || lca_msg_alloc(&later) != 0)
		return false;
	lca_msg_keep(m);
	later->type = HD_MSG_SLOW_ANSWER;
	later->ptr = m;
	if (lca_send_after(self, later, HD_SLOW_MS * 1000, NULL) != 0) {
		lca_msg_free(later);
		return false;
	}
	return true;
}
#endif

/* A request from a connection's worker: the same envelope goes back with
 * the record (immutable, read on the worker's lcore) or NULL, as the
 * answer to the worker's ask. */
static void
service_handler(lca_actor_id_t self, void *state, struct lca_msg *m)
{
	struct service_state *s = state;
	const struct hd_user_req *r = (const struct hd_user_req *)m->data;
	int home = lca_actor_lcore(m->from);

#ifdef HD_TEST_SLOW_SERVICE
	if (service_slow(self, m))
		return;
#endif
	(void)self;
	s->answered++;
	if (r->id < s->users) {
		m->ptr = (void *)(uintptr_t)&s->db[r->id];
	} else {
		m->ptr = NULL;
		s->unknown++;
	}
	m->type = HD_MSG_USER_REPLY;
	if (lca_reply(m) != 0)
		return; /* counted by the runtime; the asker gets its timeout */
	if (home >= 0 && (unsigned int)home != rte_lcore_id())
		hd_net_wake((unsigned int)home);
}

/* --- telemetry -------------------------------------------------------------- */

static rte_spinlock_t tel_lock = RTE_SPINLOCK_INITIALIZER;
static bool tel_up;

static int
tel_http(const char *cmd, const char *params, struct rte_tel_data *d)
{
	unsigned int l;

	(void)cmd;
	(void)params;
	rte_spinlock_lock(&tel_lock);
	if (!tel_up) {
		rte_spinlock_unlock(&tel_lock);
		return -ENODEV;
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "open", hd_net_open());
	for (int k = 0; k < HD_N; k++)
		rte_tel_data_add_dict_u64(d, hd_ctr_names[k], hd_net_counter((enum hd_ctr)k));
	RTE_LCORE_FOREACH(l) {
		char name[32];

		snprintf(name, sizeof(name), "open_lcore_%u", l);
		rte_tel_data_add_dict_u64(d, name, hd_net_lcore_open(l));
	}
	rte_spinlock_unlock(&tel_lock);
	return 0;
}

/* --- options ------------------------------------------------------------ */

/* Two words for one mode: "epoll" is sleep's old name. */
static int
opt_idle(void *arg, const struct app_opt *opt, char *val)
{
	struct hd_conf *c = arg;

	(void)opt;
	if (strcmp(val, "sleep") == 0 || strcmp(val, "epoll") == 0)
		c->idle = HD_IDLE_SLEEP;
	else if (strcmp(val, "spin") == 0)
		c->idle = HD_IDLE_SPIN;
	else
		return -EINVAL;
	return 0;
}

static int
opt_service_lcore(void *arg, const struct app_opt *opt, char *val)
{
	struct hd_conf *c = arg;

	(void)opt;
	if (app_cli_uint(val, 0, RTE_MAX_LCORE - 1, &c->service_lcore) < 0)
		return -EINVAL;
	if (!rte_lcore_is_enabled((unsigned int)c->service_lcore)) {
		fprintf(stderr, NAME ": --service-lcore %s is not among the lcores (-l)\n", val);
		return APP_OPT_SAID;
	}
	return 0;
}

#define AT(field) APP_OPT_AT(struct hd_conf, field)
#define UINT(lo, hi) APP_OPT_UINT, .min = (lo), .max = (hi)
#define CHOICES(...) .choices = (const char *const[]){ __VA_ARGS__, NULL }

/* One entry an option: a new option is one more line here. */
static const struct app_opt options[] = {
	{ "bind", 0, APP_OPT_STRING, AT(bind), .metavar = "ADDR",
	  .help = "IPv4 address to listen on (default 127.0.0.1)" },
	{ "port", 0, UINT(0, 65535), AT(port), .metavar = "N",
	  .help = "TCP port (default 8080; 0: any free port, printed)" },
	{ "accept", 0, APP_OPT_ENUM, AT(accept), CHOICES("balance", "reuseport"),
	  .metavar = "MODE",
	  .help = "balance (default): one listening socket on the main\n"
		  "lcore hands each connection to the lcore with the\n"
		  "fewest open; reuseport: one SO_REUSEPORT socket per\n"
		  "lcore, the kernel hashes connections to them" },
	{ "io", 0, APP_OPT_ENUM, AT(io), CHOICES("epoll", "uring", "auto"), .metavar = "MODE",
	  .help = "the socket path: epoll (default): readiness, then a\n"
		  "system call per recv, send and accept; uring: io_uring\n"
		  "(multishot accept and recv into provided buffers, the\n"
		  "iteration's sends in one submit); auto: uring where the\n"
		  "kernel allows it, else epoll (and says so)" },
	{ "idle", 0, APP_OPT_CUSTOM, .parse = opt_idle, .metavar = "MODE",
	  .help = "sleep (default; epoll is its old name): after\n"
		  "--idle-after quiet loops (no actor turn, at most one\n"
		  "event) an lcore waits in the kernel (epoll or the ring)\n"
		  "until its next timer scan (50 ms at most), or, while a\n"
		  "connection of it waits on the service, from\n"
		  "--idle-wait-us, doubling while nothing comes (an event\n"
		  "or a message for it ends the wait); spin: poll always\n"
		  "(100% CPU)" },
	{ "idle-after", 0, UINT(1, 1u << 30), AT(idle_after), .metavar = "N",
	  .help = "quiet loops before an idle wait (default 1: each\n"
		  "empty poll is a system call, so waiting at once costs\n"
		  "the least CPU a request)" },
	{ "idle-wait-us", 0, UINT(1, 100000), AT(idle_wait_us), .metavar = "N",
	  .help = "microseconds: the first idle wait while a connection\n"
		  "waits on the service (doubling after), and the shortest\n"
		  "wait until the next timer scan (default 1000)" },
	{ "max-conns", 0, UINT(1, 1u << 20), AT(max_conns), .metavar = "N",
	  .help = "connections per lcore (default 16384); RLIMIT_NOFILE\n"
		  "is raised to hold them all" },
	{ "request-line-limit", 0, UINT(64, 1024 * 1024), AT(request_line_limit),
	  .metavar = "N", .help = "bytes of the request line; past it: 414 (default 8192)" },
	{ "header-line-limit", 0, UINT(64, 1024 * 1024), AT(header_line_limit),
	  .metavar = "N", .help = "bytes of one header line; past it: 431 (default 8192)" },
	{ "header-limit", 0, UINT(64, 1024 * 1024), AT(header_limit), .metavar = "N",
	  .help = "bytes of all header lines; past it: 431 (default 32768)" },
	{ "max-headers", 0, UINT(1, 10000), AT(max_headers), .metavar = "N",
	  .help = "header lines; past it: 431 (default 100)" },
	{ "max-inflight", 0, UINT(0, 1u << 30), AT(max_inflight), .metavar = "N",
	  .help = "shed load: a request that finds N connections waiting\n"
		  "(on the service, or on a full socket) gets 503 with\n"
		  "Retry-After: 1 (default 0: no bound)" },
	{ "drain-ms", 0, UINT(0, 3600000), AT(drain_ms), .metavar = "MS",
	  .help = "graceful stop on SIGINT/SIGTERM: stop accepting, answer\n"
		  "what is in flight with Connection: close, close idle\n"
		  "connections; what is open after MS is cut and counted\n"
		  "(default 5000; a second signal stops at once)" },
	{ "body-limit", 0, UINT(0, 1ull << 40), AT(body_limit), .metavar = "N",
	  .help = "bytes of request body; past it: 413 (default 1048576)" },
	{ "request-timeout", 0, UINT(1, 3600000), AT(request_timeout_ms), .metavar = "MS",
	  .help = "a request begun and not complete after MS: 408\n(default 10000)" },
	{ "service-timeout", 0, UINT(1, 3600000), AT(service_timeout_ms), .metavar = "MS",
	  .help = "the service's answer to a /user request not in after\nMS: 504 (default 1000)" },
	{ "keepalive-timeout", 0, UINT(1, 3600000), AT(keepalive_ms), .metavar = "MS",
	  .help = "an idle connection is closed after MS (default 60000)" },
	{ "users", 0, UINT(1, 1u << 24), AT(users), .metavar = "N",
	  .help = "records of the service (default 10000)" },
	{ "service-lcore", 0, APP_OPT_CUSTOM, .parse = opt_service_lcore, .metavar = "N",
	  .help = "lcore of the service actor (default: the last one)" },
	{ "duration", 0, UINT(1, UINT32_MAX / 1000), AT(duration_s), .metavar = "SEC",
	  .help = "serve SEC seconds, then report (default: until\nSIGINT/SIGTERM)" },
	{ "backlog", 0, UINT(1, 65535), AT(backlog), .metavar = "N",
	  .help = "listen backlog (default 4096)" },
	{ "access-log", 0, APP_OPT_OUTPUT, AT(access_log), .metavar = "FILE",
	  .help = "append a common-log-format line per answer to FILE\n"
		  "(default: none); a thread writes it, an lcore never\n"
		  "waits: past 8192 lines queued per lcore, dropped, counted;\n"
		  "SIGHUP or SIGUSR1 reopens it" },
	{ "json", 0, APP_OPT_OUTPUT, AT(json_path), .metavar = "FILE",
	  .help = "write the counters as JSON (docs/json.md)" },
	{ NULL },
};

static const struct app_opt_table table = {
	.prog = NAME, .opts = options, .eal = true, .column = 25,
	.about = "HTTP/1.1 server on lcores, kernel TCP sockets polled from each lcore's loop.\n"
		 "Routes: GET / (35-byte text body), GET /user/ID (a record from the service\n"
		 "actor, asked by message), GET /bytes/N (N bytes, at most 8 MiB). HEAD too.\n",
	.footer = "Telemetry: /lcactor/http (connections, requests, answers by status).\n"
		  "GET /metrics: the same, a latency histogram and refusals, in the Prometheus\n"
		  "text format.\n"
		  "Signals: SIGINT, SIGTERM: graceful stop (--drain-ms); a second one stops at\n"
		  "once. SIGHUP, SIGUSR1: reopen the access log at its path (after it was moved\n"
		  "away to rotate it), and serve on; without --access-log, nothing.\n",
};

static int
parse_args(int argc, char **argv, void *arg)
{
	struct hd_conf *c = arg;
	unsigned int last = 0, l;
	struct in_addr a;
	int ret;

	*c = (struct hd_conf){
		.bind = "127.0.0.1", .port = 8080, .accept = HD_ACCEPT_BALANCE,
		.idle = HD_IDLE_SLEEP, .io = HD_IO_EPOLL, .idle_after = 1, .idle_wait_us = 1000,
		.max_conns = 16384, .header_limit = 32768, .body_limit = 1048576,
		.request_line_limit = 8192, .header_line_limit = 8192, .max_headers = 100,
		.drain_ms = 5000,
		.request_timeout_ms = 10000, .service_timeout_ms = 1000, .keepalive_ms = 60000, .users = 10000,
		.service_lcore = UINT64_MAX, .backlog = 4096,
	};
	ret = app_opt_parse(argc, argv, &table, c, NULL);
	if (ret != 0)
		return ret;
	if (inet_pton(AF_INET, c->bind, &a) != 1) {
		fprintf(stderr, NAME ": bad value '%s' for --bind (an IPv4 address)\n", c->bind);
		return -EINVAL;
	}
	RTE_LCORE_FOREACH(l)
		last = l;
	if (c->service_lcore == UINT64_MAX)
		c->service_lcore = last;
	return 0;
}

/* Room for every connection of every lcore, and some for the rest. */
static int
raise_nofile(void)
{
	struct rlimit r;
	rlim_t need = (rlim_t)conf.max_conns * rte_lcore_count() + 1024, was;

	if (getrlimit(RLIMIT_NOFILE, &r) < 0)
		return -errno;
	was = r.rlim_cur;
	if (r.rlim_cur >= need) {
		printf("# RLIMIT_NOFILE: %llu, enough for %" PRIu64 " connections x %u lcores\n",
		       (unsigned long long)r.rlim_cur, conf.max_conns, rte_lcore_count());
		return 0;
	}
	r.rlim_cur = need;
	if (r.rlim_max < need) {
		struct rlimit both = { .rlim_cur = need, .rlim_max = need };

		if (setrlimit(RLIMIT_NOFILE, &both) == 0) {
			printf("# RLIMIT_NOFILE: raised from %llu to %llu (hard limit too) for %"
			       PRIu64 " connections x %u lcores\n", (unsigned long long)was,
			       (unsigned long long)need, conf.max_conns, rte_lcore_count());
			return 0;
		}
		r.rlim_cur = r.rlim_max;
	}
	if (r.rlim_cur > was && setrlimit(RLIMIT_NOFILE, &r) < 0)
		return -errno;
	if (r.rlim_cur < need)
		printf("# RLIMIT_NOFILE: %llu (raised from %llu to the hard limit, which this process "
		       "may not raise): room for about %llu connections, not %" PRIu64 " x %u\n",
		       (unsigned long long)r.rlim_cur, (unsigned long long)was,
		       (unsigned long long)(r.rlim_cur > 1024 ? r.rlim_cur - 1024 : 0), conf.max_conns,
		       rte_lcore_count());
	else
		printf("# RLIMIT_NOFILE: raised from %llu to %llu for %" PRIu64
		       " connections x %u lcores\n", (unsigned long long)was,
		       (unsigned long long)r.rlim_cur, conf.max_conns, rte_lcore_count());
	return 0;
}

static void
print_config(lca_actor_id_t service)
{
	printf("# lca-httpd: listening on %s:%u, %u lcores\n", conf.bind, hd_net_port(),
	       rte_lcore_count());
	if (conf.accept == HD_ACCEPT_BALANCE)
		printf("# accept: balance: one listening socket on lcore %u; each connection goes "
		       "to the lcore with the fewest open (a message to its worker actor)\n",
		       rte_get_main_lcore());
	else
		printf("# accept: reuseport: one SO_REUSEPORT socket per lcore; the kernel hashes "
		       "each connection to one (may be uneven)\n");
	printf("# io: %s\n", hd_net_io() == HD_IO_URING
		? "uring: one io_uring per lcore; multishot accept and recv into provided buffers, "
		  "the iteration's sends in one submit"
		: "epoll: readiness per lcore, then recv, send and accept4 calls");
	if (conf.idle == HD_IDLE_SLEEP)
		printf("# idle: sleep: an lcore polls while it has work; after %" PRIu64
		       " empty loops it waits in %s from %" PRIu64
		       " us, doubling up to 50 ms while nothing comes (an event or a message ends "
		       "the wait), so load generators on the same CPUs get them\n",
		       conf.idle_after, hd_net_io() == HD_IO_URING ? "the ring" : "epoll_pwait2",
		       conf.idle_wait_us);
	else
		printf("# idle: spin: every lcore busy-polls at 100%% CPU%s\n",
		       rte_lcore_count() >= (unsigned int)sysconf(_SC_NPROCESSORS_ONLN)
			       ? " -- as many busy lcores as CPUs: a client on this machine competes "
				 "with them"
			       : "");
	printf("# limits: request line %" PRIu64 " B (414), header line %" PRIu64
	       " B, headers %" PRIu64 " B or %" PRIu64 " lines (431), body %" PRIu64
	       " B (413), request %" PRIu64 " ms (408), service %" PRIu64 " ms (504), keep-alive %" PRIu64 " ms, %" PRIu64
	       " connections per lcore (503 past it and at the fd limit)\n",
	       conf.request_line_limit, conf.header_line_limit, conf.header_limit,
	       conf.max_headers, conf.body_limit, conf.request_timeout_ms, conf.service_timeout_ms,
	       conf.keepalive_ms, conf.max_conns);
	if (conf.max_inflight > 0)
		printf("# shedding: 503 + Retry-After above %" PRIu64 " connections in flight\n",
		       conf.max_inflight);
	else
		printf("# shedding: none (--max-inflight 0)\n");
	printf("# stop: SIGINT/SIGTERM drain up to %" PRIu64 " ms (a second signal: at once)\n",
	       conf.drain_ms);
	printf("# routes: GET / (35 B), GET /user/ID (service actor %u on lcore %d, %" PRIu64
	       " users), GET /bytes/N; telemetry /lcactor/http\n", service,
	       lca_actor_lcore(service), conf.users);
	printf("lca-httpd: ready on port %u\n", hd_net_port());
	fflush(stdout);
}

static int
digits(uint64_t v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* One row a lcore, each column as wide as its name or its widest figure,
 * the figures right-aligned under their names: a column stays a column
 * whatever the counts grow to. */
static void
print_counters(FILE *f)
{
	int width[HD_N + 1];
	unsigned int l;

	width[0] = (int)strlen("open");
	for (int k = 0; k < HD_N; k++)
		width[k + 1] = (int)strlen(hd_ctr_names[k]);
	RTE_LCORE_FOREACH(l) {
		width[0] = RTE_MAX(width[0], digits(hd_net_lcore_open(l)));
		for (int k = 0; k < HD_N; k++)
			width[k + 1] = RTE_MAX(width[k + 1],
					       digits(hd_net_lcore_counter(l, (enum hd_ctr)k)));
	}
	fprintf(f, "%-8s %*s", "lcore", width[0], "open");
	for (int k = 0; k < HD_N; k++)
		fprintf(f, " %*s", width[k + 1], hd_ctr_names[k]);
	fprintf(f, "\n");
	RTE_LCORE_FOREACH(l) {
		fprintf(f, "%-8u %*" PRIu64, l, width[0], hd_net_lcore_open(l));
		for (int k = 0; k < HD_N; k++)
			fprintf(f, " %*" PRIu64, width[k + 1],
				hd_net_lcore_counter(l, (enum hd_ctr)k));
		fprintf(f, "\n");
	}
	fprintf(f, "http:");
	for (int k = 0; k < HD_N; k++)
		fprintf(f, " %s=%" PRIu64, hd_ctr_names[k], hd_net_counter((enum hd_ctr)k));
	fprintf(f, " open=%" PRIu64 "\n", hd_net_open());
}

static json_t *
counters_json(void)
{
	json_t *o = json_object(), *per = json_array();
	unsigned int l;

	for (int k = 0; k < HD_N; k++)
		json_object_set_new(o, hd_ctr_names[k],
				    json_integer((json_int_t)hd_net_counter((enum hd_ctr)k)));
	json_object_set_new(o, "open", json_integer((json_int_t)hd_net_open()));
	json_object_set_new(o, "access_log_written", json_integer((json_int_t)hd_log_written()));
	json_object_set_new(o, "access_log_reopened", json_integer((json_int_t)hd_log_reopened()));
	RTE_LCORE_FOREACH(l) {
		json_t *p = json_pack("{s:i, s:i, s:I}", "lcore", (int)l, "cpu",
				      lca_topo_lcore_cpu(l), "open",
				      (json_int_t)hd_net_lcore_open(l));

		for (int k = 0; k < HD_N; k++)
			json_object_set_new(p, hd_ctr_names[k],
					    json_integer((json_int_t)hd_net_lcore_counter(
						    l, (enum hd_ctr)k)));
		json_array_append_new(per, p);
	}
	json_object_set_new(o, "per_lcore", per);
	return o;
}

/* The record, and the verdict: a server has no floor inside its own run. */
static int
finish(lca_actor_id_t service, const struct app_series *s, bool ok)
{
	json_t *rec = app_result_new(json_pack(
		"{s:s, s:I, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "bind",
		conf.bind, "port", (json_int_t)hd_net_port(), "accept",
		conf.accept == HD_ACCEPT_BALANCE ? "balance" : "reuseport", "idle",
		conf.idle == HD_IDLE_SLEEP ? "sleep" : "spin", "idle_after",
		(json_int_t)conf.idle_after, "idle_wait_us", (json_int_t)conf.idle_wait_us,
		"max_conns", (json_int_t)conf.max_conns, "header_limit",
		(json_int_t)conf.header_limit, "body_limit", (json_int_t)conf.body_limit,
		"request_timeout_ms", (json_int_t)conf.request_timeout_ms, "service_timeout_ms",
		(json_int_t)conf.service_timeout_ms, "keepalive_ms",
		(json_int_t)conf.keepalive_ms, "users", (json_int_t)conf.users, "service_lcore",
		(json_int_t)conf.service_lcore, "duration_s", (json_int_t)conf.duration_s));
	json_t *place = json_object_get(rec, "placement");
	json_t *cj = json_object_get(rec, "conf");
	json_t *result = counters_json();
	unsigned int l;
	int ret;

	if (cj != NULL)
		json_object_update_new(cj, json_pack("{s:I, s:I, s:I, s:I, s:I}", "request_line_limit",
						     (json_int_t)conf.request_line_limit,
						     "header_line_limit",
						     (json_int_t)conf.header_line_limit, "max_headers",
						     (json_int_t)conf.max_headers, "max_inflight",
						     (json_int_t)conf.max_inflight, "drain_ms",
						     (json_int_t)conf.drain_ms));
	if (cj != NULL) {
		json_object_set_new(cj, "io", json_string(hd_net_io() == HD_IO_URING ? "uring" : "epoll"));
		json_object_set_new(cj, "access_log", conf.access_log != NULL
							      ? json_string(conf.access_log)
							      : json_null());
	}
	json_array_append_new(place, json_pack("{s:i, s:i, s:s}", "actor", (int)service, "lcore",
					       lca_actor_lcore(service), "role", "service"));
	RTE_LCORE_FOREACH(l)
		json_array_append_new(place, json_pack("{s:i, s:i, s:s}", "actor",
						       (int)hd_net_worker_actor(l), "lcore", (int)l,
						       "role", "worker"));
	json_object_set_new(result, "name", json_string("http"));
	json_object_set_new(result, "frequency", app_series_freq_json(s));
	json_object_set_new(rec, "frequency", app_series_freq_json(s));
	app_result_add(rec, result);
	app_verdict_add(rec, &(struct app_verdict_row){
		.config = "requests answered", .kind = APP_VERDICT_RATE,
		.score = (double)hd_net_counter(HD_REQUESTS), .ci_half = NAN, .unit = "requests",
		.no_floor_why = "a server's floor is another server: scripts/http-compare.sh "
				"runs nginx beside it",
		.floor_moved_pct = NAN, .window_s = NAN });
	ret = app_result_finish(rec, ok, conf.json_path);
	json_decref(rec);
	return ret;
}

/* The first SIGINT/SIGTERM drains (hd_net.c); a second stops at once. */
static void
on_stop_signal(int sig)
{
	(void)sig;
	if (hd_net_draining())
		lca_eal_request_stop();
	else
		hd_net_drain();
}

static void
catch_stop_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* SIGHUP and SIGUSR1 reopen the access log (nginx's USR1), so that a log
 * rotated by moving it away goes on in a new file: neither stops the
 * server. Taken from the start of the run; before it (EAL's init) SIGHUP
 * is a clean stop, as in every app (eal/lca_eal.c). */
static void
on_reopen_signal(int sig)
{
	(void)sig;
	hd_log_reopen();
}

static void
catch_reopen_signals(void)
{
	struct sigaction sa = { .sa_handler = on_reopen_signal, .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
}

/* How the run ended, and what a drain did; a stop is no failure. */
static int
say_stop(int ret)
{
	double drain = hd_net_drain_end();

	if (drain >= 0 && (ret == 0 || ret == -EINTR))
		printf("lca-httpd: stopped (signal): drained in %.1f ms (--drain-ms %" PRIu64
		       "), %" PRIu64 " idle connections closed, %" PRIu64 " connections cut%s\n",
		       drain, conf.drain_ms, hd_net_counter(HD_DRAIN_IDLE),
		       hd_net_counter(HD_DRAIN_CUT), ret == -EINTR ? " (a second signal)" : "");
	else if (ret == -ETIMEDOUT || ret == -EINTR)
		printf("lca-httpd: stopped (%s)\n", ret == -EINTR ? "signal" : "--duration");
	return ret == -ETIMEDOUT || ret == -EINTR ? 0 : ret;
}

static int
run(void *arg)
{
	struct hd_conf *c = arg;
	/* The hooks wait in epoll when idle; the runtime itself spins. */
	struct lca_runtime_conf rconf = { .idle = LCA_IDLE_SPIN };
	/* Each waiting /user ask holds a timer: one per connection that can
	 * wait (hd_net_start() bounds each lcore's asks), and the default's
	 * room besides. */
	static struct app_series series;
	lca_actor_id_t service = LCA_ACTOR_NONE;
	struct lca_actor_spec sspec = {
		.handler = service_handler,
		.state_size = sizeof(struct service_state),
		.state_init = service_init,
		.lcore = (unsigned int)c->service_lcore,
		.mailbox_size = 16384,
		.throughput = 64,
		.name = "user-service",
	};
	int ret;

	catch_reopen_signals();
	ret = raise_nofile();
	if (ret < 0) {
		fprintf(stderr, NAME ": cannot raise RLIMIT_NOFILE: %s\n", strerror(-ret));
		return ret;
	}
	rconf.max_timers = hd_asks_per_lcore(&conf) * rte_lcore_count() + 4096;
	ret = lca_runtime_init(&rconf);
	if (ret < 0)
		return ret;
	ret = build_db((uint32_t)c->users,
		       (int)rte_lcore_to_socket_id((unsigned int)c->service_lcore));
	if (ret == 0)
		ret = hd_net_init(c);
	if (ret == 0 && c->access_log != NULL && (ret = hd_log_open(c->access_log)) < 0)
		fprintf(stderr, NAME ": cannot open the access log %s: %s\n", c->access_log,
			strerror(-ret));
	if (ret == 0)
		ret = lca_actor_spawn(&sspec, &service);
	if (ret == 0)
		ret = hd_net_start(service);
	if (ret < 0) {
		hd_log_close(stderr);
		hd_net_cleanup();
		rte_free(user_db);
		lca_runtime_cleanup();
		return ret;
	}
	rte_spinlock_lock(&tel_lock);
	tel_up = true;
	rte_spinlock_unlock(&tel_lock);
	rte_telemetry_register_cmd("/lcactor/http", tel_http,
				   "lca-httpd: connections, requests, answers by status. No parameters.");
	app_report_machine(stdout);
	print_config(service);

	catch_stop_signals();
	app_series_begin(&series, "serving", 0);
	ret = lca_runtime_run((unsigned int)(c->duration_s * 1000));
	app_series_end(&series);
	ret = say_stop(ret);
	hd_log_close(stdout);
	rte_spinlock_lock(&tel_lock);
	tel_up = false;
	rte_spinlock_unlock(&tel_lock);

	print_counters(stdout);
	app_report_actors(stdout);
	app_report_lcores(stdout);
	app_report_send_errors(stdout);
	app_series_print_freq(stdout, &series);
	if (finish(service, &series, ret == 0) < 0 && ret == 0)
		ret = -EIO;
	app_series_release(&series);
	hd_net_cleanup();
	lca_runtime_cleanup();
	rte_free(user_db);
	return ret;
}

int
main(int argc, char **argv)
{
	const struct app_spec app = {
		.name = NAME, .parse = parse_args, .opts = &table, .run = run, .conf = &conf,
	};

	return app_main(argc, argv, &app);
}
