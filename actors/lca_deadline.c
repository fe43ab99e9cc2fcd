/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-message deadlines. The envelope has no spare field, so a deadline
 * takes the last 8 bytes of data[] and a flag says it is there: a message
 * without one costs its turn nothing until the first deadline is set in the
 * process (deadlines_used), and one flag test after. A message past its
 * deadline when its turn comes is freed unhandled and counted in the
 * receiver's `expired`.
 */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>

#include "lca_actor_priv.h"
#include "lca_cycles_priv.h"
#include "lca_deadline_priv.h"

bool deadlines_used;

int
lca_msg_set_deadline(struct lca_msg *msg, uint64_t tsc)
{
	if (msg == NULL)
		return -EINVAL;
	if (msg->len > LCA_MSG_INLINE_WITH_DEADLINE)
		return -EMSGSIZE;
	memcpy(&msg->data[LCA_MSG_INLINE_WITH_DEADLINE], &tsc, sizeof(tsc));
	msg->flags |= LCA_MSG_F_DEADLINE;
	/* Read, then written once: a line every turn reads stays shared. */
	if (unlikely(!__atomic_load_n(&deadlines_used, __ATOMIC_RELAXED)))
		__atomic_store_n(&deadlines_used, true, __ATOMIC_RELAXED);
	return 0;
}

int
lca_msg_set_deadline_us(struct lca_msg *msg, uint64_t us)
{
	uint64_t now = rte_rdtsc(), cycles;

	if (lca_cycles_of_us(us, rte_get_tsc_hz(), now, &cycles) < 0)
		return msg == NULL ? -EINVAL : -ERANGE;
	return lca_msg_set_deadline(msg, now + cycles);
}

unsigned int
deadlines_filter(struct lca_actor *a, struct lca_msg **msgs, unsigned int n)
{
	uint64_t now = rte_rdtsc();
	unsigned int kept = 0;

	for (unsigned int i = 0; i < n; i++) {
		if ((msgs[i]->flags & LCA_MSG_F_DEADLINE) && msg_deadline(msgs[i]) < now) {
			lca_msg_free(msgs[i]);
			a->expired++;
			continue;
		}
		msgs[kept++] = msgs[i];
	}
	return kept;
}
