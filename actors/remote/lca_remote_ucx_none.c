/* SPDX-License-Identifier: BSD-3-Clause */
/* The UCX transport in a build without UCX (meson did not find libucx-dev):
 * a start that says so. */
#define LCA_LOG_PART lca_logtype_remote
#include <errno.h>

#include "lca_eal.h"
#include "lca_remote_priv.h"
#include "lca_logtypes_priv.h"

static int
ux_start(void)
{
	LCA_LOG(ERR, "remote: this build has no UCX (libucx-dev was not found by meson): "
		     "the ucx transport is not available\n");
	return -ENOTSUP;
}

static void
ux_stop(void)
{
}

static unsigned int
ux_send(lca_actor_id_t from, lca_actor_id_t to, struct lca_msg **msgs, unsigned int n,
	int *err)
{
	RTE_SET_USED(from);
	RTE_SET_USED(to);
	RTE_SET_USED(msgs);
	RTE_SET_USED(n);
	/* Never the route: the start failed. */
	return rm_send_done(0, -ESRCH, err);
}

static bool
ux_idle(void)
{
	return true;
}

static void
ux_link_stats(unsigned int peer, struct lca_remote_link_stats *out)
{
	RTE_SET_USED(peer);
	RTE_SET_USED(out);
}

const struct rm_transport_ops rm_ucx_ops = {
	.start = ux_start,
	.stop = ux_stop,
	.send = ux_send,
	.idle = ux_idle,
	.link_stats = ux_link_stats,
};
