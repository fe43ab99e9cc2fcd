/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Registers the tracepoints of lca_trace_priv.h under the names --trace matches:
 * `--trace='lcactor.*'` enables them all, `--trace=lcactor.handle` the
 * handler's begin and end. A constructor each, run before rte_eal_init().
 */
#ifndef LCA_NO_TRACEPOINTS

#include <rte_trace_point_register.h>

#include "lca_trace_priv.h"

RTE_TRACE_POINT_REGISTER(lca_trace_send, lcactor.send)
RTE_TRACE_POINT_REGISTER(lca_trace_handle_begin, lcactor.handle.begin)
RTE_TRACE_POINT_REGISTER(lca_trace_handle_end, lcactor.handle.end)
RTE_TRACE_POINT_REGISTER(lca_trace_fail, lcactor.fail)
RTE_TRACE_POINT_REGISTER(lca_trace_restart, lcactor.restart)
RTE_TRACE_POINT_REGISTER(lca_trace_migrate, lcactor.migrate)
RTE_TRACE_POINT_REGISTER(lca_trace_timer_fire, lcactor.timer.fire)
RTE_TRACE_POINT_REGISTER(lca_trace_port_rx, lcactor.port.rx)
RTE_TRACE_POINT_REGISTER(lca_trace_port_tx, lcactor.port.tx)

#else
/* ISO C wants a translation unit to hold something. */
typedef int lca_trace_points_compiled_out;
#endif
