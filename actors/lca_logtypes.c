/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The parts' logtypes (lca_logtypes_priv.h). Here, in the lowest part that has a
 * subsystem of its own, so that port and remote, above it, use them without
 * eal/ knowing of parts above it. INFO by default, as "lcactor" is:
 * `--log-level 'lcactor*:debug'` sets them all.
 */
#include <rte_log.h>

#include "lca_logtypes_priv.h"

RTE_LOG_REGISTER(lca_logtype_actor, lcactor.actor, INFO);
RTE_LOG_REGISTER(lca_logtype_port, lcactor.port, INFO);
RTE_LOG_REGISTER(lca_logtype_remote, lcactor.remote, INFO);
RTE_LOG_REGISTER(lca_logtype_timer, lcactor.timer, INFO);
RTE_LOG_REGISTER(lca_logtype_migrate, lcactor.migrate, INFO);
