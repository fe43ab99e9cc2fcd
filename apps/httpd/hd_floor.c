/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lca-httpd-floor: the socket path alone, as a floor for lca-httpd and
 * nginx (issue 25: "judge speed against a floor measured in the same run").
 *
 * One thread a CPU, each pinned, with its own SO_REUSEPORT listener and its
 * own epoll set, level-triggered: accept4, read, count the requests (each
 * ends at an empty line; no parsing, no routing, no headers read), write the
 * same fixed answer once a request in one send, keep the connection. No
 * runtime, no parser, no timers, no accounting: what a server on this
 * kernel's TCP and epoll cannot go below. It answers any request with 200,
 * so it is a floor, never a server.
 *
 *   lca-httpd-floor --port P [--cpus 0,1] [--bytes N]
 *
 * --port 0 takes a free port, which the first line says.
 *
 * --bytes makes the whole answer (head and body) N bytes, to match another
 * server's (scripts/http-compare.sh passes lca-httpd's). SIGINT or SIGTERM
 * stops it: exit 0.
 */
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define FLOOR_MAX_CPUS 64
#define FLOOR_MAX_FDS 65536
#define FLOOR_READ 16384
#define FLOOR_ANSWER_MAX 4096

static const char request_end[] = "\r\n\r\n";

struct floor_conf {
	int port;
	int cpus[FLOOR_MAX_CPUS];
	int n_cpus;
	char answer[FLOOR_ANSWER_MAX];
	size_t answer_len;
};

/* What a connection keeps between reads: how much of "\r\n\r\n" the last
 * read ended in, so that an end cut between two reads still counts. */
static unsigned char matched[FLOOR_MAX_FDS];
static volatile sig_atomic_t stopping;

static void
on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

/* Requests that end in @p buf, given @p *state bytes of the end matched
 * before it; @p *state is left as the match at its last byte. */
static unsigned int
count_ends(const char *buf, size_t len, unsigned char *state)
{
	unsigned int n = 0, m = *state;

	for (size_t i = 0; i < len; i++) {
		if (buf[i] == request_end[m])
			m++;
		else
			m = buf[i] == '\r' ? 1 : 0;
		if (m == 4) {
			n++;
			m = 0;
		}
	}
	*state = (unsigned char)m;
	return n;
}

/* A listener on 127.0.0.1:@p port (0: the kernel's choice, which the
 * other threads then share through SO_REUSEPORT); @p *bound is its port. */
static int
listener(int port, int *bound)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);

	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 4096) != 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
		fprintf(stderr, "lca-httpd-floor: listen on 127.0.0.1:%d: %s\n", port,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*bound = ntohs(a.sin_port);
	return fd;
}

static void
conn_close(int ep, int fd)
{
	epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
	close(fd);
}

/* Read what @p fd has; answer each whole request. */
static void
conn_serve(const struct floor_conf *c, int ep, int fd, char *buf, char *out)
{
	for (;;) {
		ssize_t r = read(fd, buf, FLOOR_READ);
		unsigned int n;
		size_t len = 0;

		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
			conn_close(ep, fd);
			return;
		}
		if (r < 0)
			return;
		n = count_ends(buf, (size_t)r, &matched[fd]);
		while (n > 0) {
			unsigned int k = n < FLOOR_READ / c->answer_len ? n : FLOOR_READ / c->answer_len;

			for (unsigned int i = 0; i < k; i++, len += c->answer_len)
				memcpy(out + len, c->answer, c->answer_len);
			/* A floor: a short write is rare at these sizes, and
			 * the connection is dropped rather than buffered. */
			if (write(fd, out, len) != (ssize_t)len) {
				conn_close(ep, fd);
				return;
			}
			len = 0;
			n -= k;
		}
		if (r < FLOOR_READ)
			return;
	}
}

struct worker {
	const struct floor_conf *c;
	int cpu;
	int lfd;
	int status;
};

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	struct epoll_event ev = { .events = EPOLLIN }, evs[256];
	static __thread char buf[FLOOR_READ], out[FLOOR_READ];
	cpu_set_t set;
	int ep = epoll_create1(0);

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	ev.data.fd = w->lfd;
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, w->lfd, &ev) != 0) {
		fprintf(stderr, "lca-httpd-floor: epoll: %s\n", strerror(errno));
		w->status = 1;
		return NULL;
	}
	while (!stopping) {
		int n = epoll_wait(ep, evs, 256, 100);

		for (int i = 0; i < n; i++) {
			int fd = evs[i].data.fd;

			if (fd != w->lfd) {
				conn_serve(w->c, ep, fd, buf, out);
				continue;
			}
			for (;;) {
				int one = 1, cfd = accept4(w->lfd, NULL, NULL, SOCK_NONBLOCK);

				if (cfd < 0)
					break;
				if (cfd >= FLOOR_MAX_FDS) {
					close(cfd);
					continue;
				}
				setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
				matched[cfd] = 0;
				ev.data.fd = cfd;
				if (epoll_ctl(ep, EPOLL_CTL_ADD, cfd, &ev) != 0)
					close(cfd);
			}
		}
	}
	close(ep);
	return NULL;
}

static int
parse_cpus(const char *s, struct floor_conf *c)
{
	char *end;

	c->n_cpus = 0;
	for (;;) {
		long v = strtol(s, &end, 10);

		if (end == s || v < 0 || v >= CPU_SETSIZE || c->n_cpus == FLOOR_MAX_CPUS)
			return -1;
		c->cpus[c->n_cpus++] = (int)v;
		if (*end == '\0')
			return 0;
		if (*end != ',')
			return -1;
		s = end + 1;
	}
}

/* The answer: a 200 with a plain-text body, padded to @p bytes in all
 * when @p bytes is not 0. */
static int
make_answer(struct floor_conf *c, long bytes)
{
	static const char body[] = "Hello from lca-httpd-floor";
	const char *fmt = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n\r\n";
	size_t body_len = sizeof(body) - 1;

	for (int round = 0; round < 3; round++) {
		int head = snprintf(c->answer, sizeof(c->answer), fmt, body_len);

		if (bytes == 0 || (long)head + (long)body_len == bytes)
			break;
		if (bytes <= head)
			return -1;
		body_len = (size_t)(bytes - head);
	}
	c->answer_len = (size_t)snprintf(c->answer, sizeof(c->answer), fmt, body_len);
	if (c->answer_len + body_len >= sizeof(c->answer) ||
	    (bytes != 0 && (long)(c->answer_len + body_len) != bytes))
		return -1;
	for (size_t i = 0; i < body_len; i++)
		c->answer[c->answer_len + i] = i < sizeof(body) - 1 ? body[i] : 'x';
	c->answer_len += body_len;
	return 0;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: lca-httpd-floor --port P [--cpus LIST] [--bytes N]\n"
		   "  the socket path alone (epoll, SO_REUSEPORT, a thread a CPU), answering every\n"
		   "  request with one fixed 200: a floor for lca-httpd and nginx, never a server\n"
		   "  --port P     listen on 127.0.0.1:P (required; 0: a free port, printed)\n"
		   "  --cpus LIST  one thread pinned to each CPU of LIST (default 0)\n"
		   "  --bytes N    the whole answer, head and body, N bytes (default: as it is)\n");
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' }, { "cpus", required_argument, NULL, 'c' },
		{ "bytes", required_argument, NULL, 'b' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct floor_conf c = { .port = -1, .cpus = { 0 }, .n_cpus = 1 };
	struct worker w[FLOOR_MAX_CPUS];
	pthread_t t[FLOOR_MAX_CPUS];
	long bytes = 0;
	char *end;
	int opt, status = 0;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			c.port = (int)strtol(optarg, &end, 10);
			if (*end != '\0' || c.port < 0 || c.port > 65535) {
				fprintf(stderr, "lca-httpd-floor: --port %s: 0 to 65535\n", optarg);
				return 2;
			}
			break;
		case 'c':
			if (parse_cpus(optarg, &c) != 0) {
				fprintf(stderr, "lca-httpd-floor: --cpus %s: CPU numbers, by commas\n",
					optarg);
				return 2;
			}
			break;
		case 'b':
			bytes = strtol(optarg, &end, 10);
			if (*end != '\0' || bytes <= 0 || bytes >= FLOOR_ANSWER_MAX) {
				fprintf(stderr, "lca-httpd-floor: --bytes %s: 1 to %d\n", optarg,
					FLOOR_ANSWER_MAX - 1);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc || c.port < 0) {
		fprintf(stderr, "lca-httpd-floor: %s\n",
			optind < argc ? "unexpected argument" : "--port is required");
		usage(stderr);
		return 2;
	}
	if (make_answer(&c, bytes) != 0) {
		fprintf(stderr, "lca-httpd-floor: --bytes %ld: too short for the head\n", bytes);
		return 2;
	}
	signal(SIGINT, on_stop);
	signal(SIGTERM, on_stop);
	signal(SIGPIPE, SIG_IGN);
	for (int i = 0; i < c.n_cpus; i++) {
		w[i] = (struct worker){ .c = &c, .cpu = c.cpus[i], .lfd = listener(c.port, &c.port) };
		if (w[i].lfd < 0)
			return 1;
	}
	printf("lca-httpd-floor: 127.0.0.1:%d, %d thread(s), answer %zu bytes\n", c.port, c.n_cpus,
	       c.answer_len);
	fflush(stdout);
	for (int i = 0; i < c.n_cpus; i++)
		if (pthread_create(&t[i], NULL, worker_main, &w[i]) != 0) {
			fprintf(stderr, "lca-httpd-floor: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < c.n_cpus; i++) {
		pthread_join(t[i], NULL);
		status |= w[i].status;
		close(w[i].lfd);
	}
	return status;
}
