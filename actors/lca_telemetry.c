/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The runtime's counters over DPDK telemetry, so that a running app can be
 * watched the way any DPDK app is (usertools/dpdk-telemetry.py):
 *   /lcactor/info        actors, lcores, send failures by cause
 *   /lcactor/lcores      per lcore: turns, loops, busy and idle cycles
 *   /lcactor/actor,ID    one actor's counters
 *   /lcactor/actors      every actor, a page at a time (lca_registry.c)
 * The callbacks run in the telemetry thread; they read counters that the
 * lcores write without locks, so a reply may be a moment stale.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>
#include <rte_spinlock.h>
#include <rte_telemetry.h>

#include "lca_eal.h"
#include "lca_actor_priv.h"
#include "lca_refuse_priv.h"
#include "lca_registry_priv.h"
#include "lca_telemetry_priv.h"
#include "lca_timer.h"

/* Held by a reply while it reads the runtime, and by the runtime going
 * down, so a reply never reads freed actors. */
static rte_spinlock_t lock = RTE_SPINLOCK_INITIALIZER;
static bool runtime_up;

/* Run @p fill under the lock, when the runtime is up. */
static int
reply(int (*fill)(const char *params, struct rte_tel_data *d), const char *params,
      struct rte_tel_data *d)
{
	int ret = -ENODEV;

	rte_spinlock_lock(&lock);
	if (runtime_up)
		ret = fill(params, d);
	rte_spinlock_unlock(&lock);
	return ret;
}

/* Refused calls by errno (lca_refuse_priv.h), those that happened only. */
static void
refusals_fill(struct rte_tel_data *d)
{
	char key[32];

	for (int e = 1; e < 160; e++) {
		uint64_t n = lca_refusals_count(e);

		if (n > 0 && lca_errno_name(e) != NULL) {
			snprintf(key, sizeof(key), "refused_%s", lca_errno_name(e));
			rte_tel_data_add_dict_u64(d, key, n);
		}
	}
}

static int
fill_info(const char *params, struct rte_tel_data *d)
{
	struct lca_send_errors e;
	struct lca_timer_stats ts;

	(void)params;
	lca_send_errors_get(&e);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "actors", lca_actor_count());
	rte_tel_data_add_dict_u64(d, "lcores", lca_eal_lcore_count());
	rte_tel_data_add_dict_u64(d, "send_mailbox_full", e.mailbox_full);
	rte_tel_data_add_dict_u64(d, "send_no_actor", e.no_actor);
	rte_tel_data_add_dict_u64(d, "send_stopped", e.stopped);
	rte_tel_data_add_dict_u64(d, "send_pool_empty", e.pool_empty);
	rte_tel_data_add_dict_u64(d, "send_host_down", e.host_down);
	rte_tel_data_add_dict_u64(d, "send_too_big", e.too_big);
	rte_tel_data_add_dict_u64(d, "send_invalid", e.invalid);
	rte_tel_data_add_dict_u64(d, "send_other", e.other);
	rte_tel_data_add_dict_u64(d, "envelope_misuse", e.misuse);
	rte_tel_data_add_dict_u64(d, "packet_misuse", e.packet_misuse);
	refusals_fill(d);
	lca_timer_stats_get(&ts);
	rte_tel_data_add_dict_u64(d, "timers_active", ts.active);
	rte_tel_data_add_dict_u64(d, "timers_fired", ts.fired);
	rte_tel_data_add_dict_u64(d, "timers_ticks", ts.ticks);
	rte_tel_data_add_dict_u64(d, "timers_retried", ts.retried);
	rte_tel_data_add_dict_u64(d, "timers_missed", ts.missed);
	rte_tel_data_add_dict_u64(d, "timers_dropped", ts.dropped);
	asks_fill_info(d); /* services */
	return 0;
}

static int
fill_lcores(const char *params, struct rte_tel_data *d)
{
	unsigned int lcore_id;

	(void)params;
	/* A guest run that no lcore polls has nobody to look: look here. */
	lca_lcore_watch();
	rte_tel_data_start_dict(d);
	LCA_LCORE_FOREACH(lcore_id) {
		struct rte_tel_data *l = rte_tel_data_alloc();
		struct lca_lcore_stats s;
		char name[16];

		if (l == NULL || lca_lcore_stats_get(lcore_id, &s) != 0) {
			rte_tel_data_free(l);
			continue;
		}
		rte_tel_data_start_dict(l);
		rte_tel_data_add_dict_u64(l, "turns", s.turns);
		rte_tel_data_add_dict_u64(l, "loops", s.loops);
		rte_tel_data_add_dict_u64(l, "busy_cycles", s.busy_cycles);
		rte_tel_data_add_dict_u64(l, "idle_cycles", s.idle_cycles);
		rte_tel_data_add_dict_u64(l, "sleeps", s.sleeps);
		/* Guest runs: times it went unpolled past the limit. */
		rte_tel_data_add_dict_u64(l, "stalls", lca_lcore_stalls(lcore_id));
		snprintf(name, sizeof(name), "%u", lcore_id);
		rte_tel_data_add_dict_container(d, name, l, 0);
	}
	return 0;
}

static int
fill_actor(const char *params, struct rte_tel_data *d)
{
	struct lca_actor_stats s;
	char *end;
	unsigned long id;

	rte_tel_data_start_dict(d);
	/* An error that says what is needed, where a null says nothing. */
	if (params == NULL || *params == '\0') {
		rte_tel_data_add_dict_string(d, "error",
			"needs an actor id: /lcactor/actor,ID (/lcactor/actors lists them)");
		return 0;
	}
	id = strtoul(params, &end, 10);
	if (*end != '\0' || id >= LCA_ACTOR_NONE || lca_actor_stats_get((lca_actor_id_t)id, &s) != 0) {
		rte_tel_data_add_dict_string(d, "error",
			"no such actor id (/lcactor/actors lists them)");
		return 0;
	}
	rte_tel_data_add_dict_string(d, "name", lca_actor_name((lca_actor_id_t)id));
	rte_tel_data_add_dict_u64(d, "lcore", s.lcore);
	rte_tel_data_add_dict_u64(d, "alive", lca_actor_alive((lca_actor_id_t)id));
	rte_tel_data_add_dict_u64(d, "received", s.received);
	rte_tel_data_add_dict_u64(d, "handled", s.handled);
	rte_tel_data_add_dict_u64(d, "send_failures", s.send_failures);
	rte_tel_data_add_dict_u64(d, "rejected", s.rejected);
	rte_tel_data_add_dict_u64(d, "deferred", s.deferred);
	rte_tel_data_add_dict_u64(d, "dropped_on_stop", s.dropped_on_stop);
	rte_tel_data_add_dict_u64(d, "turns", s.turns);
	rte_tel_data_add_dict_u64(d, "mailbox_hwm", s.mailbox_hwm);
	rte_tel_data_add_dict_u64(d, "handler_cycles", s.handler_cycles);
	rte_tel_data_add_dict_u64(d, "failures", s.failures);
	rte_tel_data_add_dict_u64(d, "failed_msgs", s.failed_msgs);
	rte_tel_data_add_dict_u64(d, "restarts", s.restarts);
	rte_tel_data_add_dict_u64(d, "expired", s.expired);
	rte_tel_data_add_dict_u64(d, "timed_msgs", s.timed_msgs);
	return 0;
}

static int
tel_info(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	return reply(fill_info, params, d);
}

static int
tel_lcores(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	return reply(fill_lcores, params, d);
}

static int
tel_actor(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	return reply(fill_actor, params, d);
}

static int
tel_actors(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	return reply(registry_fill_actors, params, d);
}

void
telemetry_runtime_up(bool up)
{
	static bool registered;

	/* Telemetry keeps commands for the life of the process, and a
	 * process may init the runtime many times: register once. */
	if (up && !registered) {
		rte_telemetry_register_cmd("/lcactor/info", tel_info,
					   "lcactor: actors, lcores, send failures. No parameters");
		rte_telemetry_register_cmd("/lcactor/lcores", tel_lcores,
					   "lcactor: each lcore's loop counters. No parameters");
		rte_telemetry_register_cmd("/lcactor/actor", tel_actor,
					   "lcactor: one actor's counters. Parameter: actor id");
		rte_telemetry_register_cmd("/lcactor/actors", tel_actors,
					   "lcactor: id, name, lcore, dispatcher, backlog, handled of "
					   "64 actors. Parameter: the first id (default 0)");
		registered = true;
	}
	rte_spinlock_lock(&lock);
	runtime_up = up;
	rte_spinlock_unlock(&lock);
}
