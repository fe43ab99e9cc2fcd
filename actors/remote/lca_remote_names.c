/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Names on other nodes: lca_remote_lookup() asks a node's name service, an
 * actor each node spawns at lca_remote_start(). Its address is a local id no
 * actor has (RM_NAMES_LOCAL), which the record delivery turns into the
 * service's id (rm_rec_send()), so that no node needs to know another's
 * actor ids to find them. The request and the answer are an ask and its
 * reply: the request id and the timeout are lca_ask()'s.
 */
#include <errno.h>
#include <string.h>

#include "lca_remote_priv.h"

/* The request: the name's bytes, no NUL, as the whole inline payload. */
#define LCA_TYPE_NAME_LOOKUP (LCA_TYPE_SYSTEM + 17)

_Static_assert(LCA_REMOTE_NAME_MAX <= LCA_MSG_INLINE_ASK, "a name fits beside its id");
_Static_assert(sizeof(struct lca_remote_name) <= LCA_MSG_INLINE_ASK, "an answer fits beside its id");

static void
names_handler(lca_actor_id_t self, void *state, struct lca_msg *m)
{
	struct lca_remote_name ans = { .actor = LCA_ACTOR_NONE };
	char name[LCA_REMOTE_NAME_MAX + 1];
	lca_actor_id_t local;

	(void)self;
	(void)state;
	/* Anything else is no question: the runtime frees it. */
	if (m->type != LCA_TYPE_NAME_LOOKUP || !(m->flags & LCA_MSG_F_ASK) ||
	    (m->flags & LCA_MSG_F_MBUF) || m->len == 0 || m->len > LCA_REMOTE_NAME_MAX)
		return;
	memcpy(name, m->data, m->len);
	name[m->len] = '\0';
	ans.error = lca_actor_lookup(name, &local);
	if (ans.error == 0)
		ans.actor = lca_remote_ref(rm.self.id, local);
	m->type = LCA_TYPE_REMOTE_NAME;
	m->len = sizeof(ans);
	memcpy(m->data, &ans, sizeof(ans));
	/* An answer that cannot go (the asker's node down) leaves the asker
	 * with its timeout. */
	lca_reply(m);
}

int
rm_names_start(void)
{
	struct lca_actor_spec spec = {
		.handler = names_handler,
		.lcore = rm.lcores[0],
		.mailbox_size = 256,
		.throughput = 32,
		.name = "lca-remote-names",
		.pinned = true,
	};

	return lca_actor_spawn(&spec, &rm.names);
}

void
rm_names_stop(void)
{
	if (rm.names != LCA_ACTOR_NONE)
		lca_actor_stop(rm.names);
	rm.names = LCA_ACTOR_NONE;
}

int
lca_remote_lookup(lca_actor_id_t from, unsigned int node, const char *name, uint64_t timeout_us,
		  uint64_t *req_id)
{
	struct lca_msg *m;
	size_t len;
	int ret;

	if (name == NULL || name[0] == '\0')
		return -EINVAL;
	len = strnlen(name, LCA_REMOTE_NAME_MAX + 1);
	if (len > LCA_REMOTE_NAME_MAX)
		return -ENAMETOOLONG;
	if (!rm.up || node >= LCA_REMOTE_NODE_MAX)
		return -ESRCH;
	ret = lca_msg_alloc(&m);
	if (ret != 0)
		return ret;
	m->type = LCA_TYPE_NAME_LOOKUP;
	m->len = (uint16_t)len;
	memcpy(m->data, name, len);
	ret = lca_ask(from, lca_remote_ref(node, RM_NAMES_LOCAL), m, timeout_us, req_id);
	if (ret != 0)
		lca_msg_free(m);
	return ret;
}
