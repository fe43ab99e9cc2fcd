/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Remote actors: peers' lives (docs/wire.md, "Channels": Rejoin). A
 * peer declared dead or gone, heard from first, come back under a new
 * session; the epochs that ended, so that their frames are known stale;
 * and the watchers told of each node down and up again. Both transports
 * call it, through lca_remote_priv.h.
 */
#define LCA_LOG_PART lca_logtype_remote
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_log.h>
#include <rte_spinlock.h>

#include "lca_eal.h"
#include "lca_remote_priv.h"
#include "lca_logtypes_priv.h"

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

uint32_t
rm_session_new(void)
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
		__atomic_store_n(&pe->tx_session, rm_session_new(), __ATOMIC_RELEASE);
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
