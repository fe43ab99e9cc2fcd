/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lca-httpd's io_uring path (--io uring): one ring per lcore, touched only
 * by that lcore. The listener has a multishot accept; each connection a
 * multishot recv that takes its buffers from the lcore's provided-buffer
 * ring, so an idle connection holds no buffer; an answer is copied into a
 * send of its own (struct hd_tx), and the iteration's sends, re-arms and
 * cancels go to the kernel in one io_uring_submit() at the hook's end. The
 * parser, the routes and the timers are the epoll path's (hd_net.c).
 *
 * A request in the ring holds its file: a socket closed with a recv armed
 * would stay open. So every close cancels the connection's requests first,
 * and a send whose connection went away is freed by its completion.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "hd_conn.h"

#ifndef HD_HAVE_URING

int
hd_uring_init(struct hd_worker *w)
{
	(void)w;
	return -ENOTSUP; /* built without liburing */
}

unsigned int hd_uring_poll(struct hd_worker *w) { (void)w; return 0; }
unsigned int hd_uring_wait(struct hd_worker *w, uint64_t us) { (void)w; (void)us; return 0; }
void hd_uring_want(struct hd_worker *w, struct hd_conn *c) { (void)w; (void)c; }
void hd_uring_flush(struct hd_worker *w, struct hd_conn *c) { (void)w; (void)c; }
void hd_uring_closing(struct hd_worker *w, struct hd_conn *c) { (void)w; (void)c; }
void hd_uring_listener_closing(struct hd_worker *w) { (void)w; }
void hd_uring_submit(struct hd_worker *w) { (void)w; }
void hd_uring_exit(struct hd_worker *w) { (void)w; }

#else

#include <liburing.h>

#define RING_SQ 1024
#define RING_CQ 16384
#define BUF_COUNT 256   /* provided buffers per lcore (a power of 2) */
#define BUF_SIZE 16384
#define BUF_GROUP 0
#define CQE_BATCH 64

/* user_data: the kind in the top 4 bits. A recv has its connection, the
 * low 16 bits of its generation and its arm sequence (stale completions of
 * a closed or re-armed one are told apart); a send, its hd_tx pointer. */
enum { K_NONE, K_ACCEPT, K_EVENTFD, K_RECV, K_SEND, K_LISTEN_POLL };
#define KIND_SHIFT 60
#define KIND(ud) ((unsigned int)((ud) >> KIND_SHIFT))
#define PTR_MASK ((UINT64_C(1) << KIND_SHIFT) - 1)

struct hd_ring {
	struct io_uring ring;
	struct io_uring_buf_ring *br;
	char *bufs;
	size_t br_bytes;
	bool accept_armed;
	struct hd_tx *sends; /* in flight, freed at exit if their completion never came */
};

static uint64_t
recv_ud(const struct hd_conn *c, uint32_t id)
{
	return (uint64_t)K_RECV << KIND_SHIFT | (uint64_t)(c->recv_seq & 0xfff) << 48 |
	       (uint64_t)(c->gen & 0xffff) << 32 | id;
}

static struct io_uring_sqe *
sqe_get(struct hd_ring *r)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);

	if (sqe == NULL) { /* the queue is full: hand it over and go on */
		io_uring_submit(&r->ring);
		sqe = io_uring_get_sqe(&r->ring);
	}
	return sqe;
}

static void
cancel(struct hd_ring *r, uint64_t ud)
{
	struct io_uring_sqe *sqe = sqe_get(r);

	if (sqe == NULL)
		return;
	io_uring_prep_cancel64(sqe, ud, 0);
	io_uring_sqe_set_data64(sqe, (uint64_t)K_NONE << KIND_SHIFT);
}

/* The listener: multishot accept; at the fd limit a one-shot poll, so the
 * accept4() path with its reserve fd takes what is queued. */
static void
arm_listener(struct hd_worker *w)
{
	struct hd_ring *r = w->uring;
	struct io_uring_sqe *sqe;

	if (w->lfd < 0 || r->accept_armed || (sqe = sqe_get(r)) == NULL)
		return;
	if (w->at_limit) {
		io_uring_prep_poll_add(sqe, w->lfd, POLLIN);
		io_uring_sqe_set_data64(sqe, (uint64_t)K_LISTEN_POLL << KIND_SHIFT);
	} else {
		io_uring_prep_multishot_accept(sqe, w->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		io_uring_sqe_set_data64(sqe, (uint64_t)K_ACCEPT << KIND_SHIFT);
	}
	r->accept_armed = true;
}

static void
arm_eventfd(struct hd_worker *w)
{
	struct io_uring_sqe *sqe = sqe_get(w->uring);

	if (sqe == NULL)
		return;
	io_uring_prep_poll_multishot(sqe, w->efd, POLLIN);
	io_uring_sqe_set_data64(sqe, (uint64_t)K_EVENTFD << KIND_SHIFT);
}

static int
buffers_init(struct hd_ring *r)
{
	struct io_uring_buf_reg reg = { .ring_entries = BUF_COUNT, .bgid = BUF_GROUP };
	int ret;

	r->br_bytes = BUF_COUNT * sizeof(struct io_uring_buf);
	r->br = mmap(NULL, r->br_bytes, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
	if (r->br == MAP_FAILED) {
		r->br = NULL;
		return -errno;
	}
	r->bufs = malloc((size_t)BUF_COUNT * BUF_SIZE);
	if (r->bufs == NULL)
		return -ENOMEM;
	reg.ring_addr = (uint64_t)(uintptr_t)r->br;
	ret = io_uring_register_buf_ring(&r->ring, &reg, 0);
	if (ret < 0)
		return ret;
	io_uring_buf_ring_init(r->br);
	for (unsigned int i = 0; i < BUF_COUNT; i++)
		io_uring_buf_ring_add(r->br, r->bufs + (size_t)i * BUF_SIZE, BUF_SIZE, (uint16_t)i,
				      io_uring_buf_ring_mask(BUF_COUNT), (int)i);
	io_uring_buf_ring_advance(r->br, BUF_COUNT);
	return 0;
}

static void
ring_free(struct hd_ring *r, bool queue_up)
{
	if (queue_up)
		io_uring_queue_exit(&r->ring);
	if (r->br != NULL)
		munmap(r->br, r->br_bytes);
	free(r->bufs);
	free(r);
}

int
hd_uring_init(struct hd_worker *w)
{
	/* The lcore polls the ring: a completion's task work waits for its
	 * next kernel entry (COOP_TASKRUN) instead of interrupting it, and
	 * the ring's flag says when one is due, which the peek then enters
	 * for (TASKRUN_FLAG, liburing's io_uring_peek_batch_cqe()). */
	struct io_uring_params p = {
		.flags = IORING_SETUP_CQSIZE | IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG,
		.cq_entries = RING_CQ,
	};
	struct hd_ring *r = calloc(1, sizeof(*r));
	int ret;

	if (r == NULL)
		return -ENOMEM;
	ret = io_uring_queue_init_params(RING_SQ, &r->ring, &p);
	if (ret == -EINVAL) { /* a kernel before 5.19 */
		p = (struct io_uring_params){ .flags = IORING_SETUP_CQSIZE, .cq_entries = RING_CQ };
		ret = io_uring_queue_init_params(RING_SQ, &r->ring, &p);
	}
	if (ret < 0) {
		ring_free(r, false);
		return ret;
	}
	ret = buffers_init(r);
	if (ret < 0) {
		ring_free(r, true);
		return ret;
	}
	w->uring = r;
	arm_eventfd(w);
	arm_listener(w);
	ret = io_uring_submit(&r->ring);
	if (ret < 0) {
		w->uring = NULL;
		ring_free(r, true);
		return ret;
	}
	return 0;
}

/* Read as long as the epoll path would: not past OUT_HIGH unsent, not after
 * the peer's end, not when the input saved behind a paused request is
 * already large; a lingering connection reads to drop. */
void
hd_uring_want(struct hd_worker *w, struct hd_conn *c)
{
	struct hd_ring *r = w->uring;
	bool want = c->state == CONN_LINGER ||
		    (c->state == CONN_OPEN && !c->rd_closed && hd_unsent(c) < OUT_HIGH &&
		     (!c->pending || c->in_len < RBUF_SIZE));
	uint32_t id = (uint32_t)(c - w->conns);
	struct io_uring_sqe *sqe;

	if (want && !c->recv_armed && (sqe = sqe_get(r)) != NULL) {
		c->recv_seq++;
		io_uring_prep_recv_multishot(sqe, c->fd, NULL, 0, 0);
		sqe->flags |= IOSQE_BUFFER_SELECT;
		sqe->buf_group = BUF_GROUP;
		io_uring_sqe_set_data64(sqe, recv_ud(c, id));
		c->recv_armed = true;
	} else if (!want && c->recv_armed) {
		cancel(r, recv_ud(c, id));
		c->recv_armed = false;
	}
}

static void
send_queue(struct hd_ring *r, struct hd_conn *c, struct hd_tx *tx)
{
	struct io_uring_sqe *sqe = sqe_get(r);

	if (sqe == NULL)
		return; /* cannot happen after a submit; the scan's timers close it */
	io_uring_prep_send(sqe, c->fd, tx->data + tx->off, tx->len - tx->off, MSG_NOSIGNAL);
	io_uring_sqe_set_data64(sqe, (uint64_t)K_SEND << KIND_SHIFT | (uint64_t)(uintptr_t)tx);
}

/* Hand what is queued to the kernel as one send; one at a time per
 * connection keeps the bytes in order. With nothing left: close if asked. */
void
hd_uring_flush(struct hd_worker *w, struct hd_conn *c)
{
	struct hd_ring *r = w->uring;
	uint32_t n = c->out_len - c->out_off;
	struct hd_tx *tx;

	if (c->tx != NULL)
		return; /* its completion sends the rest */
	if (n == 0) {
		if (c->want_close && !c->pending)
			hd_conn_finish(w, c);
		else
			hd_uring_want(w, c);
		return;
	}
	tx = malloc(sizeof(*tx) + n);
	if (tx == NULL) {
		hd_conn_close(w, c);
		return;
	}
	tx->conn = (uint32_t)(c - w->conns);
	tx->gen = c->gen;
	tx->len = n;
	tx->off = 0;
	memcpy(tx->data, c->out + c->out_off, n);
	c->out_off = c->out_len = 0;
	c->tx = tx;
	tx->prev = NULL;
	tx->next = r->sends;
	if (r->sends != NULL)
		r->sends->prev = tx;
	r->sends = tx;
	send_queue(r, c, tx);
}

static void
tx_free(struct hd_ring *r, struct hd_tx *tx)
{
	if (tx->prev != NULL)
		tx->prev->next = tx->next;
	else
		r->sends = tx->next;
	if (tx->next != NULL)
		tx->next->prev = tx->prev;
	free(tx);
}

static void
on_send(struct hd_worker *w, struct hd_tx *tx, int res)
{
	struct hd_ring *r = w->uring;
	struct hd_conn *c = tx->conn < w->n_conns ? &w->conns[tx->conn] : NULL;

	if (c == NULL || c->state == CONN_FREE || c->gen != tx->gen || c->tx != tx) {
		tx_free(r, tx); /* its connection was closed meanwhile */
		return;
	}
	if (res < 0) { /* EPIPE, ECONNRESET: the peer went away mid-answer */
		c->tx = NULL;
		tx_free(r, tx);
		ctr_add(w, HD_RESETS, 1);
		hd_conn_close(w, c);
		return;
	}
	ctr_add(w, HD_BYTES_OUT, (uint64_t)res);
	tx->off += (uint32_t)res;
	if (tx->off < tx->len) { /* the socket was full: the rest waits for room */
		busy_set(w, &c->wblocked, true);
		send_queue(r, c, tx);
		return;
	}
	c->tx = NULL;
	tx_free(r, tx);
	busy_set(w, &c->wblocked, false);
	hd_uring_flush(w, c); /* what was queued meanwhile, or the close */
}

static void
buffer_return(struct hd_ring *r, unsigned int bid)
{
	io_uring_buf_ring_add(r->br, r->bufs + (size_t)bid * BUF_SIZE, BUF_SIZE, (uint16_t)bid,
			      io_uring_buf_ring_mask(BUF_COUNT), 0);
	io_uring_buf_ring_advance(r->br, 1);
}

static bool
recv_is_current(const struct hd_worker *w, uint64_t ud, struct hd_conn **out)
{
	uint32_t id = (uint32_t)ud;
	struct hd_conn *c;

	if (id >= w->n_conns)
		return false;
	c = &w->conns[id];
	*out = c;
	return c->state != CONN_FREE && ((ud >> 32) & 0xffff) == (c->gen & 0xffff);
}

static void
on_recv(struct hd_worker *w, const struct io_uring_cqe *cqe)
{
	struct hd_ring *r = w->uring;
	struct hd_conn *c = NULL;
	bool has_buf = (cqe->flags & IORING_CQE_F_BUFFER) != 0;
	unsigned int bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
	uint32_t gen;

	if (!recv_is_current(w, cqe->user_data, &c)) {
		if (has_buf)
			buffer_return(r, bid);
		return;
	}
	gen = c->gen;
	if (!(cqe->flags & IORING_CQE_F_MORE) &&
	    ((cqe->user_data >> 48) & 0xfff) == (uint64_t)(c->recv_seq & 0xfff))
		c->recv_armed = false; /* the armed one ended */
	if (cqe->res > 0 && has_buf && c->state == CONN_OPEN) {
		ctr_add(w, HD_BYTES_IN, (uint64_t)cqe->res);
		c->last_active = w->now;
		hd_conn_feed(w, c, r->bufs + (size_t)bid * BUF_SIZE, (size_t)cqe->res);
	}
	if (has_buf)
		buffer_return(r, bid);
	if (c->state == CONN_FREE || c->gen != gen)
		return; /* closed while its input was handled */
	if (cqe->res == 0 || (cqe->res < 0 && cqe->res != -ENOBUFS && cqe->res != -ECANCELED)) {
		if (c->state == CONN_LINGER) {
			c->rd_closed = true;
			hd_conn_close(w, c);
		} else if (cqe->res == 0) {
			hd_conn_eof(w, c);
		} else {
			ctr_add(w, HD_RESETS, 1); /* ECONNRESET and the like */
			hd_conn_close(w, c);
		}
		return;
	}
	if (!c->recv_armed) /* ended for want of buffers, or cancelled: again if wanted */
		hd_uring_want(w, c);
}

static void
on_accept(struct hd_worker *w, const struct io_uring_cqe *cqe)
{
	if (!(cqe->flags & IORING_CQE_F_MORE))
		w->uring->accept_armed = false;
	if (cqe->res >= 0) {
		hd_take_accepted(w, cqe->res); /* one that came as a drain began is served too */
	} else if (cqe->res == -EMFILE || cqe->res == -ENFILE) {
		/* The fd limit: the accept4() path's reserve fd answers what is queued,
		 * and the listener is polled, not accepted from, until there is room. */
		w->at_limit = true;
		ctr_add(w, HD_ACCEPT_FAILS, 1);
		hd_accept_all(w);
	}
	if (!w->uring->accept_armed && !w->draining)
		arm_listener(w);
}

static void
handle_cqe(struct hd_worker *w, const struct io_uring_cqe *cqe)
{
	uint64_t ud = cqe->user_data;

	switch (KIND(ud)) {
	case K_RECV:
		on_recv(w, cqe);
		break;
	case K_SEND:
		on_send(w, (struct hd_tx *)(uintptr_t)(ud & PTR_MASK), cqe->res);
		break;
	case K_ACCEPT:
		on_accept(w, cqe);
		break;
	case K_LISTEN_POLL:
		w->uring->accept_armed = false;
		if (w->lfd >= 0 && !w->draining) {
			hd_accept_all(w);
			arm_listener(w);
		}
		break;
	case K_EVENTFD: {
		uint64_t v;

		if (read(w->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			break;
		if (!(cqe->flags & IORING_CQE_F_MORE))
			arm_eventfd(w);
		break;
	}
	default: /* a cancel's own completion */
		break;
	}
}

unsigned int
hd_uring_poll(struct hd_worker *w)
{
	struct io_uring *ring = &w->uring->ring;
	struct io_uring_cqe *cqes[CQE_BATCH];
	unsigned int n, total = 0;

	do {
		n = io_uring_peek_batch_cqe(ring, cqes, CQE_BATCH);
		for (unsigned int i = 0; i < n; i++)
			handle_cqe(w, cqes[i]);
		io_uring_cq_advance(ring, n);
		total += n;
	} while (n == CQE_BATCH);
	return total;
}

unsigned int
hd_uring_wait(struct hd_worker *w, uint64_t wait_us)
{
	struct __kernel_timespec ts = { .tv_sec = (long long)(wait_us / 1000000),
					.tv_nsec = (long long)(wait_us % 1000000) * 1000 };
	struct io_uring_cqe *cqe;

	io_uring_submit_and_wait_timeout(&w->uring->ring, &cqe, 1, &ts, NULL);
	__atomic_store_n(&w->sleeping, 0, __ATOMIC_RELAXED);
	w->now = rte_rdtsc();
	return hd_uring_poll(w);
}

void
hd_uring_closing(struct hd_worker *w, struct hd_conn *c)
{
	if (c->recv_armed)
		cancel(w->uring, recv_ud(c, (uint32_t)(c - w->conns)));
	c->recv_armed = false;
	if (c->tx != NULL) /* its completion frees it */
		cancel(w->uring, (uint64_t)K_SEND << KIND_SHIFT | (uint64_t)(uintptr_t)c->tx);
	c->tx = NULL;
}

void
hd_uring_listener_closing(struct hd_worker *w)
{
	struct hd_ring *r = w->uring;

	if (!r->accept_armed)
		return;
	cancel(r, (uint64_t)(w->at_limit ? K_LISTEN_POLL : K_ACCEPT) << KIND_SHIFT);
	r->accept_armed = false;
	io_uring_submit(&r->ring); /* the listener closes now, not at the hook's end */
}

void
hd_uring_submit(struct hd_worker *w)
{
	if (io_uring_sq_ready(&w->uring->ring) > 0)
		io_uring_submit(&w->uring->ring);
}

void
hd_uring_exit(struct hd_worker *w)
{
	struct hd_ring *r = w->uring;

	io_uring_queue_exit(&r->ring); /* cancels what is left, and drops its files */
	while (r->sends != NULL)
		tx_free(r, r->sends);
	ring_free(r, false);
	w->uring = NULL;
}

#endif /* HD_HAVE_URING */
