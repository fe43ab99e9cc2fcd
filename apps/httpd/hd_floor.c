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
 *   lca-httpd-floor --port P [--cpus 0,1] [--bytes N] [--io epoll|uring]
 *
 * --port 0 takes a free port, which the first line says.
 *
 * --bytes makes the whole answer (head and body) N bytes, to match another
 * server's (scripts/http-compare.sh passes lca-httpd's). SIGINT, SIGTERM or SIGHUP
 * stops it: exit 0. --io uring is the same over io_uring (worker_uring()),
 * as lca-httpd's --io uring is to its epoll path.
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
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#ifdef HD_HAVE_URING
#include <liburing.h>
#endif

#define FLOOR_MAX_CPUS 64
#define FLOOR_MAX_FDS 65536
#define FLOOR_READ 16384
#define FLOOR_ANSWER_MAX 4096

static const char request_end[] = "\r\n\r\n";

struct floor_conf {
	int port;
	int cpus[FLOOR_MAX_CPUS];
	int n_cpus;
	bool uring;
	char answer[FLOOR_ANSWER_MAX];
	size_t answer_len;
	/* io_uring: the answer over and over, so that k answers are one
	 * send of k * answer_len bytes from here. */
	char *answers;
	unsigned int answers_n;
};

/* What a connection keeps between reads: how much of "\r\n\r\n" the last
 * read ended in, so that an end cut between two reads still counts. */
static __thread unsigned char matched[FLOOR_MAX_FDS];
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

static void
worker_epoll(struct worker *w)
{
	struct epoll_event ev = { .events = EPOLLIN }, evs[256];
	static __thread char buf[FLOOR_READ], out[FLOOR_READ];
	int ep = epoll_create1(0);

	ev.data.fd = w->lfd;
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, w->lfd, &ev) != 0) {
		fprintf(stderr, "lca-httpd-floor: epoll: %s\n", strerror(errno));
		w->status = 1;
		return;
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
}

#ifdef HD_HAVE_URING
/*
 * The same floor over io_uring, one ring a thread: a multishot accept, a
 * multishot recv a connection into a ring of provided buffers, and one
 * send at a time a connection from the repeated answer (what came while
 * it was out goes in the next). A submit-and-wait a loop.
 */
#define U_ENTRIES 4096
#define U_BUFS 4096 /* a power of 2 */
#define U_BUF_SIZE 2048
#define U_BGID 7

enum { U_ACCEPT = 1, U_RECV, U_SEND };

/* Per connection, by fd: answers due, and whether a send is out. */
static __thread unsigned int u_due[FLOOR_MAX_FDS];
static __thread bool u_sending[FLOOR_MAX_FDS];

struct u_thread {
	struct io_uring ring;
	struct io_uring_buf_ring *br;
	char *bufs;
	const struct floor_conf *c;
	int lfd;
};

/* A request's user data: its type in the top 8 bits, its fd in the next 24
 * (below FLOOR_MAX_FDS), a send's length in the low 32. */
static inline uint64_t
u_data(unsigned int type, int fd, uint32_t len)
{
	return (uint64_t)type << 56 | (uint64_t)(uint32_t)fd << 32 | len;
}

static struct io_uring_sqe *
u_sqe(struct u_thread *u)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

	if (sqe == NULL) { /* full: hand over what is queued, then take one */
		io_uring_submit(&u->ring);
		sqe = io_uring_get_sqe(&u->ring);
	}
	return sqe;
}

static void
u_accept(struct u_thread *u)
{
	struct io_uring_sqe *sqe = u_sqe(u);

	io_uring_prep_multishot_accept(sqe, u->lfd, NULL, NULL, 0);
	io_uring_sqe_set_data64(sqe, u_data(U_ACCEPT, u->lfd, 0));
}

static void
u_recv(struct u_thread *u, int fd)
{
	struct io_uring_sqe *sqe = u_sqe(u);

	io_uring_prep_recv_multishot(sqe, fd, NULL, 0, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = U_BGID;
	io_uring_sqe_set_data64(sqe, u_data(U_RECV, fd, 0));
}

/* What @p fd is due, from @p off into the repeated answer. */
static void
u_send(struct u_thread *u, int fd, uint32_t off, uint32_t len)
{
	struct io_uring_sqe *sqe = u_sqe(u);

	io_uring_prep_send(sqe, fd, u->c->answers + off, len - off, MSG_NOSIGNAL);
	io_uring_sqe_set_data64(sqe, u_data(U_SEND, fd, len));
	u_sending[fd] = true;
}

static void
u_send_due(struct u_thread *u, int fd)
{
	unsigned int k = u_due[fd] < u->c->answers_n ? u_due[fd] : u->c->answers_n;

	if (k == 0 || u_sending[fd])
		return;
	u_due[fd] -= k;
	u_send(u, fd, 0, (uint32_t)(k * u->c->answer_len));
}

static void
u_cqe(struct u_thread *u, const struct io_uring_cqe *cqe)
{
	unsigned int type = (unsigned int)(cqe->user_data >> 56);
	int fd = (int)((cqe->user_data >> 32) & 0xffffff), res = cqe->res;
	bool more = cqe->flags & IORING_CQE_F_MORE;

	switch (type) {
	case U_ACCEPT:
		if (res >= 0 && res < FLOOR_MAX_FDS) {
			int one = 1;

			setsockopt(res, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			matched[res] = 0;
			u_due[res] = 0;
			u_sending[res] = false;
			u_recv(u, res);
		} else if (res >= 0) {
			close(res);
		}
		if (!more)
			u_accept(u);
		return;
	case U_RECV:
		if (res > 0) {
			unsigned int bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
			char *b = u->bufs + (size_t)bid * U_BUF_SIZE;

			u_due[fd] += count_ends(b, (size_t)res, &matched[fd]);
			io_uring_buf_ring_add(u->br, b, U_BUF_SIZE, (unsigned short)bid,
					      io_uring_buf_ring_mask(U_BUFS), 0);
			io_uring_buf_ring_advance(u->br, 1);
			u_send_due(u, fd);
			if (!more)
				u_recv(u, fd);
		} else if (res == -ENOBUFS) {
			u_recv(u, fd); /* the buffers ran out for a moment */
		} else if (!more) {
			close(fd); /* end of stream, or an error: the recv is over */
		}
		return;
	case U_SEND:
		u_sending[fd] = false;
		if (res > 0 && (uint32_t)res < (uint32_t)cqe->user_data)
			u_send(u, fd, (uint32_t)res, (uint32_t)cqe->user_data);
		else if (res > 0)
			u_send_due(u, fd);
		return; /* an error: the recv ends the connection */
	}
}

static int
u_setup(struct u_thread *u)
{
	struct io_uring_params p = {
		.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
	};
	struct io_uring_buf_reg reg = { .ring_entries = U_BUFS, .bgid = U_BGID };
	int ret = io_uring_queue_init_params(U_ENTRIES, &u->ring, &p);

	if (ret == -EINVAL) { /* a kernel before 6.1 */
		memset(&p, 0, sizeof(p));
		ret = io_uring_queue_init_params(U_ENTRIES, &u->ring, &p);
	}
	if (ret < 0) {
		fprintf(stderr, "lca-httpd-floor: io_uring_queue_init: %s\n", strerror(-ret));
		return -1;
	}
	u->br = mmap(NULL, U_BUFS * sizeof(struct io_uring_buf), PROT_READ | PROT_WRITE,
		     MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
	u->bufs = malloc((size_t)U_BUFS * U_BUF_SIZE);
	if (u->br == MAP_FAILED || u->bufs == NULL) {
		fprintf(stderr, "lca-httpd-floor: no memory for the provided buffers\n");
		return -1;
	}
	io_uring_buf_ring_init(u->br);
	reg.ring_addr = (uint64_t)(uintptr_t)u->br;
	ret = io_uring_register_buf_ring(&u->ring, &reg, 0);
	if (ret < 0) {
		fprintf(stderr, "lca-httpd-floor: io_uring_register_buf_ring: %s\n",
			strerror(-ret));
		return -1;
	}
	for (unsigned int i = 0; i < U_BUFS; i++)
		io_uring_buf_ring_add(u->br, u->bufs + (size_t)i * U_BUF_SIZE, U_BUF_SIZE,
				      (unsigned short)i, io_uring_buf_ring_mask(U_BUFS), (int)i);
	io_uring_buf_ring_advance(u->br, U_BUFS);
	return 0;
}

static void
worker_uring(struct worker *w)
{
	struct __kernel_timespec tick = { .tv_sec = 0, .tv_nsec = 100 * 1000 * 1000 };
	struct u_thread u = { .c = w->c, .lfd = w->lfd };

	if (u_setup(&u) != 0) {
		w->status = 1;
		return;
	}
	u_accept(&u);
	while (!stopping) {
		struct io_uring_cqe *cqe;
		unsigned int head, n = 0;
		int ret = io_uring_submit_and_wait_timeout(&u.ring, &cqe, 1, &tick, NULL);

		if (ret < 0 && ret != -ETIME && ret != -EINTR) {
			fprintf(stderr, "lca-httpd-floor: io_uring: %s\n", strerror(-ret));
			w->status = 1;
			break;
		}
		io_uring_for_each_cqe(&u.ring, head, cqe) {
			u_cqe(&u, cqe);
			n++;
		}
		io_uring_cq_advance(&u.ring, n);
	}
	io_uring_queue_exit(&u.ring);
	free(u.bufs);
}
#endif

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
#ifdef HD_HAVE_URING
	if (w->c->uring) {
		worker_uring(w);
		return NULL;
	}
#endif
	worker_epoll(w);
	return NULL;
}

/* The answer @p c->answers_n times over, for the io_uring sends. */
static int
make_answers(struct floor_conf *c)
{
	c->answers_n = FLOOR_READ / c->answer_len;
	c->answers = malloc(c->answers_n * c->answer_len);
	if (c->answers == NULL)
		return -1;
	for (unsigned int i = 0; i < c->answers_n; i++)
		memcpy(c->answers + (size_t)i * c->answer_len, c->answer, c->answer_len);
	return 0;
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
	fprintf(f, "usage: lca-httpd-floor --port P [--cpus LIST] [--bytes N] [--io epoll|uring]\n"
		   "  the socket path alone (epoll, SO_REUSEPORT, a thread a CPU), answering every\n"
		   "  request with one fixed 200: a floor for lca-httpd and nginx, never a server\n"
		   "  --port P     listen on 127.0.0.1:P (required; 0: a free port, printed)\n"
		   "  --cpus LIST  one thread pinned to each CPU of LIST (default 0)\n"
		   "  --bytes N    the whole answer, head and body, N bytes (default: as it is)\n"
		   "  --io epoll   level-triggered epoll, read and write (the default)\n"
		   "  --io uring   io_uring: multishot accept and recv, provided buffers, one send\n"
		   "               at a time a connection%s\n",
#ifdef HD_HAVE_URING
		"");
#else
		" (not in this build: no liburing)");
#endif
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' }, { "cpus", required_argument, NULL, 'c' },
		{ "bytes", required_argument, NULL, 'b' }, { "io", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
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
		case 'i':
			if (strcmp(optarg, "epoll") != 0 && strcmp(optarg, "uring") != 0) {
				fprintf(stderr, "lca-httpd-floor: --io %s: epoll or uring\n", optarg);
				return 2;
			}
			c.uring = strcmp(optarg, "uring") == 0;
#ifndef HD_HAVE_URING
			if (c.uring) {
				fprintf(stderr, "lca-httpd-floor: --io uring: not in this build "
					"(built without liburing)\n");
				return 2;
			}
#endif
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
	if (make_answers(&c) != 0) {
		fprintf(stderr, "lca-httpd-floor: no memory\n");
		return 1;
	}
	signal(SIGINT, on_stop);
	signal(SIGTERM, on_stop);
	signal(SIGHUP, on_stop); /* as the other apps: a clean stop, not a kill */
	signal(SIGPIPE, SIG_IGN);
	for (int i = 0; i < c.n_cpus; i++) {
		w[i] = (struct worker){ .c = &c, .cpu = c.cpus[i], .lfd = listener(c.port, &c.port) };
		if (w[i].lfd < 0)
			return 1;
	}
	printf("lca-httpd-floor: 127.0.0.1:%d, %d thread(s), answer %zu bytes, %s\n", c.port,
	       c.n_cpus, c.answer_len, c.uring ? "io_uring" : "epoll");
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
	free(c.answers);
	return status;
}
