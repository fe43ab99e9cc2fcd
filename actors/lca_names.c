/* SPDX-License-Identifier: BSD-3-Clause */
/* The names of the actor layer's options, for command lines and reports;
 * and what an actor costs in memory, to check before spawning many. */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ring.h>

#include "lca_actor_priv.h"

static const char *const mailbox_names[] = {
	[LCA_MAILBOX_MP] = "mp",
	[LCA_MAILBOX_SP] = "sp",
	[LCA_MAILBOX_RTS] = "rts",
	[LCA_MAILBOX_HTS] = "hts",
};

static const char *const dispatcher_names[] = {
	[LCA_DISPATCH_AFFINITY] = "affinity",
	[LCA_DISPATCH_SHARED] = "shared",
};

static int
parse_name(const char *const *names, unsigned int n, const char *name)
{
	if (name == NULL)
		return -EINVAL;
	for (unsigned int i = 0; i < n; i++)
		if (strcmp(name, names[i]) == 0)
			return (int)i;
	return -EINVAL;
}

const char *
lca_mailbox_mode_name(enum lca_mailbox_mode m)
{
	return (unsigned int)m < RTE_DIM(mailbox_names) ? mailbox_names[m] : "?";
}

int
lca_mailbox_mode_parse(const char *name, enum lca_mailbox_mode *out)
{
	int i = parse_name(mailbox_names, RTE_DIM(mailbox_names), name);

	if (i < 0 || out == NULL)
		return -EINVAL;
	*out = (enum lca_mailbox_mode)i;
	return 0;
}

const char *
lca_dispatcher_name(enum lca_dispatcher d)
{
	return (unsigned int)d < RTE_DIM(dispatcher_names) ? dispatcher_names[d] : "?";
}

int
lca_dispatcher_parse(const char *name, enum lca_dispatcher *out)
{
	int i = parse_name(dispatcher_names, RTE_DIM(dispatcher_names), name);

	if (i < 0 || out == NULL)
		return -EINVAL;
	*out = (enum lca_dispatcher)i;
	return 0;
}

/* The actor's record, its mailbox ring and its state, each an rte_malloc
 * element with its header and alignment (measured: 1088 bytes for a
 * stateless actor with a mailbox of 2, this estimate 1088). */
size_t
lca_actor_footprint(const struct lca_actor_spec *spec)
{
	unsigned int mb, pq;

	if (spec == NULL)
		return 0;
	mb = spec->mailbox_size ? spec->mailbox_size : LCA_MAILBOX_DEFAULT;
	pq = spec->packet_queue_size ? spec->packet_queue_size : LCA_PACKET_QUEUE_DEFAULT;
	return sizeof(struct lca_actor) + rte_ring_get_memsize(rte_align32pow2(mb + 1)) +
	       (spec->on_packets != NULL ? rte_ring_get_memsize(rte_align32pow2(pq + 1)) : 0) +
	       spec->state_size + 4 * RTE_CACHE_LINE_SIZE;
}
