/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What an operator reads from lca-httpd: the access log and /metrics.
 *
 * The access log never blocks a loop: each lcore puts a fixed-size record
 * into its own single-producer rte_ring and goes on; a plain pthread (not
 * an EAL lcore, so it takes no lcore from the runtime) drains the rings,
 * formats the common log format and writes the file. A full ring drops the
 * record and counts it (access_log_dropped): a slow disk costs log lines,
 * never latency.
 *
 * /metrics is the Prometheus text exposition format 0.0.4, built from the
 * lcores' counters at the time of the scrape.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>

#include <http_parser.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "httpd.h"
#include "lca_eal.h"

#define LOG_RING_SIZE 8192 /* records per lcore: past it, dropped */
#define LOG_BURST 64
#define LOG_IDLE_NS 5000000L /* the writer's nap when every ring is empty */

bool hd_log_on;

static struct rte_ring *log_rings[RTE_MAX_LCORE];
static FILE *log_file;
static const char *log_path;
static pthread_t log_thread;
static int log_stop;
static int log_reopen_asked; /* set by the signal handler */
static uint64_t log_written;
static uint64_t log_reopened;

const double hd_lat_le[HD_LAT_BUCKETS - 1] = {
	0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
	0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
};

bool
hd_log_put(unsigned int lcore, struct hd_log_rec *r)
{
	return rte_ring_sp_enqueue_elem(log_rings[lcore], r, sizeof(*r)) == 0;
}

/* The request line as CLF's "%r": quotes, backslashes and bytes outside
 * printable ASCII escaped as \xHH, as nginx does. */
static void
put_request_line(FILE *f, const struct hd_log_rec *r)
{
	if (r->method == HD_LOG_NO_METHOD) {
		fputc('-', f);
		return;
	}
	fprintf(f, "%s ", http_method_str((enum http_method)r->method));
	for (unsigned int i = 0; i < r->url_len; i++) {
		unsigned char ch = (unsigned char)r->url[i];

		if (ch < 0x20 || ch >= 0x7f || ch == '"' || ch == '\\')
			fprintf(f, "\\x%02X", ch);
		else
			fputc(ch, f);
	}
	if (r->url_cut)
		fputs("...", f);
	fprintf(f, " HTTP/%u.%u", r->version / 10, r->version % 10);
}

/* host ident authuser [date] "request" status bytes */
static void
put_clf(FILE *f, const struct hd_log_rec *r)
{
	char host[INET_ADDRSTRLEN] = "-", when[40];
	struct in_addr a = { .s_addr = r->peer };
	time_t t = (time_t)r->time_s;
	struct tm tm;

	if (r->peer != 0)
		inet_ntop(AF_INET, &a, host, sizeof(host));
	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%d/%b/%Y:%H:%M:%S +0000", &tm);
	fprintf(f, "%s - - [%s] \"", host, when);
	put_request_line(f, r);
	if (r->bytes > 0)
		fprintf(f, "\" %u %" PRIu64 "\n", r->status, r->bytes);
	else
		fprintf(f, "\" %u -\n", r->status);
}

/* Take what every ring holds; the number of records written. */
static unsigned int
log_drain_once(void)
{
	struct hd_log_rec recs[LOG_BURST];
	unsigned int total = 0, l;

	for (l = 0; l < RTE_MAX_LCORE; l++) {
		unsigned int n;

		if (log_rings[l] == NULL)
			continue;
		do {
			n = rte_ring_sc_dequeue_burst_elem(log_rings[l], recs, sizeof(recs[0]),
							   LOG_BURST, NULL);
			for (unsigned int i = 0; i < n; i++)
				put_clf(log_file, &recs[i]);
			total += n;
		} while (n == LOG_BURST);
	}
	return total;
}

void
hd_log_reopen(void)
{
	__atomic_store_n(&log_reopen_asked, 1, __ATOMIC_RELEASE);
}

uint64_t
hd_log_reopened(void)
{
	return __atomic_load_n(&log_reopened, __ATOMIC_RELAXED);
}

/* The writer's own: the lines before go to the old file, flushed; when the
 * path cannot be opened the old file stays, so no line is lost. */
static void
log_reopen_now(void)
{
	FILE *f;

	fflush(log_file);
	f = fopen(log_path, "a");
	if (f == NULL) {
		LCA_LOG(ERR, "lca-httpd: cannot reopen the access log %s (%s): "
			"writing on to the file already open\n", log_path, strerror(errno));
		return;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	fclose(log_file);
	log_file = f;
	__atomic_store_n(&log_reopened, log_reopened + 1, __ATOMIC_RELAXED);
}

static void *
log_writer(void *arg)
{
	(void)arg;
	for (;;) {
		bool stopping = __atomic_load_n(&log_stop, __ATOMIC_ACQUIRE) != 0;
		unsigned int n;

		if (__atomic_exchange_n(&log_reopen_asked, 0, __ATOMIC_ACQ_REL) != 0)
			log_reopen_now();
		n = log_drain_once();

		__atomic_store_n(&log_written, log_written + n, __ATOMIC_RELAXED);
		if (n == 0) {
			struct timespec nap = { .tv_nsec = LOG_IDLE_NS };

			fflush(log_file);
			if (stopping) /* the loops have stopped: nothing comes after this pass */
				break;
			nanosleep(&nap, NULL);
		}
	}
	return NULL;
}

int
hd_log_open(const char *path)
{
	unsigned int l;
	int ret;

	log_file = fopen(path, "a");
	if (log_file == NULL)
		return -errno;
	setvbuf(log_file, NULL, _IOFBF, 1 << 16);
	RTE_LCORE_FOREACH(l) {
		char name[RTE_RING_NAMESIZE];

		snprintf(name, sizeof(name), "hd_log_%u", l);
		log_rings[l] = rte_ring_create_elem(name, sizeof(struct hd_log_rec), LOG_RING_SIZE,
						    (int)rte_lcore_to_socket_id(l),
						    RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (log_rings[l] == NULL)
			return -rte_errno;
	}
	ret = pthread_create(&log_thread, NULL, log_writer, NULL);
	if (ret != 0)
		return -ret;
	log_path = path;
	hd_log_on = true;
	return 0;
}

uint64_t
hd_log_written(void)
{
	return __atomic_load_n(&log_written, __ATOMIC_RELAXED);
}

void
hd_log_close(FILE *report)
{
	unsigned int l;

	if (hd_log_on) {
		__atomic_store_n(&log_stop, 1, __ATOMIC_RELEASE);
		pthread_join(log_thread, NULL);
		fprintf(report, "# access log %s: %" PRIu64 " lines written, %" PRIu64
			" dropped (an lcore's ring of %u was full), reopened %" PRIu64 " times\n",
			log_path, hd_log_written(), hd_net_counter(HD_LOG_DROPPED), LOG_RING_SIZE,
			hd_log_reopened());
		hd_log_on = false;
	}
	if (log_file != NULL)
		fclose(log_file);
	log_file = NULL;
	for (l = 0; l < RTE_MAX_LCORE; l++) {
		rte_ring_free(log_rings[l]);
		log_rings[l] = NULL;
	}
}

/* --- /metrics --------------------------------------------------------------- */

struct text {
	char *buf;
	size_t len, cap;
	bool failed;
};

static void __attribute__((format(printf, 2, 3)))
put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = t->cap - t->len;

		va_start(ap, fmt);
		n = vsnprintf(t->buf + t->len, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->failed = true;
			return;
		}
		if ((size_t)n < room)
			break;
		char *p = realloc(t->buf, t->cap * 2 + (size_t)n);

		if (p == NULL) {
			t->failed = true;
			return;
		}
		t->buf = p;
		t->cap = t->cap * 2 + (size_t)n;
	}
	t->len += (size_t)n;
}

static void
family(struct text *t, const char *name, const char *type, const char *help)
{
	put(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void
one(struct text *t, const char *name, const char *type, const char *help, uint64_t v)
{
	family(t, name, type, help);
	put(t, "%s %" PRIu64 "\n", name, v);
}

static void
responses(struct text *t)
{
	static const struct { int code; enum hd_ctr k; } codes[] = {
		{ 100, HD_S100 }, { 200, HD_S200 }, { 400, HD_S400 }, { 404, HD_S404 },
		{ 405, HD_S405 }, { 408, HD_S408 }, { 413, HD_S413 }, { 414, HD_S414 },
		{ 431, HD_S431 }, { 501, HD_S501 }, { 503, HD_S503 }, { 504, HD_S504 },
		{ 505, HD_S505 },
	};

	family(t, "lca_http_responses_total", "counter",
	       "Answers sent, by status code (100 Continue included; 503 of every cause).");
	for (unsigned int i = 0; i < RTE_DIM(codes); i++)
		put(t, "lca_http_responses_total{code=\"%d\"} %" PRIu64 "\n", codes[i].code,
		    hd_net_counter(codes[i].k));
}

static void
latency(struct text *t)
{
	uint64_t counts[HD_LAT_BUCKETS], cum = 0;
	double sum_s;

	hd_net_latency(counts, &sum_s);
	family(t, "lca_http_request_duration_seconds", "histogram",
	       "From the loop iteration that read a request's first byte to its answer "
	       "being ready (final answers only).");
	for (unsigned int i = 0; i < HD_LAT_BUCKETS; i++) {
		cum += counts[i];
		if (i + 1 < HD_LAT_BUCKETS)
			put(t, "lca_http_request_duration_seconds_bucket{le=\"%g\"} %" PRIu64 "\n",
			    hd_lat_le[i], cum);
		else
			put(t, "lca_http_request_duration_seconds_bucket{le=\"+Inf\"} %" PRIu64 "\n",
			    cum);
	}
	put(t, "lca_http_request_duration_seconds_sum %.9f\n", sum_s);
	put(t, "lca_http_request_duration_seconds_count %" PRIu64 "\n", cum);
}

static void
refusals(struct text *t)
{
	family(t, "lca_http_refused_total", "counter",
	       "Connections or requests turned away with 503, by cause: fd_limit (the reserve "
	       "fd), table_full (--max-conns), shed (--max-inflight).");
	put(t, "lca_http_refused_total{reason=\"fd_limit\"} %" PRIu64 "\n",
	    hd_net_counter(HD_REFUSED_FD));
	put(t, "lca_http_refused_total{reason=\"table_full\"} %" PRIu64 "\n",
	    hd_net_counter(HD_REFUSED));
	put(t, "lca_http_refused_total{reason=\"shed\"} %" PRIu64 "\n", hd_net_counter(HD_SHED));
	family(t, "lca_http_malformed_total", "counter",
	       "Requests refused for framing that another parser could read another way, by "
	       "cause: header_name (400), obs_fold (400), unknown_method (501); the connection "
	       "is closed after the answer.");
	put(t, "lca_http_malformed_total{reason=\"header_name\"} %" PRIu64 "\n",
	    hd_net_counter(HD_BAD_NAME));
	put(t, "lca_http_malformed_total{reason=\"obs_fold\"} %" PRIu64 "\n",
	    hd_net_counter(HD_OBS_FOLD));
	put(t, "lca_http_malformed_total{reason=\"unknown_method\"} %" PRIu64 "\n",
	    hd_net_counter(HD_BAD_METHOD));
}

char *
hd_metrics_text(size_t *len)
{
	struct text t = { .buf = malloc(8192), .cap = 8192 };

	if (t.buf == NULL)
		return NULL;
	one(&t, "lca_http_requests_total", "counter", "Complete requests parsed.",
	    hd_net_counter(HD_REQUESTS));
	responses(&t);
	latency(&t);
	one(&t, "lca_http_connections_open", "gauge", "Connections open now.", hd_net_open());
	one(&t, "lca_http_connections_accepted_total", "counter", "Connections accepted.",
	    hd_net_counter(HD_ACCEPTED));
	one(&t, "lca_http_connections_closed_total", "counter", "Connections closed.",
	    hd_net_counter(HD_CLOSED));
	refusals(&t);
	one(&t, "lca_http_accept_fails_total", "counter",
	    "accept calls that failed for want of an fd.", hd_net_counter(HD_ACCEPT_FAILS));
	one(&t, "lca_http_access_log_dropped_total", "counter",
	    "Access log records dropped because an lcore's ring was full.",
	    hd_net_counter(HD_LOG_DROPPED));
	one(&t, "lca_http_access_log_written_total", "counter", "Access log lines written.",
	    hd_log_written());
	one(&t, "lca_http_received_bytes_total", "counter", "Bytes read from clients.",
	    hd_net_counter(HD_BYTES_IN));
	one(&t, "lca_http_sent_bytes_total", "counter", "Bytes sent to clients.",
	    hd_net_counter(HD_BYTES_OUT));
	if (t.failed) {
		free(t.buf);
		return NULL;
	}
	*len = t.len;
	return t.buf;
}
