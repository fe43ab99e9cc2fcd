/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_TRACE_PRIV_H
#define LCA_TRACE_PRIV_H

/*
 * The runtime's rte_trace tracepoints (private; registered in
 * lca_trace_points.c as "lcactor.<what>"), enabled at run time with the EAL
 * argument --trace='lcactor.*' and read with babeltrace2 (docs/usage.md,
 * "Tracing").
 *
 * All are RTE_TRACE_POINT, not RTE_TRACE_POINT_FP: an FP one is compiled in
 * only when DPDK itself was built with enable_trace_fp, which Debian's DPDK is
 * not, so on a stock install --trace would find them empty. A disabled
 * generic tracepoint costs one load of its flag word (acquire: a plain
 * load on x86) and one predictable, never-taken branch (rte_trace_point.h,
 * __rte_trace_point_emit_header_generic); their arguments are plain fields
 * already in registers. The cost on reqresp is measured in docs/usage.md.
 * -Dtracepoints=false compiles them out altogether.
 *
 * Ids are uint32_t (lca_actor_id_t); lcores, ports and queues fit a uint16_t
 * but go out as uint32_t, so that babeltrace2 prints every id the same way.
 */

#ifndef LCA_NO_TRACEPOINTS

#include <rte_trace_point.h>

/* A send of @p n envelopes from @p from to @p to: @p sent went, @p err why
 * the rest did not (0, -ENOBUFS, -EPIPE, ...). */
RTE_TRACE_POINT(
	lca_trace_send,
	RTE_TRACE_POINT_ARGS(uint32_t from, uint32_t to, uint32_t n, uint32_t sent, int err),
	rte_trace_point_emit_u32(from);
	rte_trace_point_emit_u32(to);
	rte_trace_point_emit_u32(n);
	rte_trace_point_emit_u32(sent);
	rte_trace_point_emit_int(err);
)

/* A turn hands @p n envelopes to actor @p actor's handler (on the lcore
 * that every event's cpu_id names). */
RTE_TRACE_POINT(
	lca_trace_handle_begin,
	RTE_TRACE_POINT_ARGS(uint32_t actor, uint32_t n),
	rte_trace_point_emit_u32(actor);
	rte_trace_point_emit_u32(n);
)

/* The handler is done with the turn's @p n envelopes. */
RTE_TRACE_POINT(
	lca_trace_handle_end,
	RTE_TRACE_POINT_ARGS(uint32_t actor, uint32_t n),
	rte_trace_point_emit_u32(actor);
	rte_trace_point_emit_u32(n);
)

/* Actor @p actor's handler failed (lca_actor_fail()) with @p reason on an
 * envelope of @p msg_type (0: none, a batch or its packets); @p action is
 * the supervision strategy (enum lca_supervise). */
RTE_TRACE_POINT(
	lca_trace_fail,
	RTE_TRACE_POINT_ARGS(uint32_t actor, int reason, uint32_t msg_type, uint32_t action),
	rte_trace_point_emit_u32(actor);
	rte_trace_point_emit_int(reason);
	rte_trace_point_emit_u32(msg_type);
	rte_trace_point_emit_u32(action);
)

/* Supervision restarted @p actor, its @p restarts-th time; @p pause_us of
 * backoff before its next turn, or -1: past its limit, so it stops. */
RTE_TRACE_POINT(
	lca_trace_restart,
	RTE_TRACE_POINT_ARGS(uint32_t actor, uint64_t restarts, int64_t pause_us),
	rte_trace_point_emit_u32(actor);
	rte_trace_point_emit_u64(restarts);
	rte_trace_point_emit_i64(pause_us);
)

/* Actor @p actor was handed over from lcore @p from to lcore @p to. */
RTE_TRACE_POINT(
	lca_trace_migrate,
	RTE_TRACE_POINT_ARGS(uint32_t actor, uint32_t from, uint32_t to),
	rte_trace_point_emit_u32(actor);
	rte_trace_point_emit_u32(from);
	rte_trace_point_emit_u32(to);
)

/* A timer for actor @p to fired on @p lcore, whose list held it; @p kind: 0 one-shot, 1
 * periodic, 2 a supervision backoff's wake-up (lca_timer.c, slot_kind). */
RTE_TRACE_POINT(
	lca_trace_timer_fire,
	RTE_TRACE_POINT_ARGS(uint32_t to, uint32_t lcore, uint32_t kind),
	rte_trace_point_emit_u32(to);
	rte_trace_point_emit_u32(lcore);
	rte_trace_point_emit_u32(kind);
)

/* A non-empty RX burst of @p n packets from @p port queue @p queue. */
RTE_TRACE_POINT(
	lca_trace_port_rx,
	RTE_TRACE_POINT_ARGS(uint32_t port, uint32_t queue, uint32_t n),
	rte_trace_point_emit_u32(port);
	rte_trace_point_emit_u32(queue);
	rte_trace_point_emit_u32(n);
)

/* A TX burst that gave @p n packets to @p port queue @p queue's driver. */
RTE_TRACE_POINT(
	lca_trace_port_tx,
	RTE_TRACE_POINT_ARGS(uint32_t port, uint32_t queue, uint32_t n),
	rte_trace_point_emit_u32(port);
	rte_trace_point_emit_u32(queue);
	rte_trace_point_emit_u32(n);
)

#else /* LCA_NO_TRACEPOINTS: -Dtracepoints=false */

#define lca_trace_send(...) do { } while (0)
#define lca_trace_handle_begin(...) do { } while (0)
#define lca_trace_handle_end(...) do { } while (0)
#define lca_trace_fail(...) do { } while (0)
#define lca_trace_restart(...) do { } while (0)
#define lca_trace_migrate(...) do { } while (0)
#define lca_trace_timer_fire(...) do { } while (0)
#define lca_trace_port_rx(...) do { } while (0)
#define lca_trace_port_tx(...) do { } while (0)

#endif /* LCA_NO_TRACEPOINTS */
#endif /* LCA_TRACE_PRIV_H */
