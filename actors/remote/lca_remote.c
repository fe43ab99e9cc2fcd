/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Remote actors: the layer both transports share (docs/wire.md).
 *
 * The node table, the delivery of a received record to its actor, and the
 * counters (peers' lives and their watchers: lca_remote_peer.c). What
 * carries the records is a transport, a table of operations (struct
 * rm_transport_ops) picked once at lca_remote_start(): ethdev frames
 * (lca_remote_eth.c) or UCX active messages (lca_remote_ucx.c). Its send is lca_send()'s route for remote
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

#include "lca_route_priv.h"
#include "lca_eal.h"
#include "lca_lcore.h"
#include "lca_remote_priv.h"
#include "lca_logtypes_priv.h"

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
	rm.session = rm_session_new();
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
