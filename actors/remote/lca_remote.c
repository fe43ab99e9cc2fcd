/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Remote actors: the layer both transports share (docs/wire.md).
 *
 * The node table, peer death and its watchers, the delivery of a received
 * record to its actor, and the counters. What carries the records is a
 * transport, a table of operations (struct rm_transport_ops) picked once at
 * lca_remote_start(): ethdev frames (lca_remote_eth.c) or UCX active
 * messages (lca_remote_ucx.c). Its send is lca_send()'s route for remote
 * references (remote_send_hook), with this layer's checks before and after
 * (rm_send_peer(), rm_send_done()). Each transport calls this layer
 * downward; this layer calls a transport only through its table.
 */
#define LCA_LOG_PART lca_logtype_remote
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>

#include "lca_route.h"
#include "lca_eal.h"
#include "lca_lcore.h"
#include "lca_remote_priv.h"
#include "lca_logtypes.h"

struct rm_state rm = { .watch_lock = RTE_SPINLOCK_INITIALIZER };

#define MAX_WINDOW 4096
#define DEF_HB_MS 10
#define DEF_DEAD_MS 1000
#define DEF_CONNECT_MS 10000

/* The transports, by conf.transport. */
static const struct {
	const char *name;
	const struct rm_transport_ops *ops;
} transports[] = {
	[LCA_REMOTE_ETHDEV] = { "ethdev", &rm_eth_ops },
	[LCA_REMOTE_UCX] = { "UCX", &rm_ucx_ops },
};

static bool warned_ptr;

int
rm_payload_refused(lca_actor_id_t to)
{
	if (!warned_ptr) {
		warned_ptr = true;
		LCA_LOG(ERR, "remote send to %#x: a ptr payload crosses to another node only "
			"in an mbuf (lca_msg_from_mbuf()), which declares its size\n", to);
	}
	return -EINVAL;
}

lca_actor_id_t
rm_from_of(uint32_t from)
{
	if (from == LCA_ACTOR_NONE || from < LCA_ACTOR_REMOTE_BASE)
		return LCA_ACTOR_NONE;
	if (lca_remote_node(from) == rm.self.id && !rm.conf.loopback)
		return lca_remote_local(from);
	return from;
}

void
rm_spare_release(struct rm_spare *s)
{
	if (s->n > 0)
		rte_pktmbuf_free_bulk(s->m, s->n);
	s->n = 0;
}

static struct rte_mbuf *
spare_get(struct rm_spare *s)
{
	if (s->n == 0) {
		if (rte_pktmbuf_alloc_bulk(s->pool, s->m, RM_SPARE) != 0)
			return rte_pktmbuf_alloc(s->pool); /* the pool's last few */
		s->n = RM_SPARE;
	}
	return s->m[--s->n];
}

struct rte_mbuf *
rm_mbuf_copy(struct rm_spare *s, const uint8_t *src, uint32_t len)
{
	struct rte_mbuf *head = NULL, *tail = NULL;

	do {
		struct rte_mbuf *m = head == NULL ? spare_get(s) : rte_pktmbuf_alloc(s->pool);
		uint32_t chunk;

		if (m == NULL) {
			rte_pktmbuf_free(head);
			return NULL;
		}
		chunk = RTE_MIN(len, (uint32_t)rte_pktmbuf_tailroom(m));
		if (src != NULL) {
			rte_memcpy(rte_pktmbuf_append(m, (uint16_t)chunk), src, chunk);
			src += chunk;
		} else {
			rte_pktmbuf_append(m, (uint16_t)chunk);
		}
		if (head == NULL) {
			head = m;
		} else {
			tail->next = m;
			head->nb_segs++;
			head->pkt_len += chunk;
		}
		tail = m;
		len -= chunk;
	} while (len > 0);
	return head;
}

/* The actor record @p r is for on this node: its id, the name service's
 * for its alias, or one at or above LCA_ACTOR_REMOTE_BASE when there is
 * none here (a remote id on the wire, or no name service running). */
static inline uint32_t
rec_to(const struct wire_msg *r)
{
	uint32_t to = rte_be_to_cpu_32(r->to);

	return to == RM_NAMES_LOCAL ? rm.names : to;
}

int
rm_rec_send(const struct wire_msg *r, struct lca_msg *e)
{
	uint32_t to = rec_to(r);

	e->type = rte_be_to_cpu_32(r->type);
	if (to >= LCA_ACTOR_REMOTE_BASE)
		return -ESRCH;
	if (unlikely(e->type == LCA_TYPE_UNDELIVERED))
		return lca_send_control(to, e); /* like the runtime's own notices */
	return lca_send_from(rm_from_of(rte_be_to_cpu_32(r->from)), to, e);
}

/* An ask's or a reply's id in record @p r, back where the core keeps it
 * (data[24..32) of @p e, the flag). @return the id's bytes before the
 * payload: WIRE_ID_LEN, or 0 for a record without one. */
static uint32_t
rec_id_restore(const struct wire_msg *r, struct lca_msg *e)
{
	uint16_t flags = rte_be_to_cpu_16(r->flags);
	uint64_t id;

	if (!(flags & WIRE_MSG_F_ID))
		return 0;
	memcpy(&id, r + 1, sizeof(id));
	id = rte_be_to_cpu_64(id);
	memcpy(&e->data[LCA_MSG_INLINE_ASK], &id, sizeof(id));
	e->flags |= (flags & WIRE_MSG_F_ASK) ? LCA_MSG_F_ASK : 0;
	e->flags |= (flags & WIRE_MSG_F_REPLY) ? LCA_MSG_F_REPLY : 0;
	return WIRE_ID_LEN;
}

/* Record @p r's mbuf payload of @p len bytes from @p at: copied, or shared
 * with @p frame (which holds it at offset @p off). */
static struct rte_mbuf *
rec_mbuf(struct rm_spare *spare, struct rte_mbuf *frame, uint32_t off, const uint8_t *at,
	 uint32_t len)
{
	struct rte_mbuf *c;

	/* A small payload is cheaper copied than shared: an indirect mbuf
	 * costs two atomics on the frame's refcount and a detach at its free. */
	if (frame == NULL || len <= RM_COPY_MAX)
		return rm_mbuf_copy(spare, at, len);
	c = rte_pktmbuf_clone(frame, frame->pool);
	if (c != NULL) {
		rte_pktmbuf_adj(c, (uint16_t)off);
		rte_pktmbuf_trim(c, (uint16_t)(c->pkt_len - len));
	}
	return c;
}

/* Record @p r could not be delivered (@p err): tell its sender, when it
 * was an actor and this was not already such a notice. */
static void
undelivered_tell(const struct wire_msg *r, int err)
{
	lca_actor_id_t from = rm_from_of(rte_be_to_cpu_32(r->from));
	struct lca_undelivered u = {
		.to = lca_remote_ref(rm.self.id, rte_be_to_cpu_32(r->to)),
		.type = rte_be_to_cpu_32(r->type),
		.error = err,
	};
	struct lca_msg *n;

	if (from == LCA_ACTOR_NONE || u.type == LCA_TYPE_UNDELIVERED || lca_msg_alloc(&n) != 0)
		return;
	n->type = LCA_TYPE_UNDELIVERED;
	memcpy(n->data, &u, sizeof(u));
	n->len = sizeof(u);
	if (lca_send(from, n) != 0)
		lca_msg_free(n);
}

/* A notice of ours that came back: counted by cause. */
static void
returned_count(const struct lca_msg *e, struct lca_remote_link_stats *st)
{
	struct lca_undelivered u;

	if (e->len < sizeof(u))
		return;
	memcpy(&u, e->data, sizeof(u));
	rm_count(u.error == -EPIPE ? &st->returned_stopped : &st->returned_no_actor, 1);
}

/* Record @p r's message in a new envelope *@p out: its payload copied in,
 * an mbuf payload copied into mbufs from @p spare or shared with @p frame
 * (which holds the record at offset @p off). @return 0, or -ENOBUFS (no
 * envelope, no mbuf: it must wait). */
static int
rec_envelope(const struct wire_msg *r, struct rm_spare *spare, struct rte_mbuf *frame,
	     uint32_t off, struct lca_msg **out)
{
	uint32_t len = rte_be_to_cpu_16(r->len), id_len;
	const uint8_t *payload;
	struct lca_msg *e;

	if (lca_msg_alloc(&e) != 0)
		return -ENOBUFS;
	/* The record check left at least the id's bytes in len. */
	id_len = rec_id_restore(r, e);
	payload = (const uint8_t *)(r + 1) + id_len;
	len -= id_len;
	if (rte_be_to_cpu_16(r->flags) & WIRE_MSG_F_MBUF) {
		struct rte_mbuf *c = rec_mbuf(spare, frame, off + WIRE_MSG_LEN + id_len,
					      payload, len);

		if (c == NULL) {
			lca_msg_free(e);
			rm_count_shared(&rm.st.no_mbuf, 1);
			return -ENOBUFS;
		}
		e->ptr = c;
		e->flags |= LCA_MSG_F_MBUF;
	} else {
		memcpy(e->data, payload, len);
		e->len = (uint16_t)len;
	}
	e->type = rte_be_to_cpu_32(r->type);
	*out = e;
	return 0;
}

/* What a refused record costs: its envelope (and mbuf), a count, and a
 * notice to its sender. */
static void
rec_refused(const struct wire_msg *r, struct lca_msg *e, int err,
	    struct lca_remote_link_stats *st)
{
	lca_msg_free(e); /* and its mbuf */
	rm_count(&st->undeliverable, 1);
	undelivered_tell(r, err);
}

/* Record @p r alone, through rm_rec_send(): a notice that came back, or a
 * record for no local actor. @return 0 or -ENOBUFS, as rm_recs_deliver()'s
 * records. */
static int
rec_deliver_one(const struct wire_msg *r, struct rm_spare *spare, struct rte_mbuf *frame,
		uint32_t off, struct lca_remote_link_stats *st)
{
	struct lca_msg *e;
	int ret = rec_envelope(r, spare, frame, off, &e);

	if (ret != 0)
		return ret;
	if (unlikely(e->type == LCA_TYPE_UNDELIVERED))
		returned_count(e, st);
	ret = rm_rec_send(r, e);
	if (unlikely(ret == -ENOBUFS || ret == -ENOMEM)) {
		lca_msg_free(e);
		return -ENOBUFS;
	}
	if (unlikely(ret != 0))
		rec_refused(r, e, ret, st);
	else
		rm_count(&st->msgs_delivered, 1);
	return 0;
}

/* Records in a row from one sender to one actor, sent as one burst: a ring
 * operation (or a direct turn) a group instead of one a record. */
#define RM_GROUP_MAX 64
struct rec_group {
	lca_actor_id_t from, to;
	unsigned int n;
	struct lca_msg *e[RM_GROUP_MAX];
	uint32_t off[RM_GROUP_MAX]; /* each record's offset in the buffer */
};

/* Send group @p g (its records in @p buf; @p at is the cursor past them).
 * What a full mailbox refuses goes back: the cursor returns to the first
 * of it. @return 0, or -ENOBUFS when the rest must wait. */
static int
group_send(struct rec_group *g, const uint8_t *buf, struct rm_rec_cursor *at, bool rtc,
	   struct lca_remote_link_stats *st)
{
	unsigned int n = g->n, sent;
	int err;

	if (n == 0)
		return 0;
	g->n = 0;
	sent = send_burst_from(g->from, g->to, g->e, n, rtc, &err);
	rm_count(&st->msgs_delivered, sent);
	if (likely(sent == n))
		return 0;
	if (err == -ENOBUFS || err == -ENOMEM) {
		lca_msg_free_bulk(g->e + sent, n - sent);
		at->i = (uint16_t)(at->i - (n - sent));
		at->off = g->off[sent];
		return -ENOBUFS;
	}
	for (unsigned int k = sent; k < n; k++)
		rec_refused((const struct wire_msg *)(buf + g->off[k]), g->e[k], err, st);
	return 0;
}

enum rm_recs_fate
rm_recs_deliver(const uint8_t *buf, uint16_t n_msgs, struct rm_rec_cursor *at,
		struct rm_spare *spare, struct rte_mbuf *frame, bool rtc,
		struct lca_remote_link_stats *st)
{
	struct rec_group g = { .n = 0 };

	while (at->i < n_msgs) {
		const struct wire_msg *r = (const struct wire_msg *)(buf + at->off);
		uint32_t to = rec_to(r);
		lca_actor_id_t from = rm_from_of(rte_be_to_cpu_32(r->from));
		struct lca_msg *e;

		if (rte_be_to_cpu_16(r->flags) & WIRE_MSG_F_FRAG)
			return group_send(&g, buf, at, rtc, st) != 0 ? RM_RECS_WAIT
								     : RM_RECS_FRAG;
		if (g.n > 0 && (to != g.to || from != g.from || g.n == RM_GROUP_MAX) &&
		    group_send(&g, buf, at, rtc, st) != 0)
			return RM_RECS_WAIT;
		if (unlikely(to >= LCA_ACTOR_REMOTE_BASE ||
			     rte_be_to_cpu_32(r->type) == LCA_TYPE_UNDELIVERED)) {
			if (group_send(&g, buf, at, rtc, st) != 0 ||
			    rec_deliver_one(r, spare, frame, at->off, st) != 0)
				return RM_RECS_WAIT;
		} else {
			if (rec_envelope(r, spare, frame, at->off, &e) != 0) {
				group_send(&g, buf, at, rtc, st);
				return RM_RECS_WAIT;
			}
			g.from = from;
			g.to = to;
			g.off[g.n] = at->off;
			g.e[g.n++] = e;
		}
		rm_rec_cursor_step(at, r);
	}
	return group_send(&g, buf, at, rtc, st) != 0 ? RM_RECS_WAIT : RM_RECS_DONE;
}

/* ---- dead peers, and their return ---- */

/* Tell @p watcher that @p target's node is down or up again (@p type). */
static void
node_tell(uint32_t type, lca_actor_id_t watcher, lca_actor_id_t target)
{
	struct lca_terminated t = { .actor = target, .by_supervision = 0 };
	struct lca_msg *m;

	if (lca_msg_alloc(&m) != 0)
		return;
	m->type = type;
	memcpy(m->data, &t, sizeof(t));
	m->len = sizeof(t);
	if (lca_send_control(watcher, m) != 0)
		lca_msg_free(m);
}

static void
watchers_tell(unsigned int p, uint32_t type)
{
	unsigned int node = rm.peers[p].n.id;

	rte_spinlock_lock(&rm.watch_lock);
	for (unsigned int i = 0; i < rm.n_watch; i++)
		if (lca_remote_node(rm.watch[i].target) == node)
			node_tell(type, rm.watch[i].watcher, rm.watch[i].target);
	rte_spinlock_unlock(&rm.watch_lock);
}

static uint32_t
session_new(void)
{
	return (uint32_t)(rte_rdtsc() ^ (rte_rdtsc() >> 32)) | 1u;
}

/* What a rate-limited line adds: how many like it were left out. */
static const char *
quiet_note(uint64_t quiet, char *buf, size_t size)
{
	if (quiet == 0)
		return "";
	snprintf(buf, size, " (%" PRIu64 " more not logged)", quiet);
	return buf;
}

/* The epoch of peer @p p ends (its lock held): kept as ended, its channels
 * made new at their next use; a new session of ours when @p ours_new. */
static void
epoch_end_locked(unsigned int p, bool ours_new)
{
	struct rm_peer *pe = &rm.peers[p];

	if (pe->heard_session != 0)
		pe->old[pe->n_old++ % RM_OLD_EPOCHS] =
			(struct rm_old_epoch){ .theirs = pe->heard_session, .ours = pe->tx_session };
	__atomic_store_n(&pe->heard_session, 0, __ATOMIC_RELEASE);
	if (ours_new)
		__atomic_store_n(&pe->tx_session, session_new(), __ATOMIC_RELEASE);
	__atomic_fetch_add(&pe->epoch, 1, __ATOMIC_RELEASE);
}

/* Peer @p p is down (its lock held), and its epoch ends; a new session of
 * ours when @p ours_new, so that a peer that lives sees that ours ended.
 * @p left: it said it stops (a LEAVE), which is news, not a failure. */
static void
peer_down_locked(unsigned int p, const char *why, bool ours_new, bool left)
{
	struct rm_peer *pe = &rm.peers[p];
	char note[64];
	uint64_t quiet;

	if (__atomic_load_n(&pe->dead, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&pe->dead, 1, __ATOMIC_RELEASE);
	epoch_end_locked(p, ours_new);
	if (rm_log_allowed(&pe->down_log, rte_rdtsc(), &quiet))
		rte_log(left ? RTE_LOG_INFO : RTE_LOG_ERR, LCA_LOG_PART,
			"lcactor: remote: node %u %s: %s; sends to it fail with -EHOSTDOWN; our "
			"session to it %08x%s\n", pe->n.id, left ? "left" : "is dead", why,
			pe->tx_session, quiet_note(quiet, note, sizeof(note)));
	watchers_tell(p, LCA_TYPE_NODE_DOWN);
}

static void
peer_down(unsigned int p, const char *why, bool left)
{
	struct rm_peer *pe = &rm.peers[p];

	if (__atomic_load_n(&pe->dead, __ATOMIC_ACQUIRE))
		return;
	rte_spinlock_lock(&pe->lock);
	peer_down_locked(p, why, true, left);
	rte_spinlock_unlock(&pe->lock);
}

void
rm_peer_dead(unsigned int p, const char *why)
{
	peer_down(p, why, false);
}

void
rm_peer_left(unsigned int p)
{
	peer_down(p, "it stopped (its LEAVE came)", true);
}

/* Peer @p p's session @p session is heard first in this epoch (its lock held). */
static void
peer_heard_locked(unsigned int p, uint32_t session)
{
	struct rm_peer *pe = &rm.peers[p];
	char note[64];
	uint64_t quiet, now = rte_rdtsc();

	__atomic_store_n(&pe->heard_session, session, __ATOMIC_RELEASE);
	if (rm_log_allowed(&pe->heard_log, now, &quiet))
		LCA_LOG(INFO, "remote: link to node %u up: its first frame (session %08x) came %" PRIu64
			" ms after our start%s\n", pe->n.id, session,
			(now - rm.start_tsc) * 1000 / rte_get_tsc_hz(),
			quiet_note(quiet, note, sizeof(note)));
}

/* Whether a frame of @p session that heard @p echo of ours is of an epoch
 * that ended. One that heard none of ours (0) is when any ended epoch had
 * its session: it was sent before the peer heard us in that one. */
static bool
epoch_ended(const struct rm_peer *pe, uint32_t session, uint32_t echo)
{
	for (unsigned int i = 0; i < RTE_MIN(pe->n_old, (unsigned int)RM_OLD_EPOCHS); i++)
		if (pe->old[i].theirs == session && (echo == 0 || pe->old[i].ours == echo))
			return true;
	return false;
}

/* Peer @p p is up again under @p session (its lock held). */
static void
peer_rejoined_locked(unsigned int p, uint32_t session)
{
	struct rm_peer *pe = &rm.peers[p];
	char note[64];
	uint64_t quiet;

	peer_heard_locked(p, session);
	if (rm_log_allowed(&pe->rejoin_log, rte_rdtsc(), &quiet))
		LCA_LOG(INFO, "remote: node %u rejoined (session %08x): sends to it go again%s\n",
			pe->n.id, session, quiet_note(quiet, note, sizeof(note)));
	__atomic_store_n(&pe->dead, 0, __ATOMIC_RELEASE);
	watchers_tell(p, LCA_TYPE_NODE_UP);
}

enum rm_frame_fate
rm_peer_frame_slow(unsigned int p, uint32_t session, uint32_t echo)
{
	struct rm_peer *pe = &rm.peers[p];
	enum rm_frame_fate f = RM_FRAME_TAKE;

	rte_spinlock_lock(&pe->lock);
	if (session == 0 || (echo != 0 && echo != pe->tx_session) ||
	    epoch_ended(pe, session, echo)) {
		f = RM_FRAME_STALE;
	} else if (session == pe->heard_session) {
		/* Of this epoch, from a peer that has not heard us yet. */
	} else if (pe->heard_session == 0 && !pe->dead) {
		peer_heard_locked(p, session);
	} else if (pe->dead) {
		peer_rejoined_locked(p, session);
	} else {
		/* It restarted, or ended the epoch: ours stays, and our next
		 * frames, which heard its new session, are its answer. */
		peer_down_locked(p, "a new session (it restarted, or declared us dead)", false, false);
		peer_rejoined_locked(p, session);
	}
	rte_spinlock_unlock(&pe->lock);
	return f;
}

struct rm_epoch_view
rm_peer_epoch_get(unsigned int p)
{
	struct rm_peer *pe = &rm.peers[p];
	struct rm_epoch_view v;

	rte_spinlock_lock(&pe->lock);
	v.epoch = pe->epoch;
	v.ours = pe->tx_session;
	v.theirs = pe->heard_session;
	rte_spinlock_unlock(&pe->lock);
	return v;
}

/* Node @p i of @p c: what its transport needs of it. */
static int
node_check(const struct lca_remote_conf *c, unsigned int i)
{
	static const uint8_t no_mac[6];
	const struct lca_remote_node *n = &c->nodes[i];

	if (n->id >= LCA_REMOTE_NODE_MAX) {
		LCA_LOG(ERR, "remote: node id %u (0 .. %u)\n", n->id, LCA_REMOTE_NODE_MAX - 1);
		return -EINVAL;
	}
	for (unsigned int j = 0; j < i; j++)
		if (c->nodes[j].id == n->id) {
			LCA_LOG(ERR, "remote: node %u twice in the table\n", n->id);
			return -EINVAL;
		}
	if (n->udp_base == 0 || n->n_lcores > LCA_REMOTE_MAX_LCORES) {
		LCA_LOG(ERR, "remote: node %u: udp_base %u, %u lcores\n", n->id, n->udp_base,
			n->n_lcores);
		return -EINVAL;
	}
	if ((n->id != c->self || c->loopback) && n->n_lcores == 0) {
		LCA_LOG(ERR, "remote: node %u lists no lcores\n", n->id);
		return -EINVAL;
	}
	/* Frames to 0.0.0.0 or from 00:00:00:00:00:00 reach nobody: a node
	 * without its addresses is refused rather than started mute. */
	if (n->ipv4 == 0 ||
	    (c->transport == LCA_REMOTE_ETHDEV && memcmp(n->mac, no_mac, sizeof(no_mac)) == 0)) {
		LCA_LOG(ERR, "remote: node %u has no %s (needed over %s)\n", n->id,
			n->ipv4 == 0 ? "ipv4 address" : "MAC address",
			transports[c->transport].name);
		return -EINVAL;
	}
	return 0;
}

static int
conf_check(const struct lca_remote_conf *c)
{
	bool self = false;
	int ret;

	if ((unsigned int)c->transport >= RTE_DIM(transports)) {
		LCA_LOG(ERR, "remote: transport %d (ethdev %d or ucx %d)\n", (int)c->transport,
			LCA_REMOTE_ETHDEV, LCA_REMOTE_UCX);
		return -EINVAL;
	}
	if (c->n_nodes == 0 || c->n_nodes > LCA_REMOTE_MAX_NODES) {
		LCA_LOG(ERR, "remote: %u nodes (1 .. %u)\n", c->n_nodes, LCA_REMOTE_MAX_NODES);
		return -EINVAL;
	}
	if (c->window != 0 && (c->window > MAX_WINDOW || !rte_is_power_of_2(c->window))) {
		LCA_LOG(ERR, "remote: window %u is not a power of two up to %u\n", c->window,
			MAX_WINDOW);
		return -EINVAL;
	}
	if (c->mtu != 0 && (c->mtu < 128 || c->mtu > 9000)) {
		LCA_LOG(ERR, "remote: mtu %u (128 .. 9000)\n", c->mtu);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < c->n_nodes; i++) {
		ret = node_check(c, i);
		if (ret != 0)
			return ret;
		self |= c->nodes[i].id == c->self;
	}
	if (!self) {
		LCA_LOG(ERR, "remote: this node (%u) is not in the table\n", c->self);
		return -EINVAL;
	}
	/* Else each transport's start allocates channels for no peer, and
	 * fails with a bare -ENOMEM. */
	if (c->n_nodes == 1 && !c->loopback) {
		LCA_LOG(ERR, "remote: node %u has no peer: the table lists only this node (add "
			     "a node for each peer, or set loopback)\n", c->self);
		return -EINVAL;
	}
	return 0;
}

/* The conf's shared timers (the transport reads its own at its start). */
static void
timers_set(const struct lca_remote_conf *conf)
{
	uint64_t hz = rte_get_tsc_hz();

	rm.hb = (conf->heartbeat_ms ? conf->heartbeat_ms : DEF_HB_MS) * hz / 1000;
	rm.dead = (conf->dead_ms ? conf->dead_ms : DEF_DEAD_MS) * hz / 1000;
	rm.connect = (conf->connect_ms ? conf->connect_ms : DEF_CONNECT_MS) * hz / 1000;
	rm.session = session_new();
}

/* The node table: this node on the runtime's lcores, and the peers (our
 * own node too in a loopback), each with its first channel index. */
static void
nodes_take(const struct lca_remote_conf *conf)
{
	unsigned int lcore, n_chan = 0;

	rm.n_lcores = 0;
	LCA_LCORE_FOREACH(lcore)
		rm.lcores[rm.n_lcores++] = lcore;
	rm.n_peers = 0;
	for (unsigned int i = 0; i < LCA_REMOTE_NODE_MAX; i++)
		rm.peer_of_node[i] = -1;
	for (unsigned int i = 0; i < conf->n_nodes; i++) {
		const struct lca_remote_node *n = &conf->nodes[i];
		struct rm_peer *pe = &rm.peers[rm.n_peers];

		if (n->id == conf->self) {
			rm.self = *n;
			rm.self.n_lcores = 0;
			for (unsigned int j = 0; j < rm.n_lcores && j < LCA_REMOTE_MAX_LCORES; j++)
				rm.self.lcores[rm.self.n_lcores++] = (uint16_t)rm.lcores[j];
			if (!conf->loopback)
				continue;
		}
		pe->n = n->id == conf->self ? rm.self : *n;
		pe->chan_base = n_chan;
		pe->dead = 0;
		pe->heard_session = 0;
		pe->epoch = 0;
		pe->tx_session = rm.session;
		pe->n_old = 0;
		pe->down_log = pe->heard_log = pe->rejoin_log = (struct rm_log_limit){ 0 };
		rte_spinlock_init(&pe->lock);
		n_chan += pe->n.n_lcores;
		rm.peer_of_node[n->id] = (int16_t)rm.n_peers;
		rm.n_peers++;
	}
}

int
lca_remote_start(const struct lca_remote_conf *conf)
{
	int ret;

	if (conf == NULL)
		return -EINVAL;
	if (rm.up)
		return -EEXIST;
	if (lca_lcore_running())
		return -EBUSY;
	ret = conf_check(conf);
	if (ret != 0)
		return ret;
	memset(&rm.conf, 0, sizeof(rm.conf));
	rm.conf = *conf;
	rm.n_watch = 0;
	memset(&rm.st, 0, sizeof(rm.st));
	timers_set(conf);
	nodes_take(conf);
	rm.ops = transports[conf->transport].ops;
	rm.names = LCA_ACTOR_NONE;
	ret = rm.ops->start();
	if (ret == 0)
		ret = rm_names_start();
	if (ret != 0) {
		rm.up = true; /* so that stop undoes what was done */
		lca_remote_stop();
		return ret;
	}
	rm_telemetry_register();
	remote_send_hook = rm.ops->send;
	rm.up = true;
	LCA_LOG(INFO, "remote: node %u up over %s (session %08x): %u peers, window %u, frame %u "
		"bytes, %s; each link is up once its peer's first frame comes\n",
		rm.self.id, transports[conf->transport].name, rm.session, rm.n_peers, rm.window,
		rm.frame_cap, conf->has_key ? "tagged (key)" : "untagged (no key)");
	return 0;
}

int
lca_remote_stop(void)
{
	if (!rm.up)
		return 0;
	if (lca_lcore_running())
		return -EBUSY;
	remote_send_hook = NULL;
	rm_names_stop();
	rm.ops->stop();
	rm.up = false;
	LCA_LOG(DEBUG, "remote: node %u down (lca_remote_stop)\n", rm.self.id);
	return 0;
}

int
lca_remote_self(void)
{
	return rm.up ? rm.self.id : -ESRCH;
}

bool
lca_remote_idle(void)
{
	return !rm.up || rm.ops->idle();
}

bool
lca_remote_node_up(unsigned int node)
{
	int p;

	if (!rm.up || node >= LCA_REMOTE_NODE_MAX)
		return false;
	if (node == rm.self.id && !rm.conf.loopback)
		return true;
	p = rm.peer_of_node[node];
	return p >= 0 && !__atomic_load_n(&rm.peers[p].dead, __ATOMIC_RELAXED);
}

int
lca_remote_watch(lca_actor_id_t watcher, lca_actor_id_t target)
{
	unsigned int node;
	int p, ret = 0;
	bool dead;

	if (!rm.up || !lca_actor_alive(watcher) || !lca_remote_is_ref(target))
		return -ESRCH;
	node = lca_remote_node(target);
	p = node < LCA_REMOTE_NODE_MAX ? rm.peer_of_node[node] : -1;
	if (p < 0)
		return -ESRCH;
	rte_spinlock_lock(&rm.watch_lock);
	if (rm.n_watch == RM_WATCH_MAX)
		ret = -ENOSPC;
	else
		rm.watch[rm.n_watch++] = (struct rm_watch){ .watcher = watcher, .target = target };
	dead = __atomic_load_n(&rm.peers[p].dead, __ATOMIC_ACQUIRE);
	rte_spinlock_unlock(&rm.watch_lock);
	if (ret == 0 && dead)
		node_tell(LCA_TYPE_NODE_DOWN, watcher, target);
	return ret;
}

void
rm_stats_add(struct lca_remote_link_stats *o, const struct lca_remote_link_stats *s)
{
	const uint64_t *a = (const uint64_t *)s;
	uint64_t *b = (uint64_t *)o;

	/* Every field but the last (dead) is a uint64_t counter. */
	for (size_t i = 0; i < offsetof(struct lca_remote_link_stats, dead) / sizeof(uint64_t);
	     i++)
		b[i] += __atomic_load_n(&a[i], __ATOMIC_RELAXED);
	o->dead |= __atomic_load_n(&s->dead, __ATOMIC_RELAXED);
	o->connected |= __atomic_load_n(&s->connected, __ATOMIC_RELAXED);
}

int
lca_remote_link_stats_get(unsigned int node, struct lca_remote_link_stats *out)
{
	int p;

	if (out == NULL)
		return -EINVAL;
	if (!rm.up || node >= LCA_REMOTE_NODE_MAX || (p = rm.peer_of_node[node]) < 0)
		return -ESRCH;
	memset(out, 0, sizeof(*out));
	rm.ops->link_stats((unsigned int)p, out);
	out->dead |= __atomic_load_n(&rm.peers[p].dead, __ATOMIC_RELAXED);
	return 0;
}

int
lca_remote_stats_get(struct lca_remote_stats *out)
{
	if (out == NULL)
		return -EINVAL;
	out->malformed = __atomic_load_n(&rm.st.malformed, __ATOMIC_RELAXED);
	out->unknown_peer = __atomic_load_n(&rm.st.unknown_peer, __ATOMIC_RELAXED);
	out->not_for_us = __atomic_load_n(&rm.st.not_for_us, __ATOMIC_RELAXED);
	out->no_mbuf = __atomic_load_n(&rm.st.no_mbuf, __ATOMIC_RELAXED);
	out->tx_refused = __atomic_load_n(&rm.st.tx_refused, __ATOMIC_RELAXED);
	out->tx_no_envelope = __atomic_load_n(&rm.st.tx_no_envelope, __ATOMIC_RELAXED);
	out->bad_tag = __atomic_load_n(&rm.st.bad_tag, __ATOMIC_RELAXED);
	out->link_downs = __atomic_load_n(&rm.st.link_downs, __ATOMIC_RELAXED);
	out->links_down = __atomic_load_n(&rm.st.links_down, __ATOMIC_RELAXED);
	return 0;
}
